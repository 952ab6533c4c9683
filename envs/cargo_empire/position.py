"""Cargo Empire's position builder (found by the core): ``build_state(game, position)`` validates a position (every
problem raises ``ValueError``) and builds its state; ``state.position()`` exports one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.cargo_empire.actions import DRAW_KINDS, PHASES, STARTPOST, TILE
from gameshelf.envs.cargo_empire.game import CargoEmpireGame, CargoEmpireState
from gameshelf.envs.cargo_empire.kernel import QMAX
from gameshelf.envs.cargo_empire.routes import ALL_PAYMENTS
from gameshelf.envs.core.position import show

MAX_REWARDS = 3 * sum(len(r) for r in D.TRACK_REWARDS.values())
"""Rewards a delivery can still wait for: every reward space of the three tracks (a player passes each once)."""


def _int(name: str, value: Any, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"position: {name} must be an integer in {low}..{high}, got {show(value)}")
    return value


def _list(name: str, value: Any, length: int | None = None) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"position: {name} must be a list, got {show(value)}")
    if length is not None and len(value) != length:
        raise ValueError(f"position: {name} must have {length} entries, got {len(value)}")
    return list(value)


def build_state(game: CargoEmpireGame, position: Mapping[str, Any]) -> CargoEmpireState:
    """The state of ``position``, validated, with an empty history and the position as its root."""
    validate(game, position)
    return CargoEmpireState._load(game, position)


def validate(game: CargoEmpireGame, pos: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` for the first problem of ``pos``; checked in this order, so the first one is reported."""
    n = game.num_players
    _check_keys(pos, n)
    _check_clock(pos, n)
    _check_map(pos, n)
    _check_city_cards(pos, n)
    _check_goals(pos, n)
    _check_transport_cards(pos, n)
    _check_players(pos, n)
    _check_delivery(pos)
    _check_draws(pos, n)


def _check_keys(pos: Mapping[str, Any], n: int) -> None:
    """Every key of the format and no other; the number of players is the game's."""
    missing = [k for k in ("num_players", *CargoEmpireState.FIELDS) if k not in pos]
    if missing:
        raise ValueError(f"position: missing keys {missing}")
    unknown = sorted(set(pos) - {"num_players", *CargoEmpireState.FIELDS})
    if unknown:
        raise ValueError(f"position: unknown keys {unknown}")
    if pos["num_players"] != n:
        raise ValueError(f"position: num_players is {show(pos['num_players'])} but the game has {n} players")


def _check_clock(pos: Mapping[str, Any], n: int) -> None:
    """Round, turn, phase and whether the game is over."""
    tpr = D.turns_per_round(n)
    _int("round", pos["round"], 0, D.ROUNDS - 1)
    _int("turn", pos["turn"], 0, n * tpr)
    if pos["phase"] not in PHASES:
        raise ValueError(f"position: phase must be one of {PHASES}, got {show(pos['phase'])}")
    if not isinstance(pos["over"], bool):
        raise ValueError("position: over must be true or false")
    if pos["turn"] == n * tpr and not pos["over"]:
        raise ValueError("position: turn equals the turns of a round but the game is not over")


def _check_map(pos: Mapping[str, Any], n: int) -> None:
    """The cities' levels, tiles (no tile on two cities), cubes, demand spaces and side posts."""
    C = D.NUM_CITIES
    tiles = _list("tile", pos["tile"], C)
    levels = _list("level", pos["level"], C)
    cubes = _list("cubes", pos["cubes"], C)
    demand = _list("demand", pos["demand"], C)
    side = _list("side", pos["side"], C)
    used_tiles = []
    for c in range(C):
        t = _check_city(c, n, levels[c], tiles[c], cubes[c], demand[c], side[c])
        if t >= 0:
            used_tiles.append(t)
    if len(set(used_tiles)) != len(used_tiles):
        raise ValueError("position: a city tile lies on two cities")


def _check_city(c: int, n: int, level: Any, tile: Any, cubes: Any, demand: Any, side: Any) -> int:
    """One city: its level and tile agree, its cubes, demand owners and side posts are in range; its tile (-1: none)."""
    lv = _int(f"level[{c}]", level, 0, 3)
    t = _int(f"tile[{c}]", tile, -1, D.NUM_TILES - 1)
    if (lv in (1, 2)) != (t >= 0):
        raise ValueError(f"position: {D.CITIES[c]} at level {lv} must {'' if lv in (1, 2) else 'not '}hold a tile")
    cap = {0: 0, 1: D.LV1_CUBES, 2: D.LV2_CUBES, 3: 0}[lv]
    _int(f"cubes of {D.CITIES[c]}", cubes, 0, cap)
    slots = len(D.TILES[t][1] if lv == 1 else D.TILES[t][2]) if lv in (1, 2) else 0
    owners = _list(f"demand of {D.CITIES[c]}", demand, slots)
    for o in owners:
        _int(f"demand owner in {D.CITIES[c]}", o, -1, n - 1)
    if slots and all(o >= 0 for o in owners):
        raise ValueError(f"position: every demand space of {D.CITIES[c]} is filled (it should have upgraded)")
    for p, k in enumerate(_list(f"side of {D.CITIES[c]}", side, n)):
        _int(f"side posts of P{p} in {D.CITIES[c]}", k, 0, D.START_POSTS + D.board_posts(n))
    return t


def _check_city_cards(pos: Mapping[str, Any], n: int) -> None:
    """Public, city deck and private city cards hold each card once; a player shows only its own cards."""
    C = D.NUM_CITIES
    pub = _list("public_cards", pos["public_cards"])
    cdeck = _list("city_deck", pos["city_deck"])
    priv = _list("private", pos["private"], n)
    rev = _list("revealed", pos["revealed"], n)
    all_cities = pub + cdeck + [c for hand in priv for c in _list("private hand", hand)]
    for c in all_cities:
        _int("a city card", c, 0, C - 1)
    if sorted(all_cities) != list(range(C)):
        raise ValueError("position: public, city deck and private city cards must hold each city card exactly once")
    if len(pub) > D.NUM_PUBLIC_CARDS:
        raise ValueError(f"position: at most {D.NUM_PUBLIC_CARDS} public city cards")
    for p in range(n):
        for c in _list(f"revealed[{p}]", rev[p]):
            if type(c) is not int or c not in priv[p]:
                raise ValueError(f"position: P{p} shows {show(c)}, not one of its private cards")


def _check_goals(pos: Mapping[str, Any], n: int) -> None:
    """The goal deck and the players' goals hold each goal card once."""
    gdeck = _list("goal_deck", pos["goal_deck"])
    goals = _list("goals", pos["goals"], n)
    all_goals = gdeck + [g for hand in goals for g in _list("goals hand", hand)]
    for g in all_goals:
        _int("a goal card", g, 0, D.NUM_GOALS - 1)
    if sorted(all_goals) != list(range(D.NUM_GOALS)):
        raise ValueError("position: the goal deck and the players' goals must hold each goal card exactly once")


def _check_transport_cards(pos: Mapping[str, Any], n: int) -> None:
    """Per vehicle, the deck, the discards and the hands hold the game's cards."""
    deck = _list("deck", pos["deck"], 3)
    discard = _list("discard", pos["discard"], 3)
    hands = _list("hands", pos["hands"], n)
    for v in range(3):
        total = _int("deck", deck[v], 0, D.DECK_SIZE) + _int("discard", discard[v], 0, D.DECK_SIZE)
        for p in range(n):
            total += _int(f"hand of P{p}", _list(f"hands[{p}]", hands[p], 3)[v], 0, D.DECK_SIZE)
        if total != D.TRANSPORT_DECK[v]:
            raise ValueError(
                f"position: {total} {D.VEHICLES[v]} cards in deck, discards and hands; the game has {D.TRANSPORT_DECK[v]}"
            )


def _check_players(pos: Mapping[str, Any], n: int) -> None:
    """The players' track markers, posts left and perfect upgrades are in range."""
    tracks = _list("tracks", pos["tracks"], n)
    for p in range(n):
        for v, t in enumerate(_list(f"tracks[{p}]", tracks[p], 3)):
            _int(f"{D.VEHICLES[v]} marker of P{p}", t, 0, D.TRACK_MAX)
    for p, k in enumerate(_list("posts_left", pos["posts_left"], n)):
        _int(f"posts left of P{p}", k, 0, D.board_posts(n))
    for p, k in enumerate(_list("perfect", pos["perfect"], n)):
        _int(f"perfect upgrades of P{p}", k, 0, D.NUM_CITIES * 2)


def _check_delivery(pos: Mapping[str, Any]) -> None:
    """The delivery in progress: its start, destination, payment and bonus are set exactly in their steps."""
    C = D.NUM_CITIES
    phase = pos["phase"]
    _int("sel_start", pos["sel_start"], -1, C - 1)
    _int("sel_dest", pos["sel_dest"], -1, C - 1)
    _int("sel_payment", pos["sel_payment"], -1, len(ALL_PAYMENTS) - 1)
    _int("bonus_left", pos["bonus_left"], 0, 3)
    if (pos["sel_start"] >= 0) != (phase != PHASES[0]):
        raise ValueError("position: sel_start is set exactly when a delivery is in progress")
    if (pos["sel_dest"] >= 0) != (phase in PHASES[2:]):
        raise ValueError("position: sel_dest is set exactly in the payment and bonus steps")
    if (pos["sel_payment"] >= 0) != (phase == PHASES[3]) or (pos["bonus_left"] > 0) != (phase == PHASES[3]):
        raise ValueError("position: sel_payment and bonus_left are set exactly in the bonus step")


def _check_draws(pos: Mapping[str, Any], n: int) -> None:
    """The pending draws (``queue``) and rewards; rewards wait only in the bonus step, an empty city for a tile draw."""
    for name, room in (("queue", QMAX), ("rewards", MAX_REWARDS)):
        entries = _list(name, pos[name])
        if len(entries) > room:
            raise ValueError(f"position: at most {room} entries in {name}, got {len(pos[name])}")
        for entry in entries:
            _check_draw(name, entry, n)
    if pos["rewards"] and pos["phase"] != PHASES[3]:
        raise ValueError("position: pending rewards only during the bonus step")
    if not pos["queue"] and 0 in pos["level"]:
        raise ValueError("position: a city has no tile but no tile draw is pending")


def _check_draw(name: str, entry: Any, n: int) -> None:
    """One entry of ``queue`` or ``rewards``: a draw kind and its city, seat or -1 (a public card)."""
    e = _list(f"{name} entry", entry, 2)
    if e[0] not in DRAW_KINDS:
        raise ValueError(f"position: unknown draw kind {show(e[0])} in {name}")
    if e[0] == TILE:
        _int("tile draw city", e[1], 0, D.NUM_CITIES - 1)
    elif e[0] == "public":
        _int("public draw", e[1], -1, -1)
    else:
        _int(f"{e[0]} draw seat", e[1], 0, n - 1)
    if name == "rewards" and e[0] in (TILE, "public", STARTPOST):
        raise ValueError(f"position: {e[0]} is not a reward")
