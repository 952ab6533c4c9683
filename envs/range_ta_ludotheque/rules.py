"""Range Ta Ludothèque rules engine: ``RangeTaLudothequeGame`` and ``RangeTaLudothequeState``.

See the package docstring (``envs/range_ta_ludotheque/__init__.py``) for the action encoding, the
observation layout, the position keys and the readings of the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, GameFacts, Option, State, rank_returns
from gameshelf.envs.core.observation import ObservationLayout, seat_order
from gameshelf.envs.range_ta_ludotheque import actions
from gameshelf.envs.range_ta_ludotheque.actions import BOX, MAT, PASS, Move
from gameshelf.envs.range_ta_ludotheque.board import (
    CATEGORY_LETTERS,
    MECHANISMS,
    ROLL_INDEX,
    ROLL_PROBS,
    ROLL_TRIPLES,
    ROLLS,
    ROUNDS,
    SHAPES,
    Geometry,
    geometry,
)
from gameshelf.envs.range_ta_ludotheque.observation import (
    draw_box,
    draw_mat,
    encode,
    make_layout,
    sheet_planes,
    static_planes,
)
from gameshelf.envs.range_ta_ludotheque.scoring import Box, empty_squares, score_bounds, sheet_score

ROLL_CUMULATIVE = np.cumsum(ROLL_PROBS)
_SIZE_RANGE = (1, 4)
_COMP_RANGE = (3, 6)


def _int_in(low: int, high: int) -> Any:
    return lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool) and low <= v <= high


class RangeTaLudothequeGame(Game):
    """Range Ta Ludothèque for 1 to 8 players (roll and write: shared dice, one Kallax sheet each)."""

    name = "range_ta_ludotheque"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(2, choices=(2, 1, 3, 4, 5, 6, 7, 8), doc="number of players (1 = solitaire)"),
        "scoring": Option("classic", choices=("classic", "expert"), doc="end-of-game scoring mode"),
        "playmat_only_if_no_box": Option(
            True, choices=(True, False), doc="a playmat may be drawn only when no assignment of the dice gives a legal box"
        ),
        "walls_block_adjacency": Option(
            False, choices=(False, True), doc="games on either side of a compartment wall are not adjacent"
        ),
        "comp_rows": Option(2, check=_int_in(*_SIZE_RANGE), allowed="an int 1..4", doc="compartment rows of the Kallax"),
        "comp_cols": Option(2, check=_int_in(*_SIZE_RANGE), allowed="an int 1..4", doc="compartment columns of the Kallax"),
        "comp_h": Option(3, check=_int_in(*_COMP_RANGE), allowed="an int 3..6", doc="squares per compartment, top to bottom"),
        "comp_w": Option(3, check=_int_in(*_COMP_RANGE), allowed="an int 3..6", doc="squares per compartment, left to right"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        g = self.geom
        self.expert = self.options["scoring"] == "expert"
        self.mat_only_if_no_box = bool(self.options["playmat_only_if_no_box"])
        self.walls_block = bool(self.options["walls_block_adjacency"])
        self.num_box_actions = self.mat_base = actions.mat_base(g.size)
        self.pass_action = actions.pass_action(g.size)
        self.static_obs = static_planes(self.layout, g, (self.expert, self.walls_block, self.mat_only_if_no_box))
        self.empty_planes = sheet_planes(g, (), ())
        self.bounds = score_bounds(g, ROUNDS, self.options["scoring"])

    @cached_property
    def geom(self) -> Geometry:
        """The sheet's geometry (its compartments and every placement), from the size options."""
        return geometry(*(int(self.options[k]) for k in ("comp_rows", "comp_cols", "comp_h", "comp_w")))

    def observation_layout(self) -> ObservationLayout:
        return make_layout(self.geom.rows, self.geom.cols)

    def _facts(self) -> GameFacts:
        n = self.options["num_players"]
        return GameFacts(
            num_actions=actions.num_actions(self.geom.size), max_game_length=ROUNDS * n, has_chance=True, has_hidden_info=n > 1
        )

    def new_initial_state(self) -> RangeTaLudothequeState:
        return RangeTaLudothequeState(self)

    # ---- moves as data (the encoding is ``actions``) ---------------------------------------------
    def move_of_action(self, action: int, roll: tuple[int, int, int] | None) -> Move:
        """The move an action stands for with these dice (a box needs the dice)."""
        return actions.move_of_action(self.geom, action, roll)

    def move_text(self, move: Move) -> str:
        return actions.move_text(self.geom, move)

    def parse_move(self, text: str) -> Move:
        """Read a move as ``move_text`` writes it; ``ValueError`` naming what is wrong."""
        return actions.parse_move(self.geom, text)

    def legal_actions_for(self, occ: int, roll_id: int) -> list[int]:
        """Legal actions of a sheet with occupancy ``occ`` and dice ``ROLLS[roll_id]`` (sorted)."""
        g = self.geom
        if occ == g.full:
            return [self.pass_action]
        out: list[int] = []
        size = g.size
        for p, (face, _cat, _mech) in ROLL_TRIPLES[roll_id]:
            base = p * size
            out.extend(base + a for a in g.squares_of(g.fitting_anchors(face, occ)))
        if not out or not self.mat_only_if_no_box:
            out.extend(self.mat_base + sq for sq in g.squares_of(g.supported_bits(occ)))
        return out

    # ---- position builder ----------------------------------------------------------------------
    def state_from_position(self, position: Mapping[str, Any]) -> RangeTaLudothequeState:
        """Build a validated state from ``{"round", "dice", "sheets"}`` (see the card)."""
        if not isinstance(position, Mapping):
            raise ValueError(f"a position is a mapping, got {type(position).__name__}")
        known = {"round", "dice", "sheets"}
        if set(position) != known:
            raise ValueError(f"position keys must be {sorted(known)}, got {sorted(position)}")
        n = self.num_players
        rnd = position["round"]
        if not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= ROUNDS + 1:
            raise ValueError(f"round must be an int 1..{ROUNDS + 1} ({ROUNDS + 1} = game over), got {rnd!r}")
        dice = position["dice"]
        roll_id = -1
        if dice is not None:
            if (
                not isinstance(dice, (list, tuple))
                or len(dice) != 3
                or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
            ):
                raise ValueError(f"dice must be null or three ints 1..6, got {dice!r}")
            roll_id = ROLL_INDEX[tuple(sorted(dice))]
            if rnd > ROUNDS:
                raise ValueError("the game is over (round 13): dice must be null")
        sheets = position["sheets"]
        if not isinstance(sheets, (list, tuple)) or len(sheets) != n:
            raise ValueError(f"sheets must be a list of {n} move lists (one per seat)")
        done = rnd - 1
        counts = []
        for seat, moves in enumerate(sheets):
            if not isinstance(moves, (list, tuple)):
                raise ValueError(f"sheet of seat {seat} must be a list of moves")
            counts.append(len(moves))
            if len(moves) not in (done, done + 1):
                raise ValueError(f"seat {seat} has {len(moves)} moves; in round {rnd} it must have {done} or {done + 1}")
        chosen = sum(c == done + 1 for c in counts)
        if any(c != done + 1 for c in counts[:chosen]):
            raise ValueError("seats choose in seat order: the seats that chose this round must be seats 0..k-1")
        if chosen and roll_id < 0:
            raise ValueError("a seat chose this round but the dice are null")
        if chosen >= n:
            raise ValueError("every seat has chosen: the round is over, so give the next round with no choice made")
        state = RangeTaLudothequeState(self)
        state.round = done
        state.roll_id = roll_id
        state.current = chosen if roll_id >= 0 else 0
        for seat, moves in enumerate(sheets):
            for idx, text in enumerate(moves):
                move = self.parse_move(text)
                state.check_fits(move, seat)
                if idx == done:  # this round's choice: the dice are known, so check it fully
                    action = state.action_of_move(move)
                    if action is None or action not in self.legal_actions_for(state.occ[seat], roll_id):
                        raise ValueError(f"seat {seat}: {text!r} is not a legal choice with dice {list(ROLLS[roll_id])}")
                state.place(seat, move)
        state._mask = state._mask_arr = None
        return state


class RangeTaLudothequeState(State):
    """A position: finished rounds, this round's dice and the choices made so far in seat order.

    Per seat: ``moves`` (every move in order, this round's one included once made), ``occ`` (bit set of
    filled squares), ``boxes`` (``Box`` list in placement order), ``mats`` (playmat squares), ``planes``
    (observation channels of the sheet after each number of moves). ``round``: rounds finished;
    ``roll_id``: index of this round's dice in ``ROLLS`` (-1 before the roll); ``current``: seat to choose.
    """

    def __init__(self, game: RangeTaLudothequeGame) -> None:
        super().__init__(game)
        self.game: RangeTaLudothequeGame = game
        n = game.num_players
        self.round = 0
        self.roll_id = -1
        self.current = 0
        self.moves: list[list[Move]] = [[] for _ in range(n)]
        self.occ: list[int] = [0] * n
        self.boxes: list[list[Box]] = [[] for _ in range(n)]
        self.mats: list[list[int]] = [[] for _ in range(n)]
        self.planes: list[list[np.ndarray]] = [[game.empty_planes] for _ in range(n)]
        self._mask: list[int] | None = None
        self._mask_arr: np.ndarray | None = None
        self._scores: dict[tuple[int, int], int] = {}
        self._lines: dict[tuple[int, int], list[str]] = {}

    # ---- whose turn ------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.round >= ROUNDS:
            return TERMINAL
        if self.roll_id < 0:
            return CHANCE
        return self.current

    @property
    def dice(self) -> tuple[int, int, int] | None:
        """This round's dice, ascending (None before the roll)."""
        return ROLLS[self.roll_id] if self.roll_id >= 0 else None

    def pending(self, seat: int) -> bool:
        """Has ``seat`` chosen this round (a choice the other seats do not see yet)?"""
        return self.roll_id >= 0 and seat < self.current

    def visible_moves(self, seat: int, viewer: int | None) -> int:
        """How many of ``seat``'s moves ``viewer`` sees (``None``: the public)."""
        k = len(self.moves[seat])
        return k - 1 if self.pending(seat) and seat != viewer else k

    # ---- actions ---------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self.current_player() < 0:
            return []
        if self._mask is None:
            self._mask = self.game.legal_actions_for(self.occ[self.current], self.roll_id)
        return list(self._mask)

    def legal_action_mask(self) -> np.ndarray:
        if self._mask_arr is None:
            mask = np.zeros(self.game.info.num_actions, dtype=bool)
            if self.current_player() >= 0:
                if self._mask is None:
                    self.legal_actions()
                mask[self._mask] = True
            self._mask_arr = mask
        return self._mask_arr.copy()

    def _is_legal(self, player: int, action: int) -> bool:
        if player == CHANCE:
            return 0 <= action < len(ROLLS)
        if self._mask is None:
            self.legal_actions()
        assert self._mask is not None
        return action in self._mask

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return []
        return list(enumerate(ROLL_PROBS))

    def sample_chance(self, rng: np.random.Generator) -> int:
        return min(int(np.searchsorted(ROLL_CUMULATIVE, rng.random(), side="right")), len(ROLLS) - 1)

    def check_fits(self, move: Move, seat: int) -> None:
        """``ValueError`` unless ``move`` can be drawn on ``seat``'s sheet now (whatever the dice)."""
        g = self.game.geom
        kind, face, _cat, _mech, sq = move
        occ = self.occ[seat]
        name = self.game.move_text(move)
        if kind == PASS:
            if occ != g.full:
                raise ValueError(f"seat {seat}: 'pass' is only possible on a full sheet")
        elif kind == MAT:
            if not g.supported(occ, sq):
                raise ValueError(f"seat {seat}: {name!r} is on a filled square or floats")
        else:
            pl = g.placement_at[face].get(sq)
            if pl is None:
                raise ValueError(f"seat {seat}: {name!r} leaves the sheet or crosses a compartment wall")
            if pl.cells & occ:
                raise ValueError(f"seat {seat}: {name!r} overlaps a filled square")
            if pl.below & occ != pl.below:
                raise ValueError(f"seat {seat}: {name!r} floats (not on the floor nor fully on filled squares)")

    def action_of_move(self, move: Move) -> int | None:
        """The action id of a move with this round's dice (None if the dice cannot give that box)."""
        g = self.game
        kind, face, cat, mech, sq = move
        if kind == PASS:
            return g.pass_action
        if kind == MAT:
            return g.mat_base + sq
        if self.roll_id >= 0:
            for p, triple in ROLL_TRIPLES[self.roll_id]:
                if triple == (face, cat, mech):
                    return p * g.geom.size + sq
        return None

    def place(self, seat: int, move: Move) -> None:
        """Draw a move on ``seat``'s sheet (no checks)."""
        kind, face, cat, mech, sq = move
        g = self.game.geom
        self.moves[seat].append(move)
        if kind == BOX:
            box = Box(face, cat, mech, sq)
            self.boxes[seat].append(box)
            self.occ[seat] |= g.placement_at[face][sq].cells
        elif kind == MAT:
            self.mats[seat].append(sq)
            self.occ[seat] |= 1 << sq
        if kind == PASS:
            self.planes[seat].append(self.planes[seat][-1])
        else:
            planes = self.planes[seat][-1].copy()
            if kind == BOX:
                draw_box(planes, g, self.boxes[seat][-1])
            else:
                draw_mat(planes, g, sq)
            self.planes[seat].append(planes)

    def unplace(self, seat: int) -> Move:
        """Rub out ``seat``'s last move."""
        move = self.moves[seat].pop()
        self.planes[seat].pop()
        kind, face, _cat, _mech, sq = move
        if kind == BOX:
            self.boxes[seat].pop()
            self.occ[seat] &= ~self.game.geom.placement_at[face][sq].cells
        elif kind == MAT:
            self.mats[seat].pop()
            self.occ[seat] &= ~(1 << sq)
        self._scores = {k: v for k, v in self._scores.items() if k[0] != seat}
        self._lines = {k: v for k, v in self._lines.items() if k[0] != seat}
        return move

    def _apply(self, action: int) -> None:
        if self.roll_id < 0:
            self.roll_id = action
            self.current = 0
            self._mask = self._mask_arr = None
            return
        seat = self.current
        self.place(seat, self.game.move_of_action(action, ROLLS[self.roll_id]))
        self._mask = self._mask_arr = None
        if seat + 1 < self.game.num_players:
            self.current = seat + 1
        else:  # everyone has chosen: the round ends, its choices become public
            self.round += 1
            self.roll_id = -1
            self.current = 0

    # ---- results ---------------------------------------------------------------------------------
    def sheet_score(self, seat: int, viewer: int | None = None) -> int:
        """Score of ``seat``'s sheet as ``viewer`` sees it (``None``: the public sheet)."""
        k = self.visible_moves(seat, viewer)
        key = (seat, k)
        cached = self._scores.get(key)
        if cached is None:
            boxes = self.boxes[seat]
            nb = sum(1 for m in self.moves[seat][:k] if m[0] == BOX)
            occ = self.visible_occ(seat, k)
            g = self.game
            cached = sheet_score(g.geom, boxes[:nb], occ, g.options["scoring"], g.walls_block)
            self._scores[key] = cached
        return cached

    def visible_occ(self, seat: int, k: int) -> int:
        occ = self.occ[seat]
        for move in self.moves[seat][k:]:
            kind, face, _c, _m, sq = move
            if kind == BOX:
                occ &= ~self.game.geom.placement_at[face][sq].cells
            elif kind == MAT:
                occ &= ~(1 << sq)
        return occ

    def empty_squares(self, seat: int, viewer: int | None = None) -> int:
        return empty_squares(self.game.geom, self.visible_occ(seat, self.visible_moves(seat, viewer)))

    def running_score(self, seat: int) -> float:
        """The score as it grows: public points minus the empty-square penalty phased in by rounds finished.

        0 on an empty sheet before round 1, exactly the final score after round 12.
        """
        empty = self.empty_squares(seat)
        points = self.sheet_score(seat) + empty
        return float(points - empty * self.round / ROUNDS)

    def scores(self) -> np.ndarray:
        """``running_score`` of every public sheet (this round's hidden choices count once the round ends)."""
        return np.array([self.running_score(s) for s in range(self.game.num_players)], dtype=np.float64)

    def ranking_key(self, seat: int) -> tuple[int, int]:
        """Score, then fewest empty squares."""
        return (self.sheet_score(seat), -self.empty_squares(seat))

    def returns(self) -> np.ndarray:
        n = self.game.num_players
        if self.round < ROUNDS:
            return np.zeros(n, dtype=np.float64)
        if n == 1:
            low, high = self.game.bounds
            return np.array([-1.0 + 2.0 * (self.sheet_score(0) - low) / (high - low)], dtype=np.float64)
        return rank_returns([self.ranking_key(s) for s in range(n)])

    # ---- observation -----------------------------------------------------------------------------
    def _observation(self, seat: int) -> np.ndarray:
        n = self.game.num_players
        order = seat_order(seat, n)
        sheets = [self.planes[s][self.visible_moves(s, seat)] for s in order]
        chosen = [self.pending(s) for s in order]
        g = self.game
        return encode(g.layout, g.static_obs, g.geom, sheets, self.occ[seat], self.dice, self.round, n, chosen)

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> RangeTaLudothequeState:
        """Redraw the other seats' choices of this round (uniformly among their legal moves).

        Only the choices of this round made by other seats are hidden from ``seat``; each is redrawn,
        independently, uniformly among the legal actions of that seat's sheet with this round's dice.
        The choice is rewritten in ``history`` too, so the new state replays from its history.
        """
        new = self.clone()
        if self.roll_id < 0:
            return new
        n = self.game.num_players
        # a game's history holds, per round, the roll and the n choices; this round's choices end it
        first = len(self.history) - self.current
        rewrite = first == self.round * (n + 1) + 1
        for s in range(self.current):
            if s == seat:
                continue
            new.unplace(s)
            legal = self.game.legal_actions_for(new.occ[s], self.roll_id)
            action = legal[int(rng.integers(len(legal)))]
            new.place(s, self.game.move_of_action(action, ROLLS[self.roll_id]))
            if rewrite:
                new.history[first + s] = action
        return new

    # ---- text ------------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        g = self.game
        if self.current_player() == CHANCE:
            if 0 <= action < len(ROLLS):
                return "roll " + ",".join(map(str, ROLLS[action]))
            return f"roll #{action}"
        if not 0 <= action < g.info.num_actions:
            return f"action #{action}"
        if action < g.num_box_actions and self.roll_id < 0:
            return f"box perm{action // g.geom.size} {g.geom.square_name(action % g.geom.size)}"
        return g.move_text(g.move_of_action(action, self.dice))

    def sheet_lines(self, seat: int, viewer: int | None) -> list[str]:
        """ASCII picture of ``seat``'s sheet as ``viewer`` sees it, and its legend."""
        k = self.visible_moves(seat, viewer)
        cached = self._lines.get((seat, k))
        if cached is None:
            cached = self._lines[(seat, k)] = self._sheet_lines(seat, k)
        return cached

    def _sheet_lines(self, seat: int, k: int) -> list[str]:
        g = self.game.geom
        label = ["."] * g.size
        legend = []
        number = 0
        for move in self.moves[seat][:k]:
            kind, face, cat, mech, sq = move
            if kind == MAT:
                label[sq] = "m"
            elif kind == BOX:
                number += 1
                for s in g.placement_at[face][sq].squares:
                    label[s] = str(number)
                w, h = SHAPES[face]
                legend.append(f"G{number} {CATEGORY_LETTERS[cat - 1]}/{MECHANISMS[mech - 1]} ({w}x{h}) {g.square_name(sq)}")

        def wall(c: int) -> bool:
            return c > 0 and c % g.comp_w == 0

        lines = ["    " + "".join(f"{'|' if wall(c) else ' '}c{c:<2}" for c in range(g.cols))]
        sep = "    " + "".join(("+" if wall(c) else "-") + "---" for c in range(g.cols))
        for r in range(g.rows):
            if r and r % g.comp_h == 0:
                lines.append(sep)
            lines.append(f"r{r:<3}" + "".join(f"{'|' if wall(c) else ' '}{label[r * g.cols + c]:>2} " for c in range(g.cols)))
        return lines + ["  " + "; ".join(legend[i : i + 3]) for i in range(0, len(legend), 3)]

    def _text(self, viewer: int | None) -> str:
        g = self.game
        n = g.num_players
        mode = g.options["scoring"]
        rnd = min(self.round + 1, ROUNDS)
        head = f"Range Ta Ludothèque, {n} player{'s' if n > 1 else ''}, {mode} scoring, round {rnd}/{ROUNDS}"
        if self.dice is not None:
            head += ", dice " + " ".join(map(str, self.dice))
        lines = [head]
        for s in range(n):
            status = ""
            if self.pending(s):
                status = " (chose this round" + ("" if s == viewer else ", hidden until the round ends") + ")"
            elif self.current_player() == s:
                status = " (to choose)"
            lines.append(f"player {s}: score {self.sheet_score(s, viewer)}, empty {self.empty_squares(s, viewer)}{status}")
            lines += ["  " + line for line in self.sheet_lines(s, viewer)]
        if self.round >= ROUNDS:
            ret = self.returns()
            if n == 1:
                lines.append(f"game over; final score {self.sheet_score(0)} (return {ret[0]:.3f})")
            else:
                lines.append("game over; winner(s): " + ", ".join(f"player {s}" for s in range(n) if ret[s] == ret.max()))
        elif self.roll_id < 0:
            lines.append("dice to roll")
        return "\n".join(lines)

    def to_text(self) -> str:
        """The public situation: every sheet as of the last finished round plus who has chosen since."""
        return self._text(None)

    def _seat_text(self, seat: int) -> str:
        """The public situation with ``seat``'s own choice of this round drawn in."""
        text = self._text(seat)
        if self.pending(seat):
            text += f"\nyour choice this round: {self.game.move_text(self.moves[seat][-1])}"
        return text

    # ---- positions and copies --------------------------------------------------------------------
    def position(self) -> dict[str, Any]:
        return {
            "round": self.round + 1,
            "dice": list(self.dice) if self.dice is not None else None,
            "sheets": [[self.game.move_text(m) for m in moves] for moves in self.moves],
        }

    def clone(self) -> RangeTaLudothequeState:
        new = RangeTaLudothequeState.__new__(RangeTaLudothequeState)
        new.game = self.game
        new.history = self.history.copy()
        new.round = self.round
        new.roll_id = self.roll_id
        new.current = self.current
        new.moves = [m.copy() for m in self.moves]
        new.occ = self.occ.copy()
        new.boxes = [b.copy() for b in self.boxes]
        new.mats = [m.copy() for m in self.mats]
        new.planes = [p.copy() for p in self.planes]
        new._mask = self._mask
        new._mask_arr = self._mask_arr
        new._scores = dict(self._scores)
        new._lines = dict(self._lines)
        return new
