"""Matchstick Tycoon rules engine: ``MatchstickGame`` and ``MatchstickState``.

The rules are compiled kernels (``envs/matchstick_tycoon/kernel.py``) over one ``int16`` state row; the
state here is a view over that row and keeps in Python only what is not a rule step: text, move names,
positions and ``resample_hidden``. See the package docstring (``envs/matchstick_tycoon/__init__.py``)
for the rules as implemented, the action encoding, the observation layout, the position keys and the
readings taken.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import comb
from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, GameFacts, Option
from gameshelf.envs.core.kernel import KernelGame, KernelState
from gameshelf.envs.core.row import IntView
from gameshelf.envs.matchstick_tycoon import kernel as K
from gameshelf.envs.matchstick_tycoon import observation as obs_mod
from gameshelf.envs.matchstick_tycoon.actions import CHOOSE_FIRST, DEAL, MAX_PLAY, NUM_ACTIONS, OVER, PLAY, decode
from gameshelf.envs.matchstick_tycoon.cards import (
    BASE_VALUES,
    COST,
    FACE_NAMES,
    NUM_FACES,
    NUM_VALUES,
    VALUE_NAMES,
    cards_text,
    deck_copies,
)

SMALL_GAME_HAND = 15
"""Cards dealt to each player at 2 or 3 players (``deal="standard"``)."""

SHOWERS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(sorted((COST[f][v], f) for f in range(NUM_FACES) if COST[f][v] >= 0)) for v in range(NUM_VALUES)
)
"""For each value: the ``(cost, face)`` of the faces able to show it, cheapest first (ties by face index)."""


def min_costs(hand: list[int] | IntView, value: int, limit: int = MAX_PLAY) -> list[int]:
    """``out[k]``: fewest matchsticks to show ``value`` with k + 1 cards of ``hand`` (as many as the hand allows).

    A helper for agents and tests (the rules' own version is the kernel's ``_cheapest``)."""
    out: list[int] = []
    total = 0
    for c, f in SHOWERS[value]:
        for _ in range(hand[f]):
            if len(out) == limit:
                return out
            total += c
            out.append(total)
    return out


def can_show(hand: list[int] | IntView, value: int, count: int, sticks: int) -> bool:
    """Whether ``count`` cards of ``hand`` can all show ``value`` with at most ``sticks`` matchsticks."""
    if count == 0:
        return sticks >= 0
    m = min_costs(hand, value, count)
    return len(m) == count and m[-1] <= sticks


def _take(pool: list[int], faces: list[int], k: int, rng: np.random.Generator) -> list[int]:
    """Per face: ``k`` cards drawn uniformly without replacement from the cards of ``pool`` among ``faces``."""
    cards = np.repeat(np.array(faces, dtype=np.int64), [pool[f] for f in faces])
    out = [0] * NUM_FACES
    for f in rng.permutation(cards)[:k]:
        out[int(f)] += 1
    return out


def _draw_completable(pool: list[int], size: int, value: int, left: int, budget: int, rng: np.random.Generator) -> list[int]:
    """Per face: ``size`` cards drawn from ``pool``, uniformly among the draws holding ``left`` cards that all
    show ``value`` with at most ``budget`` matchsticks (each card of the pool counted as a distinct card).

    The faces able to show ``value`` fall into classes by cost, cheapest first; ``ways`` counts the draws
    that take ``x`` cards of each class in turn, the cheapest ``left`` of the shown ones fitting the budget.
    Each class's count is drawn in proportion to those counts, then the cards inside the classes uniformly.
    """
    costs = sorted({COST[f][value] for f in range(NUM_FACES) if pool[f] and COST[f][value] >= 0})
    classes = [[f for f in range(NUM_FACES) if COST[f][value] == c] for c in costs]
    sizes = [sum(pool[f] for f in cl) for cl in classes]
    # after[i]: cards of the pool in the classes after class i or unable to show the value
    after = [sum(pool) - sum(sizes[: i + 1]) for i in range(len(classes))]
    memo: dict[tuple[int, int, int, int], int] = {}

    def options(i: int, taken: int, need: int, spent: int) -> list[tuple[int, int]]:
        """(x, number of completable draws taking x cards of class i), given the classes before it."""
        out = []
        for x in range(min(sizes[i], size - taken) + 1):
            use = min(x, need)
            cost = spent + costs[i] * use
            if cost > budget:
                break
            w = comb(sizes[i], x) * (
                comb(after[i], size - taken - x) if use == need else ways(i + 1, taken + x, need - use, cost)
            )
            if w:
                out.append((x, w))
        return out

    def ways(i: int, taken: int, need: int, spent: int) -> int:
        if i == len(classes):
            return 0
        key = (i, taken, need, spent)
        if key not in memo:
            memo[key] = sum(w for _, w in options(i, taken, need, spent))
        return memo[key]

    hand = [0] * NUM_FACES
    taken, need, spent = 0, left, 0
    for i in range(len(classes)):
        choices = options(i, taken, need, spent)
        if not choices:
            raise ValueError("no hand of the unseen cards can complete the play being laid")
        total = sum(w for _, w in choices)
        u = rng.random() * total
        x = choices[-1][0]
        for x_, w in choices:
            u -= w
            if u < 0:
                x = x_
                break
        for f, c in enumerate(_take(pool, classes[i], x, rng)):
            hand[f] += c
        use = min(x, need)
        taken, need, spent = taken + x, need - use, spent + costs[i] * use
        if need == 0:
            drawn = {g for cl in classes[: i + 1] for g in cl}
            rest = [f for f in range(NUM_FACES) if f not in drawn]
            for f, c in enumerate(_take(pool, rest, size - taken, rng)):
                hand[f] += c
            return hand
    raise ValueError("no hand of the unseen cards can complete the play being laid")


def list_field(name: str, count: str) -> Any:
    """The State attribute over the row's field ``name``, a list as long as the field ``count`` says: reads give
    a new list, assigning a list writes both (the unused entries are -1); writes are bound-checked."""
    field, length = K.ROW[name], K.ROW[count].offset

    def get(state: Any) -> list[int]:
        s = state.s
        return s[field.offset : field.offset + int(s[length])].tolist()  # type: ignore[no-any-return]

    def put(state: Any, values: Iterable[int]) -> None:
        items = [int(v) for v in values]
        if len(items) > field.size:
            raise ValueError(f"at most {field.size} entries, got {len(items)}")
        K.ROW.put(state.s, name, items + [-1] * (field.size - len(items)))
        K.ROW.put(state.s, count, len(items))

    return property(get, put, doc=field.meaning)


class MatchstickGame(KernelGame):
    """Matchstick Tycoon for 2 to 8 players."""

    name = "matchstick_tycoon"
    kernel = K
    """The compiled rules (``kernel.py``): the state wraps its row, ``gameshelf.vector`` batches it."""
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(4, choices=(4, 2, 3, 5, 6, 7, 8), doc="number of players"),
        "deal": Option(
            "standard",
            choices=("standard", "all"),
            doc='"standard": 15 cards each at 2-3 players (the rest unused), all cards at 4-8; "all": always deal every card',
        ),
        "expansion_copies": Option(0, choices=(0, 2, 4), doc="copies of each expansion card (G and H) in the deck"),
    }
    LAYOUT = obs_mod.LAYOUT

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.expansion_copies: int = self.options["expansion_copies"]
        self.deck: tuple[int, ...] = deck_copies(self.expansion_copies)
        n = self.options["num_players"]
        total = sum(self.deck)
        self.cards_dealt: int = SMALL_GAME_HAND * n if (n <= 3 and self.options["deal"] == "standard") else total
        self.num_values: int = NUM_VALUES if self.expansion_copies else BASE_VALUES
        self.initial = K.initial_state(n, self.deck, self.cards_dealt, self.num_values, self.expansion_copies)

    def _facts(self) -> GameFacts:
        n = self.options["num_players"]
        max_len = K.max_decisions(sum(deck_copies(self.options["expansion_copies"])), n)
        return GameFacts(num_actions=NUM_ACTIONS, max_game_length=max_len, has_chance=True, has_hidden_info=True)

    def new_initial_state(self) -> MatchstickState:
        return MatchstickState(self)


class MatchstickState(KernelState):
    """A position of a Matchstick Tycoon game: a view over one kernel state row (``kernel.py``), which the
    rules act on. The fields read and write that row like plain ints and lists."""

    game: MatchstickGame
    EXTRA = ("deal_start",)

    def __init__(self, game: MatchstickGame) -> None:
        super().__init__(game)
        self.deal_start = -1
        """Index in ``history`` of the first dealt card (-1: built from a position, no deal in history)."""

    phase = K.ROW.field("phase")
    first_player = K.ROW.field("first_player")
    dealt = K.ROW.field("dealt")
    hands = K.ROW.field("hands")
    hand_sizes = K.ROW.field("hand_sizes")
    undealt = K.ROW.field("undealt")
    sticks = K.ROW.field("sticks")
    turn = K.ROW.field("turn")
    table_value = K.ROW.field("table_value")
    table_count = K.ROW.field("table_count")
    table_faces = list_field("table_faces", "table_count")
    last_player = K.ROW.field("last_player")
    reversed = K.ROW.field("reversed")
    passed = K.ROW.field("passed")
    in_game = K.ROW.field("in_game")
    place = K.ROW.field("place")
    out_order = list_field("out_order", "num_out")
    played = K.ROW.field("played")
    played_by = K.ROW.field("played_by")
    pending_value = K.ROW.field("pending_value")
    pending_count = K.ROW.field("pending_count")
    picks = list_field("picks", "num_picks")
    pending_cost = K.ROW.field("pending_cost")
    sticks_spent = K.ROW.field("sticks_spent")
    revolutions = K.ROW.field("revolutions")

    @property
    def deck(self) -> tuple[int, ...]:
        """Copies of each face in the deck."""
        return self.game.deck

    # ---- whose turn -----------------------------------------------------------------------------
    def current_player(self) -> int:
        s = self.s  # the kernel's current_player, read here without a compiled call (the hottest query)
        phase = s[K.PHASE]
        if phase == PLAY:
            return int(s[K.TURN])
        if phase == OVER:
            return TERMINAL
        return CHANCE

    # ---- actions (mask, legality and playout: KernelState's) ------------------------------------
    def _apply(self, action: int) -> None:
        s = self.s
        if s[K.PHASE] == DEAL and s[K.DEALT] == 0:
            self.deal_start = len(self.history)
        K.apply(self.S, 0, action)

    # ---- helpers --------------------------------------------------------------------------------
    def pick_counts(self) -> list[int]:
        counts = [0] * NUM_FACES
        for f in self.picks:
            counts[f] += 1
        return counts

    # ---- text -----------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if self.phase == CHOOSE_FIRST:
            return f"first player: seat {action}"
        if self.phase == DEAL:
            return f"deal {FACE_NAMES[action]} to seat {self.dealt % self.game.num_players}"
        kind, count, x = decode(action)
        if kind == "pass":
            return "pass"
        if kind == "discard":
            return "discard a matchstick"
        if kind == "play":
            return f"play {count}x{VALUE_NAMES[x]}"
        if self.pending_count:
            c = COST[x][self.pending_value]
            extra = f" +{c}" if c > 0 else ""
            return f"card {FACE_NAMES[x]} as {VALUE_NAMES[self.pending_value]}{extra}"
        return f"card {FACE_NAMES[x]}"

    def _table_text(self) -> str:
        if not self.table_count:
            return "Table: empty"
        shown = ", ".join(
            f"{FACE_NAMES[f]}" + (f"+{COST[f][self.table_value]}" if COST[f][self.table_value] else "") for f in self.table_faces
        )
        return f"Table: {self.table_count} x {VALUE_NAMES[self.table_value]}  (cards {shown}; seat {self.last_player})"

    def to_text(self, seat: int | None = None) -> str:
        """The public situation; with ``seat``, also that seat's own hand."""
        n = self.game.num_players
        order = "REVERSED (0 strongest)" if self.reversed else "normal (F strongest)"
        head = f"Matchstick Tycoon  {n} players  |  order: {order}  |  revolutions: {self.revolutions}"
        lines = [head]
        if self.phase == CHOOSE_FIRST:
            lines.append("Choosing the first player")
        elif self.phase == DEAL:
            lines.append(f"Dealing: {self.dealt}/{self.game.cards_dealt} cards dealt; first player seat {self.first_player}")
        lines.append(self._table_text())
        if self.pending_count:
            picked = " ".join(FACE_NAMES[f] for f in self.picks) or "-"
            lines.append(
                f"Seat {self.turn} is laying {self.pending_count} x {VALUE_NAMES[self.pending_value]}:"
                f" laid {picked} (+{self.pending_cost} sticks)"
            )
        to_act = self.current_player()
        sizes, sticks, places, passed = self.hand_sizes.tolist(), self.sticks.tolist(), self.place.tolist(), self.passed.tolist()
        for s in range(n):
            status = f"out, place {places[s] + 1}" if places[s] >= 0 else "passed" if passed[s] else ""
            mark = "  <- to act" if to_act == s else ""
            row = f"Seat {s}: cards {sizes[s]:>2}  sticks {sticks[s]:>2}  {status}".rstrip()
            if seat == s:
                row += f"  hand: {cards_text(self.hands[s].tolist())}"
            lines.append(row + mark)
        lines.append(f"Played: {cards_text(self.played.tolist())}")
        if self.phase == OVER:
            lines.append("Game over: finishing order " + " ".join(f"seat {s}" for s in self.out_order))
        return "\n".join(lines)

    def _seat_text(self, seat: int) -> str:
        return self.to_text(seat)

    # ---- hidden information ---------------------------------------------------------------------
    def unseen_cards(self, seat: int) -> list[int]:
        """Per face: the cards ``seat`` cannot place (other hands and cards never dealt)."""
        picks = self.pick_counts()
        hand, played = self.hands[seat].tolist(), self.played.tolist()
        return [self.deck[f] - hand[f] - played[f] - picks[f] for f in range(NUM_FACES)]

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> MatchstickState:
        """A state ``seat`` cannot tell apart from this one: the other hands redealt from the unseen cards.

        Every other hand keeps its size; the cards ``seat`` cannot place are dealt to them uniformly at
        random (the rest stay undealt), also in the middle of the deal. While another seat is laying a
        play, its hand is drawn uniformly among the hands able to complete that play (its announcement and
        the cards it laid showed it could), so it keeps a legal move. The deal in ``history`` is rewritten
        to match, so the new state replays from its history to itself.
        """
        new = self.clone()
        if self.phase == CHOOSE_FIRST:
            return new
        n = self.game.num_players
        sizes = self.hand_sizes.tolist()
        pool = self.unseen_cards(seat)
        laying = self.turn if self.pending_count and self.turn != seat else -1
        if laying >= 0:
            left = self.pending_count - len(self.picks)
            budget = self.sticks[laying] - self.pending_cost
            hand = _draw_completable(pool, sizes[laying], self.pending_value, left, budget, rng)
            new.hands[laying] = hand
            pool = [pool[f] - hand[f] for f in range(NUM_FACES)]
        cards = np.repeat(np.arange(NUM_FACES), pool)
        rng.shuffle(cards)
        pos = 0
        for s in range(n):
            if s in (seat, laying):
                continue
            size = sizes[s]
            hand = [0] * NUM_FACES
            for f in cards[pos : pos + size]:
                hand[int(f)] += 1
            pos += size
            new.hands[s] = hand
        undealt = [0] * NUM_FACES
        for f in cards[pos:]:
            undealt[int(f)] += 1
        new.undealt = undealt
        if self.deal_start >= 0:
            self._rewrite_deal(new, seat, rng)
        return new

    def _rewrite_deal(self, new: MatchstickState, seat: int, rng: np.random.Generator) -> None:
        """Write the cards ``new``'s other seats were dealt (hand now, cards played, cards being laid) into its
        history, each seat's in a random order; ``seat``'s own deal stays as it was."""
        n = self.game.num_players
        picks = self.pick_counts()
        hands, played_by = new.hands.tolist(), self.played_by.tolist()
        for s in range(n):
            if s == seat:
                continue
            dealt = [hands[s][f] + played_by[s][f] + (picks[f] if s == self.turn else 0) for f in range(NUM_FACES)]
            cards = np.repeat(np.arange(NUM_FACES), dealt)
            rng.shuffle(cards)
            slots = range(self.deal_start + s, self.deal_start + self.dealt, n)
            if len(cards) != len(slots):
                raise RuntimeError(f"seat {s} holds {len(cards)} dealt cards, {len(slots)} were dealt to it")
            for k, f in zip(slots, cards, strict=True):
                new.history[k] = int(f)


__all__ = ["SHOWERS", "MatchstickGame", "MatchstickState", "can_show", "min_costs"]
