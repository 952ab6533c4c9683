"""CATsle Builders' observation: one flat ``float32`` vector in [0, 1] built from named pieces.

Seats inside a piece are egocentric (the observing seat first, then the others in turn order), padded
to 5 seats. The kernel ``observation`` (``kernel.py``) writes it. Imports no Pillow or torch (the package
docstring fills its table from ``LAYOUT``).
"""

from __future__ import annotations

from gameshelf.envs.catsle_builders.cards import (
    MAX_COLUMNS,
    MAX_PLAYERS,
    NUM_CARDS,
    NUM_ROUNDS,
    NUM_SUITS,
)
from gameshelf.envs.core.observation import ObservationLayout

MAX_TAKEN = 28
"""Scale for column counts: a player takes at most 2 cards in each of at most 14 tricks of a round."""
MAX_HAND = 14

LAYOUT = ObservationLayout()
LAYOUT.add("hand", NUM_CARDS, "own hand: 1 per card held (card = suit × 12 + value − 1)")
LAYOUT.add("trick", (MAX_PLAYERS, NUM_CARDS), "per ego seat: 1 at the card it played in the current trick")
LAYOUT.add("trick_left", NUM_CARDS, "cards still in the trick while it is being taken")
LAYOUT.add("led_suit", NUM_SUITS, "one-hot suit led in the current trick (zero before the lead)")
LAYOUT.add(
    "boards",
    (MAX_PLAYERS, MAX_COLUMNS, NUM_SUITS + 1),
    "per ego seat and column (limits order, column 5 = limit 0): one-hot suit held, then cards / 28",
)
LAYOUT.add("limits", MAX_COLUMNS, "limit of each column / 12 (zero for a column the board lacks)")
LAYOUT.add("played", NUM_CARDS, "cards played this round (boards, discards and the trick)")
LAYOUT.add("discards", NUM_CARDS, "cards discarded this round (left in a trick, not taken)")
LAYOUT.add("voids", (MAX_PLAYERS, NUM_SUITS), "per ego seat: 1 for each suit it showed it lacks this round")
LAYOUT.add("hand_sizes", MAX_PLAYERS, "cards in hand per ego seat / 14")
LAYOUT.add("totals", MAX_PLAYERS, "total score per ego seat / (3 × (sum of limits + 4))")
LAYOUT.add("last_perfect", MAX_PLAYERS, "perfect columns per ego seat in the latest round scoring / 4")
LAYOUT.add("round", NUM_ROUNDS, "one-hot round 1..3")
LAYOUT.add("round_first", MAX_PLAYERS, "one-hot ego seat that led the round's first trick")
LAYOUT.add("leader", MAX_PLAYERS, "one-hot ego seat that leads the current trick")
LAYOUT.add("to_act", MAX_PLAYERS, "one-hot ego seat to act (zero at chance and terminal nodes)")
LAYOUT.add("phase", 3, "one-hot decision kind: play a card, take a card, place a card")
LAYOUT.add("pending", NUM_CARDS, "the taken card waiting to be placed (place decisions)")
LAYOUT.add("takes_left", MAX_PLAYERS, "per ego seat: cards it still takes from the current trick / 2")
LAYOUT.add("players", 3, "one-hot player count 3, 4, 5")
