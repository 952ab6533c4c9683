"""``PaikoHeuristic``: one-turn greedy search over complete moves with a material/position evaluation.

At the start of its turn the agent walks every complete action (each deploy, each shift or redeploy,
one draw plan), applies it on a copy (captures included) and scores the result:

* a win +10000; a draw -50;
* 12 per point of score difference, 6 per tile of lost-tile difference;
* -4 for each own tile one threat away from capture (T_opp - C_own >= 1), weighted by what it scores;
* +2 for each opponent tile one threat away from capture;
* a small bonus for tiles in hand (up to 4), a penalty for an empty hand.

Facings are only tried where they matter (Sai, Bow, Fire); a just-deployed Sai stays. The chosen
sequence of sub-decisions is remembered and followed on the next calls of the same turn. Draft picks
and draws take the type the hand holds fewest of (ties: Sword, Earth, Bow, Water, Sai, Fire, Air,
Lotus); as the captured owner it gives the capturer the least useful type available (Lotus first).
Ties are broken at random with the caller's generator. Paikō has no hidden information.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.paiko.actions import DEPLOY, FACE, GIVE, PASS, SQUARE, STAY, STOP, TAKE
from gameshelf.envs.paiko.board import BOW, FIRE, NUM_TYPES, POINTS, SAI, ZONE, code_type
from gameshelf.envs.paiko.game import DRAFT, GIFT, OVER, START, PaikoState

PRIORITY = (1, 6, 2, 7, 0, 5, 4, 3)
"""Sword, Earth, Bow, Water, Sai, Fire, Air, Lotus."""
GIFT_ORDER = (3, 4, 0, 7, 2, 6, 5, 1)
"""Types handed to the capturer, least useful first."""
FACING_MATTERS = frozenset({SAI, BOW, FIRE})


def evaluate(state: PaikoState, seat: int) -> float:
    """Score of a position for ``seat`` (see the module docstring)."""
    if state.phase == OVER:
        if state.winner < 0:
            return -50.0
        return 10000.0 if state.winner == seat else -10000.0
    opp = 1 - seat
    value = 12.0 * (state.score[seat] - state.score[opp]) + 6.0 * (state.lost[opp] - state.lost[seat])
    thr_opp, thr_me = state.thr[opp], state.thr[seat]
    for sq in state.tiles[seat]:
        if thr_opp[sq] - state.covered(seat, sq) >= 1:
            value -= 4.0 * max(1, POINTS[seat][sq])
    for sq in state.tiles[opp]:
        if thr_me[sq] - state.covered(opp, sq) >= 1:
            value += 2.0
    in_hand = sum(state.hand[seat])
    value += 0.5 * min(in_hand, 4) - (3.0 if in_hand == 0 else 0.0)
    # presence: own threat over the middlegrounds and the opponent's homeground helps later deploys
    value += 0.05 * sum(1 for sq, t in enumerate(thr_me) if t and ZONE[sq] != seat)
    return value


def _pick_type(counts: list[int], available: list[int]) -> int:
    best = min((counts[t], PRIORITY.index(t)) for t in range(NUM_TYPES) if available[t] > 0)
    return PRIORITY[best[1]]


class PaikoHeuristic:
    """Greedy one-turn search (see the module docstring)."""

    name = "heuristic"

    def __init__(self) -> None:
        self._plan: list[int] = []
        self._plan_at = -1

    def act(self, state: PaikoState, seat: int, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        phase = state.phase
        if phase == GIFT:
            for t in GIFT_ORDER:
                if GIVE + t in legal:
                    return GIVE + t
        if phase == DRAFT:
            return TAKE + _pick_type(state.hand[seat], state.reserve[seat])
        if self._plan and self._plan_at == len(state.history) and self._plan[0] in legal:
            action = self._plan.pop(0)
            self._plan_at += 1
            return action
        self._plan = []
        if phase != START:  # a sub-decision without a plan (e.g. an outside caller): search from here
            pass
        best_value, best_plans = -np.inf, []
        for plan, value in self._candidates(state, seat):
            if value > best_value + 1e-9:
                best_value, best_plans = value, [plan]
            elif value > best_value - 1e-9:
                best_plans.append(plan)
        plan = best_plans[int(rng.integers(len(best_plans)))]
        self._plan = list(plan[1:])
        self._plan_at = len(state.history) + 1
        return plan[0]

    def _candidates(self, state: PaikoState, seat: int):
        """(action sequence, value) of every complete action from this sub-decision on."""
        stack: list[tuple[PaikoState, tuple[int, ...]]] = [(state, ())]
        while stack:
            node, prefix = stack.pop()
            if node.phase in (OVER, GIFT) or node.mover != seat or (prefix and node.phase == START):
                yield prefix, evaluate(node, seat)
                continue
            legal = node.legal_actions()
            if node.phase in (START, 2) and any(a < STOP for a in legal):  # one draw plan instead of every combination
                draws = [a for a in legal if a < STOP]
                after = node.clone()
                seq = list(prefix)
                counts = list(after.hand[seat])
                while after.mover == seat and after.phase in (START, 2) and after.picks < 3 and any(after.reserve[seat]):
                    t = _pick_type(counts, after.reserve[seat])
                    counts[t] += 1
                    after.apply_checked_action(TAKE + t)
                    seq.append(TAKE + t)
                if after.mover == seat and after.phase == 2:
                    after.apply_checked_action(STOP)
                    seq.append(STOP)
                yield tuple(seq), evaluate(after, seat)
                legal = [a for a in legal if a >= STOP and a != STOP]
                del draws
            if node.phase == 5:  # a just-deployed Sai stays
                legal = [STAY] if STAY in legal else legal[:1]
            if legal and FACE <= legal[0] < FACE + 4:
                kind = node.sel_type if node.sel_type >= 0 else code_type(node.board[node.sel_sq])
                if kind not in FACING_MATTERS:
                    legal = legal[:1]
            if legal == [PASS]:
                after = node.clone()
                after.apply_checked_action(PASS)
                yield (*prefix, PASS), evaluate(after, seat)
                continue
            for a in legal:
                if DEPLOY <= a < GIVE or SQUARE <= a < FACE or FACE <= a < STAY or a == STAY:
                    child = node.clone()
                    child.apply_checked_action(a)
                    stack.append((child, (*prefix, a)))


__all__ = ["PaikoHeuristic", "evaluate"]


Heuristic = PaikoHeuristic
"""The game's heuristic agent, found by this name (``envs.core.agent.heuristic_class``)."""
