"""Baseline agents behind one interface (``training.agents.base.Agent``).

``make_agent(name, env_id)`` builds ``"random"``, ``"heuristic"`` (the game's own heuristic, table
named in the id's registration), a saved model (``"model:PATH"``), a policy trained with RLlib
(``"rllib:PATH"``, needs the rllib extra) or Monte Carlo tree search
(``"mcts:N"``, ``"mcts:N:heuristic"``, ``"mcts:Ts"``: see ``training.agents.mcts``).
"""

from __future__ import annotations

from typing import Any

from gameshelf.training.agents.base import Agent, RandomAgent, heuristic_agent


def make_agent(name: str, env_id: str, **kwargs: Any) -> Agent:
    """Build an agent by name: ``random``, ``heuristic``, ``model:PATH`` (a saved MaskablePPO model) or ``mcts:...``."""
    if name == "random":
        return RandomAgent()
    if name == "heuristic":
        return heuristic_agent(env_id, **kwargs)
    if name.startswith("model:"):
        from gameshelf.training.agents.learned import LearnedAgent

        return LearnedAgent(name.removeprefix("model:"), env_id, **kwargs)
    if name.startswith("rllib:"):
        from gameshelf.training.rllib.agent import RLlibAgent

        return RLlibAgent(name.removeprefix("rllib:"), env_id, **kwargs)
    if name == "mcts" or name.startswith("mcts:"):
        from gameshelf.training.agents.mcts import make_mcts_agent

        return make_mcts_agent(name, env_id, **kwargs)
    forms = "'random', 'heuristic', 'model:PATH', 'rllib:PATH', 'mcts:N', 'mcts:N:heuristic' or 'mcts:Ts'"
    raise ValueError(f"unknown agent {name!r}; use {forms}")


__all__ = ["Agent", "RandomAgent", "make_agent"]
