"""The agent interface, ``act(state, seat, rng) -> action``, and how the core finds a game's heuristic agent.

An agent sees a state from its seat's point of view only: for games with hidden information the caller
hands it ``state.resample_hidden(seat, rng)`` (``gameshelf.envs.core.episode.observed_state``), so no agent
can peek.

A game package may hold ``heuristic.py`` (found by convention, as ``render.py`` is: see
``envs.core.rendering``) whose module-level name ``Heuristic`` is the game's heuristic agent class, built
with no argument; ``heuristic_class(game_module)`` imports it on first use. The agents that learn live in
``gameshelf.training.agents``.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from gameshelf.envs.core.companion import companion

if TYPE_CHECKING:
    import numpy as np

    from gameshelf.envs.core.game import State

HEURISTIC = "Heuristic"
"""The name of the agent class in a game's ``heuristic.py``."""


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


@cache
def heuristic_class(game_module: str) -> type[Agent] | None:
    """The ``Heuristic`` class of the ``heuristic.py`` beside the module ``game_module`` (the module of a
    ``Game`` class), or None when the game's package has none; ``AttributeError`` when its ``heuristic.py``
    does not define ``Heuristic``."""
    module = companion(game_module, "heuristic")
    if module is None:
        return None
    if not hasattr(module, HEURISTIC):
        raise AttributeError(f"{module.__name__} defines no {HEURISTIC!r} (the game's heuristic agent class)")
    found: type[Agent] = getattr(module, HEURISTIC)
    return found
