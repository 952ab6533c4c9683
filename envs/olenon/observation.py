"""Olenon's observation vector: one flat ``float32`` vector in [0, 1] built from named pieces.

Model: OpenSpiel's ``KuhnPokerObserver``. ``LAYOUT`` lists the pieces in order with their shapes
(``LAYOUT["hand"]`` is a piece's slice; the card's table is generated from it). Seats inside a piece
are egocentric: the observing seat first, then
the next seats clockwise (so position 2 is always the partner). The vector is written by the kernel
(``kernel.observation``).
"""

from __future__ import annotations

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.olenon.cards import MAX_ROUNDS, MAX_TABLE, NUM_SEATS, NUM_VALUES

LAYOUT = ObservationLayout()
LAYOUT.add("hand", NUM_VALUES, "own cards of each value / copies of that value in the deck")
LAYOUT.add("hand_sizes", NUM_SEATS, "cards in hand per ego seat / 28")
LAYOUT.add("table_count", MAX_TABLE + 1, "one-hot 0..4 cards on the table")
LAYOUT.add("table_value", NUM_VALUES, "one-hot value of the table cards (zero when empty)")
LAYOUT.add("passed", (NUM_SEATS, 1 + NUM_VALUES), "per ego seat: [passed, one-hot value of the face-up card]")
LAYOUT.add("discards", NUM_VALUES, "discarded this round per value / copies in the deck")
LAYOUT.add("known", (NUM_SEATS - 1, NUM_VALUES), "per other ego seat 1..3: cards publicly known in that hand / copies (1)")
LAYOUT.add("open_hands", (NUM_SEATS - 1, NUM_VALUES), "per other ego seat: its exact hand / copies (`open_team_info` only)")
LAYOUT.add("current", NUM_SEATS, "one-hot ego seat to act (zero at chance and terminal nodes)")
LAYOUT.add("last_player", NUM_SEATS, "one-hot ego seat that most recently played cards this round")
LAYOUT.add("team", 2, "one-hot own team (A, B)")
LAYOUT.add("round_wins", 2, "[own team, other team] rounds won / 2")
LAYOUT.add("round", MAX_ROUNDS, "one-hot round number 1..3")
LAYOUT.add("open_info", 1, "1 with `open_team_info`")
SIZE = LAYOUT.size
OFFSETS = LAYOUT.slices
"""120 entries."""
