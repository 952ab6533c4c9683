"""CATsle Builders rules engine: ``CatsleGame`` and ``CatsleState``.

See the package docstring (``envs/catsle_builders/__init__.py``) for the rules as implemented, the
action encoding, the observation layout, the position keys and the readings taken.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.catsle_builders import observation as obs_mod
from gameshelf.envs.catsle_builders.actions import (
    DEAL,
    FIRST,
    NUM_ACTIONS,
    OVER,
    PLACE,
    PLACE_BASE,
    PLAY,
    TAKE,
    TAKE_BASE,
)
from gameshelf.envs.catsle_builders.cards import (
    DEFAULT_LIMITS,
    HAND_SIZE,
    MAX_LIMIT,
    NUM_CARDS,
    NUM_ROUNDS,
    NUM_SUITS,
    NUM_VALUES,
    PERFECT_BONUS,
    SUIT_MASK,
    SUITS,
    TAKES,
    card_name,
    cards_of,
    deck_mask,
    hand_text,
    rating,
    round_score,
)
from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, GameFacts, Option, State, rank_returns


def _limits_ok(value: Any) -> bool:
    return (
        isinstance(value, (tuple, list))
        and len(value) == 4
        and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v <= MAX_LIMIT for v in value)
    )


class CatsleGame(Game):
    """CATsle Builders for 3 to 5 players."""

    name = "catsle_builders"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(4, choices=(4, 3, 5), doc="number of players"),
        "column_limits": Option(
            DEFAULT_LIMITS,
            check=_limits_ok,
            allowed="4 integers 0..12",
            doc="limits of the four ordinary columns (4-5 players add a fifth column of limit 0)",
        ),
    }
    LAYOUT = obs_mod.LAYOUT

    def __init__(self, **options: Any) -> None:
        if "column_limits" in options and isinstance(options["column_limits"], list):
            options["column_limits"] = tuple(options["column_limits"])
        if "column_limits" in options and _limits_ok(options["column_limits"]):
            options["column_limits"] = tuple(int(v) for v in options["column_limits"])
        super().__init__(**options)
        n = self.options["num_players"]
        self.limits: tuple[int, ...] = tuple(self.options["column_limits"]) + ((0,) if n >= 4 else ())
        """Limit of each column of a board (4 columns at 3 players, 5 at 4-5 players)."""
        self.num_columns = len(self.limits)
        self.hand_size = HAND_SIZE[n]
        self.takes: tuple[int, ...] = TAKES[n]
        self.deck = deck_mask(n)
        self.deck_size = bin(self.deck).count("1")
        self.max_total = float(NUM_ROUNDS * (sum(self.options["column_limits"]) + PERFECT_BONUS[-1]))
        """Upper bound of a total score (observation scale)."""

    def _facts(self) -> GameFacts:
        n = self.options["num_players"]
        tricks = HAND_SIZE[n]
        taken = sum(TAKES[n])
        return GameFacts(
            num_actions=NUM_ACTIONS,
            max_game_length=NUM_ROUNDS * tricks * (n + 2 * taken),
            has_chance=True,
            has_hidden_info=True,
        )

    def new_initial_state(self) -> CatsleState:
        return CatsleState(self)


class CatsleState(State):
    """A position of a CATsle Builders game (see the environment card for the rules)."""

    game: CatsleGame

    def __init__(self, game: CatsleGame) -> None:
        super().__init__(game)
        n = game.num_players
        self.phase = FIRST
        self.round_index = 0
        self.round_first = -1
        """Seat that leads the round's first trick."""
        self.totals = [0] * n
        self.round_scores: list[list[int]] = []
        """Score of every seat in each finished round."""
        self.last_perfect = [0] * n
        """Perfect columns of every seat in the latest round scoring (the tie-break after round 3)."""
        self.deal_start = -1
        """Index in ``history`` of this round's first dealt card (-1: the deal is not in the history)."""
        self.turn = -1
        self._new_round()

    def _new_round(self) -> None:
        game = self.game
        n = game.num_players
        self.hands = [0] * n
        self.hand_sizes = [0] * n
        self.undealt = game.deck
        """Cards not dealt yet (after the deal: the cards out of the round)."""
        self.dealt = 0
        self.leader = self.round_first
        """Seat that leads the current trick."""
        self.trick: list[int] = []
        """Cards of the current trick in play order (the leader's first)."""
        self.trick_left = 0
        """Cards still in the trick while it is being taken."""
        self.queue: list[int] = []
        """Seats taking from the current trick, one entry per card, in rating order."""
        self.take_pos = 0
        self.pending = -1
        """Taken card waiting for its column (place decision)."""
        self.col_suit = [[-1] * game.num_columns for _ in range(n)]
        self.cols: list[list[list[int]]] = [[[] for _ in range(game.num_columns)] for _ in range(n)]
        self.discards = 0
        self.played = 0
        """Cards played this round (on boards, discarded or in the trick)."""
        self.played_by = [0] * n
        self.voids = [0] * n
        """Per seat, bit mask of suits it showed it lacks this round."""

    # ---- whose turn ---------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase in (PLAY, TAKE, PLACE):
            return self.turn
        if phase == OVER:
            return TERMINAL
        return CHANCE

    # ---- chance -------------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = self.game.num_players
        if self.phase == FIRST:
            return [(s, 1.0 / n) for s in range(n)]
        if self.phase == DEAL:
            cards = cards_of(self.undealt)
            p = 1.0 / len(cards)
            return [(c, p) for c in cards]
        return []

    def sample_chance(self, rng: np.random.Generator) -> int:
        if self.phase == FIRST:
            return int(rng.integers(self.game.num_players))
        if self.phase == DEAL:
            cards = cards_of(self.undealt)
            return cards[int(rng.integers(len(cards)))]
        raise ValueError("not a chance node")

    # ---- actions ------------------------------------------------------------------------------
    def playable(self) -> int:
        """Bit mask of the cards the player to act may play (follow the led suit if able)."""
        hand = self.hands[self.turn]
        if self.trick:
            follow = hand & SUIT_MASK[self.trick[0] // NUM_VALUES]
            if follow:
                return follow
        return hand

    def columns_for(self, seat: int, c: int) -> list[int]:
        """Columns of ``seat``'s board that may receive card ``c``: the one holding its suit, else every empty one."""
        suits = self.col_suit[seat]
        suit = c // NUM_VALUES
        if suit in suits:
            return [suits.index(suit)]
        return [k for k, s in enumerate(suits) if s < 0]

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        phase = self.phase
        if phase == PLAY:
            mask[cards_of(self.playable())] = True
        elif phase == TAKE:
            mask[[TAKE_BASE + c for c in cards_of(self.trick_left)]] = True
        elif phase == PLACE:
            mask[[PLACE_BASE + k for k in self.columns_for(self.turn, self.pending)]] = True
        return mask

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == PLAY:
            return cards_of(self.playable())
        if phase == TAKE:
            return [TAKE_BASE + c for c in cards_of(self.trick_left)]
        if phase == PLACE:
            return [PLACE_BASE + k for k in self.columns_for(self.turn, self.pending)]
        return []

    def _is_legal(self, player: int, action: int) -> bool:
        phase = self.phase
        if phase == FIRST:
            return 0 <= action < self.game.num_players
        if phase == DEAL:
            return 0 <= action < NUM_CARDS and bool(self.undealt >> action & 1)
        if phase == PLAY:
            return 0 <= action < NUM_CARDS and bool(self.playable() >> action & 1)
        if phase == TAKE:
            return TAKE_BASE <= action < PLACE_BASE and bool(self.trick_left >> (action - TAKE_BASE) & 1)
        if phase == PLACE:
            return action - PLACE_BASE in self.columns_for(self.turn, self.pending) and action >= PLACE_BASE
        return False

    def _apply(self, action: int) -> None:
        phase = self.phase
        game = self.game
        n = game.num_players
        if phase == FIRST:
            self.round_first = self.leader = action
            self.phase = DEAL
            return
        if phase == DEAL:
            if self.dealt == 0:
                self.deal_start = len(self.history)
            seat = self.dealt % n
            self.hands[seat] |= 1 << action
            self.hand_sizes[seat] += 1
            self.undealt &= ~(1 << action)
            self.dealt += 1
            if self.dealt == n * game.hand_size:
                self.phase = PLAY
                self.turn = self.leader
            return
        if phase == PLAY:
            seat = self.turn
            bit = 1 << action
            self.hands[seat] &= ~bit
            self.hand_sizes[seat] -= 1
            self.played |= bit
            self.played_by[seat] |= bit
            trick = self.trick
            if trick and action // NUM_VALUES != trick[0] // NUM_VALUES:
                self.voids[seat] |= 1 << (trick[0] // NUM_VALUES)
            trick.append(action)
            if len(trick) < n:
                self.turn = (seat + 1) % n
                return
            self._start_taking()
            return
        if phase == TAKE:
            seat = self.turn
            self.take_pos += 1
            if not self._take(seat, action - TAKE_BASE):
                self._advance()
            return
        # PLACE
        self._place(self.turn, self.pending, action - PLACE_BASE)
        self.pending = -1
        self._advance()

    def trick_seat(self, i: int) -> int:
        """The seat that played the ``i``-th card of the current trick."""
        return (self.leader + i) % self.game.num_players

    def trick_rating(self) -> list[int]:
        """Seats of a complete trick from the 1st rated to the last."""
        return [self.trick_seat(i) for i in rating(self.trick)]

    def _start_taking(self) -> None:
        ranked = self.trick_rating()
        self.queue = [seat for seat, k in zip(ranked, self.game.takes, strict=False) for _ in range(k)]
        self.take_pos = 0
        for c in self.trick:
            self.trick_left |= 1 << c
        self._advance()

    def _take(self, seat: int, c: int) -> bool:
        """``seat`` takes card ``c`` from the trick and places it; True when he must choose its column."""
        self.trick_left &= ~(1 << c)
        columns = self.columns_for(seat, c)
        if len(columns) == 1:
            self._place(seat, c, columns[0])
            return False
        self.pending = c
        self.phase = PLACE
        self.turn = seat
        return True

    def _place(self, seat: int, c: int, column: int) -> None:
        self.col_suit[seat][column] = c // NUM_VALUES
        self.cols[seat][column].append(c)

    def _advance(self) -> None:
        """Go on taking from the trick: ask the next taker, or take for him when he has no choice."""
        queue = self.queue
        while self.take_pos < len(queue):
            seat = queue[self.take_pos]
            left = len(queue) - self.take_pos
            if bin(self.trick_left).count("1") == left and all(s == seat for s in queue[self.take_pos :]):
                # he takes every card still in the trick: no choice of cards
                self.take_pos += 1
                if self._take(seat, cards_of(self.trick_left)[0]):
                    return
                continue
            self.phase = TAKE
            self.turn = seat
            return
        self.discards |= self.trick_left
        self.trick_left = 0
        self.leader = queue[-1]
        self.trick = []
        self.queue = []
        self.take_pos = 0
        if not any(self.hand_sizes):
            self._end_round()
        else:
            self.phase = PLAY
            self.turn = self.leader

    def board_counts(self, seat: int) -> list[int]:
        return [len(col) for col in self.cols[seat]]

    def _end_round(self) -> None:
        game = self.game
        n = game.num_players
        scores = []
        for s in range(n):
            score, perfect = round_score(game.limits, self.board_counts(s))
            scores.append(score)
            self.totals[s] += score
            self.last_perfect[s] = perfect
        self.round_scores.append(scores)
        if self.round_index == NUM_ROUNDS - 1:
            self.phase = OVER  # the last boards stay for display
            self.turn = -1
            return
        self.round_index += 1
        self.round_first = (self.round_first + 1) % n
        self._new_round()
        self.phase = DEAL
        self.turn = -1

    # ---- results ------------------------------------------------------------------------------
    def final_keys(self) -> list[tuple[int, int]]:
        """Ranking key of every seat: total score, then perfect columns in the last round's scoring."""
        return [(self.totals[s], self.last_perfect[s]) for s in range(self.game.num_players)]

    def returns(self) -> np.ndarray:
        if self.phase != OVER:
            return np.zeros(self.game.num_players, dtype=np.float64)
        return rank_returns(self.final_keys())

    def scores(self) -> np.ndarray:
        return np.array(self.totals, dtype=np.float64)

    # ---- observation and text -----------------------------------------------------------------
    def _observation(self, seat: int) -> np.ndarray:
        return obs_mod.encode(self, seat)

    def action_to_string(self, action: int) -> str:
        phase = self.phase
        if phase == FIRST:
            return f"first leader: seat {action}"
        if phase == DEAL:
            return f"deal {card_name(action)} to seat {self.dealt % self.game.num_players}"
        if 0 <= action < NUM_CARDS:
            return f"play {card_name(action)}"
        if TAKE_BASE <= action < PLACE_BASE:
            return f"take {card_name(action - TAKE_BASE)}"
        if PLACE_BASE <= action < NUM_ACTIONS:
            k = action - PLACE_BASE
            limit = self.game.limits[k] if k < self.game.num_columns else "-"
            return f"place in column {k + 1} (limit {limit})"
        return f"action {action}"

    def column_text(self, seat: int) -> str:
        parts = []
        for k, lim in enumerate(self.game.limits):
            col = self.cols[seat][k]
            if col:
                suit = SUITS[col[0] // NUM_VALUES]
                vals = " ".join(str(c % NUM_VALUES + 1) for c in col)
                over = f" +{len(col) - lim} sideways" if len(col) > lim else ""
                parts.append(f"[{k + 1}|L{lim}] {suit} {vals} ({len(col)}/{lim}{over})")
            else:
                parts.append(f"[{k + 1}|L{lim}] -")
        return "  ".join(parts)

    def to_text(self, seat: int | None = None) -> str:
        """The public situation; with ``seat``, also that seat's hand."""
        game = self.game
        n = game.num_players
        cur = self.current_player()
        lines = [
            f"CATsle Builders  {n} players  round {self.round_index + 1}/{NUM_ROUNDS}  "
            f"first leader: {'seat ' + str(self.round_first) if self.round_first >= 0 else '-'}  "
            f"limits: {'/'.join(map(str, game.limits))}"
        ]
        if self.phase == FIRST:
            lines.append("Choosing the first leader")
        elif self.phase == DEAL:
            lines.append(f"Dealing: {self.dealt}/{n * game.hand_size} cards dealt")
        if self.trick:
            plays = ", ".join(f"seat {self.trick_seat(i)} {card_name(c)}" for i, c in enumerate(self.trick))
            lines.append(f"Trick (led by seat {self.leader}, {SUITS[self.trick[0] // NUM_VALUES]} led): {plays}")
            if self.queue:
                ranked = self.trick_rating()
                lines.append("Rating: " + ", ".join(f"{i + 1}. seat {s}" for i, s in enumerate(ranked)))
                todo = self.queue[self.take_pos :]
                left = " ".join(card_name(c) for c in cards_of(self.trick_left)) or "-"
                lines.append(f"Still in trick: {left}  still to take: {', '.join(f'seat {s}' for s in todo) or '-'}")
        elif self.phase in (PLAY, TAKE, PLACE):
            lines.append(f"Trick: seat {self.leader} to lead")
        if self.pending >= 0:
            lines.append(f"Seat {self.turn} places {card_name(self.pending)}")
        for s in range(n):
            mark = "  <- to act" if cur == s else ""
            voids = ",".join(SUITS[v] for v in range(NUM_SUITS) if self.voids[s] >> v & 1) or "-"
            row = f"Seat {s}: total {self.totals[s]:>2}  hand {self.hand_sizes[s]:>2}  void: {voids}{mark}"
            lines.append(row)
            if seat == s:
                lines.append(f"  hand: {hand_text(self.hands[s])}")
            lines.append(f"  board: {self.column_text(s)}")
        lines.append(f"Discards: {hand_text(self.discards)}")
        for r, scores in enumerate(self.round_scores):
            lines.append(f"Round {r + 1} scores: {' '.join(map(str, scores))}")
        if self.phase == OVER:
            ret = self.returns()
            best = [s for s in range(n) if ret[s] == ret.max()]
            who = " and ".join(f"seat {s}" for s in best)
            lines.append(
                f"Game over: {who} {'win' if len(best) > 1 else 'wins'} (perfect columns in round 3: {self.last_perfect})"
            )
        return "\n".join(lines)

    def _seat_text(self, seat: int) -> str:
        return self.to_text(seat)

    # ---- hidden information -------------------------------------------------------------------
    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> CatsleState:
        """A state ``seat`` cannot tell apart from this one: every card it has not seen is redealt.

        The unseen cards (the other hands and the cards out of the round, or still to deal) are dealt
        again at random so that each other hand keeps its size and holds no card of a suit its player
        showed he lacks (could not follow); see ``_constrained_deal`` (uniform over the consistent deals
        by rejection, with a constructive fallback when rejection keeps failing). This round's deal in ``history`` is
        rewritten to match, so the new state replays from its history.
        """
        new = self.clone()
        n = self.game.num_players
        others = [s for s in range(n) if s != seat]
        pool = 0
        for s in others:
            pool |= self.hands[s]
        pool |= self.undealt
        cards = cards_of(pool)
        caps = [self.hand_sizes[s] for s in others] + [bin(self.undealt).count("1")]
        banned = [self.voids[s] for s in others] + [0]
        hands = _constrained_deal(cards, caps, banned, rng)
        for i, s in enumerate(others):
            new.hands[s] = hands[i]
        new.undealt = hands[-1]
        if self.deal_start >= 0 and self.dealt:
            initial = [sorted(cards_of(new.hands[s] | self.played_by[s])) for s in range(n)]
            deal = [initial[k % n][k // n] for k in range(self.dealt)]
            new.history[self.deal_start : self.deal_start + self.dealt] = deal
        return new

    # ---- copying ------------------------------------------------------------------------------
    def clone(self) -> CatsleState:
        new = CatsleState.__new__(CatsleState)
        new.game = self.game
        new.history = list(self.history)
        new.phase = self.phase
        new.round_index = self.round_index
        new.round_first = self.round_first
        new.totals = list(self.totals)
        new.round_scores = [list(r) for r in self.round_scores]
        new.last_perfect = list(self.last_perfect)
        new.deal_start = self.deal_start
        new.turn = self.turn
        new.hands = list(self.hands)
        new.hand_sizes = list(self.hand_sizes)
        new.undealt = self.undealt
        new.dealt = self.dealt
        new.leader = self.leader
        new.trick = list(self.trick)
        new.trick_left = self.trick_left
        new.queue = list(self.queue)
        new.take_pos = self.take_pos
        new.pending = self.pending
        new.col_suit = [list(c) for c in self.col_suit]
        new.cols = [[list(col) for col in board] for board in self.cols]
        new.discards = self.discards
        new.played = self.played
        new.played_by = list(self.played_by)
        new.voids = list(self.voids)
        return new


_REJECTION_TRIES = 20


def _constrained_deal(cards: list[int], caps: list[int], banned: list[int], rng: np.random.Generator) -> list[int]:
    """Deal ``cards`` into destinations of sizes ``caps`` (their sum is ``len(cards)``) such that no
    destination gets a card of a suit in its ``banned`` bit mask of suits; returns a card mask per
    destination. Every consistent deal is equally likely.

    First by rejection (a uniform shuffle dealt in order, kept when it breaks no ban: uniform over the
    consistent deals); when that keeps failing, by counting (``_counted_deal``, uniform too).
    """
    ban_cards = [0] * len(caps)
    for d, ban in enumerate(banned):
        for suit in range(NUM_SUITS):
            if ban >> suit & 1:
                ban_cards[d] |= SUIT_MASK[suit]
    cards = list(cards)
    for _ in range(_REJECTION_TRIES):
        rng.shuffle(cards)  # type: ignore[arg-type]
        out = []
        pos = 0
        for cap, ban in zip(caps, ban_cards, strict=True):
            m = 0
            for c in cards[pos : pos + cap]:
                m |= 1 << c
            if m & ban:
                break
            out.append(m)
            pos += cap
        else:
            return out
    return _counted_deal(cards, caps, banned, rng)


def _counted_deal(cards: list[int], caps: list[int], banned: list[int], rng: np.random.Generator) -> list[int]:
    """``_constrained_deal`` by counting: card by card, each card goes to a destination with probability
    proportional to the number of consistent deals of the cards after it into the places left, so that
    every consistent deal has probability exactly 1 / (number of consistent deals).

    ``ways[t][r]`` counts the deals of the cards ``t..`` into exactly ``r[i]`` places of the ``i``-th
    destination with room; the vectors ``r`` are flattened (mixed radix), and the arrays are built from
    the last card back: a card allowed in destination ``i`` adds ``ways[t + 1][r - e_i]`` to ``ways[t][r]``.
    """
    dests = [d for d, cap in enumerate(caps) if cap]
    shape = tuple(caps[d] + 1 for d in dests)
    size = int(np.prod(shape))
    strides = [int(np.prod(shape[i + 1 :])) for i in range(len(dests))]
    coords = np.indices(shape).reshape(len(dests), -1)
    # has_room[i][k]: the vector of flat index k + strides[i] has a place in destination i
    has_room = [(coords[i, strides[i] :] > 0).astype(np.float64) for i in range(len(dests))]
    allowed = [[i for i, d in enumerate(dests) if not banned[d] >> (c // NUM_VALUES) & 1] for c in cards]
    ways = [np.zeros(size)]
    ways[0][0] = 1.0
    term = np.empty(size)
    for options in reversed(allowed):
        after, count = ways[-1], np.zeros(size)
        for i in options:
            step = strides[i]
            np.multiply(after[: size - step], has_room[i], out=term[: size - step])
            count[step:] += term[: size - step]
        ways.append(count)
    ways.reverse()  # ways[t]: the cards t.. (ways[len(cards)]: no card left)
    room = [caps[d] for d in dests]
    flat = sum(r * step for r, step in zip(room, strides, strict=True))
    if not ways[0][flat]:
        raise RuntimeError("the hidden cards cannot be dealt consistently")  # unreachable from a legal state
    out = [0] * len(caps)
    for t, c in enumerate(cards):
        options = [i for i in allowed[t] if room[i]]
        weights = [float(ways[t + 1][flat - strides[i]]) for i in options]
        u = rng.random() * sum(weights)
        pick, acc = -1, 0.0
        for i, w in zip(options, weights, strict=True):
            if w > 0:
                pick, acc = i, acc + w
                if u < acc:
                    break
        room[pick] -= 1
        flat -= strides[pick]
        out[dests[pick]] |= 1 << c
    return out


__all__ = ["CatsleGame", "CatsleState"]
