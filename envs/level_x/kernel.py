"""Level X's rules as compiled kernels over a flat ``int16`` state row: the one implementation of the rules.

``LevelXState`` (``game.py``) wraps one row (a one-row matrix); ``gameshelf.vector`` steps a matrix of
them. Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists what a
kernel module provides), is compiled by numba and also runs as plain Python. The row is declared once, as
``ROW`` below (fields, offsets, bounds; ``envs.core.row``):

{row_table}

The drivers (chance resolution, random playouts, the batch steps) are the template's, in ``envs.core.kernel``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import below, jit, jit_helper, rank_outcomes
from gameshelf.envs.core.row import RowLayout
from gameshelf.envs.level_x.actions import (
    BONUS_TILES,
    EFFECT_STEPS,
    MAX_SCORE,
    NUM_ACTIONS,
    ROLL_INDEX,
    ROLL_MASKS,
    ROLL_PROBS,
    ROLLS,
    ROW_LENGTH,
    ROWS,
    TOKENS,
)
from gameshelf.envs.level_x.observation import LAYOUT, MAX_PLAYERS, NUM_ROWS, POSITIONS

P, R, B = MAX_PLAYERS, NUM_ROWS, len(BONUS_TILES)
IN_STACK = -1
"""``BONUS`` entry of a tile still in the stack."""
OUT = -2
"""``BONUS`` entry of a tile neither in the stack nor held (only when a test or a caller sets one so)."""

ROW = RowLayout("level_x")
POS = ROW.add("pos", (P, R), "square of seat s's pawn in row r (0: supply, row length: X)", (0, max(ROW_LENGTH)), per_seat=True)
LEFT = ROW.add("tokens_left", R, "tokens left in each row's stack", (0, max(TOKENS)))
HELD = ROW.add("held", (P, R), "tokens held by seat s in row index r", (0, max(TOKENS)), per_seat=True)
BONUS = ROW.add("bonus", B, "owner of bonus tile 15, 12, 9, 6: a seat, IN_STACK (-1), OUT (-2)", (OUT, P - 1), fill=IN_STACK)
NP = ROW.add("num_players", 1, "number of players (an option)", (2, P), fill=2)
DISPLACE = ROW.flag("displace_to_square1", "a pawn pushed off X goes to square 1 (option displaced_to)")
FIRST = ROW.add("first", 1, "first player (-1 before the opening chance node)", (-1, P - 1), fill=-1)
CUR = ROW.add("current", 1, "seat to move (-1 before the opening chance node)", (-1, P - 1), fill=-1)
DICE = ROW.add("dice", 1, "roll id of the turn (index in ROLLS), -1 before the roll", (-1, len(ROLLS) - 1), fill=-1)
TURNS = ROW.add("turns", 1, "completed turns (= player decisions: DECISIONS)", (0, 32767))
END = ROW.flag("end_triggered", "the last round is being completed")
OVER = ROW.flag("over", "the game is over")
SIZE = ROW.size
DECISIONS = TURNS
"""The player decisions made (the batched environment's truncation counter)."""

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

O_PAWNS = LAYOUT.offset("pawns")
O_LEFT = LAYOUT.offset("tokens_left")
O_HELD = LAYOUT.offset("tokens_held")
O_STACK = LAYOUT.offset("bonus_stack")
O_BHELD = LAYOUT.offset("bonus_held")
O_SCORES = LAYOUT.offset("scores")
O_DICE = LAYOUT.offset("dice")
O_PRESENT = LAYOUT.offset("seat_present")
O_TO_MOVE = LAYOUT.offset("to_move")
O_FIRST = LAYOUT.offset("first_player")
O_END = LAYOUT.offset("end_triggered")
O_OVER = LAYOUT.offset("game_over")
OBS_SIZE = LAYOUT.size
NUM_POSITIONS = POSITIONS


def initial_state(num_players: int, tokens: tuple[int, ...], displace_to_square1: bool) -> np.ndarray:
    """The state vector before the first chance node (built once per game; a new game copies it)."""
    s = ROW.new_row()
    ROW.put(s, "tokens_left", tokens)
    ROW.put(s, "num_players", num_players)
    ROW.put(s, "displace_to_square1", int(displace_to_square1))
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


NUM_CHANCE = max(P, NUM_ROLLS)
"""Chance outcome ids are below this (``chance_weights`` writes that many weights)."""
ROLL_WEIGHT = np.array([round(p * 6**4) for p in ROLL_PROBS], dtype=np.int64)
"""The ordered throws of four dice (of 1296) that give each roll id."""


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the odds of the chance node into row ``i`` of ``out`` as integer weights per outcome id: each seat
    alike for the first player, then each roll id by the throws that give it."""
    for k in range(NUM_CHANCE):
        out[i, k] = 0
    if S[i, FIRST] < 0:
        for seat in range(S[i, NP]):
            out[i, seat] = 1
    else:
        for k in range(NUM_ROLLS):
            out[i, k] = ROLL_WEIGHT[k]


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


__doc__ = __doc__.replace("{row_table}", ROW.table())
