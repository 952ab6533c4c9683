"""KoPlus's action encoding: place the tile on top of the own stack, ``orientation * 256 + row * 16 + col``.

The anchor ``(row, col)`` lies on the fixed 16 x 16 grid (``GRID``) that also numbers the cells of the board
tables; a ＋ has one orientation (0), a コ four (the side its opening faces). Chance outcomes (a section drawn
for a random board) are numbered apart, by the rules.
"""

from __future__ import annotations

GRID = 16
"""Side of the fixed anchor grid (the largest board is 16 x 16 cells)."""
NUM_CELLS = GRID * GRID
ORIENTATIONS = ("up", "right", "down", "left")
"""Orientation of a コ = the side its opening faces."""
NUM_ORIENTATIONS = len(ORIENTATIONS)
NUM_ACTIONS = NUM_ORIENTATIONS * NUM_CELLS


def encode_action(orientation: int, row: int, col: int) -> int:
    return orientation * NUM_CELLS + row * GRID + col


def decode_action(action: int) -> tuple[int, int, int]:
    """``(orientation, row, col)`` of an action number."""
    orientation, cell = divmod(action, NUM_CELLS)
    return orientation, cell // GRID, cell % GRID
