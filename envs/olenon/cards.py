"""Olenon's cards: constants and small pure helpers (no state; the action encoding is ``actions``).

Cards are identified by their value 0..6 only (copies of a value are interchangeable), so hands, the
discard pile and the deck are count vectors of length 7.
"""

from __future__ import annotations

NUM_VALUES = 7
"""Card values 0..6."""
DECK: tuple[int, ...] = (6, 5, 5, 4, 4, 4, 4)
"""Copies of each value: 0 x6, 1 x5, 2 x5, 3..6 x4 (32 cards)."""
DECK_SIZE = sum(DECK)
NUM_SEATS = 4
HAND_SIZE = 7
"""Cards dealt to each player at the start of a round."""
DEALT = NUM_SEATS * HAND_SIZE
"""28 cards dealt per round; the other 4 are set aside face down."""
SET_ASIDE = DECK_SIZE - DEALT
MAX_TABLE = 4
"""The table never holds more than 4 cards; the 4th ends the trick ("Olenon")."""
ROUNDS_TO_WIN = 2
MAX_ROUNDS = 2 * ROUNDS_TO_WIN - 1
MAX_HAND = DEALT
"""Scale for hand sizes in the observation: no hand can ever hold more than the 28 dealt cards."""


def beats(new: int, old: int) -> bool:
    """Whether cards of value ``new`` may replace cards of value ``old``: higher, or 0 on 6 (0 beats only 6)."""
    return new > old or (new == 0 and old == 6)


BEATERS: tuple[tuple[int, ...], ...] = tuple(tuple(w for w in range(NUM_VALUES) if beats(w, v)) for v in range(NUM_VALUES))
"""``BEATERS[v]``: the values that may replace a table of value v."""


TEAM_NAMES = ("A", "B")


def cards_text(counts: list[int] | tuple[int, ...]) -> str:
    """A count vector as a sorted list of values, e.g. ``"0 2 2 5"`` (``"-"`` when empty)."""
    cards = [str(v) for v in range(NUM_VALUES) for _ in range(counts[v])]
    return " ".join(cards) if cards else "-"


def counts_of(cards: list[int] | tuple[int, ...]) -> list[int]:
    """Count vector of a list of card values."""
    counts = [0] * NUM_VALUES
    for v in cards:
        if not (isinstance(v, int) and 0 <= v < NUM_VALUES):
            raise ValueError(f"card value {v!r} is not one of 0..{NUM_VALUES - 1}")
        counts[v] += 1
    return counts
