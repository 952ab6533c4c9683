"""The agent interface: ``act(state, seat, rng) -> action``.

An agent sees a state from its seat's point of view only: for games with hidden information the caller
hands it ``state.resample_hidden(seat, rng)`` (``gameshelf.envs.core.episode.observed_state``), so no agent can peek.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

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
