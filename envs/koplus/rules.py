"""KoPlus rules engine: ``KoPlusGame`` and ``KoPlusState`` (rules: ``docs/rules/koplus.md``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, GameFacts, IllegalActionError, Option, State, rank_returns
from gameshelf.envs.core.position import PositionReader
from gameshelf.envs.koplus import board
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
    NUM_SECTIONS,
    PLUS,
    SHAPE_NAMES,
    STACKS,
    TILES_PER_PLAYER,
)
from gameshelf.envs.koplus.observation import LAYOUT
from gameshelf.envs.koplus.scoring import FinalScore, final_scores, tile_groups

# ---- observation layout (pieces in observation.py; see the environment card) ----------------------
OBS_ALIENS = LAYOUT["aliens"].start
OBS_TILES = LAYOUT["tiles"].start  # one plane per seat slot (observer first)
OBS_EMPTY = LAYOUT["empty"].start
OBS_ON_BOARD = LAYOUT["on_board"].start
OBS_INTERIOR = LAYOUT["interior"].start
OBS_TOP_KO = LAYOUT["top_ko"].start
OBS_TOP_PLUS = LAYOUT["top_plus"].start
OBS_TILES_LEFT = LAYOUT["tiles_left"].start
OBS_BONUS_LEFT = LAYOUT["bonus_left"].start
OBS_SCORE = LAYOUT["score"].start
OBS_TO_MOVE = LAYOUT["to_move"].start
OBS_SEATED = LAYOUT["seated"].start
NUM_PLANES = LAYOUT.size
SCORE_OFFSET = 60
"""Observed score = (score + SCORE_OFFSET) / SCORE_RANGE: final totals lie in [-60, 113]."""
SCORE_RANGE = 180
MAX_BONUS_TURNS = 3

_MOVE = re.compile(
    r"^\s*(?:place\s+)?(?P<shape>コ|ko|u|＋|\+|plus|x)\s*(?P<orient>up|right|down|left)?\s*(?:at\s+)?r(?P<row>\d+)\s*c(?P<col>\d+)\s*$",
    re.IGNORECASE,
)


class KoPlusGame(Game):
    """KoPlus for 2-4 players; ``board_mode`` is ``"random"`` (chance nodes build the board) or ``"standard"``."""

    name = "koplus"
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

    def state_from_position(self, position: Mapping[str, Any]) -> KoPlusState:
        """A position from plain data (``state.position()`` gives one; keys in the card), validated.

        The board is rebuilt from ``layout`` and the tiles are placed in order, each checked against the
        placement rules; points follow from the tiles.
        """
        n = self.num_players
        read = PositionReader(position, self.name)
        state = self.new_initial_state()
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
            pending = read.get("pending_section", None)
            if pending is not None:
                state.apply_action(pending)
        except (IllegalActionError, TypeError) as err:
            raise read.fail("layout", f"is not a possible board: {err}") from None
        aliens = read.get("aliens", None)
        if aliens is not None:
            state._set_aliens(read, aliens)
        tiles = read.get("tiles")
        if not isinstance(tiles, list):
            raise read.fail("tiles", "must be a list of [seat, action] in the order they were placed")
        for k, entry in enumerate(tiles):
            seat, action = read.check_int_list(f"tiles[{k}]", entry, 0, NUM_ACTIONS - 1, 2)
            if seat >= n or not state.board_complete() or state.top_tile(seat) is None:
                raise read.fail("tiles", f"#{k}: seat {seat} cannot place a tile here")
            state.player = seat
            if not state.legal_action_mask()[action]:
                raise read.fail("tiles", f"#{k}: {state.action_to_string(action)} is not a legal placement for seat {seat}")
            state._place(action)
        points = read.get("points", None)
        if points is not None:
            state.points = read.check_int_list("points", points, 0, 10_000, n)
        state.bonus_left = read.int_list("bonus_left", 0, MAX_BONUS_TURNS, n)
        for seat, left in enumerate(state.bonus_left):
            if left > BONUS_TURNS[n][seat]:
                raise read.fail("bonus_left", f"seat {seat} has at most {BONUS_TURNS[n][seat]} bonus turns")
        state.bonus_turn = read.flag("bonus_turn")
        state.skipped = read.int_list("skipped", 0, n - 1)
        to_move = read.integer("to_move", TERMINAL, n - 1)
        if not state.board_complete():
            if to_move != CHANCE or tiles:
                raise read.fail("to_move", "must be -1 (chance) while the board is incomplete")
        elif to_move == TERMINAL:
            if any(state.can_place(s) for s in range(n)):
                raise read.fail("to_move", "is -4 (game over) only when no seat can place")
        elif to_move < 0 or not state.can_place(to_move):
            raise read.fail("to_move", f"seat {to_move} cannot place a tile")
        if len(set(state.skipped)) != len(state.skipped) or to_move in state.skipped:
            raise read.fail("skipped", "lists each passed-over seat once, never the seat to move")
        if any(state.board_complete() and state.can_place(s) for s in state.skipped):
            raise read.fail("skipped", "lists seats that could not place (and nothing was placed since)")
        if state.bonus_turn:
            last = state.tiles[-1][0] if state.tiles else -1
            if to_move < 0 or last != to_move or state.points[to_move] not in BONUS_SCORES:
                raise read.fail("bonus_turn", f"is a turn at once for the seat that just placed a tile to reach {BONUS_SCORES}")
            if state.bonus_left[to_move] >= BONUS_TURNS[n][to_move]:
                raise read.fail("bonus_turn", "uses one of the seat's bonus turns: bonus_left must be below its allowance")
        if to_move == TERMINAL:
            state._end()  # the final scoring, as at the end of play
        else:
            state.player = to_move
            state.final = None
        read.done()
        return state


class KoPlusState(State):
    """A KoPlus position. Chance nodes (random boards) come first; then seats place their top tiles."""

    def __init__(self, game: KoPlusGame, _blank: bool = False) -> None:
        super().__init__(game)
        if _blank:
            return
        self.geo = game.geometry
        n = game.num_players
        self.num_players = n
        self.owner = np.full(NUM_CELLS, -1, dtype=np.int8)
        self.tile_at = np.full(NUM_CELLS, -1, dtype=np.int16)
        self.empty = self.geo.on_board.copy()
        self.near = np.zeros(NUM_CELLS, dtype=bool)
        """Cells orthogonally adjacent to a placed tile."""
        self.tiles: list[tuple[int, int, int]] = []
        """Placed tiles in order: (seat, shape, action)."""
        self.points = [0] * n
        """Running score from placements."""
        self.placed = [0] * n
        self.bonus_left = list(BONUS_TURNS[n])
        self.bonus_turn = False
        """The player to move is taking a bonus turn."""
        self.skipped: list[int] = []
        """Seats passed over (no legal placement) since the last placement."""
        self.final: list[FinalScore] | None = None
        self._legal: list[np.ndarray | None] = [None, None]
        self._static: np.ndarray | None = None
        self.pending_section: int | None = None
        """Random boards: the section drawn for the next position, waiting for its rotation."""
        if game.options["board_mode"] == "standard":
            self.layout: list[tuple[int, int]] = list(game.standard_layout)
            self.aliens = game.standard_aliens
            self.points_of: tuple[np.ndarray, np.ndarray] | None = game.standard_points
            self.player = 0
            self._start()
        else:
            self.layout = []
            self.aliens = np.zeros(NUM_CELLS, dtype=np.int8)
            self.points_of = None
            self.player = CHANCE

    # ---- queries ------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.player

    def top_tile(self, seat: int) -> int | None:
        """Shape (``KO`` or ``PLUS``) on top of a seat's stack, or None once the stack is empty."""
        i = self.placed[seat]
        return STACKS[seat % 2][i] if i < TILES_PER_PLAYER else None

    def tiles_left(self, seat: int) -> int:
        return TILES_PER_PLAYER - self.placed[seat]

    def board_complete(self) -> bool:
        return self.points_of is not None

    def shape_legal(self, shape: int) -> np.ndarray:
        """bool[P] over ``geo.actions[shape]``: which placements of ``shape`` are legal now."""
        cached = self._legal[shape]
        if cached is not None:
            return cached
        assert self.points_of is not None
        # one code per cell (bit 0: covered, bit 1: next to a tile), OR-ed over the five cells of each placement
        code = (~self.empty).view(np.uint8) | (self.near.view(np.uint8) << 1)
        c0, c1, c2, c3, c4 = code[self.geo.cells_t[shape]]
        any_code = c0 | c1 | c2 | c3 | c4
        ok = self.points_of[shape] <= MAX_TILE_POINTS
        if self.tiles:
            ok &= any_code == 2  # all five cells empty, at least one next to a placed tile
        else:
            ok &= ((any_code & 1) == 0) & self.geo.inside[shape]
        ok.setflags(write=False)
        self._legal[shape] = ok
        return ok

    def can_place(self, seat: int) -> bool:
        shape = self.top_tile(seat)
        return shape is not None and self.board_complete() and bool(self.shape_legal(shape).any())

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if self.player >= 0:
            shape = self.top_tile(self.player)
            assert shape is not None
            mask[self.geo.actions[shape][self.shape_legal(shape)]] = True
        return mask

    def placement_cells(self, action: int, seat: int | None = None) -> tuple[int, ...]:
        """The cells the top tile of ``seat`` (default: the player to move) would cover with ``action``."""
        seat = self.player if seat is None else seat
        shape = self.top_tile(seat)
        if shape is None:
            raise ValueError(f"seat {seat} has no tile left")
        return self.geo.cells_of[shape][action]

    def placement_points(self, action: int, seat: int | None = None) -> int:
        return int(sum(int(self.aliens[c]) for c in self.placement_cells(action, seat)))

    def _free_sections(self) -> list[int]:
        used = {s for s, _ in self.layout}
        return [s for s in range(NUM_SECTIONS) if s not in used]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.player != CHANCE:
            return []
        if self.pending_section is None:
            free = self._free_sections()
            return [(s, 1.0 / len(free)) for s in free]
        return [(k, 0.25) for k in range(4)]

    def sample_chance(self, rng: np.random.Generator) -> int:
        if self.pending_section is None:
            free = self._free_sections()
            return free[int(rng.integers(len(free)))]
        return int(rng.integers(4))

    # ---- transitions --------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        if self.player == CHANCE:
            self._apply_chance(action)
        else:
            self._place(action)

    def _apply_chance(self, outcome: int) -> None:
        if self.pending_section is None:
            self.pending_section = outcome
            return
        position = len(self.layout)
        board.write_section(self.aliens, self.geo, position, self.pending_section, outcome)
        self.layout.append((self.pending_section, outcome))
        self.pending_section = None
        if len(self.layout) == self.geo.num_sections:
            self.aliens.setflags(write=False)
            self.points_of = board.placement_points(self.geo, self.aliens)
            self._start()

    def _start(self) -> None:
        """The board is complete: the first seat able to place moves (seat 0 unless it cannot)."""
        self._advance_from(0)

    def _place(self, action: int) -> None:
        seat = self.player
        shape = self.top_tile(seat)
        assert shape is not None
        cells = self.geo.cells_of[shape][action]
        index = len(self.tiles)
        gain = 0
        for cell in cells:
            gain += int(self.aliens[cell])
            self.owner[cell] = seat
            self.tile_at[cell] = index
            self.empty[cell] = False
        for cell in self.geo.border_of[shape][action]:
            self.near[cell] = True
        self.tiles.append((seat, shape, action))
        self.placed[seat] += 1
        self.points[seat] += gain
        self._legal = [None, None]
        self.skipped = []
        # Bonus turn: exact 20/40/60 after any placement, while the allowance lasts; not taken (and not
        # consumed) when the next tile has no legal placement (PROPOSED details).
        if self.points[seat] in BONUS_SCORES and self.bonus_left[seat] > 0 and self.can_place(seat):
            self.bonus_left[seat] -= 1
            self.bonus_turn = True
            return
        self._advance_from((seat + 1) % self.num_players)

    def _advance_from(self, start: int) -> None:
        """Give the turn to the first seat from ``start`` on (clockwise) that can place; else the game ends."""
        self.bonus_turn = False
        for k in range(self.num_players):
            seat = (start + k) % self.num_players
            if self.can_place(seat):
                self.player = seat
                return
            self.skipped.append(seat)
        self._end()

    def _end(self) -> None:
        """Nobody can place: the game is over, with the final group scoring."""
        self.player = TERMINAL
        groups = tile_groups(self.tiles, self.tile_at, self.geo.border_of, self.num_players)
        self.final = final_scores([[len(g) for g in seat_groups] for seat_groups in groups])

    # ---- results ------------------------------------------------------------------------------
    def totals(self) -> list[int]:
        """Score of every seat: placement points, plus the final scoring once the game is over."""
        if self.final is None:
            return list(self.points)
        return [p + f.total for p, f in zip(self.points, self.final, strict=True)]

    def returns(self) -> np.ndarray:
        if self.player != TERMINAL:
            return np.zeros(self.num_players, dtype=np.float64)
        totals = self.totals()
        return rank_returns([(totals[s], self.tiles_left(s)) for s in range(self.num_players)])

    def scores(self) -> np.ndarray:
        return np.array(self.totals(), dtype=np.float64)

    # ---- observation --------------------------------------------------------------------------
    def _observation(self, seat: int) -> np.ndarray:
        n = self.num_players
        # planes filled as contiguous (C, cells) rows and returned as an (H, W, C) view
        planes = self._static_planes().copy()
        planes[OBS_EMPTY] = self.empty
        order = [(seat + k) % n for k in range(n)]
        planes[OBS_TILES : OBS_TILES + n] = self.owner == np.array(order)[:, None]
        # per-seat facts are the same on every cell: one broadcast row each
        row = np.zeros(NUM_PLANES, dtype=np.float32)
        totals = self.totals()
        for k, s in enumerate(order):
            top = self.top_tile(s)
            if top is not None:
                row[(OBS_TOP_KO if top == KO else OBS_TOP_PLUS) + k] = 1.0
            row[OBS_TILES_LEFT + k] = self.tiles_left(s) / TILES_PER_PLAYER
            row[OBS_BONUS_LEFT + k] = self.bonus_left[s] / MAX_BONUS_TURNS
            row[OBS_SCORE + k] = (totals[s] + SCORE_OFFSET) / SCORE_RANGE
            row[OBS_TO_MOVE + k] = self.player == s
            row[OBS_SEATED + k] = 1.0
        planes[OBS_TOP_KO:] = row[OBS_TOP_KO:, None]
        return planes.reshape(NUM_PLANES, GRID, GRID).transpose(1, 2, 0)

    def _static_planes(self) -> np.ndarray:
        """Planes that only depend on the board (aliens, on-board, interior), cached once the board is complete."""
        if self._static is not None:
            return self._static
        planes = np.zeros((NUM_PLANES, NUM_CELLS), dtype=np.float32)
        planes[OBS_ALIENS] = self.aliens
        planes[OBS_ALIENS] /= 5.0
        planes[OBS_ON_BOARD] = self.geo.on_board
        planes[OBS_INTERIOR] = self.geo.interior
        if self.points_of is not None:
            planes.setflags(write=False)
            self._static = planes
        return planes

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
        self.aliens = aliens.reshape(-1)
        self.aliens.setflags(write=False)
        self.points_of = board.placement_points(self.geo, self.aliens)
        self._legal = [None, None]
        self._static = None

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

    def clone(self) -> KoPlusState:
        other = KoPlusState(self.game, _blank=True)  # type: ignore[arg-type]
        other.history = list(self.history)
        other.geo = self.geo
        other.num_players = self.num_players
        other.owner = self.owner.copy()
        other.tile_at = self.tile_at.copy()
        other.empty = self.empty.copy()
        other.near = self.near.copy()
        other.tiles = list(self.tiles)
        other.points = list(self.points)
        other.placed = list(self.placed)
        other.bonus_left = list(self.bonus_left)
        other.bonus_turn = self.bonus_turn
        other.skipped = list(self.skipped)
        other.final = self.final
        other._legal = list(self._legal)  # cached arrays are read-only
        other._static = self._static
        other.pending_section = self.pending_section
        other.layout = list(self.layout)
        other.aliens = self.aliens if self.points_of is not None else self.aliens.copy()
        other.points_of = self.points_of
        other.player = self.player
        return other
