"""KoPlus engine: ``KoPlusGame`` and ``KoPlusState`` (rules: ``docs/rules/koplus.md``).

The rules are the compiled kernels of ``kernel.py`` (also batched: ``gameshelf.vector.make("koplus-v0",
num_envs=N)``); ``KoPlusState`` is a view over one kernel state row (declared once: ``kernel.ROW``) and keeps,
in Python, what is not a rule step: text, move names and parsing, the position builder (the chance odds are
the kernel's ``chance_weights``). The first use compiles the kernels (about 9 CPU-seconds, see the
environment card); later processes load them from numba's cache.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, GameFacts, IllegalActionError, Option, State
from gameshelf.envs.core.kernel import RNG_WORDS, KernelGame, KernelState, kernel_drivers
from gameshelf.envs.core.position import PositionReader, position_builder
from gameshelf.envs.koplus import board
from gameshelf.envs.koplus import kernel as K
from gameshelf.envs.koplus.actions import (
    GRID,
    NUM_ACTIONS,
    NUM_CELLS,
    NUM_ORIENTATIONS,
    ORIENTATIONS,
    decode_action,
    encode_action,
)
from gameshelf.envs.koplus.board import (
    BONUS_SCORES,
    BONUS_TURNS,
    KO,
    MAX_TILE_POINTS,
    PLUS,
    SHAPE_NAMES,
    STACKS,
    TILES_PER_PLAYER,
)
from gameshelf.envs.koplus.observation import LAYOUT
from gameshelf.envs.koplus.scoring import FinalScore

NUM_PLANES = K.NUM_PLANES
"""Planes of the observation (``(16, 16, NUM_PLANES)``; layout in ``observation.py``, written by ``kernel.observation``)."""
MAX_BONUS_TURNS = K.MAX_BONUS_TURNS

_MOVE = re.compile(
    r"^\s*(?:place\s+)?(?P<shape>コ|ko|u|＋|\+|plus|x)\s*(?P<orient>up|right|down|left)?\s*(?:at\s+)?r(?P<row>\d+)\s*c(?P<col>\d+)\s*$",
    re.IGNORECASE,
)


class KoPlusGame(KernelGame):
    """KoPlus for 2-4 players; ``board_mode`` is ``"random"`` (chance nodes build the board) or ``"standard"``."""

    name = "koplus"
    kernel = K
    """The compiled rules (``kernel.py``): the state wraps its row, ``gameshelf.vector`` batches it."""
    OPTIONS = {
        "num_players": Option(2, choices=(2, 3, 4), doc="number of players (board of 9/12/16 sections)"),
        "board_mode": Option(
            "random",
            choices=("random", "standard"),
            doc="random: sections drawn and rotated at chance nodes; standard: S00.. row-major, unrotated",
        ),
    }
    LAYOUT = LAYOUT

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        n = self.options["num_players"]
        self.geometry = board.geometry(n)
        self.standard_layout = board.standard_layout(n)
        self.standard_aliens = board.aliens_of_layout(self.geometry, self.standard_layout)
        self.standard_aliens.setflags(write=False)
        self.standard_points = board.placement_points(self.geometry, self.standard_aliens)
        self.initial = K.initial_state(n, self.options["board_mode"] == "standard")

    def _facts(self) -> GameFacts:
        return GameFacts(
            num_actions=NUM_ACTIONS,
            max_game_length=TILES_PER_PLAYER * self.options["num_players"],
            has_chance=self.options["board_mode"] == "random",
            has_hidden_info=False,
        )

    def new_initial_state(self) -> KoPlusState:
        return KoPlusState(self)

    def string_to_action(self, state: State, text: str) -> int:
        """Parse "place コ up at r7c5" / "place ＋ at r5c6" (also "ko", "+", "plus"), or a plain number."""
        match = _MOVE.match(text)
        if match is None or not isinstance(state, KoPlusState) or state.current_player() < 0:
            return super().string_to_action(state, text)
        shape = PLUS if match["shape"].lower() in ("＋", "+", "plus", "x") else KO
        top = state.top_tile(state.current_player())
        assert top is not None  # the player to move always has a tile
        if shape != top:
            raise IllegalActionError(f"{text!r}: the tile to place is {SHAPE_NAMES[top]}, not {SHAPE_NAMES[shape]}")
        if shape == KO and match["orient"] is None:
            raise IllegalActionError(f"{text!r}: a コ needs an orientation ({', '.join(ORIENTATIONS)})")
        orientation = ORIENTATIONS.index(match["orient"].lower()) if shape == KO else 0
        row, col = int(match["row"]), int(match["col"])
        if row < GRID and col < GRID:
            action = encode_action(orientation, row, col)
            if state.legal_action_mask()[action]:
                return action
        return super().string_to_action(state, text)

    @position_builder
    def state_from_position(self, position: Mapping[str, Any]) -> KoPlusState:
        """A position from plain data (``state.position()`` gives one; keys in the card), validated.

        The board is rebuilt from ``layout`` and the tiles are placed in order, each checked against the
        placement rules; points follow from the tiles.
        """
        read = PositionReader(position, self.name)
        state = self.new_initial_state()
        self._read_board(read, state)
        self._read_tiles(read, state)
        self._read_counts(read, state, position)
        to_move = self._read_to_move(read, state)
        self._check_skipped(read, state, to_move)
        if state.bonus_turn:
            self._check_bonus_turn(read, state, to_move)
        if to_move == TERMINAL:
            state._end()  # the final scoring, as at the end of play
        else:
            state.player = to_move
        read.done()
        return state

    def _read_board(self, read: PositionReader, state: KoPlusState) -> None:
        """``layout`` (the sections drawn), ``pending_section`` and ``aliens`` (a made-up board), applied to ``state``."""
        layout = read.get("layout")
        if not isinstance(layout, list) or not all(isinstance(p, list) and len(p) == 2 for p in layout):
            raise read.fail("layout", "must be a list of [section, rotation] pairs")
        try:
            if self.options["board_mode"] == "standard":
                if [tuple(p) for p in layout] != list(self.standard_layout):
                    raise read.fail("layout", f"must be the standard layout {[list(p) for p in self.standard_layout]}")
            else:
                for section, rotation in layout:
                    state.apply_action(section)
                    state.apply_action(rotation)
        except (IllegalActionError, TypeError) as err:
            raise read.fail("layout", f"is not a possible board: {err}") from None
        pending = read.get("pending_section", None)
        if pending is not None:
            try:
                state.apply_action(pending)
            except (IllegalActionError, TypeError) as err:
                raise read.fail("pending_section", f"is not a section still to place: {err}") from None
        aliens = read.get("aliens", None)
        if aliens is not None:
            state._set_aliens(read, aliens)

    def _read_tiles(self, read: PositionReader, state: KoPlusState) -> None:
        """``tiles``: placed on ``state`` in order, each a legal placement for its seat."""
        tiles = read.get("tiles")
        if not isinstance(tiles, list):
            raise read.fail("tiles", "must be a list of [seat, action] in the order they were placed")
        for k, entry in enumerate(tiles):
            seat, action = read.check_int_list(f"tiles[{k}]", entry, 0, NUM_ACTIONS - 1, 2)
            if seat >= self.num_players or not state.board_complete() or state.top_tile(seat) is None:
                raise read.fail("tiles", f"#{k}: seat {seat} cannot place a tile here")
            state.player = seat
            if not state.legal_action_mask()[action]:
                raise read.fail("tiles", f"#{k}: {state.action_to_string(action)} is not a legal placement for seat {seat}")
            state._place(action)

    def _read_counts(self, read: PositionReader, state: KoPlusState, position: Mapping[str, Any]) -> None:
        """``points`` (optional), ``bonus_left`` (within each seat's allowance), ``bonus_turn`` and ``skipped``."""
        n = self.num_players
        if "points" in position:  # optional: else the points of the tiles
            state.points = read.int_list("points", 0, K.ROW["points"].high, n)
        state.bonus_left = read.int_list("bonus_left", 0, MAX_BONUS_TURNS, n)
        for seat, left in enumerate(state.bonus_left):
            if left > BONUS_TURNS[n][seat]:
                raise read.fail("bonus_left", f"seat {seat} has at most {BONUS_TURNS[n][seat]} bonus turns")
        state.bonus_turn = read.flag("bonus_turn")
        state.skipped = read.int_list("skipped", 0, n - 1)

    def _read_to_move(self, read: PositionReader, state: KoPlusState) -> int:
        """``to_move``: chance while the board is incomplete, the end only when no seat can place, else a seat that can."""
        n = self.num_players
        to_move = read.integer("to_move", TERMINAL, n - 1)
        if not state.board_complete():
            if to_move != CHANCE or state.tiles:
                raise read.fail("to_move", "must be -1 (chance) while the board is incomplete")
        elif to_move == TERMINAL:
            if any(state.can_place(s) for s in range(n)):
                raise read.fail("to_move", "is -4 (game over) only when no seat can place")
        elif to_move < 0 or not state.can_place(to_move):
            raise read.fail("to_move", f"seat {to_move} cannot place a tile")
        return to_move

    def _check_skipped(self, read: PositionReader, state: KoPlusState, to_move: int) -> None:
        """``skipped`` lists distinct seats that could not place, never the seat to move."""
        if len(set(state.skipped)) != len(state.skipped) or to_move in state.skipped:
            raise read.fail("skipped", "lists each passed-over seat once, never the seat to move")
        if any(state.board_complete() and state.can_place(s) for s in state.skipped):
            raise read.fail("skipped", "lists seats that could not place (and nothing was placed since)")

    def _check_bonus_turn(self, read: PositionReader, state: KoPlusState, to_move: int) -> None:
        """A bonus turn goes to the seat that just reached a bonus score, and it has one of its bonus turns left."""
        last = state.tiles[-1][0] if state.tiles else -1
        if to_move < 0 or last != to_move or state.points[to_move] not in BONUS_SCORES:
            raise read.fail("bonus_turn", f"is a turn at once for the seat that just placed a tile to reach {BONUS_SCORES}")
        if state.bonus_left[to_move] >= BONUS_TURNS[self.num_players][to_move]:
            raise read.fail("bonus_turn", "uses one of the seat's bonus turns: bonus_left must be below its allowance")


class KoPlusState(KernelState):
    """A KoPlus position: a view over one kernel state row (``kernel.py``), which the rules act on. Chance
    nodes (random boards) come first; then seats place their top tiles.

    The fields read and write the row: ``points``, ``placed``, ``bonus_left`` (per seat, list-like),
    ``bonus_turn``, ``skipped``, ``player``; ``layout``, ``pending_section``, ``tiles``, ``aliens``, ``owner``,
    ``tile_at`` and ``final`` are read from it. ``placed`` says where each stack's top is; writing it changes
    the next tiles and the tiles left, not the tiles on the board (``tiles`` reads their shapes from the board).
    """

    game: KoPlusGame

    player = K.ROW.field("player")
    bonus_turn = K.ROW.field("bonus_turn")
    num_players = K.ROW.field("num_players")
    points = K.ROW.field("points")
    placed = K.ROW.field("placed")
    bonus_left = K.ROW.field("bonus_left")

    # ---- readings of the row ------------------------------------------------------------------------
    @property
    def geo(self) -> board.Geometry:
        return self.game.geometry

    @property
    def skipped(self) -> list[int]:
        """Seats passed over (no legal placement) since the last placement (a copy: assign to change it)."""
        return self.s[K.SKIPPED : K.SKIPPED + self.s[K.NSKIP]].tolist()  # type: ignore[no-any-return]

    @skipped.setter
    def skipped(self, seats: Sequence[int]) -> None:
        seats = list(seats)
        K.ROW.put(self.s, "skipped", seats + [0] * (K.P - len(seats)))
        K.ROW.put(self.s, "num_skipped", len(seats))

    @property
    def pending_section(self) -> int | None:
        """Random boards: the section drawn for the next position, waiting for its rotation."""
        pending = int(self.s[K.PENDING])
        return None if pending < 0 else pending

    @property
    def layout(self) -> list[tuple[int, int]]:
        """``(section, rotation)`` of each laid board position."""
        laid = self.s[K.LAYOUT_AT : K.LAYOUT_AT + 2 * self.s[K.NLAYOUT]].tolist()
        return list(zip(laid[::2], laid[1::2], strict=True))

    @property
    def tiles(self) -> list[tuple[int, int, int]]:
        """Placed tiles in order: (seat, shape, action), each shape read from the cells the tile covers (so it
        stays right when ``placed`` is written: the next tile's shape follows ``placed``)."""
        placed = self.s[K.TILES : K.TILES + 2 * self.s[K.NTILES]].tolist()
        tile_at = self.tile_at
        ko_cells = self.geo.cells_of[KO]
        out = []
        for index, (seat, action) in enumerate(zip(placed[::2], placed[1::2], strict=True)):
            cells = ko_cells.get(action)
            shape = KO if cells is not None and all(tile_at[c] == index for c in cells) else PLUS
            out.append((seat, shape, action))
        return out

    @property
    def aliens(self) -> np.ndarray:
        """int8[NUM_CELLS]: the alien value of every cell (0 where there is none or the board is not laid)."""
        return (self.s[K.CELL : K.CELL + NUM_CELLS] & K.ALIEN_BITS).astype(np.int8)

    @property
    def owner(self) -> np.ndarray:
        """int8[NUM_CELLS]: the seat whose tile covers the cell, -1 if none."""
        return (((self.s[K.CELL : K.CELL + NUM_CELLS] >> K.OWNER_SHIFT) & 7) - 1).astype(np.int8)

    @property
    def tile_at(self) -> np.ndarray:
        """int16[NUM_CELLS]: the index (in ``tiles``) of the tile covering the cell, -1 if none."""
        return (((self.s[K.CELL : K.CELL + NUM_CELLS] >> K.TILE_SHIFT) & 63) - 1).astype(np.int16)

    @property
    def empty(self) -> np.ndarray:
        """bool[NUM_CELLS]: the cell is on the board and not covered."""
        return self.geo.on_board & (self.owner < 0)

    @property
    def final(self) -> list[FinalScore] | None:
        """The final-scoring breakdown of every seat once the game is over, else None."""
        if self.s[K.CUR] != TERMINAL:
            return None
        rows = self.s[K.FINAL : K.FINAL + 4 * self.num_players].reshape(-1, 4).tolist()
        return [FinalScore(largest_group=r[0], bonus=r[1], isolated=r[2], small=r[3]) for r in rows]

    @property
    def points_of(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Per shape, the alien value each placement (``geo.actions[shape]``) would capture; None until the board
        is complete. Assigning it decides which placements the cap of 9 allows (a test's made-up values)."""
        if not self.board_complete():
            return None
        return board.placement_points(self.geo, self.aliens)

    @points_of.setter
    def points_of(self, values: tuple[np.ndarray, np.ndarray]) -> None:
        self.s[K.ALLOW : K.ALLOW + K.NUM_WORDS] = 0
        words = [0] * K.NUM_WORDS
        for shape in (KO, PLUS):
            for action, points in zip(self.geo.actions[shape].tolist(), np.asarray(values[shape]).tolist(), strict=True):
                if points <= MAX_TILE_POINTS:
                    orientation, row, col = decode_action(action)
                    words[int(K.WORD_BASE[shape]) + orientation * GRID + row] |= 1 << col
        self.s[K.ALLOW : K.ALLOW + K.NUM_WORDS] = [w - ((w & 0x8000) << 1) for w in words]

    # ---- queries ------------------------------------------------------------------------------------
    def current_player(self) -> int:
        return int(self.s[K.CUR])

    def sample_chance(self, rng: np.random.Generator) -> int:
        """``KernelState.sample_chance``, with a laid section's rotation (4 alike: half of a short game's nodes)
        drawn here without its two compiled calls; the kit's ``check_kernel_row`` checks, node by node, that it
        draws what the kernel's ``chance_weights`` give."""
        if self.s[K.PENDING] >= 0 and self.s[K.CUR] == CHANCE:
            return int(rng.integers(4))
        return super().sample_chance(rng)

    def legal_actions(self) -> list[int]:
        if self.s[K.CUR] < 0:
            return []
        return self.legal_action_mask().nonzero()[0].tolist()  # type: ignore[no-any-return]

    def random_playout(self, rng: np.random.Generator, max_decisions: int | None = None) -> int:
        """``KernelState.random_playout`` (the template's compiled playout) with its generator's words drawn from
        ``rng`` in one call: a seeded ``numpy`` generator built for every playout was a third of an ``mcts:50``
        simulation. Returns the number of decisions made."""
        generator = rng.integers(1, 1 << 32, size=(1, RNG_WORDS), dtype=np.int64)
        limit = self.game.info.max_game_length if max_decisions is None else max_decisions
        mask = np.empty((1, NUM_ACTIONS), dtype=bool)
        return int(kernel_drivers(K).random_playout(self.S, 0, generator, limit, mask))

    def top_tile(self, seat: int) -> int | None:
        """Shape (``KO`` or ``PLUS``) on top of a seat's stack, or None once the stack is empty."""
        i = int(self.s[K.PLACED + seat])
        return STACKS[seat % 2][i] if i < TILES_PER_PLAYER else None

    def tiles_left(self, seat: int) -> int:
        return TILES_PER_PLAYER - int(self.s[K.PLACED + seat])

    def board_complete(self) -> bool:
        return int(self.s[K.NLAYOUT]) == self.geo.num_sections

    def can_place(self, seat: int) -> bool:
        return bool(K.can_place(self.S, 0, seat))

    def placement_cells(self, action: int, seat: int | None = None) -> tuple[int, ...]:
        """The cells the top tile of ``seat`` (default: the player to move) would cover with ``action``."""
        seat = self.player if seat is None else seat
        shape = self.top_tile(seat)
        if shape is None:
            raise ValueError(f"seat {seat} has no tile left")
        return self.geo.cells_of[shape][action]

    def placement_points(self, action: int, seat: int | None = None) -> int:
        cells = self.s[K.CELL : K.CELL + NUM_CELLS]
        return sum(int(cells[c]) & K.ALIEN_BITS for c in self.placement_cells(action, seat))

    # ---- steps of the rules the position builder takes (the kernels') -------------------------------
    def _start(self) -> None:
        """The board is complete: the first seat able to place moves (seat 0 unless it cannot)."""
        K.start(self.S, 0)

    def _place(self, action: int) -> None:
        """The player to move places its top tile with ``action`` (unchecked)."""
        K.place(self.S, 0, action)

    def _end(self) -> None:
        """Nobody can place: the game is over, with the final group scoring."""
        K.end(self.S, 0)

    # ---- results ------------------------------------------------------------------------------------
    def totals(self) -> list[int]:
        """Score of every seat: placement points, plus the final scoring once the game is over."""
        out = np.zeros(self.num_players, dtype=np.int64)
        K.totals(self.S, 0, out)
        return out.tolist()  # type: ignore[no-any-return]

    def scores(self) -> np.ndarray:
        out = np.zeros(self.num_players, dtype=np.float64)
        K.totals(self.S, 0, out)
        return out

    # ---- text ---------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if self.player == CHANCE:
            if self.pending_section is None:
                position = len(self.layout)
                row, col = divmod(position, self.geo.section_cols)
                return f"section S{action:02d} at position {position} (section row {row}, col {col})"
            return f"rotate S{self.pending_section:02d} by {90 * action}°"
        orientation, row, col = decode_action(action)
        shape = self.top_tile(self.player) if self.player >= 0 else None
        if shape == PLUS:
            return f"place ＋ at r{row}c{col}" + (f" (orientation {orientation}: unused by ＋)" if orientation else "")
        name = "コ" if shape == KO else "tile"
        return f"place {name} {ORIENTATIONS[orientation]} at r{row}c{col}" if orientation < NUM_ORIENTATIONS else str(action)

    def to_text(self) -> str:
        geo = self.geo
        n = self.num_players
        mode = self.game.options["board_mode"]
        sections = " ".join(f"S{s:02d}" + (f"@{90 * r}" if r else "") for s, r in self.layout)
        lines = [f"KoPlus, {n} players, {mode} board: {sections or '(not drawn yet)'}"]
        header = "     " + " ".join(("|" if c and c % board.SECTION == 0 else "") + f"{c:>2}" for c in range(geo.cols))
        lines.append(header)
        rule = "     " + "-" * (len(header) - 5)
        drawn = len(self.layout)
        for r in range(geo.rows):
            if r and r % board.SECTION == 0:
                lines.append(rule)
            cells = []
            for c in range(geo.cols):
                idx = r * GRID + c
                position = (r // board.SECTION) * geo.section_cols + c // board.SECTION
                if self.owner[idx] >= 0:
                    mark = "ABCD"[self.owner[idx]]
                elif position >= drawn:
                    mark = "?"
                else:
                    mark = str(self.aliens[idx]) if self.aliens[idx] else "."
                cells.append(("|" if c and c % board.SECTION == 0 else "") + f"{mark:>2}")
            lines.append(f"r{r:<3}" + " ".join(cells))
        rows = f"{board.SECTION}-{geo.rows - board.SECTION - 1}"
        cols = f"{board.SECTION}-{geo.cols - board.SECTION - 1}"
        lines.append(f"digits: aliens, '.': empty, A-D: tiles of P0-P3; interior (first tile): rows {rows}, cols {cols}")
        totals = self.totals()
        for s in range(n):
            stack = "".join(SHAPE_NAMES[t] for t in STACKS[s % 2][self.placed[s] :]) or "-"
            line = (
                f"P{s} ({'ABCD'[s]}): score {totals[s]:>3}  tiles left {self.tiles_left(s):>2}  "
                f"bonus turns {self.bonus_left[s]}  stack {stack}"
            )
            if self.final is not None:
                f = self.final[s]
                line += (
                    f"  [placements {self.points[s]}, largest group {f.largest_group}: +{f.bonus},"
                    f" {f.isolated} isolated, {f.small} in smaller groups]"
                )
            lines.append(line)
        if self.player == CHANCE:
            lines.append("board set-up: drawing sections")
        elif self.player == TERMINAL:
            returns = self.returns()
            best = max(returns)
            winners = [f"P{s}" for s in range(n) if returns[s] == best]
            lines.append(f"game over: {' and '.join(winners)} {'win' if len(winners) > 1 else 'wins'}")
        else:
            shape = self.top_tile(self.player)
            assert shape is not None
            extra = " (bonus turn)" if self.bonus_turn else ""
            if self.skipped:
                extra += f" (skipped: {', '.join(f'P{s}' for s in self.skipped)})"
            lines.append(f"to move: P{self.player} places {SHAPE_NAMES[shape]}{extra}")
        return "\n".join(lines)

    # ---- copies -------------------------------------------------------------------------------
    def _set_aliens(self, read: PositionReader, rows: Any) -> None:
        """Replace the alien counts of a complete board (a made-up puzzle board): rows of digits, '.' = 0."""
        on_board = self.geo.on_board.reshape(GRID, GRID)
        height, width = int(on_board.any(axis=1).sum()), int(on_board.any(axis=0).sum())
        if not self.board_complete():
            raise read.fail("aliens", "needs a complete board layout")
        if not isinstance(rows, list) or len(rows) != height or any(not isinstance(r, str) or len(r) != width for r in rows):
            raise read.fail("aliens", f"must be {height} strings of {width} digits ('.' for 0)")
        aliens = np.zeros((GRID, GRID), dtype=np.int8)
        for r, row in enumerate(rows):
            if any(ch not in ".012345" for ch in row):
                raise read.fail("aliens", f"row {r} holds a character other than an alien value 1..5, 0 or '.'")
            aliens[r, :width] = [0 if ch == "." else int(ch) for ch in row]
        cells = self.s[K.CELL : K.CELL + NUM_CELLS]
        cells[:] = (cells & ~K.ALIEN_BITS) | aliens.reshape(-1)
        K.board_ready(self.S, 0)

    def alien_rows(self) -> list[str]:
        """The board's aliens as the position key ``aliens`` writes them: one string per row, ``.`` for 0."""
        on_board = self.geo.on_board.reshape(GRID, GRID)
        height, width = int(on_board.any(axis=1).sum()), int(on_board.any(axis=0).sum())
        grid = self.aliens.reshape(GRID, GRID)
        return ["".join(str(v) if v else "." for v in grid[r, :width].tolist()) for r in range(height)]

    def position(self) -> dict[str, Any]:
        position: dict[str, Any] = {
            "layout": [list(p) for p in self.layout],
            "pending_section": self.pending_section,
            "tiles": [[seat, action] for seat, _shape, action in self.tiles],
            "points": list(self.points),
            "bonus_left": list(self.bonus_left),
            "bonus_turn": self.bonus_turn,
            "skipped": list(self.skipped),
            "to_move": self.player,
        }
        if self.board_complete() and not np.array_equal(self.aliens, board.aliens_of_layout(self.geo, tuple(self.layout))):
            position["aliens"] = self.alien_rows()  # a made-up board: its layout alone would rebuild another one
        return position
