"""Tsukuru 10 Ten observation: one flat ``float32`` vector in [0, 1] built from named pieces.

Seats inside a piece are egocentric (the observing seat first, then the next seats clockwise), padded
to four seats. Imports no Pillow or torch (the package card reads ``LAYOUT.table()``). The kernel
``observation`` (``kernel.py``) writes the vector.
"""

from __future__ import annotations

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.tsukuru_ten_ten.actions import MAX_PLAYERS
from gameshelf.envs.tsukuru_ten_ten.hand import HAND_SIZE
from gameshelf.envs.tsukuru_ten_ten.tiles import NUM_KINDS, NUM_TILES

PILE_SLOTS = 28
"""Most recent discards of each pile shown in order (older ones still count in ``discard_counts``)."""
MAX_DECK = NUM_TILES - 2 * HAND_SIZE

LAYOUT = ObservationLayout()
LAYOUT.add("hand", NUM_KINDS, "own concealed tiles of each kind / copies of that kind")
LAYOUT.add("drawn", NUM_KINDS, "one-hot kind of the tile drawn this turn (while discarding after a draw)")
LAYOUT.add(
    "open_sets",
    (MAX_PLAYERS, 2, NUM_KINDS + 2),
    "per ego seat, per open set: its tiles of each kind / 3, then one-hot colour (blue, red; none while being chosen)",
)
LAYOUT.add("discard_counts", (MAX_PLAYERS, NUM_KINDS), "per ego seat: tiles of each kind in the discard pile / 4")
LAYOUT.add(
    "discard_order",
    (MAX_PLAYERS, PILE_SLOTS, NUM_KINDS),
    f"per ego seat: one-hot kind of its discards in order, most recent first (the last {PILE_SLOTS})",
)
LAYOUT.add("claimable", MAX_PLAYERS, "per ego seat: 1 if its top discard is its most recent one (claimable; see claim_from)")
LAYOUT.add("concealed", MAX_PLAYERS, "per ego seat: concealed tiles / 8")
LAYOUT.add("deck", 1, f"tiles left in the deck / {MAX_DECK}")
LAYOUT.add("unseen", NUM_KINDS, "per kind: tiles the seat cannot see (deck and other hands) / copies")
LAYOUT.add("scores", MAX_PLAYERS, "per ego seat: points / target (4 basic, 25 advanced), capped at 1")
LAYOUT.add("dealer", MAX_PLAYERS, "one-hot ego seat of the dealer")
LAYOUT.add("current", MAX_PLAYERS, "one-hot ego seat to act (zero at chance and terminal nodes)")
LAYOUT.add("phase", 3, "one-hot decision: turn start, discard (after a draw or a get), colour of an all-purple set")
LAYOUT.add("turns", MAX_PLAYERS, "per ego seat: turns started this round / 30, capped at 1")
LAYOUT.add("dealt_rounds", MAX_PLAYERS, "per ego seat: rounds dealt / 2, capped at 1")
LAYOUT.add("players", 3, "one-hot number of players 2, 3, 4")
LAYOUT.add("options", 3, "advanced scoring, claim from previous player only, dealer-twice end")

SIZE = LAYOUT.size
