"""Olenon's rules as compiled kernels over a flat ``int16`` state row: the one implementation of the rules.

``OlenonState`` (``game.py``) wraps one row (a one-row matrix); ``gameshelf.vector`` steps a matrix of
them. Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists what a
kernel module provides), is compiled by numba and also runs as plain Python. The row is declared once, as
``ROW`` below (fields, offsets, bounds; ``envs.core.row``; seats 0..3, card values 0..6):

{row_table}

The drivers (chance resolution, random playouts, the batch steps) are the template's, in ``envs.core.kernel``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import below, jit, jit_helper
from gameshelf.envs.core.row import RowLayout
from gameshelf.envs.olenon.actions import CHOOSE_FIRST, DEAL, NUM_ACTIONS, OVER, PASS, PLAY, REPLACE_BASE
from gameshelf.envs.olenon.cards import DEALT as CARDS_DEALT
from gameshelf.envs.olenon.cards import (
    DECK,
    MAX_HAND,
    MAX_ROUNDS,
    MAX_TABLE,
    NUM_SEATS,
    NUM_VALUES,
    ROUNDS_TO_WIN,
)
from gameshelf.envs.olenon.observation import LAYOUT

FIRST_PLAYER_RULES = ("rotate", "winner", "loser_team", "random")

P, V = NUM_SEATS, NUM_VALUES
COUNT_MAX = 32767
"""The bound of a count the rules leave open (they allow endless play): plays this round, decisions."""

ROW = RowLayout("olenon")
PHASE = ROW.add("phase", 1, "CHOOSE_FIRST, DEAL, PLAY or OVER", (CHOOSE_FIRST, OVER), fill=CHOOSE_FIRST)
ROUND = ROW.add("round_index", 1, "0-based round number", (0, MAX_ROUNDS - 1))
WINS = ROW.add("wins", 2, "rounds won by team A (seats 0, 2) and team B (seats 1, 3)", (0, ROUNDS_TO_WIN))
ROUND_FIRST = ROW.add("round_first", 1, "first player of the round (-1 while it is chosen)", (-1, P - 1), fill=-1)
OUT_PLAYER = ROW.add("out_player", 1, "the player who went out most recently (-1: none)", (-1, P - 1), fill=-1)
HANDS = ROW.add("hands", (P, V), "cards of value v in seat s's hand", (0, max(DECK)), per_seat=True)
SIZES = ROW.add("hand_sizes", P, "cards in each hand", (0, CARDS_DEALT))
DEALT = ROW.add("dealt", 1, "cards dealt this round (the k-th goes to seat k % 4)", (0, CARDS_DEALT))
TABLE_VALUE = ROW.add("table_value", 1, "value of the table cards (-1 when empty)", (-1, V - 1), fill=-1)
TABLE_COUNT = ROW.add("table_count", 1, "cards on the table", (0, MAX_TABLE))
PASSED = ROW.add("passed", P, "value of each seat's face-up passed card (-1: not passed)", (-1, V - 1), fill=-1)
DISCARDS = ROW.add("discards", V, "cards discarded this round per value", (0, max(DECK)))
KNOWN = ROW.add("known", (P, V), "cards publicly known to be in seat s's hand", (0, max(DECK)), per_seat=True)
PLAYED = ROW.add("played", (P, V), "cards seat s played this round (to rebuild the deal)", (0, COUNT_MAX), per_seat=True)
PICKED = ROW.add("picked", (P, V), "passed cards seat s took back into hand this round", (0, COUNT_MAX), per_seat=True)
TURN = ROW.add("turn", 1, "seat to act (-1 outside play)", (-1, P - 1), fill=-1)
LAST = ROW.add("last_player", 1, "the seat that most recently played cards this round (-1: none)", (-1, P - 1), fill=-1)
RULE = ROW.add("first_player_rule", 1, "option: index in FIRST_PLAYER_RULES", (0, len(FIRST_PLAYER_RULES) - 1))
OPEN = ROW.flag("open_team_info", "option open_team_info")
DECISIONS = ROW.add("decisions", 1, "player decisions so far (the batched environment's truncation counter)", (0, COUNT_MAX))
SIZE = ROW.size
ROUND_START = HANDS
"""``ROUND_START .. LAST + 1``: the fields a new round resets (hands to the last player)."""

DECK_A = np.array(DECK, dtype=np.int64)
NUM_ACTS = NUM_ACTIONS
INV_DECK = np.array([1.0 / c for c in DECK], dtype=np.float64)

O_HAND = LAYOUT.offset("hand")
O_SIZES = LAYOUT.offset("hand_sizes")
O_TABLE_COUNT = LAYOUT.offset("table_count")
O_TABLE_VALUE = LAYOUT.offset("table_value")
O_PASSED = LAYOUT.offset("passed")
O_DISCARDS = LAYOUT.offset("discards")
O_KNOWN = LAYOUT.offset("known")
O_OPEN = LAYOUT.offset("open_hands")
O_CURRENT = LAYOUT.offset("current")
O_LAST = LAYOUT.offset("last_player")
O_TEAM = LAYOUT.offset("team")
O_WINS = LAYOUT.offset("round_wins")
O_ROUND = LAYOUT.offset("round")
O_OPEN_INFO = LAYOUT.offset("open_info")
OBS_SIZE = LAYOUT.size


def initial_state(first_player_rule: str, open_team_info: bool) -> np.ndarray:
    """The state row before the first chance node (built once per game; a new game copies it)."""
    s = ROW.new_row()
    ROW.put(s, "first_player_rule", FIRST_PLAYER_RULES.index(first_player_rule))
    ROW.put(s, "open_team_info", int(open_team_info))
    return s


@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    phase = S[i, PHASE]
    if phase == PLAY:
        return S[i, TURN]  # type: ignore[no-any-return]
    if phase == OVER:
        return TERMINAL
    return CHANCE


@jit_helper
def chance_weight(S: np.ndarray, i: int, outcome: int) -> int:
    """Weight of a chance outcome (0: impossible): 1 per seat when choosing the first player, else the
    undealt copies of the value."""
    if S[i, PHASE] == CHOOSE_FIRST:
        return 1 if 0 <= outcome < P else 0
    if S[i, PHASE] != DEAL or not 0 <= outcome < V:
        return 0
    left = DECK_A[outcome]
    for seat in range(P):
        left -= S[i, HANDS + V * seat + outcome]
    return left  # type: ignore[no-any-return]


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    """Is ``outcome`` a possible outcome of the chance node (a seat, then a value with copies left)?"""
    return chance_weight(S, i, outcome) > 0


NUM_CHANCE = max(P, V)
"""Chance outcome ids are below this (``chance_weights`` writes that many weights)."""


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the odds of the chance node into row ``i`` of ``out`` as integer weights per outcome id
    (``chance_weight``'s: each seat alike for the first player, then each value by its undealt copies)."""
    for k in range(NUM_CHANCE):
        out[i, k] = chance_weight(S, i, k)


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """Draw the chance outcome with generator ``i`` of ``rngs``: a seat, or the value of the next dealt card."""
    if S[i, PHASE] == CHOOSE_FIRST:
        return below(rngs, i, P)  # type: ignore[no-any-return]
    total = 0
    for v in range(V):
        total += chance_weight(S, i, v)
    u = below(rngs, i, total)
    for v in range(V):
        w = chance_weight(S, i, v)
        if u < w:
            return v
        u -= w
    return V - 1


@jit_helper
def beats(new: int, old: int) -> bool:
    return new > old or (new == 0 and old == 6)


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the legal action mask (all False outside play) into row ``i`` of ``out``."""
    bytes_out = out.view(np.uint8)  # numba writes bools one by one
    for a in range(NUM_ACTS):
        bytes_out[i, a] = 0
    if S[i, PHASE] != PLAY:
        return
    hand = HANDS + V * S[i, TURN]
    n = S[i, TABLE_COUNT]
    if n == 0:
        for v in range(V):
            for k in range(1, min(MAX_TABLE, S[i, hand + v]) + 1):
                bytes_out[i, (k - 1) * V + v] = 1
        return
    v = S[i, TABLE_VALUE]
    for k in range(1, min(MAX_TABLE - n, S[i, hand + v]) + 1):
        bytes_out[i, (k - 1) * V + v] = 1
    for w in range(V):
        if beats(w, v) and S[i, hand + w] >= n:
            bytes_out[i, REPLACE_BASE + w] = 1
    bytes_out[i, PASS] = 1


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    """Is ``action`` legal for the player to move (``False`` at chance and terminal nodes)?"""
    if S[i, PHASE] != PLAY or not 0 <= action < NUM_ACTS:
        return False
    hand = HANDS + V * S[i, TURN]
    n = S[i, TABLE_COUNT]
    if action == PASS:
        return n > 0  # type: ignore[no-any-return]
    if action >= REPLACE_BASE:
        w = action - REPLACE_BASE
        return n > 0 and beats(w, S[i, TABLE_VALUE]) and S[i, hand + w] >= n  # type: ignore[no-any-return]
    k, v = action // V + 1, action % V
    if n > 0 and v != S[i, TABLE_VALUE]:
        return False
    return n + k <= MAX_TABLE and S[i, hand + v] >= k  # type: ignore[no-any-return]


@jit_helper
def _next_active(S: np.ndarray, i: int, seat: int) -> int:
    """The next seat clockwise after ``seat`` that has not passed (one always exists mid-trick)."""
    for step in range(1, P):
        s = (seat + step) % P
        if S[i, PASSED + s] < 0:
            return s
    return -1  # unreachable: a team pass ends the trick


@jit_helper
def _end_trick(S: np.ndarray, i: int) -> None:
    """Passed players take their cards back, the table is discarded, the last player to play leads."""
    for s in range(P):
        card = S[i, PASSED + s]
        if card >= 0:
            S[i, HANDS + V * s + card] += 1
            S[i, SIZES + s] += 1
            S[i, KNOWN + V * s + card] += 1
            S[i, PICKED + V * s + card] += 1
            S[i, PASSED + s] = -1
    if S[i, TABLE_COUNT]:
        S[i, DISCARDS + S[i, TABLE_VALUE]] += S[i, TABLE_COUNT]
    S[i, TABLE_COUNT] = 0
    S[i, TABLE_VALUE] = -1
    S[i, TURN] = S[i, LAST]


@jit_helper
def _new_round(S: np.ndarray, i: int) -> None:
    for k in range(ROUND_START, LAST + 1):
        S[i, k] = 0
    S[i, TABLE_VALUE] = S[i, TURN] = S[i, LAST] = -1
    for s in range(P):
        S[i, PASSED + s] = -1


@jit_helper
def _end_round(S: np.ndarray, i: int, seat: int) -> None:
    team = seat % 2
    S[i, WINS + team] += 1
    S[i, OUT_PLAYER] = seat
    if S[i, WINS + team] >= ROUNDS_TO_WIN:
        S[i, PHASE] = OVER  # the final position stays as it was (table, hands) for display
        S[i, TURN] = -1
        return
    rule = S[i, RULE]
    S[i, ROUND] += 1
    _new_round(S, i)
    if rule == 3:  # random: a fresh chance node
        S[i, ROUND_FIRST] = -1
        S[i, PHASE] = CHOOSE_FIRST
        return
    if rule == 0:  # rotate
        S[i, ROUND_FIRST] = (S[i, ROUND_FIRST] + 1) % P
    elif rule == 1:  # winner
        S[i, ROUND_FIRST] = seat
    else:  # loser_team: the opponent seated next clockwise after the player who went out
        S[i, ROUND_FIRST] = (seat + 1) % P
    S[i, PHASE] = DEAL


@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """Apply a legal action or chance outcome (unchecked)."""
    phase = S[i, PHASE]
    if phase == CHOOSE_FIRST:
        S[i, ROUND_FIRST] = action
        S[i, PHASE] = DEAL
        return
    if phase == DEAL:
        seat = S[i, DEALT] % P
        S[i, HANDS + V * seat + action] += 1
        S[i, SIZES + seat] += 1
        S[i, DEALT] += 1
        if S[i, DEALT] == CARDS_DEALT:
            S[i, PHASE] = PLAY
            S[i, TURN] = S[i, ROUND_FIRST]
        return
    S[i, DECISIONS] += 1
    seat = S[i, TURN]
    if action == PASS:
        S[i, PASSED + seat] = S[i, TABLE_VALUE]
        S[i, TABLE_COUNT] -= 1
        if S[i, TABLE_COUNT] == 0:
            S[i, TABLE_VALUE] = -1
        if S[i, PASSED + (seat + 2) % P] >= 0:
            _end_trick(S, i)  # both players of this team have passed
        else:
            S[i, TURN] = _next_active(S, i, seat)
        return
    if action >= REPLACE_BASE:
        value = action - REPLACE_BASE
        count = S[i, TABLE_COUNT]
        S[i, DISCARDS + S[i, TABLE_VALUE]] += count
        S[i, TABLE_COUNT] = 0
    else:
        value = action % V
        count = action // V + 1
    S[i, HANDS + V * seat + value] -= count
    S[i, SIZES + seat] -= count
    S[i, PLAYED + V * seat + value] += count
    S[i, KNOWN + V * seat + value] = max(0, S[i, KNOWN + V * seat + value] - count)
    S[i, TABLE_VALUE] = value
    S[i, TABLE_COUNT] += count
    S[i, LAST] = seat
    if S[i, SIZES + seat] == 0:
        _end_round(S, i, seat)
    elif S[i, TABLE_COUNT] == MAX_TABLE:
        _end_trick(S, i)  # Olenon
    else:
        S[i, TURN] = _next_active(S, i, seat)


@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write every seat's outcome return into ``out``: zeros until the end, then +1 / -1 by team."""
    a, b = S[i, WINS], S[i, WINS + 1]
    team_a = 0.0
    if S[i, PHASE] == OVER and a != b:
        team_a = 1.0 if a > b else -1.0
    for seat in range(P):
        out[seat] = team_a if seat % 2 == 0 else -team_a


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32, layout in ``observation.py``) into row ``i`` of ``out``:
    its own hand, public facts, and the other hands only with ``open_team_info``."""
    for k in range(OBS_SIZE):
        out[i, k] = 0.0
    for v in range(V):
        out[i, O_HAND + v] = S[i, HANDS + V * seat + v] * INV_DECK[v]
        out[i, O_DISCARDS + v] = S[i, DISCARDS + v] * INV_DECK[v]
    open_info = S[i, OPEN] != 0
    for e in range(P):
        s = (seat + e) % P
        out[i, O_SIZES + e] = S[i, SIZES + s] / MAX_HAND
        card = S[i, PASSED + s]
        if card >= 0:
            out[i, O_PASSED + e * (1 + V)] = 1.0
            out[i, O_PASSED + e * (1 + V) + 1 + card] = 1.0
        if e > 0:
            for v in range(V):
                out[i, O_KNOWN + (e - 1) * V + v] = S[i, KNOWN + V * s + v] * INV_DECK[v]
                if open_info:
                    out[i, O_OPEN + (e - 1) * V + v] = S[i, HANDS + V * s + v] * INV_DECK[v]
    out[i, O_TABLE_COUNT + S[i, TABLE_COUNT]] = 1.0
    if S[i, TABLE_COUNT]:
        out[i, O_TABLE_VALUE + S[i, TABLE_VALUE]] = 1.0
    player = current_player(S, i)
    if player >= 0:
        out[i, O_CURRENT + (player - seat) % P] = 1.0
    if S[i, LAST] >= 0:
        out[i, O_LAST + (S[i, LAST] - seat) % P] = 1.0
    team = seat % 2
    out[i, O_TEAM + team] = 1.0
    out[i, O_WINS] = S[i, WINS + team] / ROUNDS_TO_WIN
    out[i, O_WINS + 1] = S[i, WINS + 1 - team] / ROUNDS_TO_WIN
    out[i, O_ROUND + min(S[i, ROUND], MAX_ROUNDS - 1)] = 1.0
    if open_info:
        out[i, O_OPEN_INFO] = 1.0


__doc__ = __doc__.replace("{row_table}", ROW.table())
