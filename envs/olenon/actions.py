"""Olenon's action encoding and the phases of a round (what the state's ``phase`` waits for).

The card's action table lists the numbers below; cards are identified by their value (``cards``).
"""

from __future__ import annotations

import re

from gameshelf.envs.olenon.cards import MAX_TABLE, NUM_VALUES

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


# ---- phases ----------------------------------------------------------------------------------------------
CHOOSE_FIRST, DEAL, PLAY, OVER = 0, 1, 2, 3
"""CHOOSE_FIRST, a chance node choosing the first player of the round (outcome = seat, uniform); DEAL, a chance
node dealing the next card (outcome = card value, weighted by the copies left); PLAY; OVER."""
PHASE_NAMES = ("choose_first", "deal", "play", "over")
"""Names of the phases, by index (the position builder's ``phase`` key)."""
