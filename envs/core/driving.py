"""What every driver of an engine shares: the AEC adapter, the single-seat wrapper, the match runner."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gameshelf.envs.core.game import CHANCE, State

REWARD_MODES = ("outcome", "score")
ILLEGAL_ACTION_MODES = ("raise", "penalize")


def check_choice(name: str, value: Any, allowed: Sequence[Any], none_ok: bool = False) -> None:
    """``ValueError`` naming the setting and its allowed values unless ``value`` is one of them."""
    if (value is None and none_ok) or value in allowed:
        return
    extra = " or None" if none_ok else ""
    raise ValueError(f"{name}={value!r} is not allowed; allowed values: {list(allowed)}{extra}")


def check_action(action: Any, num_actions: int) -> int:
    """An action as a plain int in range: ``TypeError`` for floats, bools, strings, ...; ``ValueError`` if out of range."""
    if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action is an int in [0, {num_actions}), got {type(action).__name__} {action!r}")
    action = int(action)
    if not 0 <= action < num_actions:
        raise ValueError(f"action {action} is out of range [0, {num_actions})")
    return action


def resolve_chance(state: State, rng: np.random.Generator) -> None:
    """Draw chance outcomes with ``rng`` until a player (or the end) is to move."""
    while state.current_player() == CHANCE:
        state.apply_checked_action(state.sample_chance(rng))


def reward_values(state: State, mode: str) -> np.ndarray:
    """The per-seat values whose changes are the rewards: ``returns()``, plus ``scores()`` for ``"score"``."""
    values = np.asarray(state.returns(), dtype=np.float64)
    if mode == "score":
        values = values + state.scores()
    return values


def observed_state(state: State, seat: int, rng: np.random.Generator) -> State:
    """What an agent at ``seat`` may be shown: hidden information redealt, otherwise a copy."""
    if state.game.info.has_hidden_info:
        return state.resample_hidden(seat, rng)
    return state.clone()
