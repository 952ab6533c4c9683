"""Matchstick Tycoon's rules as compiled kernels over a flat ``int16`` state row: the one implementation of
the rules.

``MatchstickState`` (``game.py``) wraps one row (a one-row matrix); ``gameshelf.vector`` steps a matrix of
them. Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists what a
kernel module provides), is compiled by numba and also runs as plain Python. The row is declared once, as
``ROW`` below (fields, offsets, bounds; ``envs.core.row``); per-seat fields are padded to 8 seats, faces are
0..15, values 0..17:

{row_table}

The drivers (chance resolution, random playouts, the batch steps) are the template's, in ``envs.core.kernel``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import below, jit, jit_helper
from gameshelf.envs.core.row import STATE_DTYPE, RowLayout
from gameshelf.envs.matchstick_tycoon.actions import (
    CHOOSE_FIRST,
    DEAL,
    DISCARD,
    MAX_PLAY,
    NUM_ACTIONS,
    OVER,
    PASS,
    PICK_BASE,
    PLAY,
    PLAY_BASE,
)
from gameshelf.envs.matchstick_tycoon.cards import BASE_VALUES, COST, NUM_FACES, NUM_VALUES
from gameshelf.envs.matchstick_tycoon.observation import HAND_SCALE, LAYOUT, MAX_PLAYERS, STICK_CAP

P, F, V = MAX_PLAYERS, NUM_FACES, NUM_VALUES
COPIES = 4
"""Most copies of a face in the deck."""
MAX_CARDS = COPIES * F
"""Cards in the largest deck (the expansion with 4 copies of G and H)."""
MAX_COST = max(max(row) for row in COST)
"""Most matchsticks one card needs to show a value."""


def max_decisions(deck_size: int, num_players: int) -> int:
    """A true bound on a game's player decisions (the game's ``max_game_length``): plays <= cards dealt, each at
    most 1 + 5 decisions; between two plays at most 2n turns without a play; every such turn gains at most one
    matchstick, each later discarded once."""
    return deck_size * 6 + 2 * (deck_size + 1) * 2 * num_players + 2 * num_players


COUNT_LIMIT = 10_000
"""Largest matchstick count, ``sticks_spent`` or ``revolutions`` a position may give (``position.py``)."""
MOST_STICKS = COUNT_LIMIT + max_decisions(MAX_CARDS, P)
"""A seat's matchsticks: a position's count, then at most one more per decision (a pass)."""
MOST_SPENT = COUNT_LIMIT + MAX_CARDS * MAX_COST
"""Matchsticks spent: a position's count, then at most ``MAX_COST`` per card played."""
MOST_REVOLUTIONS = COUNT_LIMIT + MAX_CARDS // MAX_PLAY
"""Revolutions: a position's count, then one per 5-card play."""

ROW = RowLayout("matchstick_tycoon")
PHASE = ROW.add("phase", 1, "CHOOSE_FIRST (0), DEAL (1), PLAY (2) or OVER (3)", (CHOOSE_FIRST, OVER), fill=CHOOSE_FIRST)
NP = ROW.add("num_players", 1, "number of players (an option)", (2, P), fill=2)
NV = ROW.add("num_values", 1, "values in play: 16, or 18 with the expansion (G, H)", (BASE_VALUES, V), fill=BASE_VALUES)
CARDS = ROW.add("cards_dealt", 1, "cards dealt in the game (option deal)", (0, MAX_CARDS))
EXP = ROW.add("expansion_copies", 1, "copies of G and of H in the deck (an option)", (0, COPIES))
DECK = ROW.add("deck", F, "copies of each face in the deck", (0, COPIES))
FIRST = ROW.add("first_player", 1, "the first player (-1 before it is drawn)", (-1, P - 1), fill=-1)
DEALT = ROW.add("dealt", 1, "cards dealt so far (the k-th to seat k % N)", (0, MAX_CARDS))
TURN = ROW.add("turn", 1, "seat to act (-1 outside play)", (-1, P - 1), fill=-1)
TABLE_VALUE = ROW.add("table_value", 1, "value shown by the table cards (-1 when empty)", (-1, V - 1), fill=-1)
TABLE_COUNT = ROW.add("table_count", 1, "cards on the table", (0, MAX_PLAY))
TABLE_FACES = ROW.add(
    "table_faces", MAX_PLAY, "faces of the table cards, in the order laid (-1 beyond table_count)", (-1, F - 1), fill=-1
)
LAST = ROW.add("last_player", 1, "seat whose play is on the table (-1 when the table is empty)", (-1, P - 1), fill=-1)
REVERSED = ROW.flag("reversed", "strength order reversed (after an odd number of revolutions)")
REVOLUTIONS = ROW.add("revolutions", 1, "5-card plays so far", (0, MOST_REVOLUTIONS))
PENDING_VALUE = ROW.add("pending_value", 1, "value of the play being laid (-1: none)", (-1, V - 1), fill=-1)
PENDING_COUNT = ROW.add("pending_count", 1, "count of the play being laid (0: no play announced)", (0, MAX_PLAY))
NPICKS = ROW.add("num_picks", 1, "cards of the play being laid so far", (0, MAX_PLAY))
PICKS = ROW.add("picks", MAX_PLAY, "faces of those cards, in the order laid (-1 beyond num_picks)", (-1, F - 1), fill=-1)
PENDING_COST = ROW.add("pending_cost", 1, "matchsticks the cards laid so far need", (0, MAX_PLAY * MAX_COST))
SPENT = ROW.add("sticks_spent", 1, "matchsticks spent in the game", (0, MOST_SPENT))
NOUT = ROW.add("num_out", 1, "seats out so far", (0, P))
OUT_ORDER = ROW.add("out_order", P, "seats out, in finishing order (-1 beyond num_out)", (-1, P - 1), fill=-1)
DECISIONS = ROW.add(
    "decisions", 1, "player decisions so far (the batched environment's truncation counter)", (0, np.iinfo(STATE_DTYPE).max)
)
HANDS = ROW.add("hands", (P, F), "cards of each face in seat s's hand", (0, COPIES), per_seat=True)
SIZES = ROW.add("hand_sizes", P, "cards in each hand", (0, MAX_CARDS), per_seat=True)
STICKS = ROW.add("sticks", P, "matchsticks of each seat (1 each in a new game)", (0, MOST_STICKS), per_seat=True)
PASSED = ROW.add("passed", P, "1: the seat took a turn without playing since the last play", (0, 1), per_seat=True)
IN_GAME = ROW.add("in_game", P, "1: the seat still plays", (0, 1), per_seat=True)
PLACE = ROW.add(
    "place", P, "finishing place of each seat (0 = first out), -1 while it plays on", (-1, P - 1), fill=-1, per_seat=True
)
UNDEALT = ROW.add("undealt", F, "copies of each face not dealt yet", (0, COPIES))
PLAYED = ROW.add("played", F, "cards of each face played so far by anyone (the table's included)", (0, COPIES))
PLAYED_BY = ROW.add("played_by", (P, F), "cards of each face played so far by seat s", (0, COPIES), per_seat=True)
SIZE = ROW.size

NUM_ACTS = NUM_ACTIONS
NO_CARDS = 10000
"""``_cheapest``'s answer when the hand holds too few cards able to show the value."""

COST_A = np.array(COST, dtype=np.int64)
"""``COST_A[f, v]``: matchsticks to show value ``v`` with face ``f`` (-1: impossible)."""
_showers = [sorted((COST[f][v], f) for f in range(F) if COST[f][v] >= 0) for v in range(V)]
SHOW_LEN = np.array([len(s) for s in _showers], dtype=np.int64)
"""For each value: how many faces can show it; ``SHOW_FACE[v, :SHOW_LEN[v]]`` lists them cheapest first
(ties by face index), ``SHOW_COST`` their costs."""
SHOW_FACE = np.zeros((V, F), dtype=np.int64)
SHOW_COST = np.zeros((V, F), dtype=np.int64)
for _v, _s in enumerate(_showers):
    for _j, (_c, _f) in enumerate(_s):
        SHOW_FACE[_v, _j] = _f
        SHOW_COST[_v, _j] = _c

O_HAND = LAYOUT.offset("hand")
O_TABLE_VALUE = LAYOUT.offset("table_value")
O_TABLE_COUNT = LAYOUT.offset("table_count")
O_TABLE_FACES = LAYOUT.offset("table_faces")
O_REVERSED = LAYOUT.offset("reversed")
O_ANN_VALUE = LAYOUT.offset("announced_value")
O_ANN_COUNT = LAYOUT.offset("announced_count")
O_PICKED = LAYOUT.offset("picked")
O_PICKED_COST = LAYOUT.offset("picked_cost")
O_PLAYED = LAYOUT.offset("played")
O_UNSEEN = LAYOUT.offset("unseen")
O_PRESENT = LAYOUT.offset("present")
O_IN_GAME = LAYOUT.offset("in_game")
O_CARDS = LAYOUT.offset("cards")
O_STICKS = LAYOUT.offset("sticks")
O_PASSED = LAYOUT.offset("passed")
O_LAST = LAYOUT.offset("last_player")
O_CURRENT = LAYOUT.offset("current")
O_PLACE = LAYOUT.offset("place")
O_EXPANSION = LAYOUT.offset("expansion")
OBS_SIZE = LAYOUT.size


def initial_state(
    num_players: int, deck: tuple[int, ...], cards_dealt: int, num_values: int, expansion_copies: int
) -> np.ndarray:
    """The state row before the first chance node (built once per game; a new game copies it)."""
    s = ROW.new_row()
    ROW.put(s, "num_players", num_players)
    ROW.put(s, "num_values", num_values)
    ROW.put(s, "cards_dealt", cards_dealt)
    ROW.put(s, "expansion_copies", expansion_copies)
    ROW.put(s, "deck", deck)
    ROW.put(s, "undealt", deck)
    seats = [1] * num_players + [0] * (P - num_players)
    ROW.put(s, "sticks", seats)
    ROW.put(s, "in_game", seats)
    return s


@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    phase = S[i, PHASE]
    if phase == PLAY:
        return S[i, TURN]  # type: ignore[no-any-return]
    if phase == OVER:
        return TERMINAL
    return CHANCE


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    """Is ``outcome`` a possible outcome of the chance node (a seat, then a face with copies left)?"""
    phase = S[i, PHASE]
    if phase == CHOOSE_FIRST:
        return 0 <= outcome < S[i, NP]  # type: ignore[no-any-return]
    if phase == DEAL:
        return 0 <= outcome < F and S[i, UNDEALT + outcome] > 0  # type: ignore[no-any-return]
    return False


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """Draw the chance outcome with generator ``i`` of ``rngs``: the first player, or the face of the next
    dealt card (by the copies left)."""
    if S[i, PHASE] == CHOOSE_FIRST:
        return below(rngs, i, S[i, NP])  # type: ignore[no-any-return]
    total = 0
    for f in range(F):
        total += S[i, UNDEALT + f]
    u = below(rngs, i, total)
    for f in range(F):
        w = S[i, UNDEALT + f]
        if u < w:
            return f
        u -= w
    return F - 1


NUM_CHANCE = max(P, F)
"""Chance outcome ids are below this: a seat (the first player), or a face (the next dealt card)."""


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the odds of the chance node into row ``i`` of ``out`` as integer weights per outcome id: each seat
    alike for the first player, then each face by its copies not dealt yet."""
    for k in range(NUM_CHANCE):
        out[i, k] = 0
    if S[i, PHASE] == CHOOSE_FIRST:
        for seat in range(S[i, NP]):
            out[i, seat] = 1
    elif S[i, PHASE] == DEAL:
        for f in range(F):
            out[i, f] = S[i, UNDEALT + f]


@jit_helper
def _cheapest(S: np.ndarray, i: int, hand: int, value: int, count: int, skip: int) -> int:
    """Fewest matchsticks to show ``value`` with ``count`` cards of the hand at ``hand`` (one copy of face
    ``skip`` left out; -1: none), or ``NO_CARDS`` when the hand holds too few cards able to show it."""
    if count <= 0:
        return 0
    total = 0
    left = count
    for j in range(SHOW_LEN[value]):
        f = SHOW_FACE[value, j]
        k = S[i, hand + f]
        if f == skip:
            k -= 1
        if k <= 0:
            continue
        c = SHOW_COST[value, j]
        if k >= left:
            return total + c * left  # type: ignore[no-any-return]
        total += c * k
        left -= k
    return NO_CARDS


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the legal action mask (all False outside play) into row ``i`` of ``out``."""
    bytes_out = out.view(np.uint8)  # numba writes bools one by one
    for a in range(NUM_ACTS):
        bytes_out[i, a] = 0
    if S[i, PHASE] != PLAY:
        return
    p = S[i, TURN]
    hand = HANDS + F * p
    if S[i, SIZES + p] == 0:
        bytes_out[i, DISCARD] = 1
        return
    sticks = S[i, STICKS + p]
    pending = S[i, PENDING_COUNT]
    if pending:
        value = S[i, PENDING_VALUE]
        left = pending - S[i, NPICKS] - 1
        budget = sticks - S[i, PENDING_COST]
        for j in range(SHOW_LEN[value]):
            f = SHOW_FACE[value, j]
            c = SHOW_COST[value, j]
            if S[i, hand + f] and c <= budget and _cheapest(S, i, hand, value, left, f) <= budget - c:
                bytes_out[i, PICK_BASE + f] = 1
        return
    nv = S[i, NV]
    n = S[i, TABLE_COUNT]
    if n:
        bytes_out[i, PASS] = 1
        old = S[i, TABLE_VALUE]
        if S[i, REVERSED]:
            for v in range(old):
                if _cheapest(S, i, hand, v, n, -1) <= sticks:
                    bytes_out[i, PLAY_BASE + (n - 1) * V + v] = 1
        else:
            for v in range(old + 1, nv):
                if _cheapest(S, i, hand, v, n, -1) <= sticks:
                    bytes_out[i, PLAY_BASE + (n - 1) * V + v] = 1
        return
    for v in range(nv):
        total = 0
        k = 0
        for j in range(SHOW_LEN[v]):
            f = SHOW_FACE[v, j]
            c = SHOW_COST[v, j]
            for _ in range(S[i, hand + f]):
                if k == MAX_PLAY:
                    break
                total += c
                if total > sticks:
                    break
                bytes_out[i, PLAY_BASE + k * V + v] = 1
                k += 1
            if k == MAX_PLAY or total > sticks:
                break


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    """Is ``action`` legal for the player to move (``False`` at chance and terminal nodes)?"""
    if S[i, PHASE] != PLAY or not 0 <= action < NUM_ACTS:
        return False
    p = S[i, TURN]
    hand = HANDS + F * p
    if S[i, SIZES + p] == 0:
        return action == DISCARD  # type: ignore[no-any-return]
    sticks = S[i, STICKS + p]
    pending = S[i, PENDING_COUNT]
    if pending:
        if action < PICK_BASE:
            return False
        f = action - PICK_BASE
        value = S[i, PENDING_VALUE]
        c = COST_A[f, value]
        budget = sticks - S[i, PENDING_COST]
        if c < 0 or S[i, hand + f] == 0 or c > budget:
            return False
        return _cheapest(S, i, hand, value, pending - S[i, NPICKS] - 1, f) <= budget - c  # type: ignore[no-any-return]
    n = S[i, TABLE_COUNT]
    if action == PASS:
        return n > 0  # type: ignore[no-any-return]
    if action == DISCARD or action >= PICK_BASE:
        return False
    k = (action - PLAY_BASE) // V + 1
    v = (action - PLAY_BASE) % V
    if v >= S[i, NV]:
        return False
    if n:
        old = S[i, TABLE_VALUE]
        if k != n or not (v < old if S[i, REVERSED] else v > old):
            return False
    return _cheapest(S, i, hand, v, k, -1) <= sticks  # type: ignore[no-any-return]


@jit_helper
def _next_in_game(S: np.ndarray, i: int, seat: int) -> int:
    n = S[i, NP]
    for step in range(1, n + 1):
        s = (seat + step) % n
        if S[i, IN_GAME + s]:
            return s  # type: ignore[no-any-return]
    return -1  # unreachable: the game ends with one player left


@jit_helper
def _go_out(S: np.ndarray, i: int, p: int) -> None:
    S[i, IN_GAME + p] = 0
    S[i, PASSED + p] = 0
    S[i, PLACE + p] = S[i, NOUT]
    S[i, OUT_ORDER + S[i, NOUT]] = p
    S[i, NOUT] += 1
    n = S[i, NP]
    remaining = 0
    last = -1
    for s in range(n):
        if S[i, IN_GAME + s]:
            remaining += 1
            last = s
    if remaining == 1:
        S[i, IN_GAME + last] = 0
        S[i, PLACE + last] = S[i, NOUT]
        S[i, OUT_ORDER + S[i, NOUT]] = last
        S[i, NOUT] += 1
        S[i, PHASE] = OVER
        S[i, TURN] = -1


@jit_helper
def _no_play(S: np.ndarray, i: int, p: int) -> None:
    """A pass or a discard: a turn without playing; the table is cleared once every other player did one."""
    n = S[i, NP]
    if S[i, TABLE_COUNT]:
        if S[i, IN_GAME + p]:
            S[i, PASSED + p] = 1
        last = S[i, LAST]
        everyone = True
        for s in range(n):
            if S[i, IN_GAME + s] and s != last and not S[i, PASSED + s]:
                everyone = False
                break
        if everyone:
            leader = last if S[i, IN_GAME + last] else _next_in_game(S, i, last)
            S[i, TABLE_VALUE] = -1
            S[i, TABLE_COUNT] = 0
            for k in range(MAX_PLAY):
                S[i, TABLE_FACES + k] = -1
            S[i, LAST] = -1
            for s in range(n):
                S[i, PASSED + s] = 0
            S[i, TURN] = leader
            return
    S[i, TURN] = _next_in_game(S, i, p)


@jit_helper
def _complete_play(S: np.ndarray, i: int, p: int) -> None:
    n = S[i, PENDING_COUNT]
    cost = S[i, PENDING_COST]
    S[i, STICKS + p] -= cost
    S[i, SPENT] += cost
    for k in range(MAX_PLAY):
        f = S[i, PICKS + k]
        if k < n:
            S[i, PLAYED + f] += 1
            S[i, PLAYED_BY + F * p + f] += 1
        S[i, TABLE_FACES + k] = f
        S[i, PICKS + k] = -1
    S[i, TABLE_VALUE] = S[i, PENDING_VALUE]
    S[i, TABLE_COUNT] = n
    S[i, LAST] = p
    for s in range(S[i, NP]):
        S[i, PASSED + s] = 0
    S[i, PENDING_VALUE] = -1
    S[i, PENDING_COUNT] = 0
    S[i, NPICKS] = 0
    S[i, PENDING_COST] = 0
    if n == MAX_PLAY:
        S[i, REVERSED] = 1 - S[i, REVERSED]
        S[i, REVOLUTIONS] += 1
    if S[i, SIZES + p] == 0 and S[i, STICKS + p] == 0:
        _go_out(S, i, p)
    if S[i, PHASE] != OVER:
        S[i, TURN] = _next_in_game(S, i, p)


@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """Apply a legal action or chance outcome (unchecked)."""
    phase = S[i, PHASE]
    if phase == CHOOSE_FIRST:
        S[i, FIRST] = action
        S[i, PHASE] = DEAL
        return
    if phase == DEAL:
        seat = S[i, DEALT] % S[i, NP]
        S[i, HANDS + F * seat + action] += 1
        S[i, SIZES + seat] += 1
        S[i, UNDEALT + action] -= 1
        S[i, DEALT] += 1
        if S[i, DEALT] == S[i, CARDS]:
            S[i, PHASE] = PLAY
            S[i, TURN] = S[i, FIRST]
        return
    S[i, DECISIONS] += 1
    p = S[i, TURN]
    if action == PASS:
        S[i, STICKS + p] += 1
        _no_play(S, i, p)
    elif action == DISCARD:
        S[i, STICKS + p] -= 1
        if S[i, STICKS + p] == 0:
            _go_out(S, i, p)
        if S[i, PHASE] != OVER:
            _no_play(S, i, p)
    elif action < PICK_BASE:
        k = action - PLAY_BASE
        S[i, PENDING_COUNT] = k // V + 1
        S[i, PENDING_VALUE] = k % V
        S[i, NPICKS] = 0
        S[i, PENDING_COST] = 0
    else:
        f = action - PICK_BASE
        S[i, HANDS + F * p + f] -= 1
        S[i, SIZES + p] -= 1
        S[i, PICKS + S[i, NPICKS]] = f
        S[i, NPICKS] += 1
        S[i, PENDING_COST] += COST_A[f, S[i, PENDING_VALUE]]
        if S[i, NPICKS] == S[i, PENDING_COUNT]:
            _complete_play(S, i, p)


@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write every seat's outcome return into ``out``: zeros until the end, then ``rank_returns`` of the
    finishing places (first out +1, last -1, linear in between)."""
    n = S[i, NP]
    over = S[i, PHASE] == OVER
    for s in range(n):
        out[s] = 1.0 - 2.0 * S[i, PLACE + s] / (n - 1) if over else 0.0


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32, layout in ``observation.py``) into row ``i`` of ``out``: its own
    hand and public facts only."""
    for k in range(OBS_SIZE):
        out[i, k] = 0.0
    n = S[i, NP]
    hand = HANDS + F * seat
    for f in range(F):
        out[i, O_HAND + f] = S[i, hand + f] / 4.0
    count = S[i, TABLE_COUNT]
    if count:
        out[i, O_TABLE_VALUE + S[i, TABLE_VALUE]] = 1.0
        out[i, O_TABLE_COUNT + count - 1] = 1.0
        for k in range(count):
            out[i, O_TABLE_FACES + S[i, TABLE_FACES + k]] += 0.25
    out[i, O_REVERSED] = 1.0 if S[i, REVERSED] else 0.0
    npicks = S[i, NPICKS]
    if S[i, PENDING_COUNT]:
        out[i, O_ANN_VALUE + S[i, PENDING_VALUE]] = 1.0
        out[i, O_ANN_COUNT + S[i, PENDING_COUNT] - 1] = 1.0
        for k in range(npicks):
            out[i, O_PICKED + S[i, PICKS + k]] += 0.25
        out[i, O_PICKED_COST] = min(S[i, PENDING_COST], STICK_CAP) / STICK_CAP
    for f in range(F):
        deck = S[i, DECK + f]
        if deck:
            out[i, O_PLAYED + f] = S[i, PLAYED + f] / deck
            picked = 0
            for k in range(npicks):
                if S[i, PICKS + k] == f:
                    picked += 1
            out[i, O_UNSEEN + f] = (deck - S[i, hand + f] - S[i, PLAYED + f] - picked) / 4.0
    for k in range(n):
        s = (seat + k) % n
        out[i, O_PRESENT + k] = 1.0
        if S[i, IN_GAME + s]:
            out[i, O_IN_GAME + k] = 1.0
        out[i, O_CARDS + k] = S[i, SIZES + s] / HAND_SCALE
        out[i, O_STICKS + k] = min(S[i, STICKS + s], STICK_CAP) / STICK_CAP
        if S[i, PASSED + s]:
            out[i, O_PASSED + k] = 1.0
        if S[i, PLACE + s] >= 0:
            out[i, O_PLACE + k * P + S[i, PLACE + s]] = 1.0
    if S[i, LAST] >= 0 and count:
        out[i, O_LAST + (S[i, LAST] - seat) % n] = 1.0
    player = current_player(S, i)
    if player >= 0:
        out[i, O_CURRENT + (player - seat) % n] = 1.0
    out[i, O_EXPANSION] = S[i, EXP] / 4.0


__doc__ = (__doc__ or "").replace("{row_table}", ROW.table())
