"""Train ``MaskablePPO`` on one seat of batched games (compiled kernels, one process), then evaluate it.

    python -m gameshelf.training.batched level_x-v0 --timesteps 150000 --num-envs 16 --opponents random

The policy and PPO settings are the game's training config (``training/configs/<game>.yaml``); the
opponents are fixed (``random`` or ``heuristic``, no self-play), played inside the
``BatchedSingleSeatVecEnv``. Only ids with compiled kernels (``gameshelf.vector.BATCHED_IDS``). The model
is saved as ``<out>/final_model.zip`` (a ``model:PATH`` agent) and evaluated against random and the
heuristic, every seat played.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from gameshelf.training.cli_util import ArgumentParser, UserError, check_env_id, run


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m gameshelf.training.batched", description=__doc__.splitlines()[0])
    parser.add_argument("env_id", help="an id with compiled kernels, e.g. level_x-v0")
    parser.add_argument("--timesteps", type=int, default=150_000, help="learner decisions to train for")
    parser.add_argument("--num-envs", type=int, default=16, help="games stepped together")
    parser.add_argument("--opponents", choices=("random", "heuristic"), default="random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=200, help="evaluation games per opponent")
    parser.add_argument("--out", default=None, help="run folder (default runs/<id>/batched-s<seed>)")
    args = parser.parse_args(argv)
    check_env_id(args.env_id)
    from gameshelf.envs.vector import BATCHED_IDS

    if args.env_id not in BATCHED_IDS:
        raise UserError(f"{args.env_id} has no compiled kernel; batched ids: {list(BATCHED_IDS)}")
    if args.timesteps < 1 or args.num_envs < 1 or args.games < 1:
        raise UserError("--timesteps, --num-envs and --games must be positive")

    import torch
    from sb3_contrib import MaskablePPO

    from gameshelf.training.agents.learned import LearnedAgent
    from gameshelf.training.config import from_dict, load_config
    from gameshelf.training.evaluate import evaluate
    from gameshelf.training.policies import policy_spec
    from gameshelf.wrappers.batched import BatchedSingleSeatVecEnv

    torch.set_num_threads(1)
    config = from_dict(args.env_id, args.seed, load_config(args.env_id))
    out = Path(args.out or f"runs/{args.env_id}/batched-s{args.seed}")
    out.mkdir(parents=True, exist_ok=True)
    vec = BatchedSingleSeatVecEnv(args.env_id, args.num_envs, opponents=args.opponents, seed=args.seed, **config.game_options)
    policy_class, kwargs = policy_spec(config.policy, "flat", config.ppo.net_arch, config.ppo.features_dim)
    model = MaskablePPO(
        policy_class, vec, policy_kwargs=kwargs, seed=args.seed, device="cpu", **config.ppo.algorithm_kwargs(args.num_envs)
    )
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=args.timesteps, progress_bar=False)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    model.save(out / "final_model.zip")
    speed = model.num_timesteps / wall
    print(f"trained {model.num_timesteps:,} learner steps in {wall:.1f} s ({speed:,.0f} steps/s, {cpu:.1f} CPU-s)")
    print(f"saved {out / 'final_model.zip'}")
    learner = LearnedAgent.from_model(model, args.env_id)
    result = evaluate(args.env_id, [learner, "random", "heuristic"], games=args.games, seed=args.seed + 1000, first_only=True)
    for pair in (p for p in result.pairs if p.agent == learner.name):
        low, high = pair.win_ci
        rate = f"{100 * pair.win_rate:.1f}% wins [{100 * low:.1f}, {100 * high:.1f}]"
        print(f"{pair.agent} vs {pair.opponent}: {rate} over {pair.games} games")
    return 0


if __name__ == "__main__":
    run(main, prog="python -m gameshelf.training.batched")
