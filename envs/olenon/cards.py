"""Olenon's cards and action encoding: constants and small pure helpers (no state).

Cards are identified by their value 0..6 only (copies of a value are interchangeable), so hands, the
discard pile and the deck are count vectors of length 7.
"""

from __future__ import annotations

import re

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

# ---- action encoding -----------------------------------------------------------------------------
PLAY_BASE = 0
"""``play k x v`` (lead or add k cards of value v): action ``(k - 1) * 7 + v`` for k = 1..4, v = 0..6."""
REPLACE_BASE = MAX_TABLE * NUM_VALUES  # 28
"""``replace with w``: action ``28 + w`` (w = 0..6); the number of cards is the table's count."""
PASS = REPLACE_BASE + NUM_VALUES  # 35
"""``pass``: take one card from the table (all table cards have the same value)."""
NUM_ACTIONS = PASS + 1  # 36


def play_action(count: int, value: int) -> int:
    """Action id of playing ``count`` cards of ``value`` (lead or add)."""
    if not (1 <= count <= MAX_TABLE and 0 <= value < NUM_VALUES):
        raise ValueError(f"no play action for {count} x {value}")
    return PLAY_BASE + (count - 1) * NUM_VALUES + value


def replace_action(value: int) -> int:
    """Action id of replacing the table with cards of ``value``."""
    if not 0 <= value < NUM_VALUES:
        raise ValueError(f"no replace action for value {value}")
    return REPLACE_BASE + value


def decode(action: int) -> tuple[str, int, int]:
    """``("play", k, v)``, ``("replace", 0, w)`` or ``("pass", 0, 0)``."""
    if PLAY_BASE <= action < REPLACE_BASE:
        return "play", action // NUM_VALUES + 1, action % NUM_VALUES
    if REPLACE_BASE <= action < PASS:
        return "replace", 0, action - REPLACE_BASE
    if action == PASS:
        return "pass", 0, 0
    raise ValueError(f"action {action} is out of range [0, {NUM_ACTIONS})")


def beats(new: int, old: int) -> bool:
    """Whether cards of value ``new`` may replace cards of value ``old``: higher, or 0 on 6 (0 beats only 6)."""
    return new > old or (new == 0 and old == 6)


BEATERS: tuple[tuple[int, ...], ...] = tuple(tuple(w for w in range(NUM_VALUES) if beats(w, v)) for v in range(NUM_VALUES))
"""``BEATERS[v]``: the values that may replace a table of value v."""


def team_of(seat: int) -> int:
    """Team 0 ("A") = seats 0 and 2, team 1 ("B") = seats 1 and 3."""
    return seat % 2


def partner_of(seat: int) -> int:
    return (seat + 2) % NUM_SEATS


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


_PLAY = re.compile(r"^(?:play|lead|add)\s+(?:(\d)\s*x\s*)?(\d)$")
_REPLACE = re.compile(r"^replace(?:\s+with)?\s+(?:(\d)\s*x\s*)?(\d)$")
_PASS = re.compile(r"^pass(?:\s*\(\s*take\s+(?:a|an|one)\s+(\d)\s*\))?$")


def parse(text: str) -> tuple[str, int | None, int | None] | None:
    """Parse a move name: ``("play", k, v)``, ``("replace", k or None, w)``, ``("pass", None, v or None)``.

    Accepted forms (case and spacing free): ``play 2x5``, ``play 5`` (one card), ``replace with 3x6``,
    ``replace with 6``, ``pass``, ``pass (take a 4)``. None if the text is none of these.
    """
    t = " ".join(text.strip().lower().split())
    if m := _PLAY.match(t):
        return "play", int(m.group(1)) if m.group(1) else 1, int(m.group(2))
    if m := _REPLACE.match(t):
        return "replace", int(m.group(1)) if m.group(1) else None, int(m.group(2))
    if m := _PASS.match(t):
        return "pass", None, int(m.group(1)) if m.group(1) else None
    return None
