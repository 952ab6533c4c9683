"""Range Ta Ludothèque scoring: pure functions over one sheet.

A sheet is given as its boxes, ``Box(face, category, mechanism, anchor)`` (anchor = top-left square), and
``filled``, the bit set of every filled square (boxes and playmats). Playmats are not games: they only
fill squares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from gameshelf.envs.range_ta_ludotheque.board import (
    BLUFFING,
    BOARD,
    CARD,
    DECKBUILDING,
    DEDUCTION,
    DEXTERITY,
    HORIZONTAL,
    MEMORY,
    MINIATURES,
    PROGRAMMING,
    PUZZLE,
    RPG,
    SECRET_ROLES,
    SQUARES,
    VERTICAL,
    Geometry,
)


class Box(NamedTuple):
    """One game on a sheet: size-die face (shape), category 1..6, mechanism 1..6, top-left square."""

    face: int
    category: int
    mechanism: int
    anchor: int


def box_squares(geom: Geometry, box: Box) -> tuple[int, ...]:
    return geom.placement_at[box.face][box.anchor].squares


def empty_squares(geom: Geometry, filled: int) -> int:
    """Squares holding neither a box nor a playmat."""
    return geom.size - filled.bit_count()


def adjacency(geom: Geometry, boxes: Sequence[Box], walls_block_adjacency: bool) -> list[set[int]]:
    """``adj[i]``: indices of the boxes sharing an edge of squares with box ``i`` (not across a wall if blocked)."""
    owner = [-1] * geom.size
    for i, box in enumerate(boxes):
        for sq in box_squares(geom, box):
            owner[sq] = i
    adj: list[set[int]] = [set() for _ in boxes]
    for a, b, wall in geom.neighbour_pairs:
        if wall and walls_block_adjacency:
            continue
        oa, ob = owner[a], owner[b]
        if oa >= 0 and ob >= 0 and oa != ob:
            adj[oa].add(ob)
            adj[ob].add(oa)
    return adj


def largest_group(members: Sequence[int], adj: Sequence[set[int]]) -> int:
    """Size of the largest connected group among ``members`` (box indices) under ``adj``."""
    left = set(members)
    best = 0
    while left:
        stack = [left.pop()]
        size = 0
        while stack:
            i = stack.pop()
            size += 1
            for j in adj[i]:
                if j in left:
                    left.remove(j)
                    stack.append(j)
        best = max(best, size)
    return best


def classic_groups(geom: Geometry, boxes: Sequence[Box], walls_block_adjacency: bool = False) -> dict[str, int]:
    """Points of every category and mechanism group (largest connected group, if it has at least 2 games)."""
    adj = adjacency(geom, boxes, walls_block_adjacency)
    out: dict[str, int] = {}
    for kind in ("category", "mechanism"):
        for value in range(1, 7):
            members = [i for i, b in enumerate(boxes) if getattr(b, kind) == value]
            size = largest_group(members, adj)
            out[f"{kind[0]}{value}"] = size if size >= 2 else 0
    return out


def classic_score(geom: Geometry, boxes: Sequence[Box], filled: int, walls_block_adjacency: bool = False) -> int:
    """Classic mode: group points of the 6 categories and 6 mechanisms, minus 1 per empty square."""
    return sum(classic_groups(geom, boxes, walls_block_adjacency).values()) - empty_squares(geom, filled)


def expert_bonuses(geom: Geometry, boxes: Sequence[Box], walls_block_adjacency: bool = False) -> list[tuple[int, int]]:
    """Per box: (category bonus, mechanism bonus) of Expert mode."""
    adj = adjacency(geom, boxes, walls_block_adjacency)
    comp = [geom.comp_of[b.anchor] for b in boxes]
    in_comp: dict[int, list[int]] = {}
    for i, k in enumerate(comp):
        in_comp.setdefault(k, []).append(i)
    memory = sum(b.mechanism == MEMORY for b in boxes)
    secret = sum(b.mechanism == SECRET_ROLES for b in boxes)
    out = []
    for i, b in enumerate(boxes):
        mates = in_comp[comp[i]]
        cat = b.category
        if cat == PUZZLE:
            cats = [boxes[j].category for j in mates]
            mechs = [boxes[j].mechanism for j in mates]
            distinct = len(set(cats)) == len(cats) and len(set(mechs)) == len(mechs)
            cat_bonus = len(mates) if distinct else 0
        elif cat == DEXTERITY:
            squares = box_squares(geom, b)
            cat_bonus = 0 if geom.is_floor[squares[-1]] else 2
        elif cat == CARD:
            cat_bonus = sum(boxes[j].category == CARD for j in mates)
        elif cat == BOARD:
            cat_bonus = int(b.face in HORIZONTAL)
        elif cat == MINIATURES:
            cat_bonus = int(SQUARES[b.face] == 6)
        elif cat == RPG:
            cat_bonus = int(b.face in VERTICAL)
        else:
            raise ValueError(f"unknown category {cat}")
        mech = b.mechanism
        if mech == BLUFFING:
            mech_bonus = sum(boxes[j].category == cat or boxes[j].mechanism == mech for j in adj[i])
        elif mech == DEDUCTION:
            mech_bonus = int(SQUARES[b.face] == 2)
        elif mech == DECKBUILDING:
            mech_bonus = sum(boxes[j].mechanism != DECKBUILDING for j in mates)
        elif mech == PROGRAMMING:
            mech_bonus = sum(boxes[j].mechanism == PROGRAMMING for j in adj[i])
        elif mech == MEMORY:
            mech_bonus = min(3, memory)
        elif mech == SECRET_ROLES:
            mech_bonus = 5 if secret == 1 else 0
        else:
            raise ValueError(f"unknown mechanism {mech}")
        out.append((cat_bonus, mech_bonus))
    return out


def full_compartment_bonus(geom: Geometry, boxes: Sequence[Box], filled: int) -> int:
    """Expert mode: 2 points per game in every completely filled compartment."""
    total = 0
    for k, mask in enumerate(geom.comp_mask):
        if filled & mask == mask:
            total += 2 * sum(geom.comp_of[b.anchor] == k for b in boxes)
    return total


def expert_score(geom: Geometry, boxes: Sequence[Box], filled: int, walls_block_adjacency: bool = False) -> int:
    """Expert mode: per-game bonuses + full-compartment bonus - 1 per empty square."""
    bonuses = sum(c + m for c, m in expert_bonuses(geom, boxes, walls_block_adjacency))
    return bonuses + full_compartment_bonus(geom, boxes, filled) - empty_squares(geom, filled)


def sheet_score(geom: Geometry, boxes: Sequence[Box], filled: int, scoring: str, walls_block_adjacency: bool) -> int:
    """The score of a sheet in ``scoring`` mode (``"classic"`` or ``"expert"``)."""
    if scoring == "expert":
        return expert_score(geom, boxes, filled, walls_block_adjacency)
    return classic_score(geom, boxes, filled, walls_block_adjacency)


def score_bounds(geom: Geometry, rounds: int, scoring: str) -> tuple[int, int]:
    """Bounds on a final score, used to scale the solo score into [-1, 1].

    Low: every round fills at least one square, so at most ``size - min(rounds, size)`` squares stay empty.
    High: at most ``G = min(rounds, size // 2)`` games. Classic: each game counts in at most one category
    group and one mechanism group, so at most ``2 G``. Expert: per game at most ``max(2, g)`` for its
    category (``g`` = games a compartment holds, ``comp squares // 2``), ``max(5, G - 1, g - 1)`` for its
    mechanism and 2 for a full compartment.
    """
    low = -(geom.size - min(rounds, geom.size))
    games = min(rounds, geom.size // 2)
    if scoring == "classic":
        return low, 2 * games
    per_comp = (geom.comp_h * geom.comp_w) // 2
    return low, games * (max(2, per_comp) + max(5, games - 1, per_comp - 1) + 2)
