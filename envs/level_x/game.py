"""Level X rules engine: ``LevelXGame`` and ``LevelXState`` (rules: ``docs/rules/level_x.md``).

See the package docstring (``envs/level_x/__init__.py``) for the action encoding, the observation layout
and the readings of the spec.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, GameFacts, IllegalActionError, Option, State
from gameshelf.envs.core.kernel import KernelGame, KernelState
from gameshelf.envs.core.position import PositionReader, position_builder
from gameshelf.envs.level_x import kernel as K
from gameshelf.envs.level_x.actions import (
    BONUS_TILES,
    EFFECTS,
    NUM_ACTIONS,
    ROLL_GROUPINGS,
    ROLL_INDEX,
    ROLL_LEGAL,
    ROLLS,
    ROW_LENGTH,
    ROWS,
    TOKENS,
    grouping_text,
    parse_grouping,
)
from gameshelf.envs.level_x.observation import LAYOUT, NUM_ROWS

NO_DICE = -1
"""``state.dice`` while the turn's roll is still to come."""

OBS_SIZE = LAYOUT.size
OBS = LAYOUT.slices
TOKEN_SCALE = float(max(TOKENS))

MAX_GAME_LENGTH = 2000
"""Safety-net bound on player decisions (see the card: passing makes the game unbounded in principle)."""
_ROLL_CUMULATIVE = list(itertools.accumulate(float(w) for w in K.ROLL_WEIGHT))
"""The kernel's roll weights, accumulated (floats, exact): what ``LevelXState.sample_chance`` draws over."""


class LevelXGame(KernelGame):
    """Level X for 2 to 4 players."""

    name = "level_x"
    kernel = K
    """The compiled rules (``kernel.py``): the state wraps its row, ``gameshelf.vector`` batches it."""
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(2, choices=(2, 3, 4), doc="number of players"),
        "remove_one_per_stack_if_lt4": Option(
            False, choices=(False, True), doc="with fewer than 4 players remove one token from each stack (Schmidt rule)"
        ),
        "displaced_to": Option("supply", choices=("supply", "square1"), doc="where a pawn pushed off an X square goes"),
    }
    LAYOUT = LAYOUT

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        n = self.options["num_players"]
        remove = self.options["remove_one_per_stack_if_lt4"] and n < 4
        self.initial_tokens: tuple[int, ...] = tuple(t - 1 for t in TOKENS) if remove else TOKENS
        self.displace_to_square1: bool = self.options["displaced_to"] == "square1"
        self.initial = K.initial_state(n, self.initial_tokens, self.displace_to_square1)

    def _facts(self) -> GameFacts:
        return GameFacts(num_actions=NUM_ACTIONS, max_game_length=MAX_GAME_LENGTH, has_chance=True, has_hidden_info=False)

    def new_initial_state(self) -> LevelXState:
        return LevelXState(self)

    @position_builder
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
        stack = read.int_list("bonus_stack", 0, max(BONUS_TILES))
        bonuses = read.int_table("bonuses", n, 0, max(BONUS_TILES))
        if sorted(stack + [t for b in bonuses for t in b]) != sorted(BONUS_TILES):
            raise read.fail("bonus_stack", f"with the bonuses taken must be the tiles {sorted(BONUS_TILES)}")
        if stack != [t for t in BONUS_TILES if t in stack]:
            raise read.fail("bonus_stack", f"keeps the order {list(BONUS_TILES)} (top first)")
        state.bonus_stack = stack
        state.bonuses = bonuses
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


class LevelXState(KernelState):
    """A Level X position: a view over one kernel state row (``kernel.py``), which the rules act on.

    The fields read and write that vector, like plain lists, so tests can set up positions directly:
    ``pos[seat][r]``: square of the seat's pawn in row index ``r`` (0 = supply, ``ROW_LENGTH[r]`` = X).
    ``tokens_left[r]``, ``held[seat][r]``: tokens in the row's stack / held by the seat.
    ``bonus_stack``: remaining tiles, top first; ``bonuses[seat]``: tiles taken.
    ``first``: first player (-1 until the opening chance node); ``current``: seat to move.
    ``dice``: roll id of the current turn (``NO_DICE`` until rolled). ``turns``: completed turns.
    """

    game: LevelXGame
    CHANCE_DRAW = "real"
    """Rolls are drawn as ``rng.random()`` over the cumulative odds (the draws the golden games were made with)."""

    # ---- fields (views of the state vector) --------------------------------------------------------
    pos = K.ROW.field("pos")
    held = K.ROW.field("held")
    tokens_left = K.ROW.field("tokens_left")

    @property
    def bonus_stack(self) -> list[int]:
        """Tiles still in the stack, top first (a copy: assign the attribute to change it)."""
        return [tile for t, tile in enumerate(BONUS_TILES) if self.s[K.BONUS + t] == K.IN_STACK]

    @bonus_stack.setter
    def bonus_stack(self, tiles: list[int]) -> None:
        for t, tile in enumerate(BONUS_TILES):
            if tile in tiles:
                self.s[K.BONUS + t] = K.IN_STACK
            elif self.s[K.BONUS + t] == K.IN_STACK:
                self.s[K.BONUS + t] = K.OUT

    @property
    def bonuses(self) -> _Bonuses:
        return _Bonuses(self)

    @bonuses.setter
    def bonuses(self, per_seat: list[list[int]]) -> None:
        if len(per_seat) != self.game.num_players:
            raise ValueError(f"expected {self.game.num_players} lists of bonus tiles, got {len(per_seat)}")
        for seat, tiles in enumerate(per_seat):
            self.bonuses[seat] = tiles

    first = K.ROW.field("first")
    current = K.ROW.field("current")
    dice = K.ROW.field("dice")
    turns = K.ROW.field("turns")
    end_triggered = K.ROW.field("end_triggered")
    over = K.ROW.field("over")

    def position(self) -> dict[str, Any]:
        return {
            "pawns": self.pos.tolist(),
            "tokens_left": self.tokens_left.tolist(),
            "tokens_held": self.held.tolist(),
            "bonus_stack": self.bonus_stack,
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
        s = self.s  # the kernel's current_player, read here without a compiled call (the hottest query)
        if s[K.OVER]:
            return TERMINAL
        if s[K.FIRST] < 0 or s[K.DICE] < 0:
            return CHANCE
        return int(s[K.CUR])

    def sample_chance(self, rng: np.random.Generator) -> int:
        """``KernelState.sample_chance`` without its two compiled calls (the roll is Level X's every other node):
        the same draw from the kernel's own weights, a seat drawn alike or ``rng.random()`` over the rolls'
        cumulative weights. The kit's ``check_kernel_row`` checks, node by node, that it draws what the kernel's
        ``chance_weights`` give."""
        s = self.s
        if s[K.FIRST] < 0:  # the opening draw (nothing else happens before it)
            return int(rng.integers(s[K.NP]))
        if s[K.DICE] >= 0 or s[K.OVER]:
            raise ValueError(f"{self.game.info.name}: not a chance node")
        return min(bisect.bisect_right(_ROLL_CUMULATIVE, rng.random() * _ROLL_CUMULATIVE[-1]), K.NUM_ROLLS - 1)

    def roll(self) -> tuple[int, ...]:
        """The four dice of the current turn, ascending (empty before the roll)."""
        dice = self.dice
        return ROLLS[dice] if dice != NO_DICE else ()

    # ---- actions (mask, legality and apply: KernelState's) ----------------------------------------
    def legal_actions(self) -> list[int]:
        if self.current_player() < 0:
            return []
        return list(ROLL_LEGAL[self.s[K.DICE]])

    # ---- results (returns, observation, playout and copies: KernelState's) --------------------------
    def score(self, seat: int) -> int:
        return int(K.score(self.S, 0, seat))

    def scores(self) -> np.ndarray:
        return np.array([K.score(self.S, 0, seat) for seat in range(self.game.num_players)], dtype=np.float64)

    def ranking_key(self, seat: int) -> tuple[int, int, int]:
        """Score, then bonus tiles held, then tokens held (spec: tie-break PROPOSED)."""
        return (self.score(seat), len(self.bonuses[seat]), sum(self.held[seat]))

    def x_occupant(self, r: int) -> int:
        """Seat whose pawn is on row index ``r``'s X square, or -1."""
        for seat, p in enumerate(self.pos):
            if p[r] == ROW_LENGTH[r]:
                return seat
        return -1

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


class _Bonuses(Sequence[list[int]]):
    """``state.bonuses``: per seat, the bonus tiles it holds (in the order taken); item assignment writes through."""

    def __init__(self, state: LevelXState) -> None:
        self._state = state

    def __len__(self) -> int:
        return self._state.game.num_players

    def __getitem__(self, seat: Any) -> Any:
        if isinstance(seat, slice):
            return [self[k] for k in range(len(self))[seat]]
        owners = self._state.s[K.BONUS : K.BONUS + len(BONUS_TILES)].tolist()
        return [tile for tile, owner in zip(BONUS_TILES, owners, strict=True) if owner == range(len(self))[seat]]

    def __setitem__(self, seat: int, tiles: list[int]) -> None:
        bad = [tile for tile in tiles if tile not in BONUS_TILES]
        if bad:
            raise ValueError(f"bonus tiles {bad} do not exist; the tiles are {list(BONUS_TILES)}")
        s = self._state.s
        for t, tile in enumerate(BONUS_TILES):
            if tile in tiles:
                s[K.BONUS + t] = seat
            elif s[K.BONUS + t] == seat:
                s[K.BONUS + t] = K.OUT

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (_Bonuses, list, tuple)):
            return [list(b) for b in self] == [list(b) for b in other]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))
