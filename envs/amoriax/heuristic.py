"""``AmoriaxHeuristic``: win in one, never hand the opponent a win in one, otherwise build threats on the crown.

Each legal move is tried on a clone and scored:

1. a move that puts an own stone on the crown wins at once and is played;
2. a move after which the opponent can reach the crown is refused (scored -1000) unless every move is;
3. otherwise: +1000 when every opponent reply still leaves an own crown move (a forced win), else
   +30 per own crown move threatened for the next turn, plus a position score: own stones on the two lines
   through the crown with a clear path to it, and closeness of own stones to the crown (the opponent's
   count against). A draw by repetition or move limit scores -5.

Ties are broken at random with the caller's generator.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.amoriax.actions import PASS
from gameshelf.envs.amoriax.board import CENTRE, EMPTY, SIZE
from gameshelf.envs.amoriax.game import AmoriaxState

WIN = 10_000.0
LOSS = -1000.0
FORCED = 1000.0
THREAT = 30.0
ALIGNED = 4.0
DRAW = -5.0


def _position(state: AmoriaxState, seat: int) -> float:
    """Own minus opponent: stones lined up on the crown (nothing between) and closeness to the crown."""
    board = state.cells()  # bytes: indexed cell by cell below
    rays = state.game.geometry.rays[CENTRE]
    score = 0.0
    for ray in rays:
        for sq in ray:
            stone = board[sq]
            if stone != EMPTY:
                if stone == seat + 1:
                    score += ALIGNED
                elif stone == 2 - seat:
                    score -= ALIGNED
                break
    for sq in range(SIZE * SIZE):
        stone = board[sq]
        if stone == seat + 1 or stone == 2 - seat:
            r, c = divmod(sq, SIZE)
            closeness = (8 - abs(r - 4) - abs(c - 4)) / 8.0
            score += closeness if stone == seat + 1 else -closeness
    return score


def _forced_win(state: AmoriaxState, seat: int) -> bool:
    """The opponent is to move and every reply leaves ``seat`` a crown move."""
    for reply in state.legal_actions():
        after = state.clone()
        after.apply_action(reply)
        if after.is_terminal() or not after.crown_moves(seat):
            return False
    return True


def score_move(state: AmoriaxState, seat: int, action: int) -> float:
    """Heuristic value of ``action`` for ``seat`` (the side to move in ``state``)."""
    after = state.clone()
    after.apply_action(action)
    if after.is_terminal():
        return WIN if after.winner == seat else DRAW
    opponent = 1 - seat
    if after.crown_moves(opponent):
        return LOSS
    threats = len(after.crown_moves(seat))
    if threats and _forced_win(after, seat):
        return FORCED
    return THREAT * threats + _position(after, seat)


class AmoriaxHeuristic:
    """Greedy one-ply search with a crown-threat evaluation (see the module docstring)."""

    name = "heuristic"

    def act(self, state: AmoriaxState, seat: int, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        if legal == [PASS]:
            return PASS
        wins = state.crown_moves(seat)
        if wins:
            return wins[0]
        scores = np.array([score_move(state, seat, a) for a in legal])
        best = np.flatnonzero(scores >= scores.max() - 1e-9)
        return int(legal[best[rng.integers(len(best))]])


Heuristic = AmoriaxHeuristic
"""The game's heuristic agent, found by this name (``envs.core.agent.heuristic_class``)."""
