"""Paikō's rules as compiled kernels over a flat ``int16`` state row: the one implementation of the rules.

``PaikoState`` (``game.py``) is a view over one row (a one-row matrix); ``gameshelf.vector`` steps a matrix of
them. Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists what a
kernel module provides), is compiled by numba and also runs as plain Python. Squares are numbered row by row
(``board.SQUARES``); a tile is the code ``board.tile_code(owner, type, facing)`` (read back by ``code_owner``,
``code_type``, ``code_facing``). The row is declared once, as ``ROW`` below (fields, offsets, bounds;
``envs.core.row``):

{row_table}

Paikō has neither chance nor hidden information: ``sample_chance``, ``is_chance_outcome`` and ``chance_weights``
exist for the template and never apply. The drivers (random playouts, the batch steps) are the template's, in
``envs.core.kernel``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import TERMINAL
from gameshelf.envs.core.kernel import jit, jit_helper
from gameshelf.envs.core.row import RowLayout
from gameshelf.envs.paiko.actions import (
    DEPLOY,
    DEPLOY_FACING,
    DEPLOY_SQUARE,
    DRAFT,
    DRAW_MORE,
    FACE,
    GIFT,
    GIVE,
    MOVE_DEST,
    MOVE_FACING,
    NUM_ACTIONS,
    NUM_PHASES,
    OVER,
    PASS,
    SAI_FACING,
    SAI_SHIFT,
    SQUARE,
    START,
    STAY,
    STOP,
    TAKE,
)
from gameshelf.envs.paiko.board import (
    COPIES,
    COVER,
    FIRE,
    HAS_COVER,
    IS_BLACK,
    LOTUS,
    MAX_CODE,
    NEIGHBOURS,
    NUM_SQUARES,
    NUM_TYPES,
    POINTS,
    RANGE,
    SAI,
    SQUARES,
    THREAT,
    WATER,
    ZONE,
    code_facing,
    code_owner,
    code_shape,
    code_type,
    tile_code,
)
from gameshelf.envs.paiko.board import (
    SIZE as BOARD_SIZE,
)
from gameshelf.envs.paiko.observation import LAYOUT

NSQ, NT = NUM_SQUARES, NUM_TYPES
WORD = 32768
"""The turn counter and ``max_turns`` are kept in 15-bit words (a row holds ``int16``)."""
MAX_TURN = WORD * WORD - 1
"""The most complete turns ``TURN`` and ``TURN_HI`` count (``2**30 - 1``): the upper bound of ``max_turns``."""
MAX_TURNS_KEPT = WORD**4 - 1
"""The largest ``max_turns`` a row holds (a larger one is kept as this: no game reaches either)."""
MAX_TURNS_WORDS = 4
"""``max_turns`` is kept in this many 15-bit words, lowest first."""
END_CODES = ("", "points", "exhaustion", "passes", "max_turns")
"""``END`` values: the end reasons of ``game.END_REASONS`` (0: the game goes on)."""
E_POINTS, E_EXHAUSTION, E_PASSES, E_MAX_TURNS = 1, 2, 3, 4
WIN_POINTS = 10
DRAW_LOST, DRAW_POINTS = 13, 5
DRAFT_SCHEDULE = ((0, 7), (1, 9), (0, 1))
"""The opening draft: (seat, tiles taken from the own reserve)."""
MAX_CAPTURED = NT * COPIES
"""The most tiles one player can lose (all of them): a bound of the captures of one turn and of the lost tiles."""
MAX_THREAT = (NT - 1) * COPIES + 2 * COPIES
"""The largest T_p(s): one threat of each of p's non-Fire tiles and of every Fire (each hits a square once)."""
MAX_COVER = sum(COPIES for kind in range(NT) if HAS_COVER[kind])
"""The largest cover count: every covering tile (Sai, Lotus, Water) of one player."""
MAX_SCORE = 2 * (NT - 1) * COPIES
"""The largest score a board gives: every non-Lotus tile in the opponent's homeground (2 points each)."""
MAX_REPEAT = 3
"""A tile moved on this many consecutive own turns may not move on the next one."""

ROW = RowLayout("paiko")
BOARD = ROW.add("board", NSQ, "tile code on each square (board.tile_code), -1 when empty", (-1, MAX_CODE), fill=-1)
THR = ROW.add("thr", (2, NSQ), "T_p(s): p's non-Fire threats plus every Fire's threat on s", (0, MAX_THREAT), per_seat=True)
COV = ROW.add("cov", (2, NSQ), "p's tiles covering s (C_p: this > 0 or s in p's homeground)", (0, MAX_COVER), per_seat=True)
RESERVE = ROW.add("reserve", (2, NT), "tiles of each type in p's reserve", (0, COPIES), fill=COPIES, per_seat=True)
HAND = ROW.add("hand", (2, NT), "tiles of each type in p's hand", (0, COPIES), per_seat=True)
SCORE = ROW.add("score", 2, "each player's score", (0, MAX_SCORE))
LOST = ROW.add("lost", 2, "each player's lost tiles", (0, MAX_CAPTURED))
REP_SQ = ROW.add("rep_sq", 2, "square of the tile each player moved on his last turn (-1: none)", (-1, NSQ - 1), fill=-1)
REP_COUNT = ROW.add("rep_count", 2, "on how many consecutive own turns that tile has been moved", (0, MAX_REPEAT))
PHASE = ROW.add("phase", 1, "the sub-decision in progress (actions.PHASE_NAMES)", (0, NUM_PHASES - 1), fill=DRAFT)
MOVER = ROW.add(
    "mover",
    1,
    "whose turn it is (the captured owner decides gifts during the mover's turn)",
    (0, 1),
    fill=DRAFT_SCHEDULE[0][0],
)
DRAFT_STEP = ROW.add("draft_step", 1, "draft step (index in DRAFT_SCHEDULE, 3 once over)", (0, len(DRAFT_SCHEDULE)))
DRAFT_LEFT = ROW.add(
    "draft_left",
    1,
    "draft picks left in this step",
    (0, max(count for _, count in DRAFT_SCHEDULE)),
    fill=DRAFT_SCHEDULE[0][1],
)
PICKS = ROW.add("picks", 1, "tiles drawn so far this turn", (0, 3))
SEL_TYPE = ROW.add("sel_type", 1, "type being deployed (-1: none)", (-1, NT - 1), fill=-1)
SEL_SQ = ROW.add("sel_sq", 1, "square chosen: deploy target or tile to move (-1: none)", (-1, NSQ - 1), fill=-1)
SEL_DEST = ROW.add("sel_dest", 1, "destination chosen (-1: none)", (-1, NSQ - 1), fill=-1)
GIFTS = ROW.add(
    "gifts",
    1,
    "gifts the captured owner still owes (each: a tile from the capturer's reserve to his hand): one per tile "
    "captured this turn, at most as many as that reserve held after the captures",
    (0, MAX_CAPTURED),
)
PASSES = ROW.add("passes", 1, "passes in a row", (0, 2))
WINNER = ROW.add("winner", 1, "the winning seat (-1: none)", (-1, 1), fill=-1)
END = ROW.add("end", 1, "end reason (index in END_CODES; 0 while the game goes on)", (0, len(END_CODES) - 1))
TURN = ROW.add("turn_lo", 1, "complete turns played, low 15 bits", (0, WORD - 1))
TURN_HI = ROW.add("turn_hi", 1, "complete turns played, high 15 bits (turns: turn_lo + 32768 * turn_hi)", (0, MAX_TURN // WORD))
MAX_TURNS = ROW.add("max_turns_words", MAX_TURNS_WORDS, "the option max_turns in 15-bit words, lowest first", (0, WORD - 1))
DECISIONS = ROW.add(
    "decisions", 1, "player decisions so far, stopping at 32767 (the batched environment's truncation counter)", (0, 32767)
)
NCAPT = ROW.add("num_captured", 1, "tiles captured on the last turn that captured", (0, MAX_CAPTURED))
CAPT = ROW.add("captured", (MAX_CAPTURED, 2), "(square, tile code) of each of them, in the order removed", (0, NSQ - 1))
SIZE = ROW.size
NUM_ACTS = NUM_ACTIONS

# ---- tables (numba freezes module-level arrays as constants) -------------------------------------------------
DRAFT_SEAT = np.array([seat for seat, _ in DRAFT_SCHEDULE], dtype=np.int64)
DRAFT_COUNT = np.array([count for _, count in DRAFT_SCHEDULE], dtype=np.int64)
NUM_DRAFT_STEPS = len(DRAFT_SCHEDULE)


def _pattern_table(table: tuple) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(squares) for per_type in table for per_facing in per_type for squares in per_facing)
    out = np.full((NT, 4, NSQ, max(width, 1)), -1, dtype=np.int64)
    count = np.zeros((NT, 4, NSQ), dtype=np.int64)
    for t in range(NT):
        for f in range(4):
            for s in range(NSQ):
                squares = table[t][f][s]
                count[t, f, s] = len(squares)
                out[t, f, s, : len(squares)] = squares
    return out, count


THREAT_SQ, THREAT_N = _pattern_table(THREAT)
"""``THREAT_SQ[type, facing, square, :THREAT_N[type, facing, square]]``: the squares a tile threatens."""
COVER_SQ, COVER_N = _pattern_table(COVER)
"""The same for the squares a tile covers."""
NEIGH = np.full((NSQ, 4), -1, dtype=np.int64)
"""Orthogonal neighbours a tile may step onto (-1 pads)."""
for _s, _ns in enumerate(NEIGHBOURS):
    NEIGH[_s, : len(_ns)] = _ns
ZONE_OF = np.array(ZONE, dtype=np.int64)
BLACK = np.array(IS_BLACK, dtype=np.int64)
POINTS_AT = np.array(POINTS, dtype=np.int64)
STEPS = np.array(RANGE, dtype=np.int64)
COVERS = np.array(HAS_COVER, dtype=np.int64)
TURN_ALWAYS = np.zeros(NT, dtype=np.int64)
"""Types whose turn in place is always legal: it changes neither their cover squares nor any threat on own tiles
(Sword, Bow, Earth; Water's cover is the same at every facing)."""
TURN_ALWAYS[[1, 2, 6, 7]] = 1

# ---- observation ---------------------------------------------------------------------------------------------
CHANNELS = LAYOUT.size
OBS_SIZE = BOARD_SIZE * BOARD_SIZE * CHANNELS
O_OWN_TILES = LAYOUT.offset("own_tiles")
O_OPP_TILES = LAYOUT.offset("opp_tiles")
O_SQUARES = LAYOUT.offset("squares")
O_THREAT = LAYOUT.offset("own_threat")
O_COVER = LAYOUT.offset("own_cover")
O_RESERVE = LAYOUT.offset("own_reserve")
O_HAND = LAYOUT.offset("own_hand")
O_SCORES = LAYOUT.offset("scores")
O_LOST = LAYOUT.offset("lost")
O_REPEAT = LAYOUT.offset("repeat")
O_PHASE = LAYOUT.offset("phase")
O_SEL_TYPE = LAYOUT.offset("selected_type")
O_SELECTED = LAYOUT.offset("selected")
O_COUNTERS = LAYOUT.offset("counters")
CELL = np.array([(y * BOARD_SIZE + x) * CHANNELS for x, y in SQUARES], dtype=np.int64)
"""Flat offset of each square's channel 0."""
SPATIAL = np.zeros((2, NSQ, 4), dtype=np.float32)
"""Per observing seat and square: playable, black, own homeground, opponent's homeground."""
for _seat in range(2):
    for _sq in range(NSQ):
        SPATIAL[_seat, _sq, 0] = 0.0 if IS_BLACK[_sq] else 1.0
        SPATIAL[_seat, _sq, 1] = 1.0 if IS_BLACK[_sq] else 0.0
        if ZONE[_sq] >= 0:
            SPATIAL[_seat, _sq, 2 + (ZONE[_sq] != _seat)] = 1.0
THIRD = 1.0 / COPIES
THREAT_LEVEL = np.array([min(t, 4) for t in range(64)], dtype=np.float32) * np.float32(0.25)
"""Observation entry of a threat count (``min(T, 4) / 4``)."""
REPEAT_LEVEL = np.array([min(c, 3) / 3.0 for c in range(8)], dtype=np.float32)
"""Observation entry of a repetition count (``min(count, 3) / 3``)."""


def initial_state(max_turns: int) -> np.ndarray:
    """The row of a new game (the draft's first pick to make)."""
    s = ROW.new_row()
    kept = min(int(max_turns), MAX_TURNS_KEPT)
    ROW.put(s, "max_turns_words", [(kept >> (15 * k)) & (WORD - 1) for k in range(MAX_TURNS_WORDS)])
    return s


# ---- small reads ---------------------------------------------------------------------------------------------
@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    phase = S[i, PHASE]
    if phase == OVER:
        return TERMINAL
    if phase == GIFT:
        return 1 - int(S[i, MOVER])
    return int(S[i, MOVER])


@jit_helper
def turns(S: np.ndarray, i: int) -> int:
    """Complete turns played."""
    return int(S[i, TURN]) + WORD * int(S[i, TURN_HI])


@jit_helper
def max_turns(S: np.ndarray, i: int) -> int:
    total = 0
    for k in range(MAX_TURNS_WORDS - 1, -1, -1):
        total = total * WORD + int(S[i, MAX_TURNS + k])
    return total


@jit_helper
def covered(S: np.ndarray, i: int, p: int, sq: int) -> int:
    """C_p(sq): 1 if sq is in p's homeground or covered by one of p's tiles, else 0."""
    return 1 if S[i, COV + NSQ * p + sq] > 0 or ZONE_OF[sq] == p else 0


@jit_helper
def capturable(S: np.ndarray, i: int, sq: int) -> bool:
    """Whether the tile on sq is capturable: T_opp - C_owner >= 2 (False on an empty square)."""
    code = S[i, BOARD + sq]
    if code < 0:
        return False
    owner = code_owner(code)
    return int(S[i, THR + NSQ * (1 - owner) + sq]) - covered(S, i, owner, sq) >= 2


@jit_helper
def _fragile(S: np.ndarray, i: int, p: int, t: int) -> bool:
    """Is there a tile of p on t that one more threat would make capturable?"""
    code = S[i, BOARD + t]
    return code >= 0 and code_owner(code) == p and int(S[i, THR + NSQ * (1 - p) + t]) - covered(S, i, p, t) >= 1


# ---- placing and lifting tiles (threat and cover kept up to date) ---------------------------------------------
@jit_helper
def _mark(S: np.ndarray, i: int, sq: int, code: int, delta: int) -> None:
    owner = code_owner(code)
    kind = code_type(code)
    facing = code_facing(code)
    if kind == FIRE:
        for k in range(THREAT_N[kind, facing, sq]):
            t = THREAT_SQ[kind, facing, sq, k]
            S[i, THR + t] += delta
            S[i, THR + NSQ + t] += delta
    else:
        base = THR + NSQ * owner
        for k in range(THREAT_N[kind, facing, sq]):
            S[i, base + THREAT_SQ[kind, facing, sq, k]] += delta
    if COVERS[kind]:
        base = COV + NSQ * owner
        for k in range(COVER_N[kind, facing, sq]):
            S[i, base + COVER_SQ[kind, facing, sq, k]] += delta


@jit_helper
def place(S: np.ndarray, i: int, sq: int, code: int) -> None:
    """Put the tile ``code`` on the empty square ``sq``."""
    S[i, BOARD + sq] = code
    _mark(S, i, sq, code, 1)


@jit_helper
def lift(S: np.ndarray, i: int, sq: int) -> int:
    """Take the tile off ``sq``; returns its code."""
    code = int(S[i, BOARD + sq])
    S[i, BOARD + sq] = -1
    _mark(S, i, sq, code, -1)
    return code


# ---- legal moves ---------------------------------------------------------------------------------------------
@jit_helper
def deploy_ok(S: np.ndarray, i: int, p: int, kind: int, sq: int) -> bool:
    """May ``p`` put a ``kind`` tile on ``sq`` by the deploy rule (self-capture not checked)?"""
    if S[i, BOARD + sq] >= 0:
        return False
    opp = S[i, THR + NSQ * (1 - p) + sq]
    if kind == LOTUS:
        return opp <= 2  # type: ignore[no-any-return]
    return not BLACK[sq] and opp == 0 and (ZONE_OF[sq] == p or S[i, THR + NSQ * p + sq] >= 1)


@jit_helper
def _fire_faces(S: np.ndarray, i: int, p: int, sq: int, allowed: int) -> int:
    """The facings (bits) among ``allowed`` at which a Fire of p on ``sq`` threatens no fragile own tile but itself."""
    faces = 0
    for f in range(4):
        if not (allowed >> f) & 1:
            continue
        ok = True
        for k in range(THREAT_N[FIRE, f, sq]):
            t = THREAT_SQ[FIRE, f, sq, k]
            if t != sq and _fragile(S, i, p, t):
                ok = False
                break
        if ok:
            faces |= 1 << f
    return faces


@jit_helper
def deploy_faces(S: np.ndarray, i: int, p: int, kind: int, sq: int) -> int:
    """The legal facings (bits) of a deploy of ``kind`` by ``p`` on ``sq`` (none without such a tile in hand).

    A non-Fire tile only adds own cover and threat on the opponent: it never leaves an own tile capturable. A Fire
    does at the facings whose pattern holds an own tile one threat away from capture."""
    if S[i, HAND + NT * p + kind] == 0 or not deploy_ok(S, i, p, kind, sq):
        return 0
    if kind == FIRE:
        return _fire_faces(S, i, p, sq, 15)
    return 15


@jit_helper
def _move_faces(S: np.ndarray, i: int, p: int, kind: int, facing: int, sq: int, d: int, exposed: int) -> int:
    """The legal facings (bits) of the tile of p moved from ``sq`` to the destination ``d`` (lifted for a Fire).

    ``exposed``: bits of the cover squares of the mover (Sai, Water) holding own tiles capturable without it;
    it must cover them all again from ``d``. A Fire may not threaten a fragile own tile."""
    allowed = 15 & ~(1 << facing) if d == sq else 15
    if kind == FIRE:
        return _fire_faces(S, i, p, d, allowed)
    if not COVERS[kind] or exposed == 0:
        return allowed
    faces = 0
    for f in range(4):
        if not (allowed >> f) & 1:
            continue
        ok = True
        for k in range(COVER_N[kind, facing, sq]):
            if not (exposed >> k) & 1:
                continue
            t = COVER_SQ[kind, facing, sq, k]
            found = False
            for m in range(COVER_N[kind, f, d]):
                if COVER_SQ[kind, f, d, m] == t:
                    found = True
            if not found:
                ok = False
                break
        if ok:
            faces |= 1 << f
    return faces


ANY, MARK, FACES, REACH = 0, 1, 2, 3
"""Modes of ``_options``: is any move legal; mark the legal destinations; the facings at one destination; mark
the squares a shift reaches (no facing or self-capture test)."""


@jit_helper
def _options(S: np.ndarray, i: int, sq: int, mode: int, target: int, out: np.ndarray) -> int:
    """The moves of the tile on ``sq`` (of its owner p): a shift of 0 to range steps through empty, non-black squares
    each safe for it (T_opp + [it is Fire] - C_own < 2, computed without it on its origin), the origin only to
    turn; a Water may also be redeployed by the deploy rule (its own threat from where it stands counting).

    ``mode`` ``ANY``: 1 if a destination has a legal facing; ``MARK``: ``out[i, SQUARE + d] = 1`` for those;
    ``FACES``: the legal facings (bits) at ``target``; ``REACH``: ``out[i, d] = 1`` for every shift destination.
    """
    code = lift(S, i, sq)
    p = code_owner(code)
    kind = code_type(code)
    facing = code_facing(code)
    steps = STEPS[kind]
    exposed = 0
    if mode != REACH and COVERS[kind]:
        for k in range(COVER_N[kind, facing, sq]):
            t = COVER_SQ[kind, facing, sq, k]
            c = S[i, BOARD + t]
            if c >= 0 and code_owner(c) == p and capturable(S, i, t):
                exposed |= 1 << k
    extra = 1 if kind == FIRE else 0
    opp = THR + NSQ * (1 - p)
    result = 0
    # the shift: the origin (0 steps), then one and two steps (a square may be reached twice: no matter)
    for step in range(1 + 4 + 4 * 4):
        if step == 0:
            d = sq
        elif step <= 4:
            d = NEIGH[sq, step - 1]
            if d < 0 or S[i, BOARD + d] >= 0 or int(S[i, opp + d]) + extra - covered(S, i, p, d) >= 2:
                continue
        else:
            if steps < 2:
                break
            first = NEIGH[sq, (step - 5) // 4]
            if first < 0 or S[i, BOARD + first] >= 0 or int(S[i, opp + first]) + extra - covered(S, i, p, first) >= 2:
                continue
            d = NEIGH[first, (step - 5) % 4]
            if d < 0 or d == sq or S[i, BOARD + d] >= 0 or int(S[i, opp + d]) + extra - covered(S, i, p, d) >= 2:
                continue
        if mode == REACH:
            out[i, d] = 1
            continue
        if mode == FACES and d != target:
            continue
        faces = _move_faces(S, i, p, kind, facing, sq, d, exposed)
        if faces:
            if mode == ANY:
                result = 1
                break
            if mode == MARK:
                out[i, SQUARE + d] = 1
            else:
                result |= faces
    place(S, i, sq, code)
    if kind == WATER and mode != REACH and not (mode == ANY and result):
        for d in range(NSQ):
            if mode == FACES and d != target:
                continue
            if not deploy_ok(S, i, p, WATER, d):
                continue
            faces = _move_faces(S, i, p, kind, facing, sq, d, exposed)
            if faces:
                if mode == ANY:
                    return 1
                if mode == MARK:
                    out[i, SQUARE + d] = 1
                else:
                    result |= faces
    return result


@jit_helper
def _tile_options(S: np.ndarray, i: int, sq: int, mode: int, target: int, out: np.ndarray) -> int:
    """``_options`` for the mover's tile on ``sq`` now (nothing if it is not his, or may not move: range 0, or moved
    on the last 3 own turns, outside the Sai's shift right after its deploy)."""
    if sq < 0:
        return 0
    p = S[i, MOVER]
    code = S[i, BOARD + sq]
    if code < 0 or code_owner(code) != p or STEPS[code_type(code)] == 0:
        return 0
    phase = S[i, PHASE]
    if phase != SAI_SHIFT and phase != SAI_FACING and S[i, REP_SQ + p] == sq and S[i, REP_COUNT + p] >= MAX_REPEAT:
        return 0
    return _options(S, i, sq, mode, target, out)


@jit_helper
def _can_move(S: np.ndarray, i: int, sq: int) -> bool:
    """At a turn start: may the mover choose his tile on ``sq`` to move it?"""
    code = S[i, BOARD + sq]
    p = S[i, MOVER]
    if code < 0 or code_owner(code) != p:
        return False
    kind = code_type(code)
    if STEPS[kind] == 0 or (S[i, REP_COUNT + p] >= MAX_REPEAT and S[i, REP_SQ + p] == sq):
        return False
    return TURN_ALWAYS[kind] != 0 or _tile_options(S, i, sq, ANY, -1, S) != 0


@jit_helper
def _can_deploy(S: np.ndarray, i: int, p: int, kind: int) -> bool:
    for sq in range(NSQ):  # noqa: SIM110 (a loop: numba compiles no generator)
        if deploy_faces(S, i, p, kind, sq):
            return True
    return False


@jit_helper
def _reserve_left(S: np.ndarray, i: int, p: int) -> int:
    total = 0
    for t in range(NT):
        total += S[i, RESERVE + NT * p + t]
    return total


@jit_helper
def _start_has_other(S: np.ndarray, i: int) -> bool:
    """At a turn start: is anything but a pass legal (a draw, a deploy, a move)?"""
    p = S[i, MOVER]
    if _reserve_left(S, i, p) > 0:
        return True
    for t in range(NT):
        if S[i, HAND + NT * p + t] > 0 and _can_deploy(S, i, p, t):
            return True
    for sq in range(NSQ):  # noqa: SIM110 (a loop: numba compiles no generator)
        if _can_move(S, i, sq):
            return True
    return False


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the legal action mask (``bool``, all False at the end) into row ``i`` of ``out``."""
    bits = out.view(np.uint8)
    for a in range(NUM_ACTS):
        bits[i, a] = 0
    phase = S[i, PHASE]
    p = S[i, MOVER]
    if phase == OVER:
        return
    if phase in (DRAFT, DRAW_MORE, GIFT):
        base = GIVE if phase == GIFT else TAKE
        for t in range(NT):
            if S[i, RESERVE + NT * p + t] > 0:
                bits[i, base + t] = 1
        if phase == DRAW_MORE:
            bits[i, STOP] = 1
        return
    if phase == START:
        some = False
        for t in range(NT):
            if S[i, RESERVE + NT * p + t] > 0:
                bits[i, TAKE + t] = 1
                some = True
            if S[i, HAND + NT * p + t] > 0 and _can_deploy(S, i, p, t):
                bits[i, DEPLOY + t] = 1
                some = True
        for sq in range(NSQ):
            if _can_move(S, i, sq):
                bits[i, SQUARE + sq] = 1
                some = True
        if not some:
            bits[i, PASS] = 1
        return
    if phase == DEPLOY_SQUARE:
        kind = S[i, SEL_TYPE]
        if kind >= 0:
            for sq in range(NSQ):
                if deploy_faces(S, i, p, kind, sq):
                    bits[i, SQUARE + sq] = 1
        return
    if phase == DEPLOY_FACING:
        kind = S[i, SEL_TYPE]
        sq = S[i, SEL_SQ]
        if kind >= 0 and sq >= 0:
            faces = deploy_faces(S, i, p, kind, sq)
            for f in range(4):
                if (faces >> f) & 1:
                    bits[i, FACE + f] = 1
        return
    if phase in (SAI_SHIFT, MOVE_DEST):
        if phase == SAI_SHIFT:
            bits[i, STAY] = 1
        _tile_options(S, i, S[i, SEL_SQ], MARK, -1, bits)
        return
    # SAI_FACING, MOVE_FACING
    dest = S[i, SEL_DEST]
    if dest >= 0:
        faces = _tile_options(S, i, S[i, SEL_SQ], FACES, dest, bits)
        for f in range(4):
            if (faces >> f) & 1:
                bits[i, FACE + f] = 1


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    """Is ``action`` legal for the player to move (``False`` at the end)?"""
    phase = S[i, PHASE]
    p = S[i, MOVER]
    if phase == OVER or not 0 <= action < NUM_ACTS:
        return False
    if phase in (DRAFT, DRAW_MORE, GIFT):
        if phase == DRAW_MORE and action == STOP:
            return True
        base = GIVE if phase == GIFT else TAKE
        return base <= action < base + NT and S[i, RESERVE + NT * p + action - base] > 0
    if phase == START:
        if action < TAKE + NT:
            return S[i, RESERVE + NT * p + action - TAKE] > 0  # type: ignore[no-any-return]
        if DEPLOY <= action < DEPLOY + NT:
            kind = action - DEPLOY
            return S[i, HAND + NT * p + kind] > 0 and _can_deploy(S, i, p, kind)
        if SQUARE <= action < FACE:
            return _can_move(S, i, action - SQUARE)
        if action == PASS:
            return not _start_has_other(S, i)
        return False
    if phase == DEPLOY_SQUARE:
        kind = S[i, SEL_TYPE]
        return SQUARE <= action < FACE and kind >= 0 and deploy_faces(S, i, p, kind, action - SQUARE) != 0
    if phase == DEPLOY_FACING:
        kind = S[i, SEL_TYPE]
        sq = S[i, SEL_SQ]
        if not FACE <= action < FACE + 4 or kind < 0 or sq < 0:
            return False
        return (deploy_faces(S, i, p, kind, sq) >> (action - FACE)) & 1 != 0
    if phase in (SAI_SHIFT, MOVE_DEST):
        if action == STAY:
            return phase == SAI_SHIFT  # type: ignore[no-any-return]
        if not SQUARE <= action < FACE:
            return False
        return _tile_options(S, i, S[i, SEL_SQ], FACES, action - SQUARE, S) != 0
    dest = S[i, SEL_DEST]
    if not FACE <= action < FACE + 4 or dest < 0:
        return False
    return (_tile_options(S, i, S[i, SEL_SQ], FACES, dest, S) >> (action - FACE)) & 1 != 0


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    """Paikō has no chance node: no outcome is ever possible."""
    return False


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """Paikō has no chance node (never called: ``current_player`` is never ``CHANCE``)."""
    return 0


NUM_CHANCE = 0
"""Paikō has no chance outcome: ``chance_weights`` writes no weight."""


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Paikō has no chance node: no outcome has a weight (row ``i`` of ``out`` has ``NUM_CHANCE`` = 0 entries)."""
    for k in range(NUM_CHANCE):
        out[i, k] = 0


# ---- playing -------------------------------------------------------------------------------------------------
@jit_helper
def _reset_repeat(S: np.ndarray, i: int, p: int) -> None:
    S[i, REP_SQ + p] = -1
    S[i, REP_COUNT + p] = 0


@jit_helper
def _finish_turn(S: np.ndarray, i: int) -> None:
    """The turn is complete (gifts included): count it, then the end tests (points, lost tiles, passes, turns)."""
    p = int(S[i, MOVER])
    q = 1 - p
    if S[i, TURN] == WORD - 1:
        S[i, TURN] = 0
        S[i, TURN_HI] += 1
    else:
        S[i, TURN] += 1
    S[i, PICKS] = 0
    S[i, SEL_TYPE] = -1
    S[i, SEL_SQ] = -1
    S[i, SEL_DEST] = -1
    end = 0
    if S[i, SCORE + p] >= WIN_POINTS or S[i, SCORE + q] >= WIN_POINTS:
        S[i, WINNER] = p if S[i, SCORE + p] >= WIN_POINTS else q
        end = E_POINTS
    elif min(S[i, LOST], S[i, LOST + 1]) >= DRAW_LOST and max(S[i, SCORE], S[i, SCORE + 1]) <= DRAW_POINTS:
        end = E_EXHAUSTION
    elif S[i, PASSES] >= 2:
        end = E_PASSES
    elif turns(S, i) >= max_turns(S, i):
        end = E_MAX_TURNS
    if end:
        S[i, END] = end
        S[i, PHASE] = OVER
    else:
        S[i, MOVER] = q
        S[i, PHASE] = START


@jit_helper
def _capturable_of(S: np.ndarray, i: int, sq: int, victim: int) -> bool:
    code = S[i, BOARD + sq]
    return code >= 0 and code_owner(code) == victim and capturable(S, i, sq)


@jit_helper
def _resolve_captures(S: np.ndarray, i: int, victim: int) -> int:
    """Remove the victim's capturable tiles: non-Fire ones one by one in square order (after each one that had
    cover the capturable set is looked at again: newly capturable tiles join it), the Fire tiles last. Writes
    them to ``CAPT`` (when there are any) and returns how many."""
    n = 0
    fires_low = 0  # capturable Fire tiles, bits of squares 0..55 and 56..111
    fires_high = 0
    for sq in range(NSQ):
        if _capturable_of(S, i, sq, victim):
            if code_type(S[i, BOARD + sq]) == FIRE:
                if sq < 56:
                    fires_low |= 1 << sq
                else:
                    fires_high |= 1 << (sq - 56)
            else:
                S[i, CAPT + 2 * n] = sq
                n += 1
    head = 0
    while head < n:
        sq = S[i, CAPT + 2 * head]
        code = lift(S, i, sq)
        S[i, CAPT + 2 * head + 1] = code
        head += 1
        if COVERS[code_type(code)]:
            for s in range(NSQ):
                if not _capturable_of(S, i, s, victim):
                    continue
                if code_type(S[i, BOARD + s]) == FIRE:
                    if s < 56:
                        fires_low |= 1 << s
                    else:
                        fires_high |= 1 << (s - 56)
                    continue
                queued = False
                for k in range(n):
                    if S[i, CAPT + 2 * k] == s:
                        queued = True
                if not queued:
                    S[i, CAPT + 2 * n] = s
                    n += 1
    for sq in range(NSQ):
        if (fires_low >> sq) & 1 if sq < 56 else (fires_high >> (sq - 56)) & 1:
            S[i, CAPT + 2 * n] = sq
            S[i, CAPT + 2 * n + 1] = lift(S, i, sq)
            n += 1
    for k in range(n):
        sq = S[i, CAPT + 2 * k]
        code = S[i, CAPT + 2 * k + 1]
        if code_type(code) != LOTUS:
            S[i, SCORE + victim] -= POINTS_AT[victim, sq]
        S[i, LOST + victim] += 1
    if n:
        S[i, NCAPT] = n
    return n


@jit_helper
def _end_action(S: np.ndarray, i: int) -> None:
    """The mover's action is complete: captures, then the gifts owed (one per captured tile, as many as the
    capturer's reserve holds), then the end of the turn."""
    p = int(S[i, MOVER])
    S[i, PASSES] = 0
    S[i, SEL_TYPE] = -1
    S[i, SEL_SQ] = -1
    S[i, SEL_DEST] = -1
    captured = _resolve_captures(S, i, 1 - p)
    owed = min(captured, _reserve_left(S, i, p))
    if owed:
        S[i, GIFTS] = owed
        S[i, PHASE] = GIFT
        return
    _finish_turn(S, i)


@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """Apply a legal action (unchecked)."""
    if S[i, DECISIONS] < 32767:
        S[i, DECISIONS] += 1
    phase = S[i, PHASE]
    p = int(S[i, MOVER])
    if phase == DRAFT:
        t = action - TAKE
        S[i, RESERVE + NT * p + t] -= 1
        S[i, HAND + NT * p + t] += 1
        S[i, DRAFT_LEFT] -= 1
        if S[i, DRAFT_LEFT] == 0:
            step = S[i, DRAFT_STEP] + 1
            S[i, DRAFT_STEP] = step
            if step < NUM_DRAFT_STEPS:
                S[i, MOVER] = DRAFT_SEAT[step]
                S[i, DRAFT_LEFT] = DRAFT_COUNT[step]
            else:
                S[i, MOVER] = 0
                S[i, DRAFT_LEFT] = 0
                S[i, PHASE] = START
        return
    if phase == GIFT:
        t = action - GIVE
        S[i, RESERVE + NT * p + t] -= 1
        S[i, HAND + NT * p + t] += 1
        S[i, GIFTS] -= 1
        if S[i, GIFTS] == 0:
            _finish_turn(S, i)
        return
    if phase in (START, DRAW_MORE):
        if action == PASS:
            _reset_repeat(S, i, p)
            S[i, PASSES] += 1
            _finish_turn(S, i)
            return
        if action == STOP:
            _end_action(S, i)
            return
        if action < TAKE + NT:
            t = action - TAKE
            S[i, RESERVE + NT * p + t] -= 1
            S[i, HAND + NT * p + t] += 1
            S[i, PICKS] += 1
            if phase == START:
                _reset_repeat(S, i, p)
            if S[i, PICKS] == 3 or _reserve_left(S, i, p) == 0:
                _end_action(S, i)
            else:
                S[i, PHASE] = DRAW_MORE
            return
        if DEPLOY <= action < DEPLOY + NT:
            S[i, SEL_TYPE] = action - DEPLOY
            S[i, PHASE] = DEPLOY_SQUARE
            return
        S[i, SEL_SQ] = action - SQUARE
        S[i, PHASE] = MOVE_DEST
        return
    if phase == DEPLOY_SQUARE:
        S[i, SEL_SQ] = action - SQUARE
        S[i, PHASE] = DEPLOY_FACING
        return
    if phase == DEPLOY_FACING:
        kind = int(S[i, SEL_TYPE])
        sq = int(S[i, SEL_SQ])
        S[i, HAND + NT * p + kind] -= 1
        place(S, i, sq, tile_code(p, kind, action - FACE))
        if kind != LOTUS:
            S[i, SCORE + p] += POINTS_AT[p, sq]
        _reset_repeat(S, i, p)
        if kind == SAI:
            S[i, PHASE] = SAI_SHIFT
            S[i, SEL_TYPE] = -1
        else:
            _end_action(S, i)
        return
    if phase == SAI_SHIFT:
        if action == STAY:
            _end_action(S, i)
            return
        S[i, SEL_DEST] = action - SQUARE
        S[i, PHASE] = SAI_FACING
        return
    if phase == MOVE_DEST:
        S[i, SEL_DEST] = action - SQUARE
        S[i, PHASE] = MOVE_FACING
        return
    # SAI_FACING or MOVE_FACING: carry out the shift / redeploy
    src = int(S[i, SEL_SQ])
    dest = int(S[i, SEL_DEST])
    code = lift(S, i, src)
    kind = code_type(code)
    place(S, i, dest, tile_code(p, kind, action - FACE))
    if kind != LOTUS:
        S[i, SCORE + p] += POINTS_AT[p, dest] - POINTS_AT[p, src]
    if phase == MOVE_FACING and S[i, REP_SQ + p] == src:
        S[i, REP_COUNT + p] += 1
    else:
        S[i, REP_COUNT + p] = 1
    S[i, REP_SQ + p] = dest
    _end_action(S, i)


@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """The winner +1, the loser -1 (``rank_returns``' values); 0 each until the end and after a draw."""
    out[0] = 0.0
    out[1] = 0.0
    winner = S[i, WINNER]
    if S[i, PHASE] == OVER and winner >= 0:
        out[winner] = 1.0
        out[1 - winner] = -1.0


# ---- observation ---------------------------------------------------------------------------------------------
@jit_helper
def public_values(
    S: np.ndarray,
    i: int,
    seat: int,
    out: np.ndarray,
    reserve: int,
    hand: int,
    scores: int,
    lost: int,
    phase_at: int,
    sel_type: int,
    counters: int,
) -> None:
    """Write ``seat``'s values that are about no square into row ``i`` of ``out``, each piece at the entry given
    (own then opponent's reserve and hand, scores, lost tiles, the phase and the type being deployed one-hot, the
    counters): the one statement of these values, for both encodings (``paiko-v0`` writes them into cell (0, 0),
    ``paiko-v1`` once, after the board)."""
    opp = 1 - seat
    phase = S[i, PHASE]
    for k in range(NT):
        out[i, reserve + k] = S[i, RESERVE + NT * seat + k] * THIRD
        out[i, reserve + NT + k] = S[i, RESERVE + NT * opp + k] * THIRD
        out[i, hand + k] = S[i, HAND + NT * seat + k] * THIRD
        out[i, hand + NT + k] = S[i, HAND + NT * opp + k] * THIRD
        out[i, sel_type + k] = 0.0
    out[i, scores] = min(max(int(S[i, SCORE + seat]), 0), 10) / 10.0
    out[i, scores + 1] = min(max(int(S[i, SCORE + opp]), 0), 10) / 10.0
    out[i, lost] = S[i, LOST + seat] / 24.0
    out[i, lost + 1] = S[i, LOST + opp] / 24.0
    for k in range(NUM_PHASES):
        out[i, phase_at + k] = 0.0
    out[i, phase_at + phase] = 1.0
    if S[i, SEL_TYPE] >= 0:
        out[i, sel_type + S[i, SEL_TYPE]] = 1.0
    out[i, counters] = 1.0 if current_player(S, i) == seat else 0.0
    out[i, counters + 1] = 1.0 if S[i, MOVER] == seat and phase != NUM_PHASES - 1 else 0.0
    out[i, counters + 2] = S[i, DRAFT_LEFT] / 9.0
    out[i, counters + 3] = S[i, PICKS] / 3.0
    out[i, counters + 4] = min(int(S[i, GIFTS]), 8) / 8.0
    out[i, counters + 5] = min(turns(S, i) / max_turns(S, i), 1.0)


@jit_helper
def _whole_plane_values(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write cell (0, 0) of ``seat``'s observation (off the board: the whole-plane values, zeros elsewhere)."""
    for c in range(CHANNELS):
        out[i, c] = 0.0
    public_values(S, i, seat, out, O_RESERVE, O_HAND, O_SCORES, O_LOST, O_PHASE, O_SEL_TYPE, O_COUNTERS)


@jit_helper
def _tile_channel(code: int, seat: int) -> int:
    """The channel of tile ``code`` in ``seat``'s observation (-1: ``code`` is an empty square's)."""
    if code < 0:
        return -1
    return (O_OWN_TILES if code_owner(code) == seat else O_OPP_TILES) + code_shape(code)


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32, 14 x 14 planes of ``LAYOUT``, flat) into row ``i`` of ``out``."""
    opp = 1 - seat
    _whole_plane_values(S, i, seat, out)  # into cell (0, 0), then copied to every cell
    for cell in range(1, BOARD_SIZE * BOARD_SIZE):
        base = cell * CHANNELS
        for c in range(CHANNELS):
            out[i, base + c] = out[i, c]
    # the squares: static planes, tiles, threat and cover maps
    own_thr = THR + NSQ * seat
    opp_thr = THR + NSQ * opp
    own_cov = COV + NSQ * seat
    opp_cov = COV + NSQ * opp
    for sq in range(NSQ):
        base = CELL[sq]
        for k in range(4):
            out[i, base + O_SQUARES + k] = SPATIAL[seat, sq, k]
        code = S[i, BOARD + sq]
        if code >= 0:
            out[i, base + _tile_channel(code, seat)] = 1.0
        out[i, base + O_THREAT] = THREAT_LEVEL[S[i, own_thr + sq]]
        out[i, base + O_THREAT + 1] = THREAT_LEVEL[S[i, opp_thr + sq]]
        zone = ZONE_OF[sq]
        out[i, base + O_COVER] = 1.0 if S[i, own_cov + sq] > 0 or zone == seat else 0.0
        out[i, base + O_COVER + 1] = 1.0 if S[i, opp_cov + sq] > 0 or zone == opp else 0.0
    _marks(S, i, 0, seat, out, 1.0)


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


WHOLE_PLANE_PIECES = (
    "own_reserve",
    "opp_reserve",
    "own_hand",
    "opp_hand",
    "scores",
    "lost",
    "phase",
    "selected_type",
    "counters",
)
"""The observation's pieces that hold one value on every cell (the others are zero off the board)."""
WHOLE_PLANE = np.array([c for name in WHOLE_PLANE_PIECES for c in range(LAYOUT[name].start, LAYOUT[name].stop)], dtype=np.int64)
"""Their channels."""
MOST_CHANGED = 8
"""``observation_update`` writes the whole observation again when more whole-plane channels than this change."""
OBS_MEMO = 1 + SIZE + MOST_CHANGED + 1
"""``observation_update``'s record per row: the seat of the observation in the buffer (-1: none), the state row
it was written from, then room for the list of the whole-plane channels that change."""
CHANGED = 1 + SIZE
"""Where that list starts in a memo row."""


@jit
def observation_update(S: np.ndarray, i: int, seat: int, out: np.ndarray, memo: np.ndarray) -> None:
    """What ``observation`` writes, given that ``out[i]`` holds what it wrote from the seat and row recorded in
    ``memo[i]`` (``OPTIONAL_INTERFACE`` of ``envs.core.kernel``).

    For the same seat, only what changed is written: the whole-plane channels whose value changed, on every
    cell; on each square, the tile, threat and cover entries that changed; the repeat and selection marks
    cleared where they were and set where they are. The whole observation is written again where that would
    not be cheaper: for another seat (every own/opponent pair swaps) or more than ``MOST_CHANGED`` whole-plane
    channels changed (their scattered writes cost more than the contiguous rewrite)."""
    top = (BOARD_SIZE * BOARD_SIZE - 1) * CHANNELS  # the last cell: it holds the whole-plane values written
    changed = 0
    if memo[i, 0] == seat:
        _whole_plane_values(S, i, seat, out)
        for c in WHOLE_PLANE:
            if out[i, c] != out[i, top + c]:
                memo[i, CHANGED + min(changed, MOST_CHANGED)] = c
                changed += 1
    if memo[i, 0] != seat or changed > MOST_CHANGED:  # nothing written yet (-1), another seat, or much changed
        observation(S, i, seat, out)
    else:
        if changed:
            for base in range(CHANNELS, top + 1, CHANNELS):  # cell by cell: each cache line is visited once
                for k in range(changed):
                    c = memo[i, CHANGED + k]
                    out[i, base + c] = out[i, c]
        _marks(memo, i, 1, seat, out, 0.0)
        opp = 1 - seat
        for sq in range(NSQ):
            base = CELL[sq]
            old = _tile_channel(memo[i, 1 + BOARD + sq], seat)
            new = _tile_channel(S[i, BOARD + sq], seat)
            if old != new:
                if old >= 0:
                    out[i, base + old] = 0.0
                if new >= 0:
                    out[i, base + new] = 1.0
            for k in range(2):
                p = seat if k == 0 else opp
                threat = S[i, THR + NSQ * p + sq]
                if threat != memo[i, 1 + THR + NSQ * p + sq]:
                    out[i, base + O_THREAT + k] = THREAT_LEVEL[threat]
                cover = S[i, COV + NSQ * p + sq]
                if cover != memo[i, 1 + COV + NSQ * p + sq]:
                    out[i, base + O_COVER + k] = 1.0 if cover > 0 or ZONE_OF[sq] == p else 0.0
        _marks(S, i, 0, seat, out, 1.0)
    memo[i, 0] = seat
    for k in range(SIZE):
        memo[i, 1 + k] = S[i, k]


# ---- for the Python State's helpers ----------------------------------------------------------------------------
@jit
def shift_squares(S: np.ndarray, i: int, sq: int, out: np.ndarray) -> None:
    """``out[i, d] = 1`` for every square the tile on ``sq`` reaches by a shift (its origin included)."""
    if S[i, BOARD + sq] >= 0 and STEPS[code_type(S[i, BOARD + sq])] > 0:
        _options(S, i, sq, REACH, -1, out)


@jit
def place_tile(S: np.ndarray, i: int, sq: int, code: int) -> None:
    """``place`` for Python callers."""
    place(S, i, sq, code)


@jit
def lift_tile(S: np.ndarray, i: int, sq: int) -> int:
    """``lift`` for Python callers."""
    return lift(S, i, sq)


@jit
def is_capturable(S: np.ndarray, i: int, sq: int) -> bool:
    """``capturable`` for Python callers."""
    return capturable(S, i, sq)


@jit
def may_deploy(S: np.ndarray, i: int, p: int, kind: int, sq: int) -> bool:
    """``deploy_ok`` for Python callers."""
    return deploy_ok(S, i, p, kind, sq)


__doc__ = (__doc__ or "").replace("{row_table}", ROW.table())
