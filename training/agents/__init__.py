"""Baseline agents behind one interface (``training.agents.base.Agent``).

``make_agent(name, env_id)`` builds ``"random"``, ``"heuristic"`` (the game's own heuristic, table
named in the id's registration), a saved model (``"model:PATH"``), a policy trained with RLlib
(``"rllib:PATH"``, needs the rllib extra) or Monte Carlo tree search
(``"mcts:N"``, ``"mcts:N:heuristic"``, ``"mcts:Ts"``: see ``training.agents.mcts``).
"""

from __future__ import annotations

from typing import Any

from gameshelf import envs
from gameshelf.envs.core.episode import observed_state
from gameshelf.envs.registration import load_entry_point
from gameshelf.training.agents.base import Agent, RandomAgent


def make_agent(name: str, env_id: str, **kwargs: Any) -> Agent:
    """Build an agent by name: ``random``, ``heuristic``, ``model:PATH`` (a saved MaskablePPO model) or ``mcts:...``."""
    if name == "random":
        return RandomAgent()
    if name == "heuristic":
        entry = envs.spec(env_id).heuristic
        if entry is None:
            with_one = [i for i in envs.registered_ids() if envs.spec(i).heuristic]
            raise ValueError(f"no heuristic agent for {env_id!r}; games with one: {with_one}")
        agent: Agent = load_entry_point(entry)(**kwargs)
        return agent
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


__all__ = ["Agent", "RandomAgent", "make_agent", "observed_state"]
