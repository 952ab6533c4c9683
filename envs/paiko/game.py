"""Paikō rules engine: ``PaikoGame`` and ``PaikoState`` (the package docstring is the card).

The rules are compiled kernels (``kernel.py``) over one ``int16`` state row; ``PaikoState`` is a view over
that row and keeps in Python only what is not a rule step: whose turn it is, text, move names, and the
readings (threat, cover, capturable tiles, deploy and shift squares) that tests, the position builder and the
heuristic agent ask for, each answered by the kernels.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.core.game import TERMINAL, GameFacts, Option, int_option
from gameshelf.envs.core.kernel import KernelGame, KernelState
from gameshelf.envs.paiko import kernel as K
from gameshelf.envs.paiko import kernel_v1
from gameshelf.envs.paiko.actions import (
    DEPLOY,
    DEPLOY_SQUARE,
    DRAFT,
    FACE,
    GIFT,
    GIVE,
    MOVE_DEST,
    NUM_ACTIONS,
    OVER,
    PASS,
    PHASE_NAMES,
    PHASE_TEXT,
    SAI_SHIFT,
    SQUARE,
    START,
    STAY,
    STOP,
    TAKE,
    square_name,
)
from gameshelf.envs.paiko.board import (
    COPIES,
    FACING_ARROWS,
    FACING_NAMES,
    INDEX,
    IS_BLACK,
    NUM_SQUARES,
    NUM_TYPES,
    PLAYER_NAMES,
    SQUARES,
    TYPE_LETTERS,
    TYPE_NAMES,
    ZONE,
    code_facing,
    code_owner,
    code_type,
)
from gameshelf.envs.paiko.kernel import DRAFT_SCHEDULE, DRAW_LOST, DRAW_POINTS, END_CODES, MAX_REPEAT, WIN_POINTS
from gameshelf.envs.paiko.observation import LAYOUT, LAYOUT_V1

END_REASONS = {
    "points": "reached 10 points",
    "exhaustion": "both players lost 13+ tiles with 5 points or fewer",
    "passes": "both players passed in a row",
    "max_turns": "turn limit",
}


class PaikoGame(KernelGame):
    """Paikō for 2 players: deploy and shift tiles, capture by threat, score 10 points."""

    name = "paiko"
    kernel = K
    """The compiled rules (``kernel.py``): the state is a view over its row, ``gameshelf.vector`` batches it."""
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(2, choices=(2,), doc="Paikō is a two-player game"),
        "max_turns": int_option(300, 1, K.MAX_TURN, doc="complete turns (both players together) after which the game is a draw"),
    }
    LAYOUT = LAYOUT

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.max_turns: int = int(self.options["max_turns"])
        self.initial = K.initial_state(self.max_turns)

    def _facts(self) -> GameFacts:
        turns = int(self.options["max_turns"])
        return GameFacts(
            num_actions=NUM_ACTIONS,
            # draft 17 picks; a turn is at most 5 decisions (deploy a Sai, then shift it); one gift per capture
            max_game_length=17 + 5 * turns + 2 * NUM_TYPES * COPIES,
            has_chance=False,
            has_hidden_info=False,
        )

    def new_initial_state(self) -> PaikoState:
        return PaikoState(self)


class PaikoGameV1(PaikoGame):
    """``paiko-v1``: the same rules and states, the compact observation ``LAYOUT_V1`` (``kernel_v1.py``)."""

    kernel = kernel_v1
    LAYOUT = LAYOUT_V1


class PaikoState(KernelState):
    """A Paikō position with the sub-decision in progress: a view over one kernel state row (``kernel.py``).

    The fields read and write the row like plain ints and lists (the position builder and the tests set up
    positions through them): ``board[s]`` (tile code or ``EMPTY``), ``thr[p][s]`` (T_p(s)), ``cov[p][s]`` (how
    many of p's tiles cover s), ``reserve[p][t]``, ``hand[p][t]``, ``score[p]``, ``lost[p]``, ``rep_sq[p]`` /
    ``rep_count[p]`` (the tile p moved on his last turn, -1 if none, and on how many consecutive own turns),
    ``phase``, ``mover`` (whose turn it is: the captured owner decides gifts during the mover's turn), ``draft_step``,
    ``draft_left``, ``picks``, ``sel_type``, ``sel_sq``, ``sel_dest``, ``gifts`` (gifts still owed), ``turn``,
    ``passes``, ``winner``, ``end`` (a key of ``END_REASONS``, ``""`` while the game goes on).
    """

    game: PaikoGame

    # ---- fields (views of the state row) -----------------------------------------------------------
    board = K.ROW.field("board")
    thr = K.ROW.field("thr")
    cov = K.ROW.field("cov")
    reserve = K.ROW.field("reserve")
    hand = K.ROW.field("hand")
    score = K.ROW.field("score")
    lost = K.ROW.field("lost")
    rep_sq = K.ROW.field("rep_sq")
    rep_count = K.ROW.field("rep_count")
    phase = K.ROW.field("phase")
    mover = K.ROW.field("mover")
    draft_step = K.ROW.field("draft_step")
    draft_left = K.ROW.field("draft_left")
    picks = K.ROW.field("picks")
    sel_type = K.ROW.field("sel_type")
    sel_sq = K.ROW.field("sel_sq")
    sel_dest = K.ROW.field("sel_dest")
    gifts = K.ROW.field("gifts")
    passes = K.ROW.field("passes")
    winner = K.ROW.field("winner")

    @property
    def turn(self) -> int:
        """Complete turns played (draft not counted)."""
        return int(self.s[K.TURN]) + K.WORD * int(self.s[K.TURN_HI])

    @turn.setter
    def turn(self, value: int) -> None:
        K.ROW.put(self.s, "turn_hi", value // K.WORD)  # refused (nothing written) beyond the counter
        K.ROW.put(self.s, "turn_lo", value % K.WORD)

    @property
    def end(self) -> str:
        """Why the game ended (a key of ``END_REASONS``), ``""`` while it goes on."""
        return END_CODES[int(self.s[K.END])]

    @end.setter
    def end(self, reason: str) -> None:
        self.s[K.END] = END_CODES.index(reason)

    @property
    def last_captured(self) -> list[tuple[int, int]]:
        """``(square, tile code)`` of the tiles captured on the last turn that captured, in the order removed."""
        s = self.s
        return [(int(s[K.CAPT + 2 * k]), int(s[K.CAPT + 2 * k + 1])) for k in range(int(s[K.NCAPT]))]

    @property
    def tiles(self) -> list[set[int]]:
        """Squares holding each player's tiles (a fresh copy)."""
        out: list[set[int]] = [set(), set()]
        for sq, code in enumerate(self.board.tolist()):
            if code >= 0:
                out[code_owner(code)].add(sq)
        return out

    # ---- board bookkeeping (the kernels' place and lift) ------------------------------------------
    def _place(self, sq: int, code: int) -> None:
        K.place_tile(self.S, 0, sq, code)

    def _lift(self, sq: int) -> int:
        return int(K.lift_tile(self.S, 0, sq))

    # ---- threat, cover, capture (the spec's formulas, read through the kernels) ----------------------
    def threat(self, player: int, sq: int) -> int:
        """T_player(sq): player's non-Fire threats plus every Fire's threat (either owner) on sq."""
        return int(self.s[K.THR + NUM_SQUARES * player + sq])

    def covered(self, player: int, sq: int) -> int:
        """C_player(sq): 1 if sq is in player's homeground or covered by one of player's tiles, else 0."""
        return int(K.covered(self.S, 0, player, sq))

    def capturable(self, sq: int) -> bool:
        """Whether the tile on sq is capturable: T_opp - C_owner >= 2."""
        return bool(K.is_capturable(self.S, 0, sq))

    def capturable_tiles(self, player: int) -> list[int]:
        """Squares of ``player``'s tiles that are capturable now."""
        return [sq for sq in sorted(self.tiles[player]) if K.is_capturable(self.S, 0, sq)]

    def deploy_squares(self, player: int, kind: int) -> list[int]:
        """Empty squares where ``player`` may put a ``kind`` tile by the deploy rule (self-capture not checked)."""
        return [sq for sq in range(NUM_SQUARES) if K.may_deploy(self.S, 0, player, kind, sq)]

    def shift_squares(self, sq: int) -> list[int]:
        """Squares the tile on ``sq`` can reach by a shift (0 to range steps through safe empty squares).

        Safety of an entered square n: T_opp(n) + [mover is Fire] - C_own(n) < 2, computed without the
        mover on its origin. The origin itself (0 steps) is included.
        """
        out = np.zeros((1, NUM_SQUARES), dtype=np.uint8)
        K.shift_squares(self.S, 0, sq, out)
        return np.flatnonzero(out[0]).tolist()

    # ---- whose turn, legal actions --------------------------------------------------------------------
    def current_player(self) -> int:
        s = self.s  # the kernel's current_player, read here without a compiled call (the hottest query)
        phase = s[K.PHASE]
        if phase == OVER:
            return TERMINAL
        if phase == GIFT:
            return 1 - int(s[K.MOVER])
        return int(s[K.MOVER])

    def legal_actions(self) -> list[int]:
        """The legal actions in increasing order, except after a Sai deploy: ``Sai stays`` first."""
        if self.s[K.PHASE] == OVER:
            return []
        legal: list[int] = np.flatnonzero(self.legal_action_mask()).tolist()
        if self.s[K.PHASE] == SAI_SHIFT and legal and legal[-1] == STAY:
            legal.insert(0, legal.pop())
        return legal

    # ---- results (returns, observation, playout and copies: KernelState's) -----------------------------
    def scores(self) -> np.ndarray:
        return np.asarray(self.score.tolist(), dtype=np.float64)

    # ---- text -------------------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            return f"action {action} (out of range)"
        if action == PASS:
            return "pass"
        if action == STOP:
            return "stop drawing"
        if action == STAY:
            return "Sai stays"
        if action < STOP:
            return f"{'draft' if self.phase == DRAFT else 'draw'} {TYPE_NAMES[action - TAKE]}"
        if action < GIVE:
            return f"deploy {TYPE_NAMES[action - DEPLOY]}"
        if action < SQUARE:
            return f"give {TYPE_NAMES[action - GIVE]}"
        if action < FACE:
            sq = action - SQUARE
            if self.phase == DEPLOY_SQUARE:
                return f"{TYPE_NAMES[self.sel_type]} at {square_name(sq)}"
            if self.phase in (SAI_SHIFT, MOVE_DEST) and self.sel_sq >= 0 and self.board[self.sel_sq] >= 0:
                return f"{TYPE_NAMES[code_type(self.board[self.sel_sq])]} to {square_name(sq)}"
            code = self.board[sq]
            if code >= 0:
                return f"move {TYPE_NAMES[code_type(code)]} {square_name(sq)}"
            return f"square {square_name(sq)}"
        return f"face {FACING_NAMES[action - FACE]}"

    def _cell(self, sq: int) -> str:
        code = self.board[sq]
        if code >= 0:
            letter = TYPE_LETTERS[code_type(code)]
            if code_owner(code) == 1:
                letter = letter.lower()
            return letter + FACING_ARROWS[code_facing(code)]
        if IS_BLACK[sq]:
            return "##"
        return (".:", "-:", "=:")[ZONE[sq] + 1][0] + " "

    def to_text(self) -> str:
        header = "     " + "".join(f"{x:<3d}" for x in range(14))
        lines = [header.rstrip()]
        for y in range(14):
            cells = []
            for x in range(14):
                sq = INDEX.get((x, y))
                cells.append("   " if sq is None else self._cell(sq) + " ")
            lines.append(f"y{y:<2d}  " + "".join(cells).rstrip())
        lines.append("tiles: I Sai, S Sword, B Bow, L Lotus, A Air, F Fire, E Earth, W Water (White upper, Black lower)")
        lines.append("facing ^ N > E v S < W; empty: - White homeground, = Black homeground, . middleground, ## black")
        for p in range(2):
            res = " ".join(f"{TYPE_LETTERS[t]}{self.reserve[p][t]}" for t in range(NUM_TYPES))
            hand = " ".join(f"{TYPE_LETTERS[t]}{self.hand[p][t]}" for t in range(NUM_TYPES))
            rep = f", moved {square_name(self.rep_sq[p])} x{self.rep_count[p]}" if self.rep_sq[p] >= 0 else ""
            lines.append(f"{PLAYER_NAMES[p]}: score {self.score[p]}, lost {self.lost[p]}{rep} | reserve {res} | hand {hand}")
        if self.phase == OVER:
            if self.winner >= 0:
                lines.append(f"result: {PLAYER_NAMES[self.winner]} wins ({END_REASONS[self.end]}) after {self.turn} turns")
            else:
                lines.append(f"result: draw ({END_REASONS[self.end]}) after {self.turn} turns")
            return "\n".join(lines)
        who = self.current_player()
        status = (
            f"turn {self.turn + 1}/{self.game.max_turns}, {PLAYER_NAMES[self.mover]}'s turn" if self.phase != DRAFT else "draft"
        )
        lines.append(f"{status}; {PLAYER_NAMES[who]} (player_{who}) to decide: {PHASE_TEXT[self.phase]}")
        detail = []
        if self.phase == DRAFT:
            detail.append(f"{self.draft_left} more to take")
        if self.picks:
            detail.append(f"drawn {self.picks}")
        if self.sel_type >= 0:
            detail.append(f"deploying {TYPE_NAMES[self.sel_type]}")
        if self.sel_sq >= 0:
            detail.append(f"square {square_name(self.sel_sq)}")
        if self.sel_dest >= 0:
            detail.append(f"destination {square_name(self.sel_dest)}")
        if self.phase == GIFT:
            detail.append(f"{self.gifts} gift(s) owed to {PLAYER_NAMES[self.mover]}")
        if detail:
            lines.append("  " + ", ".join(detail))
        return "\n".join(lines)


__all__ = [
    "DRAFT",
    "DRAFT_SCHEDULE",
    "DRAW_LOST",
    "DRAW_POINTS",
    "END_REASONS",
    "GIFT",
    "MAX_REPEAT",
    "OVER",
    "PHASE_NAMES",
    "SQUARES",
    "START",
    "WIN_POINTS",
    "PaikoGame",
    "PaikoState",
]
