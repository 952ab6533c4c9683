"""The agent interface, ``act(state, seat, rng) -> action`` (``Agent`` and ``RandomAgent`` live beside the
games, in ``gameshelf.envs.core.agent``, and are re-exported here), and the base of the learned agents.

An agent sees a state from its seat's point of view only: for games with hidden information the caller
hands it ``state.resample_hidden(seat, rng)`` (``gameshelf.envs.core.episode.observed_state``), so no agent can peek.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from gameshelf.envs.core.agent import Agent, RandomAgent
from gameshelf.envs.core.game import State


class PolicyAgent:
    """Base of the agents that play from a distribution over actions (learned policies).

    Subclasses define ``action_probabilities(state, seat)``; ``act`` samples from it, or takes its most likely
    action when ``deterministic``."""

    name = "policy"
    deterministic = False

    def action_probabilities(self, state: State, seat: int) -> np.ndarray:
        raise NotImplementedError

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        probs = self.action_probabilities(state, seat)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(rng.choice(len(probs), p=probs))


T = TypeVar("T")
CACHE_LIMIT = 32
"""Files a per-process cache of loaded models keeps before it starts again empty."""


def load_cached(cache: dict[tuple[Any, ...], T], path: Path, load: Callable[[], T], *extra: Any) -> T:
    """``load()``, kept in ``cache`` by the file ``path`` (resolved), its modification time and size, and ``extra``:
    a file rewritten since is loaded again. ``OSError`` when ``path`` cannot be read for its size."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size, *extra)
    value = cache.get(key)
    if value is None:
        value = load()
        if len(cache) > CACHE_LIMIT:
            cache.clear()
        cache[key] = value
    return value


def heuristic_agent(env_id: str, **kwargs: Any) -> Agent:
    """The game's own heuristic agent (the ``Heuristic`` of the game's ``heuristic.py``, see
    ``EnvSpec.load_heuristic``); ``ValueError`` if it has none."""
    from gameshelf import envs

    heuristic = envs.spec(env_id).load_heuristic()
    if heuristic is None:
        with_one = [i for i in envs.registered_ids() if envs.spec(i).load_heuristic() is not None]
        raise ValueError(f"no heuristic agent for {env_id!r}; games with one: {with_one}")
    agent: Agent = heuristic(**kwargs)
    return agent


def masked_probabilities(probs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``probs`` with the illegal actions set to 0, renormalized (uniform over the legal ones if none is left)."""
    probs[~mask] = 0.0
    total = probs.sum()
    return probs / total if total > 0 else mask / mask.sum()


__all__ = ["Agent", "PolicyAgent", "RandomAgent", "heuristic_agent", "load_cached", "masked_probabilities"]
