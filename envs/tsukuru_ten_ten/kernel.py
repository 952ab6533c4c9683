"""Tsukuru 10 Ten's rules as compiled kernels over a flat ``int16`` state row: the one implementation of the rules.

``TsukuruTenTenState`` (``game.py``) wraps one row (a one-row matrix); ``gameshelf.vector`` steps a matrix
of them. Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists what
a kernel module provides), is compiled by numba and also runs as plain Python. Tile kinds are 0..18
(``tiles.py``); an open set is stored as the index of its shape in ``tiles.SET_SHAPES`` (kinds, colour and
value in one number). The row is declared once, as ``ROW`` below (fields, offsets, bounds; ``envs.core.row``;
per-seat blocks padded to 4 seats):

{row_table}

The ``LAST_`` entries record the end of the previous round, so the text line about it (``game.py``) is a
function of the row alone: a State, a batch's row view and a position give the same line. The drivers (chance
resolution, random playouts, the batch steps) are the template's, in ``envs.core.kernel``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import below, jit, jit_helper, rank_outcomes
from gameshelf.envs.core.row import RowLayout
from gameshelf.envs.tsukuru_ten_ten import actions as act
from gameshelf.envs.tsukuru_ten_ten.actions import (
    DEAL,
    DISCARDING,
    DRAWING,
    FIRST_DEALER,
    MAX_PLAYERS,
    OVER,
    PICK_COLOUR,
    TURN,
)
from gameshelf.envs.tsukuru_ten_ten.hand import BASE_DEALER, BASE_OTHER, HAND_SIZE, HAND_TILES, MAX_SETS
from gameshelf.envs.tsukuru_ten_ten.hand import TARGET as HAND_TARGET
from gameshelf.envs.tsukuru_ten_ten.observation import LAYOUT, MAX_DECK, PILE_SLOTS
from gameshelf.envs.tsukuru_ten_ten.tiles import (
    BLUE,
    COLOUR,
    COPIES,
    MAX_COPIES,
    NUM_KINDS,
    NUM_TILES,
    PAIRS_WITH,
    PURPLE,
    PURPLE_KINDS,
    RED,
    SET_SHAPES,
    VALUE,
    shapes_of,
)

BASIC_TARGET = 4
ADVANCED_TARGET = 25

P, KN = MAX_PLAYERS, NUM_KINDS
PILE_CAP = NUM_TILES
NUM_VALUES = 9
MAX_DECISIONS = 32767
COUNT_MAX = 32767
"""The bound of a count the rules leave open (finished rounds, rounds dealt: rounds ending on an empty deck
score nothing, so a points game has no last round)."""
NO_ROUND, RAN_OUT, FINISHED_DRAW, FINISHED_DISCARD = 0, 1, 2, 3
"""Values of ``LAST_END``: how the previous round ended."""
NUM_SHAPES = len(SET_SHAPES)
MAX_WIN = BASE_DEALER + sum((1, 1, 1, 1, 1, 1, 2, 3, 2, 3, 25, 10))
"""A bound on the points of one win: the dealer's base and every bonus at once (Closed, No Ones, Half Color,
Seven, Straight, Two Blues; Under Five, Single Color red, Eight, Heaven, God Ten, Double Four)."""
MAX_TURNS = NUM_TILES + P * MAX_SETS + 1
"""A bound on the turns a seat starts in a round: each but its first follows a discard of the previous seat, and
a round's discards are at most its dealt and drawn tiles plus the discards taken back (two gets per seat)."""

ROW = RowLayout("tsukuru_ten_ten")
NP = ROW.add("num_players", 1, "number of players (an option)", (2, P), fill=2)
ADVANCED = ROW.flag("advanced", "advanced scoring (option scoring)")
PREVIOUS_ONLY = ROW.flag("previous_only", "claim from the previous player only (option claim_from)")
DEALER_TWICE = ROW.flag("dealer_twice", "the game also ends once every player has dealt twice (option game_end)")
TARGET = ROW.add("target", 1, "points to win: 4 (basic) or 25 (advanced)", (BASIC_TARGET, ADVANCED_TARGET), fill=BASIC_TARGET)
PHASE = ROW.add(
    "phase", 1, "FIRST_DEALER, DEAL, TURN, DRAWING, DISCARDING, PICK_COLOUR or OVER", (FIRST_DEALER, OVER), fill=FIRST_DEALER
)
DEALER = ROW.add("dealer", 1, "the round's dealer (-1 before the first)", (-1, P - 1), fill=-1)
TURN_SEAT = ROW.add("turn", 1, "the seat to act or drawing (-1: none)", (-1, P - 1), fill=-1)
DRAWN = ROW.add("drawn", 1, "the tile the player to act drew this turn (-1 if he did not draw)", (-1, KN - 1), fill=-1)
DEALT = ROW.add("dealt", 1, "tiles dealt this round", (0, HAND_SIZE * P))
ROUNDS = ROW.add("rounds_played", 1, "finished rounds", (0, COUNT_MAX))
DECK_SIZE = ROW.add("deck_size", 1, "tiles left in the deck", (0, NUM_TILES), fill=NUM_TILES)
PENDING = ROW.add(
    "pending",
    1,
    "all-purple set whose colour is being chosen: its blue shape (the red one follows), -1: none",
    (-1, NUM_SHAPES - 1),
    fill=-1,
)
DECISIONS = ROW.add(
    "decisions", 1, "player decisions so far (the batched environment's truncation counter; stops at 32767)", (0, MAX_DECISIONS)
)
SCORES = ROW.add("scores", P, "points of each seat", (0, ADVANCED_TARGET - 1 + MAX_WIN), per_seat=True)
DEALER_COUNTS = ROW.add(
    "dealer_counts", P, "rounds each seat has dealt (the current one included)", (0, COUNT_MAX), per_seat=True
)
TURNS = ROW.add("turns_taken", P, "turns each seat has started this round", (0, MAX_TURNS), per_seat=True)
CLAIMABLE = ROW.add("claimable", P, "is the top of each seat's pile the tile it discarded on its last turn", (0, 1))
NUM_OPEN = ROW.add("num_open", P, "open sets of each seat", (0, MAX_SETS))
OPEN_VALUE = ROW.add("open_value", P, "total value of each seat's open sets", (0, MAX_SETS * max(s.value for s in SET_SHAPES)))
OPEN = ROW.add(
    "open_shapes",
    (P, MAX_SETS),
    "shapes of seat s's open sets (index in SET_SHAPES, -1: none)",
    (-1, NUM_SHAPES - 1),
    fill=-1,
    per_seat=True,
)
DECK = ROW.add("deck", KN, "undrawn tiles of each kind", (0, MAX_COPIES))
HANDS = ROW.add("hands", (P, KN), "concealed tiles of seat s, as kind counts", (0, MAX_COPIES), per_seat=True)
PILE_LEN = ROW.add("pile_len", P, "tiles in each seat's discard pile", (0, PILE_CAP))
PILES = ROW.add("piles", (P, PILE_CAP), "seat s's discard pile, bottom to top (kinds)", (0, KN - 1), per_seat=True)
LAST_END = ROW.add(
    "last_end",
    1,
    "how the previous round ended: NO_ROUND (none yet), RAN_OUT, FINISHED_DRAW, FINISHED_DISCARD",
    (NO_ROUND, FINISHED_DISCARD),
)
LAST_ROUND = ROW.add("last_round_number", 1, "the previous round's number (from 1)", (0, COUNT_MAX))
LAST_SEAT = ROW.add("last_seat", 1, "the seat that ended the previous round (-1: none)", (-1, P - 1), fill=-1)
LAST_TILE = ROW.add("last_tile", 1, "the tile finished with, drawn or taken (-1: none)", (-1, KN - 1), fill=-1)
LAST_OWNER = ROW.add("last_owner", 1, "whose discard that tile was (-1: none or drawn)", (-1, P - 1), fill=-1)
LAST_DEALER = ROW.add("last_dealer", 1, "the previous round's dealer (-1: none)", (-1, P - 1), fill=-1)
LAST_HEAVEN = ROW.flag("last_heaven", "the finish was on the finisher's first turn, after a draw")
LAST_OPEN = ROW.add("last_open", MAX_SETS, "the finisher's open sets (shapes, -1: none)", (-1, NUM_SHAPES - 1), fill=-1)
LAST_HAND = ROW.add("last_hand", KN, "the finisher's concealed tiles (kind counts)", (0, MAX_COPIES))
SCRATCH = ROW.add(
    "scratch",
    (2, NUM_VALUES),
    "working space of the hand scoring (tiles per colour and value), meaningless between calls",
    (0, HAND_TILES),
)
SIZE = ROW.size
NUM_ACTS = act.NUM_ACTIONS

# ---- tables (frozen as constants by numba) -------------------------------------------------------
VALUE_A = np.array(VALUE, dtype=np.int64)
COLOUR_A = np.array(COLOUR, dtype=np.int64)
COPIES_A = np.array(COPIES, dtype=np.int64)
INV_COPIES = np.array([1.0 / c for c in COPIES], dtype=np.float32)
SHAPE_INDEX = {(s.kinds, s.colour): j for j, s in enumerate(SET_SHAPES)}
"""(sorted kinds, colour) -> shape index (the value stored for an open set)."""
SH_KINDS = np.array([s.kinds for s in SET_SHAPES], dtype=np.int64)
SH_COLOUR = np.array([s.colour for s in SET_SHAPES], dtype=np.int64)
SH_VALUE = np.array([s.value for s in SET_SHAPES], dtype=np.int64)
SH_DELTA = np.array([s.value - s.face for s in SET_SHAPES], dtype=np.int64)
SH_NEED_N = np.array([len(s.need) for s in SET_SHAPES], dtype=np.int64)
SH_NEED_K = np.zeros((NUM_SHAPES, 3), dtype=np.int64)
SH_NEED_C = np.zeros((NUM_SHAPES, 3), dtype=np.int64)
for _j, _s in enumerate(SET_SHAPES):
    for _t, (_k, _c) in enumerate(_s.need):
        SH_NEED_K[_j, _t], SH_NEED_C[_j, _t] = _k, _c
_BY_FIRST = [[j for j, s in enumerate(SET_SHAPES) if s.kinds[0] == k] for k in range(KN)]
BY_FIRST_N = np.array([len(b) for b in _BY_FIRST], dtype=np.int64)
BY_FIRST = np.full((KN, max(BY_FIRST_N)), -1, dtype=np.int64)
for _k, _b in enumerate(_BY_FIRST):
    BY_FIRST[_k, : len(_b)] = _b
_MAX_CUT = int(-SH_DELTA.min())
_BY_CUT = [[j for j in range(NUM_SHAPES) if -SH_DELTA[j] == cut] for cut in range(_MAX_CUT + 1)]
BY_CUT_N = np.array([len(b) for b in _BY_CUT], dtype=np.int64)
BY_CUT = np.full((_MAX_CUT + 1, max(BY_CUT_N)), -1, dtype=np.int64)
"""The shapes by how much they lower a hand's value (``-(value - face)``)."""
for _c, _b in enumerate(_BY_CUT):
    BY_CUT[_c, : len(_b)] = _b
PW_N = np.array([len(p) for p in PAIRS_WITH], dtype=np.int64)
PW_A = np.zeros((KN, max(PW_N)), dtype=np.int64)
PW_B = np.zeros((KN, max(PW_N)), dtype=np.int64)
PW_P = np.zeros((KN, max(PW_N)), dtype=np.int64)
for _k, _pairs in enumerate(PAIRS_WITH):
    for _t, (_a, _b2) in enumerate(_pairs):
        PW_A[_k, _t], PW_B[_k, _t], PW_P[_k, _t] = _a, _b2, act.PAIR_INDEX[(_a, _b2)]
PAIR_A = np.array([a for a, _ in act.PAIRS], dtype=np.int64)
PAIR_B = np.array([b for _, b in act.PAIRS], dtype=np.int64)
GET_SHAPE = np.full((KN, act.NUM_PAIRS), -1, dtype=np.int64)
"""(discard taken, pair) -> the first shape of the three tiles (-1: no set)."""
GET_SHAPES_N = np.zeros((KN, act.NUM_PAIRS), dtype=np.int64)
"""(discard taken, pair) -> how many shapes the three tiles form (2: an all-purple run, colour chosen next)."""
for _k in range(KN):
    for _p, (_a, _b2) in enumerate(act.PAIRS):
        _found = shapes_of((_k, _a, _b2))
        if _found:
            GET_SHAPE[_k, _p] = SHAPE_INDEX[(_found[0].kinds, _found[0].colour)]
            GET_SHAPES_N[_k, _p] = len(_found)
            assert len(_found) == 1 or (_found[0].colour == BLUE and _found[1].colour == RED)
FIRST_PURPLE = PURPLE_KINDS[0]
PURPLE_8 = PURPLE_KINDS[-1]

O_HAND = LAYOUT.offset("hand")
O_DRAWN = LAYOUT.offset("drawn")
O_SETS = LAYOUT.offset("open_sets")
O_COUNTS = LAYOUT.offset("discard_counts")
O_ORDER = LAYOUT.offset("discard_order")
O_CLAIM = LAYOUT.offset("claimable")
O_CONCEALED = LAYOUT.offset("concealed")
O_DECK = LAYOUT.offset("deck")
O_UNSEEN = LAYOUT.offset("unseen")
O_SCORES = LAYOUT.offset("scores")
O_DEALER = LAYOUT.offset("dealer")
O_CURRENT = LAYOUT.offset("current")
O_PHASE = LAYOUT.offset("phase")
O_TURNS = LAYOUT.offset("turns")
O_DEALT_ROUNDS = LAYOUT.offset("dealt_rounds")
O_PLAYERS = LAYOUT.offset("players")
O_OPTIONS = LAYOUT.offset("options")
OBS_SIZE = LAYOUT.size
SET_WIDTH = KN + 2
SEAT_SETS = MAX_SETS * SET_WIDTH
ORDER_SIZE = PILE_SLOTS * KN
THIRD = np.float32(1.0 / 3.0)
MAX_DECK_F = float(MAX_DECK)


def initial_state(num_players: int, scoring: str, claim_from: str, game_end: str) -> np.ndarray:
    """The state row before the first chance node (built once per game; a new game copies it)."""
    s = ROW.new_row()
    ROW.put(s, "num_players", num_players)
    ROW.put(s, "advanced", int(scoring == "advanced"))
    ROW.put(s, "previous_only", int(claim_from == "previous_player"))
    ROW.put(s, "dealer_twice", int(game_end == "dealer_twice"))
    ROW.put(s, "target", ADVANCED_TARGET if scoring == "advanced" else BASIC_TARGET)
    ROW.put(s, "deck", COPIES)
    return s


@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    phase = S[i, PHASE]
    if phase in (TURN, DISCARDING, PICK_COLOUR):
        return S[i, TURN_SEAT]  # type: ignore[no-any-return]
    if phase == OVER:
        return TERMINAL
    return CHANCE


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    """Is ``outcome`` possible at this chance node (a seat for the first dealer, else a kind left in the deck)?"""
    phase = S[i, PHASE]
    if phase == FIRST_DEALER:
        return 0 <= outcome < S[i, NP]  # type: ignore[no-any-return]
    if phase in (DEAL, DRAWING):
        return 0 <= outcome < KN and S[i, DECK + outcome] > 0  # type: ignore[no-any-return]
    return False


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """The chance outcome with generator ``i`` of ``rngs``: a uniform seat, or a kind by its copies in the deck."""
    if S[i, PHASE] == FIRST_DEALER:
        return below(rngs, i, S[i, NP])  # type: ignore[no-any-return]
    u = below(rngs, i, S[i, DECK_SIZE])
    for k in range(KN):
        c = S[i, DECK + k]
        if u < c:
            return k
        u -= c
    return KN - 1


NUM_CHANCE = max(P, KN)
"""Chance outcome ids are below this (``chance_weights`` writes that many weights)."""


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the odds of the chance node into row ``i`` of ``out`` as integer weights per outcome id: each seat
    alike for the first dealer, then each tile kind by its copies left in the deck."""
    for k in range(NUM_CHANCE):
        out[i, k] = 0
    phase = S[i, PHASE]
    if phase == FIRST_DEALER:
        for seat in range(S[i, NP]):
            out[i, seat] = 1
    elif phase in (DEAL, DRAWING):
        for k in range(KN):
            out[i, k] = S[i, DECK + k]


# ---- hand evaluation ---------------------------------------------------------------------------
@jit_helper
def _fits(S: np.ndarray, i: int, h: int, shape: int) -> bool:
    """Do the concealed tiles at ``h`` hold the tiles of ``shape``?"""
    for t in range(SH_NEED_N[shape]):  # noqa: SIM110 (a plain loop compiles to the simplest code)
        if S[i, h + SH_NEED_K[shape, t]] < SH_NEED_C[shape, t]:
            return False
    return True


@jit_helper
def _take(S: np.ndarray, i: int, h: int, shape: int, sign: int) -> None:
    """Remove (``sign`` -1) or put back (+1) the tiles of ``shape`` in the concealed tiles at ``h``."""
    for t in range(3):
        S[i, h + SH_KINDS[shape, t]] += sign


@jit_helper
def _face(S: np.ndarray, i: int, h: int) -> int:
    total = 0
    for k in range(KN):
        total += S[i, h + k] * VALUE_A[k]
    return total


@jit_helper
def _wins_now(S: np.ndarray, i: int, seat: int) -> bool:
    """Is ``seat``'s hand (8 tiles) worth exactly 10 in some configuration (``hand.is_winning``)?"""
    h = HANDS + KN * seat
    num_open = S[i, NUM_OPEN + seat]
    need = HAND_TARGET - S[i, OPEN_VALUE + seat] - _face(S, i, h)
    if need == 0:
        return True
    if num_open >= MAX_SETS or need > 0:  # a set never raises the value
        return False
    for k in range(KN):
        if S[i, h + k] == 0:
            continue
        for j in range(BY_FIRST_N[k]):
            a = BY_FIRST[k, j]
            if not _fits(S, i, h, a):
                continue
            if SH_DELTA[a] == need:
                return True
            want = need - SH_DELTA[a]
            if num_open == MAX_SETS - 1 or want >= 0:
                continue
            cut = -want
            if cut > _MAX_CUT:
                continue
            _take(S, i, h, a, -1)
            found = False
            for j2 in range(BY_CUT_N[cut]):
                if _fits(S, i, h, BY_CUT[cut, j2]):
                    found = True
                    break
            _take(S, i, h, a, 1)
            if found:
                return True
    return False


@jit_helper
def _wins_with(S: np.ndarray, i: int, seat: int, extra: int) -> bool:
    """``_wins_now`` with one more tile of kind ``extra`` in the hand (-1: none)."""
    if extra < 0:
        return _wins_now(S, i, seat)
    S[i, HANDS + KN * seat + extra] += 1
    result = _wins_now(S, i, seat)
    S[i, HANDS + KN * seat + extra] -= 1
    return result


@jit_helper
def _add_shape(S: np.ndarray, i: int, shape: int, sign: int) -> None:
    """Count the tiles of ``shape`` (in the shape's colour) in the scratch grid."""
    base = SCRATCH + NUM_VALUES * SH_COLOUR[shape]
    for t in range(3):
        S[i, base + VALUE_A[SH_KINDS[shape, t]]] += sign


@jit_helper
def _grid_points(S: np.ndarray, i: int, closed: bool, has_eight: bool, heaven: bool) -> int:
    """The bonuses of the eight coloured tiles in the scratch grid (``hand.bonuses``), summed."""
    g = SCRATCH
    blues = 0
    reds = 0
    values = 0
    has_one = False
    has_seven = False
    top = 0
    t4 = 0
    t3 = 0
    three_a = -1
    three_b = -1
    for v in range(NUM_VALUES):
        b = S[i, g + v]
        r = S[i, g + NUM_VALUES + v]
        blues += b
        reds += r
        if b + r > 0:
            values += 1
            top = v
            if v == 1:
                has_one = True
            if v == 7:
                has_seven = True
        for c in (b, r):
            if c >= 4:
                t4 += 1
            elif c == 3:
                t3 += 1
                if three_a < 0:
                    three_a = v
                else:
                    three_b = v
    points = 0
    if closed:
        points += 1
    if not has_one:
        points += 1
    if blues == 4 and reds == 4:
        points += 1
    if has_seven:
        points += 1
    straight = False
    for colour in range(2):
        for low in range(5):
            run = True
            for step in range(5):
                if S[i, g + NUM_VALUES * colour + low + step] == 0:
                    run = False
                    break
            if run:
                straight = True
    if straight:
        points += 1
    if blues == 2:
        points += 1
    if top <= 4:
        points += 2
    if reds == 0:
        points += 2
    elif blues == 0:
        points += 3
    if has_eight:
        points += 2
    if heaven:
        points += 3
    if values == 1:
        points += 25
    if t4 >= 2:
        points += 10
    elif t4 == 1 and t3 >= 1:
        points += 5
    elif t3 >= 2:
        points += 4 if three_a == three_b else 3
    elif t4 == 1:
        points += 2
    elif t3 == 1:
        points += 1
    return points


@jit_helper
def _config_points(S: np.ndarray, i: int, seat: int, a: int, b: int, heaven: bool) -> int:
    """Best advanced points of ``seat``'s hand with concealed sets ``a`` and ``b`` (-1: none) chosen, over
    the colours of its free purples (``hand.score_win``)."""
    h = HANDS + KN * seat
    for k in range(2 * NUM_VALUES):
        S[i, SCRATCH + k] = 0
    has_eight = S[i, h + PURPLE_8] > 0
    num_open = S[i, NUM_OPEN + seat]
    for j in range(num_open):
        shape = S[i, OPEN + MAX_SETS * seat + j]
        _add_shape(S, i, shape, 1)
        for t in range(3):
            if SH_KINDS[shape, t] == PURPLE_8:
                has_eight = True
    if a >= 0:
        _add_shape(S, i, a, 1)
        _take(S, i, h, a, -1)
    if b >= 0:
        _add_shape(S, i, b, 1)
        _take(S, i, h, b, -1)
    purples = 0  # a bit per free purple kind
    for k in range(KN):
        c = S[i, h + k]
        if c == 0:
            continue
        if COLOUR_A[k] == PURPLE:
            purples |= 1 << (k - FIRST_PURPLE)
        else:
            S[i, SCRATCH + NUM_VALUES * COLOUR_A[k] + VALUE_A[k]] += c
    if b >= 0:
        _take(S, i, h, b, 1)
    if a >= 0:
        _take(S, i, h, a, 1)
    base = BASE_DEALER if seat == S[i, DEALER] else BASE_OTHER
    best = -1
    for colouring in range(16):
        if colouring & purples != colouring:
            continue  # only the free purples get a colour: red where the bit is set
        for q in range(4):
            if purples >> q & 1:
                S[i, SCRATCH + NUM_VALUES * (colouring >> q & 1) + VALUE_A[FIRST_PURPLE + q]] += 1
        points = base + _grid_points(S, i, num_open == 0, has_eight, heaven)
        if points > best:
            best = points
        for q in range(4):
            if purples >> q & 1:
                S[i, SCRATCH + NUM_VALUES * (colouring >> q & 1) + VALUE_A[FIRST_PURPLE + q]] -= 1
    return best


@jit_helper
def _win_points(S: np.ndarray, i: int, seat: int, heaven: bool) -> int:
    """Points of ``seat``'s winning hand: 1 (basic), or the best base + bonuses over its value-10 configurations."""
    if not S[i, ADVANCED]:
        return 1
    h = HANDS + KN * seat
    max_sets = MAX_SETS - S[i, NUM_OPEN + seat]
    need = HAND_TARGET - S[i, OPEN_VALUE + seat] - _face(S, i, h)
    best = -1
    if need == 0:
        best = max(best, _config_points(S, i, seat, -1, -1, heaven))
    if max_sets >= 1:
        for a in range(NUM_SHAPES):
            if not _fits(S, i, h, a):
                continue
            if SH_DELTA[a] == need:
                best = max(best, _config_points(S, i, seat, a, -1, heaven))
            if max_sets >= 2:
                _take(S, i, h, a, -1)
                for b in range(a, NUM_SHAPES):
                    if SH_DELTA[a] + SH_DELTA[b] == need and _fits(S, i, h, b):
                        _take(S, i, h, a, 1)
                        best = max(best, _config_points(S, i, seat, a, b, heaven))
                        _take(S, i, h, a, -1)
                _take(S, i, h, a, 1)
    return best


# ---- legality ------------------------------------------------------------------------------------
@jit_helper
def _claim_owner(S: np.ndarray, i: int, offset: int) -> int:
    """The seat whose top discard the player to act may take as opponent ``offset`` (-1: not claimable)."""
    n = S[i, NP]
    if offset < 1 or offset >= n:
        return -1
    if S[i, PREVIOUS_ONLY] and offset != n - 1:
        return -1
    owner = (S[i, TURN_SEAT] + offset) % n
    if not S[i, CLAIMABLE + owner]:
        return -1
    return owner  # type: ignore[no-any-return]


@jit_helper
def _top(S: np.ndarray, i: int, owner: int) -> int:
    return S[i, PILES + PILE_CAP * owner + S[i, PILE_LEN + owner] - 1]  # type: ignore[no-any-return]


@jit_helper
def _has_pair(S: np.ndarray, i: int, h: int, a: int, b: int) -> bool:
    if a == b:
        return S[i, h + a] >= 2  # type: ignore[no-any-return]
    return S[i, h + a] > 0 and S[i, h + b] > 0  # type: ignore[no-any-return]


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the legal action mask (all False at chance and terminal nodes) into row ``i`` of ``out``."""
    bits = out.view(np.uint8)  # numba writes bools one by one
    for a in range(NUM_ACTS):
        bits[i, a] = 0
    phase = S[i, PHASE]
    seat = S[i, TURN_SEAT]
    if phase == TURN:
        h = HANDS + KN * seat
        bits[i, act.DRAW if S[i, DECK_SIZE] > 0 else act.END_ROUND] = 1
        for o in range(1, S[i, NP]):
            owner = _claim_owner(S, i, o)
            if owner < 0:
                continue
            tile = _top(S, i, owner)
            if _wins_with(S, i, seat, tile):
                bits[i, act.FINISH_FROM + o - 1] = 1
            base = act.GET + (o - 1) * act.NUM_PAIRS
            for t in range(PW_N[tile]):
                if _has_pair(S, i, h, PW_A[tile, t], PW_B[tile, t]):
                    bits[i, base + PW_P[tile, t]] = 1
    elif phase == DISCARDING:
        h = HANDS + KN * seat
        for k in range(KN):
            if S[i, h + k] > 0:
                bits[i, act.DISCARD + k] = 1
        if S[i, DRAWN] >= 0 and _wins_now(S, i, seat):
            bits[i, act.FINISH] = 1
    elif phase == PICK_COLOUR:
        bits[i, act.COLOUR] = 1
        bits[i, act.COLOUR + 1] = 1


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    """Is ``action`` legal for the player to move (``False`` at chance and terminal nodes)?"""
    if not 0 <= action < NUM_ACTS:
        return False
    phase = S[i, PHASE]
    seat = S[i, TURN_SEAT]
    if phase == DISCARDING:
        if action == act.FINISH:
            return S[i, DRAWN] >= 0 and _wins_now(S, i, seat)  # type: ignore[no-any-return]
        return act.DISCARD <= action < act.COLOUR and S[i, HANDS + KN * seat + action - act.DISCARD] > 0  # type: ignore[no-any-return]
    if phase == PICK_COLOUR:
        return act.COLOUR <= action < act.GET
    if phase != TURN:
        return False
    if action == act.DRAW:
        return S[i, DECK_SIZE] > 0  # type: ignore[no-any-return]
    if action == act.END_ROUND:
        return S[i, DECK_SIZE] == 0  # type: ignore[no-any-return]
    if act.FINISH_FROM <= action < act.DISCARD:
        owner = _claim_owner(S, i, action - act.FINISH_FROM + 1)
        return owner >= 0 and _wins_with(S, i, seat, _top(S, i, owner))
    if action >= act.GET:
        offset = (action - act.GET) // act.NUM_PAIRS + 1
        p = (action - act.GET) % act.NUM_PAIRS
        owner = _claim_owner(S, i, offset)
        if owner < 0:
            return False
        shape = GET_SHAPE[_top(S, i, owner), p]
        if shape < 0:
            return False
        a, b = PAIR_A[p], PAIR_B[p]
        return _has_pair(S, i, HANDS + KN * seat, a, b)
    return False


# ---- applying ------------------------------------------------------------------------------------
@jit_helper
def _start_round(S: np.ndarray, i: int) -> None:
    """A new round dealt by ``DEALER``: every round field reset, the deal next."""
    S[i, PENDING] = -1
    S[i, DRAWN] = -1
    S[i, DEALT] = 0
    S[i, DECK_SIZE] = NUM_TILES
    for s in range(P):
        S[i, TURNS + s] = 0
        S[i, CLAIMABLE + s] = 0
        S[i, NUM_OPEN + s] = 0
        S[i, OPEN_VALUE + s] = 0
        S[i, PILE_LEN + s] = 0
    for k in range(P * MAX_SETS):
        S[i, OPEN + k] = -1
    for k in range(KN):
        S[i, DECK + k] = COPIES_A[k]
    for k in range(P * KN):
        S[i, HANDS + k] = 0
    for k in range(P * PILE_CAP):
        S[i, PILES + k] = 0
    S[i, DEALER_COUNTS + S[i, DEALER]] += 1
    S[i, TURN_SEAT] = -1
    S[i, PHASE] = DEAL


@jit_helper
def _record_end(S: np.ndarray, i: int, how: int, tile: int, owner: int, heaven: bool) -> None:
    """Record how the round ends (``LAST_``): by the seat to act, before the next round clears the hands."""
    seat = S[i, TURN_SEAT]
    S[i, LAST_END] = how
    S[i, LAST_ROUND] = S[i, ROUNDS] + 1
    S[i, LAST_SEAT] = seat
    S[i, LAST_TILE] = tile
    S[i, LAST_OWNER] = owner
    S[i, LAST_DEALER] = S[i, DEALER]
    S[i, LAST_HEAVEN] = heaven
    for j in range(MAX_SETS):
        S[i, LAST_OPEN + j] = S[i, OPEN + MAX_SETS * seat + j] if how != RAN_OUT else -1
    for k in range(KN):
        S[i, LAST_HAND + k] = S[i, HANDS + KN * seat + k] if how != RAN_OUT else 0


@jit_helper
def _end_round(S: np.ndarray, i: int, winner: int) -> None:
    S[i, ROUNDS] += 1
    n = S[i, NP]
    over = winner >= 0 and S[i, SCORES + winner] >= S[i, TARGET]
    if S[i, DEALER_TWICE] and S[i, ROUNDS] >= 2 * n:
        over = True
    if over:
        S[i, PHASE] = OVER
        S[i, TURN_SEAT] = -1
        S[i, DRAWN] = -1
        return
    S[i, DEALER] = (S[i, DEALER] + 1) % n
    _start_round(S, i)


@jit_helper
def _take_discard(S: np.ndarray, i: int, offset: int) -> int:
    owner = (S[i, TURN_SEAT] + offset) % S[i, NP]
    S[i, CLAIMABLE + owner] = 0
    S[i, PILE_LEN + owner] -= 1
    return S[i, PILES + PILE_CAP * owner + S[i, PILE_LEN + owner]]  # type: ignore[no-any-return]


@jit_helper
def _open(S: np.ndarray, i: int, seat: int, shape: int) -> None:
    S[i, OPEN + MAX_SETS * seat + S[i, NUM_OPEN + seat]] = shape
    S[i, NUM_OPEN + seat] += 1
    S[i, OPEN_VALUE + seat] += SH_VALUE[shape]


@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """Apply a legal action or chance outcome (unchecked)."""
    phase = S[i, PHASE]
    n = S[i, NP]
    if phase == FIRST_DEALER:
        S[i, DEALER] = action
        _start_round(S, i)
        return
    if phase == DEAL:
        seat = (S[i, DEALER] + S[i, DEALT]) % n
        S[i, DECK + action] -= 1
        S[i, DECK_SIZE] -= 1
        S[i, HANDS + KN * seat + action] += 1
        S[i, DEALT] += 1
        if S[i, DEALT] == HAND_SIZE * n:
            S[i, PHASE] = TURN
            S[i, TURN_SEAT] = S[i, DEALER]
            S[i, TURNS + S[i, DEALER]] = 1
        return
    seat = S[i, TURN_SEAT]
    if phase == DRAWING:
        S[i, DECK + action] -= 1
        S[i, DECK_SIZE] -= 1
        S[i, HANDS + KN * seat + action] += 1
        S[i, DRAWN] = action
        S[i, PHASE] = DISCARDING
        return
    if S[i, DECISIONS] < MAX_DECISIONS:
        S[i, DECISIONS] += 1
    if phase == TURN:
        if action == act.DRAW:
            S[i, PHASE] = DRAWING
        elif action == act.END_ROUND:
            _record_end(S, i, RAN_OUT, -1, -1, False)
            _end_round(S, i, -1)
        elif action < act.DISCARD:
            offset = action - act.FINISH_FROM + 1
            tile = _take_discard(S, i, offset)
            S[i, HANDS + KN * seat + tile] += 1
            _record_end(S, i, FINISHED_DISCARD, tile, (seat + offset) % n, False)
            S[i, SCORES + seat] += _win_points(S, i, seat, False)
            _end_round(S, i, seat)
        else:
            offset = (action - act.GET) // act.NUM_PAIRS + 1
            p = (action - act.GET) % act.NUM_PAIRS
            tile = _take_discard(S, i, offset)
            S[i, HANDS + KN * seat + PAIR_A[p]] -= 1
            S[i, HANDS + KN * seat + PAIR_B[p]] -= 1
            shape = GET_SHAPE[tile, p]
            if GET_SHAPES_N[tile, p] > 1:  # all purple: the colour is chosen next
                S[i, PENDING] = shape
                S[i, PHASE] = PICK_COLOUR
            else:
                _open(S, i, seat, shape)
                S[i, PHASE] = DISCARDING
        return
    if phase == PICK_COLOUR:
        _open(S, i, seat, S[i, PENDING] + (action - act.COLOUR))  # the blue shape, then the red one
        S[i, PENDING] = -1
        S[i, PHASE] = DISCARDING
        return
    # DISCARDING
    if action == act.FINISH:
        heaven = S[i, TURNS + seat] == 1
        _record_end(S, i, FINISHED_DRAW, S[i, DRAWN], -1, heaven)
        S[i, SCORES + seat] += _win_points(S, i, seat, heaven)
        _end_round(S, i, seat)
        return
    kind = action - act.DISCARD
    S[i, HANDS + KN * seat + kind] -= 1
    S[i, PILES + PILE_CAP * seat + S[i, PILE_LEN + seat]] = kind
    S[i, PILE_LEN + seat] += 1
    S[i, CLAIMABLE + seat] = 1
    S[i, DRAWN] = -1
    nxt = (seat + 1) % n
    S[i, TURN_SEAT] = nxt
    S[i, TURNS + nxt] += 1
    S[i, PHASE] = TURN


# ---- results -------------------------------------------------------------------------------------
@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the outcome returns into ``out``: zeros until the end, then ``rank_returns`` of the points."""
    n = S[i, NP]
    for seat in range(n):
        out[seat] = 0.0
    if S[i, PHASE] != OVER:
        return
    for seat in range(n):
        out[seat] = S[i, SCORES + seat]
    rank_outcomes(out, n)


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32, layout in ``observation.py``) into row ``i`` of ``out``: its own
    concealed tiles and drawn tile, and public facts only."""
    for k in range(OBS_SIZE):
        out[i, k] = 0.0
    n = S[i, NP]
    phase = S[i, PHASE]
    turn = S[i, TURN_SEAT]
    own = HANDS + KN * seat
    for k in range(KN):
        out[i, O_HAND + k] = np.float32(S[i, own + k]) * INV_COPIES[k]
        unseen = S[i, DECK + k]
        for s in range(n):
            if s != seat:
                unseen += S[i, HANDS + KN * s + k]
        out[i, O_UNSEEN + k] = np.float32(unseen) * INV_COPIES[k]
    if S[i, DRAWN] >= 0 and turn == seat:
        out[i, O_DRAWN + S[i, DRAWN]] = 1.0
    target = float(S[i, TARGET])
    for e in range(n):
        s = seat + e
        if s >= n:
            s -= n
        base = O_SETS + e * SEAT_SETS
        count = S[i, NUM_OPEN + s]
        for j in range(count):
            shape = S[i, OPEN + MAX_SETS * s + j]
            b = base + j * SET_WIDTH
            for t in range(3):
                out[i, b + SH_KINDS[shape, t]] += THIRD
            out[i, b + KN + SH_COLOUR[shape]] = 1.0
        if s == turn and S[i, PENDING] >= 0:
            b = base + count * SET_WIDTH
            for t in range(3):
                out[i, b + SH_KINDS[S[i, PENDING], t]] += THIRD
        length = S[i, PILE_LEN + s]
        pile = PILES + PILE_CAP * s
        for j in range(length):
            kind = S[i, pile + length - 1 - j]
            out[i, O_COUNTS + e * KN + kind] += 0.25
            if j < PILE_SLOTS:
                out[i, O_ORDER + e * ORDER_SIZE + j * KN + kind] = 1.0
        out[i, O_CLAIM + e] = S[i, CLAIMABLE + s]
        concealed = 0
        for k in range(KN):
            concealed += S[i, HANDS + KN * s + k]
        out[i, O_CONCEALED + e] = concealed / 8.0
        out[i, O_SCORES + e] = min(1.0, S[i, SCORES + s] / target)
        out[i, O_TURNS + e] = min(1.0, S[i, TURNS + s] / 30.0)
        out[i, O_DEALT_ROUNDS + e] = min(1.0, S[i, DEALER_COUNTS + s] / 2.0)
    out[i, O_DECK] = min(1.0, S[i, DECK_SIZE] / MAX_DECK_F)
    if S[i, DEALER] >= 0:
        out[i, O_DEALER + (S[i, DEALER] - seat) % n] = 1.0
    player = current_player(S, i)
    if player >= 0:
        out[i, O_CURRENT + (player - seat) % n] = 1.0
        index = 0 if phase == TURN else (1 if phase == DISCARDING else 2)
        out[i, O_PHASE + index] = 1.0
    out[i, O_PLAYERS + n - 2] = 1.0
    out[i, O_OPTIONS] = S[i, ADVANCED]
    out[i, O_OPTIONS + 1] = S[i, PREVIOUS_ONLY]
    out[i, O_OPTIONS + 2] = S[i, DEALER_TWICE]


__doc__ = __doc__.replace("{row_table}", ROW.table())
