"""Matchstick Tycoon's cards: the 7-segment glyphs, the card faces and what each face can show (the action
encoding is ``actions``). Constants and small pure helpers only (no state).

Segments are bits: a (top) 1, b (upper right) 2, c (lower right) 4, d (bottom) 8, e (lower left) 16,
f (upper left) 32, g (middle) 64. A card face is identified by its index 0..15; a value by its index
0..17 (0-9, A, b, C, d, E, F, then the expansion values G and H).
"""

from __future__ import annotations

SEGMENTS = "abcdefg"
VALUE_NAMES = "0123456789AbCdEFGH"
"""Value ``v`` is written ``VALUE_NAMES[v]``; 16 (G) and 17 (H) exist only with the expansion."""
NUM_VALUES = len(VALUE_NAMES)  # 18
BASE_VALUES = 16
G_VALUE, H_VALUE = 16, 17


def seg(text: str) -> int:
    """Segment bit set of a string of segment letters, e.g. ``seg("bc")`` for the glyph of 1."""
    bits = 0
    for ch in text:
        bits |= 1 << SEGMENTS.index(ch)
    return bits


GLYPHS: tuple[int, ...] = tuple(
    seg(s)
    for s in (
        "abcdef",  # 0
        "bc",  # 1
        "abdeg",  # 2
        "abcdg",  # 3
        "bcfg",  # 4
        "acdfg",  # 5
        "acdefg",  # 6
        "abc",  # 7
        "abcdefg",  # 8
        "abcdfg",  # 9
        "abcefg",  # A
        "cdefg",  # b
        "adef",  # C
        "bcdeg",  # d
        "adefg",  # E
        "aefg",  # F
        "acdef",  # G (expansion)
        "bcefg",  # H (expansion)
    )
)
"""Segment set of every value's glyph (standard hexadecimal 7-segment font; G and H for the expansion)."""


def rotate(bits: int) -> int:
    """The segment set turned by 180 degrees: a<->d, b<->e, c<->f, g stays."""
    out = bits & 64
    for x, y in ((0, 3), (1, 4), (2, 5)):
        if bits >> x & 1:
            out |= 1 << y
        if bits >> y & 1:
            out |= 1 << x
    return out


FACE_NAMES: tuple[str, ...] = ("0", "1", "2", "3/E", "4", "5", "6/9", "7", "8", "A", "b", "C", "d", "F", "G", "H")
"""The 16 card faces: 14 of the base deck (the 3 read upside down is an E, the 6 a 9) and the expansion's G and H."""
NUM_FACES = len(FACE_NAMES)  # 16
BASE_FACES = 14
FACE_VALUE: tuple[int, ...] = tuple(VALUE_NAMES.index(name[0]) for name in FACE_NAMES)
"""The value a face shows upright with no matchstick."""
FACE_GLYPH: tuple[int, ...] = tuple(GLYPHS[v] for v in FACE_VALUE)


def shows(face: int, value: int, rotated: bool) -> int:
    """Matchsticks needed to show ``value`` with ``face`` upright (or rotated), or -1 if impossible."""
    glyph = rotate(FACE_GLYPH[face]) if rotated else FACE_GLYPH[face]
    target = GLYPHS[value]
    if glyph & ~target:
        return -1
    return bin(target & ~glyph).count("1")


def cost(face: int, value: int) -> int:
    """Matchsticks needed to play ``face`` as ``value`` (either way up), or -1 if impossible.

    Both ways up cost the same when both work: a matchstick count is the difference of segment counts.
    """
    up, down = shows(face, value, False), shows(face, value, True)
    return up if up >= 0 else down


COST: tuple[tuple[int, ...], ...] = tuple(tuple(cost(f, v) for v in range(NUM_VALUES)) for f in range(NUM_FACES))
"""``COST[face][value]``: matchsticks to show ``value`` with ``face`` (-1: impossible)."""


def deck_copies(expansion_copies: int) -> tuple[int, ...]:
    """Copies of each face: 4 of each base face, ``expansion_copies`` of G and of H."""
    return (4,) * BASE_FACES + (expansion_copies,) * (NUM_FACES - BASE_FACES)


def stronger(new: int, old: int, reversed_order: bool) -> bool:
    """Whether value ``new`` beats value ``old`` in the current order (normal 0 < ... < F < G < H)."""
    return new < old if reversed_order else new > old


def face_index(name: str) -> int:
    """A face by name: ``"3/E"``, ``"3"`` or ``"E"`` (case of letters as printed, or any case)."""
    text = name.strip()
    for i, face in enumerate(FACE_NAMES):
        if text == face or text in face.split("/"):
            return i
    for i, face in enumerate(FACE_NAMES):
        if text.lower() == face.lower() or text.lower() in face.lower().split("/"):
            return i
    raise ValueError(f"unknown card {name!r}; cards are {', '.join(FACE_NAMES)}")


def value_index(name: str) -> int:
    """A value by name (``"9"``, ``"b"``, ``"E"``; any case)."""
    text = str(name).strip()
    if len(text) == 1:
        for i, v in enumerate(VALUE_NAMES):
            if text.lower() == v.lower():
                return i
    raise ValueError(f"unknown value {name!r}; values are {', '.join(VALUE_NAMES)}")


def cards_text(counts: list[int] | tuple[int, ...]) -> str:
    """A count vector of faces as a list, e.g. ``"1 3/E 3/E 8"`` (``"-"`` when empty)."""
    cards = [FACE_NAMES[f] for f in range(NUM_FACES) for _ in range(counts[f])]
    return " ".join(cards) if cards else "-"
