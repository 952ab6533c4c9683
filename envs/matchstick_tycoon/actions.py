"""Matchstick Tycoon's action encoding and the phases of the game (what ``state.phase`` waits for).

The card's action table lists the numbers below; faces and values are numbered as in ``cards``.
"""

from __future__ import annotations

from gameshelf.envs.matchstick_tycoon.cards import NUM_FACES, NUM_VALUES

# ---- action encoding -----------------------------------------------------------------------------
PASS = 0
"""Pass (table not empty, cards in hand): take one matchstick from the supply."""
DISCARD = 1
"""Discard one matchstick (no cards left in hand)."""
MAX_PLAY = 5
PLAY_BASE = 2
"""``play n x W``: action ``2 + (n - 1) * 18 + W`` (n = 1..5, W = 0..17): announce the play's count and value."""
PICK_BASE = PLAY_BASE + MAX_PLAY * NUM_VALUES  # 92
"""``card f as W``: action ``92 + f`` (f = 0..15): lay one card of face f as the announced value."""
NUM_ACTIONS = PICK_BASE + NUM_FACES  # 108


def play_action(count: int, value: int) -> int:
    if not (1 <= count <= MAX_PLAY and 0 <= value < NUM_VALUES):
        raise ValueError(f"no play action for {count} x {value}")
    return PLAY_BASE + (count - 1) * NUM_VALUES + value


def pick_action(face: int) -> int:
    if not 0 <= face < NUM_FACES:
        raise ValueError(f"no card action for face {face}")
    return PICK_BASE + face


def decode(action: int) -> tuple[str, int, int]:
    """``("pass", 0, 0)``, ``("discard", 0, 0)``, ``("play", n, W)`` or ``("pick", 0, f)``."""
    if action == PASS:
        return "pass", 0, 0
    if action == DISCARD:
        return "discard", 0, 0
    if PLAY_BASE <= action < PICK_BASE:
        k = action - PLAY_BASE
        return "play", k // NUM_VALUES + 1, k % NUM_VALUES
    if PICK_BASE <= action < NUM_ACTIONS:
        return "pick", 0, action - PICK_BASE
    raise ValueError(f"action {action} is out of range [0, {NUM_ACTIONS})")


# ---- phases --------------------------------------------------------------------------------------------
CHOOSE_FIRST, DEAL, PLAY, OVER = 0, 1, 2, 3
"""Chance: the first player; chance: the deal, card by card; a player's turn; the end."""
