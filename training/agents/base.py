"""The agent interface: ``act(state, seat, rng) -> action``.

An agent sees a state from its seat's point of view only: for games with hidden information the caller
hands it ``state.resample_hidden(seat, rng)`` (``gameshelf.envs.core.episode.observed_state``), so no agent can peek.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from gameshelf.envs.core.game import State


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and ``act(state, seat, rng) -> legal action``."""

    name: str

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int: ...


class RandomAgent:
    """Uniformly random legal action."""

    name = "random"

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])


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
    """The game's own heuristic agent (the table named in the id's registration); ``ValueError`` if it has none."""
    from gameshelf import envs
    from gameshelf.envs.registration import load_entry_point

    entry = envs.spec(env_id).heuristic
    if entry is None:
        with_one = [i for i in envs.registered_ids() if envs.spec(i).heuristic]
        raise ValueError(f"no heuristic agent for {env_id!r}; games with one: {with_one}")
    agent: Agent = load_entry_point(entry)(**kwargs)
    return agent


def masked_probabilities(probs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``probs`` with the illegal actions set to 0, renormalized (uniform over the legal ones if none is left)."""
    probs[~mask] = 0.0
    total = probs.sum()
    return probs / total if total > 0 else mask / mask.sum()
