"""Matchstick Tycoon rules engine: ``MatchstickGame`` and ``MatchstickState``.

See the package docstring (``envs/matchstick_tycoon/__init__.py``) for the rules as implemented, the action
encoding, the observation layout, the position keys and the readings taken.
"""

from __future__ import annotations

from math import comb
from typing import Any, ClassVar

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
from gameshelf.envs.matchstick_tycoon import observation as obs_mod
from gameshelf.envs.matchstick_tycoon.actions import (
    CHOOSE_FIRST,
    DEAL,
    DISCARD,
    MAX_PLAY,
    NUM_ACTIONS,
    OVER,
    PASS,
    PICK_BASE,
    PLAY,
    PLAY_BASE,
    decode,
)
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

# For each value: the faces able to show it, cheapest first (ties by face index).
_SHOWERS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(sorted((COST[f][v], f) for f in range(NUM_FACES) if COST[f][v] >= 0)) for v in range(NUM_VALUES)
)


def min_costs(hand: list[int], value: int, limit: int = MAX_PLAY) -> list[int]:
    """``out[k]``: fewest matchsticks to show ``value`` with k + 1 cards of ``hand`` (as many as the hand allows)."""
    out: list[int] = []
    total = 0
    for c, f in _SHOWERS[value]:
        for _ in range(hand[f]):
            if len(out) == limit:
                return out
            total += c
            out.append(total)
    return out


def can_show(hand: list[int], value: int, count: int, sticks: int) -> bool:
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


class MatchstickGame(Game):
    """Matchstick Tycoon for 2 to 8 players."""

    name = "matchstick_tycoon"
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

    def _facts(self) -> GameFacts:
        n = self.options["num_players"]
        deck = sum(deck_copies(self.options["expansion_copies"]))
        # plays <= cards dealt, each at most 1 + 5 decisions; between two plays at most 2n turns without a
        # play; every such turn gains at most one matchstick, each later discarded once.
        max_len = deck * 6 + 2 * (deck + 1) * 2 * n + 2 * n
        return GameFacts(num_actions=NUM_ACTIONS, max_game_length=max_len, has_chance=True, has_hidden_info=True)

    def new_initial_state(self) -> MatchstickState:
        return MatchstickState(self)


class MatchstickState(State):
    """A position of a Matchstick Tycoon game."""

    game: MatchstickGame

    def __init__(self, game: MatchstickGame) -> None:
        super().__init__(game)
        n = game.num_players
        self.deck = game.deck
        self.phase = CHOOSE_FIRST
        self.first_player = -1
        self.dealt = 0
        self.deal_start = -1
        """Index in ``history`` of the first dealt card (-1: built from a position, no deal in history)."""
        self.hands = [[0] * NUM_FACES for _ in range(n)]
        self.hand_sizes = [0] * n
        self.undealt = list(game.deck)
        """Copies of each face not dealt yet (during the deal)."""
        self.sticks = [1] * n
        self.turn = -1
        self.table_value = -1
        self.table_count = 0
        self.table_faces: list[int] = []
        self.last_player = -1
        """Seat whose play is on the table (-1 when the table is empty)."""
        self.reversed = False
        self.passed = [False] * n
        """Seats that took a turn without playing since the last play."""
        self.in_game = [True] * n
        self.place = [-1] * n
        """Finishing place (0 = first out) of each seat, -1 while it plays on."""
        self.out_order: list[int] = []
        self.played = [0] * NUM_FACES
        """Cards of each face played so far by anyone (the table's included)."""
        self.played_by = [[0] * NUM_FACES for _ in range(n)]
        self.pending_value = -1
        self.pending_count = 0
        """Count of the play being laid down (0: no play announced)."""
        self.picks: list[int] = []
        self.pending_cost = 0
        self.sticks_spent = 0
        self.revolutions = 0

    # ---- whose turn -----------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == PLAY:
            return self.turn
        if self.phase == OVER:
            return TERMINAL
        return CHANCE

    # ---- chance ---------------------------------------------------------------------------------
    def _undealt(self) -> list[int]:
        return self.undealt if self.phase == DEAL else [0] * NUM_FACES

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = self.game.num_players
        if self.phase == CHOOSE_FIRST:
            return [(s, 1.0 / n) for s in range(n)]
        if self.phase == DEAL:
            return count_outcomes(self._undealt())
        return []

    def sample_chance(self, rng: np.random.Generator) -> int:
        if self.phase == CHOOSE_FIRST:
            return int(rng.integers(self.game.num_players))
        if self.phase == DEAL:
            return draw_from_counts(self._undealt(), rng)
        raise ValueError("not a chance node")

    def _is_legal(self, player: int, action: int) -> bool:
        if player == CHANCE:
            if self.phase == CHOOSE_FIRST:
                return 0 <= action < self.game.num_players
            return 0 <= action < NUM_FACES and self._undealt()[action] > 0
        return 0 <= action < NUM_ACTIONS and bool(self.legal_action_mask()[action])

    # ---- actions --------------------------------------------------------------------------------
    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if self.phase != PLAY:
            return mask
        for a in self._legal_list():
            mask[a] = True
        return mask

    def legal_actions(self) -> list[int]:
        if self.phase != PLAY:
            return []
        return sorted(self._legal_list())

    def _legal_list(self) -> list[int]:
        p = self.turn
        hand = self.hands[p]
        if self.hand_sizes[p] == 0:
            return [DISCARD]
        sticks = self.sticks[p]
        out: list[int] = []
        if self.pending_count:
            value = self.pending_value
            left = self.pending_count - len(self.picks) - 1
            budget = sticks - self.pending_cost
            for c, f in _SHOWERS[value]:
                if hand[f] and c <= budget:
                    hand[f] -= 1
                    ok = can_show(hand, value, left, budget - c)
                    hand[f] += 1
                    if ok:
                        out.append(PICK_BASE + f)
            return out
        nv = self.game.num_values
        if self.table_count:
            out.append(PASS)
            n = self.table_count
            old = self.table_value
            values = range(old - 1, -1, -1) if self.reversed else range(old + 1, nv)
            for v in values:
                if can_show(hand, v, n, sticks):
                    out.append(PLAY_BASE + (n - 1) * NUM_VALUES + v)
            return out
        for v in range(nv):
            m = min_costs(hand, v)
            for k, total in enumerate(m):
                if total <= sticks:
                    out.append(PLAY_BASE + k * NUM_VALUES + v)
        return out

    def _apply(self, action: int) -> None:
        if self.phase == CHOOSE_FIRST:
            self.first_player = action
            self.phase = DEAL
            return
        if self.phase == DEAL:
            n = self.game.num_players
            if self.dealt == 0:
                self.deal_start = len(self.history)
            seat = self.dealt % n
            self.hands[seat][action] += 1
            self.hand_sizes[seat] += 1
            self.undealt[action] -= 1
            self.dealt += 1
            if self.dealt == self.game.cards_dealt:
                self.phase = PLAY
                self.turn = self.first_player
            return
        p = self.turn
        if action == PASS:
            self.sticks[p] += 1
            self._no_play(p)
        elif action == DISCARD:
            self.sticks[p] -= 1
            if self.sticks[p] == 0:
                self._go_out(p)
            if self.phase != OVER:
                self._no_play(p)
        elif action < PICK_BASE:
            k = action - PLAY_BASE
            self.pending_count = k // NUM_VALUES + 1
            self.pending_value = k % NUM_VALUES
            self.picks = []
            self.pending_cost = 0
        else:
            f = action - PICK_BASE
            self.hands[p][f] -= 1
            self.hand_sizes[p] -= 1
            self.picks.append(f)
            self.pending_cost += COST[f][self.pending_value]
            if len(self.picks) == self.pending_count:
                self._complete_play(p)

    def _complete_play(self, p: int) -> None:
        n = self.pending_count
        self.sticks[p] -= self.pending_cost
        self.sticks_spent += self.pending_cost
        for f in self.picks:
            self.played[f] += 1
            self.played_by[p][f] += 1
        self.table_value = self.pending_value
        self.table_count = n
        self.table_faces = list(self.picks)
        self.last_player = p
        self.passed = [False] * self.game.num_players
        self.pending_value = -1
        self.pending_count = 0
        self.picks = []
        self.pending_cost = 0
        if n == MAX_PLAY:
            self.reversed = not self.reversed
            self.revolutions += 1
        if self.hand_sizes[p] == 0 and self.sticks[p] == 0:
            self._go_out(p)
        if self.phase != OVER:
            self.turn = self._next_in_game(p)

    def _go_out(self, p: int) -> None:
        self.in_game[p] = False
        self.passed[p] = False
        self.place[p] = len(self.out_order)
        self.out_order.append(p)
        remaining = [s for s in range(self.game.num_players) if self.in_game[s]]
        if len(remaining) == 1:
            last = remaining[0]
            self.in_game[last] = False
            self.place[last] = len(self.out_order)
            self.out_order.append(last)
            self.phase = OVER
            self.turn = -1

    def _no_play(self, p: int) -> None:
        """A pass or a discard: it counts as a turn without playing; clear the table if everyone else did."""
        if self.in_game[p] and self.table_count:
            self.passed[p] = True
        n = self.game.num_players
        if self.table_count and all(self.passed[s] for s in range(n) if self.in_game[s] and s != self.last_player):
            leader = self.last_player if self.in_game[self.last_player] else self._next_in_game(self.last_player)
            self.table_value = -1
            self.table_count = 0
            self.table_faces = []
            self.last_player = -1
            self.passed = [False] * n
            self.turn = leader
            return
        self.turn = self._next_in_game(p)

    def _next_in_game(self, seat: int) -> int:
        n = self.game.num_players
        for step in range(1, n + 1):
            s = (seat + step) % n
            if self.in_game[s]:
                return s
        raise RuntimeError("nobody is left in the game")  # unreachable: the game ends with one player left

    # ---- results --------------------------------------------------------------------------------
    def returns(self) -> np.ndarray:
        n = self.game.num_players
        if self.phase != OVER:
            return np.zeros(n, dtype=np.float64)
        return rank_returns([-self.place[s] for s in range(n)])

    # ---- helpers --------------------------------------------------------------------------------
    def pick_counts(self) -> list[int]:
        counts = [0] * NUM_FACES
        for f in self.picks:
            counts[f] += 1
        return counts

    # ---- observation and text -------------------------------------------------------------------
    def _observation(self, seat: int) -> np.ndarray:
        return obs_mod.encode(self, seat)

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
        for s in range(n):
            status = f"out, place {self.place[s] + 1}" if self.place[s] >= 0 else "passed" if self.passed[s] else ""
            mark = "  <- to act" if to_act == s else ""
            row = f"Seat {s}: cards {self.hand_sizes[s]:>2}  sticks {self.sticks[s]:>2}  {status}".rstrip()
            if seat == s:
                row += f"  hand: {cards_text(self.hands[s])}"
            lines.append(row + mark)
        lines.append(f"Played: {cards_text(self.played)}")
        if self.phase == OVER:
            lines.append("Game over: finishing order " + " ".join(f"seat {s}" for s in self.out_order))
        return "\n".join(lines)

    def _seat_text(self, seat: int) -> str:
        return self.to_text(seat)

    # ---- hidden information ---------------------------------------------------------------------
    def unseen_cards(self, seat: int) -> list[int]:
        """Per face: the cards ``seat`` cannot place (other hands and cards never dealt)."""
        picks = self.pick_counts()
        return [self.deck[f] - self.hands[seat][f] - self.played[f] - picks[f] for f in range(NUM_FACES)]

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
        pool = self.unseen_cards(seat)
        laying = self.turn if self.pending_count and self.turn != seat else -1
        if laying >= 0:
            left = self.pending_count - len(self.picks)
            budget = self.sticks[laying] - self.pending_cost
            hand = _draw_completable(pool, self.hand_sizes[laying], self.pending_value, left, budget, rng)
            new.hands[laying] = hand
            pool = [pool[f] - hand[f] for f in range(NUM_FACES)]
        cards = np.repeat(np.arange(NUM_FACES), pool)
        rng.shuffle(cards)
        pos = 0
        for s in range(n):
            if s in (seat, laying):
                continue
            size = self.hand_sizes[s]
            hand = [0] * NUM_FACES
            for f in cards[pos : pos + size]:
                hand[int(f)] += 1
            pos += size
            new.hands[s] = hand
        new.undealt = [0] * NUM_FACES
        for f in cards[pos:]:
            new.undealt[int(f)] += 1
        if self.deal_start >= 0:
            self._rewrite_deal(new, seat, rng)
        return new

    def _rewrite_deal(self, new: MatchstickState, seat: int, rng: np.random.Generator) -> None:
        """Write the cards ``new``'s other seats were dealt (hand now, cards played, cards being laid) into its
        history, each seat's in a random order; ``seat``'s own deal stays as it was."""
        n = self.game.num_players
        picks = self.pick_counts()
        for s in range(n):
            if s == seat:
                continue
            dealt = [new.hands[s][f] + self.played_by[s][f] + (picks[f] if s == self.turn else 0) for f in range(NUM_FACES)]
            cards = np.repeat(np.arange(NUM_FACES), dealt)
            rng.shuffle(cards)
            slots = range(self.deal_start + s, self.deal_start + self.dealt, n)
            if len(cards) != len(slots):
                raise RuntimeError(f"seat {s} holds {len(cards)} dealt cards, {len(slots)} were dealt to it")
            for k, f in zip(slots, cards, strict=True):
                new.history[k] = int(f)

    # ---- copying --------------------------------------------------------------------------------
    def clone(self) -> MatchstickState:
        new = MatchstickState.__new__(MatchstickState)
        new.__dict__.update(self.__dict__)
        new.history = list(self.history)
        new.hands = [list(h) for h in self.hands]
        new.hand_sizes = list(self.hand_sizes)
        new.undealt = list(self.undealt)
        new.sticks = list(self.sticks)
        new.table_faces = list(self.table_faces)
        new.passed = list(self.passed)
        new.in_game = list(self.in_game)
        new.place = list(self.place)
        new.out_order = list(self.out_order)
        new.played = list(self.played)
        new.played_by = [list(h) for h in self.played_by]
        new.picks = list(self.picks)
        return new


__all__ = ["MatchstickGame", "MatchstickState", "can_show", "min_costs"]
