"""Hand evaluation, pure functions: is a hand worth exactly 10, its best configuration, its bonuses.

A hand is its concealed tiles (19 kind counts) plus its open sets. A *configuration* is a choice of
disjoint sets among the concealed tiles (at most two sets in all, open ones included); the hand's value
is the sum of the set values plus the face values of the tiles left single. A hand wins when some
configuration is worth exactly 10.

Advanced scoring: every Marten (purple) tile in a set takes the set's colour, every free Marten is
coloured red or blue; the bonuses are read from the eight coloured tiles. ``score_win`` tries every
value-10 configuration and every colouring and keeps the highest total.

The rules themselves score a win in the compiled kernels (``kernel.py``), the same way; this module is the
readable evaluation that the text of a finished round, the heuristic agent and the tests use. Property tests
(``tests/games/test_tsukuru_ten_ten.py``) check that it finds the kernel's winning hands and points.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from gameshelf.envs.tsukuru_ten_ten.tiles import (
    BLUE,
    COLOUR,
    NUM_KINDS,
    PURPLE,
    PURPLE_8,
    RED,
    SET_SHAPES,
    VALUE,
    SetShape,
    shapes_of,
)

TARGET = 10
MAX_SETS = 2
HAND_SIZE = 7
"""Tiles dealt to each hand."""
HAND_TILES = 8

BASE_DEALER = 3
BASE_OTHER = 2


@dataclass(frozen=True)
class OpenSet:
    """A revealed set: its three tile kinds (sorted) and its colour (``BLUE`` or ``RED``)."""

    kinds: tuple[int, int, int]
    colour: int

    def __post_init__(self) -> None:
        if not any(s.colour == self.colour for s in shapes_of(self.kinds)):
            raise ValueError(f"{self.kinds} is not a {('blue', 'red')[self.colour]} set")

    @property
    def shape(self) -> SetShape:
        return next(s for s in shapes_of(self.kinds) if s.colour == self.colour)

    @property
    def value(self) -> int:
        return _OPEN_VALUE[(self.kinds, self.colour)]


_OPEN_VALUE: dict[tuple[tuple[int, ...], int], int] = {(s.kinds, s.colour): s.value for s in SET_SHAPES}
_BY_FIRST: tuple[tuple[SetShape, ...], ...] = tuple(tuple(s for s in SET_SHAPES if s.kinds[0] == k) for k in range(NUM_KINDS))


def _fits(shape: SetShape, counts: Sequence[int]) -> bool:
    for k, c in shape.need:  # noqa: SIM110 (a plain loop is faster here)
        if counts[k] < c:
            return False
    return True


def available_shapes(counts: tuple[int, ...]) -> list[SetShape]:
    """The set shapes that the tiles ``counts`` can form (each alone)."""
    return [s for k in range(NUM_KINDS) if counts[k] for s in _BY_FIRST[k] if _fits(s, counts)]


def concealed_choices(counts: Sequence[int], max_sets: int) -> list[tuple[SetShape, ...]]:
    """Every choice of 0..``max_sets`` disjoint sets among the concealed tiles ``counts`` (no duplicates)."""
    counts = tuple(counts)
    shapes = available_shapes(counts)
    out: list[tuple[SetShape, ...]] = [()]
    if max_sets >= 1:
        out += [(s,) for s in shapes]
    if max_sets >= 2:
        for i, a in enumerate(shapes):
            rest = list(counts)
            for k in a.kinds:
                rest[k] -= 1
            for b in shapes[i:]:
                if _fits(b, rest):
                    out.append((a, b))
    return out


def face_sum(counts: Sequence[int]) -> int:
    return sum(VALUE[k] * c for k, c in enumerate(counts) if c)


def configuration_value(counts: Sequence[int], open_sets: Sequence[OpenSet], chosen: Sequence[SetShape]) -> int:
    """Value of the hand when ``chosen`` sets are formed among the concealed tiles."""
    total = face_sum(counts) + sum(o.value for o in open_sets)
    for s in chosen:
        total += s.value - s.face
    return total


def winning_configurations(counts: Sequence[int], open_sets: Sequence[OpenSet]) -> list[tuple[SetShape, ...]]:
    """Every choice of concealed sets that makes the hand worth exactly 10 (empty list: not a winning hand)."""
    _check_size(counts, open_sets)
    max_sets = MAX_SETS - len(open_sets)
    return [c for c in concealed_choices(counts, max_sets) if configuration_value(counts, open_sets, c) == TARGET]


@lru_cache(maxsize=1 << 18)
def _wins(counts: tuple[int, ...], open_value: int, num_open: int) -> bool:
    need = TARGET - open_value - face_sum(counts)
    if need == 0:
        return True
    if num_open >= MAX_SETS or need > 0:  # a set never raises the value: value <= face sum
        return False
    shapes = available_shapes(counts)
    deltas = [s.value - s.face for s in shapes]
    if need in deltas:
        return True
    if num_open == MAX_SETS - 1:
        return False
    for i, a in enumerate(shapes):
        want = need - deltas[i]
        if want >= 0:
            continue
        rest = list(counts)
        for k in a.kinds:
            rest[k] -= 1
        for j in range(i, len(shapes)):
            if deltas[j] == want and _fits(shapes[j], rest):
                return True
    return False


def is_winning(counts: Sequence[int], open_sets: Sequence[OpenSet]) -> bool:
    """Does some configuration make the hand (concealed ``counts`` + ``open_sets``) worth exactly 10?"""
    _check_size(counts, open_sets)
    return _wins(tuple(counts), sum(o.value for o in open_sets), len(open_sets))


def is_winning_fast(counts: tuple[int, ...], open_value: int, num_open: int) -> bool:
    """``is_winning`` for callers that already hold the counts tuple and the open sets' total value."""
    return _wins(counts, open_value, num_open)


def _check_size(counts: Sequence[int], open_sets: Sequence[OpenSet]) -> None:
    if len(counts) != NUM_KINDS or min(counts) < 0:
        raise ValueError("counts must be 19 non-negative tile counts")
    if sum(counts) + 3 * len(open_sets) != HAND_TILES:
        raise ValueError(f"a finished hand has {HAND_TILES} tiles, got {sum(counts) + 3 * len(open_sets)}")
    if len(open_sets) > MAX_SETS:
        raise ValueError("a hand has at most two open sets")


# ---- advanced scoring ------------------------------------------------------------------------------

Tile = tuple[int, int]
"""A coloured tile for bonus evaluation: (colour BLUE or RED, value)."""


def size_class(tiles: Sequence[Tile]) -> tuple[str, int] | None:
    """The one size-class bonus of coloured tiles: Double Four, Multi, Double Three, Single Four, Single Three.

    A group is the tiles of one colour and value; t4 counts groups of 4 or more, t3 groups of exactly 3.
    """
    groups = Counter(tiles)
    t4 = sum(1 for c in groups.values() if c >= 4)
    threes = [v for (_, v), c in groups.items() if c == 3]
    t3 = len(threes)
    if t4 >= 2:
        return ("Double Four", 10)
    if t4 == 1 and t3 >= 1:
        return ("Multi", 5)
    if t3 >= 2:
        return ("Double Three", 4 if threes[0] == threes[1] else 3)
    if t4 == 1:
        return ("Single Four", 2)
    if t3 == 1:
        return ("Single Three", 1)
    return None


def has_straight(tiles: Sequence[Tile]) -> bool:
    """Five tiles of one colour with five consecutive values."""
    for colour in (BLUE, RED):
        values = {v for c, v in tiles if c == colour}
        if any(all(v + i in values for i in range(5)) for v in range(0, 5)):
            return True
    return False


def bonuses(tiles: Sequence[Tile], *, closed: bool, has_eight: bool, heaven: bool) -> list[tuple[str, int]]:
    """The advanced-scoring bonuses of eight coloured tiles, as (name, points), in the rules' order."""
    out: list[tuple[str, int]] = []
    values = [v for _, v in tiles]
    blues = sum(1 for c, _ in tiles if c == BLUE)
    reds = len(tiles) - blues
    if closed:
        out.append(("Closed", 1))
    if 1 not in values:
        out.append(("No Ones", 1))
    if blues == 4 and reds == 4:
        out.append(("Half Color", 1))
    if 7 in values:
        out.append(("Seven", 1))
    if has_straight(tiles):
        out.append(("Straight", 1))
    if blues == 2:
        out.append(("Two Blues", 1))
    if max(values) <= 4:
        out.append(("Under Five", 2))
    if blues == len(tiles):
        out.append(("Single Color", 2))
    elif reds == len(tiles):
        out.append(("Single Color", 3))
    if has_eight:
        out.append(("Eight", 2))
    if heaven:
        out.append(("Heaven", 3))
    if len(set(values)) == 1:
        out.append(("God Ten", 25))
    size = size_class(tiles)
    if size is not None:
        out.append(size)
    return out


@dataclass(frozen=True)
class WinScore:
    """A scored winning hand: points, the concealed sets chosen, the tiles' colours and the bonuses."""

    points: int
    chosen: tuple[SetShape, ...]
    singles: tuple[tuple[int, int], ...]
    """Concealed tiles left single, as (kind, colour): a free Marten gets the colour that scored best."""
    bonuses: tuple[tuple[str, int], ...]
    base: int


def score_win(
    counts: Sequence[int],
    open_sets: Sequence[OpenSet],
    *,
    advanced: bool,
    dealer: bool = False,
    heaven: bool = False,
) -> WinScore:
    """Score a winning hand: 1 point (basic) or base + bonuses, maximised over configurations and colourings.

    ``ValueError`` if the hand is not worth 10 in any configuration.
    """
    configs = winning_configurations(counts, open_sets)
    if not configs:
        raise ValueError("not a winning hand: no configuration is worth exactly 10")
    has_eight = counts[PURPLE_8] > 0 or any(PURPLE_8 in o.kinds for o in open_sets)
    closed = not open_sets
    fixed_open: list[Tile] = [(o.colour, VALUE[k]) for o in open_sets for k in o.kinds]
    best: WinScore | None = None
    for chosen in configs:
        rest = list(counts)
        tiles = list(fixed_open)
        for s in chosen:
            for k in s.kinds:
                rest[k] -= 1
                tiles.append((s.colour, VALUE[k]))
        free = [k for k in range(NUM_KINDS) for _ in range(rest[k])]
        purples = [i for i, k in enumerate(free) if COLOUR[k] == PURPLE]
        colourings = product((BLUE, RED), repeat=len(purples)) if advanced else [(BLUE,) * len(purples)]
        for colouring in colourings:
            colours = [COLOUR[k] for k in free]
            for i, c in zip(purples, colouring, strict=True):
                colours[i] = c
            singles = tuple(zip(free, colours, strict=True))
            if not advanced:
                return WinScore(1, tuple(chosen), singles, (), 1)
            all_tiles = tiles + [(c, VALUE[k]) for k, c in singles]
            found = bonuses(all_tiles, closed=closed, has_eight=has_eight, heaven=heaven)
            base = BASE_DEALER if dealer else BASE_OTHER
            points = base + sum(p for _, p in found)
            if best is None or points > best.points:
                best = WinScore(points, tuple(chosen), singles, tuple(found), base)
    assert best is not None
    return best


__all__ = [
    "BASE_DEALER",
    "BASE_OTHER",
    "RED",
    "TARGET",
    "OpenSet",
    "WinScore",
    "bonuses",
    "concealed_choices",
    "configuration_value",
    "has_straight",
    "is_winning",
    "score_win",
    "size_class",
    "winning_configurations",
]
