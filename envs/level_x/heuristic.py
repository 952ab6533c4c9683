"""Level X heuristic: one-ply look-ahead over the legal groupings with a hand-made evaluation.

The evaluation of a position for a seat is its score plus the expected value of its pawns: a pawn on an
X square (or close to it) is worth its row's token value times the chance that a roll can make that row's
sum, discounted by the steps still needed, and a bonus term for progress towards the next complete set.
The move chosen maximises (own evaluation) minus (best opponent evaluation). Once the end is triggered,
only the turns left count: on a seat's last turn, the plain score decides. A won game is closed out: when
a move triggers the end and leaves the seat ahead by that measure, it is played, even if keeping the game
open scores higher (the credit for turns to come would otherwise make it pass for ever against a player
who never ends the game).
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.level_x.actions import EFFECTS, ROLL_GROUPINGS, ROLL_PROBS, ROW_LENGTH, ROWS
from gameshelf.envs.level_x.game import LevelXState

REACH = tuple(
    sum(p for roll, p in zip(ROLL_GROUPINGS, ROLL_PROBS, strict=True) if any(row in EFFECTS[a] for a in roll)) for row in ROWS
)
"""Probability that a roll can make the sum of each row (at least one group)."""


class LevelXHeuristic:
    """Greedy one-ply agent with a positional evaluation (see the module docstring)."""

    name = "heuristic"

    def __init__(self, hold: float = 1.5, decay: float = 0.45, set_weight: float = 0.5) -> None:
        self.hold = hold
        """Expected number of turns a pawn keeps scoring from its X square."""
        self.decay = decay
        """Discount per step still needed to reach X."""
        self.set_weight = set_weight

    def act(self, state: LevelXState, seat: int, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        best, best_value = legal[0], -np.inf
        close, close_value = -1, -np.inf
        for action in legal:
            child = state.clone()
            child.apply_action(action)
            value = self.evaluate(child, seat) + 1e-6 * len(EFFECTS[action]) + 1e-9 * rng.random()
            if value > best_value:
                best, best_value = action, value
            if child.end_triggered and not state.end_triggered and value > close_value:
                close, close_value = action, value
        # Close out a won game: the evaluation credits pawns with turns still to come, which ending the game
        # takes away, so it would rather keep the game open (against a passing opponent, for ever). When a
        # move ends the game (or starts its last round) with this seat ahead even after the others' last
        # turns are counted, play it.
        if close >= 0 and close_value > 0:
            return int(close)
        return int(best)

    def evaluate(self, state: LevelXState, seat: int) -> float:
        n = state.game.num_players
        mine = self._value(state, seat)
        others = [self._value(state, s) for s in range(n) if s != seat]
        return mine - max(others)

    def _turns_left(self, state: LevelXState, seat: int) -> float:
        """Own turns still to come (after the move just made); unbounded before the end is triggered."""
        if state.over:
            return 0.0
        if not state.end_triggered:
            return self.hold
        n = state.game.num_players
        # the round ends after the seat before the first player; has `seat` still a turn in it?
        order = [(state.current + k) % n for k in range(n)]
        last = (state.first - 1) % n
        remaining = order[: order.index(last) + 1]
        return 1.0 if seat in remaining else 0.0

    def _value(self, state: LevelXState, seat: int) -> float:
        value = float(state.score(seat))
        turns = min(self._turns_left(state, seat), self.hold)
        if turns == 0.0:
            return value
        pos = state.pos[seat]
        for r, row in enumerate(ROWS):
            if state.tokens_left[r] == 0:
                continue
            steps = ROW_LENGTH[r] - pos[r]
            value += row * REACH[r] * turns * self.decay**steps
        held = state.held[seat]
        level = len(state.bonuses[seat])
        if state.bonus_stack:
            have = sum(1 for h in held if h > level)
            value += self.set_weight * state.bonus_stack[0] * (have / len(ROWS)) ** 2 * min(turns, 1.0)
        return value


Heuristic = LevelXHeuristic
"""The game's heuristic agent, found by this name (``envs.core.agent.heuristic_class``)."""
