"""Olenon's observation vector: one flat ``float32`` vector in [0, 1] built from named pieces.

Model: OpenSpiel's ``KuhnPokerObserver``. ``OBSERVATION`` lists the pieces in order with their shapes
(``OBSERVATION["hand"]`` is a piece's slice; the card's table is generated from it). Seats inside a piece
are egocentric: the observing seat first, then
the next seats clockwise (so position 2 is always the partner).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.olenon.cards import DECK, MAX_HAND, MAX_ROUNDS, MAX_TABLE, NUM_SEATS, NUM_VALUES, ROUNDS_TO_WIN

if TYPE_CHECKING:
    from gameshelf.envs.olenon.rules import OlenonState

OBSERVATION = ObservationLayout()
OBSERVATION.add("hand", NUM_VALUES, "own cards of each value / copies of that value in the deck")
OBSERVATION.add("hand_sizes", NUM_SEATS, "cards in hand per ego seat / 28")
OBSERVATION.add("table_count", MAX_TABLE + 1, "one-hot 0..4 cards on the table")
OBSERVATION.add("table_value", NUM_VALUES, "one-hot value of the table cards (zero when empty)")
OBSERVATION.add("passed", (NUM_SEATS, 1 + NUM_VALUES), "per ego seat: [passed, one-hot value of the face-up card]")
OBSERVATION.add("discards", NUM_VALUES, "discarded this round per value / copies in the deck")
OBSERVATION.add("known", (NUM_SEATS - 1, NUM_VALUES), "per other ego seat 1..3: cards publicly known in that hand / copies (1)")
OBSERVATION.add("open_hands", (NUM_SEATS - 1, NUM_VALUES), "per other ego seat: its exact hand / copies (`open_team_info` only)")
OBSERVATION.add("current", NUM_SEATS, "one-hot ego seat to act (zero at chance and terminal nodes)")
OBSERVATION.add("last_player", NUM_SEATS, "one-hot ego seat that most recently played cards this round")
OBSERVATION.add("team", 2, "one-hot own team (A, B)")
OBSERVATION.add("round_wins", 2, "[own team, other team] rounds won / 2")
OBSERVATION.add("round", MAX_ROUNDS, "one-hot round number 1..3")
OBSERVATION.add("open_info", 1, "1 with `open_team_info`")
SIZE = OBSERVATION.size
OFFSETS = OBSERVATION.slices
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
