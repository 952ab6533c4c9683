"""Train a ``MaskablePPO`` agent on one seat of a gameshelf game.

    python -m gameshelf.training.train level_x-v0
    python -m gameshelf.training.train amoriax-v0 --timesteps 300000 --n-envs 8 --opponent self --seed 1
    python -m gameshelf.training.train koplus-v0 --players 3 --config my_koplus.yaml --out runs/koplus-3p
    python -m gameshelf.training.train --resume runs/level_x-v0/20260101-120000-s0 [--timesteps 400000]
    python -m gameshelf.training.train level_x-v0 --backend rllib --num-env-runners 2   # Ray RLlib, see training/rllib

Defaults per game come from ``training/configs/<game>.yaml``; command-line options override them. The
learner plays a random seat of a ``SingleSeatEnv`` each episode against ``random``, ``heuristic`` or
``self`` (a pool of frozen snapshots of itself mixed with heuristic and random opponents). A run directory
(default ``runs/<env_id>/<time>-s<seed>``) receives:

* ``config.yaml`` (the resolved configuration), ``state.json`` (steps done, pool), ``tb/`` (TensorBoard),
* ``eval.csv`` and ``learning_curve.png``: periodic evaluation against random and heuristic, every seat,
* ``checkpoints/`` (the last ``keep_checkpoints``, for ``--resume``), ``pool/`` (self-play snapshots),
  ``final_model.zip``.

Every setting is checked before anything is created; a bad one prints one line and exits with status 2.
Ctrl-C (or SIGTERM) saves a checkpoint and the run state, prints how to resume and exits with 130 (143).
A full disk stops training with one line saying so and status 1 (``RunWriteError``): every file is written
atomically, so the run keeps its last good checkpoint and resumes from it once there is room.

The code is in layers: ``config`` (typed, checked settings), ``environments`` (the vectorized envs),
``build_model`` / ``restore_model`` below, ``callbacks`` (one job each) and ``learn``.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gameshelf.training.checkpoints import RunDir, RunState, check_new_run_dir, require_run_dir, warn
from gameshelf.training.cli_util import ArgumentParser, UserError, check_writable_dir, run
from gameshelf.training.config import (
    CONFIG_DIR,
    DEFAULTS,
    OPPONENTS,
    TrainConfig,
    from_dict,
    game_name,
    load_config,
    read_yaml,
    resolve_config,
)
from gameshelf.training.environments import heuristic_available, make_env_fn, make_vec_env
from gameshelf.training.model_io import atomic_write_text

__all__ = [
    "CONFIG_DIR",
    "DEFAULTS",
    "OPPONENTS",
    "RunWriteError",
    "TrainConfig",
    "TrainResult",
    "game_name",
    "heuristic_available",
    "load_config",
    "make_env_fn",
    "read_evaluations",
    "train",
]


@dataclass
class TrainResult:
    """Where a run's model and evaluations are.

    ``status``: ``"finished"`` (``model_path`` is ``final_model.zip``), ``"interrupted"`` (by a signal;
    ``model_path`` is the checkpoint just written) or ``"already_done"`` (a resumed run had nothing left
    to do); ``message`` says what happened in one line.
    """

    run_dir: Path
    model_path: Path
    evaluations: list[dict[str, Any]] = field(default_factory=list)
    wall_s: float = 0.0
    timesteps: int = 0
    status: str = "finished"
    message: str = ""
    signal: str = ""


WRITE_ERRNOS = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EIO") if hasattr(errno, name))
"""Errors of the storage itself (full disk, quota, read-only or failing file system): they stop a run cleanly."""


class RunWriteError(OSError):
    """Training stopped because the run's files could not be written (e.g. the disk is full).

    The message says so in one line, and which checkpoint the run keeps; ``errno`` is that of the cause.
    """


def _write_failure(run: RunDir, err: OSError) -> RunWriteError:
    reason = err.strerror or str(err) or type(err).__name__
    checkpoints = run.checkpoint_files() if run.root.is_dir() else []
    if checkpoints:
        kept = (
            f"the run keeps its last good checkpoint, {run.relative(checkpoints[-1])}; "
            f"once there is room, resume with: gameshelf train --resume {run.root}"
        )
    else:
        kept = "it had no checkpoint yet, so nothing was kept"
    failure = RunWriteError(f"training stopped: cannot write the run's files in {str(run.root)!r} ({reason}); {kept}")
    failure.errno = err.errno
    return failure


# ---- planning: settings and the run folder, all checked before anything is created -----------------------
@dataclass
class _Plan:
    config: TrainConfig
    run: RunDir
    state: RunState
    checkpoint: tuple[Path, dict[str, Any], int] | None = None
    new: bool = True


def _without_missing_heuristic(config: TrainConfig) -> TrainConfig:
    named = [config.opponent, *config.eval.opponents, *(config.selfplay.mix if config.opponent == "self" else ())]
    rollouts = [n for n in named if n.startswith("mcts:") and n.endswith(":heuristic")]
    if rollouts and not heuristic_available(config.env_id):
        raise UserError(f"{rollouts[0]} is not allowed: no heuristic agent is available for {config.env_id} to play its rollouts")
    wants = config.opponent == "heuristic" or (config.opponent == "self" and config.selfplay.mix.get("heuristic", 0) > 0)
    if not wants or heuristic_available(config.env_id):
        return config
    if config.opponent == "heuristic":
        raise UserError(f"opponent=heuristic is not allowed: no heuristic agent is available for {config.env_id}")
    mix = {k: v for k, v in config.selfplay.mix.items() if k != "heuristic"}
    return dataclasses.replace(config, selfplay=dataclasses.replace(config.selfplay, mix=mix))


def _plan_new(env_id: str, config: Any, seed: Any, out: Any, overrides: dict[str, Any]) -> _Plan:
    cfg = _without_missing_heuristic(resolve_config(env_id, config, seed=seed, overrides=overrides))
    root = Path(out) if out is not None else Path("runs") / env_id / f"{time.strftime('%Y%m%d-%H%M%S')}-s{seed}"
    check_new_run_dir(root)
    return _Plan(cfg, RunDir(root), RunState())


def _plan_resume(resume: Any, timesteps: int | None) -> _Plan | TrainResult:
    run_dir = require_run_dir(Path(resume))
    saved = read_yaml(run_dir.config_file)
    env_id, seed = saved.pop("env_id", None), saved.pop("seed", 0)
    if not isinstance(env_id, str):
        raise UserError(f"{str(run_dir.config_file)!r} names no env_id")
    from gameshelf.training.cli_util import check_env_id

    check_env_id(env_id)
    cfg = from_dict(env_id, seed, saved)
    if timesteps is not None:
        cfg = cfg.with_timesteps(timesteps)
    cfg = _without_missing_heuristic(cfg)
    state = run_dir.read_state()
    done = _already_done(run_dir, cfg, state, timesteps, state.timesteps)
    if done is not None:
        return done
    checkpoint = run_dir.sound_checkpoint()
    if checkpoint is None:
        # stopped (or killed) before its first checkpoint: the run starts again from its config.yaml
        warn(f"{str(run_dir.root)!r} has no usable checkpoint; starting the run again from step 0")
        return _Plan(cfg, run_dir, RunState(), None, new=False)
    done = _already_done(run_dir, cfg, state, timesteps, checkpoint[2])
    if done is not None:
        return done
    if checkpoint[2] < state.timesteps:
        warn(f"resuming from {checkpoint[2]} steps (the run state says {state.timesteps})")
    return _Plan(cfg, run_dir, state, checkpoint, new=False)


def _already_done(run_dir: RunDir, cfg: TrainConfig, state: RunState, timesteps: int | None, steps: int) -> TrainResult | None:
    if state.finished and timesteps is None:
        message = (
            f"the run {str(run_dir.root)!r} already finished ({steps} steps); to train further, give --timesteps above {steps}"
        )
    elif steps and steps >= cfg.timesteps:
        message = (
            f"the run {str(run_dir.root)!r} has already done {steps} steps (target {cfg.timesteps}); "
            f"nothing to do: give --timesteps above {steps} to train further"
        )
    else:
        return None
    from gameshelf.training.callbacks import read_rows

    model = run_dir.final_model if run_dir.final_model.is_file() else run_dir.root / (state.checkpoint or "")
    return TrainResult(
        run_dir.root,
        model,
        read_rows(run_dir.root / "eval.csv"),
        state.wall_s,
        steps,
        status="already_done",
        message=message,
    )


def _create_run(plan: _Plan) -> None:
    import yaml

    check_writable_dir(plan.run.root)
    plan.run.create()
    if plan.new or plan.config.timesteps != _saved_timesteps(plan.run):
        data = {"env_id": plan.config.env_id, **plan.config.to_dict()}
        atomic_write_text(plan.run.config_file, yaml.safe_dump(data, sort_keys=False))


def _saved_timesteps(run: RunDir) -> Any:
    try:
        return read_yaml(run.config_file).get("timesteps")
    except UserError:
        return None


# ---- the model ------------------------------------------------------------------------------------------------
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


# ---- learning ---------------------------------------------------------------------------------------------------
def train(
    env_id: str,
    *,
    players: int | None = None,
    timesteps: int | None = None,
    n_envs: int | None = None,
    opponent: str | None = None,
    seed: int = 0,
    config: str | os.PathLike[str] | dict[str, Any] | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    verbose: int = 0,
    quiet: bool = False,
    callbacks: Sequence[Any] = (),
) -> TrainResult:
    """Train (or resume) a run; returns where the model and the evaluations are. Raises ``UserError`` for a bad
    setting, ``RunWriteError`` when the run's files cannot be written (a full disk; the last good checkpoint stays).

    ``config``: a YAML path replacing the game's config file, or a dict of settings overriding it.
    ``progress``: the progress bar (default: only when standard output is a terminal); ``quiet``: no bar
    and no evaluation lines. ``callbacks``: extra SB3 callbacks, run after ours.
    """
    if resume is not None:
        planned = _plan_resume(resume, timesteps)
        if isinstance(planned, TrainResult):
            return planned
        plan = planned
    else:
        overrides = {"players": players, "timesteps": timesteps, "n_envs": n_envs, "opponent": opponent}
        plan = _plan_new(env_id, config, seed, out, overrides)
    if progress is None:
        from gameshelf.training.callbacks import stdout_is_terminal

        progress = stdout_is_terminal()
    existed = plan.run.root.exists()
    try:
        _create_run(plan)
        return learn(plan, progress=progress and not quiet, quiet=quiet, verbose=verbose, extra=callbacks)
    except BaseException as err:
        if plan.new and not plan.run.checkpoint_files():
            _remove_new_run(plan.run.root, existed)
        if isinstance(err, OSError) and err.errno in WRITE_ERRNOS:
            raise _write_failure(plan.run, err) from err
        raise


def _remove_new_run(root: Path, existed: bool) -> None:
    """Undo a new run that stopped before its first checkpoint, so ``--out`` can be used again (a failure to
    clean up never hides why the run stopped)."""
    if existed:
        for child in root.iterdir() if root.is_dir() else ():
            shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink(missing_ok=True)
    else:
        shutil.rmtree(root, ignore_errors=True)


def learn(plan: _Plan, *, progress: bool, quiet: bool, verbose: int, extra: Sequence[Any] = ()) -> TrainResult:
    """Build the environments and the model, run ``model.learn`` under the callbacks, save the outcome.

    SIGINT and SIGTERM are caught from here on: learning stops at the next step and the run is saved.
    """
    import torch

    from gameshelf.training.callbacks import Clock, StopOnSignal

    cfg = plan.config
    torch.set_num_threads(cfg.torch_threads)
    clock = Clock(plan.state.wall_s)
    stop = StopOnSignal()
    with stop:
        return _learn(plan, clock, stop, progress=progress, quiet=quiet, verbose=verbose, extra=extra)


def _learn(plan: _Plan, clock: Any, stop: Any, *, progress: bool, quiet: bool, verbose: int, extra: Sequence[Any]) -> TrainResult:
    from stable_baselines3.common.callbacks import CallbackList

    from gameshelf.training.callbacks import (
        CheckpointCallback,
        EvaluationCallback,
        LearningCurveCallback,
        ProgressBarCallback,
        Recorder,
        SelfPlayCallback,
        read_rows,
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
        rows = [r for r in read_rows(run_dir.root / "eval.csv") if r["timesteps"] <= model.num_timesteps]
        recorder = Recorder(run_dir, cfg, clock, pool)

        def say(message: str) -> None:
            if quiet:
                return
            if progress:
                from tqdm.auto import tqdm

                tqdm.write(message)
            else:
                print(message, flush=True)

        curve = LearningCurveCallback(rows, run_dir.root / "learning_curve.png", f"{cfg.env_id}, {cfg.players} players")
        evaluation = EvaluationCallback(cfg, run_dir, clock, rows, say, callback_after_eval=curve)
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


def read_evaluations(run_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of a run's ``eval.csv`` (one per evaluation; empty when there is none yet)."""
    from gameshelf.training.callbacks import read_rows

    return read_rows(Path(run_dir) / "eval.csv")


# ---- command line -------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="gameshelf train",
        description="Train a MaskablePPO agent on one seat of a gameshelf game (self-play by default).",
    )
    parser.add_argument("env_id", nargs="?", help="environment id, e.g. level_x-v0 (not needed with --resume)")
    parser.add_argument("--players", type=int, default=None, help="number of players (default: the config's or the id's first)")
    parser.add_argument("--timesteps", type=int, default=None, help="total learner steps (default: the game's config)")
    parser.add_argument("--n-envs", type=int, default=None, help="parallel environments (default: the game's config)")
    parser.add_argument(
        "--opponent",
        default=None,
        help=f"opponents: {', '.join(OPPONENTS)} or an MCTS agent such as mcts:50 (default: the game's config, usually self)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed, 0..2**32-1 (default 0)")
    parser.add_argument("--config", default=None, help="YAML config (default training/configs/<game>.yaml)")
    parser.add_argument("--out", default=None, help="run directory (default runs/<env_id>/<time>-s<seed>)")
    parser.add_argument("--resume", default=None, metavar="RUN_DIR", help="continue a run from its latest checkpoint")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no evaluation lines")
    parser.add_argument("--verbose", type=int, default=0, help="SB3 verbosity (0, 1, 2)")
    rllib = parser.add_argument_group("Ray RLlib (--backend rllib, needs the rllib extra; see docs/scaling.md)")
    rllib.add_argument("--backend", choices=("sb3", "rllib"), default="sb3", help="training library (default sb3)")
    rllib.add_argument("--num-env-runners", type=int, default=None, help="sampling processes (default 1; 0: in this process)")
    rllib.add_argument("--envs-per-runner", type=int, default=None, help="games each env runner steps (default 1)")
    rllib.add_argument(
        "--address", default=None, help="a running Ray cluster (auto, ray://HOST:10001); default: Ray on this machine"
    )
    rllib.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray (default: all)")
    rllib.add_argument(
        "--policies", choices=("shared", "per_seat"), default=None, help="one policy for all seats (default) or one per seat"
    )
    return parser


RLLIB_OPTIONS = ("num_env_runners", "envs_per_runner", "address", "num_cpus", "policies")


def main_rllib(args: argparse.Namespace) -> int:
    """``gameshelf train ... --backend rllib``."""
    from gameshelf.training.rllib.train import RLlibSettings, train_rllib

    if args.resume is not None:
        raise UserError("--resume is for SB3 runs; an RLlib run starts anew (its final_policy/ loads as rllib:PATH)")
    given = {name: getattr(args, name) for name in RLLIB_OPTIONS if getattr(args, name) is not None}
    result = train_rllib(
        args.env_id,
        settings=RLlibSettings(**given),
        players=args.players,
        timesteps=args.timesteps,
        n_envs=args.n_envs,
        opponent=args.opponent,
        seed=args.seed,
        config=args.config,
        out=args.out,
        progress=not args.quiet and sys.stdout.isatty(),
        quiet=args.quiet,
    )
    report(result, f"policy: {result.model_path} (play it as rllib:{result.run_dir})")
    return exit_code(result)


def report(result: TrainResult, saved: str) -> None:
    """Print a finished or interrupted run's summary: its message, last evaluation, what it saved, its curve."""
    print(result.message)
    if result.evaluations:
        last = result.evaluations[-1]
        print("last evaluation: " + ", ".join(f"{k}={v:.3g}" for k, v in last.items() if k != "timesteps"))
    print(saved)
    print(f"learning curve: {result.run_dir / 'learning_curve.png'}")


def exit_code(result: TrainResult) -> int:
    """0, or 128 + the signal's number for a run a signal interrupted (as a shell reports it)."""
    if result.status == "interrupted":
        import signal

        return 128 + int(getattr(signal, result.signal, signal.SIGINT))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.resume is None and args.env_id is None:
        parser.error("give an environment id (or --resume RUN_DIR)")
    for name in ("timesteps", "n_envs", "players"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.backend == "rllib":
        return main_rllib(args)
    stray = [f"--{name.replace('_', '-')}" for name in RLLIB_OPTIONS if getattr(args, name) is not None]
    if stray:
        parser.error(f"{', '.join(stray)} only apply with --backend rllib")
    try:
        result = train(
            args.env_id or "",
            players=args.players,
            timesteps=args.timesteps,
            n_envs=args.n_envs,
            opponent=args.opponent,
            seed=args.seed,
            config=args.config,
            out=args.out,
            resume=args.resume,
            progress=False if args.quiet else None,
            quiet=args.quiet,
            verbose=args.verbose,
        )
    except RunWriteError as err:
        print(f"gameshelf train: error: {err}", file=sys.stderr, flush=True)
        return 1
    if result.status == "already_done":
        print(result.message)
        return 0
    if result.status == "interrupted":
        return exit_code(result)
    report(result, f"model: {result.model_path}")
    return 0


if __name__ == "__main__":
    run(main, prog="gameshelf train")
