"""Pig's rules as compiled kernels over a flat ``int16`` state row: the one implementation of the rules.

The row (``ROW``, below):

{row_table}
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import below, jit, jit_helper, rank_outcomes
from gameshelf.envs.core.row import RowLayout
from tests.toy_pig.observation import LAYOUT, MAX_PLAYERS

P = MAX_PLAYERS
MAX_TARGET = 100
ROLL, HOLD = 0, 1
NUM_ACTS = 2

ROW = RowLayout("toy_pig")
SCORE = ROW.add("score", P, "each seat's banked score", (0, MAX_TARGET + 5), per_seat=True)
TOTAL = ROW.add("turn_total", 1, "the turn's total so far", (0, MAX_TARGET + 5))
NP = ROW.add("num_players", 1, "number of players (an option)", (2, P), fill=2)
TARGET = ROW.add("target", 1, "the score that wins (an option)", (10, MAX_TARGET), fill=20)
CUR = ROW.add("current", 1, "seat to move", (0, P - 1))
LAST = ROW.add("last_die", 1, "the last face thrown (0: none yet)", (0, 6))
ROLLING = ROW.flag("rolling", "the die is to be thrown (a chance node)")
OVER = ROW.flag("over", "the game is over")
DECISIONS = ROW.add("decisions", 1, "player decisions so far", (0, 32767))
SIZE = ROW.size

NUM_CHANCE = 6
"""Chance outcome ``k`` is the face ``k + 1``."""
O_SCORES = LAYOUT.offset("scores")
O_TOTAL = LAYOUT.offset("turn_total")
O_LAST = LAYOUT.offset("last_die")
O_TO_MOVE = LAYOUT.offset("to_move")
OBS_SIZE = LAYOUT.size


def initial_state(num_players: int, target: int) -> np.ndarray:
    """The row of a new game (plain Python: the options are checked against the fields' bounds)."""
    row = ROW.new_row()
    ROW.put(row, "num_players", num_players)
    ROW.put(row, "target", target)
    return row


@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    if S[i, OVER]:
        return TERMINAL
    if S[i, ROLLING]:
        return CHANCE
    return S[i, CUR]  # type: ignore[no-any-return]


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """The odds of the chance node as integer weights per outcome: every face alike."""
    for k in range(NUM_CHANCE):
        out[i, k] = 1


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    return 0 <= outcome < NUM_CHANCE


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    return below(rngs, i, NUM_CHANCE)  # type: ignore[no-any-return]


@jit_helper
def must_hold(S: np.ndarray, i: int) -> bool:
    return S[i, SCORE + S[i, CUR]] + S[i, TOTAL] >= S[i, TARGET]  # type: ignore[no-any-return]


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    if current_player(S, i) < 0:
        return False
    if action == ROLL:
        return not must_hold(S, i)
    return action == HOLD and S[i, TOTAL] > 0  # type: ignore[no-any-return]


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    for a in range(NUM_ACTS):
        out[i, a] = is_legal(S, i, a)


@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """One action or chance outcome, unchecked."""
    seat = S[i, CUR]
    if S[i, ROLLING]:
        S[i, ROLLING] = 0
        S[i, LAST] = action + 1
        if action == 0:  # a 1: the turn's total is lost
            S[i, TOTAL] = 0
            S[i, CUR] = (seat + 1) % S[i, NP]
        else:
            S[i, TOTAL] += action + 1
        return
    S[i, DECISIONS] += 1
    if action == ROLL:
        S[i, ROLLING] = 1
        return
    S[i, SCORE + seat] += S[i, TOTAL]
    S[i, TOTAL] = 0
    if S[i, SCORE + seat] >= S[i, TARGET]:
        S[i, OVER] = 1
    else:
        S[i, CUR] = (seat + 1) % S[i, NP]


@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    n = S[i, NP]
    for seat in range(n):
        out[seat] = 0.0
    if S[i, OVER]:
        for seat in range(n):
            out[seat] = S[i, SCORE + seat]
        rank_outcomes(out, n)


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    n = S[i, NP]
    target = S[i, TARGET]
    for k in range(OBS_SIZE):
        out[i, k] = 0.0
    for slot in range(n):
        other = (seat + slot) % n
        out[i, O_SCORES + slot] = min(1.0, S[i, SCORE + other] / target)
    out[i, O_TOTAL] = min(1.0, S[i, TOTAL] / target)
    if S[i, LAST] > 0:
        out[i, O_LAST + S[i, LAST] - 1] = 1.0
    if current_player(S, i) >= 0:
        out[i, O_TO_MOVE + (S[i, CUR] - seat) % n] = 1.0


__doc__ = __doc__.replace("{row_table}", ROW.table())
