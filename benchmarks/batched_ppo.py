"""Env steps per CPU-second of the ``batched`` backend's learner (``model.learn``, end to end) for one setting.

    python benchmarks/batched_ppo.py level_x-v0 --steps 196608 --n-envs 64 --n-steps 64 --batch-size 1024 --save m.zip
    gameshelf evaluate level_x-v0 model:m.zip random heuristic --games 200 --seed 2024 --policy-mode deterministic

Builds the model and the batched games exactly as ``gameshelf train ID --backend batched`` does (the game's
config file with the given settings over it, ``--opponent`` played inside the batch), then times
``model.learn`` alone: no evaluation, checkpoint or plot. CPU time is the process's (every thread), so it
is what a run costs on a shared machine; the wall time is printed beside it. ``--save`` keeps the model, to
score it with ``gameshelf evaluate`` (docs/training.md, "Tuning the batched backend").
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id")
    parser.add_argument("--steps", type=int, default=65536, help="learner steps (default 65536)")
    parser.add_argument("--opponent", default="random", choices=("random", "heuristic"))
    parser.add_argument("--n-envs", type=int, default=None, help="default: the batched backend's")
    parser.add_argument("--n-steps", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--n-epochs", type=int, default=None)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="write the trained model here (a .zip, playable as model:PATH)")
    args = parser.parse_args(argv)

    import torch

    from gameshelf.training import batched
    from gameshelf.training.config import resolve_config
    from gameshelf.training.model_io import model_info, save_model
    from gameshelf.training.sb3 import build_model

    ppo = {k: v for k, v in (("n_steps", args.n_steps), ("batch_size", args.batch_size), ("n_epochs", args.n_epochs)) if v}
    settings = {"opponent": args.opponent, "timesteps": args.steps, "torch_threads": args.threads, "ppo": ppo}
    if args.n_envs:
        settings["n_envs"] = args.n_envs
    cfg = resolve_config(args.env_id, settings, seed=args.seed, backend_settings=batched.SETTINGS)
    torch.set_num_threads(cfg.torch_threads)
    model = build_model(cfg, batched.make_vec_env(cfg), None)
    cpu, wall = time.process_time(), time.perf_counter()
    model.learn(total_timesteps=cfg.timesteps)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if args.save:
        save_model(model, args.save, model_info(cfg, model))
    kwargs = cfg.ppo.algorithm_kwargs(cfg.n_envs)
    steps = int(model.num_timesteps)
    print(
        f"{cfg.env_id} n_envs={cfg.n_envs} n_steps={kwargs['n_steps']} batch_size={kwargs['batch_size']} "
        f"n_epochs={kwargs['n_epochs']} threads={cfg.torch_threads} seed={cfg.seed}: {steps} steps in {cpu:.1f} CPU-s "
        f"({wall:.1f} s wall): {steps / cpu:.0f} env steps per CPU-second"
    )


if __name__ == "__main__":
    main()
