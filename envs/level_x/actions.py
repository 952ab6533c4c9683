"""Level X static tables: board, dice rolls (chance outcomes), effects (actions) and groupings.

Everything here depends on no game option, so it is built once at import time.

* A **roll** is the sorted multiset of the four dice (126 of them); its id is its index in ``ROLLS``.
* A **grouping** partitions some of the four dice into groups (each die in at most one group, unused dice
  allowed, single-die groups allowed); 52 groupings of four labelled dice exist.
* The **effect** of a grouping is the sorted tuple of its group sums that lie in 5..10: one step in each of
  those rows. Two groupings with the same effect change the state identically (spec 1.5), so an action is
  an effect; ``EFFECTS`` lists the 49 effects that some roll can produce.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

import numpy as np

ROWS = (5, 6, 7, 8, 9, 10)
"""Row numbers; a row's index is ``row - 5``."""
ROW_LENGTH = (4, 4, 3, 3, 2, 2)
"""Squares per row including the X square (square L of a row of length L is X)."""
TOKENS = (12, 11, 10, 9, 8, 7)
"""Score tokens per row at setup (one fewer each with ``remove_one_per_stack_if_lt4`` and < 4 players)."""
BONUS_TILES = (15, 12, 9, 6)
"""Bonus stack, top first."""
MAX_SCORE = sum(r * t for r, t in zip(ROWS, TOKENS, strict=True)) + sum(BONUS_TILES)
"""452: every token and every bonus tile (used to scale scores into [0, 1])."""


def _groupings(items: tuple[int, ...]) -> list[tuple[tuple[int, ...], ...]]:
    """Every way to put some of ``items`` (die positions) into unordered groups; the rest stay unused."""
    if not items:
        return [()]
    first, rest = items[0], items[1:]
    out = []
    for part in _groupings(rest):
        out.append(part)  # first die unused
        out.append(((first,), *part))  # first die alone
        for i in range(len(part)):
            out.append((*part[:i], (first, *part[i]), *part[i + 1 :]))
    return out


GROUPINGS = _groupings((0, 1, 2, 3))
"""The 52 groupings of the four die positions."""

ROLLS: tuple[tuple[int, int, int, int], ...] = tuple(
    sorted({tuple(sorted(r)) for r in itertools.product(range(1, 7), repeat=4)})  # type: ignore[misc]
)
"""The 126 possible rolls, each sorted ascending; a chance outcome id is an index in this tuple."""
ROLL_INDEX = {roll: i for i, roll in enumerate(ROLLS)}
ROLL_PROBS = tuple(math.factorial(4) / math.prod(math.factorial(c) for c in Counter(r).values()) / 6**4 for r in ROLLS)
"""Multinomial probability of each roll (permutations / 1296)."""
ROLL_CUMULATIVE = np.cumsum(ROLL_PROBS)


def effect_of(groups: list[tuple[int, ...]] | tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Rows stepped by groups of die values: the sorted sums that lie in 5..10."""
    return tuple(sorted(s for g in groups if 5 <= (s := sum(g)) <= 10))


def _build_tables() -> tuple[tuple[tuple[int, ...], ...], list[dict[int, tuple[tuple[int, ...], ...]]]]:
    """All reachable effects, and per roll a representative grouping (as die values) for each effect.

    The representative keeps only the groups that act, each group's dice ascending, groups ordered by
    (sum, dice); among the groupings of one effect it uses the fewest dice, then is lexicographically first.
    """
    per_roll: list[dict[tuple[int, ...], tuple[tuple[int, ...], ...]]] = []
    for roll in ROLLS:
        best: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}
        for grouping in GROUPINGS:
            values = [tuple(sorted(roll[i] for i in g)) for g in grouping]
            groups = tuple(sorted((g for g in values if 5 <= sum(g) <= 10), key=lambda g: (sum(g), g)))
            effect = effect_of(groups)
            old = best.get(effect)
            if old is None or (sum(map(len, groups)), groups) < (sum(map(len, old)), old):
                best[effect] = groups
        per_roll.append(best)
    effects = tuple(sorted({e for best in per_roll for e in best}, key=lambda e: (len(e), e)))
    index = {e: i for i, e in enumerate(effects)}
    return effects, [dict(sorted((index[e], g) for e, g in best.items())) for best in per_roll]


EFFECTS, ROLL_GROUPINGS = _build_tables()
"""``EFFECTS[a]``: rows stepped by action ``a`` (sorted, repeats = several steps); 49 of them.
``ROLL_GROUPINGS[roll][a]``: a representative grouping (tuple of groups of die values) of action ``a``."""
ROLL_LEGAL = tuple(tuple(best) for best in ROLL_GROUPINGS)
"""Legal actions of each roll, ascending."""
EFFECT_INDEX = {e: i for i, e in enumerate(EFFECTS)}
NUM_ACTIONS = len(EFFECTS)
PASS = EFFECT_INDEX[()]
"""Action 0: no group sums to 5..10 (all dice unused); always legal."""
EFFECT_STEPS = tuple(tuple(e.count(r) for r in ROWS) for e in EFFECTS)
"""Steps per row index of each action."""
ROLL_MASKS = np.zeros((len(ROLLS), NUM_ACTIONS), dtype=bool)
for _r, _best in enumerate(ROLL_GROUPINGS):
    ROLL_MASKS[_r, list(_best)] = True
ROLL_MASKS.setflags(write=False)


def grouping_text(groups: tuple[tuple[int, ...], ...]) -> str:
    """``"group {3,4}=7 {3,6}=9"``; ``"pass"`` for no effective group."""
    if not groups:
        return "pass"
    return "group " + " ".join("{" + ",".join(map(str, g)) + "}=" + str(sum(g)) for g in groups)


_GROUP = re.compile(r"\{([^{}]*)\}(?:\s*=\s*(-?\d+))?")


def parse_grouping(text: str, roll: tuple[int, ...]) -> int | None:
    """The action of a grouping written as ``"group {4,3}=7 {6,3}=9"`` (any order, sums optional,
    ineffective groups such as ``{4}`` allowed) for the dice ``roll``; ``None`` if it is not one.

    Raises ``ValueError`` if it is a grouping but does not fit the dice (missing dice or a wrong sum).
    """
    text = text.strip().lower()
    if text in ("pass", "group", "group none", "none"):
        return PASS
    if not text.startswith("group"):
        return None
    body = text[len("group") :]
    groups = []
    for m in _GROUP.finditer(body):
        values = [v.strip() for v in m.group(1).split(",")] if m.group(1).strip() else []
        if not values or not all(v.isdigit() for v in values):
            raise ValueError(f"group {{{m.group(1)}}} must list die values")
        dice = tuple(int(v) for v in values)
        if m.group(2) is not None and int(m.group(2)) != sum(dice):
            raise ValueError(f"group {{{m.group(1)}}} sums to {sum(dice)}, not {m.group(2)}")
        groups.append(dice)
    if _GROUP.sub("", body).strip(" ,;+"):
        raise ValueError(f"cannot read {text!r}; write groups like 'group {{3,4}}=7 {{6,3}}=9'")
    used = Counter(v for g in groups for v in g)
    if used - Counter(roll):
        raise ValueError(f"the groups use dice {sorted(used.elements())}, but the roll is {list(roll)}")
    return EFFECT_INDEX[effect_of(groups)]
