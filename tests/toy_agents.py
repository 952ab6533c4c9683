"""Agents given to ``gameshelf benchmark`` as ``module:factory`` in the tests (a user's own agents).

A factory takes the environment id and returns an object with ``act(state, seat, rng) -> action``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import State
from gameshelf.training.agents import RandomAgent
from tests.toy_nim import PerfectNim


def perfect(env_id: str) -> PerfectNim:
    """Plays Nim exactly as the ladder's heuristic of ``toy_nim_bench-v0`` does."""
    return PerfectNim()


def random_agent(env_id: str) -> RandomAgent:
    """Plays exactly as the ladder's random rung (the same seat generators reach it)."""
    return RandomAgent()


class Half:
    """The perfect move with probability 1/2, else a random legal move."""

    name = "half"

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        if rng.random() < 0.5:
            return PerfectNim().act(state, seat, rng)
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])


def half(env_id: str) -> Half:
    return Half()


def illegal(env_id: str) -> object:
    """An agent that always answers an action that is out of range."""

    class Illegal:
        name = "illegal"

        def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
            return 99

    return Illegal()


def not_an_agent(env_id: str) -> object:
    return 42
