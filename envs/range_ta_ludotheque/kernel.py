"""Range Ta Ludothèque's rules as compiled kernels over a flat ``int16`` state row: the one implementation of
the rules (placement, masks, the odds of the dice, scoring, returns, observation).

``RangeTaLudothequeState`` (``game.py``) wraps one row (a one-row matrix); ``gameshelf.vector`` steps a
matrix of them. Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists
what a kernel module provides), is compiled by numba and also runs as plain Python. The options (player count,
scoring, flags, sheet geometry) are in the row, so one compiled kernel serves every option combination. The
row is declared once, as ``ROW`` below (fields, offsets, bounds; ``envs.core.row``; per-seat blocks padded to
8 seats, the sheet to 24 x 24 squares):

{row_table}

A move's kind is ``BOX``, ``MAT`` (playmat) or ``PASS`` (``actions.py``); a box's square is its top-left one.
Seat ``s``'s move ``m`` is at ``MOVES + 60 s + 5 m`` (kind, size face, category, mechanism, square); row
``r``'s filled squares of seat ``s`` are at ``BITS + 48 s + 2 r`` (columns 0-11) and the next entry (columns
12-23). A seat's choice of this round is in its ``MOVES`` at once; the observation of another seat leaves it
out until the round ends (the seats before ``CUR`` have chosen). The drivers (chance resolution, random
playouts, the batch steps) are the template's, in ``envs.core.kernel``.
"""

from __future__ import annotations

import itertools

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import below, jit, jit_helper, rank_outcomes
from gameshelf.envs.core.row import RowLayout
from gameshelf.envs.range_ta_ludotheque.actions import BOX, MAT, PASS
from gameshelf.envs.range_ta_ludotheque.board import (
    COMPARTMENT_SIDE,
    COMPARTMENTS,
    PERMS,
    ROLL_INDEX,
    ROLL_TRIPLES,
    ROLLS,
    ROUNDS,
    SHAPES,
)
from gameshelf.envs.range_ta_ludotheque.observation import CAT0, JOIN_DOWN, JOIN_RIGHT, LAYOUT, MAX_PLAYERS, MECH0, SHEET_CHANNELS
from gameshelf.envs.range_ta_ludotheque.observation import MAT as MAT_CHANNEL
from gameshelf.envs.range_ta_ludotheque.observation import OCC as OCC_CHANNEL

P = MAX_PLAYERS
MAX_SIDE = COMPARTMENTS[1] * COMPARTMENT_SIDE[1]
"""Most rows (or columns) of a sheet: 4 compartments of 6 squares."""
MAX_SQUARES = MAX_SIDE * MAX_SIDE
HALF = 12
"""Columns per ``BITS`` entry."""
HALF_MASK = (1 << HALF) - 1
MOVE_WIDTH = 5
SEAT_MOVES = ROUNDS * MOVE_WIDTH
SEAT_BITS = 2 * MAX_SIDE
MAX_COMPARTMENT_GAMES = COMPARTMENT_SIDE[1] ** 2 // 2
MAX_HIGH = ROUNDS * (max(2, MAX_COMPARTMENT_GAMES) + max(5, ROUNDS - 1, MAX_COMPARTMENT_GAMES - 1) + 2)
"""The largest ``HIGH``: ``scoring.score_bounds`` of expert scoring with 12 games and the largest compartments."""

SIDE = (COMPARTMENTS[0] * COMPARTMENT_SIDE[0], MAX_SIDE)
ROW = RowLayout("range_ta_ludotheque")
NP = ROW.add("num_players", 1, "number of players (an option)", (1, P), fill=1)
EXPERT = ROW.flag("expert", 'scoring="expert" (an option)')
MAT_ONLY = ROW.flag("playmat_only_if_no_box", "option playmat_only_if_no_box")
WALLS = ROW.flag("walls_block_adjacency", "option walls_block_adjacency")
ROWS = ROW.add("rows", 1, "sheet rows", SIDE, fill=SIDE[0])
COLS = ROW.add("cols", 1, "sheet columns", SIDE, fill=SIDE[0])
CH = ROW.add("comp_h", 1, "compartment height (squares)", COMPARTMENT_SIDE, fill=COMPARTMENT_SIDE[0])
CW = ROW.add("comp_w", 1, "compartment width (squares)", COMPARTMENT_SIDE, fill=COMPARTMENT_SIDE[0])
CCOLS = ROW.add("comp_cols", 1, "compartments per row", COMPARTMENTS, fill=COMPARTMENTS[0])
SQ = ROW.add("squares", 1, "sheet squares", (SIDE[0] ** 2, MAX_SQUARES), fill=SIDE[0] ** 2)
LOW = ROW.add("low", 1, "lowest final score (the solo return's scale, scoring.score_bounds)", (-(MAX_SQUARES - ROUNDS), 0))
HIGH = ROW.add("high", 1, "highest final score (the solo return's scale, scoring.score_bounds)", (0, MAX_HIGH))
ROUND = ROW.add("round", 1, "rounds finished (12: the game is over)", (0, ROUNDS))
ROLL = ROW.add("roll_id", 1, "this round's roll id in ROLLS (-1 before the roll)", (-1, len(ROLLS) - 1), fill=-1)
CUR = ROW.add("current", 1, "seat to choose", (0, P - 1))
DECISIONS = ROW.add("decisions", 1, "player decisions so far (the batched environment's truncation counter)", (0, ROUNDS * P))
NMOV = ROW.add("num_moves", P, "moves drawn by each seat (this round's choice included once made)", (0, ROUNDS))
FILLED = ROW.add("filled", P, "filled squares of each seat's sheet", (0, MAX_SQUARES))
MOVES = ROW.add(
    "moves",
    (P, SEAT_MOVES),
    "seat s's move m at 5 m: kind (BOX, MAT, PASS), size face, category, mechanism, square",
    (0, MAX_SQUARES - 1),
    per_seat=True,
)
BITS = ROW.add(
    "bits",
    (P, SEAT_BITS),
    "filled squares of seat s's sheet row r at 2 r, bit c: columns 0-11, then 12-23",
    (0, HALF_MASK),
    per_seat=True,
)
SIZE = ROW.size

NUM_ACTS = 7 * MAX_SIDE * MAX_SIDE + 1
"""Actions of the largest sheet; a game's own count is ``7 * SQ + 1`` (its masks are that wide)."""

ROLLS_A = np.array(ROLLS, dtype=np.int64)
PERMS_A = np.array(PERMS, dtype=np.int64)
"""Assignments ``2 d`` and ``2 d + 1`` give die ``d`` to the size (``PERMS`` is in lexicographic order)."""
assert all(PERMS[p][0] == p // 2 for p in range(6))
FIRST_PERM = np.zeros((len(ROLLS), len(PERMS)), dtype=np.int64)
"""``FIRST_PERM[roll, p]``: 1 if assignment ``p`` is the lowest one giving its box with that roll (the legal one)."""
for _roll, _triples in enumerate(ROLL_TRIPLES):
    for _p, _ in _triples:
        FIRST_PERM[_roll, _p] = 1
WIDTH = np.array([0] + [SHAPES[f][0] for f in range(1, 7)], dtype=np.int64)
HEIGHT = np.array([0] + [SHAPES[f][1] for f in range(1, 7)], dtype=np.int64)
_THROWS = itertools.product(range(1, 7), repeat=3)
ORDERED_ROLL = np.array([ROLL_INDEX[(min(t), sorted(t)[1], max(t))] for t in _THROWS], dtype=np.int64)
"""Roll id of each of the 216 equally likely ordered throws."""

PUZZLE, DEXTERITY, CARD, BOARD, MINIATURES, RPG = 1, 2, 3, 4, 5, 6
BLUFFING, DEDUCTION, DECKBUILDING, PROGRAMMING, MEMORY, SECRET_ROLES = 1, 2, 3, 4, 5, 6

OBS_C = LAYOUT.size
O_SHEETS = LAYOUT.offset("sheets")
O_SUPPORTED = LAYOUT.offset("supported")
O_FLOOR = LAYOUT.offset("floor")
O_WALL = LAYOUT.offset("wall_right")
O_DICE = LAYOUT.offset("dice")
O_ROUND = LAYOUT.offset("round")
O_PRESENT = LAYOUT.offset("present")
O_CHOSEN = LAYOUT.offset("chosen")
O_OPTIONS = LAYOUT.offset("options")
_WRITTEN = {"sheets": P * SHEET_CHANNELS, "supported": 1, "floor": 1, "wall_right": 1, "dice": 18, "round": 1}
_WRITTEN |= {"present": P, "chosen": P, "options": 3}
assert {name: s.stop - s.start for name, s in LAYOUT.slices.items()} == _WRITTEN, "observation writes every channel once"
assert list(LAYOUT.slices) == list(_WRITTEN), "observation writes the pieces in their order"


def initial_state(
    num_players: int,
    expert: bool,
    mat_only_if_no_box: bool,
    walls_block: bool,
    comp_rows: int,
    comp_cols: int,
    comp_h: int,
    comp_w: int,
    low: int,
    high: int,
) -> np.ndarray:
    """The row of a new game (before the first roll), options and geometry included."""
    s = ROW.new_row()
    ROW.put(s, "num_players", num_players)
    ROW.put(s, "expert", int(expert))
    ROW.put(s, "playmat_only_if_no_box", int(mat_only_if_no_box))
    ROW.put(s, "walls_block_adjacency", int(walls_block))
    ROW.put(s, "rows", comp_rows * comp_h)
    ROW.put(s, "cols", comp_cols * comp_w)
    ROW.put(s, "comp_h", comp_h)
    ROW.put(s, "comp_w", comp_w)
    ROW.put(s, "comp_cols", comp_cols)
    ROW.put(s, "squares", comp_rows * comp_h * comp_cols * comp_w)
    ROW.put(s, "low", low)
    ROW.put(s, "high", high)
    return s


@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    if S[i, ROUND] >= ROUNDS:
        return TERMINAL
    if S[i, ROLL] < 0:
        return CHANCE
    return int(S[i, CUR])


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    """Is ``outcome`` a roll id (any of the 56 rolls can come up)?"""
    return S[i, ROUND] < ROUNDS and S[i, ROLL] < 0 and 0 <= outcome < len(ROLLS)


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """Throw three dice with generator ``i`` of ``rngs``: the id of the sorted roll."""
    return int(ORDERED_ROLL[below(rngs, i, 216)])


NUM_CHANCE = len(ROLLS)
"""Chance outcome ids are below this: the roll ids (``chance_weights`` writes that many weights)."""
ROLL_WEIGHT = np.bincount(ORDERED_ROLL, minlength=NUM_CHANCE).astype(np.int64)
"""The ordered throws of three dice (of 216) that give each roll id."""


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the odds of the roll into row ``i`` of ``out`` as integer weights per roll id: the throws that give it."""
    for k in range(NUM_CHANCE):
        out[i, k] = ROLL_WEIGHT[k]


# ---- a sheet's filled squares ---------------------------------------------------------------------
@jit_helper
def row_bits(S: np.ndarray, i: int, seat: int, r: int) -> int:
    """The filled squares of row ``r`` of ``seat``'s sheet as a bit set over its columns."""
    at = BITS + SEAT_BITS * seat + 2 * r
    return int(S[i, at]) | (int(S[i, at + 1]) << HALF)


@jit_helper
def _set_row_bits(S: np.ndarray, i: int, seat: int, r: int, bits: int) -> None:
    at = BITS + SEAT_BITS * seat + 2 * r
    S[i, at] = bits & HALF_MASK
    S[i, at + 1] = bits >> HALF


@jit_helper
def _fill(S: np.ndarray, i: int, seat: int, kind: int, face: int, sq: int, on: bool) -> None:
    """Fill (``on``) or empty the squares of a box or a playmat on ``seat``'s sheet."""
    cols = int(S[i, COLS])
    r0, c0 = sq // cols, sq % cols
    if kind == BOX:
        w, h = WIDTH[face], HEIGHT[face]
    elif kind == MAT:
        w, h = 1, 1
    else:
        return
    cells = ((1 << w) - 1) << c0
    for r in range(r0, r0 + h):
        bits = row_bits(S, i, seat, r)
        _set_row_bits(S, i, seat, r, (bits | cells) if on else (bits & ~cells))
    S[i, FILLED + seat] += w * h if on else -w * h


@jit
def place(S: np.ndarray, i: int, seat: int, kind: int, face: int, category: int, mechanism: int, sq: int) -> None:
    """Draw a move on ``seat``'s sheet (unchecked): it is appended to its moves and fills its squares."""
    at = MOVES + SEAT_MOVES * seat + MOVE_WIDTH * int(S[i, NMOV + seat])
    S[i, at] = kind
    S[i, at + 1] = face
    S[i, at + 2] = category
    S[i, at + 3] = mechanism
    S[i, at + 4] = sq
    S[i, NMOV + seat] += 1
    _fill(S, i, seat, kind, face, sq, True)


@jit
def unplace(S: np.ndarray, i: int, seat: int) -> None:
    """Rub out ``seat``'s last move."""
    S[i, NMOV + seat] -= 1
    at = MOVES + SEAT_MOVES * seat + MOVE_WIDTH * int(S[i, NMOV + seat])
    _fill(S, i, seat, int(S[i, at]), int(S[i, at + 1]), int(S[i, at + 4]), False)
    for k in range(MOVE_WIDTH):
        S[i, at + k] = 0


@jit_helper
def _place_action(S: np.ndarray, i: int, seat: int, action: int) -> None:
    """Draw the move of ``action`` with this round's dice on ``seat``'s sheet."""
    size = int(S[i, SQ])
    if action == 7 * size:
        place(S, i, seat, PASS, 0, 0, 0, 0)
    elif action >= 6 * size:
        place(S, i, seat, MAT, 0, 0, 0, action - 6 * size)
    else:
        roll = int(S[i, ROLL])
        p = action // size
        face = ROLLS_A[roll, PERMS_A[p, 0]]
        place(S, i, seat, BOX, face, ROLLS_A[roll, PERMS_A[p, 1]], ROLLS_A[roll, PERMS_A[p, 2]], action % size)


@jit
def place_action(S: np.ndarray, i: int, seat: int, action: int) -> None:
    """``seat`` draws the move of ``action`` with this round's dice (unchecked; the turn does not move on)."""
    _place_action(S, i, seat, action)


# ---- legality -------------------------------------------------------------------------------------
@jit_helper
def _starts(S: np.ndarray, i: int, w: int) -> int:
    """Bit set of the columns where a box ``w`` wide may start: inside the sheet and one compartment."""
    cols, cw = int(S[i, COLS]), int(S[i, CW])
    out = 0
    for c in range(cols - w + 1):
        if c % cw + w <= cw:
            out |= 1 << c
    return out


@jit_helper
def _row_fits(S: np.ndarray, i: int, seat: int, face: int, r: int) -> int:
    """Bit set of the columns where a box of ``face`` with its top row ``r`` fits on ``seat``'s sheet (0 when
    it would leave the sheet or cross a compartment's floor)."""
    w, h = WIDTH[face], HEIGHT[face]
    ch = int(S[i, CH])
    if r + h > S[i, ROWS] or r % ch + h > ch:
        return 0
    full = (1 << int(S[i, COLS])) - 1
    taken = 0
    for dr in range(h):
        taken |= row_bits(S, i, seat, r + dr)
    free = ~taken & full
    fits = free
    for dc in range(1, w):
        fits &= free >> dc
    if (r + h - 1) % ch != ch - 1:  # not on a floor: every square below the bottom row is filled
        under = row_bits(S, i, seat, r + h)
        held = under
        for dc in range(1, w):
            held &= under >> dc
        fits &= held
    return fits & _starts(S, i, w)


@jit_helper
def _mat_row(S: np.ndarray, i: int, seat: int, r: int) -> int:
    """Bit set of the empty squares of row ``r`` a playmat could go on (a floor or a filled square below)."""
    full = (1 << int(S[i, COLS])) - 1
    free = ~row_bits(S, i, seat, r) & full
    ch = int(S[i, CH])
    if r % ch == ch - 1:
        return free
    return free & row_bits(S, i, seat, r + 1)


@jit_helper
def _seat_mask(S: np.ndarray, i: int, seat: int, bits: np.ndarray) -> None:
    """Set the legal actions of ``seat``'s sheet with this round's dice in row ``i`` of ``bits`` (a zeroed byte view)."""
    size = int(S[i, SQ])
    if S[i, FILLED + seat] == size:
        bits[i, 7 * size] = 1
        return
    rows, cols = int(S[i, ROWS]), int(S[i, COLS])
    roll = int(S[i, ROLL])
    boxes = False
    for d in range(3):  # assignments 2d and 2d + 1 give die d to the size: one shape, fitted once
        first, second = FIRST_PERM[roll, 2 * d], FIRST_PERM[roll, 2 * d + 1]
        if not (first or second):
            continue
        face = ROLLS_A[roll, d]
        for r in range(rows):
            fits = _row_fits(S, i, seat, face, r)
            if fits:
                boxes = True
                at = r * cols
                for c in range(cols):
                    if (fits >> c) & 1:
                        if first:
                            bits[i, 2 * d * size + at + c] = 1
                        if second:
                            bits[i, (2 * d + 1) * size + at + c] = 1
    if boxes and S[i, MAT_ONLY]:
        return
    base = 6 * size
    for r in range(rows):
        free = _mat_row(S, i, seat, r)
        for c in range(cols):
            if (free >> c) & 1:
                bits[i, base + r * cols + c] = 1


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the legal action mask (all False at chance and terminal nodes) into row ``i`` of ``out``."""
    bits = out.view(np.uint8)  # numba writes bools one by one
    for a in range(bits.shape[1]):
        bits[i, a] = 0
    if S[i, ROUND] >= ROUNDS or S[i, ROLL] < 0:
        return
    _seat_mask(S, i, int(S[i, CUR]), bits)


@jit
def seat_mask(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write the legal actions of ``seat``'s sheet with this round's dice into row ``i`` of ``out``, whoever
    is to choose (the redeal of a hidden choice)."""
    bits = out.view(np.uint8)
    for a in range(bits.shape[1]):
        bits[i, a] = 0
    _seat_mask(S, i, seat, bits)


@jit_helper
def _any_box(S: np.ndarray, i: int, seat: int) -> bool:
    roll = int(S[i, ROLL])
    for d in range(3):
        if FIRST_PERM[roll, 2 * d] or FIRST_PERM[roll, 2 * d + 1]:
            for r in range(int(S[i, ROWS])):
                if _row_fits(S, i, seat, ROLLS_A[roll, d], r):
                    return True
    return False


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    """Is ``action`` legal for the seat to choose (``False`` at chance and terminal nodes)?"""
    if S[i, ROUND] >= ROUNDS or S[i, ROLL] < 0:
        return False
    seat = int(S[i, CUR])
    size, cols = int(S[i, SQ]), int(S[i, COLS])
    if not 0 <= action <= 7 * size:
        return False
    full = S[i, FILLED + seat] == size
    if action == 7 * size:
        return full  # type: ignore[no-any-return]
    if full:
        return False
    if action >= 6 * size:
        sq = action - 6 * size
        if (_mat_row(S, i, seat, sq // cols) >> (sq % cols)) & 1 == 0:
            return False
        return not (S[i, MAT_ONLY] and _any_box(S, i, seat))
    p, sq = action // size, action % size
    roll = int(S[i, ROLL])
    if not FIRST_PERM[roll, p]:
        return False
    return (_row_fits(S, i, seat, ROLLS_A[roll, PERMS_A[p, 0]], sq // cols) >> (sq % cols)) & 1 == 1  # type: ignore[no-any-return]


@jit
def box_fit(S: np.ndarray, i: int, seat: int, face: int, sq: int) -> int:
    """Why a box of ``face`` at ``sq`` cannot be drawn on ``seat``'s sheet: 0 it can, 1 it leaves the sheet
    or crosses a compartment wall or floor, 2 it covers a filled square, 3 it floats."""
    rows, cols, ch, cw = int(S[i, ROWS]), int(S[i, COLS]), int(S[i, CH]), int(S[i, CW])
    w, h = WIDTH[face], HEIGHT[face]
    r, c = sq // cols, sq % cols
    if r + h > rows or c + w > cols or r % ch + h > ch or c % cw + w > cw:
        return 1
    cells = ((1 << w) - 1) << c
    for dr in range(h):
        if row_bits(S, i, seat, r + dr) & cells:
            return 2
    if (r + h - 1) % ch != ch - 1 and row_bits(S, i, seat, r + h) & cells != cells:
        return 3
    return 0


@jit
def mat_fit(S: np.ndarray, i: int, seat: int, sq: int) -> bool:
    """Can a playmat go on ``sq`` of ``seat``'s sheet (empty, on a floor or on a filled square)?"""
    cols = int(S[i, COLS])
    return (_mat_row(S, i, seat, sq // cols) >> (sq % cols)) & 1 == 1  # type: ignore[no-any-return]


# ---- a turn ---------------------------------------------------------------------------------------
@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """Apply a legal action or chance outcome (unchecked): the roll, or the choice of the seat to choose;
    the round ends after the last seat's choice."""
    if S[i, ROLL] < 0:
        S[i, ROLL] = action
        S[i, CUR] = 0
        return
    seat = int(S[i, CUR])
    _place_action(S, i, seat, action)
    S[i, DECISIONS] += 1
    if seat + 1 < S[i, NP]:
        S[i, CUR] = seat + 1
    else:  # everyone has chosen: the round ends, its choices become public
        S[i, ROUND] += 1
        S[i, ROLL] = -1
        S[i, CUR] = 0


# ---- scoring: over a list of moves ``A[i, base + 5 m ...]``, so the pure functions of ``scoring.py`` share it
@jit_helper
def _adjacent(A: np.ndarray, i: int, a: int, b: int, ch: int, cw: int, cols: int, walls: bool) -> bool:
    """Do the boxes at ``a`` and ``b`` (offsets of two moves) share an edge of squares (not across a wall if
    ``walls``)?"""
    sa, sb = int(A[i, a + 4]), int(A[i, b + 4])
    ra, ca, rb, cb = sa // cols, sa % cols, sb // cols, sb % cols
    wa, ha = WIDTH[A[i, a + 1]], HEIGHT[A[i, a + 1]]
    wb, hb = WIDTH[A[i, b + 1]], HEIGHT[A[i, b + 1]]
    if walls and (ra // ch != rb // ch or ca // cw != cb // cw):
        return False
    rows_meet = ra < rb + hb and rb < ra + ha
    cols_meet = ca < cb + wb and cb < ca + wa
    return (rows_meet and (ca + wa == cb or cb + wb == ca)) or (cols_meet and (ra + ha == rb or rb + hb == ra))


@jit_helper
def _same_comp(A: np.ndarray, i: int, a: int, b: int, ch: int, cw: int, cols: int) -> bool:
    sa, sb = int(A[i, a + 4]), int(A[i, b + 4])
    return sa // cols // ch == sb // cols // ch and sa % cols // cw == sb % cols // cw


@jit_helper
def largest_group(
    A: np.ndarray, i: int, base: int, k: int, ch: int, cw: int, cols: int, walls: bool, field: int, value: int
) -> int:
    """Size of the largest connected group of the boxes among the ``k`` moves at ``base`` whose ``field``
    (2: category, 3: mechanism) is ``value``."""
    left = 0
    for m in range(k):
        at = base + MOVE_WIDTH * m
        if A[i, at] == BOX and A[i, at + field] == value:
            left |= 1 << m
    best = 0
    while left:
        first = 0
        while not (left >> first) & 1:
            first += 1
        left &= ~(1 << first)
        stack = 1 << first
        size = 0
        while stack:
            m = 0
            while not (stack >> m) & 1:
                m += 1
            stack &= ~(1 << m)
            size += 1
            for o in range(k):
                if (left >> o) & 1 and _adjacent(A, i, base + MOVE_WIDTH * m, base + MOVE_WIDTH * o, ch, cw, cols, walls):
                    left &= ~(1 << o)
                    stack |= 1 << o
        best = max(best, size)
    return best


@jit_helper
def classic_points(A: np.ndarray, i: int, base: int, k: int, ch: int, cw: int, cols: int, walls: bool) -> int:
    """Classic mode's group points (each category's and mechanism's largest group, if it has 2+ games)."""
    total = 0
    for field in range(2, 4):
        for value in range(1, 7):
            size = largest_group(A, i, base, k, ch, cw, cols, walls, field, value)
            if size >= 2:
                total += size
    return total


@jit_helper
def category_bonus(A: np.ndarray, i: int, base: int, k: int, m: int, ch: int, cw: int, cols: int) -> int:
    """Expert mode: the category bonus of the box that is move ``m``."""
    at = base + MOVE_WIDTH * m
    cat, face = A[i, at + 2], A[i, at + 1]
    if cat == PUZZLE:
        mates = 0
        for a in range(k):
            pa = base + MOVE_WIDTH * a
            if A[i, pa] != BOX or not _same_comp(A, i, at, pa, ch, cw, cols):
                continue
            mates += 1
            for b in range(a + 1, k):
                pb = base + MOVE_WIDTH * b
                shared = A[i, pa + 2] == A[i, pb + 2] or A[i, pa + 3] == A[i, pb + 3]
                if A[i, pb] == BOX and shared and _same_comp(A, i, at, pb, ch, cw, cols):
                    return 0
        return mates
    if cat == DEXTERITY:
        bottom = int(A[i, at + 4]) // cols + HEIGHT[face] - 1
        return 0 if bottom % ch == ch - 1 else 2
    if cat == CARD:
        count = 0
        for a in range(k):
            pa = base + MOVE_WIDTH * a
            if A[i, pa] == BOX and A[i, pa + 2] == CARD and _same_comp(A, i, at, pa, ch, cw, cols):
                count += 1
        return count
    if cat == BOARD:
        return 1 if face % 2 == 0 else 0
    if cat == MINIATURES:
        return 1 if WIDTH[face] * HEIGHT[face] == 6 else 0
    return 1 if face % 2 == 1 else 0  # Roleplaying: vertical


@jit_helper
def mechanism_bonus(A: np.ndarray, i: int, base: int, k: int, m: int, ch: int, cw: int, cols: int, walls: bool) -> int:
    """Expert mode: the mechanism bonus of the box that is move ``m``."""
    at = base + MOVE_WIDTH * m
    cat, mech, face = A[i, at + 2], A[i, at + 3], A[i, at + 1]
    if mech == DEDUCTION:
        return 1 if WIDTH[face] * HEIGHT[face] == 2 else 0
    count = 0
    for a in range(k):
        pa = base + MOVE_WIDTH * a
        if A[i, pa] != BOX:
            continue
        if mech in (BLUFFING, PROGRAMMING):
            if a == m or not _adjacent(A, i, at, pa, ch, cw, cols, walls):
                continue
            if mech == BLUFFING:
                count += A[i, pa + 2] == cat or A[i, pa + 3] == mech
            else:
                count += A[i, pa + 3] == PROGRAMMING
        elif mech == DECKBUILDING:
            count += A[i, pa + 3] != DECKBUILDING and _same_comp(A, i, at, pa, ch, cw, cols)
        else:
            count += A[i, pa + 3] == mech
    if mech == MEMORY:
        return min(3, count)
    if mech == SECRET_ROLES:
        return 5 if count == 1 else 0
    return count


@jit_helper
def full_compartment_bonus(A: np.ndarray, i: int, base: int, k: int, ch: int, cw: int, cols: int, rows: int) -> int:
    """Expert mode: 2 points per game in every completely filled compartment."""
    total = 0
    for top in range(0, rows, ch):
        for left in range(0, cols, cw):
            filled = 0
            games = 0
            for m in range(k):
                at = base + MOVE_WIDTH * m
                sq = int(A[i, at + 4])
                if A[i, at] == PASS or sq // cols // ch != top // ch or sq % cols // cw != left // cw:
                    continue
                if A[i, at] == BOX:
                    filled += WIDTH[A[i, at + 1]] * HEIGHT[A[i, at + 1]]
                    games += 1
                else:
                    filled += 1
            if filled == ch * cw:
                total += 2 * games
    return total


@jit_helper
def filled_squares(A: np.ndarray, i: int, base: int, k: int) -> int:
    """Squares the ``k`` moves at ``base`` fill (boxes and playmats)."""
    total = 0
    for m in range(k):
        at = base + MOVE_WIDTH * m
        if A[i, at] == BOX:
            total += WIDTH[A[i, at + 1]] * HEIGHT[A[i, at + 1]]
        elif A[i, at] == MAT:
            total += 1
    return total


@jit_helper
def score_moves(
    A: np.ndarray, i: int, base: int, k: int, expert: bool, walls: bool, ch: int, cw: int, cols: int, rows: int
) -> int:
    """The score of a sheet holding the ``k`` moves at ``base`` in either mode (empty squares cost 1 each)."""
    empty = rows * cols - filled_squares(A, i, base, k)
    if not expert:
        return classic_points(A, i, base, k, ch, cw, cols, walls) - empty
    total = full_compartment_bonus(A, i, base, k, ch, cw, cols, rows) - empty
    for m in range(k):
        if A[i, base + MOVE_WIDTH * m] == BOX:
            total += category_bonus(A, i, base, k, m, ch, cw, cols)
            total += mechanism_bonus(A, i, base, k, m, ch, cw, cols, walls)
    return total


@jit_helper
def _sheet_score(S: np.ndarray, i: int, seat: int, k: int) -> int:
    return score_moves(  # type: ignore[no-any-return]
        S,
        i,
        MOVES + SEAT_MOVES * seat,
        k,
        S[i, EXPERT] != 0,
        S[i, WALLS] != 0,
        int(S[i, CH]),
        int(S[i, CW]),
        int(S[i, COLS]),
        int(S[i, ROWS]),
    )


@jit
def sheet_score(S: np.ndarray, i: int, seat: int, k: int) -> int:
    """The score of ``seat``'s sheet with its first ``k`` moves (the game's mode and options)."""
    return _sheet_score(S, i, seat, k)  # type: ignore[no-any-return]


@jit
def empty_squares(S: np.ndarray, i: int, seat: int, k: int) -> int:
    """Empty squares of ``seat``'s sheet with its first ``k`` moves."""
    return int(S[i, SQ]) - filled_squares(S, i, MOVES + SEAT_MOVES * seat, k)  # type: ignore[no-any-return]


@jit_helper
def _ranking_key(S: np.ndarray, i: int, seat: int) -> int:
    """Score, then fewest empty squares, as one comparable integer."""
    k = int(S[i, NMOV + seat])
    empty = int(S[i, SQ]) - filled_squares(S, i, MOVES + SEAT_MOVES * seat, k)
    return _sheet_score(S, i, seat, k) * 4096 - empty  # type: ignore[no-any-return]


@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the outcome returns of the ``NP`` seats into ``out``: zeros until the end, then the scaled score
    (solo) or by ranking (``rank_returns``' values, summed in the same order)."""
    n = int(S[i, NP])
    for seat in range(n):
        out[seat] = 0.0
    if S[i, ROUND] < ROUNDS:
        return
    if n == 1:
        low, high = int(S[i, LOW]), int(S[i, HIGH])
        out[0] = -1.0 + 2.0 * (_sheet_score(S, i, 0, int(S[i, NMOV])) - low) / (high - low)
        return
    for seat in range(n):
        out[seat] = _ranking_key(S, i, seat)
    rank_outcomes(out, n)


# ---- observation ----------------------------------------------------------------------------------
@jit_helper
def visible_moves(S: np.ndarray, i: int, seat: int, viewer: int) -> int:
    """How many of ``seat``'s moves ``viewer`` sees (this round's choice of another seat is hidden; a
    ``viewer`` of -1 is the public)."""
    k = int(S[i, NMOV + seat])
    if S[i, ROLL] >= 0 and seat < S[i, CUR] and seat != viewer:
        return k - 1
    return k


@jit_helper
def _whole_plane_values(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write the channels that hold one value on every square (``dice`` to ``options``, the last ones of a
    square) of ``seat``'s observation on square 0 of row ``i`` of ``out``."""
    for k in range(O_DICE, OBS_C):
        out[i, k] = 0.0
    n = int(S[i, NP])
    roll = int(S[i, ROLL])
    cur = int(S[i, CUR])
    if roll >= 0:
        for d in range(3):
            out[i, O_DICE + 6 * d + ROLLS_A[roll, d] - 1] = 1.0
    out[i, O_ROUND] = np.float32(S[i, ROUND] / ROUNDS)
    for slot in range(n):
        out[i, O_PRESENT + slot] = 1.0
        other = seat + slot
        if other >= n:
            other -= n
        if roll >= 0 and other < cur:
            out[i, O_CHOSEN + slot] = 1.0
    if S[i, EXPERT]:
        out[i, O_OPTIONS] = 1.0
    if S[i, WALLS]:
        out[i, O_OPTIONS + 1] = 1.0
    if S[i, MAT_ONLY]:
        out[i, O_OPTIONS + 2] = 1.0


@jit_helper
def _marks(A: np.ndarray, i: int, base: int, first: int, stop: int, cols: int, plane: int, out: np.ndarray, value: float) -> None:
    """Write ``value`` into the entries of the sheet channels at ``plane`` that moves ``first`` to ``stop - 1``
    of the list at ``A[i, base:]`` mark in row ``i`` of ``out`` (1.0 draws them, 0.0 rubs them out)."""
    for m in range(first, stop):
        at = base + MOVE_WIDTH * m
        kind, sq = int(A[i, at]), int(A[i, at + 4])
        if kind == MAT:
            out[i, sq * OBS_C + plane + OCC_CHANNEL] = value
            out[i, sq * OBS_C + plane + MAT_CHANNEL] = value
        elif kind == BOX:
            face = int(A[i, at + 1])
            w, h = WIDTH[face], HEIGHT[face]
            cat = plane + CAT0 + int(A[i, at + 2]) - 1
            mech = plane + MECH0 + int(A[i, at + 3]) - 1
            for dr in range(h):
                for dc in range(w):
                    o = (sq + dr * cols + dc) * OBS_C
                    out[i, o + plane + OCC_CHANNEL] = value
                    out[i, o + cat] = value
                    out[i, o + mech] = value
                    if dc < w - 1:
                        out[i, o + plane + JOIN_RIGHT] = value
                    if dr < h - 1:
                        out[i, o + plane + JOIN_DOWN] = value


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32 planes ``(rows, cols, channels)``, layout in ``observation.py``)
    into row ``i`` of ``out``: its own sheet, the finished rounds of the others, the public facts.

    Square 0 gets every channel (the sheets' zeros and the whole-plane values), the others a copy of it (in
    order, whole squares: measured cheaper than writing each square's pieces), then what differs from square
    to square and the marks of the moves."""
    n = int(S[i, NP])
    rows, cols, ch, cw = int(S[i, ROWS]), int(S[i, COLS]), int(S[i, CH]), int(S[i, CW])
    for k in range(O_DICE):
        out[i, k] = 0.0
    _whole_plane_values(S, i, seat, out)
    for q in range(1, rows * cols):
        at = q * OBS_C
        for k in range(OBS_C):
            out[i, at + k] = out[i, k]
    for r in range(rows):
        supported = _mat_row(S, i, seat, r)
        floor = 1.0 if r % ch == ch - 1 else 0.0
        for c in range(cols):
            at = (r * cols + c) * OBS_C
            out[i, at + O_SUPPORTED] = 1.0 if (supported >> c) & 1 else 0.0
            out[i, at + O_FLOOR] = floor
            out[i, at + O_WALL] = 1.0 if c + 1 < cols and (c + 1) % cw == 0 else 0.0
    for slot in range(n):
        other = seat + slot
        if other >= n:
            other -= n
        base = MOVES + SEAT_MOVES * other
        _marks(S, i, base, 0, visible_moves(S, i, other, seat), cols, O_SHEETS + SHEET_CHANNELS * slot, out, 1.0)


M_SEAT = 0
"""``observation_update``'s record per row (``OBS_MEMO`` entries), kept in solo games: the seat of the observation
in the buffer (-1: none, or not recorded) at ``M_SEAT``; the player count and geometry it was written for
(``GEOMETRY``) at ``M_GEOMETRY``; how many moves it shows (``M_SHOWN``) and a copy of them (``M_MOVES``, as in
``MOVES``); per sheet row, the ``supported`` squares (``M_SUPPORTED``, two 12-column entries as in ``BITS``);
then room for the list of the whole-plane channels that change (``M_CHANGED``)."""
GEOMETRY = np.array([NP, ROWS, COLS, CH, CW], dtype=np.int64)
M_GEOMETRY = M_SEAT + 1
M_SHOWN = M_GEOMETRY + len(GEOMETRY)
M_MOVES = M_SHOWN + 1
M_SUPPORTED = M_MOVES + SEAT_MOVES
M_CHANGED = M_SUPPORTED + 2 * MAX_SIDE
OBS_MEMO = M_CHANGED + OBS_C - O_DICE


@jit_helper
def _moves_kept(S: np.ndarray, i: int, seat: int, shown: int, memo: np.ndarray) -> bool:
    """Are the moves recorded in ``memo[i]`` still the first of ``seat``'s moves in ``S[i]``, with ``shown`` of
    them visible now (false in a new game)?"""
    kept = int(memo[i, M_SHOWN])
    if not 0 <= kept <= shown:
        return False
    differ = 0
    at = MOVES + SEAT_MOVES * seat
    for k in range(MOVE_WIDTH * kept):
        differ |= S[i, at + k] ^ memo[i, M_MOVES + k]
    return differ == 0


@jit
def observation_update(S: np.ndarray, i: int, seat: int, out: np.ndarray, memo: np.ndarray) -> None:
    """What ``observation`` writes, given that ``out[i]`` holds what it wrote for the seat recorded in
    ``memo[i]`` (``OPTIONAL_INTERFACE`` of ``envs.core.kernel``; the record is described at ``M_SEAT``).

    In a solo game only what changed is written: the whole-plane channels whose value changed (the round and
    the dice, every decision), on every square; the ``supported`` squares that changed; the marks of the
    moves drawn since (in a new game, the marks shown rubbed out first). The whole observation is written the
    first time (or for another seat or geometry). With 2+ players the seat to observe moves on at every
    decision, so every slot shows another sheet: the observation is written whole, which measured cheaper
    than rubbing out and drawing every slot's marks (scattered writes into cache lines that are not cached,
    at N = 1024), and nothing is recorded."""
    if S[i, NP] > 1:
        observation(S, i, seat, out)
        memo[i, M_SEAT] = -1
        return
    rows, cols = int(S[i, ROWS]), int(S[i, COLS])
    shown = visible_moves(S, i, seat, seat)
    rewrite = memo[i, M_SEAT] != seat  # also -1: nothing recorded
    for k in range(len(GEOMETRY)):
        rewrite = rewrite or memo[i, M_GEOMETRY + k] != S[i, GEOMETRY[k]]
        memo[i, M_GEOMETRY + k] = S[i, GEOMETRY[k]]
    first = 0
    if rewrite:
        observation(S, i, seat, out)
    else:
        top = (rows * cols - 1) * OBS_C  # the last square: it holds the whole-plane values written last
        _whole_plane_values(S, i, seat, out)
        changed = 0
        for c in range(O_DICE, OBS_C):
            if out[i, c] != out[i, top + c]:
                memo[i, M_CHANGED + changed] = c
                changed += 1
        if changed:
            for at in range(OBS_C, top + 1, OBS_C):
                for k in range(changed):
                    out[i, at + memo[i, M_CHANGED + k]] = out[i, memo[i, M_CHANGED + k]]
        if _moves_kept(S, i, seat, shown, memo):
            first = int(memo[i, M_SHOWN])
        else:
            _marks(memo, i, M_MOVES, 0, int(memo[i, M_SHOWN]), cols, O_SHEETS, out, 0.0)
        _marks(S, i, MOVES + SEAT_MOVES * seat, first, shown, cols, O_SHEETS, out, 1.0)
    for r in range(rows):
        supported = _mat_row(S, i, seat, r)
        if not rewrite:
            flips = supported ^ (int(memo[i, M_SUPPORTED + 2 * r]) | (int(memo[i, M_SUPPORTED + 2 * r + 1]) << HALF))
            c = 0
            while flips >> c:
                if (flips >> c) & 1:
                    out[i, (r * cols + c) * OBS_C + O_SUPPORTED] = 1.0 if (supported >> c) & 1 else 0.0
                c += 1
        memo[i, M_SUPPORTED + 2 * r] = supported & HALF_MASK
        memo[i, M_SUPPORTED + 2 * r + 1] = supported >> HALF
    memo[i, M_SEAT] = seat
    memo[i, M_SHOWN] = shown
    at = MOVES + SEAT_MOVES * seat
    for k in range(MOVE_WIDTH * first, MOVE_WIDTH * shown):
        memo[i, M_MOVES + k] = S[i, at + k]


__doc__ = __doc__.replace("{row_table}", ROW.table())
