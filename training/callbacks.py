"""Training callbacks, one job each, combined by ``train`` in an SB3 ``CallbackList``.

* ``ProgressBarCallback``: a tqdm bar of learner steps.
* ``SelfPlayCallback``: every ``snapshot_every`` steps a frozen snapshot joins the opponent pool.
* ``EvaluationCallback``: at the start (when an evaluation falls inside the run) and every ``eval.every``
  steps the learner plays the baselines (every seat); rows go to ``eval.csv`` and TensorBoard, then its
  ``callback_after_eval`` runs. ``LearningCurve`` draws them once the run ends or stops.
* ``CheckpointCallback``: every ``checkpoint_every`` steps a checkpoint and the run state.
* ``StopOnSignal``: a SIGINT, SIGTERM or SIGHUP ends learning at the next step, so ``train`` can save and exit.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from gameshelf.training.agents.learned import LearnedAgent
from gameshelf.training.checkpoints import RunDir, RunState
from gameshelf.training.environments import heuristic_available
from gameshelf.training.evaluate import EvalResult, evaluate, save_figure
from gameshelf.training.model_io import model_info, save_model


# ---- shared pieces -----------------------------------------------------------------------------------------
class Clock:
    """Wall-clock seconds of a run, counting the time of earlier sessions (``offset``)."""

    def __init__(self, offset: float = 0.0) -> None:
        self.offset = float(offset)
        self.start = time.perf_counter()

    def __call__(self) -> float:
        return self.offset + time.perf_counter() - self.start


class Recorder:
    """Writes a checkpoint and ``state.json`` together, then prunes old checkpoints and snapshots."""

    def __init__(self, run: RunDir, config: Any, clock: Clock, pool: Any = None) -> None:
        self.run, self.config, self.clock, self.pool = run, config, clock, pool

    def save(self, model: Any, finished: bool = False) -> Path:
        path = self.run.save_checkpoint(model, model_info(self.config, model))
        if finished:
            save_model(model, self.run.final_model, model_info(self.config, model))
        state = RunState(
            timesteps=int(model.num_timesteps),
            wall_s=self.clock(),
            finished=finished,
            checkpoint=self.run.relative(path),
            snapshots=list(self.pool.snapshots) if self.pool is not None else [],
        )
        self.run.write_state(state)
        self.run.prune_checkpoints(self.config.keep_checkpoints, protect=path)
        if self.pool is not None:
            self.run.prune_pool(self.pool.snapshots)
        return path


class Periodic(BaseCallback):  # type: ignore[misc]
    """Runs ``fire()`` each time the step count crosses a multiple of ``every``."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every = int(every)
        self.next_at = 0

    def _on_training_start(self) -> None:
        self.next_at = (self.num_timesteps // self.every + 1) * self.every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_at:
            self.next_at = (self.num_timesteps // self.every + 1) * self.every
            self.fire()
        return True

    def fire(self) -> None:
        raise NotImplementedError


# ---- the callbacks ----------------------------------------------------------------------------------------
class ProgressBarCallback(BaseCallback):  # type: ignore[misc]
    """A tqdm bar from the steps already done to ``total``."""

    def __init__(self, total: int, desc: str) -> None:
        super().__init__()
        self.total, self.desc = int(total), desc
        self.bar: Any = None

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=self.total, initial=min(self.num_timesteps, self.total), desc=self.desc, unit="step")

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(max(0, min(self.num_timesteps, self.total) - self.bar.n))
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class SelfPlayCallback(Periodic):
    """Snapshots of the learner join the pool; the vectorized envs get the new opponent mix."""

    def __init__(self, pool: Any, run: RunDir, config: Any) -> None:
        super().__init__(config.selfplay.snapshot_every)
        self.pool, self.run, self.config = pool, run, config

    def _on_training_start(self) -> None:
        super()._on_training_start()
        if not self.pool.snapshots:
            self.fire()
        else:
            self._update_opponents()

    def fire(self) -> None:
        path = self.run.pool / f"snap_{self.num_timesteps}.zip"
        save_model(self.model, path, model_info(self.config, self.model))
        self.pool.add(self.run.relative(path))
        self.run.prune_pool(self.pool.snapshots)
        self._update_opponents()

    def _update_opponents(self) -> None:
        self.training_env.env_method("set_opponents", self.pool.opponents())


class EvaluationCallback(Periodic):
    """The learner against each baseline of ``eval.opponents`` (every seat); a row per evaluation."""

    def __init__(
        self,
        config: Any,
        run: RunDir,
        clock: Clock,
        rows: list[dict[str, Any]],
        say: Callable[[str], None] = print,
        callback_after_eval: BaseCallback | None = None,
    ) -> None:
        super().__init__(config.eval.every)
        self.config, self.run, self.clock, self.rows, self.say = config, run, clock, rows, say
        self.callback_after_eval = callback_after_eval

    def _init_callback(self) -> None:
        if self.callback_after_eval is not None:
            self.callback_after_eval.init_callback(self.model)

    def _on_training_start(self) -> None:
        super()._on_training_start()
        if not self.rows and self.every <= self.config.timesteps:  # the curve's first point, when one is due
            self.fire()

    def fire(self) -> None:
        self.evaluate(self.model)

    def evaluate(self, model: Any) -> None:
        learner = LearnedAgent.from_model(model, self.config.env_id, name="learner")
        done = evaluate_learner(self.config, learner, int(model.num_timesteps), self.clock())
        if done is None:
            return
        row, result = done
        for name in result.agents[1:]:
            pair = result.pair("learner", name)
            model.logger.record(f"eval/win_vs_{name}", pair.win_rate)
            model.logger.record(f"eval/mean_rank_vs_{name}", pair.mean_rank)
            model.logger.record(f"eval/mean_return_vs_{name}", pair.mean_return)
        self.rows.append(row)
        self.run.write_evaluations(self.rows)
        self.say(evaluation_line(row, result, "steps"))
        if self.callback_after_eval is not None:
            self.callback_after_eval.on_step()


class LearningCurve:
    """``learning_curve.png`` from the evaluation rows, drawn once at the end of a run (matplotlib's import
    and a figure cost about a CPU-second, too much to pay at every evaluation)."""

    def __init__(self, rows: list[dict[str, Any]], path: Path, title: str) -> None:
        self.rows, self.path, self.title = rows, Path(path), title

    def draw(self) -> None:
        if self.rows:
            plot_learning_curve(self.rows, self.path, self.title)


class CheckpointCallback(Periodic):
    """A checkpoint and the run state every ``checkpoint_every`` steps."""

    def __init__(self, recorder: Recorder, every: int) -> None:
        super().__init__(every)
        self.recorder = recorder

    def fire(self) -> None:
        self.recorder.save(self.model)


class StopOnSignal(BaseCallback):  # type: ignore[misc]
    """While installed (``with``), SIGINT, SIGTERM and SIGHUP (the terminal closed) stop learning at the next
    step instead of killing it.

    A second signal is not caught: it interrupts at once. A signal the process ignores (``nohup``, a
    background job) stays ignored. Outside the main thread (where signal handlers cannot be set) it does nothing.
    """

    SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

    def __init__(self) -> None:
        super().__init__()
        self.received: int | None = None
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.received = signum
        self._restore()

    def __enter__(self) -> StopOnSignal:
        try:
            for sig in self.SIGNALS:
                if signal.getsignal(sig) is not signal.SIG_IGN:
                    self._previous[sig] = signal.signal(sig, self._handle)
        except ValueError:  # not the main thread
            self._restore()
        return self

    def __exit__(self, *exc: object) -> None:
        self._restore()

    def _restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.received).name if self.received is not None else ""

    def _on_step(self) -> bool:
        return self.received is None


# ---- evaluation rows and the learning curve ----------------------------------------------------------------
def evaluate_learner(config: Any, learner: Any, steps: int, wall_s: float) -> tuple[dict[str, Any], EvalResult] | None:
    """The learner against each of ``eval.opponents`` (every seat; ``heuristic`` left out for a game without
    one): the row of ``eval.csv`` and the full result, or None when there is no opponent to play."""
    opponents = [o for o in config.eval.opponents if o != "heuristic" or heuristic_available(config.env_id)]
    if not opponents:
        return None
    result = evaluate(
        config.env_id,
        [learner, *opponents],
        games=config.eval.games,
        seed=config.seed + 1000,
        num_players=config.players,
        options=config.game_options or None,
        first_only=True,
    )
    row: dict[str, Any] = {"timesteps": steps, "wall_s": round(wall_s, 1), "policy_mode": play_mode(learner)}
    for name in result.agents[1:]:
        pair = result.pair("learner", name)
        row[f"win_{name}"] = round(pair.win_rate, 4)
        row[f"draw_{name}"] = round(pair.draws / pair.games, 4)
        row[f"rank_{name}"] = round(pair.mean_rank, 4)
        row[f"return_{name}"] = round(pair.mean_return, 4)
    return row, result


def play_mode(learner: Any) -> str:
    """How a learned agent plays: ``deterministic`` (its most likely legal action) or ``sampled``."""
    return "deterministic" if getattr(learner, "deterministic", True) else "sampled"


def evaluation_line(row: dict[str, Any], result: EvalResult, unit: str) -> str:
    """The one line an evaluation prints: when (``unit``: steps or moves), how the learner played, and its win
    rate and rank."""
    mode = f" {row['policy_mode']}" if "policy_mode" in row else ""
    return f"[{row['timesteps']} {unit}, {row['wall_s']:.0f} s]{mode} " + ", ".join(
        f"vs {n}: win {100 * row[f'win_{n}']:.0f}% rank {row[f'rank_{n}']:.2f}" for n in result.agents[1:]
    )


def plot_learning_curve(rows: list[dict[str, Any]], path: str | Path | None, title: str) -> Any:
    """Win rate (two players) or mean rank (more) of the learner against each baseline, by training step."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    opponents = [k.removeprefix("win_") for k in rows[0] if k.startswith("win_")]
    steps = np.array([r["timesteps"] for r in rows], dtype=np.float64)
    minutes = np.array([r["wall_s"] for r in rows], dtype=np.float64) / 60
    players = title.split(",")[-1].strip().split()[0] if "," in title else "2"
    two = players == "2"
    fig, ax = plt.subplots(figsize=(7, 4))
    for name in opponents:
        key = f"win_{name}" if two else f"rank_{name}"
        values = np.array([r.get(key, np.nan) for r in rows]) * (100 if two else 1)
        ax.plot(steps, values, marker="o", label=f"vs {name}")
    modes = sorted({str(r["policy_mode"]) for r in rows if "policy_mode" in r})
    played = f", {' and '.join(modes)} play" if modes else ""
    if two:
        ax.set_ylim(0, 100)
        ax.axhline(50, color="grey", lw=0.8, ls=":")
        ax.set_ylabel(f"learner win rate (%{played})")
    else:
        ax.set_ylabel(f"learner mean rank (1 best{played})")
        ax.invert_yaxis()
    ax.set_xlabel("training steps (learner decisions)")
    if len(rows) > 1 and np.all(np.diff(steps) > 0) and np.all(np.diff(minutes) > 0):

        def to_minutes(x: Any) -> Any:
            return np.interp(x, steps, minutes)

        def to_steps(m: Any) -> Any:
            return np.interp(m, minutes, steps)

        top = ax.secondary_xaxis("top", functions=(to_minutes, to_steps))
        top.set_xlabel("wall-clock minutes (training and evaluation)")
    ax.set_title(title)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    if path is not None:
        save_figure(fig, path)
    return fig
