"""Paikō geometry and tile patterns (pure data, no state; the action encoding is ``actions``).

Squares are ``(x, y)`` with x, y in 0..13; row y holds x = 6-w .. 7+w with w = y (y <= 6) or 13-y
(y >= 7): 112 squares in a diamond, numbered row by row (``SQUARES[i] = (x, y)``, ``INDEX[(x, y)] = i``).
Facing f in 0..3 has forward vector (0,-1), (1,0), (0,1), (-1,0) (N, E, S, W with y growing downwards).
A tile on the board is a code (``tile_code``, read back by ``code_owner``, ``code_type``, ``code_facing``):
compiled helpers, the one spelling of the code for the kernels and for Python alike.
"""

from __future__ import annotations

from gameshelf.envs.core.kernel import jit_helper

SIZE = 14
SQUARES: tuple[tuple[int, int], ...] = tuple(
    (x, y) for y in range(SIZE) for x in range(6 - (y if y <= 6 else 13 - y), 8 + (y if y <= 6 else 13 - y))
)
NUM_SQUARES = len(SQUARES)
"""112."""
INDEX: dict[tuple[int, int], int] = {xy: i for i, xy in enumerate(SQUARES)}
BLACK_SQUARES: frozenset[tuple[int, int]] = frozenset({(5, 5), (8, 8), (7, 6), (6, 7)})
IS_BLACK: tuple[bool, ...] = tuple(xy in BLACK_SQUARES for xy in SQUARES)

WHITE, BLACK = 0, 1
PLAYER_NAMES = ("White", "Black")


def zone_of(x: int, y: int) -> int:
    """0 = White's homeground (x <= 6, y >= 7), 1 = Black's (x >= 7, y <= 6), -1 = a middleground."""
    if x <= 6 and y >= 7:
        return WHITE
    if x >= 7 and y <= 6:
        return BLACK
    return -1


ZONE: tuple[int, ...] = tuple(zone_of(x, y) for x, y in SQUARES)


def points(player: int, sq: int) -> int:
    """Points a non-Lotus tile of ``player`` on ``sq`` is worth: 0 own homeground, 1 middleground, 2 opponent's."""
    zone = ZONE[sq]
    return 1 if zone < 0 else (0 if zone == player else 2)


POINTS: tuple[tuple[int, ...], tuple[int, ...]] = (
    tuple(points(0, s) for s in range(NUM_SQUARES)),
    tuple(points(1, s) for s in range(NUM_SQUARES)),
)

# ---- tiles ------------------------------------------------------------------------------------
SAI, SWORD, BOW, LOTUS, AIR, FIRE, EARTH, WATER = range(8)
NUM_TYPES = 8
TYPE_NAMES = ("Sai", "Sword", "Bow", "Lotus", "Air", "Fire", "Earth", "Water")
TYPE_LETTERS = "ISBLAFEW"
"""One letter per type in the text board (upper case White, lower case Black); Sai is ``I``."""
COPIES = 3
"""Tiles of each type per player."""
FACING_NAMES = ("N", "E", "S", "W")
FACING_ARROWS = "^>v<"

_KNIGHT = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))
THREAT_BASE: tuple[tuple[tuple[int, int], ...], ...] = (
    ((0, -1),),  # Sai
    tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0)),  # Sword
    ((0, -2), (0, -3), (0, -4)),  # Bow
    (),  # Lotus
    _KNIGHT,  # Air
    tuple((dx, -2) for dx in range(-2, 3)) + tuple((dx, -1) for dx in range(-1, 2)) + ((0, 0),),  # Fire
    ((0, 1), (0, 2), (0, -1), (0, -2), (1, 0), (2, 0), (-1, 0), (-2, 0)),  # Earth
    ((1, 1), (1, -1), (-1, 1), (-1, -1)),  # Water
)
"""Threat offsets (dx, dy) of each type at facing 0 (forward = -y)."""
COVER_BASE: tuple[tuple[tuple[int, int], ...], ...] = (
    ((-1, 0), (1, 0)),  # Sai
    (),
    (),
    tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)),  # Lotus: 3x3 including its own square
    (),
    (),
    (),
    ((0, 1), (0, -1), (1, 0), (-1, 0)),  # Water
)
"""Cover offsets of each type at facing 0."""
RANGE = (2, 2, 2, 0, 0, 2, 1, 2)
"""Shift range of each type (Lotus and Air never shift or rotate)."""
HAS_COVER = tuple(bool(c) for c in COVER_BASE)


def rotate(offset: tuple[int, int], facing: int) -> tuple[int, int]:
    """An offset given for facing 0, turned to ``facing``: f1 (-dy, dx), f2 (-dx, -dy), f3 (dy, -dx)."""
    dx, dy = offset
    if facing == 0:
        return dx, dy
    if facing == 1:
        return -dy, dx
    if facing == 2:
        return -dx, -dy
    return dy, -dx


def pattern_squares(offsets: tuple[tuple[int, int], ...], sq: int, facing: int) -> tuple[int, ...]:
    """The board squares (black ones included) hit by ``offsets`` from ``sq`` at ``facing``."""
    x, y = SQUARES[sq]
    out = []
    for off in offsets:
        dx, dy = rotate(off, facing)
        target = INDEX.get((x + dx, y + dy))
        if target is not None:
            out.append(target)
    return tuple(out)


def _table(base: tuple[tuple[tuple[int, int], ...], ...]) -> tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]:
    return tuple(
        tuple(tuple(pattern_squares(base[t], s, f) for s in range(NUM_SQUARES)) for f in range(4)) for t in range(NUM_TYPES)
    )


THREAT = _table(THREAT_BASE)
"""``THREAT[type][facing][square]``: the squares a tile threatens."""
COVER = _table(COVER_BASE)
"""``COVER[type][facing][square]``: the squares a tile covers."""

DIRECTIONS = ((0, -1), (1, 0), (0, 1), (-1, 0))
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(n for n in (INDEX.get((x + dx, y + dy)) for dx, dy in DIRECTIONS) if n is not None and not IS_BLACK[n])
    for x, y in SQUARES
)
"""Orthogonal neighbours a tile may step onto (on the board, not black)."""

# ---- tile codes on the board ------------------------------------------------------------------
EMPTY = -1
"""A board entry with no tile."""
MAX_CODE = 63
"""The largest tile code: ``tile_code(1, WATER, 3)``."""


@jit_helper
def tile_code(owner: int, kind: int, facing: int) -> int:
    """The code of ``owner``'s tile of type ``kind`` facing ``facing`` (the board's entry; the kernels' too)."""
    return owner * 32 + kind * 4 + facing


@jit_helper
def code_owner(code: int) -> int:
    """The seat owning the tile ``code``."""
    return code >> 5


@jit_helper
def code_type(code: int) -> int:
    """The type (``SAI`` ... ``WATER``) of the tile ``code``."""
    return (code >> 2) & 7


@jit_helper
def code_facing(code: int) -> int:
    """The facing (0..3: N, E, S, W) of the tile ``code``."""
    return code & 3


@jit_helper
def code_shape(code: int) -> int:
    """The tile ``code`` without its owner, ``type * 4 + facing``: its channel in a tile plane of the observation."""
    return code & 31


__all__ = [
    "AIR",
    "BLACK",
    "BOW",
    "COVER",
    "EARTH",
    "EMPTY",
    "FIRE",
    "INDEX",
    "LOTUS",
    "MAX_CODE",
    "NUM_SQUARES",
    "SAI",
    "SQUARES",
    "SWORD",
    "THREAT",
    "WATER",
    "WHITE",
    "code_facing",
    "code_owner",
    "code_shape",
    "code_type",
    "tile_code",
]
