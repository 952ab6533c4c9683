"""Level X's rules as compiled kernels over a flat ``int64`` state vector: the one implementation of the rules.

``LevelXState`` (``rules.py``) wraps one vector; ``gameshelf.vector`` steps a matrix of them. Every function
here is compiled by numba (``envs.core.kernel.jit``) and also runs as plain Python. Layout (``SIZE`` ints):

| offset | entries | meaning |
|---|---|---|
| ``POS`` | 4 x 6 | square of seat ``s``'s pawn in row index ``r`` at ``POS + 6 s + r`` (0 = supply, row length = X) |
| ``LEFT`` | 6 | tokens left in each row's stack |
| ``HELD`` | 4 x 6 | tokens held by seat ``s`` in row ``r`` at ``HELD + 6 s + r`` |
| ``BONUS`` | 4 | owner of bonus tile 15, 12, 9, 6: ``IN_STACK``, a seat, or ``OUT`` (neither) |
| ``NP`` | 1 | number of players (an option: set at reset, never changed) |
| ``DISPLACE`` | 1 | 1 if a pawn pushed off X goes to square 1 (option ``displaced_to="square1"``), else 0 |
| ``FIRST``, ``CUR`` | 1, 1 | first player and seat to move (-1 before the opening chance node) |
| ``DICE`` | 1 | roll id of the turn (index in ``ROLLS``), -1 before the roll |
| ``TURNS``, ``END``, ``OVER`` | 1, 1, 1 | completed turns (= decisions), last round triggered, game over |
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import below, jit
from gameshelf.envs.level_x.actions import (
    BONUS_TILES,
    EFFECT_STEPS,
    MAX_SCORE,
    NUM_ACTIONS,
    ROLL_INDEX,
    ROLL_MASKS,
    ROLLS,
    ROW_LENGTH,
    ROWS,
    TOKENS,
)
from gameshelf.envs.level_x.observation import MAX_PLAYERS, NUM_ROWS, OBSERVATION, POSITIONS

P, R, B = MAX_PLAYERS, NUM_ROWS, len(BONUS_TILES)
POS = 0
LEFT = POS + P * R
HELD = LEFT + R
BONUS = HELD + P * R
NP = BONUS + B
DISPLACE = NP + 1
FIRST = NP + 2
CUR = NP + 3
DICE = NP + 4
TURNS = NP + 5
END = NP + 6
OVER = NP + 7
SIZE = NP + 8

IN_STACK = -1
"""``BONUS`` entry of a tile still in the stack."""
OUT = -2
"""``BONUS`` entry of a tile neither in the stack nor held (only when a test or a caller sets one so)."""

# tables as arrays (numba freezes global arrays as constants)
ROW_LEN = np.array(ROW_LENGTH, dtype=np.int64)
ROW_VALUE = np.array(ROWS, dtype=np.int64)
TILE_VALUE = np.array(BONUS_TILES, dtype=np.int64)
STEPS = np.array(EFFECT_STEPS, dtype=np.int64)
MASKS = np.ascontiguousarray(ROLL_MASKS)
ROLL_DICE = np.array(ROLLS, dtype=np.int64)
DICE_ROLL = np.zeros(6**4, dtype=np.int64)
"""Roll id of four ordered dice values ``a, b, c, d`` (0-based) at ``216 a + 36 b + 6 c + d``."""
for _a in range(6**4):
    _dice = (_a // 216 + 1, _a // 36 % 6 + 1, _a // 6 % 6 + 1, _a % 6 + 1)
    DICE_ROLL[_a] = ROLL_INDEX[tuple(sorted(_dice))]
NUM_ROLLS = len(ROLLS)
NUM_ACTS = NUM_ACTIONS
MAX_SCORE_F = float(MAX_SCORE)
TOKEN_SCALE = float(max(TOKENS))

_S = OBSERVATION.slices
O_PAWNS = _S["pawns"].start
O_LEFT = _S["tokens_left"].start
O_HELD = _S["tokens_held"].start
O_STACK = _S["bonus_stack"].start
O_BHELD = _S["bonus_held"].start
O_SCORES = _S["scores"].start
O_DICE = _S["dice"].start
O_PRESENT = _S["seat_present"].start
O_TO_MOVE = _S["to_move"].start
O_FIRST = _S["first_player"].start
O_END = _S["end_triggered"].start
O_OVER = _S["game_over"].start
OBS_SIZE = OBSERVATION.size
NUM_POSITIONS = POSITIONS


def initial_state(num_players: int, tokens: tuple[int, ...], displace_to_square1: bool) -> np.ndarray:
    """The state vector before the first chance node (built once per game; ``reset`` copies it)."""
    s = np.zeros(SIZE, dtype=np.int64)
    s[LEFT : LEFT + R] = tokens
    s[BONUS : BONUS + B] = IN_STACK
    s[NP] = num_players
    s[DISPLACE] = int(displace_to_square1)
    s[FIRST] = s[CUR] = s[DICE] = -1
    return s


@jit
def current_player(s: np.ndarray) -> int:
    if s[OVER]:
        return TERMINAL
    if s[FIRST] < 0 or s[DICE] < 0:
        return CHANCE
    return s[CUR]  # type: ignore[no-any-return]


@jit
def num_chance_outcomes(s: np.ndarray) -> int:
    """Chance outcome ids are ``0 .. this - 1``: seats before the first player is drawn, then roll ids."""
    return s[NP] if s[FIRST] < 0 else NUM_ROLLS  # type: ignore[no-any-return]


@jit
def is_legal(s: np.ndarray, action: int) -> bool:
    """Is ``action`` legal for the player to move (``False`` at chance and terminal nodes)?"""
    if current_player(s) < 0 or not 0 <= action < NUM_ACTS:
        return False
    return MASKS[s[DICE], action]  # type: ignore[no-any-return]


@jit
def legal_mask(s: np.ndarray, out: np.ndarray) -> None:
    """Write the legal action mask (``bool``, all False at chance and terminal nodes) into ``out``."""
    if current_player(s) < 0:
        out[:] = False
    else:
        out[:] = MASKS[s[DICE]]


@jit
def sample_chance(s: np.ndarray, rng: np.ndarray) -> int:
    """Draw the chance outcome with the generator ``rng``: a seat, or four dice thrown (a roll id)."""
    if s[FIRST] < 0:
        return below(rng, s[NP])  # type: ignore[no-any-return]
    code = below(rng, 6) * 216 + below(rng, 6) * 36 + below(rng, 6) * 6 + below(rng, 6)
    return DICE_ROLL[code]  # type: ignore[no-any-return]


@jit
def apply(s: np.ndarray, action: int) -> None:
    """Apply a legal action or chance outcome (unchecked): draw the first player, roll, or step and score."""
    if s[FIRST] < 0:
        s[FIRST] = action
        s[CUR] = action
        return
    if s[DICE] < 0:
        s[DICE] = action
        return
    seat = s[CUR]
    n = s[NP]
    mine = POS + R * seat
    for r in range(R):
        length = ROW_LEN[r]
        for _ in range(STEPS[action, r]):
            if s[mine + r] < length:
                s[mine + r] += 1
                if s[mine + r] == length:  # arrived on X: push off the other occupant, if any
                    for other in range(n):
                        if other != seat and s[POS + R * other + r] == length:
                            s[POS + R * other + r] = 1 if s[DISPLACE] else 0
            if s[mine + r] == length and s[LEFT + r] > 0:
                s[LEFT + r] -= 1
                s[HELD + R * seat + r] += 1
    # bonus tiles: while the seat holds more than b tokens of every value (b = tiles held), take the top one
    least = s[HELD + R * seat]
    for r in range(1, R):
        least = min(least, s[HELD + R * seat + r])
    taken = 0
    for t in range(B):
        if s[BONUS + t] == seat:
            taken += 1
    for t in range(B):
        if s[BONUS + t] != IN_STACK:
            continue
        if least <= taken:
            break
        s[BONUS + t] = seat
        taken += 1
    s[DICE] = -1
    s[TURNS] += 1
    if not s[END]:
        stack_empty = True
        for t in range(B):
            if s[BONUS + t] == IN_STACK:
                stack_empty = False
        empty_rows = 0
        for r in range(R):
            if s[LEFT + r] == 0:
                empty_rows += 1
        if stack_empty or empty_rows >= 3:
            s[END] = 1
    nxt = (seat + 1) % n
    if s[END] and nxt == s[FIRST]:  # round complete: everyone had the same number of turns
        s[OVER] = 1
    else:
        s[CUR] = nxt


@jit
def score(s: np.ndarray, seat: int) -> int:
    """Token values plus bonus tiles of ``seat``."""
    total = 0
    for r in range(R):
        total += ROW_VALUE[r] * s[HELD + R * seat + r]
    for t in range(B):
        if s[BONUS + t] == seat:
            total += TILE_VALUE[t]
    return total


@jit
def ranking_key(s: np.ndarray, seat: int) -> int:
    """Score, then bonus tiles held, then tokens held, as one comparable integer."""
    tiles = 0
    for t in range(B):
        if s[BONUS + t] == seat:
            tiles += 1
    tokens = 0
    for r in range(R):
        tokens += s[HELD + R * seat + r]
    return score(s, seat) * 10000 + tiles * 100 + tokens  # type: ignore[no-any-return]


@jit
def returns(s: np.ndarray, out: np.ndarray) -> None:
    """Write the outcome returns of the ``NP`` seats into ``out``: zeros until the end, then by ranking."""
    n = s[NP]
    for i in range(n):
        out[i] = 0.0
    if not s[OVER] or n < 2:
        return
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        keys[i] = ranking_key(s, i)
    for i in range(n):
        better = 0
        equal = 0
        for j in range(n):
            if keys[j] > keys[i]:
                better += 1
            elif keys[j] == keys[i]:
                equal += 1
        acc = 0.0  # the mean of the shared places' values, summed in order as rank_returns does
        for place in range(better, better + equal):
            acc += 1.0 - 2.0 * place / (n - 1)
        out[i] = acc / equal


@jit
def observation(s: np.ndarray, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32, layout in ``observation.py``) into ``out``."""
    n = s[NP]
    out[:] = 0.0
    for slot in range(n):
        other = (seat + slot) % n
        for r in range(R):
            out[O_PAWNS + (slot * R + r) * NUM_POSITIONS + s[POS + R * other + r]] = 1.0
            out[O_HELD + slot * R + r] = s[HELD + R * other + r] / TOKEN_SCALE
        for t in range(B):
            if s[BONUS + t] == other:
                out[O_BHELD + slot * B + t] = 1.0
        out[O_SCORES + slot] = score(s, other) / MAX_SCORE_F
        out[O_PRESENT + slot] = 1.0
    for r in range(R):
        out[O_LEFT + r] = s[LEFT + r] / TOKEN_SCALE
    for t in range(B):
        if s[BONUS + t] == IN_STACK:
            out[O_STACK + t] = 1.0
    if s[DICE] >= 0:
        for k in range(4):
            out[O_DICE + 6 * k + ROLL_DICE[s[DICE], k] - 1] = 1.0
    if current_player(s) >= 0:
        out[O_TO_MOVE + (s[CUR] - seat) % n] = 1.0
    if s[FIRST] >= 0:
        out[O_FIRST + (s[FIRST] - seat) % n] = 1.0
    out[O_END] = float(s[END])
    out[O_OVER] = float(s[OVER])


# ---- drivers: chance, playouts, batches -------------------------------------------------------------------
@jit
def resolve_chance(s: np.ndarray, rng: np.ndarray) -> None:
    """Resolve chance nodes with ``rng`` until a player is to move or the game is over."""
    while current_player(s) == CHANCE:
        apply(s, sample_chance(s, rng))


@jit
def random_playout(s: np.ndarray, rng: np.ndarray, max_decisions: int) -> int:
    """Play on in place with uniformly random legal actions (chance from ``rng``); returns the decisions made."""
    decisions = 0
    legal = np.empty(NUM_ACTS, dtype=np.int64)
    while decisions < max_decisions:
        resolve_chance(s, rng)
        if s[OVER]:
            break
        count = 0
        row = MASKS[s[DICE]]
        for a in range(NUM_ACTS):
            if row[a]:
                legal[count] = a
                count += 1
        apply(s, legal[below(rng, count)])
        decisions += 1
    return decisions


@jit
def batch_reset(states: np.ndarray, rngs: np.ndarray, initial: np.ndarray, env: int) -> None:
    """Start a new game in row ``env``: the initial state, its chance nodes resolved."""
    states[env, :] = initial
    resolve_chance(states[env], rngs[env])


@jit
def batch_first_illegal(states: np.ndarray, actions: np.ndarray, bad: np.ndarray) -> int:
    """Mark in ``bad`` the envs whose action is illegal; returns how many (nothing is changed)."""
    count = 0
    for i in range(states.shape[0]):
        bad[i] = not is_legal(states[i], actions[i])
        if bad[i]:
            count += 1
    return count


@jit
def batch_step(
    states: np.ndarray,
    rngs: np.ndarray,
    initial: np.ndarray,
    actions: np.ndarray,
    max_length: int,
    players: np.ndarray,
    obs: np.ndarray,
    masks: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
) -> None:
    """One checked action per env, chance resolved, finished games reported then reset, outputs written."""
    for i in range(states.shape[0]):
        s = states[i]
        apply(s, actions[i])
        resolve_chance(s, rngs[i])
        returns(s, rewards[i])
        terminated[i] = s[OVER] != 0
        truncated[i] = not terminated[i] and s[TURNS] >= max_length
        if terminated[i] or truncated[i]:
            batch_reset(states, rngs, initial, i)
        players[i] = s[CUR]
        legal_mask(s, masks[i])
        observation(s, s[CUR], obs[i])


@jit
def batch_observe(states: np.ndarray, players: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> None:
    """Write player to move, its observation and the mask of every env (after a reset)."""
    for i in range(states.shape[0]):
        s = states[i]
        players[i] = current_player(s)
        legal_mask(s, masks[i])
        observation(s, s[CUR], obs[i])
