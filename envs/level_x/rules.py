"""Level X rules engine: ``LevelXGame`` and ``LevelXState`` (rules: ``docs/rules/level_x.md``).

See the package docstring (``envs/level_x/__init__.py``) for the action encoding, the observation layout
and the readings of the spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, GameInfo, IllegalActionError, Option, State, rank_returns
from gameshelf.envs.core.position import PositionReader
from gameshelf.envs.level_x.actions import (
    BONUS_TILES,
    EFFECT_STEPS,
    EFFECTS,
    MAX_SCORE,
    NUM_ACTIONS,
    ROLL_CUMULATIVE,
    ROLL_GROUPINGS,
    ROLL_INDEX,
    ROLL_LEGAL,
    ROLL_MASKS,
    ROLL_PROBS,
    ROLLS,
    ROW_LENGTH,
    ROWS,
    TOKENS,
    grouping_text,
    parse_grouping,
)
from gameshelf.envs.level_x.observation import MAX_PLAYERS, NUM_ROWS, OBSERVATION, POSITIONS

NO_DICE = -1
"""``state.dice`` while the turn's roll is still to come."""

OBS_SIZE = OBSERVATION.size
OBS = OBSERVATION.slices
TOKEN_SCALE = float(max(TOKENS))

MAX_GAME_LENGTH = 2000
"""Safety-net bound on player decisions (see the card: passing makes the game unbounded in principle)."""


class LevelXGame(Game):
    """Level X for 2 to 4 players."""

    name = "level_x"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(2, choices=(2, 3, 4), doc="number of players"),
        "remove_one_per_stack_if_lt4": Option(
            False, choices=(False, True), doc="with fewer than 4 players remove one token from each stack (Schmidt rule)"
        ),
        "displaced_to": Option("supply", choices=("supply", "square1"), doc="where a pawn pushed off an X square goes"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        n = self.options["num_players"]
        remove = self.options["remove_one_per_stack_if_lt4"] and n < 4
        self.initial_tokens: tuple[int, ...] = tuple(t - 1 for t in TOKENS) if remove else TOKENS
        self.displace_to_square1: bool = self.options["displaced_to"] == "square1"

    def _make_info(self) -> GameInfo:
        return GameInfo(
            name=self.name,
            num_players=self.options["num_players"],
            num_actions=NUM_ACTIONS,
            observation_shape=(OBS_SIZE,),
            observation_dtype=np.float32,
            max_game_length=MAX_GAME_LENGTH,
            has_chance=True,
            has_hidden_info=False,
            min_return=-1.0,
            max_return=1.0,
            observation_low=0.0,
            observation_high=1.0,
            max_players=MAX_PLAYERS,
        )

    def new_initial_state(self) -> LevelXState:
        return LevelXState(self)

    def state_from_position(self, position: Mapping[str, Any]) -> LevelXState:
        """A position from plain data (``state.position()`` gives one; keys in the card), validated."""
        n = self.num_players
        read = PositionReader(position, self.name)
        state = LevelXState(self)
        state.pos = read.int_table("pawns", n, 0, max(ROW_LENGTH), NUM_ROWS)
        for seat, pawns in enumerate(state.pos):
            for r, square in enumerate(pawns):
                if square > ROW_LENGTH[r]:
                    raise read.fail("pawns", f"seat {seat} row {ROWS[r]} has {ROW_LENGTH[r]} squares, not {square}")
        for r in range(NUM_ROWS):
            if sum(p[r] == ROW_LENGTH[r] for p in state.pos) > 1:
                raise read.fail("pawns", f"two pawns on the X square of row {ROWS[r]}")
        state.tokens_left = read.int_list("tokens_left", 0, max(TOKENS), NUM_ROWS)
        state.held = read.int_table("tokens_held", n, 0, max(TOKENS), NUM_ROWS)
        for r in range(NUM_ROWS):
            if state.tokens_left[r] + sum(h[r] for h in state.held) != self.initial_tokens[r]:
                raise read.fail("tokens_held", f"row {ROWS[r]}: tokens left plus held must be {self.initial_tokens[r]}")
        state.bonus_stack = read.int_list("bonus_stack", 0, max(BONUS_TILES))
        state.bonuses = [read.check_int_list(f"bonuses[{s}]", b, 0, max(BONUS_TILES)) for s, b in enumerate(read.get("bonuses"))]
        if len(state.bonuses) != n:
            raise read.fail("bonuses", f"must be a list of {n} lists")
        if sorted(state.bonus_stack + [t for b in state.bonuses for t in b]) != sorted(BONUS_TILES):
            raise read.fail("bonus_stack", f"with the bonuses taken must be the tiles {sorted(BONUS_TILES)}")
        if state.bonus_stack != [t for t in BONUS_TILES if t in state.bonus_stack]:
            raise read.fail("bonus_stack", f"keeps the order {list(BONUS_TILES)} (top first)")
        state.first = read.integer("first", -1, n - 1)
        state.current = read.integer("to_move", -1, n - 1)
        if (state.first < 0) != (state.current < 0):
            raise read.fail("to_move", "is -1 exactly while the first player is not chosen (first = -1)")
        dice = read.int_list("dice", 1, 6)
        if dice and (len(dice) != 4 or state.first < 0):
            raise read.fail("dice", "is [] or four dice values 1..6 (after the first player is chosen)")
        d = sorted(dice)
        state.dice = ROLL_INDEX[(d[0], d[1], d[2], d[3])] if dice else NO_DICE
        state.turns = read.integer("turns", 0, MAX_GAME_LENGTH)
        state.end_triggered = read.flag("end_triggered")
        state.over = read.flag("over")
        if state.over and state.dice != NO_DICE:
            raise read.fail("dice", "must be [] once the game is over")
        read.done()
        return state

    def string_to_action(self, state: State, text: str) -> int:
        """Also accepts any grouping of the current dice, e.g. ``"group {4,3}=7 {6,3}=9"`` or ``"group {3,3} {4} {6}"``."""
        if isinstance(state, LevelXState) and state.current_player() >= 0:
            try:
                action = parse_grouping(text, state.roll())
            except ValueError as err:
                raise IllegalActionError(f"{text!r} is not a legal move here: {err}") from None
            if action is not None:
                return action
        return super().string_to_action(state, text)


class LevelXState(State):
    """A Level X position. Fields are plain lists, public so tests can set up positions directly.

    ``pos[seat][r]``: square of the seat's pawn in row index ``r`` (0 = supply, ``ROW_LENGTH[r]`` = X).
    ``tokens_left[r]``, ``held[seat][r]``: tokens in the row's stack / held by the seat.
    ``bonus_stack``: remaining tiles, top first; ``bonuses[seat]``: tiles taken.
    ``first``: first player (-1 until the opening chance node); ``current``: seat to move.
    ``dice``: roll id of the current turn (``NO_DICE`` until rolled). ``turns``: completed turns.
    """

    def __init__(self, game: LevelXGame) -> None:
        super().__init__(game)
        self.game: LevelXGame = game
        n = game.num_players
        self.pos: list[list[int]] = [[0] * NUM_ROWS for _ in range(n)]
        self.tokens_left: list[int] = list(game.initial_tokens)
        self.held: list[list[int]] = [[0] * NUM_ROWS for _ in range(n)]
        self.bonus_stack: list[int] = list(BONUS_TILES)
        self.bonuses: list[list[int]] = [[] for _ in range(n)]
        self.first = -1
        self.current = -1
        self.dice = NO_DICE
        self.turns = 0
        self.end_triggered = False
        self.over = False

    def position(self) -> dict[str, Any]:
        return {
            "pawns": [list(p) for p in self.pos],
            "tokens_left": list(self.tokens_left),
            "tokens_held": [list(h) for h in self.held],
            "bonus_stack": list(self.bonus_stack),
            "bonuses": [list(b) for b in self.bonuses],
            "first": self.first,
            "to_move": self.current,
            "dice": list(self.roll()),
            "turns": self.turns,
            "end_triggered": self.end_triggered,
            "over": self.over,
        }

    # ---- whose turn -------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.over:
            return TERMINAL
        if self.first < 0 or self.dice == NO_DICE:
            return CHANCE
        return self.current

    def roll(self) -> tuple[int, ...]:
        """The four dice of the current turn, ascending (empty before the roll)."""
        return ROLLS[self.dice] if self.dice != NO_DICE else ()

    # ---- actions ----------------------------------------------------------------------------------
    def legal_action_mask(self) -> np.ndarray:
        if self.current_player() < 0:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return ROLL_MASKS[self.dice].copy()

    def legal_actions(self) -> list[int]:
        if self.current_player() < 0:
            return []
        return list(ROLL_LEGAL[self.dice])

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return []
        if self.first < 0:
            n = self.game.num_players
            return [(seat, 1.0 / n) for seat in range(n)]
        return list(enumerate(ROLL_PROBS))

    def sample_chance(self, rng: np.random.Generator) -> int:
        if self.first < 0:
            return int(rng.integers(self.game.num_players))
        return int(np.searchsorted(ROLL_CUMULATIVE, rng.random() * ROLL_CUMULATIVE[-1], side="right").clip(0, len(ROLLS) - 1))

    def _is_legal(self, player: int, action: int) -> bool:
        if player == CHANCE:  # fast path: chance ids are a range, no list needed
            return 0 <= action < (self.game.num_players if self.first < 0 else len(ROLLS))
        return super()._is_legal(player, action)

    def _apply(self, action: int) -> None:
        if self.first < 0:
            self.first = self.current = action
            return
        if self.dice == NO_DICE:
            self.dice = action
            return
        self._resolve(self.current, EFFECT_STEPS[action])
        self.dice = NO_DICE
        self.turns += 1
        if not self.end_triggered and (not self.bonus_stack or sum(t == 0 for t in self.tokens_left) >= 3):
            self.end_triggered = True
        nxt = (self.current + 1) % self.game.num_players
        if self.end_triggered and nxt == self.first:  # round complete: everyone had the same number of turns
            self.over = True
        else:
            self.current = nxt

    def _resolve(self, seat: int, steps: tuple[int, ...]) -> None:
        """Apply ``steps[r]`` steps in each row index ``r`` for ``seat``, then bonuses (spec 1, turn 3-4)."""
        mine = self.pos[seat]
        for r, k in enumerate(steps):
            length = ROW_LENGTH[r]
            for _ in range(k):
                if mine[r] < length:
                    mine[r] += 1
                    if mine[r] == length:  # arrived on X: push off the other occupant, if any
                        for other, theirs in enumerate(self.pos):
                            if other != seat and theirs[r] == length:
                                theirs[r] = 1 if self.game.displace_to_square1 else 0
                if mine[r] == length and self.tokens_left[r] > 0:
                    self.tokens_left[r] -= 1
                    self.held[seat][r] += 1
        taken = self.bonuses[seat]
        while self.bonus_stack and min(self.held[seat]) > len(taken):
            taken.append(self.bonus_stack.pop(0))

    # ---- results ----------------------------------------------------------------------------------
    def score(self, seat: int) -> int:
        return sum(r * h for r, h in zip(ROWS, self.held[seat], strict=True)) + sum(self.bonuses[seat])

    def scores(self) -> np.ndarray:
        return np.array([self.score(s) for s in range(self.game.num_players)], dtype=np.float64)

    def ranking_key(self, seat: int) -> tuple[int, int, int]:
        """Score, then bonus tiles held, then tokens held (spec: tie-break PROPOSED)."""
        return (self.score(seat), len(self.bonuses[seat]), sum(self.held[seat]))

    def returns(self) -> np.ndarray:
        if not self.over:
            return np.zeros(self.game.num_players, dtype=np.float64)
        return rank_returns([self.ranking_key(s) for s in range(self.game.num_players)])

    def x_occupant(self, r: int) -> int:
        """Seat whose pawn is on row index ``r``'s X square, or -1."""
        for seat, p in enumerate(self.pos):
            if p[r] == ROW_LENGTH[r]:
                return seat
        return -1

    # ---- observation ------------------------------------------------------------------------------
    def observation(self, seat: int) -> np.ndarray:
        n = self.game.num_players
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not in [0, {n})")
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        pawns = obs[OBS["pawns"]].reshape(MAX_PLAYERS, NUM_ROWS, POSITIONS)
        held = obs[OBS["tokens_held"]].reshape(MAX_PLAYERS, NUM_ROWS)
        bonus_held = obs[OBS["bonus_held"]].reshape(MAX_PLAYERS, len(BONUS_TILES))
        scores = obs[OBS["scores"]]
        for slot in range(n):
            s = (seat + slot) % n
            pawns[slot, range(NUM_ROWS), self.pos[s]] = 1.0
            held[slot] = np.asarray(self.held[s], dtype=np.float32) / TOKEN_SCALE
            for tile in self.bonuses[s]:
                bonus_held[slot, BONUS_TILES.index(tile)] = 1.0
            scores[slot] = self.score(s) / MAX_SCORE
        obs[OBS["tokens_left"]] = np.asarray(self.tokens_left, dtype=np.float32) / TOKEN_SCALE
        for tile in self.bonus_stack:
            obs[OBS["bonus_stack"].start + BONUS_TILES.index(tile)] = 1.0
        if self.dice != NO_DICE:
            dice = obs[OBS["dice"]].reshape(4, 6)
            dice[range(4), [v - 1 for v in ROLLS[self.dice]]] = 1.0
        obs[OBS["seat_present"].start : OBS["seat_present"].start + n] = 1.0
        if self.current_player() >= 0:
            obs[OBS["to_move"].start + (self.current - seat) % n] = 1.0
        if self.first >= 0:
            obs[OBS["first_player"].start + (self.first - seat) % n] = 1.0
        obs[OBS["end_triggered"]] = float(self.end_triggered)
        obs[OBS["game_over"]] = float(self.over)
        return obs

    # ---- text -------------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        player = self.current_player()
        if player == CHANCE:
            if self.first < 0:
                return f"first player: seat {action}"
            return "roll " + ",".join(map(str, ROLLS[action])) if 0 <= action < len(ROLLS) else f"roll #{action}"
        if player >= 0 and action in ROLL_GROUPINGS[self.dice]:
            return grouping_text(ROLL_GROUPINGS[self.dice][action])
        if 0 <= action < NUM_ACTIONS:  # not legal with these dice: name the rows it would step
            return "steps " + (",".join(map(str, EFFECTS[action])) or "none")
        return f"action #{action}"

    def to_text(self) -> str:
        n = self.game.num_players
        title = f"Level X, {n} players, turn {self.turns + 1}"
        lines = [title + (" (end triggered: finishing the round)" if self.end_triggered else "")]
        for r in range(NUM_ROWS - 1, -1, -1):
            cells = []
            for sq in range(1, ROW_LENGTH[r] + 1):
                who = "".join(str(s) for s in range(n) if self.pos[s][r] == sq)
                cells.append(("X:" if sq == ROW_LENGTH[r] else "") + (who or "."))
            supply = "".join(str(s) for s in range(n) if self.pos[s][r] == 0) or "-"
            board = " ".join(f"[{c:^6}]" for c in cells)
            lines.append(f"row {ROWS[r]:>2} {board:<35} tokens left {self.tokens_left[r]:>2}   supply {supply}")
        lines.append("bonus stack: " + (" ".join(map(str, self.bonus_stack)) or "empty"))
        for s in range(n):
            mark = " (1)" if s == self.first else ""
            tokens = " ".join(f"{row}x{h}" for row, h in zip(ROWS, self.held[s], strict=True) if h)
            bonus = " bonus " + "+".join(map(str, self.bonuses[s])) if self.bonuses[s] else ""
            label = f"player {s}{mark}:"
            lines.append(f"{label:<14}{self.score(s):>3} pts  tokens {tokens or '-'}{bonus}")
        if self.over:
            ret = self.returns()
            lines.append("game over; winner(s): " + ", ".join(str(s) for s in range(n) if ret[s] == ret.max()))
        elif self.first < 0:
            lines.append("choosing the first player")
        elif self.dice == NO_DICE:
            lines.append(f"player {self.current} to roll")
        else:
            lines.append(f"player {self.current} to move, dice " + " ".join(map(str, ROLLS[self.dice])))
        return "\n".join(lines)

    # ---- copies -----------------------------------------------------------------------------------
    def clone(self) -> LevelXState:
        new = LevelXState.__new__(LevelXState)
        new.game = self.game
        new.history = self.history.copy()
        new.pos = [p.copy() for p in self.pos]
        new.tokens_left = self.tokens_left.copy()
        new.held = [h.copy() for h in self.held]
        new.bonus_stack = self.bonus_stack.copy()
        new.bonuses = [b.copy() for b in self.bonuses]
        new.first = self.first
        new.current = self.current
        new.dice = self.dice
        new.turns = self.turns
        new.end_triggered = self.end_triggered
        new.over = self.over
        return new
