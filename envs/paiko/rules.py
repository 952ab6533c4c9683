"""Paikō rules engine: ``PaikoGame`` and ``PaikoState`` (the package docstring is the card)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gameshelf.envs.core.game import TERMINAL, Game, GameFacts, Option, State, int_at_least, rank_returns
from gameshelf.envs.paiko.actions import (
    DEPLOY,
    DEPLOY_FACING,
    DEPLOY_SQUARE,
    DRAFT,
    DRAW_MORE,
    FACE,
    GIFT,
    GIVE,
    MOVE_DEST,
    MOVE_FACING,
    NUM_ACTIONS,
    OVER,
    PASS,
    PHASE_NAMES,
    PHASE_TEXT,
    SAI_FACING,
    SAI_SHIFT,
    SQUARE,
    START,
    STAY,
    STOP,
    TAKE,
    square_name,
)
from gameshelf.envs.paiko.board import (
    BOW,
    COPIES,
    COVER,
    EARTH,
    EMPTY,
    FACING_ARROWS,
    FACING_NAMES,
    FIRE,
    HAS_COVER,
    INDEX,
    IS_BLACK,
    LOTUS,
    NEIGHBOURS,
    NUM_SQUARES,
    NUM_TYPES,
    PLAYER_NAMES,
    POINTS,
    RANGE,
    SAI,
    SQUARES,
    SWORD,
    THREAT,
    TYPE_LETTERS,
    TYPE_NAMES,
    WATER,
    ZONE,
    code_facing,
    code_owner,
    code_type,
    tile_code,
)
from gameshelf.envs.paiko.observation import LAYOUT, encode

DRAFT_SCHEDULE = ((0, 7), (1, 9), (0, 1))
_TURN_ALWAYS = frozenset({SWORD, BOW, EARTH, WATER})
"""Types whose turn in place is always legal: it changes neither their cover squares nor any threat on own tiles."""
"""The opening draft: (seat, tiles taken from the own reserve)."""
WIN_POINTS = 10
DRAW_LOST, DRAW_POINTS = 13, 5
MAX_REPEAT = 3
"""A tile moved on this many consecutive own turns may not move on the next one."""
END_REASONS = {
    "points": "reached 10 points",
    "exhaustion": "both players lost 13+ tiles with 5 points or fewer",
    "passes": "both players passed in a row",
    "max_turns": "turn limit",
}


class PaikoGame(Game):
    """Paikō for 2 players: deploy and shift tiles, capture by threat, score 10 points."""

    name = "paiko"
    OPTIONS = {
        "num_players": Option(2, choices=(2,), doc="Paikō is a two-player game"),
        "max_turns": Option(
            300,
            check=int_at_least(1),
            allowed="an int >= 1",
            doc="complete turns (both players together) after which the game is a draw",
        ),
    }
    LAYOUT = LAYOUT

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.max_turns: int = int(self.options["max_turns"])

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


class PaikoState(State):
    """A Paikō position with the sub-decision in progress."""

    game: PaikoGame

    def __init__(self, game: PaikoGame) -> None:
        super().__init__(game)
        self.board: list[int] = [EMPTY] * NUM_SQUARES
        self.reserve: list[list[int]] = [[COPIES] * NUM_TYPES, [COPIES] * NUM_TYPES]
        self.hand: list[list[int]] = [[0] * NUM_TYPES, [0] * NUM_TYPES]
        self.score = [0, 0]
        self.lost = [0, 0]
        self.thr: list[list[int]] = [[0] * NUM_SQUARES, [0] * NUM_SQUARES]
        """``thr[p][s]``: T_p(s), p's non-Fire threats plus every Fire's threat on s."""
        self.cov: list[list[int]] = [[0] * NUM_SQUARES, [0] * NUM_SQUARES]
        """``cov[p][s]``: how many of p's tiles cover s (C_p is this > 0, or s in p's homeground)."""
        self.tiles: list[set[int]] = [set(), set()]
        """Squares holding each player's tiles."""
        self.phase = DRAFT
        self.mover = 0
        """Whose turn it is (the captured owner decides gifts during the mover's turn)."""
        self.draft_step = 0
        self.draft_left = DRAFT_SCHEDULE[0][1]
        self.picks = 0
        """Tiles drawn so far this turn."""
        self.sel_type = -1
        self.sel_sq = -1
        self.sel_dest = -1
        self.gifts = 0
        """Gifts the captured owner still owes (each: a tile from the capturer's reserve to his hand): one per tile
        captured this turn, at most as many as that reserve held after the captures."""
        self.rep_sq = [-1, -1]
        """Square of the tile each player moved on his last turn (-1: his last turn moved no tile)."""
        self.rep_count = [0, 0]
        """On how many consecutive own turns that tile has been moved."""
        self.turn = 0
        """Complete turns played (draft not counted)."""
        self.passes = 0
        self.winner = -1
        self.end = ""
        self.last_captured: list[tuple[int, int]] = []
        """``(square, tile code)`` of the tiles captured on the last turn that captured."""
        self._legal: list[int] | None = None
        self._moves: dict[int, dict[int, tuple[int, ...]]] | None = None
        """Per turn: legal (destination -> facings) of each own tile looked at so far."""
        self._deploys: dict[int, Any] | None = None
        """Per turn: legal (square -> facings) per type looked at so far; keys -1/-2: Lotus / other squares."""

    # ---- board bookkeeping ------------------------------------------------------------------------
    def _place(self, sq: int, code: int) -> None:
        self.board[sq] = code
        owner, kind, facing = code >> 5, (code >> 2) & 7, code & 3
        self.tiles[owner].add(sq)
        if kind == FIRE:
            t0, t1 = self.thr
            for t in THREAT[kind][facing][sq]:
                t0[t] += 1
                t1[t] += 1
        else:
            thr = self.thr[owner]
            for t in THREAT[kind][facing][sq]:
                thr[t] += 1
        if HAS_COVER[kind]:
            cov = self.cov[owner]
            for c in COVER[kind][facing][sq]:
                cov[c] += 1

    def _lift(self, sq: int) -> int:
        code = self.board[sq]
        self.board[sq] = EMPTY
        owner, kind, facing = code >> 5, (code >> 2) & 7, code & 3
        self.tiles[owner].discard(sq)
        if kind == FIRE:
            t0, t1 = self.thr
            for t in THREAT[kind][facing][sq]:
                t0[t] -= 1
                t1[t] -= 1
        else:
            thr = self.thr[owner]
            for t in THREAT[kind][facing][sq]:
                thr[t] -= 1
        if HAS_COVER[kind]:
            cov = self.cov[owner]
            for c in COVER[kind][facing][sq]:
                cov[c] -= 1
        return code

    # ---- threat, cover, capture (the spec's formulas) ----------------------------------------------
    def threat(self, player: int, sq: int) -> int:
        """T_player(sq): player's non-Fire threats plus every Fire's threat (either owner) on sq."""
        return self.thr[player][sq]

    def covered(self, player: int, sq: int) -> int:
        """C_player(sq): 1 if sq is in player's homeground or covered by one of player's tiles, else 0."""
        return 1 if self.cov[player][sq] > 0 or ZONE[sq] == player else 0

    def capturable(self, sq: int) -> bool:
        """Whether the tile on sq is capturable: T_opp - C_owner >= 2."""
        code = self.board[sq]
        if code < 0:
            return False
        owner = code >> 5
        return self.thr[1 - owner][sq] - (1 if self.cov[owner][sq] > 0 or ZONE[sq] == owner else 0) >= 2

    def _any_capturable(self, player: int) -> bool:
        thr, cov = self.thr[1 - player], self.cov[player]
        return any(thr[sq] - (1 if cov[sq] > 0 or ZONE[sq] == player else 0) >= 2 for sq in self.tiles[player])

    def capturable_tiles(self, player: int) -> list[int]:
        """Squares of ``player``'s tiles that are capturable now."""
        return sorted(sq for sq in self.tiles[player] if self.capturable(sq))

    # ---- legal moves -------------------------------------------------------------------------------
    def deploy_squares(self, player: int, kind: int) -> list[int]:
        """Empty squares where ``player`` may put a ``kind`` tile by the deploy rule (self-capture not checked)."""
        board, opp, own = self.board, self.thr[1 - player], self.thr[player]
        if kind == LOTUS:
            return [s for s in range(NUM_SQUARES) if board[s] < 0 and opp[s] <= 2]
        return [
            s
            for s in range(NUM_SQUARES)
            if board[s] < 0 and not IS_BLACK[s] and opp[s] == 0 and (ZONE[s] == player or own[s] >= 1)
        ]

    def _fragile(self, player: int) -> set[int]:
        """Squares of ``player``'s tiles that one more threat on them would make capturable.

        A Fire of ``player`` leaves every own tile uncapturable exactly when its pattern holds none of these
        (``_fire_faces``): no own tile is capturable without it (no action may leave one so), and only the
        own tiles inside its pattern get one more threat.
        """
        opp, cov = self.thr[1 - player], self.cov[player]
        return {t for t in self.tiles[player] if opp[t] - (1 if cov[t] > 0 or ZONE[t] == player else 0) >= 1}

    @staticmethod
    def _fire_faces(fragile: set[int], sq: int, faces: tuple[int, ...]) -> tuple[int, ...]:
        """The facings among ``faces`` at which a Fire on ``sq`` threatens no ``fragile`` tile (``sq`` itself aside)."""
        if not fragile:
            return faces
        pattern = THREAT[FIRE]
        return tuple(f for f in faces if not any(t in fragile and t != sq for t in pattern[f][sq]))

    def shift_squares(self, sq: int) -> list[int]:
        """Squares the tile on ``sq`` can reach by a shift (0 to range steps through safe empty squares).

        Safety of an entered square n: T_opp(n) + [mover is Fire] - C_own(n) < 2, computed without the
        mover on its origin. The origin itself (0 steps) is included.
        """
        code = self.board[sq]
        owner, kind = code >> 5, (code >> 2) & 7
        steps = RANGE[kind]
        if steps == 0:
            return []
        self._lift(sq)
        try:
            opp, cov, board = self.thr[1 - owner], self.cov[owner], self.board
            extra = 1 if kind == FIRE else 0
            seen = {sq}
            frontier = [sq]
            for _ in range(steps):
                nxt = []
                for s in frontier:
                    for n in NEIGHBOURS[s]:
                        if n in seen or board[n] >= 0:
                            continue
                        if opp[n] + extra - (1 if cov[n] > 0 or ZONE[n] == owner else 0) >= 2:
                            continue
                        seen.add(n)
                        nxt.append(n)
                frontier = nxt
            # a path may come back through the origin (it is empty while the tile is lifted)
            return sorted(seen)
        finally:
            self._place(sq, code)

    def _move_options(self, sq: int) -> dict[int, tuple[int, ...]]:
        """Legal (destination -> facings) of the tile on ``sq`` (shift, and redeploy for Water).

        The mover is safe on every destination offered by the path rule (shift) or the deploy rule
        (redeploy). Other own tiles can only suffer from the mover's lost cover (Sai, Water) or from its
        Fire threat, so only those are checked: see ``legal_moves_reference`` in the tests for the plain
        "apply and look at every own tile" definition this is checked against.
        """
        code = self.board[sq]
        owner, kind, facing = code >> 5, (code >> 2) & 7, code & 3
        if RANGE[kind] == 0:
            return {}
        dests = self.shift_squares(sq)
        if kind == WATER:  # redeploy: the deploy rule, the Water's own threat from its origin counting
            extra = set(self.deploy_squares(owner, WATER)) - set(dests)
            dests = sorted(set(dests) | extra)
        out: dict[int, tuple[int, ...]] = {}
        if kind == FIRE:
            self._lift(sq)  # its own threat on the own tiles goes with it
            try:
                fragile = self._fragile(owner)
            finally:
                self._place(sq, code)
            others = tuple(f for f in range(4) if f != facing)
            for d in dests:
                faces = self._fire_faces(fragile, d, others if d == sq else (0, 1, 2, 3))
                if faces:
                    out[d] = faces
            return out
        if not HAS_COVER[kind]:  # Sword, Bow, Earth: nothing changes for the other own tiles
            for d in dests:
                out[d] = (0, 1, 2, 3) if d != sq else tuple(f for f in range(4) if f != facing)
            return out
        # Sai, Water: the own tiles left capturable once the mover is lifted must be covered again from d;
        # no own tile is capturable before (see _fragile), so only those under the mover's cover can be
        self._lift(sq)
        try:
            board = self.board
            exposed = [t for t in COVER[kind][facing][sq] if board[t] >= 0 and board[t] >> 5 == owner and self.capturable(t)]
        finally:
            self._place(sq, code)
        for d in dests:
            choices: list[int] = []
            for f in range(4):
                if d == sq and f == facing:
                    continue
                if exposed:
                    cover = COVER[kind][f][d]
                    if any(t not in cover for t in exposed):
                        continue
                choices.append(f)
            if choices:
                out[d] = tuple(choices)
        return out

    def _compute(self) -> list[int]:
        phase = self.phase
        p = self.mover
        if phase == OVER:
            return []
        if phase in (DRAFT, DRAW_MORE):
            out = [TAKE + t for t in range(NUM_TYPES) if self.reserve[p][t] > 0]
            if phase == DRAW_MORE:
                out.append(STOP)
            return out
        if phase == GIFT:
            return [GIVE + t for t in range(NUM_TYPES) if self.reserve[p][t] > 0]
        if phase == START:
            out = [TAKE + t for t in range(NUM_TYPES) if self.reserve[p][t] > 0]
            out += [DEPLOY + t for t in range(NUM_TYPES) if self.hand[p][t] > 0 and self._can_deploy(t)]
            blocked = self.rep_sq[p] if self.rep_count[p] >= MAX_REPEAT else -1
            board = self.board
            for sq in sorted(self.tiles[p]):
                kind = (board[sq] >> 2) & 7
                if sq == blocked or RANGE[kind] == 0:
                    continue
                # Sword, Bow, Earth, Water can always turn in place (nothing changes for the own tiles)
                if kind in _TURN_ALWAYS or self._tile_options(sq):
                    out.append(SQUARE + sq)
            return out or [PASS]
        if phase == DEPLOY_SQUARE:
            return [SQUARE + s for s in sorted(self._type_options(self.sel_type))]
        if phase == DEPLOY_FACING:
            return [FACE + f for f in self._type_options(self.sel_type).get(self.sel_sq, ())]
        if phase == SAI_SHIFT:
            return [STAY] + [SQUARE + d for d in sorted(self._tile_options(self.sel_sq))]
        if phase == MOVE_DEST:
            return [SQUARE + d for d in sorted(self._tile_options(self.sel_sq))]
        # SAI_FACING, MOVE_FACING
        return [FACE + f for f in self._tile_options(self.sel_sq).get(self.sel_dest, ())]

    def _can_deploy(self, kind: int) -> bool:
        """Whether a ``kind`` tile from the mover's hand has a legal deploy (without listing them all)."""
        if kind != FIRE:
            return bool(self._type_options(kind))
        fragile = self._fragile(self.mover)
        return any(self._fire_faces(fragile, sq, (0, 1, 2, 3)) for sq in self._squares_for(FIRE))

    def _squares_for(self, kind: int) -> list[int]:
        """Deploy squares of the mover by the deploy rule (one list for Lotus, one for every other type)."""
        key = -1 if kind == LOTUS else -2
        cache = self._deploys if self._deploys is not None else {}
        self._deploys = cache
        if key not in cache:
            cache[key] = self.deploy_squares(self.mover, kind)  # type: ignore[assignment]
        return cache[key]  # type: ignore[return-value]

    def _type_options(self, kind: int) -> dict[int, tuple[int, ...]]:
        """Legal (square -> facings) of a deploy of ``kind`` by the mover (empty if none in hand)."""
        cache = self._deploys if self._deploys is not None else {}
        self._deploys = cache
        if kind not in cache:
            p = self.mover
            if self.hand[p][kind] == 0:
                cache[kind] = {}
            elif kind == FIRE:
                out = {}
                fragile = self._fragile(p)
                for sq in self._squares_for(FIRE):
                    faces = self._fire_faces(fragile, sq, (0, 1, 2, 3))
                    if faces:
                        out[sq] = faces
                cache[kind] = out
            else:  # a non-Fire tile only adds own cover and threat on the opponent: never a self-capture
                cache[kind] = dict.fromkeys(self._squares_for(kind), (0, 1, 2, 3))
        return cache[kind]

    def _tile_options(self, sq: int) -> dict[int, tuple[int, ...]]:
        """Legal (destination -> facings) of the mover's tile on ``sq`` now (empty if it may not move)."""
        cache = self._moves if self._moves is not None else {}
        self._moves = cache
        if sq not in cache:
            p = self.mover
            code = self.board[sq]
            blocked = self.phase not in (SAI_SHIFT, SAI_FACING) and self.rep_sq[p] == sq and self.rep_count[p] >= MAX_REPEAT
            cache[sq] = {} if code < 0 or code >> 5 != p or blocked else self._move_options(sq)
        return cache[sq]

    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL
        if self.phase == GIFT:
            return 1 - self.mover
        return self.mover

    def legal_actions(self) -> list[int]:
        if self.phase == OVER:
            return []
        if self._legal is None:
            self._legal = self._compute()
        return list(self._legal)

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if self.phase != OVER:
            mask[self.legal_actions()] = True
        return mask

    def _is_legal(self, player: int, action: int) -> bool:
        if self.phase == OVER or player < 0:
            return False
        if self._legal is None:
            self._legal = self._compute()
        return action in self._legal

    # ---- playing ------------------------------------------------------------------------------------
    def _invalidate(self) -> None:
        self._legal = None

    def _new_turn_caches(self) -> None:
        self._legal = None
        self._moves = None
        self._deploys = None

    def _apply(self, action: int) -> None:
        phase = self.phase
        p = self.mover
        self._legal = None
        if phase == DRAFT:
            self.reserve[p][action - TAKE] -= 1
            self.hand[p][action - TAKE] += 1
            self.draft_left -= 1
            if self.draft_left == 0:
                self.draft_step += 1
                if self.draft_step < len(DRAFT_SCHEDULE):
                    self.mover, self.draft_left = DRAFT_SCHEDULE[self.draft_step]
                else:
                    self.mover, self.draft_left = 0, 0
                    self.phase = START
                    self._new_turn_caches()
            return
        if phase == GIFT:
            t = action - GIVE
            self.reserve[p][t] -= 1
            self.hand[p][t] += 1
            self.gifts -= 1
            if self.gifts == 0:
                self._finish_turn()
            return
        if phase in (START, DRAW_MORE):
            if action == PASS:
                self._reset_repeat(p)
                self.passes += 1
                self._finish_turn()
                return
            if action == STOP:
                self._end_action()
                return
            if TAKE <= action < TAKE + NUM_TYPES:
                t = action - TAKE
                self.reserve[p][t] -= 1
                self.hand[p][t] += 1
                self.picks += 1
                if phase == START:
                    self._reset_repeat(p)
                if self.picks == 3 or not any(self.reserve[p]):
                    self._end_action()
                else:
                    self.phase = DRAW_MORE
                return
            if DEPLOY <= action < DEPLOY + NUM_TYPES:
                self.sel_type = action - DEPLOY
                self.phase = DEPLOY_SQUARE
                return
            self.sel_sq = action - SQUARE
            self.phase = MOVE_DEST
            return
        if phase == DEPLOY_SQUARE:
            self.sel_sq = action - SQUARE
            self.phase = DEPLOY_FACING
            return
        if phase == DEPLOY_FACING:
            kind, sq = self.sel_type, self.sel_sq
            self.hand[p][kind] -= 1
            self._place(sq, tile_code(p, kind, action - FACE))
            if kind != LOTUS:
                self.score[p] += POINTS[p][sq]
            self._reset_repeat(p)
            if kind == SAI:
                self.phase = SAI_SHIFT
                self.sel_type = -1
                self._moves = None
            else:
                self._end_action()
            return
        if phase == SAI_SHIFT:
            if action == STAY:
                self._end_action()
                return
            self.sel_dest = action - SQUARE
            self.phase = SAI_FACING
            return
        if phase == MOVE_DEST:
            self.sel_dest = action - SQUARE
            self.phase = MOVE_FACING
            return
        # SAI_FACING or MOVE_FACING: carry out the shift / redeploy
        src, dest = self.sel_sq, self.sel_dest
        code = self._lift(src)
        kind = code_type(code)
        self._place(dest, tile_code(p, kind, action - FACE))
        if kind != LOTUS:
            self.score[p] += POINTS[p][dest] - POINTS[p][src]
        if phase == MOVE_FACING and self.rep_sq[p] == src:
            self.rep_count[p] += 1
        else:
            self.rep_count[p] = 1
        self.rep_sq[p] = dest
        self._end_action()

    def _reset_repeat(self, player: int) -> None:
        self.rep_sq[player] = -1
        self.rep_count[player] = 0

    def _end_action(self) -> None:
        """The mover's action is complete: resolve captures, then the gifts, then end the turn."""
        p = self.mover
        self.passes = 0
        self.sel_type = self.sel_sq = self.sel_dest = -1
        captured = self._resolve_captures(1 - p)
        if captured:
            self.last_captured = captured
        # one gift per captured tile, skipped once the capturer's reserve is empty: only as many are owed as it holds
        owed = min(len(captured), sum(self.reserve[p]))
        if owed:
            self.gifts = owed
            self.phase = GIFT
            self._legal = None
            return
        self._finish_turn()

    def _resolve_captures(self, victim: int) -> list[tuple[int, int]]:
        """Remove ``victim``'s capturable tiles: non-Fire one by one (recomputing after a tile with cover), Fire last."""
        pending = [s for s in self.capturable_tiles(victim) if code_type(self.board[s]) != FIRE]
        fires = {s for s in self.capturable_tiles(victim) if code_type(self.board[s]) == FIRE}
        done: list[tuple[int, int]] = []
        queued = set(pending)
        while pending:
            sq = pending.pop(0)
            code = self._lift(sq)
            done.append((sq, code))
            if HAS_COVER[code_type(code)]:
                for s in self.capturable_tiles(victim):
                    if code_type(self.board[s]) == FIRE:
                        fires.add(s)
                    elif s not in queued:
                        queued.add(s)
                        pending.append(s)
        for sq in sorted(fires):
            done.append((sq, self._lift(sq)))
        for sq, code in done:
            if code_type(code) != LOTUS:
                self.score[victim] -= POINTS[victim][sq]
            self.lost[victim] += 1
        return done

    def _finish_turn(self) -> None:
        p = self.mover
        self.turn += 1
        self.picks = 0
        self.sel_type = self.sel_sq = self.sel_dest = -1
        if self.score[p] >= WIN_POINTS or self.score[1 - p] >= WIN_POINTS:
            self.winner = p if self.score[p] >= WIN_POINTS else 1 - p
            self.end = "points"
        elif min(self.lost) >= DRAW_LOST and max(self.score) <= DRAW_POINTS:
            self.end = "exhaustion"
        elif self.passes >= 2:
            self.end = "passes"
        elif self.turn >= self.game.max_turns:
            self.end = "max_turns"
        if self.end:
            self.phase = OVER
        else:
            self.mover = 1 - p
            self.phase = START
        self._new_turn_caches()

    def clone(self) -> PaikoState:
        c = object.__new__(PaikoState)
        c.__dict__.update(self.__dict__)
        c.history = list(self.history)
        c.board = list(self.board)
        c.reserve = [list(r) for r in self.reserve]
        c.hand = [list(h) for h in self.hand]
        c.score = list(self.score)
        c.lost = list(self.lost)
        c.thr = [list(t) for t in self.thr]
        c.cov = [list(t) for t in self.cov]
        c.tiles = [set(t) for t in self.tiles]
        c.rep_sq = list(self.rep_sq)
        c.rep_count = list(self.rep_count)
        c.last_captured = list(self.last_captured)
        # the caches grow lazily: each copy gets its own dict (the values are never changed once built)
        c._moves = dict(self._moves) if self._moves is not None else None
        c._deploys = dict(self._deploys) if self._deploys is not None else None
        return c

    # ---- results ------------------------------------------------------------------------------------
    def returns(self) -> np.ndarray:
        if self.phase != OVER or self.winner < 0:
            return np.zeros(2, dtype=np.float64)
        return rank_returns([int(seat == self.winner) for seat in range(2)])

    def scores(self) -> np.ndarray:
        return np.asarray(self.score, dtype=np.float64)

    # ---- observation and text -----------------------------------------------------------------------
    def _observation(self, seat: int) -> np.ndarray:
        return encode(self, seat)

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


__all__ = ["END_REASONS", "PHASE_NAMES", "SQUARES", "PaikoGame", "PaikoState"]
