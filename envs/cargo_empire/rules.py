"""Cargo Empire rules engine: ``CargoEmpireGame`` and ``CargoEmpireState``.

See the environment card (``envs/cargo_empire/__init__.py``) for the rules as implemented, the action
table, the observation layout and the readings taken. Components come from ``data``; routes and
payments from ``routes``; scoring from ``scoring``. The engine draws no random numbers: every shuffle
and draw is a chance node, resolved one item at a time from a queue of pending draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.cargo_empire import observation as obs_mod
from gameshelf.envs.cargo_empire.actions import (
    BONUS,
    BONUS_BASE,
    DEST,
    DEST_BASE,
    NUM_ACTIONS,
    PASS,
    PAY,
    PAY_BASE,
    PAYMENT_INDEX,
    PUBLIC,
    START,
    STARTPOST,
    TILE,
    action_text,
    payment_text,
)
from gameshelf.envs.cargo_empire.hidden import resample
from gameshelf.envs.cargo_empire.routes import ALL_PAYMENTS, legal_payments
from gameshelf.envs.cargo_empire.scoring import MAX_VP, final_vp, goal_fulfilled, track_rewards
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

MAX_GAME_LENGTH = 400
"""Player decisions are bounded by the rules: at most 12 turns per player, each of at most 6 decisions
(start, destination, payment, up to 3 bonus moves): 5 x 9 x 6 = 270 at five players."""


class CargoEmpireGame(Game):
    """Cargo Empire for 1 to 5 players."""

    name = "cargo_empire"
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(2, choices=(2, 1, 3, 4, 5), doc="number of players (1 = solo)"),
    }
    LAYOUT = obs_mod.LAYOUT

    def _facts(self) -> GameFacts:
        return GameFacts(
            num_actions=NUM_ACTIONS,
            max_game_length=MAX_GAME_LENGTH,
            has_chance=True,
            has_hidden_info=self.options["num_players"] > 1,
        )

    def new_initial_state(self) -> CargoEmpireState:
        return CargoEmpireState(self)


class CargoEmpireState(State):
    """A Cargo Empire position. All fields are plain lists and ints (``position()`` exports them)."""

    game: CargoEmpireGame
    FIELDS: ClassVar[tuple[str, ...]] = (
        "round",
        "turn",
        "phase",
        "sel_start",
        "sel_dest",
        "sel_payment",
        "bonus_left",
        "over",
        "queue",
        "rewards",
        "tile",
        "level",
        "cubes",
        "demand",
        "side",
        "public_cards",
        "city_deck",
        "private",
        "revealed",
        "goal_deck",
        "goals",
        "deck",
        "discard",
        "hands",
        "tracks",
        "posts_left",
        "perfect",
    )

    def __init__(self, game: CargoEmpireGame) -> None:
        super().__init__(game)
        n = game.num_players
        self.n = n
        self._mask: np.ndarray | None = None
        """Cached legal-action mask of this position (cleared by every action)."""
        self._root: dict[str, Any] | None = None
        """The position ``history`` starts from (``position()`` of a state built by ``state_from_position``);
        None for the initial state. Never changed in place (clones share it)."""
        self._trace: tuple[int, Any] | None = None
        """``hidden``'s reading of ``history`` (with its length), kept for the next redeal of this position."""
        self.round = 0
        """0-based round."""
        self.turn = 0
        """Turns taken in this round (all players); the player to move is ``turn % n``."""
        self.phase = START
        self.sel_start = -1
        self.sel_dest = -1
        self.sel_payment = -1
        """Index in ``routes.ALL_PAYMENTS`` of the payment made (during the bonus moves)."""
        self.bonus_left = 0
        self.over = False
        self.queue: list[list[Any]] = [[TILE, c] for c in range(D.NUM_CITIES)]
        self.queue += [[PUBLIC, -1] for _ in range(D.NUM_PUBLIC_CARDS)]
        for seat in range(n):
            self.queue += [[D.DRAW_TRANSPORT, seat] for _ in range(D.START_HAND)]
            self.queue += [[D.DRAW_GOAL, seat] for _ in range(D.START_GOALS)]
        for seat in range(n):
            self.queue += [[STARTPOST, seat] for _ in range(D.START_POSTS)]
        self.rewards: list[list[Any]] = []
        """Rewards earned by the delivery in progress (drawn when it is complete)."""
        self.tile = [-1] * D.NUM_CITIES
        self.level = [0] * D.NUM_CITIES
        """0 before the tile is placed, then 1, 2, or 3 (LV3: no tile)."""
        self.cubes = [0] * D.NUM_CITIES
        self.demand: list[list[int]] = [[] for _ in range(D.NUM_CITIES)]
        """Owner of each demand space of the tile's current side (-1 empty), in the tile's colour order."""
        self.side = [[0] * n for _ in range(D.NUM_CITIES)]
        """Posts of each player in each city's side area."""
        self.public_cards: list[int] = []
        self.city_deck = list(range(D.NUM_CITIES))
        self.private: list[list[int]] = [[] for _ in range(n)]
        self.revealed: list[list[int]] = [[] for _ in range(n)]
        """Private city cards shown (for a bonus move): public knowledge."""
        self.goal_deck = list(range(D.NUM_GOALS))
        self.goals: list[list[int]] = [[] for _ in range(n)]
        self.deck = list(D.TRANSPORT_DECK)
        self.discard = [0, 0, 0]
        self.hands = [[0, 0, 0] for _ in range(n)]
        self.tracks = [[0, 0, 0] for _ in range(n)]
        self.posts_left = [D.board_posts(n)] * n
        self.perfect = [0] * n
        """Perfect Upgrades each player caused."""

    # ---- queries about the map ------------------------------------------------------------------
    def demand_colours(self, city: int) -> tuple[int, ...]:
        lv = self.level[city]
        if lv == 1:
            return D.TILES[self.tile[city]][1]
        if lv == 2:
            return D.TILES[self.tile[city]][2]
        return ()

    def colour(self, city: int) -> int:
        """Production colour of the city's tile (-1 without a tile)."""
        return D.TILES[self.tile[city]][0] if self.tile[city] >= 0 else -1

    def has_post(self, seat: int, city: int) -> bool:
        return self.side[city][seat] > 0 or seat in self.demand[city]

    def posts_in(self, seat: int, city: int) -> int:
        return self.side[city][seat] + self.demand[city].count(seat)

    def cities_of(self, seat: int) -> list[int]:
        return [c for c in range(D.NUM_CITIES) if self.has_post(seat, c)]

    def posts_on_map(self, seat: int) -> int:
        return sum(self.posts_in(seat, c) for c in range(D.NUM_CITIES))

    def lv3_posts(self, seat: int) -> int:
        return sum(self.side[c][seat] for c in range(D.NUM_CITIES) if self.level[c] == 3)

    def open_demand(self, city: int, colour: int) -> int:
        """Index of the empty demand space of ``colour`` in ``city``, or -1."""
        for i, col in enumerate(self.demand_colours(city)):
            if col == colour and self.demand[city][i] < 0:
                return i
        return -1

    def card_bonus(self, seat: int, city: int) -> bool:
        """Is the city's card public or one of ``seat``'s private cards?"""
        return city in self.public_cards or city in self.private[seat]

    # ---- legal moves ----------------------------------------------------------------------------
    def affordable(self, seat: int, s: int, d: int) -> list[int]:
        """Indices of the legal payments from ``s`` to ``d`` that ``seat``'s hand can pay."""
        hand = self.hands[seat]
        return [PAYMENT_INDEX[p] for p in legal_payments(s, d) if p[0] <= hand[0] and p[1] <= hand[1] and p[2] <= hand[2]]

    def destinations(self, seat: int, s: int) -> list[int]:
        """Cities a delivery of ``seat`` from ``s`` can go to (demand space free, payable)."""
        colour = self.colour(s)
        if colour < 0 or self.cubes[s] <= 0 or not self.has_post(seat, s):
            return []
        return [d for d in range(D.NUM_CITIES) if d != s and self.open_demand(d, colour) >= 0 and self.affordable(seat, s, d)]

    def open_cities(self) -> list[list[int]]:
        """For each colour, the cities with an empty demand space of that colour (ascending)."""
        out: list[list[int]] = [[] for _ in range(D.NUM_COLOURS)]
        demand = self.demand
        for city in range(D.NUM_CITIES):
            for i, col in enumerate(self.demand_colours(city)):
                if demand[city][i] < 0 and (not out[col] or out[col][-1] != city):
                    out[col].append(city)
        return out

    def _can_start(self, seat: int, s: int, open_cities: list[list[int]]) -> bool:
        """``destinations(seat, s)`` is not empty (with an early exit); ``open_cities`` as ``self.open_cities()``."""
        colour = self.colour(s)
        if colour < 0 or self.cubes[s] <= 0 or not self.has_post(seat, s):
            return False
        hand = self.hands[seat]
        for d in open_cities[colour]:
            if d != s:
                for p in legal_payments(s, d):
                    if p[0] <= hand[0] and p[1] <= hand[1] and p[2] <= hand[2]:
                        return True
        return False

    def current_player(self) -> int:
        if self.queue:
            return CHANCE
        if self.over:
            return TERMINAL
        return self.turn % self.n

    def legal_action_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask.copy()

    def _compute_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        seat = self.current_player()
        if seat < 0:
            return mask
        if self.phase == START:
            mask[PASS] = True
            open_cities = self.open_cities()
            for s in range(D.NUM_CITIES):
                if self._can_start(seat, s, open_cities):
                    mask[s] = True
        elif self.phase == DEST:
            for d in self.destinations(seat, self.sel_start):
                mask[DEST_BASE + d] = True
        elif self.phase == PAY:
            for i in self.affordable(seat, self.sel_start, self.sel_dest):
                mask[PAY_BASE + i] = True
        else:
            payment = ALL_PAYMENTS[self.sel_payment]
            for v in range(3):
                if payment[v]:
                    mask[BONUS_BASE + v] = True
        return mask

    # ---- chance ---------------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.queue:
            return []
        kind, _who = self.queue[0]
        if kind == D.DRAW_TRANSPORT:
            return count_outcomes(self.deck if sum(self.deck) else self.discard)
        items = self._chance_items(kind)
        return [(x, 1.0 / len(items)) for x in items]

    def _chance_items(self, kind: str) -> list[int]:
        if kind == TILE:
            return [t for t in range(D.NUM_TILES) if t not in self.tile]
        if kind in (PUBLIC, D.DRAW_CITY):
            return list(self.city_deck)
        if kind == D.DRAW_GOAL:
            return list(self.goal_deck)
        # start post: a city where no start post stands yet
        return [c for c in range(D.NUM_CITIES) if not any(self.side[c])]

    def sample_chance(self, rng: np.random.Generator) -> int:
        kind, _ = self.queue[0]
        if kind == D.DRAW_TRANSPORT:
            return draw_from_counts(self.deck if sum(self.deck) else self.discard, rng)
        items = self._chance_items(kind)
        return items[int(rng.integers(len(items)))]

    def _is_legal(self, player: int, action: int) -> bool:
        if player == CHANCE:
            return any(action == o for o, _ in self.chance_outcomes())
        if not 0 <= action < NUM_ACTIONS:
            return False
        if self._mask is None:
            self._mask = self._compute_mask()
        return bool(self._mask[action])

    def _apply_chance(self, outcome: int) -> None:
        kind, who = self.queue.pop(0)
        if kind == TILE:
            self.tile[who] = outcome
            self.level[who] = 1
            self.cubes[who] = D.LV1_CUBES
            self.demand[who] = [-1] * len(D.TILES[outcome][1])
        elif kind == PUBLIC:
            self.city_deck.remove(outcome)
            self.public_cards.append(outcome)
        elif kind == D.DRAW_CITY:
            self.city_deck.remove(outcome)
            self.private[who].append(outcome)
        elif kind == D.DRAW_GOAL:
            self.goal_deck.remove(outcome)
            self.goals[who].append(outcome)
        elif kind == STARTPOST:
            self.side[outcome][who] += 1
        else:
            if not sum(self.deck):  # reshuffle the discards into a new deck
                self.deck, self.discard = self.discard, [0, 0, 0]
            self.deck[outcome] -= 1
            self.hands[who][outcome] += 1
        self._settle()

    def _settle(self) -> None:
        """Drop pending draws that cannot happen (empty deck and discards, empty city or goal deck)."""
        while self.queue:
            kind = self.queue[0][0]
            if (
                (kind == D.DRAW_TRANSPORT and not sum(self.deck) and not sum(self.discard))
                or (kind == D.DRAW_CITY and not self.city_deck)
                or (kind == D.DRAW_GOAL and not self.goal_deck)
            ):
                self.queue.pop(0)
            else:
                break

    # ---- player actions -------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        self._mask = None
        if self.queue:
            self._apply_chance(action)
            return
        seat = self.turn % self.n
        if self.phase == START:
            if action == PASS:
                self.queue += [[D.DRAW_TRANSPORT, seat] for _ in range(D.PASS_DRAW)]
                self.posts_left[seat] -= 1
                self._end_turn()
            else:
                self.sel_start = action
                self.phase = DEST
        elif self.phase == DEST:
            self.sel_dest = action - DEST_BASE
            self.phase = PAY
        elif self.phase == PAY:
            self._deliver(seat, action - PAY_BASE)
        else:
            self._move(seat, action - BONUS_BASE, 1)
            self.bonus_left -= 1
            if self.bonus_left == 0:
                self._end_delivery()

    def _move(self, seat: int, vehicle: int, steps: int) -> None:
        before = self.tracks[seat][vehicle]
        after = min(D.TRACK_MAX, before + steps)
        self.tracks[seat][vehicle] = after
        for reward in track_rewards(before, after):
            self.rewards.append([reward, seat])

    def _deliver(self, seat: int, pay_index: int) -> None:
        s, d = self.sel_start, self.sel_dest
        payment = ALL_PAYMENTS[pay_index]
        self.sel_payment = pay_index
        hand = self.hands[seat]
        for v in range(3):
            hand[v] -= payment[v]
            self.discard[v] += payment[v]
        colour = self.colour(s)
        self.cubes[s] -= 1
        self.demand[d][self.open_demand(d, colour)] = seat
        self.posts_left[seat] -= 1
        perfect = False
        if all(owner >= 0 for owner in self.demand[d]):
            perfect = self.cubes[d] == 0
            for owner in self.demand[d]:
                self.side[d][owner] += 1
            if self.level[d] == 1:
                self.level[d] = 2
                self.cubes[d] = D.LV2_CUBES
                self.demand[d] = [-1] * len(D.TILES[self.tile[d]][2])
            else:
                self.level[d] = 3
                self.cubes[d] = 0
                self.tile[d] = -1
                self.demand[d] = []
            if perfect:
                self.perfect[seat] += 1
        bonus = int(perfect)
        for city in (s, d):
            if self.card_bonus(seat, city):
                bonus += 1
                if city in self.private[seat] and city not in self.revealed[seat]:
                    self.revealed[seat].append(city)
        for v in range(3):
            if payment[v]:
                self._move(seat, v, payment[v] * D.MOVES_PER_CARD[v])
        moved = [v for v in range(3) if payment[v]]
        if bonus and len(moved) == 1:
            self._move(seat, moved[0], bonus)
            bonus = 0
        if bonus:
            self.bonus_left = bonus
            self.phase = BONUS
        else:
            self._end_delivery()

    def _end_delivery(self) -> None:
        self.queue += self.rewards
        self.rewards = []
        self._end_turn()

    def _end_turn(self) -> None:
        self.phase = START
        self.sel_start = self.sel_dest = self.sel_payment = -1
        self.bonus_left = 0
        self.turn += 1
        if self.turn == self.n * D.turns_per_round(self.n):
            if self.round < D.ROUNDS - 1:
                self.round += 1
                self.turn = 0
                for seat in range(self.n):
                    self.queue += [[D.DRAW_TRANSPORT, seat] for _ in range(D.ROUND_END_DRAW)]
            else:
                self.over = True
        self._settle()

    # ---- results --------------------------------------------------------------------------------
    def fulfilled_goals(self, seat: int) -> list[int]:
        cities = self.cities_of(seat)
        lv3 = [c for c in cities if self.level[c] == 3]
        return [g for g in self.goals[seat] if goal_fulfilled(g, cities, lv3, self.tracks[seat], self.perfect[seat])]

    def vp(self, seat: int, with_goals: bool = True) -> int:
        goals = self.fulfilled_goals(seat) if with_goals else []
        return final_vp(self.tracks[seat], self.lv3_posts(seat), len(self.private[seat]), goals)

    def is_terminal(self) -> bool:
        return self.over and not self.queue

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(self.n, dtype=np.float64)
        if self.n == 1:
            return np.array([2.0 * self.vp(0) / MAX_VP - 1.0], dtype=np.float64)
        return rank_returns([(self.vp(s), self.posts_on_map(s)) for s in range(self.n)])

    def scores(self) -> np.ndarray:
        """VP as far as public: markers, LV3 posts and private cards; goals are added at the end."""
        end = self.is_terminal()
        return np.array([float(self.vp(s, with_goals=end)) for s in range(self.n)], dtype=np.float64)

    # ---- observation and text -------------------------------------------------------------------
    def _observation(self, seat: int) -> np.ndarray:
        return obs_mod.encode(self, seat)

    def action_to_string(self, action: int) -> str:
        if self.queue:
            kind, who = self.queue[0]
            if kind == TILE:
                colour, lv1, _ = D.TILES[action]
                demands = "+".join(D.COLOURS[c] for c in lv1)
                return f"tile {action} ({D.COLOURS[colour]}, wants {demands}) to {D.CITIES[who]}"
            if kind == PUBLIC:
                return f"public city card {D.CITIES[action]}"
            if kind == STARTPOST:
                return f"seat {who} starts in {D.CITIES[action]}"
            if kind == D.DRAW_CITY:
                return f"seat {who} draws city card {D.CITIES[action]}"
            if kind == D.DRAW_GOAL:
                return f"seat {who} draws goal {D.GOALS[action][0]}"
            return f"seat {who} draws {D.VEHICLES[action]}"
        return action_text(action)

    def _city_line(self, c: int) -> str:
        name = f"{D.CITIES[c]}{'*' if c in D.PORTS else ''}"
        if self.level[c] == 0:
            return f"{name:<12} (no tile yet)"
        owners = " ".join(f"P{p}x{self.side[c][p]}" for p in range(self.n) if self.side[c][p])
        card = " card:public" if c in self.public_cards else ""
        if self.level[c] == 3:
            return f"{name:<12} LV3{card}  posts: {owners or '-'}"
        colour = D.COLOURS[self.colour(c)]
        demands = " ".join(
            f"{D.COLOURS[col]}[{'P' + str(o) if o >= 0 else '-'}]"
            for col, o in zip(self.demand_colours(c), self.demand[c], strict=True)
        )
        return f"{name:<12} LV{self.level[c]} {colour:<6} cubes {self.cubes[c]}  wants {demands}  side: {owners or '-'}{card}"

    def to_text(self) -> str:
        return self._text(None)

    def _seat_text(self, seat: int) -> str:
        return self._text(seat)

    def _text(self, seat: int | None) -> str:
        n = self.n
        tpr = D.turns_per_round(n)
        players = f"{n} player{'s' if n > 1 else ''}"
        lines = [f"Cargo Empire  {players}  round {self.round + 1}/{D.ROUNDS}  turn {min(self.turn // n + 1, tpr)}/{tpr}"]
        player = self.current_player()
        if player == CHANCE:
            lines.append(f"Drawing: {self.queue[0][0]} ({len(self.queue)} draws pending)")
        elif player == TERMINAL:
            lines.append("Game over")
        else:
            step = {START: "choose a start city or pass", DEST: "choose the destination", PAY: "choose the payment",
                    BONUS: f"allocate {self.bonus_left} bonus move(s)"}[self.phase]  # fmt: skip
            sel = ""
            if self.sel_start >= 0:
                colour = self.colour(self.sel_start)
                sel += f"  from {D.CITIES[self.sel_start]} ({D.COLOURS[colour] if colour >= 0 else '-'})"
            if self.sel_dest >= 0:
                sel += f" to {D.CITIES[self.sel_dest]}"
            if self.sel_payment >= 0:
                sel += f" paid {payment_text(ALL_PAYMENTS[self.sel_payment])}"
            lines.append(f"Seat {player} to move: {step}{sel}")
        lines.append("Cities (* = port):")
        lines += ["  " + self._city_line(c) for c in range(D.NUM_CITIES)]
        lines.append(f"Public city cards: {', '.join(D.CITIES[c] for c in self.public_cards) or '-'}")
        lines.append(
            f"Transport deck {sum(self.deck)} cards, discards: "
            + ", ".join(f"{D.VEHICLES[v]} {self.discard[v]}" for v in range(3))
            + f"; city deck {len(self.city_deck)}; goal deck {len(self.goal_deck)}"
        )
        end = self.is_terminal()
        for p in range(n):
            tracks = " ".join(f"{D.VEHICLES[v]} {self.tracks[p][v]}" for v in range(3))
            shown = ", ".join(D.CITIES[c] for c in self.revealed[p])
            row = (
                f"P{p}: tracks {tracks} | posts left {self.posts_left[p]}, on map {self.posts_on_map(p)} | "
                f"hand {sum(self.hands[p])} | private cards {len(self.private[p])}{' (shown: ' + shown + ')' if shown else ''}"
                f" | goals {len(self.goals[p])} | perfect {self.perfect[p]} | VP {self.vp(p, with_goals=end)}"
            )
            lines.append(row + (" <- to move" if player == p else ""))
        if seat is not None:
            hand = ", ".join(f"{D.VEHICLES[v]} {self.hands[seat][v]}" for v in range(3))
            lines.append(f"Your hand (P{seat}): {hand}")
            lines.append(f"Your private city cards: {', '.join(D.CITIES[c] for c in self.private[seat]) or '-'}")
            done = self.fulfilled_goals(seat)
            goals = "; ".join(
                f"{D.GOALS[g][0]} {D.GOALS[g][3]} ({D.GOALS[g][2]} VP{', fulfilled' if g in done else ''})"
                for g in self.goals[seat]
            )
            lines.append(f"Your goals: {goals or '-'}")
        if end:
            lines.append("Final VP: " + ", ".join(f"P{p} {self.vp(p)}" for p in range(n)))
        return "\n".join(lines)

    # ---- hidden information ---------------------------------------------------------------------
    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> CargoEmpireState:
        """A state ``seat`` cannot tell apart from this one, drawn uniformly among those consistent with what
        it has seen: the outcomes of the other players' draws (transport cards, private city cards, goals;
        and their hands, unshown city cards and goals in the position the state was built from) are drawn
        again and the history is replayed with them, so the new state's history (and its position) rebuild
        it and its legal moves are the rules' moves for its own hands. Conditioned on: the seat's own cards;
        the make-up of every deck formed by a reshuffle; every payment another player made (it held the
        cards); a player in the middle of a delivery can complete it; the cards shown and the bonus moves
        (a shown card was drawn before it was shown, an unshown one is not in a hand that delivered from or
        to its city after drawing it); at the end, every player's final VP. See ``hidden`` for the sampler
        (exact, except a close approximation for transport cards when many payments condition them)."""
        if self.n == 1:
            return self.clone()
        return resample(self, seat, rng)

    # ---- copying and positions ------------------------------------------------------------------
    def clone(self) -> CargoEmpireState:
        # Field by field (a tree search clones every simulation): ints are shared, flat lists copied, lists
        # of lists copied two deep. Queue and reward entries are never changed in place (only added and
        # removed), so those lists are copied one deep; the cached mask is never written (read as a copy).
        new = CargoEmpireState.__new__(CargoEmpireState)
        d = self.__dict__.copy()
        d["history"] = self.history[:]
        for name in _FLAT_LISTS:
            d[name] = d[name][:]
        for name in _NESTED_LISTS:
            d[name] = [x[:] for x in d[name]]
        new.__dict__ = d
        return new

    def position(self) -> dict[str, Any]:
        out: dict[str, Any] = {"num_players": self.n}
        for name in self.FIELDS:
            value = getattr(self, name)
            if isinstance(value, list):
                value = [list(x) if isinstance(x, list) else x for x in value]
            out[name] = value
        return out

    @classmethod
    def _load(cls, game: CargoEmpireGame, position: Mapping[str, Any]) -> CargoEmpireState:
        """The state of a valid position, with an empty history and the position as its root."""
        state = cls(game)
        for name in cls.FIELDS:
            value = position[name]
            if isinstance(value, (list, tuple)):
                value = [list(x) if isinstance(x, (list, tuple)) else x for x in value]
            setattr(state, name, value)
        state.history = []
        state._root = state.position()
        return state


_FLAT_LISTS = (
    "queue",
    "rewards",
    "tile",
    "level",
    "cubes",
    "public_cards",
    "city_deck",
    "goal_deck",
    "deck",
    "discard",
    "posts_left",
    "perfect",
)
"""The list fields of ``CargoEmpireState.FIELDS`` whose items are never changed in place."""
_NESTED_LISTS = ("demand", "side", "private", "revealed", "goals", "hands", "tracks")
"""The list fields holding one list per city or per seat."""

__all__ = ["CargoEmpireGame", "CargoEmpireState"]
