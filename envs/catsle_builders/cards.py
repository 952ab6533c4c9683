"""CATsle Builders' cards and round scoring: constants and small pure helpers (no state; actions are ``actions``).

The rule steps are the kernels' (``kernel.py``); these helpers serve names, text, pictures, positions and agents.

A card is an integer ``suit * 12 + (value - 1)``: suits 0..4 (Walls, Gables, Gates, Bridges, Moats),
values 1..12. Sets of cards (hands, discards) are bit masks: bit ``c`` set when card ``c`` is in the set.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

SUITS: tuple[str, ...] = ("Walls", "Gables", "Gates", "Bridges", "Moats")
SUIT_COLOURS: tuple[str, ...] = ("white", "green", "red", "yellow", "blue")
NUM_SUITS = len(SUITS)
NUM_VALUES = 12
NUM_CARDS = NUM_SUITS * NUM_VALUES  # 60
MOATS = 4
MIN_PLAYERS, MAX_PLAYERS = 3, 5
NUM_ROUNDS = 3

HAND_SIZE: dict[int, int] = {3: 11, 4: 14, 5: 12}
"""Cards dealt to each player per round."""
TAKES: dict[int, tuple[int, ...]] = {3: (1, 2), 4: (1, 2), 5: (1, 1, 2)}
"""Cards taken by the 1st, 2nd (, 3rd) rated player of a trick."""
DEFAULT_LIMITS: tuple[int, ...] = (1, 2, 3, 4)
"""Limits of the four ordinary columns (the 4-5 player boards add a fifth column of limit 0)."""
MAX_COLUMNS = 5
PERFECT_BONUS: tuple[int, ...] = (0, 0, 1, 2, 4)
"""Bonus by number of perfect columns (0..4)."""
MAX_LIMIT = NUM_VALUES
"""Largest allowed column limit (a column never holds more than the 12 cards of its suit)."""

SUIT_MASK: tuple[int, ...] = tuple(((1 << NUM_VALUES) - 1) << (s * NUM_VALUES) for s in range(NUM_SUITS))
"""Bit mask of the 12 cards of each suit."""
FULL_DECK = (1 << NUM_CARDS) - 1


def card(suit: int, value: int) -> int:
    """The card of ``suit`` (0..4) and ``value`` (1..12)."""
    if not (0 <= suit < NUM_SUITS and 1 <= value <= NUM_VALUES):
        raise ValueError(f"no card of suit {suit} and value {value}")
    return suit * NUM_VALUES + value - 1


def suit_of(c: int) -> int:
    return c // NUM_VALUES


def value_of(c: int) -> int:
    return c % NUM_VALUES + 1


def card_name(c: int) -> str:
    """``"Walls 5"``."""
    return f"{SUITS[c // NUM_VALUES]} {c % NUM_VALUES + 1}"


_CARD = re.compile(r"^\s*([a-z]+)\s*(\d{1,2})\s*$")


def parse_card(text: str) -> int:
    """A card from its name (``"Walls 5"``, ``"walls5"``, or a suit prefix such as ``"Wa 5"``)."""
    if not isinstance(text, str):
        raise ValueError(f"a card is written as a name such as 'Walls 5', got {text!r}")
    m = _CARD.match(text.lower())
    if m:
        word, value = m.group(1), int(m.group(2))
        suits = [s for s, name in enumerate(SUITS) if name.lower().startswith(word)]
        if len(suits) == 1 and 1 <= value <= NUM_VALUES:
            return card(suits[0], value)
    raise ValueError(f"unknown card {text!r}; cards are named like 'Walls 5' (suits {', '.join(SUITS)}, values 1-12)")


_CHUNK = 12
_CHUNK_BITS: tuple[tuple[int, ...], ...] = tuple(tuple(b for b in range(_CHUNK) if m >> b & 1) for m in range(1 << _CHUNK))
"""The set bits of every 12-bit number (one suit of a card mask)."""


def cards_of(mask: int) -> list[int]:
    """The cards of a bit mask, lowest first."""
    out: list[int] = []
    base = 0
    while mask:
        chunk = mask & 0xFFF
        if chunk:
            out.extend(base + b for b in _CHUNK_BITS[chunk])
        mask >>= _CHUNK
        base += _CHUNK
    return out


def deck_mask(num_players: int) -> int:
    """The cards in play: all 60, without the 12 Moats at 3 players."""
    return FULL_DECK & ~SUIT_MASK[MOATS] if num_players == 3 else FULL_DECK


def hand_text(mask: int) -> str:
    """A hand grouped by suit: ``"Walls 2 5 | Gates 9"`` (``"-"`` when empty)."""
    parts = []
    for s in range(NUM_SUITS):
        vals = [value_of(c) for c in cards_of(mask & SUIT_MASK[s])]
        if vals:
            parts.append(f"{SUITS[s]} {' '.join(map(str, vals))}")
    return " | ".join(parts) if parts else "-"


# ---- tricks and scoring (pure) -------------------------------------------------------------------
def strength(cards: Sequence[int]) -> list[tuple[int, int, int]]:
    """Sort key of each card of a trick (played in this order; the first card sets the led suit).

    Led-suit cards rank above all others by value; other cards rank by value, and between two of equal
    value the later one is stronger.
    """
    led = suit_of(cards[0])
    return [(1 if suit_of(c) == led else 0, value_of(c), i) for i, c in enumerate(cards)]


def rating(cards: Sequence[int]) -> list[int]:
    """Positions in the trick (0 = the lead) from the strongest card to the weakest."""
    keys = strength(cards)
    return sorted(range(len(cards)), key=lambda i: keys[i], reverse=True)


def column_score(limit: int, count: int) -> int:
    """Score of one column: ``count`` when within the limit, else minus the cards beyond it."""
    return count if count <= limit else limit - count


def round_score(limits: Sequence[int], counts: Sequence[int]) -> tuple[int, int]:
    """``(round score, perfect columns)`` of a board: column scores plus the perfect bonus, floored at 0.

    A column is perfect when it holds exactly its limit and the limit is above 0.
    """
    if len(limits) != len(counts):
        raise ValueError("one count per column")
    total = sum(column_score(lim, n) for lim, n in zip(limits, counts, strict=True))
    perfect = sum(1 for lim, n in zip(limits, counts, strict=True) if lim > 0 and n == lim)
    return max(0, total + PERFECT_BONUS[min(perfect, len(PERFECT_BONUS) - 1)]), perfect
