"""Self-play: a pool of frozen snapshots of the learner, mixed with heuristic and random opponents.

``OpponentPool`` keeps the newest ``size`` snapshot files and turns a mix such as
``{"snapshots": 0.6, "heuristic": 0.2, "random": 0.2}`` into the weighted opponent list handed to every
``SingleSeatEnv`` (``set_opponents``). Any other key of the mix is an agent name the environments build
with ``make_agent``: ``"reference"`` (the game's shipped network) and MCTS (``"mcts:50"``,
``"mcts:50:heuristic"``, ``"mcts:50:reference"``, ``"mcts:50:model:PATH"``). Snapshots
play stochastically (sampling from their policy), so the learner meets varied play; the newest snapshot
gets half the snapshot share, the older ones share the rest.

Snapshot paths are kept relative to the run folder (``root``), so a moved or copied run finds its own
snapshots; they are loaded as weights only (``LearnedAgent``: nothing in a snapshot file is unpickled).
A snapshot that does not load (damaged, cut short, of another game) is dropped from the pool with a
one-line warning, as a damaged checkpoint is skipped when a run is resumed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gameshelf.training.agents.learned import LearnedAgent
from gameshelf.training.checkpoints import warn


class OpponentPool:
    def __init__(
        self,
        env_id: str,
        mix: dict[str, float],
        size: int = 5,
        snapshots: list[str] | None = None,
        root: str | Path = ".",
    ) -> None:
        unknown = {k for k in mix if k not in ("snapshots", "heuristic", "reference", "random") and not k.startswith("mcts:")}
        if unknown:
            raise ValueError(
                f"unknown opponent kinds {sorted(unknown)} in the self-play mix; use snapshots, heuristic, reference, random "
                "or mcts:..."
            )
        self.env_id = env_id
        self.mix = {k: float(v) for k, v in mix.items() if float(v) > 0}
        self.size = size
        self.root = Path(root).resolve()
        self.snapshots: list[str] = list(snapshots or [])
        if self.mix.get("snapshots", 0.0) > 0:  # damaged snapshots leave the pool now, older ones fill it
            self.snapshots = [p for p in self.snapshots if self._agent(p) is not None]
        self.snapshots = self.snapshots[-size:]

    def add(self, path: str | Path) -> None:
        self.snapshots.append(str(path))
        self.snapshots = self.snapshots[-self.size :]

    def opponents(self) -> list[tuple[Any, float]]:
        """``[(opponent, weight), ...]`` for ``SingleSeatEnv.set_opponents``."""
        out: list[tuple[Any, float]] = []
        share = self.mix.get("snapshots", 0.0)
        agents = [(path, agent) for path in self.snapshots if (agent := self._agent(path)) is not None] if share > 0 else []
        if share > 0:
            self.snapshots = [path for path, _ in agents]
        if agents:
            *older, newest = agents
            weights = [share] if not older else [share / 2] + [share / 2 / len(older)] * len(older)
            for (_, agent), w in zip([newest, *older], weights, strict=True):
                out.append((agent, w))
        for kind in ("heuristic", "reference", "random"):
            if self.mix.get(kind, 0.0) > 0:
                out.append((kind, self.mix[kind]))
        out += [(kind, w) for kind, w in self.mix.items() if kind.startswith("mcts:")]
        if not out:
            out.append(("random", 1.0))
        return out

    def _agent(self, path: str | Path) -> LearnedAgent | None:
        """The snapshot at ``path`` (relative to the run) as a sampling agent; None, with a warning, if it does not load."""
        try:
            return LearnedAgent(self.root / path, self.env_id, deterministic=False, name=f"snapshot:{Path(path).stem}")
        except (OSError, ValueError) as err:  # ModelLoadError is a ValueError
            reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            warn(f"skipping the damaged self-play snapshot {Path(path).as_posix()}: {reason}")
            return None
