"""Paikō's kernel module for ``paiko-v1``: the rules of ``kernel.py``, with the compact observation ``LAYOUT_V1``.

The rules, the row and every kernel but the observation are ``kernel.py``'s, the same objects (re-exported for
the template's drivers, ``envs.core.kernel.kernel_drivers``, which are compiled over this module). The
observation is one ``float32`` vector: 14x14 board planes one after the other (channel, row y, column x; only
what is about one square), then the values about no square once each (``kernel.public_values``, the same values as
``paiko-v0``'s whole planes). ``observation_update`` writes only the entries that change, for either seat.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.kernel import jit, jit_helper
from gameshelf.envs.paiko.board import SIZE as BOARD_SIZE
from gameshelf.envs.paiko.board import SQUARES, code_facing, code_owner, code_type
from gameshelf.envs.paiko.kernel import (
    BOARD,
    COV,
    DECISIONS,
    NSQ,
    NUM_ACTS,
    NUM_CHANCE,
    REP_COUNT,
    REP_SQ,
    REPEAT_LEVEL,
    ROW,
    SEL_DEST,
    SEL_SQ,
    SIZE,
    THR,
    THREAT_LEVEL,
    apply,
    chance_weights,
    covered,
    current_player,
    initial_state,
    is_chance_outcome,
    is_legal,
    legal_mask,
    public_values,
    returns,
    sample_chance,
)
from gameshelf.envs.paiko.observation import LAYOUT_V1

PLANE = BOARD_SIZE * BOARD_SIZE
"""Entries of one board plane."""
OBS_SIZE = LAYOUT_V1.size
O_TILES = LAYOUT_V1.offset("tiles")
O_OWNER = LAYOUT_V1.offset("owner")
O_FACING = LAYOUT_V1.offset("facing")
O_THREAT = LAYOUT_V1.offset("own_threat")
"""Own then opponent's threat plane (``opp_threat`` follows ``own_threat``); the same for cover."""
O_COVER = LAYOUT_V1.offset("own_cover")
O_REPEAT = LAYOUT_V1.offset("repeat")
O_SELECTED = LAYOUT_V1.offset("selected")
POS = np.array([y * BOARD_SIZE + x for x, y in SQUARES], dtype=np.int64)
"""Each square's entry in a plane."""
O_OBSERVER = LAYOUT_V1.offset("observer")
O_RESERVE = LAYOUT_V1.offset("own_reserve")
O_HAND = LAYOUT_V1.offset("own_hand")
O_SCORES = LAYOUT_V1.offset("scores")
O_LOST = LAYOUT_V1.offset("lost")
O_PHASE = LAYOUT_V1.offset("phase")
O_SEL_TYPE = LAYOUT_V1.offset("selected_type")
O_COUNTERS = LAYOUT_V1.offset("counters")


@jit_helper
def _values(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write the entries after the board: the observing seat, then ``kernel.public_values``."""
    out[i, O_OBSERVER] = 1.0 if seat == 0 else 0.0
    out[i, O_OBSERVER + 1] = 1.0 if seat == 1 else 0.0
    public_values(S, i, seat, out, O_RESERVE, O_HAND, O_SCORES, O_LOST, O_PHASE, O_SEL_TYPE, O_COUNTERS)


@jit_helper
def _tile(out: np.ndarray, i: int, at: int, code: int, seat: int, value: float) -> None:
    """Write ``value`` into the tile and facing entries of tile ``code`` on the square at ``at`` (``POS``), as
    ``seat`` sees it."""
    out[i, O_TILES + PLANE * code_type(code) + at] = value
    out[i, O_OWNER + (0 if code_owner(code) == seat else PLANE) + at] = value
    out[i, O_FACING + PLANE * code_facing(code) + at] = value


@jit_helper
def _marks(S: np.ndarray, i: int, at: int, seat: int, out: np.ndarray, value: float) -> None:
    """Write ``value`` into the repeat and selection entries of ``seat``'s observation of row ``S[i, at:]`` (the
    entries that are not zero): ``1.0`` and the repeat levels to set them, ``0.0`` to clear them."""
    for k in range(2):
        p = seat if k == 0 else 1 - seat
        rep = S[i, at + REP_SQ + p]
        if rep >= 0:
            level = REPEAT_LEVEL[min(int(S[i, at + REP_COUNT + p]), 7)]
            out[i, O_REPEAT + PLANE * k + POS[rep]] = level if value else 0.0
    if S[i, at + SEL_SQ] >= 0:
        out[i, O_SELECTED + POS[S[i, at + SEL_SQ]]] = value
    if S[i, at + SEL_DEST] >= 0:
        out[i, O_SELECTED + PLANE + POS[S[i, at + SEL_DEST]]] = value


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (``LAYOUT_V1``, float32) into row ``i`` of ``out``."""
    for k in range(OBS_SIZE):
        out[i, k] = 0.0
    _values(S, i, seat, out)
    for sq in range(NSQ):
        at = POS[sq]
        code = S[i, BOARD + sq]
        if code >= 0:
            _tile(out, i, at, code, seat, 1.0)
        for k in range(2):
            p = seat if k == 0 else 1 - seat
            out[i, O_THREAT + PLANE * k + at] = THREAT_LEVEL[S[i, THR + NSQ * p + sq]]
            out[i, O_COVER + PLANE * k + at] = covered(S, i, p, sq)
    _marks(S, i, 0, seat, out, 1.0)


OBS_MEMO = 1 + SIZE + NSQ
"""``observation_update``'s record per row: the seat of the observation in the buffer (-1: none), the state row it
was written from, then room to mark the squares that changed."""
CHANGED = 1 + SIZE
"""Where the marks of the changed squares start in a memo row."""
TRACKED = COV + 2 * NSQ - BOARD
"""The row's board, threat and cover fields (one run of entries from ``BOARD``): what the board planes show."""


@jit_helper
def _square(S: np.ndarray, i: int, seat: int, out: np.ndarray, memo: np.ndarray, sq: int) -> None:
    """Write ``seat``'s entries of square ``sq`` that differ from those of the row ``memo`` recorded."""
    at = POS[sq]
    was = memo[i, 1 + BOARD + sq]
    code = S[i, BOARD + sq]
    if was != code:
        if was >= 0:
            _tile(out, i, at, was, seat, 0.0)
        if code >= 0:
            _tile(out, i, at, code, seat, 1.0)
    for k in range(2):
        p = seat if k == 0 else 1 - seat
        threat = S[i, THR + NSQ * p + sq]
        if threat != memo[i, 1 + THR + NSQ * p + sq]:
            out[i, O_THREAT + PLANE * k + at] = THREAT_LEVEL[threat]
        if S[i, COV + NSQ * p + sq] != memo[i, 1 + COV + NSQ * p + sq]:
            out[i, O_COVER + PLANE * k + at] = covered(S, i, p, sq)


@jit_helper
def _swap_sides(out: np.ndarray, i: int) -> None:
    """Turn the board planes of a row seen by one seat into the same row seen by the other: the own and opponent's
    owner, threat and cover planes trade places (three runs of entries, no other entry changes)."""
    for c in range(PLANE):  # constants plus the loop counter: vectorized
        a = out[i, O_OWNER + c]
        out[i, O_OWNER + c] = out[i, O_OWNER + PLANE + c]
        out[i, O_OWNER + PLANE + c] = a
        a = out[i, O_THREAT + c]
        out[i, O_THREAT + c] = out[i, O_THREAT + PLANE + c]
        out[i, O_THREAT + PLANE + c] = a
        a = out[i, O_COVER + c]
        out[i, O_COVER + c] = out[i, O_COVER + PLANE + c]
        out[i, O_COVER + PLANE + c] = a


@jit
def observation_update(S: np.ndarray, i: int, seat: int, out: np.ndarray, memo: np.ndarray) -> None:
    """What ``observation`` writes, given that ``out[i]`` holds what it wrote from the seat and row recorded in
    ``memo[i]`` (``OPTIONAL_INTERFACE`` of ``envs.core.kernel``).

    The values after the board are written again (63 entries), the repeat and selection marks cleared where
    they were and set where they are. For the other seat, the own and opponent's planes trade places first
    (``_swap_sides``). Then only the tile, threat and cover entries of the squares whose row entries changed are
    written (none when the board, threat and cover fields are unchanged, as on most sub-decisions). Nothing is
    written whole but the first observation."""
    old = int(memo[i, 0])
    if old < 0:
        observation(S, i, seat, out)
    else:
        _values(S, i, seat, out)
        _marks(memo, i, 1, old, out, 0.0)
        if old != seat:
            _swap_sides(out, i)
        # the comparisons are loops without a branch over indices that are constants plus a loop counter: the
        # compiler vectorizes them (a helper taking the offsets as arguments, or an early exit, stays scalar and
        # costs twenty times as much)
        changed = 0
        for k in range(TRACKED):
            changed |= S[i, BOARD + k] != memo[i, 1 + BOARD + k]
        if changed:
            for sq in range(NSQ):
                memo[i, CHANGED + sq] = (
                    (S[i, BOARD + sq] != memo[i, 1 + BOARD + sq])
                    | (S[i, THR + sq] != memo[i, 1 + THR + sq])
                    | (S[i, THR + NSQ + sq] != memo[i, 1 + THR + NSQ + sq])
                    | (S[i, COV + sq] != memo[i, 1 + COV + sq])
                    | (S[i, COV + NSQ + sq] != memo[i, 1 + COV + NSQ + sq])
                )
            for sq in range(NSQ):
                if memo[i, CHANGED + sq]:
                    _square(S, i, seat, out, memo, sq)
        _marks(S, i, 0, seat, out, 1.0)
    memo[i, 0] = seat
    for k in range(SIZE):
        memo[i, 1 + k] = S[i, k]


__all__ = [
    "DECISIONS",
    "NUM_ACTS",
    "NUM_CHANCE",
    "OBS_MEMO",
    "ROW",
    "SIZE",
    "apply",
    "chance_weights",
    "current_player",
    "initial_state",
    "is_chance_outcome",
    "is_legal",
    "legal_mask",
    "observation",
    "observation_update",
    "returns",
    "sample_chance",
]
