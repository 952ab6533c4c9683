"""A greedy KoPlus agent: points now, exact 20/40/60 landings, and the shape of its own groups at the end.

Each legal placement is valued as

    points captured
    + BONUS_VALUE            if it leaves the score at exactly 20/40/60 with a bonus turn left
    + GROUP_WEIGHT * change of the player's final-scoring estimate (+5 / -5 / -3 computed on the groups
                             as they would be right after the placement, against the opponents' groups now)

so it extends or joins its own groups and avoids tiles that would stay isolated; ties are broken at random.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import State
from gameshelf.envs.koplus.board import BONUS_SCORES
from gameshelf.envs.koplus.game import KoPlusState
from gameshelf.envs.koplus.scoring import final_adjustments, tile_groups


class KoPlusHeuristic:
    name = "heuristic"

    BONUS_VALUE = 12.0
    """An extra tile's points plus a turn taken from the others (tuned in self-play)."""
    GROUP_WEIGHT = 0.7

    def __init__(self, bonus_value: float = BONUS_VALUE, group_weight: float = GROUP_WEIGHT) -> None:
        self.bonus_value = bonus_value
        self.group_weight = group_weight

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        assert isinstance(state, KoPlusState)
        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        n = state.num_players
        groups = tile_groups(state.tiles, state.tile_at, state.geo.border_of, n)
        sizes = [[len(g) for g in seat_groups] for seat_groups in groups]
        group_of = {t: gi for gi, g in enumerate(groups[seat]) for t in g}
        before = final_adjustments(sizes)[seat]
        shape = state.top_tile(seat)
        assert shape is not None
        border_of = state.geo.border_of[shape]
        owner, tile_at = state.owner, state.tile_at
        score, bonus_left = state.points[seat], state.bonus_left[seat]

        best_value, best = -np.inf, []
        for action in legal:
            gain = state.placement_points(action)
            value = float(gain)
            if bonus_left > 0 and score + gain in BONUS_SCORES:
                value += self.bonus_value
            touched = {group_of[int(tile_at[c])] for c in border_of[action] if owner[c] == seat}
            merged = 1 + sum(sizes[seat][g] for g in touched)
            mine = [s for g, s in enumerate(sizes[seat]) if g not in touched] + [merged]
            after = final_adjustments([mine if s == seat else sizes[s] for s in range(n)])[seat]
            value += self.group_weight * (after - before)
            if value > best_value + 1e-9:
                best_value, best = value, [action]
            elif value > best_value - 1e-9:
                best.append(action)
        return int(best[rng.integers(len(best))])


Heuristic = KoPlusHeuristic
"""The game's heuristic agent, found by this name (``envs.core.agent.heuristic_class``)."""
