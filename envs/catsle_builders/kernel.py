"""CATsle Builders' rules as compiled kernels over a flat ``int16`` state row: the one implementation of the rules.

``CatsleState`` (``game.py``) wraps one row (a one-row matrix); ``gameshelf.vector`` steps a matrix of them.
Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists what a kernel
module provides), is compiled by numba and also runs as plain Python. The row is declared once, as ``ROW``
below (fields, offsets, bounds; ``envs.core.row``); per-seat fields are padded to 5 seats and 5 columns:

{row_table}

The drivers (chance resolution, random playouts, the batch steps) are the template's, in ``envs.core.kernel``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.catsle_builders.actions import DEAL, FIRST, NUM_ACTIONS, OVER, PLACE, PLACE_BASE, PLAY, TAKE, TAKE_BASE
from gameshelf.envs.catsle_builders.cards import (
    DEFAULT_LIMITS,
    HAND_SIZE,
    MAX_COLUMNS,
    MAX_LIMIT,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MOATS,
    NUM_CARDS,
    NUM_ROUNDS,
    NUM_SUITS,
    NUM_VALUES,
    PERFECT_BONUS,
)
from gameshelf.envs.catsle_builders.cards import (
    TAKES as TAKES_BY_PLAYERS,
)
from gameshelf.envs.catsle_builders.observation import LAYOUT, MAX_HAND, MAX_TAKEN
from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import below, jit, jit_helper, rank_outcomes
from gameshelf.envs.core.row import RowLayout

MP, MC, NC, NV = MAX_PLAYERS, MAX_COLUMNS, NUM_CARDS, NUM_VALUES
MAX_COL_CARDS = NUM_VALUES
"""A column holds cards of one suit: at most 12."""
MAX_QUEUE = 4
"""Most cards taken from a trick (1 + 1 + 2 at 5 players)."""
ORDINARY_COLUMNS = len(DEFAULT_LIMITS)
"""Columns with a limit of the option ``column_limits`` (4-5 players add a fifth, of limit 0)."""
MAX_ROUND_SCORE = ORDINARY_COLUMNS * MAX_LIMIT + max(PERFECT_BONUS)
"""Most points of one round: every ordinary column at its limit, with the perfect bonus."""
POINTS_LIMIT = 2**14
"""Largest ``totals`` or ``round_scores`` entry a position may give (``position.py``)."""

OUT = -1
UNDEALT = 0
IN_HAND = 1
PLAYED_ANON = IN_HAND + MP
PLAYED = PLAYED_ANON + 1


def max_decisions(num_players: int) -> int:
    """A true bound on a game's player decisions (its ``max_game_length``): in every trick of the three rounds,
    a card played by each seat, then a take and perhaps a column choice for each card taken."""
    return NUM_ROUNDS * HAND_SIZE[num_players] * (num_players + 2 * sum(TAKES_BY_PLAYERS[num_players]))


ROW = RowLayout("catsle_builders")
PHASE = ROW.add("phase", 1, "FIRST (0), DEAL (1), PLAY (2), TAKE (3), PLACE (4) or OVER (5)", (FIRST, OVER), fill=FIRST)
ROUND = ROW.add("round_index", 1, "0-based round", (0, NUM_ROUNDS - 1))
NP = ROW.add("num_players", 1, "number of players (an option)", (MIN_PLAYERS, MP), fill=MIN_PLAYERS)
NCOLS = ROW.add("num_columns", 1, "columns of a board: 4 at 3 players, 5 at 4-5", (ORDINARY_COLUMNS, MC), fill=ORDINARY_COLUMNS)
_HANDS = HAND_SIZE.values()
HAND = ROW.add("hand_size", 1, "cards dealt to each seat per round", (min(_HANDS), max(_HANDS)), fill=min(_HANDS))
DECK_N = ROW.add("deck_size", 1, "cards in the deck (no Moats at 3 players)", (NC - NV, NC), fill=NC)
_TAKES = TAKES_BY_PLAYERS.values()
NTAKES = ROW.add(
    "num_takes", 1, "rated places that take cards", (min(map(len, _TAKES)), max(map(len, _TAKES))), fill=min(map(len, _TAKES))
)
TAKES = ROW.add(
    "takes",
    max(map(len, _TAKES)),
    "cards each rated place takes (1, 2 or 1, 1, 2; 0 beyond num_takes)",
    (0, max(map(max, _TAKES))),
)
LIMITS = ROW.add("limits", MC, "limit of each column (0 past num_columns)", (0, MAX_LIMIT))
ROUND_FIRST = ROW.add("round_first", 1, "seat that leads the round's first trick (-1: not drawn yet)", (-1, MP - 1), fill=-1)
LEADER = ROW.add("leader", 1, "seat that leads the current trick (-1: not drawn yet)", (-1, MP - 1), fill=-1)
TURN = ROW.add("turn", 1, "seat to act (-1 at chance and terminal nodes)", (-1, MP - 1), fill=-1)
DEALT = ROW.add("dealt", 1, "cards dealt this round (the k-th goes to seat k % num_players)", (0, NC))
PENDING = ROW.add("pending", 1, "taken card waiting for its column (place decision), -1: none", (-1, NC - 1), fill=-1)
TRICK_N = ROW.add("trick_count", 1, "cards of the current trick", (0, MP))
TRICK = ROW.add("trick", MP, "cards of the current trick in play order (the leader's first)", (0, NC - 1))
QUEUE_N = ROW.add("queue_count", 1, "cards to take from the trick", (0, MAX_QUEUE))
QUEUE = ROW.add("queue", MAX_QUEUE, "seats taking from the trick, one entry per card, in rating order", (0, MP - 1))
TAKE_POS = ROW.add("take_pos", 1, "entries of queue done", (0, MAX_QUEUE))
LEFT_N = ROW.add("left_count", 1, "cards still in the trick while it is being taken", (0, MP))
SCORED = ROW.add("scored", 1, "finished rounds", (0, NUM_ROUNDS))
ROUND_SCORES = ROW.add("round_scores", (NUM_ROUNDS, MP), "score of each seat in finished round r", (0, POINTS_LIMIT))
TOTALS = ROW.add("totals", MP, "total score per seat", (0, POINTS_LIMIT + NUM_ROUNDS * MAX_ROUND_SCORE), per_seat=True)
LAST_PERFECT = ROW.add(
    "last_perfect",
    MP,
    "perfect columns of each seat in the latest round scoring (the tie-break)",
    (0, ORDINARY_COLUMNS),
    per_seat=True,
)
SIZES = ROW.add("hand_sizes", MP, "cards in each hand", (0, max(_HANDS)), per_seat=True)
VOIDS = ROW.add(
    "voids", MP, "per seat, bit mask of the suits it showed it lacks this round", (0, 2**NUM_SUITS - 1), per_seat=True
)
COL_SUIT = ROW.add("col_suit", (MP, MC), "per seat and column: its suit (-1: empty)", (-1, NUM_SUITS - 1), fill=-1, per_seat=True)
COL_LEN = ROW.add("col_len", (MP, MC), "per seat and column: its number of cards", (0, MAX_COL_CARDS), per_seat=True)
COLS = ROW.add(
    "cols",
    (MP, MC * MAX_COL_CARDS),
    "per seat: column k's cards in the order they were placed, from entry 12 k",
    (0, NC - 1),
    per_seat=True,
)
LOC = ROW.add(
    "loc",
    NC,
    "where each card is: OUT (-1: not in this deck), UNDEALT (0), IN_HAND + seat (1..5), PLAYED + seat (7..11)"
    " or PLAYED_ANON (6: played before a built position, by a seat not recorded)",
    (OUT, PLAYED + MP - 1),
    fill=UNDEALT,
)
DISC = ROW.add("discards", NC, "1 for each card discarded this round", (0, 1))
LEFT = ROW.add("trick_left", NC, "1 for each card still in the trick being taken", (0, 1))
DECISIONS = ROW.add(
    "decisions",
    1,
    "player decisions so far (the batched environment's truncation counter)",
    (0, max(max_decisions(n) for n in range(MIN_PLAYERS, MP + 1))),
)
SIZE = ROW.size

NUM_ACTS = NUM_ACTIONS
BONUS = np.array(PERFECT_BONUS, dtype=np.int64)

O_HAND = LAYOUT.offset("hand")
O_TRICK = LAYOUT.offset("trick")
O_LEFT = LAYOUT.offset("trick_left")
O_LED = LAYOUT.offset("led_suit")
O_BOARDS = LAYOUT.offset("boards")
O_LIMITS = LAYOUT.offset("limits")
O_PLAYED = LAYOUT.offset("played")
O_DISCARDS = LAYOUT.offset("discards")
O_VOIDS = LAYOUT.offset("voids")
O_SIZES = LAYOUT.offset("hand_sizes")
O_TOTALS = LAYOUT.offset("totals")
O_PERFECT = LAYOUT.offset("last_perfect")
O_ROUND = LAYOUT.offset("round")
O_ROUND_FIRST = LAYOUT.offset("round_first")
O_LEADER = LAYOUT.offset("leader")
O_TO_ACT = LAYOUT.offset("to_act")
O_PHASE = LAYOUT.offset("phase")
O_PENDING = LAYOUT.offset("pending")
O_TAKES_LEFT = LAYOUT.offset("takes_left")
O_PLAYERS = LAYOUT.offset("players")
OBS_SIZE = LAYOUT.size
BOARD_SEAT = MC * (NUM_SUITS + 1)


def initial_state(num_players: int, limits: tuple[int, ...]) -> np.ndarray:
    """The state row before the first chance node (built once per game; a new game copies it).

    ``limits``: the limit of each column of a board (4 columns at 3 players, 5 at 4-5).
    """
    s = ROW.new_row()
    ROW.put(s, "num_players", num_players)
    takes = TAKES_BY_PLAYERS[num_players]
    ROW.put(s, "num_columns", len(limits))
    ROW.put(s, "hand_size", HAND_SIZE[num_players])
    ROW.put(s, "deck_size", NC - (NUM_VALUES if num_players == 3 else 0))
    ROW.put(s, "num_takes", len(takes))
    ROW.put(s, "takes", list(takes) + [0] * (ROW["takes"].size - len(takes)))
    ROW.put(s, "limits", list(limits) + [0] * (MC - len(limits)))
    if num_players == 3:
        s[LOC + MOATS * NV : LOC + (MOATS + 1) * NV] = OUT  # no Moats at 3 players
    return s


@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    phase = S[i, PHASE]
    if PLAY <= phase <= PLACE:  # the decision phases
        return S[i, TURN]  # type: ignore[no-any-return]
    if phase == OVER:
        return TERMINAL
    return CHANCE


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    """Is ``outcome`` a possible outcome of the chance node (a seat, then a card not dealt yet)?"""
    phase = S[i, PHASE]
    if phase == FIRST:
        return 0 <= outcome < S[i, NP]  # type: ignore[no-any-return]
    if phase == DEAL:
        return 0 <= outcome < NC and S[i, LOC + outcome] == UNDEALT  # type: ignore[no-any-return]
    return False


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """Draw the chance outcome with generator ``i`` of ``rngs``: the first leader, or the next dealt card
    (uniform over the cards not dealt yet)."""
    if S[i, PHASE] == FIRST:
        return below(rngs, i, S[i, NP])  # type: ignore[no-any-return]
    k = below(rngs, i, S[i, DECK_N] - S[i, DEALT])
    for c in range(NC):
        if S[i, LOC + c] == UNDEALT:
            if k == 0:
                return c
            k -= 1
    return -1  # unreachable: a deal has cards left


NUM_CHANCE = max(MP, NC)
"""Chance outcome ids are below this: a seat (the first leader), or a card (the next dealt card)."""


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the odds of the chance node into row ``i`` of ``out`` as integer weights per outcome id: each seat
    alike for the first leader, then each card not dealt yet alike."""
    for k in range(NUM_CHANCE):
        out[i, k] = 0
    if S[i, PHASE] == FIRST:
        for seat in range(S[i, NP]):
            out[i, seat] = 1
    elif S[i, PHASE] == DEAL:
        for c in range(NC):
            if S[i, LOC + c] == UNDEALT:
                out[i, c] = 1


@jit_helper
def _led_suit(S: np.ndarray, i: int) -> int:
    """The suit led in the current trick (-1 before the lead)."""
    if S[i, TRICK_N] == 0:
        return -1
    return S[i, TRICK] // NV  # type: ignore[no-any-return]


@jit_helper
def _follows(S: np.ndarray, i: int, seat: int) -> int:
    """The suit ``seat`` must follow (-1: any card may be played)."""
    led = _led_suit(S, i)
    if led < 0:
        return -1
    code = IN_HAND + seat
    for c in range(led * NV, led * NV + NV):
        if S[i, LOC + c] == code:
            return led
    return -1


@jit_helper
def column_for(S: np.ndarray, i: int, seat: int, c: int) -> int:
    """The column of ``seat``'s board holding the suit of card ``c`` (-1: none, any empty column may take it)."""
    suit = c // NV
    base = COL_SUIT + MC * seat
    for k in range(S[i, NCOLS]):
        if S[i, base + k] == suit:
            return k
    return -1


@jit_helper
def columns_mask(S: np.ndarray, i: int, seat: int, c: int) -> int:
    """Bit mask of the columns of ``seat``'s board that may receive card ``c``: the one holding its suit,
    else every empty one."""
    k = column_for(S, i, seat, c)
    if k >= 0:
        return 1 << k
    out = 0
    base = COL_SUIT + MC * seat
    for k in range(S[i, NCOLS]):
        if S[i, base + k] < 0:
            out |= 1 << k
    return out


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the legal action mask (all False at chance and terminal nodes) into row ``i`` of ``out``."""
    bytes_out = out.view(np.uint8)  # numba writes bools one by one
    for a in range(NUM_ACTS):
        bytes_out[i, a] = 0
    phase = S[i, PHASE]
    if phase == PLAY:
        code = IN_HAND + S[i, TURN]
        suit = _follows(S, i, S[i, TURN])
        if suit >= 0:
            for c in range(suit * NV, suit * NV + NV):
                bytes_out[i, c] = S[i, LOC + c] == code
        else:
            for c in range(NC):
                bytes_out[i, c] = S[i, LOC + c] == code
    elif phase == TAKE:
        for c in range(NC):
            bytes_out[i, TAKE_BASE + c] = S[i, LEFT + c]
    elif phase == PLACE:
        seat = S[i, TURN]
        k = column_for(S, i, seat, S[i, PENDING])
        if k >= 0:
            bytes_out[i, PLACE_BASE + k] = 1
        else:
            base = COL_SUIT + MC * seat
            for k in range(S[i, NCOLS]):
                bytes_out[i, PLACE_BASE + k] = S[i, base + k] < 0


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    """Is ``action`` legal for the player to move (``False`` at chance and terminal nodes)?"""
    phase = S[i, PHASE]
    if phase == PLAY:
        if not 0 <= action < NC or S[i, LOC + action] != IN_HAND + S[i, TURN]:
            return False
        suit = _follows(S, i, S[i, TURN])
        return suit < 0 or action // NV == suit
    if phase == TAKE:
        return TAKE_BASE <= action < PLACE_BASE and S[i, LEFT + action - TAKE_BASE] != 0  # type: ignore[no-any-return]
    if phase == PLACE:
        if not PLACE_BASE <= action < NUM_ACTS:
            return False
        return (columns_mask(S, i, S[i, TURN], S[i, PENDING]) >> (action - PLACE_BASE)) & 1 != 0  # type: ignore[no-any-return]
    return False


@jit_helper
def _place(S: np.ndarray, i: int, seat: int, c: int, column: int) -> None:
    at = MC * seat + column
    S[i, COL_SUIT + at] = c // NV
    S[i, COLS + MAX_COL_CARDS * at + S[i, COL_LEN + at]] = c
    S[i, COL_LEN + at] += 1


@jit_helper
def _take(S: np.ndarray, i: int, seat: int, c: int) -> bool:
    """``seat`` takes card ``c`` from the trick and places it; True when he must choose its column."""
    S[i, LEFT + c] = 0
    S[i, LEFT_N] -= 1
    k = column_for(S, i, seat, c)
    if k < 0:
        empty = 0
        base = COL_SUIT + MC * seat
        for column in range(S[i, NCOLS]):
            if S[i, base + column] < 0:
                empty += 1
                k = column
        if empty > 1:
            S[i, PENDING] = c
            S[i, PHASE] = PLACE
            S[i, TURN] = seat
            return True
    _place(S, i, seat, c, k)
    return False


@jit_helper
def round_score(S: np.ndarray, i: int, seat: int) -> tuple[int, int]:
    """``(round score, perfect columns)`` of ``seat``'s board: column scores (the count within the limit,
    else minus the cards beyond it) plus the perfect bonus, floored at 0."""
    total = 0
    perfect = 0
    for k in range(S[i, NCOLS]):
        limit = S[i, LIMITS + k]
        count = S[i, COL_LEN + MC * seat + k]
        total += count if count <= limit else limit - count
        if limit > 0 and count == limit:
            perfect += 1
    return max(0, total + BONUS[min(perfect, 4)]), perfect


@jit_helper
def _new_round(S: np.ndarray, i: int) -> None:
    """Clear hands, trick, boards, discards and voids; every card of the deck is undealt again."""
    for k in range(SIZES, COLS):
        S[i, k] = 0
    for k in range(COL_SUIT, COL_LEN):
        S[i, k] = -1
    for k in range(DISC, DECISIONS):
        S[i, k] = 0
    for c in range(NC):
        if S[i, LOC + c] != OUT:
            S[i, LOC + c] = UNDEALT
    S[i, DEALT] = 0
    S[i, TRICK_N] = 0
    S[i, QUEUE_N] = 0
    S[i, TAKE_POS] = 0
    S[i, LEFT_N] = 0
    S[i, PENDING] = -1
    S[i, LEADER] = S[i, ROUND_FIRST]


@jit_helper
def _end_round(S: np.ndarray, i: int) -> None:
    n = S[i, NP]
    r = S[i, SCORED]
    for s in range(n):
        score, perfect = round_score(S, i, s)
        S[i, ROUND_SCORES + MP * r + s] = score
        S[i, TOTALS + s] += score
        S[i, LAST_PERFECT + s] = perfect
    S[i, SCORED] = r + 1
    if S[i, ROUND] == NUM_ROUNDS - 1:
        S[i, PHASE] = OVER  # the last boards stay for display
        S[i, TURN] = -1
        return
    S[i, ROUND] += 1
    S[i, ROUND_FIRST] = (S[i, ROUND_FIRST] + 1) % n
    _new_round(S, i)
    S[i, PHASE] = DEAL
    S[i, TURN] = -1


@jit_helper
def _advance(S: np.ndarray, i: int) -> None:
    """Go on taking from the trick: ask the next taker, or take for him when he has no choice."""
    queue_n = S[i, QUEUE_N]
    while S[i, TAKE_POS] < queue_n:
        pos = S[i, TAKE_POS]
        seat = S[i, QUEUE + pos]
        alone = S[i, LEFT_N] == queue_n - pos
        for k in range(pos + 1, queue_n):
            if S[i, QUEUE + k] != seat:
                alone = False
        if alone:
            # he takes every card still in the trick: no choice of cards (the lowest first)
            S[i, TAKE_POS] = pos + 1
            lowest = 0
            while S[i, LEFT + lowest] == 0:
                lowest += 1
            if _take(S, i, seat, lowest):
                return
            continue
        S[i, PHASE] = TAKE
        S[i, TURN] = seat
        return
    for c in range(NC):
        if S[i, LEFT + c]:
            S[i, DISC + c] = 1
            S[i, LEFT + c] = 0
    S[i, LEFT_N] = 0
    S[i, LEADER] = S[i, QUEUE + queue_n - 1]
    S[i, TRICK_N] = 0
    S[i, QUEUE_N] = 0
    S[i, TAKE_POS] = 0
    n = S[i, NP]
    for s in range(n):
        if S[i, SIZES + s]:
            S[i, PHASE] = PLAY
            S[i, TURN] = S[i, LEADER]
            return
    _end_round(S, i)


@jit_helper
def _start_taking(S: np.ndarray, i: int) -> None:
    """Rate the complete trick and queue its takers: led-suit cards above all others, by value; of two
    other cards of equal value the later one is stronger."""
    n = S[i, NP]
    led = S[i, TRICK] // NV
    chosen = 0
    queued = 0
    for r in range(S[i, NTAKES]):
        best = -1
        best_key = -1
        for p in range(n):
            if chosen >> p & 1:
                continue
            c = S[i, TRICK + p]
            key = (1000 if c // NV == led else 0) + 10 * (c % NV) + p
            if key > best_key:
                best, best_key = p, key
        chosen |= 1 << best
        seat = (S[i, LEADER] + best) % n
        for _ in range(S[i, TAKES + r]):
            S[i, QUEUE + queued] = seat
            queued += 1
    S[i, QUEUE_N] = queued
    S[i, TAKE_POS] = 0
    for p in range(n):
        S[i, LEFT + S[i, TRICK + p]] = 1
    S[i, LEFT_N] = n
    _advance(S, i)


@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """Apply a legal action or chance outcome (unchecked)."""
    phase = S[i, PHASE]
    n = S[i, NP]
    if phase == FIRST:
        S[i, ROUND_FIRST] = action
        S[i, LEADER] = action
        S[i, PHASE] = DEAL
        return
    if phase == DEAL:
        seat = S[i, DEALT] % n
        S[i, LOC + action] = IN_HAND + seat
        S[i, SIZES + seat] += 1
        S[i, DEALT] += 1
        if S[i, DEALT] == n * S[i, HAND]:
            S[i, PHASE] = PLAY
            S[i, TURN] = S[i, LEADER]
        return
    S[i, DECISIONS] += 1
    seat = S[i, TURN]
    if phase == PLAY:
        S[i, LOC + action] = PLAYED + seat
        S[i, SIZES + seat] -= 1
        count = S[i, TRICK_N]
        if count:
            led = S[i, TRICK] // NV
            if action // NV != led:
                S[i, VOIDS + seat] |= 1 << led
        S[i, TRICK + count] = action
        S[i, TRICK_N] = count + 1
        if count + 1 < n:
            S[i, TURN] = (seat + 1) % n
            return
        _start_taking(S, i)
        return
    if phase == TAKE:
        S[i, TAKE_POS] += 1
        if not _take(S, i, seat, action - TAKE_BASE):
            _advance(S, i)
        return
    # PLACE
    _place(S, i, seat, S[i, PENDING], action - PLACE_BASE)
    S[i, PENDING] = -1
    _advance(S, i)


@jit_helper
def _key(S: np.ndarray, i: int, seat: int) -> int:
    """Ranking key: total score, then perfect columns in the last round's scoring (at most 4)."""
    return S[i, TOTALS + seat] * 8 + S[i, LAST_PERFECT + seat]  # type: ignore[no-any-return]


@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write every seat's outcome return into ``out``: zeros until the end, then by ranking (``rank_returns``)."""
    n = S[i, NP]
    for seat in range(n):
        out[seat] = 0.0
    if S[i, PHASE] != OVER:
        return
    for seat in range(n):
        out[seat] = _key(S, i, seat)
    rank_outcomes(out, n)


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32, layout in ``observation.py``) into row ``i`` of ``out``: its own
    hand and everything public."""
    for k in range(OBS_SIZE):
        out[i, k] = 0.0
    n = S[i, NP]
    own = IN_HAND + seat
    for c in range(NC):
        where = S[i, LOC + c]
        if where == own:
            out[i, O_HAND + c] = 1.0
        if where >= PLAYED_ANON:
            out[i, O_PLAYED + c] = 1.0
        if S[i, LEFT + c]:
            out[i, O_LEFT + c] = 1.0
        if S[i, DISC + c]:
            out[i, O_DISCARDS + c] = 1.0
    count = S[i, TRICK_N]
    leader = S[i, LEADER]
    for p in range(count):
        out[i, O_TRICK + ((leader + p - seat + 2 * n) % n) * NC + S[i, TRICK + p]] = 1.0
    if count:
        out[i, O_LED + S[i, TRICK] // NV] = 1.0
    limit_sum = 0
    for k in range(S[i, NCOLS]):
        out[i, O_LIMITS + k] = S[i, LIMITS + k] / MAX_LIMIT
        limit_sum += S[i, LIMITS + k]
    score_scale = float(NUM_ROUNDS * (limit_sum + BONUS[4]))
    for e in range(n):
        s = (seat + e) % n
        board = O_BOARDS + e * BOARD_SEAT
        for k in range(S[i, NCOLS]):
            suit = S[i, COL_SUIT + MC * s + k]
            if suit >= 0:
                out[i, board + k * (NUM_SUITS + 1) + suit] = 1.0
                out[i, board + k * (NUM_SUITS + 1) + NUM_SUITS] = S[i, COL_LEN + MC * s + k] / MAX_TAKEN
        voids = S[i, VOIDS + s]
        for suit in range(NUM_SUITS):
            if voids >> suit & 1:
                out[i, O_VOIDS + e * NUM_SUITS + suit] = 1.0
        out[i, O_SIZES + e] = S[i, SIZES + s] / MAX_HAND
        out[i, O_TOTALS + e] = S[i, TOTALS + s] / score_scale
        out[i, O_PERFECT + e] = S[i, LAST_PERFECT + s] / 4.0
    out[i, O_ROUND + S[i, ROUND]] = 1.0
    if S[i, ROUND_FIRST] >= 0:
        out[i, O_ROUND_FIRST + (S[i, ROUND_FIRST] - seat + n) % n] = 1.0
    if leader >= 0:
        out[i, O_LEADER + (leader - seat + n) % n] = 1.0
    phase = S[i, PHASE]
    if PLAY <= phase <= PLACE:  # the decision phases
        out[i, O_TO_ACT + (S[i, TURN] - seat + n) % n] = 1.0
        out[i, O_PHASE + phase - PLAY] = 1.0
    if S[i, PENDING] >= 0:
        out[i, O_PENDING + S[i, PENDING]] = 1.0
    out[i, O_PLAYERS + n - 3] = 1.0
    for k in range(S[i, TAKE_POS], S[i, QUEUE_N]):
        out[i, O_TAKES_LEFT + (S[i, QUEUE + k] - seat + n) % n] += 0.5


__doc__ = (__doc__ or "").replace("{row_table}", ROW.table())
