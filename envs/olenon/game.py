"""Olenon rules engine: ``OlenonGame`` (options, static facts) and ``OlenonState``.

See the environment card in ``envs/olenon/__init__.py`` for the rules as implemented, the action table
and the observation layout. The engine draws no random numbers: the first player of round 1 (and of
every round with ``first_player_rule="random"``) and every dealt card are chance nodes (their odds are the
kernel's ``chance_weights``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, GameFacts, IllegalActionError, Option, State
from gameshelf.envs.core.kernel import KernelGame, KernelState
from gameshelf.envs.core.position import PositionReader, position_builder
from gameshelf.envs.olenon import kernel as K
from gameshelf.envs.olenon import observation as obs_mod
from gameshelf.envs.olenon.actions import (
    CHOOSE_FIRST,
    DEAL,
    NUM_ACTIONS,
    OVER,
    PASS,
    PHASE_NAMES,
    PLAY,
    decode,
    parse,
    play_action,
    replace_action,
)
from gameshelf.envs.olenon.cards import (
    DEALT,
    DECK,
    HAND_SIZE,
    MAX_ROUNDS,
    MAX_TABLE,
    NUM_SEATS,
    NUM_VALUES,
    ROUNDS_TO_WIN,
    TEAM_NAMES,
    cards_text,
    counts_of,
)
from gameshelf.envs.olenon.kernel import FIRST_PLAYER_RULES

MAX_GAME_LENGTH = 3000
"""Truncation limit on player decisions (see "Readings of the spec": the rules allow endless play)."""

MAX_COUNT = 2**14
"""Bound of the position builder's ``played`` and ``picked`` counts. The rules set none (endless play), the
``int16`` state row holds up to 32767: this bound leaves room for more plays than ``MAX_GAME_LENGTH`` allows."""


class OlenonGame(KernelGame):
    """Olenon with fixed options (``num_players`` is always 4)."""

    name = "olenon"
    kernel = K
    """The compiled rules (``kernel.py``): the state wraps its row, ``gameshelf.vector`` batches it."""
    OPTIONS = {
        "num_players": Option(4, choices=(4,), doc="two teams of two: seats 0 & 2 against 1 & 3"),
        "first_player_rule": Option(
            "rotate",
            choices=FIRST_PLAYER_RULES,
            doc="first player of rounds 2-3: rotate clockwise, the player who went out, "
            "the losing-team player after him, or random",
        ),
        "open_team_info": Option(False, choices=(False, True), doc="every hand is public (unrestricted public talk)"),
    }
    LAYOUT = obs_mod.LAYOUT

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.first_player_rule: str = self.options["first_player_rule"]
        self.open_team_info: bool = self.options["open_team_info"]
        self.initial = K.initial_state(self.first_player_rule, self.open_team_info)

    def _facts(self) -> GameFacts:
        return GameFacts(
            num_actions=NUM_ACTIONS,
            max_game_length=MAX_GAME_LENGTH,
            has_chance=True,
            has_hidden_info=not self.options["open_team_info"],
        )

    def new_initial_state(self) -> OlenonState:
        return OlenonState(self)

    # ---- helpers for scripted positions (tests, examples) -------------------------------------
    @staticmethod
    def deal_outcomes(hands: Sequence[Sequence[int]]) -> list[int]:
        """The 28 chance outcomes (card values, in deal order) that deal exactly ``hands``.

        ``hands[s]`` lists the 7 card values of seat s. Cards are dealt one at a time clockwise from
        seat 0, so the k-th card goes to seat ``k % 4``.
        """
        if len(hands) != NUM_SEATS:
            raise ValueError(f"need {NUM_SEATS} hands, got {len(hands)}")
        total = [0] * NUM_VALUES
        for s, hand in enumerate(hands):
            if len(hand) != HAND_SIZE:
                raise ValueError(f"hand of seat {s} has {len(hand)} cards; each hand has {HAND_SIZE}")
            for v, c in enumerate(counts_of(list(hand))):
                total[v] += c
        for v in range(NUM_VALUES):
            if total[v] > DECK[v]:
                raise ValueError(f"the hands hold {total[v]} cards of value {v}; the deck has {DECK[v]}")
        ordered = [sorted(hand) for hand in hands]
        return [ordered[k % NUM_SEATS][k // NUM_SEATS] for k in range(DEALT)]

    def state_from_deal(self, hands: Sequence[Sequence[int]], first_player: int = 0) -> OlenonState:
        """A round-1 state right after dealing ``hands`` with ``first_player`` to act (via chance outcomes)."""
        if first_player not in range(NUM_SEATS):
            raise ValueError(f"first_player must be a seat 0..3, got {first_player!r}")
        state = self.new_initial_state()
        state.apply_action(first_player)
        for card in self.deal_outcomes(hands):
            state.apply_action(card)
        return state

    @position_builder
    def state_from_position(self, position: Mapping[str, Any]) -> OlenonState:
        """A position from plain data (``state.position()`` gives one; keys in the card), validated.

        Cards are counted per value 0..6; whatever is not in a hand, on the table, face up in front of a
        passed seat or discarded this round is set aside (or not dealt yet). ``played`` and ``picked`` count
        up to ``MAX_COUNT`` (a card can be played, taken back by a passer and played again any number of times:
        the rules allow endless play); they must agree with the deal too: each seat's hand at the deal
        (``hands + played - picked``) holds 7 cards, no value more often than the deck, and every card
        played and not taken back is on the table, face up in front of a passer, or discarded.
        """
        read = PositionReader(position, self.name)
        state = OlenonState(self)
        state.phase = PHASE_NAMES.index(read.choice("phase", PHASE_NAMES))
        state.round_index = read.integer("round", 0, MAX_ROUNDS - 1)
        state.wins = read.int_list("wins", 0, ROUNDS_TO_WIN, 2)
        over = state.phase == OVER
        if sum(state.wins) != state.round_index + over or over != (max(state.wins) == ROUNDS_TO_WIN):
            raise read.fail("wins", f"{state.wins} does not fit round {state.round_index + 1} ({PHASE_NAMES[state.phase]})")
        state.round_first = read.integer("round_first", -1, NUM_SEATS - 1)
        state.out_player = read.integer("out_player", -1, NUM_SEATS - 1)
        state.hands = read.int_table("hands", NUM_SEATS, 0, max(DECK), NUM_VALUES)
        state.hand_sizes = [sum(h) for h in state.hands]
        state.dealt = read.integer("dealt", 0, DEALT)
        state.table_count = read.integer("table_count", 0, MAX_TABLE)
        state.table_value = read.integer("table_value", -1, NUM_VALUES - 1)
        if (state.table_count == 0) != (state.table_value < 0):
            raise read.fail("table_value", "is -1 exactly when the table is empty")
        state.passed = read.int_list("passed", -1, NUM_VALUES - 1, NUM_SEATS)
        state.discards = read.int_list("discards", 0, max(DECK), NUM_VALUES)
        state.known = read.int_table("known", NUM_SEATS, 0, max(DECK), NUM_VALUES)
        state.played = read.int_table("played", NUM_SEATS, 0, MAX_COUNT, NUM_VALUES)
        state.picked = read.int_table("picked", NUM_SEATS, 0, MAX_COUNT, NUM_VALUES)
        state.turn = read.integer("to_move", -1, NUM_SEATS - 1)
        state.last_player = read.integer("last_player", -1, NUM_SEATS - 1)
        read.done()
        self._check_cards(state, read)
        self._check_phase(state, read)
        return state

    @staticmethod
    def _check_cards(state: OlenonState, read: PositionReader) -> None:
        """Every card of the round is accounted for (see ``state_from_position``)."""
        for v in range(NUM_VALUES):
            on_table = state.table_count if state.table_value == v else 0
            seen = sum(h[v] for h in state.hands) + state.discards[v] + state.passed.count(v) + on_table
            if seen > DECK[v]:
                raise read.fail("hands", f"{seen} cards of value {v} are in play; the deck has {DECK[v]}")
            for s in range(NUM_SEATS):
                if state.known[s][v] > state.hands[s][v]:
                    raise read.fail("known", f"more cards of value {v} are known in seat {s}'s hand than it holds")
                if state.known[s][v] > state.picked[s][v]:
                    raise read.fail("known", f"seat {s}: cards are known in a hand only when taken back after a pass")
                if state.hands[s][v] + state.played[s][v] < state.picked[s][v]:
                    raise read.fail("picked", f"seat {s} took back more {v}s than it holds and played")
            dealt = sum(state.hands[s][v] + state.played[s][v] - state.picked[s][v] for s in range(NUM_SEATS))
            if dealt > DECK[v]:
                raise read.fail("played", f"the hands were dealt {dealt} cards of value {v}; the deck has {DECK[v]}")
            out = sum(state.played[s][v] - state.picked[s][v] for s in range(NUM_SEATS))
            if out != on_table + state.passed.count(v) + state.discards[v]:
                raise read.fail(
                    "played",
                    f"{out} cards of value {v} were played and not taken back, but {on_table} are on the table, "
                    f"{state.passed.count(v)} face up and {state.discards[v]} discarded",
                )
        for s in range(NUM_SEATS):
            dealt = state.hand_sizes[s] + sum(state.played[s]) - sum(state.picked[s])
            expected = len(range(s, state.dealt, NUM_SEATS))  # the k-th card dealt goes to seat k % 4
            if dealt != expected:
                raise read.fail("hands", f"seat {s} was dealt {expected} cards, but hand + played - picked gives {dealt}")

    def _check_phase(self, state: OlenonState, read: PositionReader) -> None:
        """What each phase allows: a deal before any play, a trick the rules have not ended yet, a finished game."""
        if state.out_player >= 0 and state.wins[state.out_player % 2] == 0:
            raise read.fail("out_player", f"seat {state.out_player} went out, so its team has won a round")
        if state.round_index == 0 and state.out_player >= 0:
            raise read.fail("out_player", "nobody has gone out in round 1")
        if state.round_index and state.out_player >= 0 and state.round_first >= 0 and state.phase != OVER:
            rule = self.first_player_rule
            first = {"winner": state.out_player, "loser_team": (state.out_player + 1) % NUM_SEATS}.get(rule, state.round_first)
            if state.round_first != first:
                raise read.fail(
                    "round_first", f"under first_player_rule={rule!r} seat {first} starts after seat {state.out_player} went out"
                )
        if state.phase in (CHOOSE_FIRST, DEAL):
            if state.phase == CHOOSE_FIRST and (state.round_first >= 0 or state.dealt):
                raise read.fail("round_first", "is -1 and nothing is dealt while the first player is chosen")
            if state.phase == CHOOSE_FIRST and state.round_index and self.first_player_rule != "random":
                raise read.fail(
                    "phase", f"only first_player_rule='random' chooses the first player of round {state.round_index + 1}"
                )
            if state.phase == DEAL and (state.round_first < 0 or state.dealt == DEALT):
                raise read.fail("dealt", "a deal has a first player and ends (phase play) once 28 cards are dealt")
            started = state.table_count or any(p >= 0 for p in state.passed) or any(state.discards)
            if started or state.turn >= 0 or state.last_player >= 0 or any(map(any, state.played)):
                raise read.fail("phase", "nothing is played before the deal is complete (to_move and last_player -1)")
            return
        if state.dealt != DEALT:
            raise read.fail("dealt", "play begins once the whole deal (28 cards) is dealt")
        if state.round_first < 0:
            raise read.fail("round_first", "must be a seat once the cards are dealt")
        if (state.last_player < 0) != (not any(map(any, state.played))):
            raise read.fail("last_player", "is -1 exactly when nobody has played this round")
        if state.phase == OVER:
            if state.turn != -1 or state.out_player < 0 or state.hand_sizes[state.out_player]:
                raise read.fail("out_player", "a finished game has to_move -1 and the seat that went out with an empty hand")
            if state.wins[state.out_player % 2] != ROUNDS_TO_WIN or state.last_player != state.out_player:
                raise read.fail("out_player", "the seat that went out played last and its team won the game")
            return
        if not state.turn >= 0 or state.passed[state.turn] >= 0:
            raise read.fail("to_move", "must be a seat that is not passed, after the whole deal")
        if state.last_player < 0 and state.turn != state.round_first:
            raise read.fail("to_move", f"the first player of the round (seat {state.round_first}) plays first")
        if any(size == 0 for size in state.hand_sizes):
            raise read.fail("hands", "an empty hand ends the round: no seat plays on without cards")
        if state.table_count == MAX_TABLE:
            raise read.fail("table_count", "4 cards on the table end the trick (Olenon): the table is empty again")
        for team in range(2):
            if state.passed[team] >= 0 and state.passed[team + 2] >= 0:
                raise read.fail("passed", f"both players of team {TEAM_NAMES[team]} passed: that ended the trick")

    def string_to_action(self, state: State, text: str) -> int:
        """Parse ``play 2x5`` / ``play 5``, ``replace with 3x6`` / ``replace with 6``, ``pass`` /
        ``pass (take a 4)``, or an action number; the move must be legal in ``state``."""
        if not isinstance(state, OlenonState):
            raise TypeError(f"expected an OlenonState, got {type(state).__name__}")
        if state.current_player() < 0:
            return super().string_to_action(state, text)
        parsed = parse(text)
        action: int | None = None
        if parsed is not None:
            kind, count, value = parsed
            assert value is None or isinstance(value, int)
            if kind == "play" and count is not None and value is not None and 1 <= count <= MAX_TABLE and value < NUM_VALUES:
                action = play_action(count, value)
            elif kind == "replace" and value is not None and value < NUM_VALUES:
                if count is None or count == state.table_count:
                    action = replace_action(value)
            elif kind == "pass" and (value is None or value == state.table_value):
                action = PASS
        if action is not None and state.legal_action_mask()[action]:
            return action
        return super().string_to_action(state, text)


class OlenonState(KernelState):
    """A position of an Olenon game (see the environment card for the rules): a view over one kernel
    state row (``kernel.py``), which the rules act on. The fields read and write that row like
    plain ints and lists."""

    game: OlenonGame
    EXTRA = ("deal_start",)

    def __init__(self, game: OlenonGame) -> None:
        super().__init__(game)
        self.deal_start = 0
        """Index in ``history`` of this round's first dealt card."""

    phase = K.ROW.field("phase")
    round_index = K.ROW.field("round_index")
    wins = K.ROW.field("wins")
    round_first = K.ROW.field("round_first")
    out_player = K.ROW.field("out_player")
    hands = K.ROW.field("hands")
    hand_sizes = K.ROW.field("hand_sizes")
    dealt = K.ROW.field("dealt")
    table_value = K.ROW.field("table_value")
    table_count = K.ROW.field("table_count")
    passed = K.ROW.field("passed")
    discards = K.ROW.field("discards")
    known = K.ROW.field("known")
    played = K.ROW.field("played")
    picked = K.ROW.field("picked")
    turn = K.ROW.field("turn")
    last_player = K.ROW.field("last_player")

    # ---- whose turn ---------------------------------------------------------------------------
    def current_player(self) -> int:
        s = self.s  # the kernel's current_player, read here without a compiled call (the hottest query)
        phase = s[K.PHASE]
        if phase == PLAY:
            return int(s[K.TURN])
        if phase == OVER:
            return TERMINAL
        return CHANCE

    # ---- actions (mask, legality and playout: KernelState's) ----------------------------------
    def _apply(self, action: int) -> None:
        if self.s[K.PHASE] == DEAL and self.s[K.DEALT] == 0:
            self.deal_start = len(self.history)
        K.apply(self.S, 0, action)

    # ---- results (returns, observation: KernelState's) ----------------------------------------
    def scores(self) -> np.ndarray:
        """Rounds won by each seat's team."""
        return np.array([float(self.wins[s % 2]) for s in range(NUM_SEATS)], dtype=np.float64)

    def winning_team(self) -> int:
        """0 (A), 1 (B), or -1 while the game is on."""
        if self.phase != OVER:
            return -1
        return 0 if self.wins[0] > self.wins[1] else 1

    # ---- text -----------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if self.phase == CHOOSE_FIRST:
            return f"first player: seat {action}"
        if self.phase == DEAL:
            return f"deal a {action} to seat {self.dealt % NUM_SEATS}"
        kind, count, value = decode(action)
        if kind == "play":
            return f"play {count}x{value}"
        if kind == "replace":
            return f"replace with {self.table_count}x{value}" if self.table_count else f"replace with {value}"
        return f"pass (take a {self.table_value})" if self.table_count else "pass"

    def _seat_text(self, seat: int) -> str:
        return self.to_text(seat)

    def to_text(self, seat: int | None = None) -> str:
        """The public situation; hands are shown only with ``open_team_info`` (all) or for ``seat`` (its own)."""
        opts = self.game
        lines = [
            f"Olenon  round {self.round_index + 1}  |  rounds won: A (seats 0,2) {self.wins[0]} - B (seats 1,3) {self.wins[1]}"
        ]
        if self.phase == CHOOSE_FIRST:
            lines.append("Choosing the first player of the round")
        else:
            lines.append(f"First player of the round: seat {self.round_first}")
        if self.phase == DEAL:
            lines.append(f"Dealing: {self.dealt}/{DEALT} cards dealt")
        if self.table_count:
            table = " ".join([str(self.table_value)] * self.table_count)
            lines.append(f"Table: {table}  ({self.table_count} x {self.table_value})")
        else:
            lines.append("Table: empty")
        lines.append(f"Last to play: {'seat ' + str(self.last_player) if self.last_player >= 0 else '-'}")
        for s in range(NUM_SEATS):
            mark = " <- to act" if self.current_player() == s else ""
            passed = f"{self.passed[s]} (face up)" if self.passed[s] >= 0 else "-"
            row = f"Seat {s} [{TEAM_NAMES[s % 2]}]  cards: {self.hand_sizes[s]:>2}  passed: {passed}"
            if opts.open_team_info or seat == s:
                row += f"  hand: {cards_text(self.hands[s])}"
            elif any(self.known[s]):
                row += f"  known in hand: {cards_text(self.known[s])}"
            lines.append(row + mark)
        lines.append(f"Discards: {cards_text(self.discards)}")
        if self.phase == OVER:
            team = self.winning_team()
            score = f"{self.wins[team]}-{self.wins[1 - team]}"
            lines.append(f"Game over: team {TEAM_NAMES[team]} wins {score} (seat {self.out_player} went out)")
        elif self.round_index and self.out_player >= 0 and self.phase != PLAY:
            lines.append(f"Previous round won by team {TEAM_NAMES[self.out_player % 2]} (seat {self.out_player} went out)")
        return "\n".join(lines)

    # ---- hidden information -------------------------------------------------------------------
    def unseen_cards(self, seat: int) -> list[int]:
        """Per value: the cards ``seat`` cannot place (other hands beyond their known cards, plus the 4
        set-aside cards, or the undealt cards during a deal)."""
        pool = list(DECK)
        for v in range(NUM_VALUES):
            pool[v] -= self.hands[seat][v] + self.discards[v]
            for s in range(NUM_SEATS):
                if s != seat:
                    pool[v] -= self.known[s][v]
                if self.passed[s] == v:
                    pool[v] -= 1
        if self.table_count:
            pool[self.table_value] -= self.table_count
        return pool

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> OlenonState:
        """A state ``seat`` cannot tell apart from this one: the other hands redealt from the unseen cards.

        Each other hand keeps its size and its publicly known cards (passed cards it took back and may
        not have played since); the remaining slots are filled by a uniform shuffle of the unseen cards
        (the rest become the set-aside cards). The current round's deal in ``history`` is rewritten to
        match, so the new state replays from its history.
        """
        new = self.clone()
        if self.game.open_team_info:
            return new
        pool = self.unseen_cards(seat)
        cards = np.repeat(np.arange(NUM_VALUES), pool)
        rng.shuffle(cards)
        pos = 0
        for s in range(NUM_SEATS):
            if s == seat:
                continue
            hand = list(self.known[s])
            free = self.hand_sizes[s] - sum(hand)
            for v in cards[pos : pos + free]:
                hand[int(v)] += 1
            pos += free
            new.hands[s] = hand
        # rewrite this round's deal: initial hand = hand now + played - picked up
        initial = [
            sorted(v for v in range(NUM_VALUES) for _ in range(new.hands[s][v] + self.played[s][v] - self.picked[s][v]))
            for s in range(NUM_SEATS)
        ]
        deal = [initial[k % NUM_SEATS][k // NUM_SEATS] for k in range(self.dealt)]
        if len(new.history) >= self.deal_start + self.dealt:  # a position built from data has no deal to rewrite
            new.history[self.deal_start : self.deal_start + self.dealt] = deal
        return new

    def position(self) -> dict[str, Any]:
        return {
            "phase": PHASE_NAMES[self.phase],
            "round": self.round_index,
            "wins": list(self.wins),
            "round_first": self.round_first,
            "out_player": self.out_player,
            "hands": [list(h) for h in self.hands],
            "dealt": self.dealt,
            "table_count": self.table_count,
            "table_value": self.table_value,
            "passed": list(self.passed),
            "discards": list(self.discards),
            "known": [list(h) for h in self.known],
            "played": [list(h) for h in self.played],
            "picked": [list(h) for h in self.picked],
            "to_move": self.turn,
            "last_player": self.last_player,
        }


__all__ = ["FIRST_PLAYER_RULES", "IllegalActionError", "OlenonGame", "OlenonState"]
