"""Training throughput on RLlib (0, 1, 2 ... env runners) beside SB3's MaskablePPO, on one game.

    python -m gameshelf.bench.rllib level_x-v0 --runners 1 2 --rounds 3

Both train with the game's config (``training/configs/<game>.yaml``: the same batch of ``n_steps *
n_envs`` per update, minibatch, epochs and network). A round is one training iteration (sample, then
learn) after one warm-up; the best round is reported. Throughput is in game moves per second, every
seat's moves counted (RLlib's environment steps); SB3's learner steps are converted with the measured
number of moves per learner step (the opponents' moves happen inside its environment).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any


def moves_per_learner_step(cfg: Any, games: int = 200) -> float:
    """Game moves per learner decision in SB3's single-seat view (random play on every seat)."""
    import numpy as np

    from gameshelf.wrappers import SingleSeatEnv

    env = SingleSeatEnv(cfg.env_id, opponents=["random"], num_players=cfg.players, **cfg.game_options)
    rng = np.random.default_rng(0)
    learner = moves = 0
    for k in range(games):
        env.reset(seed=k)
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            learner += 1
            done = terminated or truncated
        moves += env.episode.num_moves
    return moves / learner


def sb3_rate(cfg: Any, rounds: int) -> float:
    """Best learner steps per second of SB3 MaskablePPO over ``rounds`` updates."""
    from gameshelf.training.environments import make_vec_env
    from gameshelf.training.sb3 import build_model

    vec = make_vec_env(cfg)
    try:
        model = build_model(cfg, vec, None)
        batch = cfg.ppo.n_steps * cfg.n_envs
        model.learn(batch)
        best = 0.0
        for _ in range(rounds):
            start = time.perf_counter()
            model.learn(batch, reset_num_timesteps=False)
            best = max(best, batch / (time.perf_counter() - start))
        return best
    finally:
        vec.close()


def rllib_rate(cfg: Any, runners: int, rounds: int, root: Any) -> float:
    """Best game moves per second of RLlib PPO with ``runners`` env runners over ``rounds`` iterations."""
    from gameshelf.training.rllib.train import RLlibSettings, Run

    run = Run(cfg, RLlibSettings(num_env_runners=runners), root, say=lambda _: None)
    try:
        run.algo.train()
        best = 0.0
        for _ in range(rounds):
            before = run.steps
            start = time.perf_counter()
            run.steps = run.algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]
            best = max(best, (run.steps - before) / (time.perf_counter() - start))
        return best
    finally:
        run.stop()


def main(argv: Sequence[str] | None = None) -> int:
    import tempfile
    from pathlib import Path

    import ray
    import torch

    from gameshelf.training.config import resolve_config

    parser = argparse.ArgumentParser(prog="python -m gameshelf.bench.rllib", description=__doc__.splitlines()[0])
    parser.add_argument("env_id", nargs="?", default="level_x-v0")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2], help="env runner counts to measure (default 1 2)")
    parser.add_argument("--rounds", type=int, default=3, help="timed iterations per setting (best reported)")
    parser.add_argument("--no-sb3", action="store_true", help="skip the SB3 measurement")
    args = parser.parse_args(argv)
    cfg = resolve_config(args.env_id, None, seed=0)
    torch.set_num_threads(cfg.torch_threads)
    batch = cfg.ppo.n_steps * cfg.n_envs
    ppo = cfg.ppo
    shape = f"minibatch {ppo.batch_size}, {ppo.n_epochs} epochs, net {ppo.net_arch}"
    print(f"{args.env_id}, {cfg.players} players: batch {batch} moves, {shape}")
    rows = []
    if not args.no_sb3:
        ratio = moves_per_learner_step(cfg)
        rate = sb3_rate(cfg, args.rounds)
        note = f"{rate:.0f} learner steps/s x {ratio:.2f} moves each"
        rows.append((f"SB3 MaskablePPO, {cfg.n_envs} envs in one process", rate * ratio, note))
    ray.init(
        address="local", num_cpus=max(2, *args.runners), include_dashboard=False, log_to_driver=False, configure_logging=False
    )
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for runners in args.runners:
                rate = rllib_rate(cfg, runners, args.rounds, Path(tmp))
                where = "sampling in the driver" if runners == 0 else f"{runners} env runner{'s' * (runners > 1)}"
                rows.append((f"RLlib PPO, {where}", rate, ""))
    finally:
        ray.shutdown()
    print(f"| setup | moves/s (best of {args.rounds}) | note |\n|---|---:|---|")
    for name, rate, note in rows:
        print(f"| {name} | {rate:,.0f} | {note} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
