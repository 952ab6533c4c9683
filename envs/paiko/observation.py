"""Paikō's observation: 14x14 board planes (row y, column x) built from named pieces.

Egocentric by channels ("own" = the observing seat); the board itself is not turned. Counts and flags
that are not about a square fill a whole plane. Imports no Pillow and no torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.paiko.actions import NUM_PHASES
from gameshelf.envs.paiko.board import (
    COPIES,
    IS_BLACK,
    NUM_SQUARES,
    NUM_TYPES,
    SIZE,
    SQUARES,
    ZONE,
)

if TYPE_CHECKING:
    from gameshelf.envs.paiko.rules import PaikoState

LAYOUT = ObservationLayout(planes=(SIZE, SIZE))
LAYOUT.add(
    "own_tiles",
    32,
    "own tiles: channel type*4 + facing (types Sai, Sword, Bow, Lotus, Air, Fire, Earth, Water; facings N, E, S, W)",
)
LAYOUT.add("opp_tiles", 32, "opponent's tiles, same channels")
LAYOUT.add("squares", 1, "1 on the 108 squares a non-Lotus tile may stand on")
LAYOUT.add("black", 1, "1 on the 4 black squares (Lotus only)")
LAYOUT.add("own_home", 1, "1 on the own homeground")
LAYOUT.add("opp_home", 1, "1 on the opponent's homeground")
LAYOUT.add("own_threat", 1, "T_own per square (own non-Fire threats + every Fire's), min(T, 4) / 4")
LAYOUT.add("opp_threat", 1, "T_opp per square, min(T, 4) / 4")
LAYOUT.add("own_cover", 1, "C_own per square (0/1, homeground included)")
LAYOUT.add("opp_cover", 1, "C_opp per square")
LAYOUT.add("own_reserve", NUM_TYPES, "own reserve per type / 3 (whole plane)")
LAYOUT.add("opp_reserve", NUM_TYPES, "opponent's reserve per type / 3")
LAYOUT.add("own_hand", NUM_TYPES, "own hand per type / 3")
LAYOUT.add("opp_hand", NUM_TYPES, "opponent's hand per type / 3 (public: every draw is from a public reserve)")
LAYOUT.add("scores", 2, "[own, opponent] score, min(score, 10) / 10")
LAYOUT.add("lost", 2, "[own, opponent] tiles lost / 24")
LAYOUT.add("repeat", 2, "[own, opponent] tile moved on the last own turn: its square holds consecutive moves / 3")
LAYOUT.add(
    "phase",
    NUM_PHASES,
    "one-hot sub-decision (the position builder's phase names, in order: draft ... gift, over)",
)
LAYOUT.add("selected_type", NUM_TYPES, "one-hot type being deployed")
LAYOUT.add("selected", 2, "the square chosen (deploy target / tile to move), the destination chosen")
LAYOUT.add(
    "counters",
    6,
    "observer decides now, observer is the mover, draft picks left / 9, drawn this turn / 3, gifts owed / 8, turn / max_turns",
)

_XS = np.array([x for x, _ in SQUARES])
_YS = np.array([y for _, y in SQUARES])
_ZONE = np.array(ZONE)
_SPATIAL = np.zeros((2, SIZE, SIZE, 4), dtype=np.float32)
"""Per observing seat: playable squares, black squares, own homeground, opponent's homeground."""
for _seat in range(2):
    for _sq in range(NUM_SQUARES):
        _x, _y = SQUARES[_sq]
        _SPATIAL[_seat, _y, _x, 0] = 0.0 if IS_BLACK[_sq] else 1.0
        _SPATIAL[_seat, _y, _x, 1] = 1.0 if IS_BLACK[_sq] else 0.0
        if ZONE[_sq] >= 0:
            _SPATIAL[_seat, _y, _x, 2 + (ZONE[_sq] != _seat)] = 1.0
_HOME_PAIR = (
    np.concatenate([_ZONE == 0, _ZONE == 1]),
    np.concatenate([_ZONE == 1, _ZONE == 0]),
)
"""Per observing seat: homeground masks of (own, opponent), for the cover maps."""
_C = {name: LAYOUT[name].start for name in LAYOUT.pieces}
_SQ_OFFSET = [(y * SIZE + x) * LAYOUT.size for x, y in SQUARES]
"""Flat offset of each square's channel 0."""
_BASE = np.zeros((2, SIZE, SIZE, LAYOUT.size), dtype=np.float32)
_BASE[..., _C["squares"] : _C["squares"] + 4] = _SPATIAL
"""Per observing seat: the static board planes, every other channel 0."""
_MAP_INDEX = np.concatenate([(_YS * SIZE + _XS) * LAYOUT.size + _C["own_threat"] + k for k in range(4)])
"""Flat indices of (square, channel) for the own/opp threat and own/opp cover maps, in that order."""


def encode(state: PaikoState, seat: int) -> np.ndarray:
    """The observation of ``seat`` (everything in Paikō is public)."""
    opp = 1 - seat
    # whole-plane values, gathered in a list and broadcast once over the static board planes
    const = [0.0] * LAYOUT.size
    third = 1.0 / COPIES
    for name, rows in (
        ("own_reserve", state.reserve[seat]),
        ("opp_reserve", state.reserve[opp]),
        ("own_hand", state.hand[seat]),
        ("opp_hand", state.hand[opp]),
    ):
        c = _C[name]
        for k in range(NUM_TYPES):
            const[c + k] = rows[k] * third
    c = _C["scores"]
    const[c] = min(max(state.score[seat], 0), 10) / 10.0
    const[c + 1] = min(max(state.score[opp], 0), 10) / 10.0
    c = _C["lost"]
    const[c] = state.lost[seat] / 24.0
    const[c + 1] = state.lost[opp] / 24.0
    const[_C["phase"] + state.phase] = 1.0
    if state.sel_type >= 0:
        const[_C["selected_type"] + state.sel_type] = 1.0
    c = _C["counters"]
    const[c] = float(state.current_player() == seat)
    const[c + 1] = float(state.mover == seat and state.phase != NUM_PHASES - 1)
    const[c + 2] = state.draft_left / 9.0
    const[c + 3] = state.picks / 3.0
    const[c + 4] = min(state.gifts, 8) / 8.0
    const[c + 5] = min(state.turn / state.game.max_turns, 1.0)
    obs = _BASE[seat] + np.array(const, dtype=np.float32)
    flat = obs.reshape(-1)
    # tiles: one scatter
    board = state.board
    index = []
    for p, base in ((seat, _C["own_tiles"]), (opp, _C["opp_tiles"])):
        for sq in state.tiles[p]:
            index.append(_SQ_OFFSET[sq] + base + (board[sq] & 31))
    if index:
        flat[index] = 1.0
    # threat and cover maps (own, opp, own cover, opp cover): one scatter
    maps = np.array(state.thr[seat] + state.thr[opp] + state.cov[seat] + state.cov[opp], dtype=np.float32)
    np.minimum(maps[: 2 * NUM_SQUARES], 4.0, out=maps[: 2 * NUM_SQUARES])
    maps[: 2 * NUM_SQUARES] *= 0.25
    maps[2 * NUM_SQUARES :] = (maps[2 * NUM_SQUARES :] > 0) | _HOME_PAIR[seat]
    flat[_MAP_INDEX] = maps
    c = _C["repeat"]
    for i, p in enumerate((seat, opp)):
        if state.rep_sq[p] >= 0:
            flat[_SQ_OFFSET[state.rep_sq[p]] + c + i] = min(state.rep_count[p], 3) / 3.0
    c = _C["selected"]
    if state.sel_sq >= 0:
        flat[_SQ_OFFSET[state.sel_sq] + c] = 1.0
    if state.sel_dest >= 0:
        flat[_SQ_OFFSET[state.sel_dest] + c + 1] = 1.0
    return obs


__all__ = ["LAYOUT", "encode"]
