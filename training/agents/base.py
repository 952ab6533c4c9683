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


def masked_probabilities(probs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``probs`` with the illegal actions set to 0, renormalized (uniform over the legal ones if none is left)."""
    probs[~mask] = 0.0
    total = probs.sum()
    return probs / total if total > 0 else mask / mask.sum()
