"""CATsle Builders' action encoding and the phases of a round (what ``state.phase`` waits for).

The card's action table lists the numbers below; cards are numbered as in ``cards``.
"""

from __future__ import annotations

from gameshelf.envs.catsle_builders.cards import MAX_COLUMNS, NUM_CARDS

# ---- action encoding -----------------------------------------------------------------------------
PLAY_BASE = 0
"""``play <card>``: action ``card`` (0..59)."""
TAKE_BASE = NUM_CARDS
"""``take <card>``: action ``60 + card`` (60..119)."""
PLACE_BASE = 2 * NUM_CARDS
"""``place in column k``: action ``120 + k`` (k = 0..4; column 4 is the limit-0 column)."""
NUM_ACTIONS = PLACE_BASE + MAX_COLUMNS  # 125


# ---- phases ------------------------------------------------------------------------------------------
FIRST, DEAL, PLAY, TAKE, PLACE, OVER = range(6)
"""Chance: the first player; chance: the deal; play a card; take cards of the trick; place a taken card; the end."""
PHASE_NAMES = ("first", "deal", "play", "take", "place", "over")
