"""The run folder every trainer writes (SB3, batched and RLlib alike), and what a run returns.

    RUN/config.yaml              the resolved settings, with env_id, seed and the backend (and RLlib's own)
    RUN/state.json               steps done, wall time, whether the run finished, its checkpoint, the snapshot pool
    RUN/eval.csv                 a row per evaluation of the learner against the baselines, every seat
    RUN/learning_curve.png       the evaluations drawn
    RUN/checkpoints/model_N.zip  SB3 and batched: the last ``keep_checkpoints`` (``--resume`` uses the newest sound one)
    RUN/checkpoints/iter_N/      RLlib: the same, as policy folders, each with algorithm/ and league/ to resume from
    RUN/pool/snap_N.zip          SB3: the self-play snapshots still in the pool
    RUN/final_model.zip          SB3 and batched: the model (a ``model:PATH`` agent)
    RUN/final_policy/            RLlib: the policy (an ``rllib:PATH`` agent)
    RUN/tb/ (SB3 and batched: TensorBoard), RUN/progress.csv (RLlib: its iterations)

Every model and policy carries ``gameshelf.json`` beside its weights and is written by
``gameshelf.training.model_io``; every file is written atomically (temporary file, then rename). Paths
inside ``state.json`` are relative to the run folder, so a moved or copied run resumes on its own files,
and a path that leaves the folder is ignored.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gameshelf.training.cli_util import UserError
from gameshelf.training.config import TrainConfig
from gameshelf.training.model_io import ModelLoadError, atomic_write_text, load_weights, read_info, save_model

STATE_FORMAT = 1
RUN_FOLDERS = ("checkpoints", "pool", "tb")
"""The sub-folders of an SB3 or batched run (``RunDir.create``); RLlib and expert runs make only ``checkpoints``."""


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)


def reporter(quiet: bool, progress: bool) -> Any:
    """How a trainer prints a line: nothing when ``quiet``, above the progress bar when there is one, else print."""

    def say(message: str) -> None:
        if quiet:
            return
        if progress:
            from tqdm.auto import tqdm

            tqdm.write(message)
        else:
            print(message, flush=True)

    return say


@dataclass
class TrainResult:
    """Where a run's model and evaluations are.

    ``status``: ``"finished"`` (``model_path`` is ``final_model.zip``, or ``final_policy/`` on RLlib),
    ``"interrupted"`` (by a signal; ``model_path`` is the checkpoint just written) or ``"already_done"`` (a
    resumed run had nothing left to do); ``message`` says what happened in one line.
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


@dataclass
class RunState:
    """``state.json``: what a resumed run needs besides its config and checkpoint."""

    timesteps: int = 0
    wall_s: float = 0.0
    finished: bool = False
    checkpoint: str | None = None
    snapshots: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT,
            "timesteps": int(self.timesteps),
            "wall_s": round(float(self.wall_s), 3),
            "finished": bool(self.finished),
            "checkpoint": self.checkpoint,
            "snapshots": list(self.snapshots),
        }


class RunDir:
    """The files of one run, all under ``root``."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    @property
    def config_file(self) -> Path:
        return self.root / "config.yaml"

    @property
    def state_file(self) -> Path:
        return self.root / "state.json"

    @property
    def checkpoints(self) -> Path:
        return self.root / "checkpoints"

    @property
    def pool(self) -> Path:
        return self.root / "pool"

    @property
    def final_model(self) -> Path:
        return self.root / "final_model.zip"

    @property
    def final_policy(self) -> Path:
        return self.root / "final_policy"

    @property
    def eval_file(self) -> Path:
        return self.root / "eval.csv"

    @property
    def learning_curve(self) -> Path:
        return self.root / "learning_curve.png"

    def create(self, folders: Sequence[str] = RUN_FOLDERS) -> None:
        """The run's folder and its sub-``folders`` (a backend's ``Backend.folders`` in ``training.train``)."""
        for sub in folders:
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    def write_config(self, config: TrainConfig, backend: str, extra: dict[str, Any] | None = None) -> None:
        """``config.yaml``: the settings (``config.to_dict()``), the backend and the backend's own (``extra``)."""
        import yaml

        data = {"env_id": config.env_id, "backend": backend, **config.to_dict(), **(extra or {})}
        atomic_write_text(self.config_file, yaml.safe_dump(data, sort_keys=False))

    def write_failure(self, err: OSError) -> RunWriteError:
        """The ``RunWriteError`` of a run whose files could not be written (``err``): what it keeps, how to resume."""
        reason = err.strerror or str(err) or type(err).__name__
        checkpoints = self.checkpoint_files() if self.root.is_dir() else []
        checkpoints = checkpoints or (self.policy_checkpoints() if self.root.is_dir() else [])
        checkpoints = checkpoints or ([p for _, p in self.net_checkpoints()] if self.root.is_dir() else [])
        if checkpoints:
            kept = (
                f"the run keeps its last good checkpoint, {self.relative(checkpoints[-1])}; "
                f"once there is room, resume with: gameshelf train --resume {self.root}"
            )
        else:
            kept = "it had no checkpoint yet, so nothing was kept"
        failure = RunWriteError(f"training stopped: cannot write the run's files in {str(self.root)!r} ({reason}); {kept}")
        failure.errno = err.errno
        return failure

    # ---- evaluations and other tables -------------------------------------------------------------------
    def read_evaluations(self) -> list[dict[str, Any]]:
        """The rows of ``eval.csv`` (one per evaluation; empty when there is none yet)."""
        return read_rows(self.eval_file)

    def write_evaluations(self, rows: list[dict[str, Any]]) -> None:
        write_rows(self.eval_file, rows)

    # ---- paths inside the run ---------------------------------------------------------------------------
    def relative(self, path: str | Path) -> str:
        """``path`` (inside the run folder) as stored in ``state.json``: relative, with forward slashes."""
        return Path(path).resolve().relative_to(self.root.resolve()).as_posix()

    def inside(self, stored: Any) -> Path | None:
        """The file a stored relative path names, or None when it is absolute or leaves the run folder."""
        if not isinstance(stored, str) or not stored or Path(stored).is_absolute() or "\\" in stored:
            return None
        parts = Path(stored).parts
        if ".." in parts:
            return None
        return self.root / Path(*parts)

    # ---- state ---------------------------------------------------------------------------------------
    def write_state(self, state: RunState) -> None:
        atomic_write_text(self.state_file, json.dumps(state.to_dict(), indent=1))

    def read_state(self, quiet: bool = False) -> RunState:
        """The saved state, checked here and only here (``prune_pool`` reads it the same way).

        A missing file gives an empty state; an unreadable one (not JSON, a field of the wrong type) gives an
        empty state with a warning; a ``snapshots`` that is not a list, or an entry that is not a file of this
        run's ``pool/``, is ignored with a warning. ``quiet``: no warnings.
        """
        state, problems = self._parse_state()
        if not quiet:
            for problem in problems:
                warn(problem)
        return state

    def _parse_state(self) -> tuple[RunState, list[str]]:
        if not self.state_file.exists():
            return RunState(), []
        try:
            data = json.loads(self.state_file.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            state = RunState(
                timesteps=_field(data, "timesteps", int, 0),
                wall_s=float(_field(data, "wall_s", (int, float), 0.0)),
                finished=_field(data, "finished", bool, False),
                checkpoint=_field(data, "checkpoint", (str, type(None)), None),
            )
        except (OSError, ValueError, RecursionError) as err:  # ValueError: bad JSON, a number too long, a bad field
            return RunState(), [f"{str(self.state_file)!r} is unreadable ({err}); using the checkpoints alone"]
        stored_snapshots = data.get("snapshots")
        if stored_snapshots is None:
            stored_snapshots = []
        elif not isinstance(stored_snapshots, list):
            got = f"{stored_snapshots!r:.60}"
            return state, [f"ignoring the snapshots of state.json: a list of pool/ files was expected, got {got}"]
        problems = []
        for stored in stored_snapshots:
            path = self._stored_snapshot(stored)
            if path is None:
                problems.append(f"ignoring the snapshot {stored!r:.80} of state.json: not a file of this run's pool/")
            else:
                state.snapshots.append(self.relative(path))
        return state, problems

    def _stored_snapshot(self, stored: Any) -> Path | None:
        path = self.inside(stored)
        if path is None and isinstance(stored, str) and stored:
            # written by an older version as a path outside the run: use the file of the same name in pool/
            path = self.pool / Path(stored).name if Path(stored).parent.name == "pool" else None
        if path is None or not path.is_file() or path.resolve().parent != self.pool.resolve():
            return None
        return path

    # ---- checkpoints and snapshots -----------------------------------------------------------------------
    def checkpoint_files(self) -> list[Path]:
        """``checkpoints/model_N.zip``, oldest first."""
        files = []
        for p in self.checkpoints.glob("model_*.zip"):
            step = p.stem.removeprefix("model_")
            if step.isdigit():
                files.append((int(step), p))
        return [p for _, p in sorted(files)]

    def save_checkpoint(self, model: Any, info: Any) -> Path:
        path = self.checkpoints / f"model_{int(model.num_timesteps)}.zip"
        save_model(model, path, info)
        return path

    def net_checkpoints(self) -> list[tuple[int, Path]]:
        """``checkpoints/iter_K.npz`` (the ``expert`` backend's networks) with their iteration, oldest first."""
        found = []
        for p in self.checkpoints.glob("iter_*.npz"):
            k = p.stem.removeprefix("iter_")
            if k.isdigit():
                found.append((int(k), p))
        return sorted(found)

    def policy_checkpoints(self) -> list[Path]:
        """``checkpoints/iter_N/`` (RLlib's policy folders), oldest first."""
        folders = []
        for p in self.checkpoints.glob("iter_*"):
            step = p.name.removeprefix("iter_")
            if step.isdigit() and p.is_dir():
                folders.append((int(step), p))
        return [p for _, p in sorted(folders)]

    def prune_checkpoints(self, keep: int, protect: Path | None = None) -> None:
        """Delete all but the newest ``keep`` checkpoints (model files, or RLlib's policy folders), never ``protect``."""
        import shutil

        for found in (self.checkpoint_files(), self.policy_checkpoints()):
            for old in found[: max(0, len(found) - keep)]:
                if protect is None or old.resolve() != protect.resolve():
                    shutil.rmtree(old, ignore_errors=True) if old.is_dir() else old.unlink(missing_ok=True)

    def prune_pool(self, keep: list[str]) -> None:
        """Delete the snapshots of ``pool/`` that are neither in ``keep`` (relative paths) nor in ``state.json``.

        The snapshots of the saved state stay until the next checkpoint replaces it, so a run killed in
        between resumes with its full pool.
        """
        saved = self.read_state(quiet=True).snapshots
        wanted = {p for p in (self.inside(k) for k in [*keep, *saved]) if p is not None}
        for file in self.pool.glob("snap_*.zip"):
            if file not in wanted:
                file.unlink(missing_ok=True)

    def sound_checkpoint(self) -> tuple[Path, dict[str, Any], int] | None:
        """The newest checkpoint that loads (weights and step count); damaged newer ones are skipped with a warning."""
        skipped = False
        for path in reversed(self.checkpoint_files()):
            try:
                weights = load_weights(path, optimizer=True)
                try:
                    steps = read_info(path).timesteps
                except ModelLoadError:
                    steps = int(path.stem.removeprefix("model_"))  # a checkpoint of an older version
            except ModelLoadError as err:
                warn(f"skipping the damaged checkpoint checkpoints/{path.name}: {err}")
                skipped = True
                continue
            if skipped:
                warn(f"resuming from the previous checkpoint, checkpoints/{path.name}")
            return path, weights, steps
        return None

    def sound_policy_checkpoint(self) -> tuple[Path, dict[str, Any], int] | None:
        """RLlib: the policy folder with the most steps (``checkpoints/iter_N/`` or ``final_policy/``) that has its
        ``gameshelf.json`` and RLlib's ``algorithm/`` state; damaged ones are skipped with a warning.
        ``(folder, {}, steps)``: the state itself is read when the algorithm is rebuilt."""
        found = []
        for folder in [*self.policy_checkpoints(), self.final_policy]:
            if not folder.is_dir():
                continue
            try:
                steps = read_info(folder, "rllib").env_steps
            except (ModelLoadError, OSError) as err:
                warn(f"skipping the damaged checkpoint {self.relative(folder)}: {err}")
                continue
            if not (folder / "algorithm").is_dir():
                warn(f"skipping the checkpoint {self.relative(folder)}: it has no algorithm/ state to resume from")
                continue
            found.append((steps, folder))
        if not found:
            return None
        steps, folder = max(found, key=lambda item: item[0])
        return folder, {}, steps


@dataclass
class Plan:
    """A run about to start or resume, all checked: its settings, backend and folder, the saved state and the
    checkpoint it resumes from (``(path, weights, steps)``; RLlib: ``(policy folder, {}, steps)``), ``new`` for a
    run that starts in an empty folder, and ``rllib``, RLlib's own settings (``RLlibSettings``) for that backend."""

    config: TrainConfig
    run: RunDir
    state: RunState
    backend: str = "sb3"
    checkpoint: tuple[Path, dict[str, Any], int] | None = None
    new: bool = True
    rllib: Any = None


def _field(data: dict[str, Any], key: str, kind: Any, default: Any) -> Any:
    """``data[key]`` (``default`` when absent) if it is of ``kind``, a number being finite and not negative and
    a bool no number; else ``ValueError``."""
    value = data.get(key, default)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ValueError(f"{key!r} is {value!r:.40}")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not 0 <= value < math.inf:
        raise ValueError(f"{key!r} is {value!r:.40}, not a number of at least 0")
    return value


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a CSV table (``eval.csv``): numbers as floats, words (``policy_mode``) as strings; empty when
    there is no file."""
    if not path.exists():
        return []
    with path.open() as f:
        return [{k: _number_or_word(v) for k, v in row.items() if v not in (None, "")} for row in csv.DictReader(f)]


def _number_or_word(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """A CSV table of ``rows`` (columns in order of first appearance), written atomically."""
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=keys)
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, text.getvalue())


def check_new_run_dir(root: Path) -> None:
    """Refuse a folder that already holds files (a run is never written over)."""
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise UserError(f"{str(root)!r} already holds a run; use --resume {root} or another --out")


def require_run_dir(root: Path) -> RunDir:
    run = RunDir(root)
    if not run.config_file.is_file():
        raise UserError(f"{str(root)!r} is not a run directory (no config.yaml)")
    return run
