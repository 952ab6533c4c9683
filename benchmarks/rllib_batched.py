"""Training throughput of RLlib's batched env runners (0, 1, 2 runners x games per runner) beside SB3's MaskablePPO.

    python benchmarks/rllib_batched.py                            # Level X: runners 0 1 2 x games 16 64, SB3
    python benchmarks/rllib_batched.py --runners 0 1 --games 64 256 --rounds 5

Every setting trains with the game's config (``training/configs/<game>.yaml``: the same batch of ``n_steps *
n_envs`` learner moves per update, minibatch, epochs and network) against random opponents played inside the
environment, and is timed over ``--rounds`` training iterations (sample, then learn) after one warm-up; the
median round is reported, with the range of the rounds. SB3 runs
``MaskablePPO`` on the config's ``n_envs`` single-seat environments in one process (the ``sb3`` backend,
``--opponent random``) and, for comparison, on the same number of batched games as the RLlib setting with
the most games per runner (the ``batched`` backend). Throughput is in learner moves per second (what every one of these
counts as ``timesteps``); ``all moves/s`` adds the opponents' moves, measured per learner move by random play.
``--aec 0 1`` adds RLlib on AEC runners (one PettingZoo game per runner, random opponents as RLlib modules,
every seat's moves counted by RLlib, shown as learner moves by the same ratio), the path batched runners
replace for kernel games.
The machine's load average is printed before and after: other jobs on a shared machine slow every row.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def spread(rates: list[float]) -> str:
    return f"{min(rates):,.0f} to {max(rates):,.0f}"


def sb3_rates(cfg: Any, backend: str, rounds: int) -> list[float]:
    """Learner moves per second of SB3 MaskablePPO, one per timed update."""
    import torch

    from gameshelf.training import batched
    from gameshelf.training.environments import make_vec_env
    from gameshelf.training.sb3 import build_model

    torch.set_num_threads(cfg.torch_threads)
    vec = batched.make_vec_env(cfg) if backend == "batched" else make_vec_env(cfg)
    try:
        model = build_model(cfg, vec, None)
        batch = cfg.ppo.n_steps * cfg.n_envs
        model.learn(batch)
        rates = []
        for _ in range(rounds):
            start = time.perf_counter()
            model.learn(batch, reset_num_timesteps=False)
            rates.append(batch / (time.perf_counter() - start))
        return rates
    finally:
        vec.close()


def rllib_rates(cfg: Any, runners: int, games: int, rounds: int, root: Path, runner_env: str = "batched") -> list[float]:
    """RLlib's environment steps per second (batched runners: learner moves; AEC: every seat's moves), one per
    timed iteration."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS

    from gameshelf.training.rllib.train import RLlibSettings, Run

    settings = RLlibSettings(num_env_runners=runners, envs_per_runner=games, runner_env=runner_env)
    run = Run(cfg, settings, root, say=lambda _: None)
    try:
        steps = run.algo.train()[ENV_RUNNER_RESULTS]["num_env_steps_sampled_lifetime"]
        rates = []
        for _ in range(rounds):
            start = time.perf_counter()
            result = run.algo.train()
            seconds = time.perf_counter() - start
            now = result[ENV_RUNNER_RESULTS]["num_env_steps_sampled_lifetime"]
            rates.append((now - steps) / seconds)
            steps = now
        return rates
    finally:
        run.stop()


def main(argv: Sequence[str] | None = None) -> int:
    import ray

    from gameshelf.bench.rllib import moves_per_learner_step
    from gameshelf.training.config import resolve_config

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id", nargs="?", default="level_x-v0")
    parser.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2], help="env runner counts (default 0 1 2)")
    parser.add_argument("--games", type=int, nargs="+", default=[16, 64], help="games per runner (default 16 64)")
    parser.add_argument("--rounds", type=int, default=3, help="timed iterations per setting (median reported)")
    parser.add_argument("--no-sb3", action="store_true", help="skip the SB3 rows")
    parser.add_argument(
        "--aec", type=int, nargs="*", default=[], help="also these runner counts on AEC runners (one game each, vs random)"
    )
    args = parser.parse_args(argv)
    cfg = resolve_config(args.env_id, {"opponent": "random"}, seed=0)
    ratio = moves_per_learner_step(cfg)
    ppo = cfg.ppo
    print(
        f"{args.env_id}, {cfg.players} players, random opponents: batch {ppo.n_steps * cfg.n_envs} learner moves, "
        f"minibatch {ppo.batch_size}, {ppo.n_epochs} epochs, net {ppo.net_arch}; {ratio:.2f} moves per learner move; "
        f"{os.cpu_count()} cores, load average before: {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    rows: list[tuple[str, list[float], str]] = []
    if not args.no_sb3:
        rates = sb3_rates(cfg, "sb3", args.rounds)
        rows.append((f"SB3 MaskablePPO, {cfg.n_envs} single-seat envs (sb3 backend)", rates, spread(rates)))
        most = max(args.games)
        wide = dataclasses.replace(cfg, n_envs=most)
        batch = dataclasses.replace(wide, ppo=dataclasses.replace(cfg.ppo, n_steps=max(1, cfg.ppo.n_steps * cfg.n_envs // most)))
        rates = sb3_rates(batch, "batched", args.rounds)
        rows.append((f"SB3 MaskablePPO, {most} batched games (batched backend)", rates, spread(rates)))
        print(
            rows[-2][0],
            f"{statistics.median(rows[-2][1]):.0f}",
            "|",
            rows[-1][0],
            f"{statistics.median(rows[-1][1]):.0f}",
            flush=True,
        )
    cpus = max(2, *(r + 1 for r in args.runners))
    ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for runners in args.runners:
                for games in args.games:
                    root = Path(tmp) / f"{runners}-{games}"
                    root.mkdir()
                    rates = rllib_rates(cfg, runners, games, args.rounds, root)
                    where = "sampling in the driver" if runners == 0 else f"{runners} env runner{'s' * (runners > 1)}"
                    note = f"{runners * games or games} games in all, {spread(rates)}"
                    rows.append((f"RLlib PPO, {where} x {games} batched games", rates, note))
                    print(rows[-1][0], f"{statistics.median(rates):.0f}", flush=True)
            for runners in args.aec:
                root = Path(tmp) / f"aec-{runners}"
                root.mkdir()
                moves = [r / ratio for r in rllib_rates(cfg, runners, 1, args.rounds, root, runner_env="aec")]
                where = "sampling in the driver" if runners == 0 else f"{runners} env runner{'s' * (runners > 1)}"
                rows.append((f"RLlib PPO, {where} x 1 AEC game (before batched runners)", moves, spread(moves)))
                print(rows[-1][0], f"{statistics.median(moves):.0f}", flush=True)
    finally:
        ray.shutdown()
    print(f"\nload average after: {os.getloadavg()[0]:.2f}\n")
    print(f"| setup | learner moves/s (median of {args.rounds}) | all moves/s | note (learner moves/s of the rounds) |")
    print("|---|---:|---:|---|")
    for name, rates, note in rows:
        rate = statistics.median(rates)
        print(f"| {name} | {rate:,.0f} | {rate * ratio:,.0f} | {note} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
