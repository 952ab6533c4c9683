"""Tsukuru 10 Ten rules engine: ``TsukuruTenTenGame`` (options, static facts) and ``TsukuruTenTenState``.

See the environment card in ``envs/tsukuru_ten_ten/__init__.py`` for the rules as implemented, the
action table and the observation layout. The engine draws no random numbers: the first dealer, every
dealt tile and every drawn tile are chance nodes (a tile kind, weighted by its copies left in the deck).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gameshelf.envs.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    GameFacts,
    Option,
    State,
    count_outcomes,
    draw_from_counts,
    rank_returns,
)
from gameshelf.envs.tsukuru_ten_ten import actions as act
from gameshelf.envs.tsukuru_ten_ten import observation as obs_mod
from gameshelf.envs.tsukuru_ten_ten.actions import DEAL, DISCARDING, DRAWING, FIRST_DEALER, OVER, PICK_COLOUR, TURN
from gameshelf.envs.tsukuru_ten_ten.hand import HAND_SIZE, OpenSet, WinScore, is_winning_fast, score_win
from gameshelf.envs.tsukuru_ten_ten.resample import redeal
from gameshelf.envs.tsukuru_ten_ten.tiles import (
    BLUE,
    COLOUR,
    COLOUR_NAMES,
    COPIES,
    NAMES,
    NUM_KINDS,
    NUM_TILES,
    PAIRS_WITH,
    PURPLE,
    RED,
    VALUE,
    kinds_of,
    parse_tile,
    shapes_of,
    tiles_text,
)

BASIC_TARGET = 4
ADVANCED_TARGET = 25
MAX_GAME_LENGTH = 20000
"""Truncation limit on player decisions: with the points end, rounds that end on an empty deck score
nothing, so the rules do not bound the length of a game (random games take a few hundred decisions)."""


class TsukuruTenTenGame(Game):
    """Tsukuru 10 Ten with fixed options."""

    name = "tsukuru_ten_ten"
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

    def _facts(self) -> GameFacts:
        return GameFacts(num_actions=act.NUM_ACTIONS, max_game_length=MAX_GAME_LENGTH, has_chance=True, has_hidden_info=True)

    def new_initial_state(self) -> TsukuruTenTenState:
        return TsukuruTenTenState(self)


class TsukuruTenTenState(State):
    """A position of a Tsukuru 10 Ten game (see the environment card for the rules)."""

    game: TsukuruTenTenGame

    def __init__(self, game: TsukuruTenTenGame) -> None:
        super().__init__(game)
        n = game.num_players
        self.n = n
        self.phase = FIRST_DEALER
        self.dealer = -1
        self.turn = -1
        self.scores_ = [0] * n
        self.rounds_played = 0
        self.dealer_counts = [0] * n
        """Rounds each seat has dealt (the current round included)."""
        self.last_round = ""
        """One-line summary of the previous round (shown in the text)."""
        self.history_from_start = True
        """Does ``history`` hold the whole game (False for a position built from data)?"""
        self._new_round_fields()

    def _new_round_fields(self) -> None:
        n = self.n
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        """Concealed tiles of each seat, as kind counts."""
        self.open_sets: list[list[OpenSet]] = [[] for _ in range(n)]
        self.pending: tuple[int, int, int] | None = None
        """An all-purple set just revealed whose colour is still to be chosen (phase PICK_COLOUR)."""
        self.discards: list[list[int]] = [[] for _ in range(n)]
        self.claimable = [False] * n
        """Is the top of each seat's pile the tile he discarded on his most recent turn?"""
        self.deck = list(COPIES)
        self.deck_size = NUM_TILES
        self.turns_taken = [0] * n
        """Turns each seat has started this round."""
        self.drawn = -1
        """The tile the current player drew this turn (-1 if he did not draw)."""
        self.dealt = 0

    # ---- whose turn ---------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase in (TURN, DISCARDING, PICK_COLOUR):
            return self.turn
        if phase == OVER:
            return TERMINAL
        return CHANCE

    # ---- chance -------------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == FIRST_DEALER:
            return [(s, 1.0 / self.n) for s in range(self.n)]
        if self.phase in (DEAL, DRAWING):
            return count_outcomes(self.deck)
        return []

    def sample_chance(self, rng: np.random.Generator) -> int:
        if self.phase == FIRST_DEALER:
            return int(rng.integers(self.n))
        if self.phase in (DEAL, DRAWING):
            return draw_from_counts(self.deck, rng)
        raise ValueError("not a chance node")

    # ---- legality -----------------------------------------------------------------------------
    def claim_offsets(self) -> list[int]:
        """Offsets (1..n-1) of the opponents whose top discard the current player may take."""
        seat, n = self.turn, self.n
        offsets = [n - 1] if self.game.previous_only else range(1, n)
        return [o for o in offsets if self.claimable[(seat + o) % n]]

    def open_value(self, seat: int) -> int:
        return sum(o.value for o in self.open_sets[seat])

    def _wins_with(self, seat: int, extra: int) -> bool:
        hand = self.hands[seat]
        if extra >= 0:
            hand = list(hand)
            hand[extra] += 1
        return is_winning_fast(tuple(hand), self.open_value(seat), len(self.open_sets[seat]))

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(act.NUM_ACTIONS, dtype=bool)
        phase = self.phase
        if phase == TURN:
            seat, n = self.turn, self.n
            hand = self.hands[seat]
            mask[act.DRAW if self.deck_size else act.END_ROUND] = True
            for o in self.claim_offsets():
                tile = self.discards[(seat + o) % n][-1]
                if self._wins_with(seat, tile):
                    mask[act.finish_from(o)] = True
                for a, b in self._get_pairs(hand, tile):
                    mask[act.get(o, a, b)] = True
        elif phase == DISCARDING:
            hand = self.hands[self.turn]
            for k in range(NUM_KINDS):
                if hand[k]:
                    mask[act.DISCARD + k] = True
            if self.drawn >= 0 and self._wins_with(self.turn, -1):
                mask[act.FINISH] = True
        elif phase == PICK_COLOUR:
            mask[act.COLOUR] = mask[act.COLOUR + 1] = True
        return mask

    @staticmethod
    def _get_pairs(hand: list[int], tile: int) -> list[tuple[int, int]]:
        """Hand pairs (a <= b) that form a set with ``tile``."""
        return [(a, b) for a, b in PAIRS_WITH[tile] if (hand[a] >= 2 if a == b else hand[a] and hand[b])]

    def _is_legal(self, player: int, action: int) -> bool:
        if player == CHANCE:
            if self.phase == FIRST_DEALER:
                return 0 <= action < self.n
            return 0 <= action < NUM_KINDS and self.deck[action] > 0
        if not 0 <= action < act.NUM_ACTIONS:
            return False
        phase, seat = self.phase, self.turn
        if phase == DISCARDING:
            if action == act.FINISH:
                return self.drawn >= 0 and self._wins_with(seat, -1)
            return act.DISCARD <= action < act.COLOUR and self.hands[seat][action - act.DISCARD] > 0
        if phase == PICK_COLOUR:
            return act.COLOUR <= action < act.GET
        if phase != TURN:
            return False
        if action == act.DRAW:
            return self.deck_size > 0
        if action == act.END_ROUND:
            return self.deck_size == 0
        if act.FINISH_FROM <= action < act.DISCARD:
            offset = action - act.FINISH_FROM + 1
            if offset not in self.claim_offsets():
                return False
            return self._wins_with(seat, self.discards[(seat + offset) % self.n][-1])
        if action >= act.GET:
            offset, a, b = act.decode_get(action)
            if offset not in self.claim_offsets():
                return False
            tile = self.discards[(seat + offset) % self.n][-1]
            return (a, b) in self._get_pairs(self.hands[seat], tile)
        return False

    # ---- applying -----------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        phase = self.phase
        if phase == FIRST_DEALER:
            self.dealer = action
            self._start_round()
            return
        if phase == DEAL:
            seat = (self.dealer + self.dealt) % self.n
            self._take_from_deck(action)
            self.hands[seat][action] += 1
            self.dealt += 1
            if self.dealt == HAND_SIZE * self.n:
                self.phase = TURN
                self.turn = self.dealer
                self.turns_taken[self.turn] = 1
            return
        if phase == DRAWING:
            self._take_from_deck(action)
            self.hands[self.turn][action] += 1
            self.drawn = action
            self.phase = DISCARDING
            return
        seat = self.turn
        if phase == TURN:
            if action == act.DRAW:
                self.phase = DRAWING
            elif action == act.END_ROUND:
                self.last_round = f"Round {self.rounds_played + 1}: the deck ran out, nobody scores (seat {seat} ended it)"
                self._end_round()
            elif action < act.DISCARD:
                offset = action - act.FINISH_FROM + 1
                tile = self._take_discard(offset)
                self.hands[seat][tile] += 1
                self._finish(seat, f"with {NAMES[tile]} from seat {(seat + offset) % self.n}'s discard", heaven=False)
            else:
                offset, a, b = act.decode_get(action)
                tile = self._take_discard(offset)
                hand = self.hands[seat]
                hand[a] -= 1
                hand[b] -= 1
                kinds: tuple[int, int, int] = tuple(sorted((tile, a, b)))  # type: ignore[assignment]
                shapes = shapes_of(kinds)
                if len(shapes) > 1:  # all purple: the colour is chosen next
                    self.pending = kinds
                    self.phase = PICK_COLOUR
                else:
                    self.open_sets[seat].append(OpenSet(kinds, shapes[0].colour))
                    self.phase = DISCARDING
            return
        if phase == PICK_COLOUR:
            assert self.pending is not None
            self.open_sets[seat].append(OpenSet(self.pending, BLUE if action == act.COLOUR else RED))
            self.pending = None
            self.phase = DISCARDING
            return
        # DISCARDING
        if action == act.FINISH:
            self._finish(seat, f"after drawing {NAMES[self.drawn]}", heaven=self.turns_taken[seat] == 1)
            return
        kind = action - act.DISCARD
        self.hands[seat][kind] -= 1
        self.discards[seat].append(kind)
        self.claimable[seat] = True
        self.drawn = -1
        self._next_turn()

    def _take_from_deck(self, kind: int) -> None:
        self.deck[kind] -= 1
        self.deck_size -= 1

    def _take_discard(self, offset: int) -> int:
        owner = (self.turn + offset) % self.n
        self.claimable[owner] = False
        return self.discards[owner].pop()

    def _next_turn(self) -> None:
        self.turn = (self.turn + 1) % self.n
        self.turns_taken[self.turn] += 1
        self.phase = TURN

    def _start_round(self) -> None:
        self._new_round_fields()
        self.dealer_counts[self.dealer] += 1
        self.turn = -1
        self.phase = DEAL

    def win_score(self, seat: int, heaven: bool) -> WinScore:
        """Score of ``seat``'s current 8-tile hand as a win (``ValueError`` if it is not worth 10)."""
        return score_win(
            self.hands[seat],
            self.open_sets[seat],
            advanced=self.game.advanced,
            dealer=seat == self.dealer,
            heaven=heaven,
        )

    def _finish(self, seat: int, how: str, heaven: bool) -> None:
        result = self.win_score(seat, heaven)
        self.scores_[seat] += result.points
        self.last_round = f"Round {self.rounds_played + 1}: seat {seat} finished {how}: {describe_win(self, seat, result)}"
        self._end_round(winner=seat)

    def _end_round(self, winner: int = -1) -> None:
        self.rounds_played += 1
        game = self.game
        over = winner >= 0 and self.scores_[winner] >= game.target
        if game.dealer_twice and self.rounds_played >= 2 * self.n:
            over = True
        if over:
            self.phase = OVER
            self.turn = -1
            self.drawn = -1
            return
        self.dealer = (self.dealer + 1) % self.n
        self._start_round()

    # ---- results ------------------------------------------------------------------------------
    def returns(self) -> np.ndarray:
        if self.phase != OVER:
            return np.zeros(self.n, dtype=np.float64)
        return rank_returns(self.scores_)

    def scores(self) -> np.ndarray:
        """Points of each seat."""
        return np.array(self.scores_, dtype=np.float64)

    # ---- observation and text -----------------------------------------------------------------
    def _observation(self, seat: int) -> np.ndarray:
        return obs_mod.encode(self, seat)

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
            top = NAMES[self.discards[owner][-1]] if self.discards[owner] else "?"
            return f"finish with {top} from seat {owner}"
        if act.DISCARD <= action < act.COLOUR:
            return f"discard {NAMES[action - act.DISCARD]}"
        if act.COLOUR <= action < act.GET:
            return f"colour {COLOUR_NAMES[action - act.COLOUR]}"
        offset, a, b = act.decode_get(action)
        owner = (self.turn + offset) % self.n
        top = NAMES[self.discards[owner][-1]] if self.discards[owner] else "?"
        return f"get {top} from seat {owner} with {NAMES[a]}+{NAMES[b]}"

    def to_text(self) -> str:
        return text_view(self, None)

    def _seat_text(self, seat: int) -> str:
        return text_view(self, seat)

    # ---- hidden information -------------------------------------------------------------------
    def unseen(self, seat: int) -> list[int]:
        """Per kind: tiles ``seat`` cannot see (the other concealed hands and the deck)."""
        pool = list(self.deck)
        for s in range(self.n):
            if s != seat:
                for k, c in enumerate(self.hands[s]):
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

    # ---- copying ------------------------------------------------------------------------------
    def clone(self) -> TsukuruTenTenState:
        new = TsukuruTenTenState.__new__(TsukuruTenTenState)
        new.game = self.game
        new.history = list(self.history)
        new.n = self.n
        new.phase = self.phase
        new.dealer = self.dealer
        new.turn = self.turn
        new.scores_ = list(self.scores_)
        new.rounds_played = self.rounds_played
        new.dealer_counts = list(self.dealer_counts)
        new.last_round = self.last_round
        new.history_from_start = self.history_from_start
        new.hands = [list(h) for h in self.hands]
        new.open_sets = [list(o) for o in self.open_sets]
        new.pending = self.pending
        new.discards = [list(d) for d in self.discards]
        new.claimable = list(self.claimable)
        new.deck = list(self.deck)
        new.deck_size = self.deck_size
        new.turns_taken = list(self.turns_taken)
        new.drawn = self.drawn
        new.dealt = self.dealt
        return new


def set_text(kinds: tuple[int, ...], colour: int | None) -> str:
    tag = "" if colour is None else f" ({COLOUR_NAMES[colour]})"
    return "[" + " ".join(NAMES[k] for k in sorted(kinds, key=lambda k: (VALUE[k], k))) + "]" + tag


def describe_win(state: TsukuruTenTenState, seat: int, result: WinScore) -> str:
    parts = [set_text(o.kinds, o.colour) + " open" for o in state.open_sets[seat]]
    parts += [set_text(s.kinds, s.colour) for s in result.chosen]
    singles = []
    for k, c in result.singles:
        name = NAMES[k]
        if COLOUR[k] == PURPLE and state.game.advanced:
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
