"""The Stable-Baselines3 learner of the ``sb3`` and ``batched`` backends: ``MaskablePPO`` on a ``VecEnv``.

``learn`` builds the model on the environments it is given (``SingleSeatEnv`` copies in a ``DummyVecEnv`` or
``SubprocVecEnv`` for ``sb3``, the compiled ``BatchedSingleSeatVecEnv`` for ``batched``), restores a
checkpoint when resuming, and runs ``model.learn`` under the callbacks of ``gameshelf.training.callbacks``:
self-play snapshots, periodic evaluation, checkpoints with the run state, the learning curve, and a stop
on SIGINT, SIGTERM or SIGHUP that saves the run. It is driven by ``gameshelf.training.train.train``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gameshelf.training.checkpoints import Plan, TrainResult, reporter
from gameshelf.training.cli_util import UserError
from gameshelf.training.config import TrainConfig


def build_model(config: TrainConfig, vec: Any, tb_dir: Path | None, verbose: int = 0) -> Any:
    """A fresh ``MaskablePPO`` on ``vec`` with the policy of ``config``."""
    from sb3_contrib import MaskablePPO

    from gameshelf.training.policies import policy_spec

    policy_class, kwargs = policy_spec(config.policy, config.observation, config.ppo.net_arch, config.ppo.features_dim)
    return MaskablePPO(
        policy_class,
        vec,
        policy_kwargs=kwargs,
        tensorboard_log=str(tb_dir) if tb_dir is not None else None,
        seed=config.seed,
        device="cpu",
        verbose=verbose,
        **config.ppo.algorithm_kwargs(config.n_envs),
    )


def restore_model(model: Any, checkpoint: tuple[Path, dict[str, Any], int]) -> None:
    """Load a checkpoint's policy and optimizer weights (read as weights only) into a freshly built model."""
    path, weights, steps = checkpoint
    try:
        model.set_parameters(weights, exact_match=True, device="cpu")
    except (RuntimeError, ValueError, KeyError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise UserError(f"the checkpoint {str(path)!r} does not fit the run's config.yaml ({first})") from None
    model.num_timesteps = int(steps)


def learn(
    plan: Plan,
    make_vec_env: Callable[[TrainConfig], Any],
    *,
    progress: bool,
    quiet: bool,
    verbose: int,
    extra: Sequence[Any] = (),
    label: str = "",
) -> TrainResult:
    """Build the environments (``make_vec_env(config)``) and the model, run ``model.learn`` under the callbacks,
    save the outcome; ``label`` is shown after the learning curve's title (the backend, e.g. ``batched``).

    SIGINT, SIGTERM and SIGHUP are caught from here on: learning stops at the next step and the run is saved.
    """
    import torch

    from gameshelf.training.callbacks import Clock, StopOnSignal

    torch.set_num_threads(plan.config.torch_threads)
    clock = Clock(plan.state.wall_s)
    stop = StopOnSignal()
    with stop:
        return _learn(plan, make_vec_env, clock, stop, progress=progress, quiet=quiet, verbose=verbose, extra=extra, label=label)


def _learn(
    plan: Plan,
    make_vec_env: Callable[[TrainConfig], Any],
    clock: Any,
    stop: Any,
    *,
    progress: bool,
    quiet: bool,
    verbose: int,
    extra: Sequence[Any],
    label: str,
) -> TrainResult:
    from stable_baselines3.common.callbacks import CallbackList

    from gameshelf.training.callbacks import (
        CheckpointCallback,
        EvaluationCallback,
        LearningCurve,
        ProgressBarCallback,
        Recorder,
        SelfPlayCallback,
    )
    from gameshelf.training.selfplay import OpponentPool

    cfg, run_dir = plan.config, plan.run
    vec = make_vec_env(cfg)
    try:
        model = build_model(cfg, vec, run_dir.root / "tb", verbose)
        if plan.checkpoint is not None:
            restore_model(model, plan.checkpoint)
        pool = None
        if cfg.opponent == "self":
            pool = OpponentPool(cfg.env_id, cfg.selfplay.mix, cfg.selfplay.pool_size, plan.state.snapshots, root=run_dir.root)
        rows = [r for r in run_dir.read_evaluations() if r["timesteps"] <= model.num_timesteps]
        recorder = Recorder(run_dir, cfg, clock, pool)

        say = reporter(quiet, progress)

        title = f"{cfg.env_id}, {cfg.players} players" + (f" ({label})" if label else "")
        curve = LearningCurve(rows, run_dir.learning_curve, title)
        evaluation = EvaluationCallback(cfg, run_dir, clock, rows, say)
        jobs: list[Any] = []
        if progress:
            jobs.append(ProgressBarCallback(cfg.timesteps, f"train {cfg.env_id}"))
        if pool is not None:
            jobs.append(SelfPlayCallback(pool, run_dir, cfg))
        jobs += [evaluation, CheckpointCallback(recorder, cfg.checkpoint_every), stop, *extra]
        if stop.received is None:  # a signal while building: save the fresh model, learn nothing
            model.learn(
                total_timesteps=cfg.timesteps - model.num_timesteps,
                callback=CallbackList(jobs),
                reset_num_timesteps=plan.checkpoint is None,
                tb_log_name="ppo",
            )
        interrupted = stop.received is not None and model.num_timesteps < cfg.timesteps
        if not interrupted:
            if not rows or rows[-1]["timesteps"] != model.num_timesteps:
                evaluation.evaluate(model)
            path = recorder.save(model, finished=True)
        else:
            path = recorder.save(model, finished=False)
            message = (
                f"{stop.signal_name}: stopped at {model.num_timesteps} steps; saved {run_dir.relative(path)} and "
                f"state.json in {str(run_dir.root)!r}. Resume with: gameshelf train --resume {run_dir.root}"
            )
            print(message, file=sys.stderr, flush=True)
            curve.draw()
            return TrainResult(
                run_dir.root, path, rows, clock(), int(model.num_timesteps), "interrupted", message, stop.signal_name
            )
    finally:
        vec.close()
    curve.draw()
    message = f"trained {model.num_timesteps} steps in {clock():.0f} s"
    return TrainResult(run_dir.root, run_dir.final_model, rows, clock(), int(model.num_timesteps), "finished", message)
