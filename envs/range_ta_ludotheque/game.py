"""Range Ta Ludothèque: ``RangeTaLudothequeGame`` and ``RangeTaLudothequeState``, a view over one row of the
compiled kernels (``kernel.py``), which hold the rules.

See the package docstring (``envs/range_ta_ludotheque/__init__.py``) for the action encoding, the
observation layout, the position keys and the readings of the rules. What is here is not a rule step: the
options, text, move names and parsing, positions and the redeal of hidden choices (the chance odds are the
kernel's ``chance_weights``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, GameFacts, Option, int_option
from gameshelf.envs.core.kernel import KernelGame, KernelState, kernel_drivers, seed_generators
from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.core.position import position_builder
from gameshelf.envs.range_ta_ludotheque import actions
from gameshelf.envs.range_ta_ludotheque import kernel as K
from gameshelf.envs.range_ta_ludotheque.actions import BOX, MAT, PASS, Move
from gameshelf.envs.range_ta_ludotheque.board import (
    CATEGORY_LETTERS,
    COMPARTMENT_SIDE,
    COMPARTMENTS,
    MECHANISMS,
    ROLL_INDEX,
    ROLL_TRIPLES,
    ROLLS,
    ROUNDS,
    SHAPES,
    Geometry,
    geometry,
)
from gameshelf.envs.range_ta_ludotheque.observation import make_layout
from gameshelf.envs.range_ta_ludotheque.scoring import Box, score_bounds


class RangeTaLudothequeGame(KernelGame):
    """Range Ta Ludothèque for 1 to 8 players (roll and write: shared dice, one Kallax sheet each)."""

    name = "range_ta_ludotheque"
    kernel = K
    """The compiled rules (``kernel.py``): the state wraps its row, ``gameshelf.vector`` batches it."""
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(2, choices=(2, 1, 3, 4, 5, 6, 7, 8), doc="number of players (1 = solitaire)"),
        "scoring": Option("classic", choices=("classic", "expert"), doc="end-of-game scoring mode"),
        "playmat_only_if_no_box": Option(
            True, choices=(True, False), doc="a playmat may be drawn only when no assignment of the dice gives a legal box"
        ),
        "walls_block_adjacency": Option(
            False, choices=(False, True), doc="games on either side of a compartment wall are not adjacent"
        ),
        "comp_rows": int_option(2, *COMPARTMENTS, doc="compartment rows of the Kallax"),
        "comp_cols": int_option(2, *COMPARTMENTS, doc="compartment columns of the Kallax"),
        "comp_h": int_option(3, *COMPARTMENT_SIDE, doc="squares per compartment, top to bottom"),
        "comp_w": int_option(3, *COMPARTMENT_SIDE, doc="squares per compartment, left to right"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        g = self.geom
        self.expert = self.options["scoring"] == "expert"
        self.mat_only_if_no_box = bool(self.options["playmat_only_if_no_box"])
        self.walls_block = bool(self.options["walls_block_adjacency"])
        self.num_box_actions = self.mat_base = actions.mat_base(g.size)
        self.pass_action = actions.pass_action(g.size)
        self.bounds = score_bounds(g, ROUNDS, self.options["scoring"])
        self.initial = K.initial_state(
            self.num_players,
            self.expert,
            self.mat_only_if_no_box,
            self.walls_block,
            g.comp_rows,
            g.comp_cols,
            g.comp_h,
            g.comp_w,
            *self.bounds,
        )

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
        """Legal actions of a sheet with occupancy ``occ`` (bit set of filled squares) and dice ``ROLLS[roll_id]``."""
        state = RangeTaLudothequeState(self)
        state.roll_id = roll_id
        state.set_occupancy(0, occ)
        return state.legal_actions_of(0)

    # ---- position builder ----------------------------------------------------------------------
    @position_builder
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
                    if action is None or action not in state.legal_actions_of(seat):
                        raise ValueError(f"seat {seat}: {text!r} is not a legal choice with dice {list(ROLLS[roll_id])}")
                state.place(seat, move)
        state.s[K.DECISIONS] = sum(counts)
        return state


class RangeTaLudothequeState(KernelState):
    """A position: finished rounds, this round's dice and the choices made so far in seat order; a view over
    one kernel state row (``kernel.py``), which the rules act on.

    ``round``: rounds finished; ``roll_id``: index of this round's dice in ``ROLLS`` (-1 before the roll);
    ``current``: seat to choose (fields over the row). Per seat, read from the row: ``moves`` (every move in
    order, this round's one included once made), ``occ`` (bit set of filled squares), ``boxes`` (``Box`` list
    in placement order), ``mats`` (playmat squares).
    """

    game: RangeTaLudothequeGame

    CHANCE_DRAW = "real"
    """Rolls are drawn as ``rng.random()`` over the cumulative odds (the draws the golden games were made with)."""

    round = K.ROW.field("round")
    roll_id = K.ROW.field("roll_id")
    current = K.ROW.field("current")

    # ---- whose turn ------------------------------------------------------------------------------
    def current_player(self) -> int:
        s = self.s  # the kernel's current_player, read here without a compiled call (the hottest query)
        if s[K.ROUND] >= ROUNDS:
            return TERMINAL
        if s[K.ROLL] < 0:
            return CHANCE
        return int(s[K.CUR])

    @property
    def dice(self) -> tuple[int, int, int] | None:
        """This round's dice, ascending (None before the roll)."""
        roll = int(self.s[K.ROLL])
        return ROLLS[roll] if roll >= 0 else None

    def pending(self, seat: int) -> bool:
        """Has ``seat`` chosen this round (a choice the other seats do not see yet)?"""
        return self.roll_id >= 0 and seat < self.current

    def num_moves(self, seat: int) -> int:
        return int(self.s[K.NMOV + seat])

    def visible_moves(self, seat: int, viewer: int | None) -> int:
        """How many of ``seat``'s moves ``viewer`` sees (``None``: the public)."""
        k = self.num_moves(seat)
        return k - 1 if self.pending(seat) and seat != viewer else k

    # ---- the sheets, read from the row -----------------------------------------------------------
    def seat_moves(self, seat: int) -> list[Move]:
        start = K.MOVES + K.SEAT_MOVES * seat
        flat = self.s[start : start + K.MOVE_WIDTH * self.num_moves(seat)].tolist()
        return [tuple(flat[k : k + K.MOVE_WIDTH]) for k in range(0, len(flat), K.MOVE_WIDTH)]  # type: ignore[misc]

    @property
    def moves(self) -> list[list[Move]]:
        """Every seat's moves in order (a copy)."""
        return [self.seat_moves(s) for s in range(self.game.num_players)]

    @property
    def boxes(self) -> list[list[Box]]:
        return [[Box(f, c, m, q) for kind, f, c, m, q in self.seat_moves(s) if kind == BOX] for s in range(self.game.num_players)]

    @property
    def mats(self) -> list[list[int]]:
        return [[q for kind, _f, _c, _m, q in self.seat_moves(s) if kind == MAT] for s in range(self.game.num_players)]

    def seat_occupancy(self, seat: int) -> int:
        """Bit set of ``seat``'s filled squares (bit ``row * cols + col``)."""
        cols = self.game.geom.cols
        words = self.s[K.BITS + K.SEAT_BITS * seat : K.BITS + K.SEAT_BITS * (seat + 1)].tolist()
        occ = 0
        for r in range(self.game.geom.rows):
            occ |= (words[2 * r] | words[2 * r + 1] << K.HALF) << (r * cols)
        return occ

    @property
    def occ(self) -> list[int]:
        """Every seat's filled squares as a bit set (a copy)."""
        return [self.seat_occupancy(s) for s in range(self.game.num_players)]

    def set_occupancy(self, seat: int, occ: int) -> None:
        """Fill exactly the squares of ``occ`` on ``seat``'s sheet (its moves are not changed)."""
        g = self.game.geom
        row = (1 << g.cols) - 1
        for r in range(g.rows):
            bits = (occ >> (r * g.cols)) & row
            at = K.BITS + K.SEAT_BITS * seat + 2 * r
            self.s[at], self.s[at + 1] = bits & K.HALF_MASK, bits >> K.HALF
        self.s[K.FILLED + seat] = occ.bit_count()

    # ---- actions (mask, legality, apply and playout: the kernels) ----------------------------------
    def legal_actions_of(self, seat: int) -> list[int]:
        """Legal actions of ``seat``'s sheet with this round's dice (whoever is to choose)."""
        mask = np.empty((1, self.game.info.num_actions), dtype=bool)
        K.seat_mask(self.S, 0, seat, mask)
        return np.flatnonzero(mask[0]).tolist()  # type: ignore[no-any-return]

    def random_playout(self, rng: np.random.Generator, max_decisions: int | None = None) -> int:
        """Play on in place with random legal actions in the compiled kernels, chance seeded from ``rng``
        (``KernelState.random_playout`` with a mask as wide as the largest sheet's, ``K.NUM_ACTS``: the
        template's playout scans that many actions, and ``legal_mask`` clears the whole mask)."""
        generator = seed_generators(int(rng.integers(1 << 63)), 1)
        limit = self.game.info.max_game_length if max_decisions is None else max_decisions
        mask = np.empty((1, K.NUM_ACTS), dtype=bool)
        return int(kernel_drivers(K).random_playout(self.S, 0, generator, limit, mask))

    def check_fits(self, move: Move, seat: int) -> None:
        """``ValueError`` unless ``move`` can be drawn on ``seat``'s sheet now (whatever the dice)."""
        g = self.game.geom
        kind, face, _cat, _mech, sq = move
        name = self.game.move_text(move)
        if kind == PASS:
            if self.s[K.FILLED + seat] != g.size:
                raise ValueError(f"seat {seat}: 'pass' is only possible on a full sheet")
        elif kind == MAT:
            if not K.mat_fit(self.S, 0, seat, sq):
                raise ValueError(f"seat {seat}: {name!r} is on a filled square or floats")
        else:
            why = K.box_fit(self.S, 0, seat, face, sq)
            if why == 1:
                raise ValueError(f"seat {seat}: {name!r} leaves the sheet or crosses a compartment wall")
            if why == 2:
                raise ValueError(f"seat {seat}: {name!r} overlaps a filled square")
            if why == 3:
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
        K.place(self.S, 0, seat, *move)

    def unplace(self, seat: int) -> Move:
        """Rub out ``seat``'s last move."""
        move = self.seat_moves(seat)[-1]
        K.unplace(self.S, 0, seat)
        return move

    # ---- results ---------------------------------------------------------------------------------
    def sheet_score(self, seat: int, viewer: int | None = None) -> int:
        """Score of ``seat``'s sheet as ``viewer`` sees it (``None``: the public sheet)."""
        return int(K.sheet_score(self.S, 0, seat, self.visible_moves(seat, viewer)))

    def empty_squares(self, seat: int, viewer: int | None = None) -> int:
        return int(K.empty_squares(self.S, 0, seat, self.visible_moves(seat, viewer)))

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

    # ---- hidden information ------------------------------------------------------------------------
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
            legal = new.legal_actions_of(s)
            action = legal[int(rng.integers(len(legal)))]
            K.place_action(new.S, 0, s, action)
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
        g = self.game.geom
        label = ["."] * g.size
        legend = []
        number = 0
        for move in self.seat_moves(seat)[: self.visible_moves(seat, viewer)]:
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
            text += f"\nyour choice this round: {self.game.move_text(self.seat_moves(seat)[-1])}"
        return text

    # ---- positions -------------------------------------------------------------------------------
    def position(self) -> dict[str, Any]:
        return {
            "round": self.round + 1,
            "dice": list(self.dice) if self.dice is not None else None,
            "sheets": [[self.game.move_text(m) for m in moves] for moves in self.moves],
        }
