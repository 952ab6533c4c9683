"""KoPlus's rules as compiled kernels over a flat ``int16`` state row: the one implementation of the rules.

``KoPlusState`` (``game.py``) wraps one row (a one-row matrix); ``gameshelf.vector`` steps a matrix of them.
Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists what a kernel
module provides), is compiled by numba and also runs as plain Python. Cells are ``row * 16 + col`` on the
fixed 16 x 16 grid of the action encoding. The row is declared once, as ``ROW`` below (fields, offsets,
bounds; ``envs.core.row``):

{row_table}

Bit words are 16 columns wide and kept in the signed row as their two's complement (``u16``/``s16``).
Legality is bit-parallel: for a shape, orientation and anchor row, the legal anchor columns are the
``ALLOW`` word ANDed with the five cells' free bits (``COVER`` shifted by each cell's column offset),
and with their ``NEAR`` bits ORed (or, for the first tile, the interior word ``INSIDE``).

The drivers (chance resolution, random playouts, the batch steps) are the template's, in ``envs.core.kernel``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import below, jit, jit_helper, rank_outcomes
from gameshelf.envs.core.row import RowLayout
from gameshelf.envs.koplus.actions import GRID, NUM_ACTIONS, NUM_CELLS
from gameshelf.envs.koplus.board import (
    BONUS_TURNS,
    MAX_PLAYERS,
    MAX_TILE_POINTS,
    NUM_SECTIONS,
    SECTION,
    SECTION_GRID,
    SHAPE_OFFSETS,
    TILES_PER_PLAYER,
    geometry,
    section_values,
)
from gameshelf.envs.koplus.observation import LAYOUT
from gameshelf.envs.koplus.scoring import ISOLATED_PENALTY, LARGEST_GROUP_BONUS, SMALL_GROUP_PENALTY

P = MAX_PLAYERS
MAX_TILES = P * TILES_PER_PLAYER
MAX_BONUS_TURNS = max(max(allowance) for allowance in BONUS_TURNS.values())
NUM_WORDS = 5 * GRID
"""Words of placements: コ orientations 0-3 by anchor row, then ＋ by anchor row."""
WORD = (-(1 << 15), (1 << 15) - 1)
"""Bounds of a 16-bit word kept in the signed row (its two's complement)."""

# a CELL entry: alien value (bits 0-2), owner + 1 (bits 3-5), index of the covering tile + 1 (bits 6-11)
OWNER_SHIFT = 3
TILE_SHIFT = 6
ALIEN_BITS = 7

ROW = RowLayout("koplus")
NP = ROW.add("num_players", 1, "number of players (an option)", (2, P), fill=2)
MODE = ROW.flag("standard_board", 'board_mode="standard" (an option)')
CUR = ROW.add(
    "player",
    1,
    "seat to move, CHANCE (-1) while the board is drawn, TERMINAL (-4) once nobody can place",
    (TERMINAL, P - 1),
    fill=CHANCE,
)
PENDING = ROW.add(
    "pending_section",
    1,
    "random boards: the section drawn for the next position, waiting for its rotation (-1: none)",
    (-1, NUM_SECTIONS - 1),
    fill=-1,
)
NLAYOUT = ROW.add("laid", 1, "board positions laid (the board is complete at 9 / 12 / 16)", (0, NUM_SECTIONS))
BONUS_TURN = ROW.flag("bonus_turn", "the player to move is taking a bonus turn")
NTILES = ROW.add("num_tiles", 1, "tiles placed", (0, MAX_TILES))
NSKIP = ROW.add("num_skipped", 1, "seats passed over since the last placement", (0, P))
DECISIONS = ROW.add(
    "decisions", 1, "player decisions (placements) so far: the batched environment's truncation counter", (0, MAX_TILES)
)
LAYOUT_AT = ROW.add("layout", (NUM_SECTIONS, 2), "(section, rotation) of each laid board position", (0, NUM_SECTIONS - 1))
POINTS = ROW.add("points", P, "per seat: running score from placements", (0, TILES_PER_PLAYER * MAX_TILE_POINTS), per_seat=True)
PLACED = ROW.add("placed", P, "per seat: tiles placed (where the stack's top is)", (0, TILES_PER_PLAYER), per_seat=True)
BONUS_LEFT = ROW.add("bonus_left", P, "per seat: bonus turns left", (0, MAX_BONUS_TURNS), per_seat=True)
SKIPPED = ROW.add("skipped", P, "the seats passed over since the last placement, in order (num_skipped of them)", (0, P - 1))
FINAL = ROW.add(
    "final",
    (P, 4),
    "once over, per seat: largest group (>= 2 tiles, else 0), its +5, isolated tiles, tiles in smaller groups",
    (0, max(TILES_PER_PLAYER, LARGEST_GROUP_BONUS)),
    per_seat=True,
)
COVER = ROW.add("cover", GRID, "per grid row, bits by column: cell covered", WORD)
NEAR = ROW.add("near", GRID, "per grid row, bits by column: cell orthogonally next to a covered cell", WORD)
ALLOW = ROW.add(
    "allow",
    NUM_WORDS,
    "per shape, orientation, anchor row; bits by anchor column: the placement is on the board, catches <= 9",
    WORD,
)
TILES = ROW.add("tiles", (MAX_TILES, 2), "(seat, action) of each placed tile, in order", (0, NUM_ACTIONS - 1))
PARENT = ROW.add("parent", MAX_TILES, "scratch of the final scoring: union-find parents of the tiles", (0, MAX_TILES - 1))
GROUP = ROW.add("group", MAX_TILES, "scratch of the final scoring: group sizes of the tiles", (0, TILES_PER_PLAYER))
CELL = ROW.add(
    "cells",
    NUM_CELLS,
    "per cell: alien value (bits 0-2), owner + 1 (bits 3-5), index of the covering tile + 1 (bits 6-11)",
    (0, (1 << (TILE_SHIFT + 6)) - 1),
)
SIZE = ROW.size
NUM_ACTS = NUM_ACTIONS

# final-scoring entries of a seat at FINAL + 4 * seat + ...
F_LARGEST, F_BONUS, F_ISOLATED, F_SMALL = 0, 1, 2, 3

# ---- tables (numba freezes global arrays as constants) --------------------------------------------------
NUM_ORIENT = np.array([4, 1], dtype=np.int64)
"""Orientations per shape (コ, ＋)."""
WORD_BASE = np.array([0, 4 * GRID], dtype=np.int64)
"""First ``ALLOW`` word of each shape: word ``WORD_BASE[shape] + orientation * 16 + row``."""
DR = np.zeros((2, 4, 5), dtype=np.int64)
DC = np.zeros((2, 4, 5), dtype=np.int64)
for _shape, _orients in enumerate(SHAPE_OFFSETS):
    for _o, _offsets in enumerate(_orients):
        for _k, (_dr, _dc) in enumerate(_offsets):
            DR[_shape, _o, _k] = _dr
            DC[_shape, _o, _k] = _dc

BOARD_ROWS = np.zeros(P + 1, dtype=np.int64)
BOARD_COLS = np.zeros(P + 1, dtype=np.int64)
SECTION_COLS = np.zeros(P + 1, dtype=np.int64)
NUM_POSITIONS = np.zeros(P + 1, dtype=np.int64)
ON_BOARD = np.zeros((P + 1, NUM_CELLS), dtype=np.int64)
INTERIOR = np.zeros((P + 1, NUM_CELLS), dtype=np.int64)
INSIDE = np.zeros((P + 1, NUM_WORDS), dtype=np.int64)
"""Bits by anchor column: every cell of the placement lies in the interior region (the first tile's area)."""
BONUS_ALLOWANCE = np.zeros((P + 1, P), dtype=np.int64)
for _n, (_srows, _scols) in SECTION_GRID.items():
    _geo = geometry(_n)
    BOARD_ROWS[_n], BOARD_COLS[_n] = _geo.rows, _geo.cols
    SECTION_COLS[_n] = _scols
    NUM_POSITIONS[_n] = _srows * _scols
    ON_BOARD[_n] = _geo.on_board
    INTERIOR[_n] = _geo.interior
    BONUS_ALLOWANCE[_n, :_n] = BONUS_TURNS[_n]
    for _shape in (0, 1):
        for _a, _inside in zip(_geo.actions[_shape].tolist(), _geo.inside[_shape].tolist(), strict=True):
            if _inside:
                _o, _cell = divmod(_a, NUM_CELLS)
                INSIDE[_n, WORD_BASE[_shape] + _o * GRID + _cell // GRID] |= 1 << (_cell % GRID)
SECTION_CELLS = np.zeros((NUM_SECTIONS, 4, SECTION * SECTION), dtype=np.int64)
"""Alien values of section ``s`` turned ``k`` x 90° clockwise, row-major."""
for _s in range(NUM_SECTIONS):
    for _k in range(4):
        SECTION_CELLS[_s, _k] = np.array(section_values(_s, _k)).reshape(-1)

# observation: planes per cell (HWC), scales as float32 tables computed as the planes were
O_ALIENS = LAYOUT.offset("aliens")
O_TILES = LAYOUT.offset("tiles")
O_EMPTY = LAYOUT.offset("empty")
O_ON_BOARD = LAYOUT.offset("on_board")
O_INTERIOR = LAYOUT.offset("interior")
O_TOP_KO = LAYOUT.offset("top_ko")
O_TOP_PLUS = LAYOUT.offset("top_plus")
O_TILES_LEFT = LAYOUT.offset("tiles_left")
O_BONUS_LEFT = LAYOUT.offset("bonus_left")
O_SCORE = LAYOUT.offset("score")
O_TO_MOVE = LAYOUT.offset("to_move")
O_SEATED = LAYOUT.offset("seated")
NUM_PLANES = LAYOUT.size
"""Planes per cell (the observation is ``(16, 16, NUM_PLANES)``, planes innermost)."""
SCORE_OFFSET = 60
"""Observed score = (score + SCORE_OFFSET) / SCORE_RANGE: final totals lie in [-60, 113]."""
SCORE_RANGE = 180
ALIEN_FRACTION = np.arange(8, dtype=np.float32) / np.float32(5.0)
TILES_LEFT_FRACTION = np.array([k / TILES_PER_PLAYER for k in range(TILES_PER_PLAYER + 1)], dtype=np.float32)
BONUS_FRACTION = np.array([k / MAX_BONUS_TURNS for k in range(MAX_BONUS_TURNS + 1)], dtype=np.float32)


def initial_state(num_players: int, standard: bool) -> np.ndarray:
    """The row of a new game: before the first chance node (random boards), or with the standard board laid
    and the first seat able to place to move."""
    s = ROW.new_row()
    ROW.put(s, "num_players", num_players)
    ROW.put(s, "standard_board", int(standard))
    ROW.put(s, "bonus_left", BONUS_ALLOWANCE[num_players].tolist())
    if standard:
        S = s.reshape(1, -1)
        for position in range(int(NUM_POSITIONS[num_players])):
            lay_section(S, 0, position, 0)
        board_ready(S, 0)
        start(S, 0)
    return s


# ---- small helpers (compiled into their callers) --------------------------------------------------------
@jit_helper
def u16(x: int) -> int:
    """The 16 bits of a row entry as a non-negative int."""
    return int(x) & 0xFFFF


@jit_helper
def s16(x: int) -> int:
    """A 16-bit word as the signed value the row stores."""
    x = x & 0xFFFF
    return x - ((x & 0x8000) << 1)


@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    return int(S[i, CUR])


@jit_helper
def top_shape(S: np.ndarray, i: int, seat: int) -> int:
    """The shape on top of ``seat``'s stack (0 コ, 1 ＋), -1 once it is empty (seats 0, 2 start with コ)."""
    placed = int(S[i, PLACED + seat])
    if placed >= TILES_PER_PLAYER:
        return -1
    return (placed + seat) % 2


@jit_helper
def shifted(bits: int, dc: int) -> int:
    """Bit ``c`` of the result is bit ``c + dc`` of ``bits`` (16 columns)."""
    if dc >= 0:
        return bits >> dc
    return (bits << -dc) & 0xFFFF


@jit_helper
def legal_columns(S: np.ndarray, i: int, shape: int, orientation: int, row: int, first: bool) -> int:
    """The anchor columns (bits) where ``shape`` in ``orientation`` anchored in ``row`` is legal now."""
    word = WORD_BASE[shape] + orientation * GRID + row
    ok = u16(S[i, ALLOW + word])
    if ok == 0:
        return 0
    if first:
        ok &= INSIDE[S[i, NP], word]
    near = 0
    for k in range(5):
        r = row + DR[shape, orientation, k]
        if r < 0 or r >= GRID:
            return 0
        dc = DC[shape, orientation, k]
        ok &= shifted(~u16(S[i, COVER + r]) & 0xFFFF, dc)
        near |= shifted(u16(S[i, NEAR + r]), dc)
    if not first:
        ok &= near
    return ok


@jit_helper
def can_place_seat(S: np.ndarray, i: int, seat: int) -> bool:
    """Does ``seat``'s top tile have a legal placement (the board complete)?"""
    shape = top_shape(S, i, seat)
    if shape < 0 or S[i, NLAYOUT] < NUM_POSITIONS[S[i, NP]]:
        return False
    first = S[i, NTILES] == 0
    for orientation in range(NUM_ORIENT[shape]):
        for row in range(GRID):
            if legal_columns(S, i, shape, orientation, row, first) != 0:
                return True
    return False


@jit_helper
def find(S: np.ndarray, i: int, t: int) -> int:
    while S[i, PARENT + t] != t:
        S[i, PARENT + t] = S[i, PARENT + S[i, PARENT + t]]
        t = int(S[i, PARENT + t])
    return t


@jit_helper
def lay_section(S: np.ndarray, i: int, section: int, rotation: int) -> None:
    """Lay a (turned) section at the next board position."""
    n = S[i, NP]
    position = int(S[i, NLAYOUT])
    cols = SECTION_COLS[n]
    r0 = (position // cols) * SECTION
    c0 = (position % cols) * SECTION
    for k in range(SECTION * SECTION):
        cell = CELL + (r0 + k // SECTION) * GRID + c0 + k % SECTION
        S[i, cell] = (S[i, cell] & ~ALIEN_BITS) | SECTION_CELLS[section, rotation, k]
    S[i, LAYOUT_AT + 2 * position] = section
    S[i, LAYOUT_AT + 2 * position + 1] = rotation
    S[i, NLAYOUT] = position + 1


# ---- steps of the rules that Python also calls (positions, puzzles) -------------------------------------
@jit
def board_ready(S: np.ndarray, i: int) -> None:
    """The board is complete (or its aliens were replaced): which placements lie on it and catch at most 9."""
    n = S[i, NP]
    rows = BOARD_ROWS[n]
    cols = BOARD_COLS[n]
    for shape in range(2):
        for orientation in range(NUM_ORIENT[shape]):
            for row in range(GRID):
                word = 0
                for col in range(GRID):
                    points = 0
                    inside = True
                    for k in range(5):
                        r = row + DR[shape, orientation, k]
                        c = col + DC[shape, orientation, k]
                        if r < 0 or r >= rows or c < 0 or c >= cols:
                            inside = False
                            break
                        points += S[i, CELL + r * GRID + c] & ALIEN_BITS
                    if inside and points <= MAX_TILE_POINTS:
                        word |= 1 << col
                S[i, ALLOW + WORD_BASE[shape] + orientation * GRID + row] = s16(word)


@jit
def can_place(S: np.ndarray, i: int, seat: int) -> bool:
    """Does ``seat``'s top tile have a legal placement?"""
    return can_place_seat(S, i, seat)


@jit
def end(S: np.ndarray, i: int) -> None:
    """Nobody can place: the game is over, with the final group scoring (tiles of a seat orthogonally adjacent
    form a group; isolated tile -5; +5 to every largest group of 2+ not smaller than anyone's; -3 per tile of a
    group of 2+ smaller than its owner's largest)."""
    S[i, CUR] = TERMINAL
    n = S[i, NP]
    tiles = S[i, NTILES]
    for t in range(tiles):
        S[i, PARENT + t] = t
        S[i, GROUP + t] = 0
    for cell in range(NUM_CELLS):
        t = ((S[i, CELL + cell] >> TILE_SHIFT) & 63) - 1
        if t < 0:
            continue
        owner = (S[i, CELL + cell] >> OWNER_SHIFT) & 7
        col = cell % GRID
        for other in (cell + 1, cell + GRID):
            if other >= NUM_CELLS or (other == cell + 1 and col == GRID - 1):
                continue
            u = ((S[i, CELL + other] >> TILE_SHIFT) & 63) - 1
            if u >= 0 and u != t and ((S[i, CELL + other] >> OWNER_SHIFT) & 7) == owner:
                a = find(S, i, t)
                b = find(S, i, u)
                if a != b:
                    S[i, PARENT + a] = b
    for t in range(tiles):
        S[i, GROUP + find(S, i, t)] += 1
    best = 0
    for seat in range(n):
        largest = 0
        for t in range(tiles):
            if S[i, TILES + 2 * t] == seat and S[i, PARENT + t] == t and S[i, GROUP + t] >= 2:
                largest = max(largest, int(S[i, GROUP + t]))
        S[i, FINAL + 4 * seat + F_LARGEST] = largest
        best = max(best, largest)
    for seat in range(n):
        largest = S[i, FINAL + 4 * seat + F_LARGEST]
        isolated = 0
        small = 0
        for t in range(tiles):
            if S[i, TILES + 2 * t] == seat and S[i, PARENT + t] == t:
                size = S[i, GROUP + t]
                if size == 1:
                    isolated += 1
                elif size < largest:
                    small += size
        S[i, FINAL + 4 * seat + F_BONUS] = LARGEST_GROUP_BONUS if largest >= 2 and largest == best else 0
        S[i, FINAL + 4 * seat + F_ISOLATED] = isolated
        S[i, FINAL + 4 * seat + F_SMALL] = small


@jit_helper
def advance_from(S: np.ndarray, i: int, start_seat: int) -> None:
    """Give the turn to the first seat from ``start_seat`` on (clockwise) that can place; else the game ends."""
    S[i, BONUS_TURN] = 0
    n = S[i, NP]
    for k in range(n):
        seat = (start_seat + k) % n
        if can_place_seat(S, i, seat):
            S[i, CUR] = seat
            return
        S[i, SKIPPED + S[i, NSKIP]] = seat
        S[i, NSKIP] += 1
    end(S, i)


@jit
def start(S: np.ndarray, i: int) -> None:
    """The board is complete: the first seat able to place moves (seat 0 unless it cannot)."""
    advance_from(S, i, 0)


@jit
def place(S: np.ndarray, i: int, action: int) -> None:
    """The player to move places its top tile (unchecked); then a bonus turn, the next seat able to place, or the end."""
    seat = int(S[i, CUR])
    shape = top_shape(S, i, seat)
    orientation = action // NUM_CELLS
    row = (action // GRID) % GRID
    col = action % GRID
    index = int(S[i, NTILES])
    mark = ((seat + 1) << OWNER_SHIFT) | ((index + 1) << TILE_SHIFT)
    gain = 0
    for k in range(5):
        r = row + DR[shape, orientation, k]
        c = col + DC[shape, orientation, k]
        cell = CELL + r * GRID + c
        gain += S[i, cell] & ALIEN_BITS
        S[i, cell] = (S[i, cell] & ALIEN_BITS) | mark
        S[i, COVER + r] = s16(u16(S[i, COVER + r]) | (1 << c))
    for r in range(max(row - 3, 0), min(row + 4, GRID)):
        near = u16(S[i, COVER + r]) << 1 | u16(S[i, COVER + r]) >> 1
        if r > 0:
            near |= u16(S[i, COVER + r - 1])
        if r < GRID - 1:
            near |= u16(S[i, COVER + r + 1])
        S[i, NEAR + r] = s16(near)
    S[i, TILES + 2 * index] = seat
    S[i, TILES + 2 * index + 1] = action
    S[i, NTILES] = index + 1
    S[i, PLACED + seat] += 1
    S[i, POINTS + seat] += gain
    S[i, NSKIP] = 0
    S[i, DECISIONS] += 1
    # bonus turn: exactly 20/40/60 after any placement, while the allowance lasts; not taken (nor consumed)
    # when the next tile has no legal placement
    points = S[i, POINTS + seat]
    if (points == 20 or points == 40 or points == 60) and S[i, BONUS_LEFT + seat] > 0 and can_place_seat(S, i, seat):
        S[i, BONUS_LEFT + seat] -= 1
        S[i, BONUS_TURN] = 1
        return
    advance_from(S, i, (seat + 1) % S[i, NP])


# ---- the kernel interface -------------------------------------------------------------------------------
@jit_helper
def section_used(S: np.ndarray, i: int, section: int) -> bool:
    for p in range(S[i, NLAYOUT]):  # noqa: SIM110 (a loop: compiled without generators)
        if S[i, LAYOUT_AT + 2 * p] == section:
            return True
    return False


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    """Is ``outcome`` possible here: a section not laid yet, then its rotation 0-3?"""
    if S[i, CUR] != CHANCE:
        return False
    if S[i, PENDING] >= 0:
        return 0 <= outcome < 4
    return 0 <= outcome < NUM_SECTIONS and not section_used(S, i, outcome)


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """Draw with generator ``i`` of ``rngs``: a section uniformly among those not laid yet, then its rotation."""
    if S[i, PENDING] >= 0:
        return below(rngs, i, 4)  # type: ignore[no-any-return]
    k = below(rngs, i, NUM_SECTIONS - S[i, NLAYOUT])
    for section in range(NUM_SECTIONS):
        if not section_used(S, i, section):
            if k == 0:
                return section
            k -= 1
    return -1


NUM_CHANCE = NUM_SECTIONS
"""Chance outcome ids are below this: a section, then its rotation 0-3 (``chance_weights`` writes that many)."""


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the odds of the chance node into row ``i`` of ``out`` as integer weights per outcome id: each
    section not laid yet alike, then each of the 4 rotations alike."""
    for k in range(NUM_CHANCE):
        out[i, k] = 0
    if S[i, PENDING] >= 0:
        for k in range(4):
            out[i, k] = 1
        return
    for section in range(NUM_SECTIONS):
        if not section_used(S, i, section):
            out[i, section] = 1


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    """Is ``action`` legal for the player to move (``False`` at chance and terminal nodes)?"""
    seat = S[i, CUR]
    if seat < 0 or not 0 <= action < NUM_ACTS:
        return False
    shape = top_shape(S, i, seat)
    orientation = action // NUM_CELLS
    if shape < 0 or orientation >= NUM_ORIENT[shape]:
        return False
    row = (action // GRID) % GRID
    return (legal_columns(S, i, shape, orientation, row, S[i, NTILES] == 0) >> (action % GRID)) & 1 == 1


BYTE_BOOLS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").view(np.uint64).ravel()
"""Eight bits as eight mask bytes (0 or 1) in one ``uint64``: byte ``c`` of ``BYTE_BOOLS[b]`` is bit ``c`` of ``b``."""
assert GRID == 16 and NUM_ACTS % 8 == 0, "an anchor row's 16 columns are two 64-bit words of the mask"


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the legal action mask (``bool``, all False at chance and terminal nodes) into row ``i`` of ``out``
    (C-contiguous): each anchor row's legal columns as two ``BYTE_BOOLS`` words through a ``uint64`` view."""
    words = out.view(np.uint64)
    seat = S[i, CUR]
    shape = top_shape(S, i, seat) if seat >= 0 else -1
    written = 0
    if shape >= 0:
        first = S[i, NTILES] == 0
        for orientation in range(NUM_ORIENT[shape]):
            for row in range(GRID):
                ok = legal_columns(S, i, shape, orientation, row, first)
                at = (orientation * NUM_CELLS + row * GRID) // 8
                words[i, at] = BYTE_BOOLS[ok & 0xFF]
                words[i, at + 1] = BYTE_BOOLS[ok >> 8]
        written = NUM_ORIENT[shape] * NUM_CELLS // 8
    for w in range(written, NUM_ACTS // 8):
        words[i, w] = 0


@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """Apply a legal action or chance outcome (unchecked): draw a section, turn it, or place a tile."""
    if S[i, CUR] != CHANCE:
        place(S, i, action)
        return
    if S[i, PENDING] < 0:
        S[i, PENDING] = action
        return
    lay_section(S, i, S[i, PENDING], action)
    S[i, PENDING] = -1
    if S[i, NLAYOUT] == NUM_POSITIONS[S[i, NP]]:
        board_ready(S, i)
        start(S, i)


@jit_helper
def total(S: np.ndarray, i: int, seat: int) -> int:
    """Placement points, plus the final scoring once the game is over."""
    points = int(S[i, POINTS + seat])
    if S[i, CUR] == TERMINAL:
        at = FINAL + 4 * seat
        points += int(S[i, at + F_BONUS])
        points += ISOLATED_PENALTY * int(S[i, at + F_ISOLATED]) + SMALL_GROUP_PENALTY * int(S[i, at + F_SMALL])
    return points


@jit
def totals(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Every seat's score (``total``) into ``out``."""
    for seat in range(S[i, NP]):
        out[seat] = total(S, i, seat)


@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Outcome returns of the ``NP`` seats into ``out``: zeros until the end, then by score, then tiles left."""
    n = S[i, NP]
    for seat in range(n):
        out[seat] = 0.0
    if S[i, CUR] != TERMINAL or n < 2:
        return
    for seat in range(n):
        out[seat] = total(S, i, seat) * 100 + TILES_PER_PLAYER - S[i, PLACED + seat]
    rank_outcomes(out, n)


W_CELL = NUM_PLANES // 2
"""64-bit words per cell: the planes that are the same on every cell are copied two at a time through a
``uint64`` view of the observation (the same bits, half the stores)."""
W_SEAT = O_TOP_KO // 2
"""The cell's first word of those planes (``top_ko`` to ``seated``)."""
W_TO_MOVE = O_TO_MOVE // 2
"""The cell's first word of the ``to_move`` and ``seated`` planes (the last ones), which stay the same from step to
step while the seat observing is the seat to move."""
assert NUM_PLANES % 2 == 0 and O_TOP_KO % 2 == 0 and O_TO_MOVE % 2 == 0, "the per-seat pieces are whole 64-bit words"
assert O_SEATED == O_TO_MOVE + P and O_SEATED + P == NUM_PLANES, "to_move and seated are the last planes"
WHERE = ON_BOARD + 2 * INTERIOR
"""Per player count and cell: on the board (1), in the interior too (3), or neither (0)."""
_cell_planes = np.zeros((ALIEN_BITS + 1, P + 1, 4, O_TOP_KO), dtype=np.float32)
for _slot in range(P + 1):
    for _where in range(4):
        _planes = _cell_planes[:, _slot, _where]
        _planes[:, O_ALIENS] = ALIEN_FRACTION
        if _slot:
            _planes[:, O_TILES + _slot - 1] = 1.0
        _planes[:, O_EMPTY] = float(_slot == 0 and _where & 1)
        _planes[:, O_ON_BOARD] = _where & 1
        _planes[:, O_INTERIOR] = _where >> 1
CELL_WORDS = _cell_planes.view(np.uint64)
"""A cell's own planes (``aliens`` to ``interior``) as the ``W_SEAT`` 64-bit words ``observation`` writes, by the
cell's alien value, the slot of its tile + 1 (0: none) and ``WHERE``."""


@jit_helper
def slot_of(other: int, seat: int, n: int) -> int:
    """The slot of seat ``other`` in ``seat``'s observation (``n`` players)."""
    slot = other - seat
    return slot + n if slot < 0 else slot


@jit_helper
def seat_planes(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write the planes of per-seat facts (``top_ko`` to ``seated``, the same on every cell) for cell 0."""
    n = S[i, NP]
    player = S[i, CUR]
    for k in range(O_TOP_KO, NUM_PLANES):
        out[i, k] = 0.0
    for slot in range(n):
        other = seat + slot
        if other >= n:
            other -= n
        shape = top_shape(S, i, other)
        if shape == 0:
            out[i, O_TOP_KO + slot] = 1.0
        elif shape == 1:
            out[i, O_TOP_PLUS + slot] = 1.0
        out[i, O_TILES_LEFT + slot] = TILES_LEFT_FRACTION[TILES_PER_PLAYER - S[i, PLACED + other]]
        out[i, O_BONUS_LEFT + slot] = BONUS_FRACTION[S[i, BONUS_LEFT + other]]
        out[i, O_SCORE + slot] = (total(S, i, other) + SCORE_OFFSET) / SCORE_RANGE
        out[i, O_TO_MOVE + slot] = 1.0 if player == other else 0.0
        out[i, O_SEATED + slot] = 1.0


@jit_helper
def cell_planes(S: np.ndarray, i: int, seat: int, cell: int, words: np.ndarray) -> None:
    """Write the planes of one cell's own facts (``aliens`` to ``interior``) into ``words``, the ``uint64`` view of
    the observation: ``CELL_WORDS`` of its alien value, the slot of its tile and where it lies."""
    n = S[i, NP]
    code = S[i, CELL + cell]
    owner = (code >> OWNER_SHIFT) & 7
    slot = slot_of(owner - 1, seat, n) + 1 if owner else 0
    where = WHERE[n, cell]
    at = cell * W_CELL
    for w in range(W_SEAT):
        words[i, at + w] = CELL_WORDS[code & ALIEN_BITS, slot, where, w]


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32, (16, 16, 36) flattened: planes innermost) into row ``i`` of ``out``.

    Each cell's own planes are ``CELL_WORDS``; the per-seat planes are written for cell 0, then copied onto the
    other cells two planes (one 64-bit word) at a time."""
    seat_planes(S, i, seat, out)
    words = out.view(np.uint64)
    for cell in range(NUM_CELLS):  # cell by cell: each cache line is visited once
        cell_planes(S, i, seat, cell, words)
        if cell:
            at = cell * W_CELL
            for w in range(W_SEAT, W_CELL):
                words[i, at + w] = words[i, w]


M_SEAT, M_PLAYERS, M_CELLS = 0, 1, 2
"""``observation_update``'s record per row: the seat of the observation in the buffer (-1: none yet), the number
of players, then the ``cells`` entries of the row it was written from."""
OBS_MEMO = M_CELLS + NUM_CELLS


@jit
def observation_update(S: np.ndarray, i: int, seat: int, out: np.ndarray, memo: np.ndarray) -> None:
    """What ``observation`` writes, given that ``out[i]`` holds what it wrote from the seat and row recorded in
    ``memo[i]`` (``OPTIONAL_INTERFACE`` of ``envs.core.kernel``).

    A cell's own planes are written again only where its ``cells`` entry changed (a tile placed, a new board) or,
    for another seat, where a tile covers it (the slots turn). The per-seat planes change on almost every step
    (the seat to move turns) and are copied onto every cell as ``observation`` does (copying only the words that
    changed costs more: scattered stores into the same cache lines), except ``to_move`` and ``seated`` where
    they did not change."""
    n = S[i, NP]
    old = memo[i, M_SEAT]
    if old < 0 or memo[i, M_PLAYERS] != n:
        observation(S, i, seat, out)
    else:
        seat_planes(S, i, seat, out)
        words = out.view(np.uint64)
        last = (NUM_CELLS - 1) * W_CELL  # the last cell still holds the per-seat words written before
        seating = False  # the to_move and seated words changed
        for w in range(W_TO_MOVE, W_CELL):
            seating |= words[i, w] != words[i, last + w]
        for cell in range(NUM_CELLS):
            code = S[i, CELL + cell]
            if code != memo[i, M_CELLS + cell] or (old != seat and (code >> OWNER_SHIFT) & 7):
                cell_planes(S, i, seat, cell, words)
            if cell:
                at = cell * W_CELL
                for w in range(W_SEAT, W_TO_MOVE):
                    words[i, at + w] = words[i, w]
                if seating:
                    for w in range(W_TO_MOVE, W_CELL):
                        words[i, at + w] = words[i, w]
    memo[i, M_SEAT] = seat
    memo[i, M_PLAYERS] = n
    for cell in range(NUM_CELLS):
        memo[i, M_CELLS + cell] = S[i, CELL + cell]


__doc__ = __doc__.replace("{row_table}", ROW.table())
