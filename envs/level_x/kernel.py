"""Level X's rules as compiled kernels over a flat ``int64`` state vector: the one implementation of the rules.

``LevelXState`` (``game.py``) wraps one vector (a one-row matrix); ``gameshelf.vector`` steps a matrix of
them. Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists what a
kernel module provides), is compiled by numba and also runs as plain Python. Layout of a row (``SIZE`` ints):

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
| ``TURNS``, ``END``, ``OVER`` | 1, 1, 1 | completed turns (= decisions: ``DECISIONS``), last round triggered, game over |

The drivers (chance resolution, random playouts, the batch steps) are the template's, in ``envs.core.kernel``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import STATE_DTYPE, below, jit, jit_helper, rank_outcomes
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
from gameshelf.envs.level_x.observation import LAYOUT, MAX_PLAYERS, NUM_ROWS, POSITIONS

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
DECISIONS = TURNS
"""The player decisions made (the batched environment's truncation counter)."""

IN_STACK = -1
"""``BONUS`` entry of a tile still in the stack."""
OUT = -2
"""``BONUS`` entry of a tile neither in the stack nor held (only when a test or a caller sets one so)."""

# tables as arrays (numba freezes global arrays as constants)
ROW_LEN = np.array(ROW_LENGTH, dtype=np.int64)
ROW_VALUE = np.array(ROWS, dtype=np.int64)
TILE_VALUE = np.array(BONUS_TILES, dtype=np.int64)
STEPS = np.array(EFFECT_STEPS, dtype=np.int64)
MASKS = np.ascontiguousarray(ROLL_MASKS).view(np.uint8)
"""The legal actions of each roll id, as bytes (a mask row is copied as bytes: numba copies bools one by one)."""
ROLL_DICE = np.array(ROLLS, dtype=np.int64)
DICE_ROLL = np.zeros(6**4, dtype=np.int64)
"""Roll id of four ordered dice values ``a, b, c, d`` (0-based) at ``216 a + 36 b + 6 c + d``."""
for _a in range(6**4):
    _dice = (_a // 216 + 1, _a // 36 % 6 + 1, _a // 6 % 6 + 1, _a % 6 + 1)
    DICE_ROLL[_a] = ROLL_INDEX[tuple(sorted(_dice))]  # type: ignore[index]
NUM_ROLLS = len(ROLLS)
NUM_ACTS = NUM_ACTIONS
TOKEN_SCALE = float(max(TOKENS))
TOKEN_FRACTION = (np.arange(max(TOKENS) + 1) / TOKEN_SCALE).astype(np.float32)
"""Observation entry of a token count (a table: one load instead of a division per entry)."""
SCORE_FRACTION = (np.arange(MAX_SCORE + 1) / float(MAX_SCORE)).astype(np.float32)
"""Observation entry of a score."""

_S = LAYOUT.slices
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
OBS_SIZE = LAYOUT.size
NUM_POSITIONS = POSITIONS


def initial_state(num_players: int, tokens: tuple[int, ...], displace_to_square1: bool) -> np.ndarray:
    """The state vector before the first chance node (built once per game; a new game copies it)."""
    s = np.zeros(SIZE, dtype=STATE_DTYPE)
    s[LEFT : LEFT + R] = tokens
    s[BONUS : BONUS + B] = IN_STACK
    s[NP] = num_players
    s[DISPLACE] = int(displace_to_square1)
    s[FIRST] = s[CUR] = s[DICE] = -1
    return s


@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    if S[i, OVER]:
        return TERMINAL
    if S[i, FIRST] < 0 or S[i, DICE] < 0:
        return CHANCE
    return S[i, CUR]  # type: ignore[no-any-return]


@jit_helper
def num_chance_outcomes(S: np.ndarray, i: int) -> int:
    """Chance outcome ids are ``0 .. this - 1``: seats before the first player is drawn, then roll ids."""
    return S[i, NP] if S[i, FIRST] < 0 else NUM_ROLLS  # type: ignore[no-any-return]


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    """Is ``outcome`` a possible outcome of the chance node (a seat, then a roll id)?"""
    return 0 <= outcome < num_chance_outcomes(S, i)


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    """Is ``action`` legal for the player to move (``False`` at chance and terminal nodes)?"""
    if current_player(S, i) < 0 or not 0 <= action < NUM_ACTS:
        return False
    return MASKS[S[i, DICE], action] != 0  # type: ignore[no-any-return]


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the legal action mask (``bool``, all False at chance and terminal nodes) into row ``i`` of ``out``."""
    bytes_out = out.view(np.uint8)
    if current_player(S, i) < 0:
        for a in range(NUM_ACTS):
            bytes_out[i, a] = 0
    else:
        row = S[i, DICE]
        for a in range(NUM_ACTS):
            bytes_out[i, a] = MASKS[row, a]


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """Draw the chance outcome with generator ``i`` of ``rngs``: a seat, or four dice thrown (a roll id)."""
    if S[i, FIRST] < 0:
        return below(rngs, i, S[i, NP])  # type: ignore[no-any-return]
    code = below(rngs, i, 6) * 216 + below(rngs, i, 6) * 36 + below(rngs, i, 6) * 6 + below(rngs, i, 6)
    return DICE_ROLL[code]  # type: ignore[no-any-return]


@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """Apply a legal action or chance outcome (unchecked): draw the first player, roll, or step and score."""
    if S[i, FIRST] < 0:
        S[i, FIRST] = action
        S[i, CUR] = action
        return
    if S[i, DICE] < 0:
        S[i, DICE] = action
        return
    seat = S[i, CUR]
    n = S[i, NP]
    mine = POS + R * seat
    for r in range(R):
        length = ROW_LEN[r]
        for _ in range(STEPS[action, r]):
            if S[i, mine + r] < length:
                S[i, mine + r] += 1
                if S[i, mine + r] == length:  # arrived on X: push off the other occupant, if any
                    for other in range(n):
                        if other != seat and S[i, POS + R * other + r] == length:
                            S[i, POS + R * other + r] = 1 if S[i, DISPLACE] else 0
            if S[i, mine + r] == length and S[i, LEFT + r] > 0:
                S[i, LEFT + r] -= 1
                S[i, HELD + R * seat + r] += 1
    # bonus tiles: while the seat holds more than b tokens of every value (b = tiles held), take the top one
    least = S[i, HELD + R * seat]
    for r in range(1, R):
        least = min(least, S[i, HELD + R * seat + r])
    taken = 0
    for t in range(B):
        if S[i, BONUS + t] == seat:
            taken += 1
    for t in range(B):
        if S[i, BONUS + t] != IN_STACK:
            continue
        if least <= taken:
            break
        S[i, BONUS + t] = seat
        taken += 1
    S[i, DICE] = -1
    S[i, TURNS] += 1
    if not S[i, END]:
        stack_empty = True
        for t in range(B):
            if S[i, BONUS + t] == IN_STACK:
                stack_empty = False
        empty_rows = 0
        for r in range(R):
            if S[i, LEFT + r] == 0:
                empty_rows += 1
        if stack_empty or empty_rows >= 3:
            S[i, END] = 1
    nxt = (seat + 1) % n
    if S[i, END] and nxt == S[i, FIRST]:  # round complete: everyone had the same number of turns
        S[i, OVER] = 1
    else:
        S[i, CUR] = nxt


@jit_helper
def score(S: np.ndarray, i: int, seat: int) -> int:
    """Token values plus bonus tiles of ``seat``."""
    total = 0
    for r in range(R):
        total += ROW_VALUE[r] * S[i, HELD + R * seat + r]
    for t in range(B):
        if S[i, BONUS + t] == seat:
            total += TILE_VALUE[t]
    return total


@jit_helper
def ranking_key(S: np.ndarray, i: int, seat: int) -> int:
    """Score, then bonus tiles held, then tokens held, as one comparable integer."""
    tiles = 0
    for t in range(B):
        if S[i, BONUS + t] == seat:
            tiles += 1
    tokens = 0
    for r in range(R):
        tokens += S[i, HELD + R * seat + r]
    return score(S, i, seat) * 10000 + tiles * 100 + tokens  # type: ignore[no-any-return]


@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the outcome returns of the ``NP`` seats into ``out``: zeros until the end, then by ranking."""
    n = S[i, NP]
    for seat in range(n):
        out[seat] = 0.0
    if not S[i, OVER] or n < 2:
        return
    for seat in range(n):
        out[seat] = ranking_key(S, i, seat)
    rank_outcomes(out, n)


@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32, layout in ``observation.py``) into row ``i`` of ``out``."""
    n = S[i, NP]
    for k in range(OBS_SIZE):
        out[i, k] = 0.0
    for slot in range(n):
        other = seat + slot
        if other >= n:
            other -= n
        total = 0
        for r in range(R):
            out[i, O_PAWNS + (slot * R + r) * NUM_POSITIONS + S[i, POS + R * other + r]] = 1.0
            held = S[i, HELD + R * other + r]
            out[i, O_HELD + slot * R + r] = TOKEN_FRACTION[held]
            total += ROW_VALUE[r] * held
        for t in range(B):
            if S[i, BONUS + t] == other:
                out[i, O_BHELD + slot * B + t] = 1.0
                total += TILE_VALUE[t]
        out[i, O_SCORES + slot] = SCORE_FRACTION[total]
        out[i, O_PRESENT + slot] = 1.0
    for r in range(R):
        out[i, O_LEFT + r] = TOKEN_FRACTION[S[i, LEFT + r]]
    for t in range(B):
        if S[i, BONUS + t] == IN_STACK:
            out[i, O_STACK + t] = 1.0
    if S[i, DICE] >= 0:
        for k in range(4):
            out[i, O_DICE + 6 * k + ROLL_DICE[S[i, DICE], k] - 1] = 1.0
    if current_player(S, i) >= 0:
        out[i, O_TO_MOVE + (S[i, CUR] - seat) % n] = 1.0
    if S[i, FIRST] >= 0:
        out[i, O_FIRST + (S[i, FIRST] - seat) % n] = 1.0
    out[i, O_END] = float(S[i, END])
    out[i, O_OVER] = float(S[i, OVER])
