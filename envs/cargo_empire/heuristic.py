"""Cargo Empire heuristic: greedy one-delivery look-ahead with a hand-made value.

At each decision the agent scores every complete delivery still open to it (start city, destination,
payment, bonus moves allocated greedily) and takes the next step of the best one; it passes when no
delivery is worth more than keeping its cards. The value of a delivery: VP gained on the development
tracks, the rewards of the spaces entered (cards, city cards, goals), progress along the tracks, VP of
own posts moving to an LV3 city, a new city reached (and goals it fulfils), minus the cards spent.
It uses only what its seat sees (the driver hands it a resampled state).
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.cargo_empire.actions import BONUS_BASE, DEST_BASE, PASS, PAY_BASE
from gameshelf.envs.cargo_empire.game import BONUS, DEST, PAY, START, CargoEmpireState
from gameshelf.envs.cargo_empire.routes import ALL_PAYMENTS
from gameshelf.envs.cargo_empire.scoring import goal_fulfilled, track_rewards, track_vp

REWARD_VALUE = {D.DRAW_TRANSPORT: 1.0, D.DRAW_CITY: 5.5, D.DRAW_GOAL: 2.5}


class CargoEmpireHeuristic:
    """Greedy delivery planner (see the module docstring)."""

    name = "heuristic"

    def __init__(self, card_cost: float = 0.7, progress: float = 0.35, new_city: float = 1.0) -> None:
        self.card_cost = card_cost
        self.progress = progress
        self.new_city = new_city

    def act(self, state: CargoEmpireState, seat: int, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if state.phase == BONUS:
            tracks = list(state.tracks[seat])
            best = max(legal, key=lambda a: self._step_value(tracks, a - BONUS_BASE, 1) + 1e-6 * rng.random())
            return int(best)
        plans = self._plans(state, seat)
        if not plans:
            return PASS if PASS in legal else int(legal[0])
        value, s, d, p = max(plans, key=lambda x: x[0])
        if state.phase == START:
            return PASS if value < 0.0 and PASS in legal else s
        if state.phase == DEST:
            return DEST_BASE + d
        return PAY_BASE + p

    # ---- evaluation -----------------------------------------------------------------------------
    def _step_value(self, tracks: list[int], vehicle: int, steps: int) -> float:
        before = tracks[vehicle]
        after = min(D.TRACK_MAX, before + steps)
        value = track_vp(after) - track_vp(before) + self.progress * (after - before)
        value += sum(REWARD_VALUE[r] for r in track_rewards(before, after))
        return value

    def _plans(self, state: CargoEmpireState, seat: int) -> list[tuple[float, int, int, int]]:
        starts = [state.sel_start] if state.phase in (DEST, PAY) else range(D.NUM_CITIES)
        out = []
        for s in starts:
            dests = [state.sel_dest] if state.phase == PAY else state.destinations(seat, s)
            for d in dests:
                for p in state.affordable(seat, s, d):
                    out.append((self._value(state, seat, s, d, p), s, d, p))
        return out

    def _value(self, state: CargoEmpireState, seat: int, s: int, d: int, pay_index: int) -> float:
        payment = ALL_PAYMENTS[pay_index]
        tracks = list(state.tracks[seat])
        value = 0.0
        for v in range(3):
            if payment[v]:
                steps = payment[v] * D.MOVES_PER_CARD[v]
                value += self._step_value(tracks, v, steps)
                tracks[v] = min(D.TRACK_MAX, tracks[v] + steps)
        cubes_left = state.cubes[d]
        upgrade = sum(1 for o in state.demand[d] if o < 0) == 1
        perfect = upgrade and cubes_left == 0
        bonus = int(state.card_bonus(seat, s)) + int(state.card_bonus(seat, d)) + int(perfect)
        moved = [v for v in range(3) if payment[v]]
        for _ in range(bonus):
            v = max(moved, key=lambda k: self._step_value(tracks, k, 1))
            value += self._step_value(tracks, v, 1)
            tracks[v] = min(D.TRACK_MAX, tracks[v] + 1)
        if upgrade and state.level[d] == 2:
            mine = state.posts_in(seat, d) + 1
            others = len(state.demand[d]) + sum(state.side[d]) - state.posts_in(seat, d) - 1
            value += D.VP_PER_LV3_POST * mine - 0.5 * D.VP_PER_LV3_POST * max(0, others) / max(1, state.n - 1)
        elif upgrade:
            value += 0.5  # the city refills: more cargo to move later
        cities = state.cities_of(seat)
        if d not in cities:
            value += self.new_city
            new_cities = [*cities, d]
            lv3 = [c for c in cities if state.level[c] == 3]
            for g in state.goals[seat]:
                if not goal_fulfilled(g, cities, lv3, state.tracks[seat], state.perfect[seat]) and goal_fulfilled(
                    g, new_cities, lv3, tracks, state.perfect[seat] + int(perfect)
                ):
                    value += D.GOALS[g][2]
        value -= self.card_cost * sum(payment)
        return value


Heuristic = CargoEmpireHeuristic
"""The game's heuristic agent, found by this name (``envs.core.agent.heuristic_class``)."""
