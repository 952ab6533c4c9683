"""Tsukuru 10 Ten rules engine: ``TsukuruTenTenGame`` (options, static facts) and ``TsukuruTenTenState``.

See the environment card in ``envs/tsukuru_ten_ten/__init__.py`` for the rules as implemented, the
action table and the observation layout. The rules are the compiled kernels of ``kernel.py`` (the state is a
view over one kernel row; ``gameshelf.vector.make("tsukuru_ten_ten-v0", num_envs=N)`` batches them); this
module keeps text, move names and hidden-information redeals in Python. The engine draws no random numbers:
the first dealer, every dealt tile and every drawn tile are chance nodes (a tile kind, weighted by its copies
left in the deck; the odds are the kernel's ``chance_weights``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, GameFacts, Option
from gameshelf.envs.core.kernel import KernelGame, KernelState
from gameshelf.envs.tsukuru_ten_ten import actions as act
from gameshelf.envs.tsukuru_ten_ten import kernel as K
from gameshelf.envs.tsukuru_ten_ten import observation as obs_mod
from gameshelf.envs.tsukuru_ten_ten.actions import (
    DEAL,
    DISCARDING,
    DRAWING,
    FIRST_DEALER,
    MAX_PLAYERS,
    OVER,
    PICK_COLOUR,
    TURN,
)
from gameshelf.envs.tsukuru_ten_ten.hand import HAND_SIZE, MAX_SETS, OpenSet, WinScore, score_win
from gameshelf.envs.tsukuru_ten_ten.kernel import ADVANCED_TARGET, BASIC_TARGET
from gameshelf.envs.tsukuru_ten_ten.resample import redeal
from gameshelf.envs.tsukuru_ten_ten.tiles import (
    BLUE,
    COLOUR,
    COLOUR_NAMES,
    NAMES,
    NUM_KINDS,
    PURPLE,
    SET_SHAPES,
    VALUE,
    kinds_of,
    parse_tile,
    tiles_text,
)

MAX_GAME_LENGTH = 20000
"""Truncation limit on player decisions: with the points end, rounds that end on an empty deck score
nothing, so the rules do not bound the length of a game (random games take a few hundred decisions)."""

_OPEN_SETS = tuple(OpenSet(s.kinds, s.colour) for s in SET_SHAPES)
"""The open set of each shape index (the row stores an open set as its shape)."""


class TsukuruTenTenGame(KernelGame):
    """Tsukuru 10 Ten with fixed options."""

    name = "tsukuru_ten_ten"
    kernel = K
    """The compiled rules (``kernel.py``): the state wraps its row, ``gameshelf.vector`` batches it."""
    OPTIONS = {
        "num_players": Option(2, choices=(2, 3, 4), doc="players"),
        "scoring": Option(
            "basic",
            choices=("basic", "advanced"),
            doc="basic: a win scores 1, first to 4 wins; advanced: base 3 (dealer) or 2 plus hand bonuses, first to 25",
        ),
        "claim_from": Option(
            "any_opponent",
            choices=("any_opponent", "previous_player"),
            doc="whose last discard may be taken: any opponent's (still on top of his pile) or only the previous player's",
        ),
        "game_end": Option(
            "points",
            choices=("points", "dealer_twice"),
            doc="points: first to the target wins; dealer_twice: also ends once every player has dealt two rounds",
        ),
    }
    LAYOUT = obs_mod.LAYOUT

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.advanced: bool = self.options["scoring"] == "advanced"
        self.target: int = ADVANCED_TARGET if self.advanced else BASIC_TARGET
        self.previous_only: bool = self.options["claim_from"] == "previous_player"
        self.dealer_twice: bool = self.options["game_end"] == "dealer_twice"
        self.initial = K.initial_state(
            self.num_players, self.options["scoring"], self.options["claim_from"], self.options["game_end"]
        )

    def _facts(self) -> GameFacts:
        return GameFacts(num_actions=act.NUM_ACTIONS, max_game_length=MAX_GAME_LENGTH, has_chance=True, has_hidden_info=True)

    def new_initial_state(self) -> TsukuruTenTenState:
        return TsukuruTenTenState(self)


class TsukuruTenTenState(KernelState):
    """A position of a Tsukuru 10 Ten game (see the environment card for the rules): a view over one kernel
    state row (``kernel.py``), which the rules act on. The fields read and write that row like plain ints
    and lists; ``open_sets``, ``pending`` and ``discards`` are built from it on each read."""

    game: TsukuruTenTenGame
    EXTRA = ("given_last_round", "history_from_start")

    def __init__(self, game: TsukuruTenTenGame) -> None:
        super().__init__(game)
        self.given_last_round = ""
        """The ``last_round`` line of a position built from data, whose row records no round end."""
        self.history_from_start = True
        """Does ``history`` hold the whole game (False for a position built from data or a batch's row view)?"""

    def view_row(self, states: np.ndarray, i: int) -> None:
        """A view of a batch's row: its history is not kept, so hidden tiles are redealt from the row alone."""
        super().view_row(states, i)
        self.history_from_start = False

    phase = K.ROW.field("phase")
    dealer = K.ROW.field("dealer")
    turn = K.ROW.field("turn")
    drawn = K.ROW.field("drawn")
    dealt = K.ROW.field("dealt")
    rounds_played = K.ROW.field("rounds_played")
    deck_size = K.ROW.field("deck_size")
    deck = K.ROW.field("deck")
    hands = K.ROW.field("hands")

    @property
    def n(self) -> int:
        return int(self.s[K.NP])

    scores_ = K.ROW.field("scores")
    dealer_counts = K.ROW.field("dealer_counts")
    turns_taken = K.ROW.field("turns_taken")

    @property
    def claimable(self) -> list[bool]:
        """Is the top of each seat's pile the tile he discarded on his most recent turn? (a copy)"""
        return [bool(c) for c in self.s[K.CLAIMABLE : K.CLAIMABLE + self.n]]

    @claimable.setter
    def claimable(self, values: Sequence[bool]) -> None:
        self.s[K.CLAIMABLE : K.CLAIMABLE + self.n] = [int(bool(v)) for v in values]

    @property
    def open_sets(self) -> list[list[OpenSet]]:
        """Each seat's open sets (built from the row: assign a new list to change them)."""
        s = self.s
        return [[_OPEN_SETS[s[K.OPEN + MAX_SETS * seat + j]] for j in range(s[K.NUM_OPEN + seat])] for seat in range(self.n)]

    @open_sets.setter
    def open_sets(self, sets: Sequence[Sequence[OpenSet]]) -> None:
        s = self.s
        s[K.OPEN : K.OPEN + MAX_PLAYERS * MAX_SETS] = -1
        s[K.NUM_OPEN : K.NUM_OPEN + MAX_PLAYERS] = 0
        s[K.OPEN_VALUE : K.OPEN_VALUE + MAX_PLAYERS] = 0
        for seat, row in enumerate(sets):
            for j, o in enumerate(row):
                s[K.OPEN + MAX_SETS * seat + j] = K.SHAPE_INDEX[(o.kinds, o.colour)]
                s[K.OPEN_VALUE + seat] += o.value
            s[K.NUM_OPEN + seat] = len(row)

    @property
    def pending(self) -> tuple[int, int, int] | None:
        """An all-purple set just revealed whose colour is still to be chosen (phase PICK_COLOUR)."""
        shape = int(self.s[K.PENDING])
        return None if shape < 0 else SET_SHAPES[shape].kinds

    @pending.setter
    def pending(self, kinds: tuple[int, int, int] | None) -> None:
        self.s[K.PENDING] = -1 if kinds is None else K.SHAPE_INDEX[(tuple(sorted(kinds)), BLUE)]  # type: ignore[index]

    @property
    def discards(self) -> list[list[int]]:
        """Each seat's discard pile, bottom to top (a copy: assign a new list to change them)."""
        s = self.s
        return [
            s[K.PILES + K.PILE_CAP * seat : K.PILES + K.PILE_CAP * seat + s[K.PILE_LEN + seat]].tolist() for seat in range(self.n)
        ]

    @discards.setter
    def discards(self, piles: Sequence[Sequence[int]]) -> None:
        s = self.s
        s[K.PILES : K.PILES + MAX_PLAYERS * K.PILE_CAP] = 0
        s[K.PILE_LEN : K.PILE_LEN + MAX_PLAYERS] = 0
        for seat, pile in enumerate(piles):
            if len(pile) > K.PILE_CAP:
                raise ValueError(f"seat {seat}'s pile holds {len(pile)} tiles; there are {K.PILE_CAP} tiles in all")
            s[K.PILES + K.PILE_CAP * seat : K.PILES + K.PILE_CAP * seat + len(pile)] = list(pile)
            s[K.PILE_LEN + seat] = len(pile)

    # ---- whose turn ---------------------------------------------------------------------------
    def current_player(self) -> int:
        s = self.s  # the kernel's current_player, read here without a compiled call (the hottest query)
        phase = s[K.PHASE]
        if phase in (TURN, DISCARDING, PICK_COLOUR):
            return int(s[K.TURN_SEAT])
        if phase == OVER:
            return TERMINAL
        return CHANCE

    # ---- actions (mask, legality and playout: KernelState's) ----------------------------------
    def open_value(self, seat: int) -> int:
        """Total value of ``seat``'s open sets."""
        return int(self.s[K.OPEN_VALUE + seat])

    @property
    def last_round(self) -> str:
        """One-line summary of the previous round (shown in the text): read from the row's ``LAST_`` entries,
        so every view of the same row gives the same line; assigning a line (a position built from data)
        stores it in place of a recorded end."""
        s = self.s
        end = s[K.LAST_END]
        if end == K.NO_ROUND:
            return self.given_last_round
        number, seat, tile = int(s[K.LAST_ROUND]), int(s[K.LAST_SEAT]), int(s[K.LAST_TILE])
        if end == K.RAN_OUT:
            return f"Round {number}: the deck ran out, nobody scores (seat {seat} ended it)"
        if end == K.FINISHED_DRAW:
            how = f"after drawing {NAMES[tile]}"
        else:
            how = f"with {NAMES[tile]} from seat {s[K.LAST_OWNER]}'s discard"
        sets = [_OPEN_SETS[j] for j in s[K.LAST_OPEN : K.LAST_OPEN + MAX_SETS] if j >= 0]
        hand = s[K.LAST_HAND : K.LAST_HAND + NUM_KINDS].tolist()
        advanced = self.game.advanced
        result = score_win(hand, sets, advanced=advanced, dealer=seat == s[K.LAST_DEALER], heaven=bool(s[K.LAST_HEAVEN]))
        return f"Round {number}: seat {seat} finished {how}: {describe_win(sets, result, advanced)}"

    @last_round.setter
    def last_round(self, text: str) -> None:
        self.s[K.LAST_END] = K.NO_ROUND
        self.given_last_round = text

    # ---- results (returns, observation: KernelState's) ----------------------------------------
    def scores(self) -> np.ndarray:
        """Points of each seat."""
        return np.array(self.scores_.tolist(), dtype=np.float64)

    # ---- text -----------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        phase = self.phase
        if phase == FIRST_DEALER:
            return f"first dealer: seat {action}"
        if phase == DEAL:
            return f"deal {NAMES[action]} to seat {(self.dealer + self.dealt) % self.n}"
        if phase == DRAWING:
            return f"seat {self.turn} draws {NAMES[action]}"
        if action == act.DRAW:
            return "draw"
        if action == act.END_ROUND:
            return "end round (deck empty)"
        if action == act.FINISH:
            return "finish"
        if act.FINISH_FROM <= action < act.DISCARD:
            owner = (self.turn + action - act.FINISH_FROM + 1) % self.n
            pile = self.discards[owner]
            top = NAMES[pile[-1]] if pile else "?"
            return f"finish with {top} from seat {owner}"
        if act.DISCARD <= action < act.COLOUR:
            return f"discard {NAMES[action - act.DISCARD]}"
        if act.COLOUR <= action < act.GET:
            return f"colour {COLOUR_NAMES[action - act.COLOUR]}"
        offset, a, b = act.decode_get(action)
        owner = (self.turn + offset) % self.n
        pile = self.discards[owner]
        top = NAMES[pile[-1]] if pile else "?"
        return f"get {top} from seat {owner} with {NAMES[a]}+{NAMES[b]}"

    def to_text(self) -> str:
        return text_view(self, None)

    def _seat_text(self, seat: int) -> str:
        return text_view(self, seat)

    # ---- hidden information -------------------------------------------------------------------
    def unseen(self, seat: int) -> list[int]:
        """Per kind: tiles ``seat`` cannot see (the other concealed hands and the deck)."""
        pool = self.deck.tolist()
        for s, hand in enumerate(self.hands.tolist()):
            if s != seat:
                for k, c in enumerate(hand):
                    pool[k] += c
        return pool

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> TsukuruTenTenState:
        """A state ``seat`` cannot tell apart from this one: the other concealed hands and the deck redealt.

        Each other hand keeps its size; its tiles and the deck are a uniform shuffle of the tiles ``seat``
        cannot see (everything but its own hand, the discard piles, the open sets and, once the game is
        over, the last winner's hand). The hidden tiles of ``history`` (dealt and drawn tiles of the other
        seats, in every round) are rewritten to match, each discard and get still legal when made, so the
        new state replays from its history (see ``resample.redeal``).
        """
        return redeal(self, seat, rng)


def set_text(kinds: tuple[int, ...], colour: int | None) -> str:
    tag = "" if colour is None else f" ({COLOUR_NAMES[colour]})"
    return "[" + " ".join(NAMES[k] for k in sorted(kinds, key=lambda k: (VALUE[k], k))) + "]" + tag


def describe_win(open_sets: Sequence[OpenSet], result: WinScore, advanced: bool) -> str:
    """A winning hand as text: its open sets, the sets and singles ``result`` chose, the points."""
    parts = [set_text(o.kinds, o.colour) + " open" for o in open_sets]
    parts += [set_text(s.kinds, s.colour) for s in result.chosen]
    singles = []
    for k, c in result.singles:
        name = NAMES[k]
        if COLOUR[k] == PURPLE and advanced:
            name += f"({'BR'[c]})"
        singles.append(name)
    parts += singles
    text = " ".join(parts) + f" = 10, +{result.points}"
    if result.bonuses:
        text += f" (base {result.base}, " + ", ".join(f"{name} {pts}" for name, pts in result.bonuses) + ")"
    return text


def text_view(state: TsukuruTenTenState, seat: int | None) -> str:
    """The public situation; with ``seat``, also that seat's concealed tiles."""
    game = state.game
    n = state.n
    opts = f"{game.options['scoring']} scoring, to {game.target}"
    if game.dealer_twice:
        opts += " or every player dealing twice"
    lines = [f"Tsukuru 10 Ten  {n} players  {opts}  |  round {state.rounds_played + (state.phase != OVER)}"]
    if state.last_round:
        lines.append(state.last_round)
    if state.phase == FIRST_DEALER:
        lines.append("Choosing the first dealer")
        return "\n".join(lines)
    if state.phase == DEAL:
        lines.append(f"Dealing: {state.dealt}/{HAND_SIZE * n} tiles dealt")
    lines.append(f"Deck: {state.deck_size} tiles")
    for s in range(n):
        tags = []
        if s == state.dealer and state.phase != OVER:
            tags.append("dealer")
        if state.current_player() == s:
            tags.append("to act")
        elif state.phase == DRAWING and state.turn == s:
            tags.append("drawing")
        tag = f" ({', '.join(tags)})" if tags else ""
        concealed = sum(state.hands[s])
        row = f"Seat {s}{tag}: {state.scores_[s]} pts, {concealed} concealed"
        sets = [set_text(o.kinds, o.colour) for o in state.open_sets[s]]
        if s == state.turn and state.pending is not None:
            sets.append(set_text(state.pending, None) + " colour?")
        if sets:
            row += ", open " + " ".join(sets)
        lines.append(row)
        pile = tiles_text(state.discards[s])
        mark = " *" if state.claimable[s] else ""
        lines.append(f"  discards: {pile}{mark}")
        if seat == s:
            hand = tiles_text(kinds_of(state.hands[s]))
            drawn = f" (drew {NAMES[state.drawn]})" if state.drawn >= 0 and s == state.turn else ""
            lines.append(f"  hand: {hand}{drawn}")
    lines.append("(* = top discard claimable)")
    if state.phase == OVER:
        ranking = sorted(range(n), key=lambda s: -state.scores_[s])
        lines.append("Game over: " + ", ".join(f"seat {s} {state.scores_[s]}" for s in ranking))
    return "\n".join(lines)


__all__ = ["TsukuruTenTenGame", "TsukuruTenTenState", "parse_tile"]
