"""Amoriax rules engine: ``AmoriaxGame`` and ``AmoriaxState`` (see the package docstring for the card).

The rules are the compiled kernels of ``kernel.py`` (also batched: ``gameshelf.vector.make("amoriax-v0",
num_envs=N)``); ``AmoriaxState`` is a view over one kernel state row and keeps here only what is not a rule
step: text, move names, the position export and builder, the occurrence counts of the positions seen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gameshelf.envs.amoriax import kernel as K
from gameshelf.envs.amoriax.actions import NUM_ACTIONS, PASS, kind_name, square_name
from gameshelf.envs.amoriax.board import (
    BLACK,
    CENTRE,
    COLOUR_NAMES,
    EMPTY,
    KIND_SLIDE,
    NUM_KINDS,
    NUM_SQUARES,
    RED,
    SIZE,
    STONE_LETTERS,
    WHITE,
    Geometry,
    geometry,
    start_board,
)
from gameshelf.envs.amoriax.observation import LAYOUT
from gameshelf.envs.core.game import TERMINAL, GameFacts, Option, int_option
from gameshelf.envs.core.kernel import KernelGame, KernelState
from gameshelf.envs.core.position import PositionReader, position_builder, show

NUM_PLANES = LAYOUT.size
"""Observation planes (pieces in ``observation.py``, table in the package docstring)."""

END_REASONS = {
    "crown": "reached the crown",
    "repetition": "threefold repetition",
    "max_plies": "move limit",
    "passes": "two consecutive passes",
}


class AmoriaxGame(KernelGame):
    """Amoriax for 2 players: race one of your own stones onto the crown square."""

    kernel = K
    """The compiled rules (``kernel.py``): the state is a view over its row, ``gameshelf.vector`` batches it."""

    name = "amoriax"
    OPTIONS = {
        "num_players": Option(2, choices=(2,), doc="Amoriax is for exactly 2 players"),
        "inner_size": Option(3, choices=(3, 5), doc="side of the marked inner area around the crown"),
        "start": Option("corners", choices=("corners", "sides"), doc="start layout of the 24 stones"),
        "red_lock": Option("ply", choices=("ply", "own_turns"), doc="what 'Red cannot be moved two times in a row' means"),
        "max_plies": int_option(300, 1, K.MAX_ROW_PLIES, doc="plies after which the game is a draw (the row counts to 32767)"),
    }
    LAYOUT = LAYOUT

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.geometry: Geometry = geometry(self.options["inner_size"])
        self.start_cells: bytes = start_board(self.options["start"])
        self.max_plies: int = int(self.options["max_plies"])
        self.lock_per_ply: bool = self.options["red_lock"] == "ply"
        options = self.options
        self.initial = K.initial_state(options["inner_size"], options["start"], options["red_lock"], self.max_plies)

    def _facts(self) -> GameFacts:
        return GameFacts(
            num_actions=NUM_ACTIONS, max_game_length=int(self.options["max_plies"]), has_chance=False, has_hidden_info=False
        )

    def new_initial_state(self) -> AmoriaxState:
        return AmoriaxState(self)

    def state_from_board(self, board: str | Sequence[str], to_move: int = 0, red_frozen: bool = False) -> AmoriaxState:
        """A position set up from an ASCII board (for tests, puzzles and analysis).

        ``board``: 9 rows of 9 cells (``W`` White, ``B`` Black, ``R`` Red; ``.``, ``:``, ``+`` empty),
        given as a list of strings or one text; spaces, a ``c012345678`` header and ``rN`` row labels (the
        ``to_text`` layout) are ignored. Any number of stones is accepted, on the crown too: a win is a move
        that ends on the crown, and a stone set up there has made none (``state_from_position`` reads the
        crown the same way). ``red_frozen``: the side to move
        may not move Red on this move. The position is the first of its history (it counts once for
        repetition), so it cannot be rebuilt by replaying ``history`` from the start position.
        """
        if type(to_move) is not int or to_move not in (0, 1):
            raise ValueError(f"to_move={show(to_move)}; use 0 (White) or 1 (Black)")
        return AmoriaxState(self, self._cells(board), to_move, (1 << to_move) if red_frozen else 0)

    def _cells(self, board: Any) -> bytes:
        """The cells of an ASCII board (``state_from_board`` says how it is written)."""
        if not isinstance(board, (str, list, tuple)):
            raise ValueError(f"a board is {SIZE} strings of {SIZE} cells, got {show(board)}")
        lines = board.splitlines() if isinstance(board, str) else list(board)
        if not all(isinstance(line, str) for line in lines):
            raise ValueError(f"a board is {SIZE} strings of {SIZE} cells, got {show(board)}")
        rows = []
        for line in lines:
            text = line.strip()
            if not text or text.startswith("c"):
                continue
            if text[0] == "r" and len(text) > 1 and text[1].isdigit():
                text = text[2:]
            rows.append(text.replace(" ", ""))
        if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
            raise ValueError(f"a board is {SIZE} rows of {SIZE} cells, got {show([len(r) for r in rows])}")
        cells = bytearray(NUM_SQUARES)
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch in ".:+":
                    continue
                if ch not in "WBR":
                    raise ValueError(f"unknown cell {ch!r} at ({r},{c}); use W, B, R or . : +")
                cells[r * SIZE + c] = STONE_LETTERS.index(ch)
        return bytes(cells)

    @position_builder
    def state_from_position(self, position: Mapping[str, Any]) -> AmoriaxState:
        """A position from plain data (``state.position()`` gives one; keys in the card), validated.

        Besides the type of every value, the rules are checked: a win is a move onto the crown, so the game
        is won (end ``crown``) exactly when ``last_move`` put the last mover's stone there (a stone set up on
        the crown, as ``state_from_board`` allows, has won nothing); the Red lock is one the rules can leave (under
        ``red_lock="ply"`` only the side to move can be frozen, and only after a Red move); ``last_move``
        moved the stone it names; ``end`` is the first end test that holds (win, two passes, third
        occurrence, ``max_plies``) and a game that goes on meets none of them; ``seen`` counts the current
        position, every entry at least once and below three (the third occurrence ends the game), no
        more positions than plies played plus the start, each with the stones of the board.
        """
        read = PositionReader(position, self.name)
        board = read.get("board")
        if not isinstance(board, (list, str)):
            raise read.fail("board", "must be 9 strings of 9 cells (W, B, R, or . for empty)")
        to_move = read.integer("to_move", 0, 1)
        try:
            state = AmoriaxState(self, self._cells(board), to_move, 0)
        except ValueError as err:
            raise read.fail("board", str(err)) from None
        state.lock = read.integer("red_lock", 0, 3)
        state.ply = read.integer("ply", 0, self.max_plies)
        state.passes = read.integer("passes", 0, 2)
        state.winner = read.integer("winner", -1, 1)
        state.end = read.choice("end", ("", *END_REASONS))
        last = read.get("last_move")
        if last is not None:
            state.last_move = tuple(read.check_int_list("last_move", last, 0, NUM_SQUARES - 1, 2))  # type: ignore[assignment]
        seen = read.get("seen")
        if not isinstance(seen, list):
            raise read.fail("seen", "must be a list of [board, to_move, red_lock, count]")
        counts: dict[bytes, int] = {}
        stones = sorted(state.board)
        for entry in seen:
            if not (isinstance(entry, list) and len(entry) == 4 and _is_count(entry[1:])):
                raise read.fail("seen", f"entries are [board, to_move, red_lock, count], got {entry!r}")
            try:
                cells = self._cells(entry[0])
            except ValueError as err:
                raise read.fail("seen", str(err)) from None
            if sorted(cells) != stones:
                raise read.fail("seen", "holds a board with other stones than the current one (no stone ever leaves the board)")
            if not self._lock_possible(entry[1], entry[2]):
                raise read.fail("seen", f"holds a Red lock {entry[2]} that the rules never leave with seat {entry[1]} to move")
            if entry[3] < 1:
                raise read.fail("seen", f"counts a position {entry[3]} times: list only positions that occurred")
            key = bytes(cells) + bytes((entry[1], entry[2]))
            if key in counts:
                raise read.fail("seen", "lists a position twice")
            counts[key] = entry[3]
        read.done()
        state.s[K.BASE] = state.ply  # the log starts here; the positions seen so far are preloaded
        state.s[K.BASE_LOCK] = state.lock
        state.S = K.with_preloaded(state.s, [(key[:-2], key[-2], key[-1], n) for key, n in counts.items()]).reshape(1, -1)
        state.s = state.S[0]
        state.s[K.REPS] = counts.get(state.position_key(), 1)
        self._check_position(state, read)
        return state

    def _lock_possible(self, to_move: int, lock: int) -> bool:
        """Whether the rules can leave this Red lock with ``to_move`` to move (``red_lock="ply"``: only the side to
        move is ever frozen; ``"own_turns"``: any seat may be locked)."""
        return not self.lock_per_ply or lock in (0, 1 << to_move)

    def _check_position(self, state: AmoriaxState, read: PositionReader) -> None:
        """Refuse a built position that the rules cannot reach (see ``state_from_position``)."""
        mover = 1 - state.player  # the seat that played the last ply
        crown = state.board[CENTRE]
        if not self._lock_possible(state.player, state.lock):
            raise read.fail("red_lock", f"{state.lock}: only the side to move can be frozen (red_lock='ply')")
        if state.last_move is not None:
            src, dest = state.last_move
            stone = state.board[dest]
            if state.board[src] != EMPTY or stone not in (mover + 1, RED):
                raise read.fail("last_move", f"must take a stone of seat {mover} or Red from an empty square to its square")
            if (stone == RED) != bool(state.lock >> state.player & 1 if self.lock_per_ply else state.lock >> mover & 1):
                raise read.fail("red_lock", "must be set exactly when the last move moved Red")
            if state.passes:
                raise read.fail("last_move", "is null after a pass")
        elif state.passes and state.lock >> (state.player if self.lock_per_ply else mover) & 1:
            raise read.fail("red_lock", "a pass moves no Red: it lifts the lock")
        count = state.counts.get(state.position_key(), 0)
        if count < 1:
            raise read.fail("seen", "must count the current position at least once")
        if any(n >= 3 for key, n in state.counts.items() if key != state.position_key()):
            raise read.fail("seen", "counts an earlier position 3 times: its third occurrence ended the game")
        if sum(state.counts.values()) > state.ply + 1:
            raise read.fail("seen", f"counts more positions than the start and {state.ply} plies can give")
        if state.end == "crown":
            if state.winner != mover or crown != mover + 1:
                raise read.fail("winner", f"a win on the crown is seat {mover}'s, the last mover, whose stone is on (4,4)")
            if state.last_move is None or state.last_move[1] != CENTRE:
                raise read.fail("last_move", "a win on the crown ends with the winner's move onto (4,4)")
            return
        if state.winner != -1:
            raise read.fail("winner", "is a seat exactly when the game ended on the crown")
        if crown in (WHITE, BLACK) and state.last_move is not None and state.last_move[1] == CENTRE:
            raise read.fail("board", "a stone of a player moved onto the crown has won: the game is over with end 'crown'")
        if state.end == "passes":
            if state.passes != 2:
                raise read.fail("passes", "must be 2 when the game ended by two passes")
            return
        if state.passes > 1:
            raise read.fail("passes", "two consecutive passes end the game (end 'passes')")
        if state.end == "repetition":
            if count < 3:
                raise read.fail("seen", "must count the current position 3 times when the game ended by repetition")
            return
        if count >= 3:
            raise read.fail("end", "the third occurrence of a position ends the game: end must be 'repetition'")
        if (state.end == "max_plies") != (state.ply >= self.max_plies):
            raise read.fail("end", f"is 'max_plies' exactly when ply reaches {self.max_plies}")


def _is_count(values: list[Any]) -> bool:
    ints = all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values)
    return ints and values[0] < 2 and values[1] < 4 and values[2] <= 3


class AmoriaxState(KernelState):
    """An Amoriax position: a view over one kernel state row (``kernel.py``), which the rules act on.

    The fields below read and assign the row; the rule steps (mask, legality, apply, returns, observation,
    playouts) are the kernels'. What is kept here is what is not a rule step: text, move names, the position
    export and the occurrence counts of the positions seen (rebuilt from the row's log when asked for).
    """

    game: AmoriaxGame

    board = K.ROW.field("board")
    player = K.ROW.field("player")
    lock = K.ROW.field("lock")
    ply = K.ROW.field("ply")
    passes = K.ROW.field("passes")
    winner = K.ROW.field("winner")

    def __init__(self, game: AmoriaxGame, cells: bytes | None = None, to_move: int = 0, lock: int = 0) -> None:
        super().__init__(game)
        if cells is not None:
            self.s[K.BOARD : K.BOARD + NUM_SQUARES] = list(cells)
        self.s[K.PLAYER] = to_move
        self.s[K.LOCK] = self.s[K.BASE_LOCK] = lock
        if cells is not None or to_move or lock:
            self.s[K.BASE_HASH] = K.hash_of(self.cells(), to_move, lock)

    @property
    def end(self) -> str:
        """Why the game ended: ``""`` (not over) or a key of ``END_REASONS``."""
        return K.END_NAMES[self.s[K.END]]

    @end.setter
    def end(self, reason: str) -> None:
        self.s[K.END] = K.END_NAMES.index(reason)

    @property
    def last_move(self) -> tuple[int, int] | None:
        """``(from, to)`` squares of the last stone move (None at the start and after a pass)."""
        src = int(self.s[K.LAST_FROM])
        return None if src < 0 else (src, int(self.s[K.LAST_TO]))

    @last_move.setter
    def last_move(self, move: tuple[int, int] | None) -> None:
        self.s[K.LAST_FROM], self.s[K.LAST_TO] = (-1, -1) if move is None else move

    # ---- queries ------------------------------------------------------------------------------
    def cells(self) -> bytes:
        """The 81 cells as bytes."""
        return bytes(self.s[K.BOARD : K.BOARD + NUM_SQUARES].tolist())

    def position_key(self) -> bytes:
        """The position compared for repetition: every cell, the side to move and the Red lock."""
        return self.cells() + bytes((self.player, self.lock))

    def current_player(self) -> int:
        s = self.s  # the kernel's current_player, read here without a compiled call (the hottest query)
        return TERMINAL if s[K.END] else int(s[K.PLAYER])

    def red_frozen(self) -> bool:
        """Whether the side to move may not move Red now."""
        return bool(self.lock >> self.player & 1)

    def legal_actions(self) -> list[int]:
        if self.s[K.END]:
            return []
        return np.flatnonzero(self.legal_action_mask()).tolist()  # type: ignore[no-any-return]

    def destination(self, action: int) -> int:
        """Square a stone would land on with ``action`` here (-1 for a pass or a move that cannot be made)."""
        return int(K.destination(self.S, 0, action))

    def crown_moves(self, seat: int) -> list[int]:
        """The actions that would put one of ``seat``'s stones on the crown if ``seat`` were to move now.

        Only a slide can end on the crown: the crown is empty, the stone is the first one on a line out of
        the crown, and the square on the other side of the crown is occupied (it stops the slide).
        """
        board = self.s
        if board[K.BOARD + CENTRE] != EMPTY:
            return []
        rays = self.game.geometry.rays[CENTRE]
        out = []
        for d, ray in enumerate(rays):
            stopper = rays[d ^ 1][0]  # the neighbour of C on the opposite side (up<->down, left<->right)
            if board[K.BOARD + stopper] == EMPTY:
                continue
            for sq in ray:
                if board[K.BOARD + sq] != EMPTY:
                    if board[K.BOARD + sq] == seat + 1:
                        out.append(sq * NUM_KINDS + KIND_SLIDE + (d ^ 1))
                    break
        return sorted(out)

    def repetitions(self) -> int:
        """How often the current position has occurred (1 the first time)."""
        return int(self.s[K.REPS])

    @property
    def counts(self) -> dict[bytes, int]:
        """How often each position (``position_key``) has occurred, in the order of first occurrence."""
        s = self.s
        counts: dict[bytes, int] = {}
        for e in range(int(s[K.PRE_N])):
            at = K.HEAD + K.PRE_W * e
            entry = s[at : at + K.PRE_W].tolist()
            counts[bytes(entry[:NUM_SQUARES]) + bytes(entry[NUM_SQUARES : NUM_SQUARES + 2])] = entry[-1]
        base, ply = int(s[K.BASE]), int(s[K.PLY])
        log_at = K.HEAD + K.PRE_W * int(s[K.PRE_N])
        entries = s[log_at : log_at + K.LOG_W * (ply - base) : K.LOG_W].tolist()
        cells = bytearray(self.cells())
        player, per_ply = int(s[K.PLAYER]), bool(s[K.PER_PLY])
        keys = [bytes(cells) + bytes((player, int(s[K.LOCK])))]  # the positions after plies ply, ply - 1, ..., base
        for k in range(ply - 1, base - 1, -1):  # undo ply k + 1
            mover = 1 - player
            code, after = entries[k - base] >> 2, entries[k - base] & 3
            if code != K.PASS_CODE:
                src, dest = divmod(code, NUM_SQUARES)
                red = after != 0 if per_ply else bool(after >> mover & 1)
                cells[src], cells[dest] = RED if red else mover + 1, EMPTY
            player = mover
            lock = int(s[K.BASE_LOCK]) if k == base else entries[k - base - 1] & 3
            keys.append(bytes(cells) + bytes((player, lock)))
        keys.reverse()
        if s[K.BASE_COUNTED]:
            keys = keys[1:]
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
        return counts

    def position(self) -> dict[str, Any]:
        def rows(cells: bytes) -> list[str]:
            return ["".join(STONE_LETTERS[v] for v in cells[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)]

        return {
            "board": rows(self.cells()),
            "to_move": self.player,
            "red_lock": self.lock,
            "ply": self.ply,
            "passes": self.passes,
            "winner": self.winner,
            "end": self.end,
            "last_move": None if self.last_move is None else list(self.last_move),
            "seen": [[rows(key[:-2]), key[-2], key[-1], n] for key, n in self.counts.items()],
        }

    # ---- observation and text -----------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action == PASS:
            return "pass"
        if not 0 <= action < PASS:
            return f"action {action} (out of range)"
        src, kind = divmod(action, NUM_KINDS)
        stone = int(self.s[K.BOARD + src])
        letter = STONE_LETTERS[stone] if stone != EMPTY else "-"
        dest = self.destination(action)
        target = square_name(dest) if dest >= 0 else "(no move)"
        return f"{letter} {square_name(src)} {kind_name(kind)} -> {target}"

    def to_text(self) -> str:
        inner = self.game.geometry.inner
        cells = self.cells()
        lines = ["   c012345678"]
        for r in range(SIZE):
            row = []
            for c in range(SIZE):
                sq = r * SIZE + c
                v = cells[sq]
                if v != EMPTY:
                    row.append(STONE_LETTERS[v])
                else:
                    row.append("+" if sq == CENTRE else ":" if inner[sq] else ".")
            lines.append(f"r{r}  " + "".join(row))
        if self.end:
            if self.winner >= 0:
                lines.append(f"result: {COLOUR_NAMES[self.winner]} wins ({END_REASONS[self.end]})")
            else:
                lines.append(f"result: draw ({END_REASONS[self.end]})")
        else:
            lines.append(f"to move: {COLOUR_NAMES[self.player]} (player_{self.player})")
        if self.game.lock_per_ply:
            lines.append("red: frozen" if self.lock else "red: free")
        else:
            locked = [COLOUR_NAMES[s] for s in range(2) if self.lock >> s & 1]
            lines.append(f"red: locked for {' and '.join(locked)}" if locked else "red: free")
        lines.append(f"ply: {self.ply}/{self.game.max_plies}")
        return "\n".join(lines)


__all__ = ["BLACK", "NUM_PLANES", "PASS", "RED", "WHITE", "AmoriaxGame", "AmoriaxState"]
