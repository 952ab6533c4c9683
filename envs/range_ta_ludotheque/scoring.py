"""Range Ta Ludothèque scoring as pure functions over one sheet, computed by the game's kernels.

A sheet is given as its boxes, ``Box(face, category, mechanism, anchor)`` (anchor = top-left square), and
``filled``, the bit set of every filled square (boxes and playmats). Playmats are not games: they only
fill squares. The scoring itself is written once, in ``kernel.py`` (over a list of moves); these functions
lay a sheet out as such a list and call it, so the rules tests, the heuristic agent and the game score alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from gameshelf.envs.core.kernel import STATE_DTYPE
from gameshelf.envs.range_ta_ludotheque import kernel as K
from gameshelf.envs.range_ta_ludotheque.actions import BOX, MAT
from gameshelf.envs.range_ta_ludotheque.board import Geometry


class Box(NamedTuple):
    """One game on a sheet: size-die face (shape), category 1..6, mechanism 1..6, top-left square."""

    face: int
    category: int
    mechanism: int
    anchor: int


def empty_squares(geom: Geometry, filled: int) -> int:
    """Squares holding neither a box nor a playmat."""
    return geom.size - filled.bit_count()


def _moves(geom: Geometry, boxes: Sequence[Box], filled: int = 0) -> np.ndarray:
    """The sheet as the kernels' list of moves (one row): the boxes in order, then a playmat on every other
    filled square."""
    if len(boxes) > 62:
        raise ValueError(f"a sheet holds at most 62 boxes here, got {len(boxes)}")
    covered = 0
    for box in boxes:
        covered |= geom.placement_at[box.face][box.anchor].cells
    mats = geom.squares_of(filled & ~covered)
    out = np.zeros((1, K.MOVE_WIDTH * (len(boxes) + len(mats))), dtype=STATE_DTYPE)
    for m, box in enumerate(boxes):
        out[0, K.MOVE_WIDTH * m : K.MOVE_WIDTH * (m + 1)] = (BOX, *box)
    for m, sq in enumerate(mats, start=len(boxes)):
        out[0, K.MOVE_WIDTH * m : K.MOVE_WIDTH * (m + 1)] = (MAT, 0, 0, 0, sq)
    return out


def classic_groups(geom: Geometry, boxes: Sequence[Box], walls_block_adjacency: bool = False) -> dict[str, int]:
    """Points of every category and mechanism group (largest connected group, if it has at least 2 games)."""
    moves = _moves(geom, boxes)
    out: dict[str, int] = {}
    for field, kind in ((2, "c"), (3, "m")):
        for value in range(1, 7):
            size = K.largest_group(
                moves, 0, 0, len(boxes), geom.comp_h, geom.comp_w, geom.cols, walls_block_adjacency, field, value
            )
            out[f"{kind}{value}"] = int(size) if size >= 2 else 0
    return out


def classic_score(geom: Geometry, boxes: Sequence[Box], filled: int, walls_block_adjacency: bool = False) -> int:
    """Classic mode: group points of the 6 categories and 6 mechanisms, minus 1 per empty square."""
    return sheet_score(geom, boxes, filled, "classic", walls_block_adjacency)


def expert_bonuses(geom: Geometry, boxes: Sequence[Box], walls_block_adjacency: bool = False) -> list[tuple[int, int]]:
    """Per box: (category bonus, mechanism bonus) of Expert mode."""
    moves = _moves(geom, boxes)
    k, ch, cw, cols = len(boxes), geom.comp_h, geom.comp_w, geom.cols
    return [
        (
            int(K.category_bonus(moves, 0, 0, k, m, ch, cw, cols)),
            int(K.mechanism_bonus(moves, 0, 0, k, m, ch, cw, cols, walls_block_adjacency)),
        )
        for m in range(k)
    ]


def full_compartment_bonus(geom: Geometry, boxes: Sequence[Box], filled: int) -> int:
    """Expert mode: 2 points per game in every completely filled compartment."""
    moves = _moves(geom, boxes, filled)
    k = moves.shape[1] // K.MOVE_WIDTH
    return int(K.full_compartment_bonus(moves, 0, 0, k, geom.comp_h, geom.comp_w, geom.cols, geom.rows))


def expert_score(geom: Geometry, boxes: Sequence[Box], filled: int, walls_block_adjacency: bool = False) -> int:
    """Expert mode: per-game bonuses + full-compartment bonus - 1 per empty square."""
    return sheet_score(geom, boxes, filled, "expert", walls_block_adjacency)


def sheet_score(geom: Geometry, boxes: Sequence[Box], filled: int, scoring: str, walls_block_adjacency: bool) -> int:
    """The score of a sheet in ``scoring`` mode (``"classic"`` or ``"expert"``)."""
    moves = _moves(geom, boxes, filled)
    k = moves.shape[1] // K.MOVE_WIDTH
    expert = scoring == "expert"
    return int(K.score_moves(moves, 0, 0, k, expert, walls_block_adjacency, geom.comp_h, geom.comp_w, geom.cols, geom.rows))


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
