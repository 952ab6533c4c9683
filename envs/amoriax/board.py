"""Static geometry of the Amoriax board: squares, the kinds of move and precomputed move targets.

Squares are numbered ``row * 9 + col`` (row 0 at the top); a move from a square is one of 13 kinds (below).
The action encoding built on them is ``actions``. Everything here is built once per ``inner_size`` and shared.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

SIZE = 9
NUM_SQUARES = SIZE * SIZE
CENTRE = 4 * SIZE + 4
"""The crown square C = (4,4)."""

EMPTY, WHITE, BLACK, RED = 0, 1, 2, 3
"""Cell values; a seat's own stone is ``seat + 1``."""
STONE_LETTERS = ".WBR"
COLOUR_NAMES = ("White", "Black")

KIND_CORNER = 0
KNIGHT_OFFSETS = ((-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1))
"""Kinds 1..8, in this order."""
KIND_KNIGHT = 1
SLIDE_DIRECTIONS = (("up", -1, 0), ("down", 1, 0), ("left", 0, -1), ("right", 0, 1))
"""Kinds 9..12, in this order."""
KIND_SLIDE = 1 + len(KNIGHT_OFFSETS)
NUM_KINDS = KIND_SLIDE + len(SLIDE_DIRECTIONS)

CORNER_TARGET = tuple(
    {0: NUM_SQUARES - 1, SIZE - 1: NUM_SQUARES - SIZE, NUM_SQUARES - SIZE: SIZE - 1, NUM_SQUARES - 1: 0}.get(sq, -1)
    for sq in range(NUM_SQUARES)
)
"""Diagonally opposite corner of a corner square, ``-1`` elsewhere."""


def square(row: int, col: int) -> int:
    return row * SIZE + col


def coords(sq: int) -> tuple[int, int]:
    return divmod(sq, SIZE)


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


@dataclass(frozen=True)
class Geometry:
    """Move tables for one size of the inner area."""

    inner_size: int
    inner: tuple[bool, ...]
    """``inner[sq]``: the square is in the marked inner area (knight jumps may not land there)."""
    knight_targets: tuple[tuple[tuple[int, int], ...], ...]
    """``knight_targets[sq]``: ``(kind, destination)`` for every knight jump that lands on the board outside
    the inner area (whether the destination is empty is checked at play time)."""
    rays: tuple[tuple[tuple[int, ...], ...], ...]
    """``rays[sq][d]``: the squares from ``sq`` to the edge in slide direction ``d``, nearest first."""


@cache
def geometry(inner_size: int) -> Geometry:
    half = inner_size // 2
    inner = tuple(abs(r - 4) <= half and abs(c - 4) <= half for r in range(SIZE) for c in range(SIZE))
    knights = []
    rays = []
    for sq in range(NUM_SQUARES):
        row, col = divmod(sq, SIZE)
        targets = []
        for i, (dr, dc) in enumerate(KNIGHT_OFFSETS):
            r, c = row + dr, col + dc
            if on_board(r, c) and not inner[square(r, c)]:
                targets.append((KIND_KNIGHT + i, square(r, c)))
        knights.append(tuple(targets))
        square_rays = []
        for _, dr, dc in SLIDE_DIRECTIONS:
            ray = []
            r, c = row + dr, col + dc
            while on_board(r, c):
                ray.append(square(r, c))
                r, c = r + dr, c + dc
            square_rays.append(tuple(ray))
        rays.append(tuple(square_rays))
    return Geometry(inner_size, inner, tuple(knights), tuple(rays))


def _triangle(corner_row: int, corner_col: int) -> list[int]:
    """The 6 squares (3+2+1) of the corner triangle at a corner."""
    dr = 1 if corner_row == 0 else -1
    dc = 1 if corner_col == 0 else -1
    return [square(corner_row + dr * i, corner_col + dc * j) for i in range(3) for j in range(3 - i)]


def start_board(start: str) -> bytes:
    """The 81 cells of a start layout: ``"corners"`` (the spec's proposed diagram) or ``"sides"``."""
    if start == "corners":  # White on the (0,0)-(8,8) diagonal, Black on the (0,8)-(8,0) one
        white, black = [(0, 0), (8, 8)], [(0, 8), (8, 0)]
    elif start == "sides":  # White the two bottom corners, Black the two top ones
        white, black = [(8, 0), (8, 8)], [(0, 0), (0, 8)]
    else:
        raise ValueError(f"unknown start layout {start!r}")
    cells = bytearray(NUM_SQUARES)
    for colour, corners in ((WHITE, white), (BLACK, black)):
        for corner in corners:
            for sq in _triangle(*corner):
                cells[sq] = colour
    cells[CENTRE] = RED
    return bytes(cells)
