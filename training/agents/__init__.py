"""Baseline agents behind one interface (``training.agents.base.Agent``).

``make_agent(name, env_id)`` builds ``"random"``, ``"heuristic"`` (the game's own heuristic, table
below) or a saved model (``"model:PATH"``).
"""

from __future__ import annotations

import importlib
from typing import Any

from gameshelf.envs.core.driving import observed_state
from gameshelf.training.agents.base import Agent, RandomAgent

# env id        heuristic agent (module:Class), loaded lazily
HEURISTICS: dict[str, str] = {
    "level_x-v0": "gameshelf.training.agents.level_x:LevelXHeuristic",
    "amoriax-v0": "gameshelf.training.agents.amoriax:AmoriaxHeuristic",
    "koplus-v0": "gameshelf.training.agents.koplus:KoPlusHeuristic",
    "olenon-v0": "gameshelf.training.agents.olenon:OlenonHeuristic",
}


def make_agent(name: str, env_id: str, **kwargs: Any) -> Agent:
    """Build an agent by name: ``random``, ``heuristic`` or ``model:PATH`` (a saved MaskablePPO model)."""
    if name == "random":
        return RandomAgent()
    if name == "heuristic":
        if env_id not in HEURISTICS:
            raise ValueError(f"no heuristic agent for {env_id!r}; games with one: {sorted(HEURISTICS)}")
        module_name, _, attr = HEURISTICS[env_id].partition(":")
        agent: Agent = getattr(importlib.import_module(module_name), attr)(**kwargs)
        return agent
    if name.startswith("model:"):
        from gameshelf.training.agents.learned import LearnedAgent

        return LearnedAgent(name.removeprefix("model:"), env_id, **kwargs)
    raise ValueError(f"unknown agent {name!r}; use 'random', 'heuristic' or 'model:PATH'")


__all__ = ["HEURISTICS", "Agent", "RandomAgent", "make_agent", "observed_state"]
