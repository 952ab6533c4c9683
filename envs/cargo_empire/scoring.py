"""Pure scoring functions of Cargo Empire (track VP, goals, final score); values from ``data``."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from gameshelf.envs.cargo_empire.data import (
    GOALS,
    NUM_CITIES,
    NUM_PUBLIC_CARDS,
    PORTS,
    START_POSTS,
    TRACK_MAX,
    TRACK_REWARDS,
    TRACK_VP,
    VP_PER_LV3_POST,
    VP_PER_PRIVATE_CARD,
    board_posts,
)


def track_vp(space: int) -> int:
    """End-game VP of a development marker on ``space``."""
    return TRACK_VP[min(max(space, 0), TRACK_MAX)]


def track_rewards(before: int, after: int) -> list[str]:
    """Rewards of the spaces a marker enters when it moves from ``before`` to ``after``, in order."""
    out: list[str] = []
    for space in range(before + 1, min(after, TRACK_MAX) + 1):
        out.extend(TRACK_REWARDS.get(space, ()))
    return out


def goal_fulfilled(
    goal: int, cities: Collection[int], lv3_cities: Collection[int], tracks: Sequence[int], perfect_upgrades: int
) -> bool:
    """Is goal card ``goal`` fulfilled by a player with posts in ``cities`` (``lv3_cities`` of them LV3),
    development markers ``tracks`` (Truck, Train, Ship) and ``perfect_upgrades`` Perfect Upgrades caused?"""
    kind, *args = GOALS[goal][1]
    if kind == "ports":
        return len(set(cities) & PORTS) >= int(args[0])  # type: ignore[call-overload]
    if kind == "lv3":
        return len(set(lv3_cities)) >= int(args[0])  # type: ignore[call-overload]
    if kind == "cities":
        return len(set(cities)) >= int(args[0])  # type: ignore[call-overload]
    if kind == "track":
        return tracks[int(args[0])] >= int(args[1])  # type: ignore[call-overload]
    if kind == "pair":
        return int(args[0]) in cities and int(args[1]) in cities  # type: ignore[call-overload]
    if kind == "perfect":
        return perfect_upgrades >= int(args[0])  # type: ignore[call-overload]
    raise ValueError(f"unknown goal kind {kind!r}")


def goal_vp(goal: int) -> int:
    return GOALS[goal][2]


def final_vp(tracks: Sequence[int], lv3_posts: int, private_cards: int, fulfilled_goals: Collection[int]) -> int:
    """Final score: the three markers' VP + 3 per own post at an LV3 city + 5 per Private City card + goals."""
    return (
        sum(track_vp(t) for t in tracks)
        + VP_PER_LV3_POST * lv3_posts
        + VP_PER_PRIVATE_CARD * private_cards
        + sum(goal_vp(g) for g in fulfilled_goals)
    )


MAX_VP = (
    3 * TRACK_VP[TRACK_MAX]
    + VP_PER_LV3_POST * (START_POSTS + board_posts(1))
    + VP_PER_PRIVATE_CARD * (NUM_CITIES - NUM_PUBLIC_CARDS)
    + sum(g[2] for g in GOALS)
)
"""An upper bound of any final score (168): the solo return is ``2 * VP / MAX_VP - 1``."""
