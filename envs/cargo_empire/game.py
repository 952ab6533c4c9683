"""Cargo Empire's game and state: ``CargoEmpireGame`` and ``CargoEmpireState``, a view over one kernel row.

The rules are compiled kernels (``kernel.py``: mask, legality, actions, chance odds and draws, returns,
observation); this module keeps what is not a rule step, in Python: options, text, move names, the fields
as plain ints and lists over the row (declared once, as ``kernel.ROW``), positions and the redeal of hidden
information (``hidden``). See the environment card (``envs/cargo_empire/__init__.py``) for the rules as
implemented, the action table, the observation layout and the readings taken. The engine draws no random
numbers: every shuffle and draw is a chance node, resolved one item at a time from a queue of pending draws.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.cargo_empire import kernel as K
from gameshelf.envs.cargo_empire import observation as obs_mod
from gameshelf.envs.cargo_empire.actions import (
    BONUS,
    DEST,
    DRAW_KINDS,
    NUM_ACTIONS,
    PAY,
    PHASES,
    PUBLIC,
    START,
    STARTPOST,
    TILE,
    action_text,
    payment_text,
)
from gameshelf.envs.cargo_empire.hidden import resample
from gameshelf.envs.cargo_empire.routes import ALL_PAYMENTS
from gameshelf.envs.core.game import CHANCE, TERMINAL, GameFacts, Option
from gameshelf.envs.core.kernel import KernelGame, KernelState
from gameshelf.envs.core.row import IntView

MAX_GAME_LENGTH = 400
"""Player decisions are bounded by the rules (``kernel.MAX_DECISIONS``): at most 12 turns per player, each of
at most 6 decisions (start, destination, payment, up to 3 bonus moves): 4 x 12 x 6 = 288 at four players."""

__all__ = ["BONUS", "DEST", "PAY", "START", "CargoEmpireGame", "CargoEmpireState"]


class CargoEmpireGame(KernelGame):
    """Cargo Empire for 1 to 5 players."""

    name = "cargo_empire"
    kernel = K
    """The compiled rules (``kernel.py``): the state is a view over its row, ``gameshelf.vector`` batches it."""
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(2, choices=(2, 1, 3, 4, 5), doc="number of players (1 = solo)"),
    }
    LAYOUT = obs_mod.LAYOUT

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.initial = K.initial_state(self.options["num_players"])

    def _facts(self) -> GameFacts:
        return GameFacts(
            num_actions=NUM_ACTIONS,
            max_game_length=MAX_GAME_LENGTH,
            has_chance=True,
            has_hidden_info=self.options["num_players"] > 1,
        )

    def new_initial_state(self) -> CargoEmpireState:
        return CargoEmpireState(self)


# ---- fields over the row ----------------------------------------------------------------------------------
def _decode(code: int) -> list[Any]:
    """A queue or reward entry of the row as ``[kind, who]``."""
    return [DRAW_KINDS[K.queue_kind(code)], K.queue_who(code)]


def _encode(entry: Any) -> int:
    return int(K.queue_entry(DRAW_KINDS.index(entry[0]), int(entry[1])))


def _draws_field(name: str, doc: str) -> Any:
    """Pending draws (``[kind, who]`` lists, kinds named as in ``actions.DRAW_KINDS``) stored as codes in row
    field ``name``, their count in ``name_len``."""
    length, items = K.ROW[f"{name}_len"].offset, K.ROW[name]

    def get(state: Any) -> list[list[Any]]:
        s = state.s
        return [_decode(int(x)) for x in s[items.offset : items.offset + s[length]]]

    def put(state: Any, entries: Iterable[Any]) -> None:
        codes = [_encode(e) for e in entries]
        if len(codes) > items.size:
            raise ValueError(f"at most {items.size} pending draws fit in the state, got {len(codes)}")
        _write_list(state.s, length, items.offset, items.size, codes)

    return property(get, put, doc=doc)


def _list_field(name: str) -> Any:
    """Row field ``name`` as a list of ints of variable length (its length in ``name_len``)."""
    length, items = K.ROW[f"{name}_len"].offset, K.ROW[name]

    def get(state: Any) -> list[int]:
        s = state.s
        return s[items.offset : items.offset + s[length]].tolist()  # type: ignore[no-any-return]

    def put(state: Any, values: Iterable[int]) -> None:
        _write_list(state.s, length, items.offset, items.size, values)

    return property(get, put, doc=items.meaning)


def _write_list(s: np.ndarray, length: int, start: int, room: int, values: Iterable[int]) -> None:
    items = [int(x) for x in values]
    if len(items) > room:
        raise ValueError(f"at most {room} items fit, got {len(items)}")
    s[start : start + room] = 0
    s[start : start + len(items)] = items
    s[length] = len(items)


class SeatLists(list):  # type: ignore[type-arg]
    """One list per seat (private cards, shown cards, goals), read like a list of lists; assigning a seat's
    list (``state.private[p] = [...]``) writes it into the row."""

    def __init__(self, s: np.ndarray, length: int, start: int, room: int, seats: int) -> None:
        super().__init__(s[start + room * p : start + room * p + s[length + p]].tolist() for p in range(seats))
        self._where = (s, length, start, room)

    def __setitem__(self, p: Any, values: Any) -> None:
        s, length, start, room = self._where
        _write_list(s, length + p, start + room * p, room, values)
        super().__setitem__(p, list(values))


def _seat_lists_field(name: str) -> Any:
    """Per-seat row field ``name`` as one list of variable length per seat (their lengths in ``name_len``)."""
    length, items = K.ROW[f"{name}_len"].offset, K.ROW[name]
    start, room = items.offset, items.shape[1]

    def get(state: Any) -> SeatLists:
        return SeatLists(state.s, length, start, room, state.game.num_players)

    def put(state: Any, rows: Iterable[Iterable[int]]) -> None:
        rows = list(rows)
        if len(rows) != state.game.num_players:
            raise ValueError(f"expected one list per seat ({state.game.num_players}), got {len(rows)}")
        for p, values in enumerate(rows):
            _write_list(state.s, length + p, start + room * p, room, values)

    return property(get, put, doc=items.meaning)


def _phase_get(state: Any) -> str:
    return PHASES[state.s[K.PHASE]]


def _phase_put(state: Any, value: str) -> None:
    state.s[K.PHASE] = PHASES.index(value)


def _demand_get(state: Any) -> list[list[int]]:
    s = state.s
    out = []
    for c in range(D.NUM_CITIES):
        lv = int(s[K.LEVEL + c])
        k = int(K.NDEM[s[K.TILE + c], lv]) if lv in (1, 2) else 0
        out.append(s[K.DEMAND + 3 * c : K.DEMAND + 3 * c + k].tolist())
    return out


def _demand_put(state: Any, rows: Iterable[Iterable[int]]) -> None:
    rows = list(rows)
    s = state.s
    for c in range(D.NUM_CITIES):
        owners = [int(x) for x in rows[c]]
        s[K.DEMAND + 3 * c : K.DEMAND + 3 * c + 3] = -1
        s[K.DEMAND + 3 * c : K.DEMAND + 3 * c + len(owners)] = owners


def _side_get(state: Any) -> list[list[int]]:
    s, n = state.s, state.game.num_players
    return [s[K.SIDE + K.MP * c : K.SIDE + K.MP * c + n].tolist() for c in range(D.NUM_CITIES)]


def _side_put(state: Any, rows: Iterable[Iterable[int]]) -> None:
    s, n = state.s, state.game.num_players
    for c, row in enumerate(rows):
        values = [int(x) for x in row]
        if len(values) != n:
            raise ValueError(f"expected {n} side posts per city, got {len(values)}")
        s[K.SIDE + K.MP * c : K.SIDE + K.MP * c + n] = values


class CargoEmpireState(KernelState):
    """A Cargo Empire position: a view over one kernel row (``kernel.py``), which the rules act on. The fields
    read (and the position builder writes) that row like the plain ints and lists ``position()`` exports."""

    game: CargoEmpireGame
    EXTRA = ("_root", "_trace")
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
        self._root: dict[str, Any] | None = None
        """The position ``history`` starts from (``position()`` of a state built by ``state_from_position``);
        None for the initial state. Never changed in place (clones share it)."""
        self._trace: tuple[int, Any] | None = None
        """``hidden``'s reading of ``history`` (with its length), kept for the next redeal of this position."""

    round = K.ROW.field("round")
    turn = K.ROW.field("turn")
    phase = property(_phase_get, _phase_put, doc="decision step: start, dest, pay or bonus")
    sel_start = K.ROW.field("sel_start")
    sel_dest = K.ROW.field("sel_dest")
    sel_payment = K.ROW.field("sel_payment")
    bonus_left = K.ROW.field("bonus_left")
    over = K.ROW.field("over")
    queue = _draws_field("queue", "pending chance draws, ``[kind, who]``")
    rewards = _draws_field("rewards", "rewards earned by the delivery in progress (drawn when it is complete)")
    tile = K.ROW.field("tile")
    level = K.ROW.field("level")
    cubes = K.ROW.field("cubes")
    demand = property(_demand_get, _demand_put, doc="owner of each demand space of the tile's side (-1 empty), per city")
    side = property(_side_get, _side_put, doc="posts of each player in each city's side area")
    public_cards = _list_field("public_cards")
    city_deck = _list_field("city_deck")
    private = _seat_lists_field("private")
    revealed = _seat_lists_field("revealed")
    goal_deck = _list_field("goal_deck")
    goals = _seat_lists_field("goals")
    deck = K.ROW.field("deck")
    discard = K.ROW.field("discard")
    hands = K.ROW.field("hands")
    tracks = K.ROW.field("tracks")
    posts_left = K.ROW.field("posts_left")
    perfect = K.ROW.field("perfect")

    @property
    def n(self) -> int:
        """Number of players."""
        return int(self.s[K.NP])

    # ---- queries about the map (read from the row) ------------------------------------------------
    def demand_colours(self, city: int) -> tuple[int, ...]:
        lv = self.level[city]
        if lv == 1:
            return D.TILES[self.tile[city]][1]
        if lv == 2:
            return D.TILES[self.tile[city]][2]
        return ()

    def colour(self, city: int) -> int:
        """Production colour of the city's tile (-1 without a tile)."""
        t = int(self.s[K.TILE + city])
        return D.TILES[t][0] if t >= 0 else -1

    def has_post(self, seat: int, city: int) -> bool:
        return self.posts_in(seat, city) > 0

    def posts_in(self, seat: int, city: int) -> int:
        s = self.s
        d = K.DEMAND + 3 * city
        return int(s[K.SIDE + K.MP * city + seat]) + sum(int(s[d + k]) == seat for k in range(3))

    def cities_of(self, seat: int) -> list[int]:
        return [c for c in range(D.NUM_CITIES) if self.has_post(seat, c)]

    def posts_on_map(self, seat: int) -> int:
        return sum(self.posts_in(seat, c) for c in range(D.NUM_CITIES))

    def lv3_posts(self, seat: int) -> int:
        return sum(self.side[c][seat] for c in range(D.NUM_CITIES) if self.level[c] == 3)

    def open_demand(self, city: int, colour: int) -> int:
        """Index of the empty demand space of ``colour`` in ``city``, or -1."""
        return int(K.open_demand(self.S, 0, city, colour))

    def card_bonus(self, seat: int, city: int) -> bool:
        """Is the city's card public or one of ``seat``'s private cards?"""
        return city in self.public_cards or city in self.private[seat]

    def affordable(self, seat: int, s: int, d: int) -> list[int]:
        """Indices of the legal payments from ``s`` to ``d`` that ``seat``'s hand can pay."""
        bits = int(K.affordable(self.S, 0, seat, s, d))
        return [p for p in range(len(ALL_PAYMENTS)) if bits >> p & 1]

    def destinations(self, seat: int, s: int) -> list[int]:
        """Cities a delivery of ``seat`` from ``s`` can go to (demand space free, payable)."""
        out = np.zeros(D.NUM_CITIES, dtype=np.bool_)
        K.destinations(self.S, 0, seat, s, out)
        return np.flatnonzero(out).tolist()  # type: ignore[no-any-return]

    def current_player(self) -> int:
        s = self.s  # the kernel's current_player, read here without a compiled call (the hottest query)
        if s[K.QLEN]:
            return CHANCE
        if s[K.OVER]:
            return TERMINAL
        return int(s[K.TURN] % s[K.NP])

    def legal_actions(self) -> list[int]:
        if self.current_player() < 0:
            return []
        out = np.empty(NUM_ACTIONS, dtype=np.int64)
        return out[: K.legal_list(self.S, 0, out)].tolist()  # type: ignore[no-any-return]

    # ---- chance (the odds are the kernel's chance_weights: KernelState's chance_outcomes, sample_chance) -----
    def next_draw(self) -> tuple[str, int] | None:
        """The next pending draw as ``(kind, who)``, or None (``queue[0]`` without building the queue)."""
        s = self.s
        if not s[K.QLEN]:
            return None
        code = int(s[K.QUEUE])
        return DRAW_KINDS[K.queue_kind(code)], K.queue_who(code)

    # ---- results ----------------------------------------------------------------------------------
    def fulfilled_goals(self, seat: int) -> list[int]:
        return [g for g in self.goals[seat] if K.goal_fulfilled(self.S, 0, seat, g)]

    def vp(self, seat: int, with_goals: bool = True) -> int:
        return int(K.seat_vp(self.S, 0, seat, with_goals))

    def scores(self) -> np.ndarray:
        """VP as far as public: markers, LV3 posts and private cards; goals are added at the end."""
        end = self.is_terminal()
        return np.array([float(self.vp(s, with_goals=end)) for s in range(self.n)], dtype=np.float64)

    # ---- text -------------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        draw = self.next_draw()
        if draw is not None:
            kind, who = draw
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

    # ---- positions --------------------------------------------------------------------------------
    def position(self) -> dict[str, Any]:
        out: dict[str, Any] = {"num_players": self.n}
        for name in self.FIELDS:
            value = getattr(self, name)
            if isinstance(value, (list, IntView)) or hasattr(value, "tolist"):
                value = [list(x) if isinstance(x, (list, IntView)) else x for x in value]
            elif isinstance(value, np.integer):
                value = int(value)
            out[name] = value
        return out

    @classmethod
    def _load(cls, game: CargoEmpireGame, position: Mapping[str, Any]) -> CargoEmpireState:
        """The state of a valid position, with an empty history and the position as its root."""
        state = cls(game)
        for name in cls.FIELDS:
            setattr(state, name, position[name])
        state.history = []
        state._root = state.position()
        return state
