"""Tsukuru 10 Ten tiles: the 19 tile kinds, their names and copies, and every possible set.

A tile kind is an index 0..18: blue 1-7 (0..6), red 0-7 (7..14), purple ("Marten") 5-8 (15..18).
Hands and piles are handled as kind counts (a list of 19 ints) or lists of kinds.
"""

from __future__ import annotations

from dataclasses import dataclass

BLUE, RED, PURPLE = 0, 1, 2
COLOUR_NAMES = ("blue", "red", "purple")
COLOUR_LETTERS = ("B", "R", "P")

KINDS: tuple[tuple[int, int], ...] = (
    *((BLUE, v) for v in range(1, 8)),
    *((RED, v) for v in range(0, 8)),
    *((PURPLE, v) for v in range(5, 9)),
)
"""(colour, value) of each kind; red 7 is kind 14, purple 8 is kind 18."""
NUM_KINDS = len(KINDS)  # 19
COLOUR = tuple(c for c, _ in KINDS)
VALUE = tuple(v for _, v in KINDS)
COPIES: tuple[int, ...] = tuple(1 if (c == PURPLE or (c == RED and v == 0)) else 4 for c, v in KINDS)
"""Copies of each kind in the 61-tile set."""
NUM_TILES = sum(COPIES)  # 61
MAX_COPIES = 4
NAMES: tuple[str, ...] = tuple(f"{COLOUR_LETTERS[c]}{v}" for c, v in KINDS)
KIND_OF_NAME = {name: k for k, name in enumerate(NAMES)}
PURPLE_8 = KIND_OF_NAME["P8"]
PURPLE_KINDS = tuple(k for k in range(NUM_KINDS) if COLOUR[k] == PURPLE)


def kind(colour: int, value: int) -> int:
    """The kind of a (colour, value) tile; ``ValueError`` if no such tile exists."""
    try:
        return KINDS.index((colour, value))
    except ValueError:
        raise ValueError(f"there is no {COLOUR_NAMES[colour]} {value} tile") from None


def parse_tile(text: str) -> int:
    """``"B3"``, ``"r0"``, ``"P8"`` -> kind; ``ValueError`` naming the unknown tile."""
    key = str(text).strip().upper()
    if key not in KIND_OF_NAME:
        raise ValueError(f"unknown tile {text!r}; tiles are B1-B7, R0-R7, P5-P8")
    return KIND_OF_NAME[key]


def counts_of(kinds: list[int] | tuple[int, ...]) -> list[int]:
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def kinds_of(counts: list[int] | tuple[int, ...]) -> list[int]:
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]


def tiles_text(kinds: list[int] | tuple[int, ...]) -> str:
    return " ".join(NAMES[k] for k in kinds) if kinds else "-"


@dataclass(frozen=True)
class SetShape:
    """One way three tiles form a set: the kinds (sorted), the set's colour (blue or red) and value."""

    kinds: tuple[int, int, int]
    colour: int
    value: int
    run: bool

    @property
    def need(self) -> tuple[tuple[int, int], ...]:
        """(kind, copies) the set uses."""
        return _NEED[self.kinds]

    @property
    def face(self) -> int:
        """Sum of the face values of the three tiles."""
        return sum(VALUE[k] for k in self.kinds)


def _options(colour: int, value: int) -> list[int]:
    """Kinds that can stand for a ``colour`` tile of ``value``: the real tile and/or the purple one."""
    out = []
    if (colour, value) in KINDS:
        out.append(KINDS.index((colour, value)))
    if (PURPLE, value) in KINDS:
        out.append(KINDS.index((PURPLE, value)))
    return out


def _all_shapes() -> tuple[SetShape, ...]:
    shapes: set[SetShape] = set()
    for colour in (BLUE, RED):
        for low in range(0, 7):  # runs low..low+2, values 0..8
            run = [_options(colour, low + i) for i in range(3)]
            if not all(run):
                continue
            value = low if colour == BLUE else low + 2
            for a in run[0]:
                for b in run[1]:
                    for c in run[2]:
                        shapes.add(SetShape(tuple(sorted((a, b, c))), colour, value, True))  # type: ignore[arg-type]
        for v in range(0, 9):  # triples: three tiles of one colour and value (at most one purple)
            opts = _options(colour, v)
            real = [k for k in opts if COLOUR[k] != PURPLE]
            if not real:
                continue
            r = real[0]
            if COPIES[r] >= 3:
                shapes.add(SetShape((r, r, r), colour, 0, False))
            for p in opts:
                if COLOUR[p] == PURPLE and COPIES[r] >= 2:
                    shapes.add(SetShape(tuple(sorted((r, r, p))), colour, 0, False))  # type: ignore[arg-type]
    return tuple(sorted(shapes, key=lambda s: (s.kinds, s.colour)))


SET_SHAPES: tuple[SetShape, ...] = _all_shapes()
"""Every (kinds, colour) way to form a set; an all-purple run appears once per colour."""

SHAPES_WITH: tuple[tuple[SetShape, ...], ...] = tuple(tuple(s for s in SET_SHAPES if k in s.kinds) for k in range(NUM_KINDS))
"""The set shapes that use at least one tile of each kind."""


_NEED: dict[tuple[int, ...], tuple[tuple[int, int], ...]] = {
    s.kinds: tuple((k, s.kinds.count(k)) for k in sorted(set(s.kinds))) for s in SET_SHAPES
}
_BY_KINDS: dict[tuple[int, ...], list[SetShape]] = {}
for _s in SET_SHAPES:
    _BY_KINDS.setdefault(_s.kinds, []).append(_s)


def shapes_of(kinds: tuple[int, ...] | list[int]) -> list[SetShape]:
    """The ways the three tiles ``kinds`` form a set (empty if they do not; two for an all-purple run)."""
    return list(_BY_KINDS.get(tuple(sorted(kinds)), ()))


def _pairs_with(tile: int) -> tuple[tuple[int, int], ...]:
    out = set()
    for shape in SHAPES_WITH[tile]:
        rest = list(shape.kinds)
        rest.remove(tile)
        out.add((rest[0], rest[1]))
    return tuple(sorted(out))


PAIRS_WITH: tuple[tuple[tuple[int, int], ...], ...] = tuple(_pairs_with(k) for k in range(NUM_KINDS))
"""For each kind: the kind pairs (a <= b) that form a set with one tile of that kind."""
