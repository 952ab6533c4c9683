"""Cargo Empire's scoring as pure functions (track VP and rewards, goals, final score), computed by the kernels.

The scoring itself is written once, in ``kernel.py`` (``vp`` and ``goal_met`` over a state row, the tables
``TRACK_VP``, ``REWARD_TABLE``, ``GOAL_VP``); these functions lay one player's board out as a row (seat 0 of a
new game's row) and call it, so the rules tests, the heuristic agent, the redeal and the game score alike.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from gameshelf.envs.cargo_empire import kernel as K
from gameshelf.envs.cargo_empire.actions import DRAW_KINDS
from gameshelf.envs.cargo_empire.data import NUM_GOALS, TRACK_MAX

MAX_VP = K.MAX_VP
"""An upper bound of any final score (168): the solo return is ``2 * VP / MAX_VP - 1``."""

_NEW_ROW = K.ROW.new_row()
_LV3_CITY = 0
"""The city ``final_vp`` puts the LV3 posts on."""


def track_vp(space: int) -> int:
    """End-game VP of a development marker on ``space``."""
    return int(K.TRACK_VP[_space(space)])


def track_rewards(before: int, after: int) -> list[str]:
    """Rewards of the spaces a marker enters when it moves from ``before`` to ``after``, in order."""
    out: list[str] = []
    for space in range(before + 1, min(after, TRACK_MAX) + 1):
        out.extend(DRAW_KINDS[kind] for kind in K.REWARD_TABLE[space] if kind >= 0)
    return out


def goal_fulfilled(
    goal: int, cities: Collection[int], lv3_cities: Collection[int], tracks: Sequence[int], perfect_upgrades: int
) -> bool:
    """Is goal card ``goal`` fulfilled by a player with posts in ``cities`` (``lv3_cities`` of them LV3),
    development markers ``tracks`` (Truck, Train, Ship) and ``perfect_upgrades`` Perfect Upgrades caused?"""
    if not 0 <= goal < NUM_GOALS:
        raise IndexError(f"goal {goal} is not one of the {NUM_GOALS} goal cards")
    S = _board(tracks)
    for city in {*cities, *lv3_cities}:
        S[0, K.SIDE + K.MP * city] = 1  # a post of seat 0
    for city in lv3_cities:
        S[0, K.LEVEL + city] = 3
    S[0, K.PERFECT] = perfect_upgrades
    return bool(K.goal_fulfilled(S, 0, 0, goal))


def goal_vp(goal: int) -> int:
    return int(K.GOAL_VP[goal])


def final_vp(tracks: Sequence[int], lv3_posts: int, private_cards: int, fulfilled_goals: Collection[int]) -> int:
    """Final score: the three markers' VP + 3 per own post at an LV3 city + 5 per Private City card + goals."""
    S = _board(tracks)
    S[0, K.LEVEL + _LV3_CITY] = 3
    S[0, K.SIDE + K.MP * _LV3_CITY] = lv3_posts
    S[0, K.PRIV_LEN] = private_cards
    return int(K.seat_vp(S, 0, 0, False)) + sum(goal_vp(g) for g in fulfilled_goals)


def _space(space: int) -> int:
    return min(max(int(space), 0), TRACK_MAX)


def _board(tracks: Sequence[int]) -> np.ndarray:
    """A one-row matrix: a new game's row with seat 0's markers on ``tracks`` (each held to the track)."""
    S = _NEW_ROW.copy()[None, :]
    for vehicle, space in enumerate(tracks):  # entry by entry: faster than numpy's conversion of a list
        S[0, K.TRACKS + vehicle] = _space(space)
    return S
