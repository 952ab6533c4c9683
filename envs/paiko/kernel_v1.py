"""Paikō's kernel module for ``paiko-v1``: the rules of ``kernel.py``, with the compact observation ``LAYOUT_V1``.

The rules, the row and every kernel but the observation are ``kernel.py``'s, the same objects (re-exported for
the template's drivers, ``envs.core.kernel.kernel_drivers``, which are compiled over this module). The
observation is one ``float32`` vector: the board planes ``BOARD_V1`` (row y, column x, channel; only what is
about one square), then the values about no square once each (``kernel.public_values``, the same values as
``paiko-v0``'s whole planes). ``observation_update`` writes only the entries that change, for either seat.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.kernel import jit, jit_helper
from gameshelf.envs.paiko.board import SIZE as BOARD_SIZE
from gameshelf.envs.paiko.board import SQUARES, ZONE, code_facing, code_owner, code_type
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
    current_player,
    initial_state,
    is_chance_outcome,
    is_legal,
    legal_mask,
    public_values,
    returns,
    sample_chance,
)
from gameshelf.envs.paiko.observation import BOARD_V1, LAYOUT_V1

CHANNELS = BOARD_V1.size
"""Board channels per cell."""
OBS_SIZE = LAYOUT_V1.size
O_OWN_TILES = BOARD_V1.offset("own_tiles")
O_OPP_TILES = BOARD_V1.offset("opp_tiles")
O_FACING = BOARD_V1.offset("facing")
O_THREAT = BOARD_V1.offset("own_threat")
O_COVER = BOARD_V1.offset("own_cover")
O_REPEAT = BOARD_V1.offset("repeat")
O_SELECTED = BOARD_V1.offset("selected")
O_BOARD = LAYOUT_V1.offset("board")
O_OBSERVER = LAYOUT_V1.offset("observer")
O_RESERVE = LAYOUT_V1.offset("own_reserve")
O_HAND = LAYOUT_V1.offset("own_hand")
O_SCORES = LAYOUT_V1.offset("scores")
O_LOST = LAYOUT_V1.offset("lost")
O_PHASE = LAYOUT_V1.offset("phase")
O_SEL_TYPE = LAYOUT_V1.offset("selected_type")
O_COUNTERS = LAYOUT_V1.offset("counters")
CELL = np.array([O_BOARD + (y * BOARD_SIZE + x) * CHANNELS for x, y in SQUARES], dtype=np.int64)
"""Flat offset of each square's channel 0."""
ZONE_OF = np.array(ZONE, dtype=np.int64)


@jit_helper
def _values(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write the entries after the board: the observing seat, then ``kernel.public_values``."""
    out[i, O_OBSERVER] = 1.0 if seat == 0 else 0.0
    out[i, O_OBSERVER + 1] = 1.0 if seat == 1 else 0.0
    public_values(S, i, seat, out, O_RESERVE, O_HAND, O_SCORES, O_LOST, O_PHASE, O_SEL_TYPE, O_COUNTERS)


@jit_helper
def _tile(out: np.ndarray, i: int, base: int, code: int, seat: int, value: float) -> None:
    """Write ``value`` into the tile and facing entries of tile ``code`` on the cell at ``base`` (seen by ``seat``)."""
    plane = O_OWN_TILES if code_owner(code) == seat else O_OPP_TILES
    out[i, base + plane + code_type(code)] = value
    out[i, base + O_FACING + code_facing(code)] = value


@jit_helper
def _cover(S: np.ndarray, i: int, at: int, p: int, sq: int) -> float:
    """C_p(sq) of the row ``S[i, at:]`` as an observation entry."""
    return 1.0 if S[i, at + COV + NSQ * p + sq] > 0 or ZONE_OF[sq] == p else 0.0


@jit_helper
def _marks(S: np.ndarray, i: int, at: int, seat: int, out: np.ndarray, value: float) -> None:
    """Write ``value`` into the repeat and selection entries of ``seat``'s observation of row ``S[i, at:]`` (the
    entries that are not zero): ``1.0`` and the repeat levels to set them, ``0.0`` to clear them."""
    for k in range(2):
        p = seat if k == 0 else 1 - seat
        rep = S[i, at + REP_SQ + p]
        if rep >= 0:
            level = REPEAT_LEVEL[min(int(S[i, at + REP_COUNT + p]), 7)]
            out[i, CELL[rep] + O_REPEAT + k] = level if value else 0.0
    if S[i, at + SEL_SQ] >= 0:
        out[i, CELL[S[i, at + SEL_SQ]] + O_SELECTED] = value
    if S[i, at + SEL_DEST] >= 0:
        out[i, CELL[S[i, at + SEL_DEST]] + O_SELECTED + 1] = value


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (``LAYOUT_V1``, float32) into row ``i`` of ``out``."""
    for k in range(OBS_SIZE):
        out[i, k] = 0.0
    _values(S, i, seat, out)
    for sq in range(NSQ):
        base = CELL[sq]
        code = S[i, BOARD + sq]
        if code >= 0:
            _tile(out, i, base, code, seat, 1.0)
        for k in range(2):
            p = seat if k == 0 else 1 - seat
            out[i, base + O_THREAT + k] = THREAT_LEVEL[S[i, THR + NSQ * p + sq]]
            out[i, base + O_COVER + k] = _cover(S, i, 0, p, sq)
    _marks(S, i, 0, seat, out, 1.0)


OBS_MEMO = 1 + SIZE
"""``observation_update``'s record per row: the seat of the observation in the buffer (-1: none), then the state
row it was written from."""


@jit
def observation_update(S: np.ndarray, i: int, seat: int, out: np.ndarray, memo: np.ndarray) -> None:
    """What ``observation`` writes, given that ``out[i]`` holds what it wrote from the seat and row recorded in
    ``memo[i]`` (``OPTIONAL_INTERFACE`` of ``envs.core.kernel``).

    The values after the board are written again (63 entries); on the board only the entries that differ from
    the recorded observation: on each square the tile, threat and cover entries, for the same seat or the other
    (then the own and opponent's entries trade places where they differ), and the repeat and selection marks
    cleared where they were and set where they are. Nothing is written whole but the first observation."""
    old = memo[i, 0]
    if old < 0:
        observation(S, i, seat, out)
    else:
        _values(S, i, seat, out)
        _marks(memo, i, 1, old, out, 0.0)
        for sq in range(NSQ):
            base = CELL[sq]
            was = memo[i, 1 + BOARD + sq]
            code = S[i, BOARD + sq]
            if was != code or (old != seat and code >= 0):
                if was >= 0:
                    _tile(out, i, base, was, old, 0.0)
                if code >= 0:
                    _tile(out, i, base, code, seat, 1.0)
            for k in range(2):
                p_was = old if k == 0 else 1 - old
                p = seat if k == 0 else 1 - seat
                threat = min(int(S[i, THR + NSQ * p + sq]), 4)
                if threat != min(int(memo[i, 1 + THR + NSQ * p_was + sq]), 4):
                    out[i, base + O_THREAT + k] = THREAT_LEVEL[threat]
                cover = _cover(S, i, 0, p, sq)
                if cover != _cover(memo, i, 1, p_was, sq):
                    out[i, base + O_COVER + k] = cover
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
