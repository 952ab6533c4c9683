"""CATsle Builders rules engine: ``CatsleGame`` and ``CatsleState``.

The rules are compiled kernels (``kernel.py``) over one ``int16`` state row; ``CatsleState`` is a view over
that row and keeps in Python only what is not a rule step: text, move names, the fields read as ints and lists,
and ``resample_hidden``. See the package docstring (``envs/catsle_builders/__init__.py``)
for the rules as implemented, the action encoding, the observation layout, the position keys and the
readings taken.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.catsle_builders import kernel as K
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
    MAX_COLUMNS,
    MAX_LIMIT,
    MAX_PLAYERS,
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
)
from gameshelf.envs.core.game import CHANCE, TERMINAL, GameFacts, Option
from gameshelf.envs.core.kernel import KernelGame, KernelState


def _limits_ok(value: Any) -> bool:
    return (
        isinstance(value, (tuple, list))
        and len(value) == 4
        and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v <= MAX_LIMIT for v in value)
    )


class CatsleGame(KernelGame):
    """CATsle Builders for 3 to 5 players."""

    name = "catsle_builders"
    kernel = K
    """The compiled rules (``kernel.py``): the state wraps its row, ``gameshelf.vector`` batches it."""
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
        self.initial = K.initial_state(n, self.limits)

    def _facts(self) -> GameFacts:
        return GameFacts(
            num_actions=NUM_ACTIONS,
            max_game_length=K.max_decisions(self.options["num_players"]),
            has_chance=True,
            has_hidden_info=True,
        )

    def new_initial_state(self) -> CatsleState:
        return CatsleState(self)


POW2 = np.left_shift(np.int64(1), np.arange(NUM_CARDS, dtype=np.int64))
"""Bit ``c`` of a card mask, per card."""


class CatsleState(KernelState):
    """A position of a CATsle Builders game (see the environment card for the rules): a view over one kernel
    state row (``kernel.py``), which the rules act on. Card sets (hands, discards, ...) read as bit masks
    (bit ``c`` set when card ``c`` is in the set), the other fields as ints and lists."""

    game: CatsleGame
    EXTRA = ("deal_start",)

    def __init__(self, game: CatsleGame) -> None:
        super().__init__(game)
        self.deal_start = -1
        """Index in ``history`` of this round's first dealt card (-1: the deal is not in the history)."""

    phase = K.ROW.field("phase")
    round_index = K.ROW.field("round_index")
    round_first = K.ROW.field("round_first")
    leader = K.ROW.field("leader")
    turn = K.ROW.field("turn")
    dealt = K.ROW.field("dealt")
    pending = K.ROW.field("pending")
    take_pos = K.ROW.field("take_pos")
    totals = K.ROW.field("totals")
    last_perfect = K.ROW.field("last_perfect")
    hand_sizes = K.ROW.field("hand_sizes")
    voids = K.ROW.field("voids")

    # ---- card sets and lists, read from the row ------------------------------------------------
    def _cards_where(self, code: int) -> int:
        return int(POW2[self.s[K.LOC : K.LOC + NUM_CARDS] == code].sum())

    @property
    def hands(self) -> list[int]:
        """Per seat, its hand as a card mask."""
        loc = self.s[K.LOC : K.LOC + NUM_CARDS]
        return [int(POW2[loc == K.IN_HAND + s].sum()) for s in range(self.game.num_players)]

    @property
    def undealt(self) -> int:
        """Cards not dealt yet (after the deal: the cards out of the round)."""
        return self._cards_where(K.UNDEALT)

    @property
    def played(self) -> int:
        """Cards played this round (on boards, discarded, in the trick or waiting for a column)."""
        return int(POW2[self.s[K.LOC : K.LOC + NUM_CARDS] >= K.PLAYED_ANON].sum())

    @property
    def played_by(self) -> list[int]:
        """Per seat, the cards it played this round (as far as recorded: not before a built position)."""
        return [self._cards_where(K.PLAYED + s) for s in range(self.game.num_players)]

    @property
    def discards(self) -> int:
        """Cards discarded this round (left in a trick, not taken)."""
        return int(POW2[self.s[K.DISC : K.DISC + NUM_CARDS] != 0].sum())

    @property
    def trick_left(self) -> int:
        """Cards still in the trick while it is being taken."""
        return int(POW2[self.s[K.LEFT : K.LEFT + NUM_CARDS] != 0].sum())

    @property
    def trick(self) -> list[int]:
        """Cards of the current trick in play order (the leader's first)."""
        return self.s[K.TRICK : K.TRICK + self.s[K.TRICK_N]].tolist()  # type: ignore[no-any-return]

    @property
    def queue(self) -> list[int]:
        """Seats taking from the current trick, one entry per card, in rating order."""
        return self.s[K.QUEUE : K.QUEUE + self.s[K.QUEUE_N]].tolist()  # type: ignore[no-any-return]

    @property
    def round_scores(self) -> list[list[int]]:
        """Score of every seat in each finished round."""
        n = self.game.num_players
        start = K.ROUND_SCORES
        return [self.s[start + MAX_PLAYERS * r : start + MAX_PLAYERS * r + n].tolist() for r in range(self.s[K.SCORED])]

    @property
    def col_suit(self) -> list[list[int]]:
        """Per seat and column, the suit it holds (-1: empty)."""
        k = self.game.num_columns
        base = K.COL_SUIT
        return [self.s[base + MAX_COLUMNS * s : base + MAX_COLUMNS * s + k].tolist() for s in range(self.game.num_players)]

    @property
    def cols(self) -> list[list[list[int]]]:
        """Per seat and column, its cards in the order they were placed."""
        s_ = self.s
        out = []
        for s in range(self.game.num_players):
            board = []
            for k in range(self.game.num_columns):
                at = MAX_COLUMNS * s + k
                start = K.COLS + K.MAX_COL_CARDS * at
                board.append(s_[start : start + s_[K.COL_LEN + at]].tolist())
            out.append(board)
        return out

    def board_counts(self, seat: int) -> list[int]:
        start = K.COL_LEN + MAX_COLUMNS * seat
        return self.s[start : start + self.game.num_columns].tolist()  # type: ignore[no-any-return]

    def load(
        self,
        *,
        phase: int,
        round_index: int,
        round_first: int,
        totals: list[int],
        round_scores: list[list[int]],
        last_perfect: list[int],
        hands: list[int],
        cols: list[list[list[int]]],
        discards: int,
        trick: list[int],
        voids: list[int],
        leader: int,
        dealt: int,
        turn: int,
        trick_left: int,
        queue: list[int],
        take_pos: int,
        pending: int,
    ) -> None:
        """Write a whole position into the row (the position builder's last step, after its checks). Cards
        on boards, discarded or in the trick are played (by a seat not recorded); the others not in a hand
        are undealt."""
        s = self.s
        n = self.game.num_players
        s[:] = self.game.initial
        self.phase, self.round_index, self.round_first = phase, round_index, round_first
        self.totals, self.last_perfect, self.voids = totals, last_perfect, voids
        s[K.SCORED] = len(round_scores)
        for r, scores in enumerate(round_scores):
            s[K.ROUND_SCORES + MAX_PLAYERS * r : K.ROUND_SCORES + MAX_PLAYERS * r + n] = scores
        loc = s[K.LOC : K.LOC + NUM_CARDS]
        for seat, hand in enumerate(hands):
            loc[cards_of(hand)] = K.IN_HAND + seat
            s[K.SIZES + seat] = len(cards_of(hand))
        for seat, board in enumerate(cols):
            for k, col in enumerate(board):
                at = MAX_COLUMNS * seat + k
                if col:
                    s[K.COL_SUIT + at] = col[0] // NUM_VALUES
                s[K.COL_LEN + at] = len(col)
                s[K.COLS + K.MAX_COL_CARDS * at : K.COLS + K.MAX_COL_CARDS * at + len(col)] = col
                loc[col] = K.PLAYED_ANON
        s[K.DISC : K.DISC + NUM_CARDS] = POW2 & discards != 0
        loc[cards_of(discards)] = K.PLAYED_ANON
        s[K.TRICK_N] = len(trick)
        s[K.TRICK : K.TRICK + len(trick)] = trick
        loc[trick] = K.PLAYED_ANON
        s[K.LEFT : K.LEFT + NUM_CARDS] = POW2 & trick_left != 0
        s[K.LEFT_N] = len(cards_of(trick_left))
        s[K.QUEUE_N] = len(queue)
        s[K.QUEUE : K.QUEUE + len(queue)] = queue
        self.leader, self.dealt, self.turn = leader, dealt, turn
        self.take_pos, self.pending = take_pos, pending
        self.deal_start = -1

    # ---- whose turn ---------------------------------------------------------------------------
    def current_player(self) -> int:
        s = self.s  # the kernel's current_player, read here without a compiled call (the hottest query)
        phase = s[K.PHASE]
        if PLAY <= phase <= PLACE:  # the decision phases
            return int(s[K.TURN])
        if phase == OVER:
            return TERMINAL
        return CHANCE

    # ---- actions (mask, legality, playout: KernelState's) -------------------------------------
    def playable(self) -> int:
        """Bit mask of the cards the player to act may play (follow the led suit if able)."""
        return int(POW2[self.legal_action_mask()[:NUM_CARDS]].sum())

    def columns_for(self, seat: int, c: int) -> list[int]:
        """Columns of ``seat``'s board that may receive card ``c``: the one holding its suit, else every empty one."""
        mask = int(K.columns_mask(self.S, 0, seat, c))
        return [k for k in range(self.game.num_columns) if mask >> k & 1]

    def _apply(self, action: int) -> None:
        if self.s[K.PHASE] == DEAL and self.s[K.DEALT] == 0:
            self.deal_start = len(self.history)
        K.apply(self.S, 0, action)

    def trick_seat(self, i: int) -> int:
        """The seat that played the ``i``-th card of the current trick."""
        return (self.leader + i) % self.game.num_players

    def trick_rating(self) -> list[int]:
        """Seats of a complete trick from the 1st rated to the last."""
        return [self.trick_seat(i) for i in rating(self.trick)]

    # ---- results (returns, observation: KernelState's) ----------------------------------------

    def scores(self) -> np.ndarray:
        return np.array(self.totals.tolist(), dtype=np.float64)

    # ---- text -------------------------------------------------------------------------------
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
        rewritten to match, so the new state replays from its history; the deal of ``seat``'s own cards keeps its
        order (the seat saw which card came when, so a text log of the deal reads the same after a redeal).
        """
        new = self.clone()
        n = self.game.num_players
        others = [s for s in range(n) if s != seat]
        hands = self.hands
        undealt = self.undealt
        pool = undealt
        for s in others:
            pool |= hands[s]
        cards = cards_of(pool)
        caps = [self.hand_sizes[s] for s in others] + [bin(undealt).count("1")]
        banned = [self.voids[s] for s in others] + [0]
        dealt = _constrained_deal(cards, caps, banned, rng)
        loc = new.s[K.LOC : K.LOC + NUM_CARDS]
        for i, s in enumerate(others):
            loc[cards_of(dealt[i])] = K.IN_HAND + s
        loc[cards_of(dealt[-1])] = K.UNDEALT
        if self.deal_start >= 0 and self.dealt:
            new_hands, played_by = new.hands, self.played_by
            initial = [sorted(cards_of(new_hands[s] | played_by[s])) for s in range(n)]
            mine = self.history[self.deal_start : self.deal_start + self.dealt]  # ``seat`` saw its own cards come in
            deal = [mine[k] if k % n == seat else initial[k % n][k // n] for k in range(self.dealt)]
            new.history[self.deal_start : self.deal_start + self.dealt] = deal
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
