"""KoPlus final scoring: groups of each player's tiles, +5 / -5 / -3 (spec section 1, "Final scoring").

The game's own final scoring is a kernel (``kernel.end``), which writes each seat's breakdown into the state
row (``state.final`` reads it back as ``FinalScore``). The functions here compute the same scoring from Python
tile lists, for what looks ahead without playing: the heuristic agent values placements with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

LARGEST_GROUP_BONUS = 5
"""To every player whose largest group (>= 2 tiles) is not smaller than anyone else's."""
ISOLATED_PENALTY = -5
"""Per tile adjacent to no other tile of its owner."""
SMALL_GROUP_PENALTY = -3
"""Per tile of a group of 2 or more that is smaller than its owner's largest group."""


@dataclass(frozen=True)
class FinalScore:
    """The final-scoring breakdown of one player."""

    largest_group: int
    """M_p: size of the player's largest group of 2 or more tiles (0 if none)."""
    bonus: int
    isolated: int
    """Number of isolated tiles."""
    small: int
    """Number of tiles in non-isolated, non-maximal groups."""

    @property
    def total(self) -> int:
        return self.bonus + ISOLATED_PENALTY * self.isolated + SMALL_GROUP_PENALTY * self.small


def tile_groups(
    tiles: Sequence[tuple[int, int, int]],
    tile_at: np.ndarray,
    border_of: Sequence[dict[int, tuple[int, ...]]],
    num_players: int,
) -> list[list[list[int]]]:
    """Connected groups of each player's tiles: ``groups[seat]`` is a list of lists of tile indices.

    ``tiles[i] = (seat, shape, action)``; ``tile_at[cell]`` is the index of the tile covering the cell
    (-1 if none); two tiles are adjacent when a cell of one is orthogonally adjacent to a cell of the other.
    """
    parent = list(range(len(tiles)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (seat, shape, action) in enumerate(tiles):
        for cell in border_of[shape][action]:
            j = int(tile_at[cell])
            if j >= 0 and tiles[j][0] == seat:
                parent[find(i)] = find(j)
    by_root: dict[int, list[int]] = {}
    for i in range(len(tiles)):
        by_root.setdefault(find(i), []).append(i)
    groups: list[list[list[int]]] = [[] for _ in range(num_players)]
    for members in by_root.values():
        groups[tiles[members[0]][0]].append(members)
    return groups


def final_scores(group_sizes: Sequence[Sequence[int]]) -> list[FinalScore]:
    """The final-scoring breakdown of every player from the sizes of their groups (1 = isolated tile)."""
    largest = [max((s for s in sizes if s >= 2), default=0) for sizes in group_sizes]
    best = max(largest, default=0)
    out = []
    for sizes, m in zip(group_sizes, largest, strict=True):
        out.append(
            FinalScore(
                largest_group=m,
                bonus=LARGEST_GROUP_BONUS if m >= 2 and m == best else 0,
                isolated=sum(1 for s in sizes if s == 1),
                small=sum(s for s in sizes if 2 <= s < m),
            )
        )
    return out


def final_adjustments(group_sizes: Sequence[Sequence[int]]) -> list[int]:
    """The points every player gains (or loses) in the final scoring."""
    return [score.total for score in final_scores(group_sizes)]
