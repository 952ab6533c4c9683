"""Amoriax's rules as compiled kernels over a flat ``int16`` state row: the one implementation of the rules.

``AmoriaxState`` (``game.py``) is a view over one row (a one-row matrix); ``gameshelf.vector`` steps a matrix
of them. Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists what a
kernel module provides), is compiled by numba and also runs as plain Python. The row is declared once, as ``ROW``
below (fields, offsets, bounds; ``envs.core.row``):

{row_table}

The ``history`` (from ``HEAD``) holds the preloaded table first: ``pre_n`` entries of ``PRE_W`` words (81
cells, side to move, Red lock, count), then the log: ``LOG_W`` words a ply, ply ``base + j + 1`` at
``log_at + 2 j``: ``code * 4 + lock``, then the hash.

A log ``code`` is ``from * 81 + to`` for a move, ``PASS_CODE`` for a pass; the lock and the hash
(``position_hash``) are those of the position after the ply.

Threefold repetition needs every position of the game. The log keeps two words a ply: the move and a 15-bit
Zobrist hash of the position after it. A ply looks for the current hash among the earlier positions with the
same side to move; only when one matches (a repetition, or a rare collision) is the exact count taken: it walks
the log back from the current board (undoing a move touches two cells, so the number of cells that differ from
the current board is kept exactly as it goes, and no board is copied), comparing the side to move and the Red
lock too. A position rebuilt from plain data (``state_from_position``) brings the
positions seen before it, stored in full in the preloaded table.

The log has room for ``max(max_plies, LOG_MIN)`` plies, so rows of a game whose ``max_plies`` is at most
``LOG_MIN`` (the default 300 among them) have ``SIZE`` entries; a longer game has a longer row (``row_size``),
and a rebuilt position a preloaded table too. The drivers copy the first ``SIZE`` entries at a reset, which is
all a new game reads: the log is written before it is read.

The drivers (random playouts, the batch steps) are the template's, in ``envs.core.kernel``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.amoriax.actions import NUM_ACTIONS, PASS
from gameshelf.envs.amoriax.board import (
    CENTRE,
    CORNER_TARGET,
    EMPTY,
    KNIGHT_OFFSETS,
    NUM_KINDS,
    NUM_SQUARES,
    RED,
    SLIDE_DIRECTIONS,
    geometry,
    start_board,
)
from gameshelf.envs.amoriax.observation import LAYOUT
from gameshelf.envs.core.game import TERMINAL
from gameshelf.envs.core.kernel import STATE_DTYPE, jit, jit_helper
from gameshelf.envs.core.row import RowLayout

MAX_ROW_PLIES = 32767
"""The largest ``max_plies`` a row holds (an ``int16``): the option's upper bound."""
END_NAMES = ("", "crown", "repetition", "max_plies", "passes")
"""``END`` codes: 0 the game goes on, then the end reasons."""
PRE_W = NUM_SQUARES + 3
"""Words of a preloaded entry: 81 cells, side to move, Red lock, count."""
LOG_MIN = 300
"""Plies the log of every row has room for (a game with a larger ``max_plies`` has a longer row)."""
LOG_W = 2
"""Words of a log entry: the move with the Red lock after it, and the hash of the position after it."""
HASH_BITS = 15
"""Bits of ``position_hash``."""

ROW = RowLayout("amoriax")
BOARD = ROW.add("board", NUM_SQUARES, "cell row * 9 + col: EMPTY, WHITE, BLACK or RED", (EMPTY, RED))
PLAYER = ROW.add("player", 1, "seat to move (after the end, the seat that would have moved next)", (0, 1))
LOCK = ROW.add("lock", 1, "Red lock: bit s set, seat s may not move Red on its current or next move", (0, 3))
PLY = ROW.add("ply", 1, "plies played (= player decisions: DECISIONS)", (0, MAX_ROW_PLIES))
PASSES = ROW.add("passes", 1, "consecutive passes just played", (0, 2))
WINNER = ROW.add("winner", 1, "seat that reached the crown (-1: none)", (-1, 1), fill=-1)
END = ROW.add("end", 1, "why the game ended (index in END_NAMES, 0: not over)", (0, len(END_NAMES) - 1))
LAST_FROM = ROW.add(
    "last_from", 1, "square the last stone move left (-1: at the start, after a pass)", (-1, NUM_SQUARES - 1), fill=-1
)
LAST_TO = ROW.add("last_to", 1, "square it reached (-1: at the start, after a pass)", (-1, NUM_SQUARES - 1), fill=-1)
REPS = ROW.add("reps", 1, "occurrences of the current position (1 the first time; the third ends the game)", (1, 3), fill=1)
MAX_PLIES = ROW.add("max_plies", 1, "the option max_plies", (1, MAX_ROW_PLIES), fill=1)
INNER5 = ROW.flag("inner5", "the option inner_size is 5")
PER_PLY = ROW.flag("lock_per_ply", 'the option red_lock is "ply"')
BASE = ROW.add("base", 1, "ply of the log's first position (where the state was set up)", (0, MAX_ROW_PLIES))
BASE_LOCK = ROW.add("base_lock", 1, "Red lock of the log's first position", (0, 3))
BASE_COUNTED = ROW.flag("base_counted", "the log's first position is counted in the preloaded table (a rebuilt position)")
BASE_HASH = ROW.add("base_hash", 1, "position_hash of the log's first position", (0, (1 << HASH_BITS) - 1))
PRE_N = ROW.add("pre_n", 1, "entries of the preloaded table (positions seen before a rebuilt position)", (0, MAX_ROW_PLIES))
HEAD = ROW.tail(
    "history",
    LOG_W * LOG_MIN,
    "the preloaded table (pre_n entries of PRE_W words), then the log (LOG_W words a ply, room for "
    "max(max_plies, LOG_MIN) plies): cells, counts, move codes and 15-bit hashes",
    (0, MAX_ROW_PLIES),
)
"""Where the preloaded table starts (and the log, when the table is empty)."""
SIZE = ROW.size
DECISIONS = PLY
"""The player decisions made (the batched environment's truncation counter)."""

END_CROWN, END_REPETITION, END_MAX_PLIES, END_PASSES = 1, 2, 3, 4
PASS_CODE = NUM_SQUARES * NUM_SQUARES
"""The log's code of a pass (a move is ``from * 81 + to``)."""

NUM_ACTS = NUM_ACTIONS
KIND_SLIDE = 1 + len(KNIGHT_OFFSETS)
NUM_DIRS = len(SLIDE_DIRECTIONS)

# tables as arrays (numba freezes global arrays as constants)
CORNER = np.array(CORNER_TARGET, dtype=np.int64)
KNIGHT = np.full((2, NUM_SQUARES, len(KNIGHT_OFFSETS)), -1, dtype=np.int64)
"""``KNIGHT[inner5, sq, k]``: landing square of knight jump kind ``1 + k`` from ``sq`` (-1: off the board or in the
inner area)."""
INNER = np.zeros((2, NUM_SQUARES), dtype=np.int64)
NEXT = np.full((NUM_SQUARES, NUM_DIRS), -1, dtype=np.int64)
"""``NEXT[sq, d]``: the neighbour of ``sq`` in slide direction ``d`` (-1 at the edge)."""
for _g, _size in enumerate((3, 5)):
    _geo = geometry(_size)
    for _sq in range(NUM_SQUARES):
        INNER[_g, _sq] = int(_geo.inner[_sq])
        for _kind, _dest in _geo.knight_targets[_sq]:
            KNIGHT[_g, _sq, _kind - 1] = _dest
        for _d, _ray in enumerate(_geo.rays[_sq]):
            if _ray:
                NEXT[_sq, _d] = _ray[0]

OCCUPIED = MAX_PLIES
"""A row entry that is never 0 (``max_plies`` >= 1): ``STEP`` points there where a move leaves the board, so
it reads as an occupied cell."""
STEP = np.full((2, NUM_SQUARES, NUM_KINDS), OCCUPIED, dtype=np.int64)
"""``STEP[inner5, sq, kind]``: the row entry (cell) that must be empty for that move from ``sq``: the landing
square of a corner or knight jump, the first square of a slide; ``OCCUPIED`` where there is none."""
for _g in range(2):
    for _sq in range(NUM_SQUARES):
        if CORNER[_sq] >= 0:
            STEP[_g, _sq, 0] = BOARD + CORNER[_sq]
        for _k in range(len(KNIGHT_OFFSETS)):
            if KNIGHT[_g, _sq, _k] >= 0:
                STEP[_g, _sq, 1 + _k] = BOARD + KNIGHT[_g, _sq, _k]
        for _d in range(NUM_DIRS):
            if NEXT[_sq, _d] >= 0:
                STEP[_g, _sq, KIND_SLIDE + _d] = BOARD + NEXT[_sq, _d]

WORD = 27
"""Squares per bit set in ``legal_mask`` (81 = 3 x 27: products stay below 2**63, exact compiled and interpreted)."""
DE_BRUIJN = 0x077CB531
LOWEST_BIT = np.zeros(32, dtype=np.int64)
"""``LOWEST_BIT[((x * DE_BRUIJN) & 0xFFFFFFFF) >> 27]``: the index of the single set bit of ``x`` (< 2**32)."""
for _b in range(32):
    LOWEST_BIT[(((1 << _b) * DE_BRUIJN) & 0xFFFFFFFF) >> 27] = _b

_zobrist = np.random.default_rng(20261202).integers(1, 1 << HASH_BITS, size=(NUM_SQUARES * 4 + 2 + 4))
ZOBRIST = _zobrist[: NUM_SQUARES * 4].reshape(NUM_SQUARES, 4).astype(np.int64)
"""``ZOBRIST[sq, cell]``: 15-bit key of a cell's content (0 for an empty cell)."""
ZOBRIST[:, EMPTY] = 0
ZOBRIST_PLAYER = int(_zobrist[NUM_SQUARES * 4 + 1])
ZOBRIST_LOCK = _zobrist[NUM_SQUARES * 4 + 2 :].astype(np.int64)
ZOBRIST_LOCK[0] = 0

NUM_PLANES = LAYOUT.size
O_OWN = LAYOUT.offset("own_stones")
O_OPP = LAYOUT.offset("opponent_stones")
O_RED = LAYOUT.offset("red")
O_INNER = LAYOUT.offset("inner_area")
O_CROWN = LAYOUT.offset("crown")
O_OWN_LOCK = LAYOUT.offset("own_red_lock")
O_OPP_LOCK = LAYOUT.offset("opponent_red_lock")
O_TO_MOVE = LAYOUT.offset("to_move")
O_REPS = LAYOUT.offset("repetitions")
O_PLY = LAYOUT.offset("ply")
OBS_SIZE = NUM_SQUARES * NUM_PLANES
CELL_PLANES = np.zeros((2, 4, 3), dtype=np.float32)
"""``CELL_PLANES[seat, cell]``: the own-stone, opponent-stone and Red planes of a cell seen by ``seat``."""
for _seat in range(2):
    CELL_PLANES[_seat, _seat + 1, 0] = CELL_PLANES[_seat, 2 - _seat, 1] = CELL_PLANES[_seat, RED, 2] = 1.0
STATIC_PLANES = np.zeros((2, NUM_SQUARES, 2), dtype=np.float32)
"""``STATIC_PLANES[inner5, sq]``: the inner-area and crown planes."""
STATIC_PLANES[:, :, 0] = INNER
STATIC_PLANES[:, CENTRE, 1] = 1.0


def row_size(max_plies: int) -> int:
    """Entries of a row of a game with this ``max_plies`` (``SIZE`` up to ``LOG_MIN`` plies)."""
    return HEAD + LOG_W * max(LOG_MIN, min(max_plies, MAX_ROW_PLIES))


def initial_state(inner_size: int, start: str, red_lock: str, max_plies: int) -> np.ndarray:
    """The state row of a new game (built once per game; a new game copies it)."""
    s = np.concatenate((ROW.new_row(), np.zeros(row_size(max_plies) - SIZE, dtype=STATE_DTYPE)))  # a longer log
    cells = list(start_board(start))
    ROW.put(s, "board", cells)
    ROW.put(s, "max_plies", min(max_plies, MAX_ROW_PLIES))
    ROW.put(s, "inner5", int(inner_size == 5))
    ROW.put(s, "lock_per_ply", int(red_lock == "ply"))
    ROW.put(s, "base_hash", hash_of(cells, 0, 0))
    return s


def hash_of(cells: list[int] | bytes, player: int, lock: int) -> int:
    """``position_hash`` of a position given in plain Python (a row's first position)."""
    h = ZOBRIST_PLAYER if player else 0
    h ^= int(ZOBRIST_LOCK[lock])
    for sq, cell in enumerate(cells):
        h ^= int(ZOBRIST[sq, cell])
    return h


def with_preloaded(row: np.ndarray, entries: list[tuple[bytes, int, int, int]]) -> np.ndarray:
    """``row`` (with an empty preloaded table) with ``entries`` (cells, side to move, Red lock, count) preloaded,
    its first position counted among them (plain Python: a rebuilt position)."""
    table = np.zeros(PRE_W * len(entries), dtype=STATE_DTYPE)
    for k, (cells, to_move, lock, count) in enumerate(entries):
        at = PRE_W * k
        table[at : at + NUM_SQUARES] = list(cells)
        table[at + NUM_SQUARES : at + PRE_W] = (to_move, lock, count)
    out = np.concatenate([row[:HEAD], table, row[HEAD:]])
    ROW.put(out, "pre_n", len(entries))
    ROW.put(out, "base_counted", 1)
    return out


@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    if S[i, END]:
        return TERMINAL
    return S[i, PLAYER]  # type: ignore[no-any-return]


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    """Amoriax has no chance nodes."""
    return False


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """Amoriax has no chance nodes (never called)."""
    return 0


NUM_CHANCE = 0
"""Amoriax has no chance outcome: ``chance_weights`` writes no weight."""


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Amoriax has no chance nodes: no outcome has a weight (row ``i`` of ``out`` has ``NUM_CHANCE`` = 0 entries)."""
    for k in range(NUM_CHANCE):
        out[i, k] = 0


@jit_helper
def movable(S: np.ndarray, i: int, stone: int) -> bool:
    """Whether the side to move may move a stone of this cell value (its own, or Red when not frozen)."""
    player = S[i, PLAYER]
    if stone == player + 1:
        return True
    return stone == RED and not (S[i, LOCK] >> player) & 1  # type: ignore[no-any-return]


@jit_helper
def destination(S: np.ndarray, i: int, action: int) -> int:
    """Square a stone would land on with ``action`` (-1 for a pass or a move that cannot be made); the stone
    on the square is not checked."""
    if not 0 <= action < PASS:
        return -1
    sq = action // NUM_KINDS
    kind = action - sq * NUM_KINDS
    if kind == 0:
        dest = CORNER[sq]
    elif kind < KIND_SLIDE:
        dest = KNIGHT[S[i, INNER5], sq, kind - 1]
    else:
        d = kind - KIND_SLIDE
        dest = -1
        nxt = NEXT[sq, d]
        while nxt >= 0 and S[i, BOARD + nxt] == EMPTY:
            dest = nxt
            nxt = NEXT[nxt, d]
    if dest >= 0 and S[i, BOARD + dest] != EMPTY:
        return -1
    return dest  # type: ignore[no-any-return]


@jit_helper
def has_move(S: np.ndarray, i: int) -> bool:
    """Whether the side to move has a move other than the pass."""
    g = S[i, INNER5]
    for sq in range(NUM_SQUARES):
        if not movable(S, i, S[i, BOARD + sq]):
            continue
        corner = CORNER[sq]
        if corner >= 0 and S[i, BOARD + corner] == EMPTY:
            return True
        for k in range(len(KNIGHT_OFFSETS)):
            dest = KNIGHT[g, sq, k]
            if dest >= 0 and S[i, BOARD + dest] == EMPTY:
                return True
        for d in range(NUM_DIRS):
            nxt = NEXT[sq, d]
            if nxt >= 0 and S[i, BOARD + nxt] == EMPTY:
                return True
    return False


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    """Is ``action`` legal for the player to move (``False`` once the game is over)?"""
    if S[i, END] or not 0 <= action < NUM_ACTS:
        return False
    if action == PASS:
        return not has_move(S, i)
    if not movable(S, i, S[i, BOARD + action // NUM_KINDS]):
        return False
    return destination(S, i, action) >= 0  # type: ignore[no-any-return]


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the legal action mask (``bool``, all False once the game is over) into row ``i`` of ``out``.

    A move is legal when the side to move may move the stone on its square and the first square of the move
    (``STEP``) is empty: the 13 entries of a movable stone are written without a branch."""
    bits = out[i].view(np.uint8)  # this row's bytes, contiguous: cleared as one block
    bits[:] = 0
    if S[i, END]:
        return
    g = S[i, INNER5]
    player = S[i, PLAYER]
    movable_cells = int((2 << player) | (0 if (S[i, LOCK] >> player) & 1 else 1 << RED))  # bit v: cell value v moves
    found = 0
    for first in range(0, NUM_SQUARES, WORD):  # the movable stones as a bit set of WORD squares, visited bit by bit
        word = 0
        for k in range(WORD):
            word |= int((movable_cells >> S[i, BOARD + first + k]) & 1) << k  # an int: an int16 would overflow
        while word:
            low = word & -word
            sq = first + LOWEST_BIT[((low * DE_BRUIJN) & 0xFFFFFFFF) >> 27]
            word ^= low
            base = sq * NUM_KINDS
            for kind in range(NUM_KINDS):
                free = S[i, STEP[g, sq, kind]] == EMPTY
                bits[base + kind] = free
                found |= free
    if not found:
        bits[PASS] = 1


@jit_helper
def position_hash(S: np.ndarray, i: int) -> int:
    """A 15-bit Zobrist hash of the cells, the side to move and the Red lock (equal positions, equal hashes)."""
    h = ZOBRIST_PLAYER if S[i, PLAYER] else 0
    h ^= ZOBRIST_LOCK[S[i, LOCK]]
    for sq in range(NUM_SQUARES):
        h ^= ZOBRIST[sq, S[i, BOARD + sq]]
    return h  # type: ignore[no-any-return]


@jit_helper
def log_at(S: np.ndarray, i: int) -> int:
    """Offset of the log in row ``i`` (after the preloaded table)."""
    return HEAD + PRE_W * S[i, PRE_N]  # type: ignore[no-any-return]


@jit_helper
def may_repeat(S: np.ndarray, i: int, h: int) -> bool:
    """Whether an earlier position with the current side to move has the current position's hash ``h`` (always
    True for a rebuilt position, whose earlier positions are not all in the log)."""
    if S[i, PRE_N]:
        return True
    base = S[i, BASE]
    log = log_at(S, i) - LOG_W * (base + 1) + 1  # the hash after ply p is at log + LOG_W p
    ply = S[i, PLY]
    for k in range(ply - 2, base, -2):
        if S[i, log + LOG_W * k] == h:
            return True
    return (ply - base) % 2 == 0 and S[i, BASE_HASH] == h  # type: ignore[no-any-return]


@jit_helper
def occurrences(S: np.ndarray, i: int) -> int:
    """How often the current position (cells, side to move, Red lock) has occurred, this time included."""
    player = S[i, PLAYER]
    lock = S[i, LOCK]
    base = S[i, BASE]
    log = log_at(S, i) - LOG_W * (base + 1)  # the entry of ply p is at log + LOG_W p
    per_ply = S[i, PER_PLY]
    count = 1
    diff = 0  # cells where the position walked back to differs from the current one
    mover = 1 - player  # who played the ply being undone
    last = base + 1 if S[i, BASE_COUNTED] else base
    for k in range(S[i, PLY] - 1, last - 1, -1):  # undo ply k + 1: back to the position after ply k
        entry = S[i, log + LOG_W * (k + 1)]
        code = entry >> 2
        if code != PASS_CODE:
            src = code // NUM_SQUARES
            dest = code - src * NUM_SQUARES
            after = entry & 3
            red = after != 0 if per_ply else ((after >> mover) & 1) != 0
            stone = RED if red else mover + 1
            now_src = S[i, BOARD + src]
            now_dest = S[i, BOARD + dest]
            # before the undo: src empty, dest holds the stone; after it: the other way round
            diff += int(now_src != stone) - int(now_src != EMPTY) + int(now_dest != EMPTY) - int(now_dest != stone)
        if diff == 0 and mover == player:
            earlier = S[i, BASE_LOCK] if k == base else S[i, log + LOG_W * k] & 3
            if earlier == lock:
                count += 1
        mover = 1 - mover
    for e in range(S[i, PRE_N]):
        at = HEAD + PRE_W * e
        if S[i, at + NUM_SQUARES] != player or S[i, at + NUM_SQUARES + 1] != lock:
            continue
        same = True
        for sq in range(NUM_SQUARES):
            if S[i, at + sq] != S[i, BOARD + sq]:
                same = False
                break
        if same:
            count += S[i, at + NUM_SQUARES + 2]
    return count


@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """Apply a legal action (unchecked): move a stone (or pass), update the Red lock, count the position, and
    end the game on the first end test that holds (crown, two passes, third occurrence, ``max_plies``)."""
    player = S[i, PLAYER]
    moved_red = False
    if action == PASS:
        S[i, PASSES] += 1
        S[i, LAST_FROM] = -1
        S[i, LAST_TO] = -1
        code = PASS_CODE
    else:
        src = action // NUM_KINDS
        dest = destination(S, i, action)
        stone = S[i, BOARD + src]
        S[i, BOARD + dest] = stone
        S[i, BOARD + src] = EMPTY
        S[i, PASSES] = 0
        S[i, LAST_FROM] = src
        S[i, LAST_TO] = dest
        moved_red = stone == RED
        if dest == CENTRE and stone == player + 1:
            S[i, WINNER] = player
            S[i, END] = END_CROWN
        code = src * NUM_SQUARES + dest
    if S[i, PER_PLY]:  # Red frozen for the next ply only
        S[i, LOCK] = (1 << (1 - player)) if moved_red else 0
    else:  # Red locked for the mover's own next turn
        S[i, LOCK] = (S[i, LOCK] & ~(1 << player)) | (int(moved_red) << player)
    S[i, PLAYER] = 1 - player
    ply = S[i, PLY] + 1
    S[i, PLY] = ply
    at = log_at(S, i) + LOG_W * (ply - S[i, BASE] - 1)
    S[i, at] = code * 4 + S[i, LOCK]
    h = position_hash(S, i)
    S[i, at + 1] = h
    count = occurrences(S, i) if may_repeat(S, i, h) else 1
    S[i, REPS] = count
    if S[i, END]:
        return
    if S[i, PASSES] >= 2:
        S[i, END] = END_PASSES
    elif count >= 3:
        S[i, END] = END_REPETITION
    elif ply >= S[i, MAX_PLIES]:
        S[i, END] = END_MAX_PLIES


@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """The winner +1, the loser -1; zeros for a draw or a game that goes on."""
    out[0] = 0.0
    out[1] = 0.0
    winner = S[i, WINNER]
    if winner >= 0:
        out[winner] = 1.0
        out[1 - winner] = -1.0


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32 ``(9, 9, 10)`` flattened, layout in ``observation.py``) into row ``i``."""
    g = S[i, INNER5]
    lock = S[i, LOCK]
    consts = (
        np.float32((lock >> seat) & 1),
        np.float32((lock >> (1 - seat)) & 1),
        np.float32(1.0 if S[i, PLAYER] == seat and S[i, END] == 0 else 0.0),
        np.float32(min(S[i, REPS] - 1, 2) / 2.0),
        np.float32(min(S[i, PLY] / S[i, MAX_PLIES], 1.0)),
    )
    row = out[i]
    for sq in range(NUM_SQUARES):
        at = sq * NUM_PLANES
        cell = S[i, BOARD + sq]
        row[at + O_OWN] = CELL_PLANES[seat, cell, 0]
        row[at + O_OPP] = CELL_PLANES[seat, cell, 1]
        row[at + O_RED] = CELL_PLANES[seat, cell, 2]
        row[at + O_INNER] = STATIC_PLANES[g, sq, 0]
        row[at + O_CROWN] = STATIC_PLANES[g, sq, 1]
        row[at + O_OWN_LOCK] = consts[0]
        row[at + O_OPP_LOCK] = consts[1]
        row[at + O_TO_MOVE] = consts[2]
        row[at + O_REPS] = consts[3]
        row[at + O_PLY] = consts[4]


__doc__ = (__doc__ or "").replace("{row_table}", ROW.table())
