"""A heuristic Matchstick Tycoon agent: shed cards, keep matchsticks for when they are needed, play low,
keep versatile cards.

It reads only its own hand and public information (the state it is handed is redealt from its seat's
point of view by the caller). Every legal action is scored and the best played (ties broken at random):

* announcing a play (``play n x W``): 10 per card shed, +12 per face of the hand the play uses up (fewer
  groups left means fewer leads needed), -3 per matchstick the cheapest way of laying it needs
  (matchsticks are what lets a hand beat a table: they are spent only when it pays), minus 4 x the
  value's strength in the current order (keep strong values for later), minus 8 for one of the
  strongest values on a follow while the hand is still big; going out at once (all cards, all
  matchsticks) is always taken;
* passing scores -5: the agent follows whenever it can;
* laying a card: the cheapest cards first (-2 per matchstick), a face held once (+2), keep the versatile
  cards (those that can show many values) for later (-0.4 per value the face can show).

Its record against the random agent is in the environment card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from gameshelf.envs.core.game import State
from gameshelf.envs.matchstick_tycoon.actions import PASS, PICK_BASE, decode
from gameshelf.envs.matchstick_tycoon.cards import COST, NUM_FACES, NUM_VALUES
from gameshelf.envs.matchstick_tycoon.game import SHOWERS, min_costs

if TYPE_CHECKING:
    from gameshelf.envs.matchstick_tycoon.game import MatchstickState

VERSATILITY = tuple(sum(1 for v in range(NUM_VALUES) if COST[f][v] >= 0) for f in range(NUM_FACES))


def _groups_cleared(hand: list[int], value: int, count: int) -> int:
    """Faces whose every copy in ``hand`` the cheapest way of laying ``count`` cards as ``value`` uses up."""
    cleared = 0
    left = count
    for _c, f in SHOWERS[value]:
        if left == 0:
            break
        if hand[f]:
            used = min(hand[f], left)
            left -= used
            if used == hand[f]:
                cleared += 1
    return cleared


class MatchstickHeuristic:
    """Greedy shedding heuristic (see the module docstring)."""

    name = "heuristic"
    per_card = 10.0
    per_stick = -3.0
    rank_w = 4.0
    group_w = 12.0
    strong_w = 8.0
    stick_pick = -2.0
    single_pick = 2.0
    pass_score = -5.0

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        scores = np.array([self.score(cast("MatchstickState", state), seat, a) for a in legal], dtype=np.float64)
        scores += rng.random(len(legal)) * 1e-3  # random tie-break
        return int(legal[int(np.argmax(scores))])

    def score(self, s: MatchstickState, seat: int, action: int) -> float:
        hand = s.hands[seat]
        size = s.hand_sizes[seat]
        sticks = s.sticks[seat]
        if action == PASS:
            return self.pass_score
        _kind, count, x = decode(action)
        if action >= PICK_BASE:
            c = COST[x][s.pending_value]
            return self.stick_pick * c - 0.4 * VERSATILITY[x] + (self.single_pick if hand[x] == 1 else 0.0)
        value = x
        spent = min_costs(hand, value, count)[count - 1]
        if count == size and spent == sticks:
            return 1000.0  # out at once
        num_values = s.game.num_values
        strength = (num_values - 1 - value) if s.reversed else value
        rank = strength / max(num_values - 1, 1)  # 0 weakest .. 1 strongest
        score = self.per_card * count + self.per_stick * spent - self.rank_w * rank
        score += self.group_w * _groups_cleared(hand, value, count)
        if s.table_count and rank > 0.8 and size > 6:
            score -= self.strong_w  # do not waste the strongest values early
        if count == size:
            score += 20.0  # no cards left: only matchsticks to discard
        return score


__all__ = ["MatchstickHeuristic"]


Heuristic = MatchstickHeuristic
"""The game's heuristic agent, found by this name (``envs.core.agent.heuristic_class``)."""
