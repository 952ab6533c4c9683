"""KoPlus's legal mask, written eight actions at a time, is ``is_legal`` of every action (compiled and plain Python)."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf.envs.koplus import kernel as K
from gameshelf.envs.koplus.game import KoPlusGame

BOARDS = [(n, mode) for n in (2, 3, 4) for mode in ("random", "standard")]


def test_byte_bools_spreads_each_bit_to_its_byte():
    """Byte ``c`` of ``BYTE_BOOLS[b]`` (in memory order, as the mask's ``uint64`` view stores it) is bit ``c`` of ``b``."""
    spread = K.BYTE_BOOLS.view(np.uint8).reshape(256, 8)
    expected = [[(b >> c) & 1 for c in range(8)] for b in range(256)]
    assert spread.tolist() == expected


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@pytest.mark.parametrize(("num_players", "board_mode"), BOARDS)
def test_mask_is_is_legal_of_every_action(num_players, board_mode, compiled):
    """At every node of random games (chance and terminal ones too), the mask written into the middle row of a
    buffer full of ``True`` is ``is_legal`` of each action, and the rows beside it are untouched."""
    legal_mask = K.legal_mask if compiled else getattr(K.legal_mask, "py_func", K.legal_mask)
    game = KoPlusGame(num_players=num_players, board_mode=board_mode)
    rng = np.random.default_rng(10 * num_players + compiled)
    decisions = 0
    for _ in range(2):
        state = game.new_initial_state()
        while True:
            rows = np.repeat(state.S, 3, axis=0)
            out = np.ones((3, K.NUM_ACTS), dtype=bool)
            legal_mask(rows, 1, out)
            reference = [bool(K.is_legal(rows, 1, a)) for a in range(K.NUM_ACTS)]
            assert out[1].tolist() == reference
            assert out[[0, 2]].all()
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
            else:
                state.apply_action(int(rng.choice(np.flatnonzero(reference))))
                decisions += 1
    assert decisions >= 2 * num_players  # the games went past their first placements
