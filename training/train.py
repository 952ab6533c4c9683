"""Train an agent on one seat of a gameshelf game: one front door, ``train``, for every backend (``BACKENDS``).

    python -m gameshelf.training.train level_x-v0
    python -m gameshelf.training.train amoriax-v0 --timesteps 300000 --n-envs 8 --opponent self --seed 1
    python -m gameshelf.training.train koplus-v0 --players 3 --config my_koplus.yaml --out runs/koplus-3p
    python -m gameshelf.training.train --resume runs/level_x-v0/20260101-120000-s0 [--timesteps 400000]
    python -m gameshelf.training.train level_x-v0 --backend batched --n-envs 16 --opponent random
    python -m gameshelf.training.train level_x-v0 --backend rllib --num-env-runners 2   # Ray RLlib, see training/rllib
    python -m gameshelf.training.train level_x-v0 --backend expert   # expert iteration: search + a small network

``gameshelf train`` is this command; from Python, ``train(env_id, config=..., backend=...)``. The backends
learn from the same settings and write the same run folder (``gameshelf.training.checkpoints``):

* ``sb3`` (the default; ``gameshelf.training.sb3``): ``MaskablePPO`` on ``n_envs`` ``SingleSeatEnv`` copies:
  the learner plays a random seat each episode against ``random``, ``heuristic``, an MCTS agent or ``self``
  (a pool of frozen snapshots of itself mixed with heuristic and random opponents).
* ``batched`` (``gameshelf.training.batched``): the same learner on ``n_envs`` games stepped together by
  compiled kernels in one process, against ``random`` or ``heuristic`` (ids with kernels only).
* ``rllib`` (``gameshelf.training.rllib``): PPO on Ray RLlib, one shared policy or one per seat, local or
  on a cluster (needs the ``rllib`` extra; see docs/scaling.md).
* ``expert`` (``gameshelf.training.expert``): expert iteration, AlphaZero-style: a heuristic warm start,
  then self-play where every seat searches with ``MCTSAgent`` guided by a small network (PUCT prior, value
  leaves), the network trained on the searches' visit distributions and the final returns (settings: the
  ``expert`` section). It writes ``progress.csv``, ``checkpoints/iter_K.npz`` (a ``NetPolicy``) with
  ``iter_K.pt`` (the optimizer), ``replay/`` (the samples of the replay window) and ``final_net.npz``.

Defaults per game come from ``training/configs/<game>.yaml``; ``config`` (a YAML path, a dict of settings
or a ``TrainConfig``) and the command-line options override them. A run folder (default
``runs/<env_id>/<time>-s<seed>``, with ``-batched``, ``-rllib`` or ``-expert`` after it for those backends) receives
``config.yaml`` (the resolved settings and the backend), ``state.json`` (steps done, the checkpoint, the
self-play pool), ``eval.csv`` and ``learning_curve.png`` (periodic evaluation against ``eval.opponents``,
every seat), ``checkpoints/`` (the last ``keep_checkpoints``) and the model: ``final_model.zip`` (SB3,
batched) or ``final_policy/`` (RLlib), each with its ``gameshelf.json`` beside the weights.

Every setting is checked before anything is created; a bad one prints one line and exits with status 2.
Ctrl-C (or SIGTERM, or SIGHUP when the terminal closes) saves a checkpoint and the run state, prints how to resume
and exits with 130 (143, 129).
``--resume`` continues a run of any backend from its newest sound checkpoint (RLlib: the algorithm's state,
the league's snapshots, the step count and the evaluations).
A full disk stops training with one line saying so and status 1 (``RunWriteError``): every file is written
atomically, so the run keeps its last good checkpoint and resumes from it once there is room.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gameshelf.training import batched
from gameshelf.training.checkpoints import (
    RUN_FOLDERS,
    WRITE_ERRNOS,
    Plan,
    RunDir,
    RunState,
    RunWriteError,
    TrainResult,
    check_new_run_dir,
    read_rows,
    require_run_dir,
    warn,
)
from gameshelf.training.cli_util import ArgumentParser, UserError, check_env_id, check_writable_dir, is_terminal, run
from gameshelf.training.config import OPPONENTS, TrainConfig, from_dict, read_yaml, resolve_config
from gameshelf.training.environments import heuristic_available, make_vec_env

__all__ = ["BACKENDS", "RunWriteError", "TrainConfig", "TrainResult", "heuristic_available", "read_evaluations", "train"]

RLLIB_OPTIONS = ("num_env_runners", "envs_per_runner", "address", "num_cpus", "policies", "runner_resources", "runner_env")


# ---- the backends: what differs between them ----------------------------------------------------------------
def _has_checkpoint(run: RunDir) -> bool:
    """An SB3 or RLlib checkpoint in the run folder."""
    return bool(run.checkpoint_files() or run.policy_checkpoints())


@dataclasses.dataclass(frozen=True)
class Backend:
    """One training backend (an entry of ``BACKENDS``): how it checks and runs a plan, what it takes, how it resumes."""

    check: Callable[[Plan], Plan]  # its own checks of a plan; the plan to run
    learn: Callable[[Plan, bool, bool, int, Sequence[Any]], TrainResult]  # (plan, progress, quiet, verbose, callbacks)
    sound_checkpoint: Callable[[RunDir], Any] = RunDir.sound_checkpoint  # the newest sound one a resume continues from
    has_checkpoint: Callable[[RunDir], bool] = _has_checkpoint  # written one (else a failed new run is removed)
    suffix: str = ""  # after the name of a default run folder
    rllib: bool = False  # takes RLlib's settings (``RLLIB_OPTIONS``, ``Plan.rllib``)
    callbacks: bool = True  # takes SB3 callbacks
    decisions: bool = False  # ``timesteps`` caps its decisions, not its iterations
    folders: tuple[str, ...] = RUN_FOLDERS  # the sub-folders of its run folder (``RunDir.create``)
    settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # over the game's file (``resolve_config``)


def _check_opponents(plan: Plan) -> Plan:
    """The self-play mix without a heuristic the game does not have."""
    return dataclasses.replace(plan, config=_without_missing_heuristic(plan.config))


def _check_batched(plan: Plan) -> Plan:
    batched.check(plan)
    return _check_opponents(plan)


def _check_rllib(plan: Plan) -> Plan:
    from gameshelf.training.rllib.train import check

    return check(plan)


def _check_expert(plan: Plan) -> Plan:
    if plan.config.expert.warm_games and not heuristic_available(plan.config.env_id):
        raise UserError(
            f"expert.warm_games={plan.config.expert.warm_games} needs a heuristic agent and {plan.config.env_id} has none; "
            "set expert.warm_games: 0"
        )
    return _check_opponents(plan)


def _learn_sb3(plan: Plan, progress: bool, quiet: bool, verbose: int, callbacks: Sequence[Any]) -> TrainResult:
    from gameshelf.training.sb3 import learn

    return learn(plan, make_vec_env, progress=progress, quiet=quiet, verbose=verbose, extra=callbacks)


def _learn_batched(plan: Plan, progress: bool, quiet: bool, verbose: int, callbacks: Sequence[Any]) -> TrainResult:
    from gameshelf.training.sb3 import learn

    return learn(plan, batched.make_vec_env, progress=progress, quiet=quiet, verbose=verbose, extra=callbacks, label="batched")


def _learn_rllib(plan: Plan, progress: bool, quiet: bool, verbose: int, callbacks: Sequence[Any]) -> TrainResult:
    from gameshelf.training.rllib.train import learn

    return learn(plan, progress=progress, quiet=quiet)


def _learn_expert(plan: Plan, progress: bool, quiet: bool, verbose: int, callbacks: Sequence[Any]) -> TrainResult:
    from gameshelf.training.expert import learn

    return learn(plan, progress=progress, quiet=quiet)


def _expert_sound_checkpoint(run: RunDir) -> Any:
    from gameshelf.training.expert import sound_checkpoint

    return sound_checkpoint(run)


def _has_expert_checkpoint(run: RunDir) -> bool:
    if _has_checkpoint(run):
        return True
    if not run.root.is_dir():
        return False
    from gameshelf.training.expert import net_checkpoints

    return bool(net_checkpoints(run))


BACKENDS: dict[str, Backend] = {
    "sb3": Backend(_check_opponents, _learn_sb3),
    "batched": Backend(_check_batched, _learn_batched, suffix="-batched", settings=batched.SETTINGS),
    "rllib": Backend(
        _check_rllib,
        _learn_rllib,
        sound_checkpoint=RunDir.sound_policy_checkpoint,
        suffix="-rllib",
        rllib=True,
        callbacks=False,
        folders=("checkpoints",),
    ),
    "expert": Backend(
        _check_expert,
        _learn_expert,
        sound_checkpoint=_expert_sound_checkpoint,
        has_checkpoint=_has_expert_checkpoint,
        suffix="-expert",
        callbacks=False,
        decisions=True,
        folders=("checkpoints",),
    ),
}
DEFAULT_BACKEND = "sb3"


def _backend(name: str) -> Backend:
    """The backend called ``name``; one ``UserError`` listing them for another."""
    if name not in BACKENDS:
        raise UserError(f"backend={name!r} is not allowed; allowed values: {', '.join(BACKENDS)}")
    return BACKENDS[name]


# ---- the front door -----------------------------------------------------------------------------------------
def train(
    env_id: str = "",
    *,
    backend: str | None = None,
    config: str | os.PathLike[str] | dict[str, Any] | TrainConfig | None = None,
    players: int | None = None,
    timesteps: int | None = None,
    n_envs: int | None = None,
    opponent: str | None = None,
    seed: int | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: str | os.PathLike[str] | None = None,
    rllib: Any = None,
    progress: bool | None = None,
    verbose: int = 0,
    quiet: bool = False,
    callbacks: Sequence[Any] = (),
) -> TrainResult:
    """Train (or resume) a run on ``backend`` (``sb3``, ``batched``, ``rllib`` or ``expert``; default ``sb3``, or the
    resumed run's); returns where the model and the evaluations are. Raises ``UserError`` for a bad setting,
    ``RunWriteError`` when the run's files cannot be written (a full disk; the last good checkpoint stays).

    ``config``: a YAML path replacing the game's config file, a dict of settings overriding it, or a whole
    ``TrainConfig`` (which also gives the id and the seed); ``players``, ``timesteps``, ``n_envs``,
    ``opponent`` override single settings. ``resume``: a run folder to continue (any backend).
    ``rllib``: RLlib's own settings (``gameshelf.training.rllib.train.RLlibSettings``); when resuming, a dict of
    those to change (how the run is spread: ``num_env_runners``, ``envs_per_runner``, ``runner_resources``, ``address``,
    ``num_cpus``; not ``policies`` nor ``runner_env``). ``progress``: the
    progress bar (default: only when standard output is a terminal); ``quiet``: no bar and no evaluation
    lines. ``callbacks``: extra SB3 callbacks, run after ours (not on RLlib).
    """
    if resume is not None:
        planned = _plan_resume(resume, timesteps, backend, rllib)
        if isinstance(planned, TrainResult):
            return planned
        plan = planned
    else:
        overrides = {"players": players, "timesteps": timesteps, "n_envs": n_envs, "opponent": opponent}
        plan = _plan_new(env_id, backend or DEFAULT_BACKEND, config, seed, out, overrides, rllib)
    spec = BACKENDS[plan.backend]
    if not spec.callbacks and callbacks:
        raise ValueError(f"callbacks are Stable-Baselines3 callbacks: the {plan.backend} backend takes none")
    if progress is None:
        progress = is_terminal(sys.stdout)
    progress = progress and not quiet
    existed = plan.run.root.exists()
    try:
        _create_run(plan)
        return spec.learn(plan, progress, quiet, verbose, callbacks)
    except BaseException as err:
        if plan.new and not spec.has_checkpoint(plan.run):
            _remove_new_run(plan.run.root, existed)
        if isinstance(err, OSError) and err.errno in WRITE_ERRNOS:
            raise plan.run.write_failure(err) from err
        raise


def read_evaluations(run_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of a run's ``eval.csv`` (one per evaluation; empty when there is none yet)."""
    return RunDir(run_dir).read_evaluations()


# ---- planning: settings and the run folder, all checked before anything is created -----------------------
def _check_backend(plan: Plan) -> Plan:
    """The backend's own checks (an unknown backend: one error listing them)."""
    return _backend(plan.backend).check(plan)


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


def _plan_new(env_id: str, backend: str, config: Any, seed: Any, out: Any, overrides: dict[str, Any], rllib: Any) -> Plan:
    if isinstance(config, TrainConfig):
        if env_id and env_id != config.env_id:
            raise UserError(f"the config is for {config.env_id}, not {env_id}")
        env_id, seed = config.env_id, config.seed if seed is None else seed
        config = {k: v for k, v in config.to_dict().items() if k not in ("env_id", "seed")}
    seed = 0 if seed is None else seed
    spec = _backend(backend)
    cfg = resolve_config(env_id, config, seed=seed, overrides=overrides, backend_settings=dict(spec.settings))
    if spec.decisions and overrides.get("timesteps") is not None:
        cfg = _decision_budget(cfg)
    if rllib is not None and not spec.rllib:
        raise UserError(f"the {backend} backend takes no RLlib settings: RLlib's options only apply to RLlib runs")
    name = f"{time.strftime('%Y%m%d-%H%M%S')}-s{seed}{spec.suffix}"
    root = Path(out) if out is not None else Path("runs") / env_id / name
    check_new_run_dir(root)
    return _check_backend(Plan(cfg, RunDir(root), RunState(), backend, rllib=rllib))


def _plan_resume(resume: Any, timesteps: int | None, backend: str | None, rllib: Any = None) -> Plan | TrainResult:
    run_dir = require_run_dir(Path(resume))
    saved = read_yaml(run_dir.config_file)
    env_id, seed = saved.pop("env_id", None), saved.pop("seed", 0)
    saved_backend = str(saved.pop("backend", DEFAULT_BACKEND))
    saved_rllib = saved.pop("rllib", None)
    if backend is not None and backend != saved_backend:
        raise UserError(f"{str(run_dir.root)!r} is a {saved_backend} run; it resumes with --backend {saved_backend}")
    settings = _resumed_rllib_settings(run_dir, saved_backend, saved_rllib, rllib)
    if not isinstance(env_id, str):
        raise UserError(f"{str(run_dir.config_file)!r} names no env_id")
    check_env_id(env_id)
    cfg = from_dict(env_id, seed, saved)
    if timesteps is not None:
        cfg = cfg.with_timesteps(timesteps)
    plan = _check_backend(Plan(cfg, run_dir, RunState(), saved_backend, new=False, rllib=settings))
    spec = BACKENDS[plan.backend]
    if timesteps is not None and spec.decisions:
        plan = dataclasses.replace(plan, config=_decision_budget(plan.config))
    cfg = plan.config
    state = run_dir.read_state()
    done = _already_done(run_dir, cfg, state, timesteps, state.timesteps)
    if done is not None:
        return done
    checkpoint = spec.sound_checkpoint(run_dir)
    if checkpoint is None:
        # stopped (or killed) before its first checkpoint: the run starts again from its config.yaml
        warn(f"{str(run_dir.root)!r} has no usable checkpoint; starting the run again from step 0")
        return plan
    done = _already_done(run_dir, cfg, state, timesteps, checkpoint[2])
    if done is not None:
        return done
    if checkpoint[2] < state.timesteps:
        warn(f"resuming from {checkpoint[2]} steps (the run state says {state.timesteps})")
    return dataclasses.replace(plan, state=state, checkpoint=checkpoint)


def _decision_budget(config: TrainConfig) -> TrainConfig:
    """An expert run given ``--timesteps``: that many decisions end it, not a number of iterations."""
    return dataclasses.replace(config, expert=dataclasses.replace(config.expert, iterations=None))


def _resumed_rllib_settings(run_dir: RunDir, backend: str, saved: Any, changes: Any) -> Any:
    """The ``RLlibSettings`` of a resumed RLlib run: those of its ``config.yaml`` with ``changes`` (a dict or an
    ``RLlibSettings``) applied; None for another backend, which takes no changes."""
    if backend not in BACKENDS or not BACKENDS[backend].rllib:
        if changes:
            raise UserError(f"{str(run_dir.root)!r} is a {backend} run: RLlib's options only apply to RLlib runs")
        return None
    from gameshelf.training.rllib.train import RLlibSettings

    fields = {f.name for f in dataclasses.fields(RLlibSettings)}
    settings = {k: v for k, v in (saved or {}).items() if k in fields} if isinstance(saved, dict) else {}
    if isinstance(changes, RLlibSettings):
        changes = dataclasses.asdict(changes)
    changes = {k: v for k, v in (changes or {}).items() if v is not None}
    unknown = sorted(set(changes) - fields)
    if unknown:
        raise UserError(f"unknown RLlib setting {unknown[0]!r}; allowed: {', '.join(sorted(fields))}")
    before = settings.get("policies", RLlibSettings.policies)
    if changes.get("policies", before) != before:
        raise UserError(f"{str(run_dir.root)!r} was trained with --policies {before}; a resumed run keeps its policies")
    settings.setdefault("runner_env", "aec")  # runs from before batched runners
    runner_env = settings["runner_env"]
    if changes.get("runner_env", runner_env) not in (runner_env, "auto"):
        raise UserError(
            f"{str(run_dir.root)!r} was trained with --runner-env {runner_env}; a resumed run keeps its runner environment"
        )
    changes.pop("runner_env", None)
    return RLlibSettings(**{**settings, **changes})


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
    finals = [f for f in (run_dir.final_model, run_dir.root / "final_net.npz") if f.is_file()]
    model = finals[0] if finals else run_dir.root / (state.checkpoint or "")
    return TrainResult(
        run_dir.root,
        model,
        read_rows(run_dir.eval_file),
        state.wall_s,
        steps,
        status="already_done",
        message=message,
    )


def _create_run(plan: Plan) -> None:
    check_writable_dir(plan.run.root)
    plan.run.create(BACKENDS[plan.backend].folders)
    extra = {"rllib": dataclasses.asdict(plan.rllib)} if BACKENDS[plan.backend].rllib else None
    saved = _saved_config(plan.run)
    if plan.new or plan.config.timesteps != saved.get("timesteps") or (extra and extra["rllib"] != saved.get("rllib")):
        plan.run.write_config(plan.config, plan.backend, extra)


def _saved_config(run: RunDir) -> dict[str, Any]:
    try:
        return read_yaml(run.config_file)
    except UserError:
        return {}


def _remove_new_run(root: Path, existed: bool) -> None:
    """Undo a new run that stopped before its first checkpoint, so ``--out`` can be used again (a failure to
    clean up never hides why the run stopped)."""
    if existed:
        for child in root.iterdir() if root.is_dir() else ():
            shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink(missing_ok=True)
    else:
        shutil.rmtree(root, ignore_errors=True)


# ---- command line -------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="gameshelf train",
        description="Train an agent on one seat of a gameshelf game (MaskablePPO self-play by default; "
        "--backend expert for expert iteration).",
    )
    parser.add_argument("env_id", nargs="?", help="environment id, e.g. level_x-v0 (not needed with --resume)")
    parser.add_argument("--players", type=int, default=None, help="number of players (default: the config's or the id's first)")
    parser.add_argument("--timesteps", type=int, default=None, help="total learner steps (default: the game's config)")
    parser.add_argument("--n-envs", type=int, default=None, help="parallel environments (default: the game's config)")
    parser.add_argument(
        "--opponent",
        default=None,
        help=f"opponents: {', '.join(OPPONENTS)} or an MCTS agent such as mcts:50 or mcts:50:reference "
        "(default: the game's config, usually self)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed, 0..2**32-1 (default 0)")
    parser.add_argument("--config", default=None, help="YAML config (default training/configs/<game>.yaml)")
    parser.add_argument("--out", default=None, help="run directory (default runs/<env_id>/<time>-s<seed>)")
    parser.add_argument(
        "--resume", default=None, metavar="RUN_DIR", help="continue a run (any backend) from its latest checkpoint"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no evaluation lines")
    parser.add_argument("--verbose", type=int, default=0, help="SB3 verbosity (0, 1, 2)")
    parser.add_argument(
        "--backend",
        choices=tuple(BACKENDS),
        default=None,
        help="sb3 (default), batched (compiled kernels in one process: --opponent random or heuristic), rllib, or expert "
        "(expert iteration: MCTS self-play guided by a small network, settings under expert: in the config; "
        "--timesteps caps its decisions)",
    )
    rllib = parser.add_argument_group(
        "Ray RLlib (--backend rllib, needs the rllib extra; see docs/scaling.md)",
        "With --resume RUN_DIR, all but --policies and --runner-env change how the resumed RLlib run is spread.",
    )
    rllib.add_argument("--num-env-runners", type=int, default=None, help="sampling processes (default 1; 0: in this process)")
    rllib.add_argument(
        "--envs-per-runner", type=int, default=None, help="games each env runner steps (default 1; batched: in one call)"
    )
    rllib.add_argument(
        "--runner-env",
        choices=("auto", "batched", "aec"),
        default=None,
        help="batched: each runner steps its games on compiled kernels, fixed opponents inside the batch; aec: "
        "PettingZoo games, every seat an RLlib agent (self-play league, per_seat); auto (default): batched when possible",
    )
    rllib.add_argument(
        "--address", default=None, help="a running Ray cluster (auto, ray://HOST:10001); default: Ray on this machine"
    )
    rllib.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray (default: all)")
    rllib.add_argument(
        "--runner-resources",
        metavar="NAME=AMOUNT[,...]",
        default=None,
        help="custom Ray resources each env runner asks for, to place them on the nodes that have them (worker=1)",
    )
    rllib.add_argument(
        "--policies", choices=("shared", "per_seat"), default=None, help="one policy for all seats (default) or one per seat"
    )
    return parser


def report(result: TrainResult, saved: str) -> None:
    """Print a finished or interrupted run's summary: its message, last evaluation, what it saved, its curve."""
    print(result.message)
    if result.evaluations:
        last = result.evaluations[-1]
        print("last evaluation: " + ", ".join(f"{k}={_shown(v)}" for k, v in last.items() if k != "timesteps"))
    print(saved)
    print(f"learning curve: {result.run_dir / 'learning_curve.png'}")


def _shown(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, (int, float)) else str(value)


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
    given = {name: getattr(args, name) for name in RLLIB_OPTIONS if getattr(args, name) is not None}
    if "runner_resources" in given:
        from gameshelf.training.rllib.train import parse_resources

        try:
            given["runner_resources"] = parse_resources(given["runner_resources"])
        except UserError as err:
            parser.error(str(err))
    settings: Any = None
    takes_rllib = BACKENDS[args.backend or DEFAULT_BACKEND].rllib
    if given and not takes_rllib and (args.resume is None or args.backend is not None):
        parser.error(f"{', '.join('--' + name.replace('_', '-') for name in given)} only apply with --backend rllib")
    if args.resume is not None:
        settings = given or None  # changes to the resumed RLlib run's settings, checked against its config.yaml
    elif takes_rllib:
        from gameshelf.training.rllib.train import RLlibSettings

        settings = RLlibSettings(**given)
    try:
        result = train(
            args.env_id or "",
            backend=args.backend,
            players=args.players,
            timesteps=args.timesteps,
            n_envs=args.n_envs,
            opponent=args.opponent,
            seed=args.seed,
            config=args.config,
            out=args.out,
            resume=args.resume,
            rllib=settings,
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
    if result.model_path.suffix == ".npz":  # an expert-iteration network
        report(result, f"network: {result.model_path} (play it as model:{result.model_path})")
    elif result.model_path.is_dir():  # an RLlib policy folder
        report(result, f"policy: {result.model_path} (play it as rllib:{result.run_dir})")
    else:
        report(result, f"model: {result.model_path}")
    return 0


if __name__ == "__main__":
    run(main, prog="gameshelf train")
