"""Range Ta Ludothèque tables: dice faces, box shapes, the Kallax geometry and its precomputed placements.

A sheet is a grid of ``rows × cols`` squares (square index ``row * cols + col``, row 0 at the top) cut
into ``comp_rows × comp_cols`` compartments of ``comp_h × comp_w`` squares. The floor of a compartment is
its bottom row. A sheet's occupancy is a Python int used as a bit set (bit ``sq`` set = square filled).
The rules over these tables (where a box fits, scoring) are the compiled kernels of ``kernel.py``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from math import factorial

ROUNDS = 12
"""Rounds of a game (one box or playmat per player per round)."""
COMPARTMENTS = (1, 4)
"""Compartment rows (or columns) of a Kallax: the range of the options ``comp_rows`` and ``comp_cols``."""
COMPARTMENT_SIDE = (3, 6)
"""Squares per compartment side: the range of the options ``comp_h`` and ``comp_w``."""

CATEGORY_LETTERS = ("T", "A", "C", "P", "F", "R")
"""Category of die face 1..6: Puzzle, Dexterity, Card game, Board game, Miniatures, Roleplaying."""
CATEGORY_NAMES = ("Puzzle", "Dexterity", "Card game", "Board game", "Miniatures", "Roleplaying")
MECHANISMS = ("Bluffing", "Deduction", "Deckbuilding", "Programming", "Memory", "SecretRoles")
"""Mechanism of die face 1..6 (``SecretRoles`` is the "Secret Roles" mechanism, one word in move names)."""

PUZZLE, DEXTERITY, CARD, BOARD, MINIATURES, RPG = 1, 2, 3, 4, 5, 6
BLUFFING, DEDUCTION, DECKBUILDING, PROGRAMMING, MEMORY, SECRET_ROLES = 1, 2, 3, 4, 5, 6

SHAPES: dict[int, tuple[int, int]] = {1: (1, 2), 2: (2, 1), 3: (1, 3), 4: (3, 1), 5: (2, 3), 6: (3, 2)}
"""Box shape of size-die face 1..6 as (width, height) in squares."""
VERTICAL = frozenset({1, 3, 5})
HORIZONTAL = frozenset({2, 4, 6})
SQUARES = {face: w * h for face, (w, h) in SHAPES.items()}

PERMS: tuple[tuple[int, int, int], ...] = tuple((a, b, c) for a, b, c in itertools.permutations(range(3)))
"""Dice assignments: ``PERMS[p] = (i, j, k)`` gives die ``i`` to the size, ``j`` to the category, ``k`` to
the mechanism (dice sorted ascending)."""

ROLLS: tuple[tuple[int, int, int], ...] = tuple((a, b, c) for a, b, c in itertools.combinations_with_replacement(range(1, 7), 3))
"""The 56 rolls of three dice as sorted multisets (chance outcome ``i`` is ``ROLLS[i]``)."""
ROLL_INDEX = {roll: i for i, roll in enumerate(ROLLS)}


def _roll_probability(roll: tuple[int, int, int]) -> float:
    counts = [roll.count(v) for v in set(roll)]
    ways = factorial(3)
    for c in counts:
        ways //= factorial(c)
    return ways / 216.0


ROLL_PROBS: tuple[float, ...] = tuple(_roll_probability(r) for r in ROLLS)


def _triples(roll: tuple[int, int, int]) -> tuple[tuple[int, tuple[int, int, int]], ...]:
    """The distinct (size, category, mechanism) triples of a roll, each with its first permutation."""
    seen: dict[tuple[int, int, int], int] = {}
    for p, (i, j, k) in enumerate(PERMS):
        seen.setdefault((roll[i], roll[j], roll[k]), p)
    return tuple((p, t) for t, p in sorted(seen.items(), key=lambda item: item[1]))


ROLL_TRIPLES = tuple(_triples(r) for r in ROLLS)
"""Per roll: ``(permutation, (size face, category, mechanism))`` for each distinct assignment; the
permutation listed is the lowest one giving that triple (the only one legal in the action mask)."""


@dataclass(frozen=True)
class Placement:
    """A box shape at an anchor (top-left square): its squares and the squares that must support it."""

    face: int
    anchor: int
    cells: int
    """Bit set of the squares it covers."""
    below: int
    """Bit set of the squares directly under its bottom row (0 when that row is the compartment floor)."""
    squares: tuple[int, ...]


class Geometry:
    """One Kallax sheet shape with every placement inside the sheet and one compartment (for names, pictures,
    positions and the pure scoring functions)."""

    def __init__(self, comp_rows: int, comp_cols: int, comp_h: int, comp_w: int) -> None:
        self.comp_rows, self.comp_cols, self.comp_h, self.comp_w = comp_rows, comp_cols, comp_h, comp_w
        self.rows = comp_rows * comp_h
        self.cols = comp_cols * comp_w
        self.size = self.rows * self.cols
        self.full = (1 << self.size) - 1
        self.num_comps = comp_rows * comp_cols
        self.comp_of = tuple((sq // self.cols // comp_h) * comp_cols + (sq % self.cols) // comp_w for sq in range(self.size))
        self.is_floor = tuple((sq // self.cols) % comp_h == comp_h - 1 for sq in range(self.size))
        self.placements: dict[int, tuple[Placement, ...]] = {}
        self.placement_at: dict[int, dict[int, Placement]] = {}
        for face, (w, h) in SHAPES.items():
            found = []
            for r in range(self.rows - h + 1):
                for c in range(self.cols - w + 1):
                    squares = tuple((r + dr) * self.cols + c + dc for dr in range(h) for dc in range(w))
                    if len({self.comp_of[s] for s in squares}) != 1:
                        continue  # crosses a compartment wall
                    bottom = r + h - 1
                    below = 0
                    if not self.is_floor[bottom * self.cols + c]:
                        below = sum(1 << ((bottom + 1) * self.cols + c + dc) for dc in range(w))
                    found.append(Placement(face, r * self.cols + c, sum(1 << s for s in squares), below, squares))
            self.placements[face] = tuple(found)
            self.placement_at[face] = {p.anchor: p for p in found}

    def square_name(self, sq: int) -> str:
        r, c = divmod(sq, self.cols)
        return f"r{r}c{c}"

    def parse_square(self, text: str) -> int:
        """``"r3c0"`` -> square index; ``ValueError`` if malformed or off the sheet."""
        t = text.strip().lower()
        if not t.startswith("r") or "c" not in t:
            raise ValueError(f"square {text!r} should look like r<row>c<col>")
        rs, _, cs = t[1:].partition("c")
        if not (rs.isdigit() and cs.isdigit()):
            raise ValueError(f"square {text!r} should look like r<row>c<col>")
        r, c = int(rs), int(cs)
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            raise ValueError(f"square {text!r} is off the {self.rows}x{self.cols} sheet")
        return r * self.cols + c

    @staticmethod
    def squares_of(bits: int) -> list[int]:
        """The squares of a bit set, ascending."""
        out = []
        while bits:
            low = bits & -bits
            out.append(low.bit_length() - 1)
            bits ^= low
        return out


@lru_cache(maxsize=32)
def geometry(comp_rows: int, comp_cols: int, comp_h: int, comp_w: int) -> Geometry:
    """The shared, precomputed geometry of a sheet shape."""
    return Geometry(comp_rows, comp_cols, comp_h, comp_w)
