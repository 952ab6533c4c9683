"""The search path (``clone`` + ``legal_actions`` + ``apply_checked_action``) of every registered game.

The engines' ``clone`` copies only what play changes and shares caches; these tests check that a clone
played on never touches the original (and the reverse), and that a clone plays exactly as its original.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.core.game import State
from gameshelf.envs.testing import fingerprint, random_states

IDS = envs.registered_ids()


def full_print(state: State) -> tuple[Any, ...]:
    """``fingerprint`` plus what each seat sees and, where the game exports it, the whole position (hidden parts too)."""
    try:
        position = repr(state.position())
    except NotImplementedError:
        position = ""
    seats = tuple(state.seat_text(s) for s in range(state.game.info.num_players))
    return (*fingerprint(state), seats, position)


def play_on(state: State, seed: int, decisions: int = 40) -> None:
    """Random legal play (chance included) from ``seed`` for at most ``decisions`` decisions."""
    rng = np.random.default_rng(seed)
    while decisions > 0 and not state.is_terminal():
        if state.is_chance_node():
            state.apply_checked_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        state.apply_checked_action(legal[int(rng.integers(len(legal)))])
        decisions -= 1


@pytest.mark.parametrize("env_id", IDS)
def test_clone_is_independent_and_plays_like_its_original(env_id: str) -> None:
    game = envs.make_game(env_id)
    every = max(1, game.info.max_game_length // 6)
    for k, state in enumerate(random_states(game, seed=3, games=1, every=every)):
        before = full_print(state)
        twin = state.clone()
        assert full_print(twin) == before
        play_on(twin, seed=k)  # the clone plays on: the original is untouched
        assert full_print(state) == before
        other = state.clone()
        play_on(state.clone(), seed=k + 100)  # a sibling plays on: this clone is untouched
        assert full_print(other) == before
        play_on(other, seed=k)  # and it plays exactly as the first clone did
        assert full_print(other) == full_print(twin)
