"""The training callback: progress bar, self-play snapshots, periodic evaluation, checkpoints, curves."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from gameshelf.training.agents.learned import LearnedAgent
from gameshelf.training.evaluate import evaluate


class TrainingCallback(BaseCallback):  # type: ignore[misc]
    def __init__(
        self,
        env_id: str,
        config: dict[str, Any],
        run_dir: Path,
        pool: Any = None,
        progress: bool = True,
        seed: int = 0,
        wall_offset: float = 0.0,
    ) -> None:
        super().__init__()
        self.env_id = env_id
        self.config = config
        self.run_dir = Path(run_dir)
        self.pool = pool
        self.progress = progress
        self.seed = seed
        self.wall_offset = float(wall_offset)
        self.rows: list[dict[str, Any]] = _read_rows(self.run_dir / "eval.csv")
        self.bar: Any = None
        self._start = time.perf_counter()
        self._next: dict[str, int] = {}

    # ---- schedule ---------------------------------------------------------------------------------
    def _due(self, what: str, every: int) -> bool:
        steps = self.num_timesteps
        if what not in self._next:
            self._next[what] = (steps // every + 1) * every
            return False
        if steps >= self._next[what]:
            self._next[what] = (steps // every + 1) * every
            return True
        return False

    def _on_training_start(self) -> None:
        self._start = time.perf_counter()
        total = int(self.config["timesteps"])
        if self.progress:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, initial=min(self.num_timesteps, total), desc=f"train {self.env_id}", unit="step")
        if self.pool is not None:
            if not self.pool.snapshots:
                self._snapshot()
            self._update_opponents()
        for what, every in self._schedule().items():
            self._due(what, every)
        if not self.rows:
            self._evaluate()

    def _schedule(self) -> dict[str, int]:
        out = {"eval": int(self.config["eval"]["every"]), "checkpoint": int(self.config["checkpoint_every"])}
        if self.pool is not None:
            out["snapshot"] = int(self.config["selfplay"]["snapshot_every"])
        return out

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(min(self.training_env.num_envs, self.bar.total - self.bar.n))
        schedule = self._schedule()
        if self.pool is not None and self._due("snapshot", schedule["snapshot"]):
            self._snapshot()
            self._update_opponents()
        if self._due("eval", schedule["eval"]):
            self._evaluate()
        if self._due("checkpoint", schedule["checkpoint"]):
            self._checkpoint()
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    # ---- actions --------------------------------------------------------------------------------------
    def wall_s(self) -> float:
        return self.wall_offset + time.perf_counter() - self._start

    def _snapshot(self) -> None:
        path = self.run_dir / "pool" / f"snap_{self.num_timesteps}.zip"
        self.model.save(str(path))
        self.pool.add(path)

    def _update_opponents(self) -> None:
        self.training_env.env_method("set_opponents", self.pool.opponents())

    def _checkpoint(self) -> None:
        self.model.save(str(self.run_dir / "checkpoints" / f"model_{self.num_timesteps}.zip"))
        state = {
            "timesteps": int(self.num_timesteps),
            "wall_s": self.wall_s(),
            "snapshots": self.pool.snapshots if self.pool is not None else [],
        }
        (self.run_dir / "state.json").write_text(json.dumps(state, indent=1))

    def _evaluate(self, model: Any = None) -> None:
        model = model if model is not None else self.model
        ev = self.config["eval"]
        opponents = [o for o in ev["opponents"] if o != "heuristic" or _has_heuristic(self.env_id)]
        if not opponents:
            return
        learner = LearnedAgent.from_model(model, self.env_id, name="learner")
        result = evaluate(
            self.env_id,
            [learner, *opponents],
            games=int(ev["games"]),
            seed=self.seed + 1000,
            num_players=int(self.config["players"]),
            options=self.config.get("game_options") or None,
            first_only=True,
        )
        row: dict[str, Any] = {"timesteps": int(model.num_timesteps), "wall_s": round(self.wall_s(), 1)}
        for name in result.agents[1:]:
            pair = result.pair("learner", name)
            row[f"win_{name}"] = round(pair.win_rate, 4)
            row[f"draw_{name}"] = round(pair.draws / pair.games, 4)
            row[f"rank_{name}"] = round(pair.mean_rank, 4)
            row[f"return_{name}"] = round(pair.mean_return, 4)
            self.logger.record(f"eval/win_vs_{name}", pair.win_rate)
            self.logger.record(f"eval/mean_rank_vs_{name}", pair.mean_rank)
            self.logger.record(f"eval/mean_return_vs_{name}", pair.mean_return)
        self.rows.append(row)
        _write_rows(self.run_dir / "eval.csv", self.rows)
        self.write_curve()
        message = f"[{row['timesteps']} steps, {row['wall_s']:.0f} s] " + ", ".join(
            f"vs {n}: win {100 * row[f'win_{n}']:.0f}% rank {row[f'rank_{n}']:.2f}" for n in result.agents[1:]
        )
        if self.bar is not None:
            self.bar.write(message)
        else:
            print(message, flush=True)

    def finish(self, model: Any) -> None:
        """Evaluate the final model (unless just done) and write a last checkpoint and the curve."""
        if not self.rows or self.rows[-1]["timesteps"] != model.num_timesteps:
            self.model = model
            self._evaluate(model)
        self._checkpoint()

    def write_curve(self) -> None:
        if self.rows:
            plot_learning_curve(
                self.rows, self.run_dir / "learning_curve.png", f"{self.env_id}, {self.config['players']} players"
            )


_HEURISTIC: dict[str, bool] = {}


def _has_heuristic(env_id: str) -> bool:
    if env_id not in _HEURISTIC:
        from gameshelf.training.train import heuristic_available

        _HEURISTIC[env_id] = heuristic_available(env_id)
    return _HEURISTIC[env_id]


def _read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    with path.open() as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)


def plot_learning_curve(rows: list[dict[str, Any]], path: str | Path | None, title: str, games: int | None = None) -> Any:
    """Win rate (two players) or mean rank (more) of the learner against each baseline, by training step."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    opponents = [k.removeprefix("win_") for k in rows[0] if k.startswith("win_")]
    steps = np.array([r["timesteps"] for r in rows])
    minutes = np.array([r["wall_s"] for r in rows]) / 60
    players = title.split(",")[-1].strip().split()[0] if "," in title else "2"
    two = players == "2"
    fig, ax = plt.subplots(figsize=(7, 4))
    for name in opponents:
        key = f"win_{name}" if two else f"rank_{name}"
        values = np.array([r.get(key, np.nan) for r in rows]) * (100 if two else 1)
        ax.plot(steps, values, marker="o", label=f"vs {name}")
    if two:
        ax.set_ylim(0, 100)
        ax.axhline(50, color="grey", lw=0.8, ls=":")
        ax.set_ylabel("learner win rate (%)")
    else:
        ax.set_ylabel("learner mean rank (1 best)")
        ax.invert_yaxis()
    ax.set_xlabel("training steps (learner decisions)")
    if len(rows) > 1 and np.all(np.diff(steps) > 0) and np.all(np.diff(minutes) > 0):
        top = ax.secondary_xaxis(
            "top", functions=(lambda x: np.interp(x, steps, minutes), lambda m: np.interp(m, minutes, steps))
        )
        top.set_xlabel("wall-clock minutes (training and evaluation)")
    ax.set_title(title)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return fig
