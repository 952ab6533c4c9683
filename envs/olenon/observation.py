"""Olenon's observation vector: one flat ``float32`` vector in [0, 1] built from named pieces.

Model: OpenSpiel's ``KuhnPokerObserver``. ``LAYOUT`` lists the pieces in order with their sizes;
``OFFSETS`` gives each piece's slice. Seats inside a piece are egocentric: the observing seat first, then
the next seats clockwise (so position 2 is always the partner).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.olenon.cards import DECK, MAX_HAND, MAX_ROUNDS, MAX_TABLE, NUM_SEATS, NUM_VALUES, ROUNDS_TO_WIN

if TYPE_CHECKING:
    from gameshelf.envs.olenon.rules import OlenonState

LAYOUT: tuple[tuple[str, int], ...] = (
    ("hand", NUM_VALUES),  # own cards of each value / copies of that value in the deck
    ("hand_sizes", NUM_SEATS),  # cards in hand of each seat (egocentric) / 28
    ("table_count", MAX_TABLE + 1),  # one-hot: 0..4 cards on the table
    ("table_value", NUM_VALUES),  # one-hot value of the table cards (all zero when empty)
    ("passed", NUM_SEATS * (1 + NUM_VALUES)),  # per egocentric seat: [is passed, one-hot value of its face-up card]
    ("discards", NUM_VALUES),  # discarded this round, per value / copies in the deck
    ("known", (NUM_SEATS - 1) * NUM_VALUES),  # cards publicly known to be in the other hands (seats +1..+3)
    ("open_hands", (NUM_SEATS - 1) * NUM_VALUES),  # the other hands exactly (open_team_info only, else 0)
    ("current", NUM_SEATS),  # one-hot egocentric seat to act (all zero at chance and terminal nodes)
    ("last_player", NUM_SEATS),  # one-hot egocentric seat that most recently played cards this round
    ("team", 2),  # one-hot own team: A (seats 0, 2) or B (seats 1, 3)
    ("round_wins", 2),  # [own team, other team] rounds won / 2
    ("round", MAX_ROUNDS),  # one-hot round number 1..3
    ("open_info", 1),  # 1 when open_team_info is on
)

OFFSETS: dict[str, slice] = {}
_pos = 0
for _name, _size in LAYOUT:
    OFFSETS[_name] = slice(_pos, _pos + _size)
    _pos += _size
SIZE = _pos
"""120 entries."""

_INV_DECK = [1.0 / c for c in DECK]


def encode(state: OlenonState, seat: int) -> np.ndarray:
    """The observation of ``seat`` (only what that seat may know)."""
    out = np.zeros(SIZE, dtype=np.float32)
    # egocentric order of seats
    ego = [(seat + i) % NUM_SEATS for i in range(NUM_SEATS)]
    o = OFFSETS["hand"].start
    hand = state.hands[seat]
    for v in range(NUM_VALUES):
        out[o + v] = hand[v] * _INV_DECK[v]
    o = OFFSETS["hand_sizes"].start
    for i, s in enumerate(ego):
        out[o + i] = state.hand_sizes[s] / MAX_HAND
    out[OFFSETS["table_count"].start + state.table_count] = 1.0
    if state.table_count:
        out[OFFSETS["table_value"].start + state.table_value] = 1.0
    o = OFFSETS["passed"].start
    for i, s in enumerate(ego):
        card = state.passed[s]
        if card >= 0:
            base = o + i * (1 + NUM_VALUES)
            out[base] = 1.0
            out[base + 1 + card] = 1.0
    o = OFFSETS["discards"].start
    for v in range(NUM_VALUES):
        out[o + v] = state.discards[v] * _INV_DECK[v]
    o_known = OFFSETS["known"].start
    o_open = OFFSETS["open_hands"].start
    open_info = state.game.open_team_info
    for i, s in enumerate(ego[1:]):
        known = state.known[s]
        other = state.hands[s]
        for v in range(NUM_VALUES):
            out[o_known + i * NUM_VALUES + v] = known[v] * _INV_DECK[v]
            if open_info:
                out[o_open + i * NUM_VALUES + v] = other[v] * _INV_DECK[v]
    player = state.current_player()
    if player >= 0:
        out[OFFSETS["current"].start + (player - seat) % NUM_SEATS] = 1.0
    if state.last_player >= 0:
        out[OFFSETS["last_player"].start + (state.last_player - seat) % NUM_SEATS] = 1.0
    team = seat % 2
    out[OFFSETS["team"].start + team] = 1.0
    o = OFFSETS["round_wins"].start
    out[o] = state.wins[team] / ROUNDS_TO_WIN
    out[o + 1] = state.wins[1 - team] / ROUNDS_TO_WIN
    out[OFFSETS["round"].start + min(state.round_index, MAX_ROUNDS - 1)] = 1.0
    if open_info:
        out[OFFSETS["open_info"].start] = 1.0
    return out
