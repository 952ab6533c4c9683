"""Amoriax's action encoding: a move is ``from_square * 13 + kind`` (the kinds of ``board``), or ``PASS``.

| actions | meaning |
|---|---|
| ``sq * 13 + 0`` | corner jump from ``sq`` to the opposite corner |
| ``sq * 13 + 1..8`` | knight jump from ``sq`` (``board.KNIGHT_OFFSETS`` order) |
| ``sq * 13 + 9..12`` | slide from ``sq`` up, down, left, right |
| 1053 | pass, legal only when no move is |
"""

from __future__ import annotations

from gameshelf.envs.amoriax.board import KIND_CORNER, KIND_SLIDE, NUM_KINDS, NUM_SQUARES, SIZE, SLIDE_DIRECTIONS

PASS = NUM_SQUARES * NUM_KINDS
"""The pass action (1053), legal only when no move is."""
NUM_ACTIONS = PASS + 1


def square_name(sq: int) -> str:
    row, col = divmod(sq, SIZE)
    return f"({row},{col})"


def kind_name(kind: int) -> str:
    if kind == KIND_CORNER:
        return "corner"
    if kind < KIND_SLIDE:
        return "knight"
    return "slide " + SLIDE_DIRECTIONS[kind - KIND_SLIDE][0]
