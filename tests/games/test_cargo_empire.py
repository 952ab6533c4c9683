"""Cargo Empire: the route/payment module, every rule of the specification, its worked examples 1-4,
the option (player counts 1-5), scoring, hidden information, positions, text, image and the heuristic.

Mid-game positions are built with the position builder (``game.state_from_position``) from the
position of a scripted setup (chance outcomes applied explicitly).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameshelf import envs
from gameshelf.envs import testing
from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.cargo_empire import routes as R
from gameshelf.envs.cargo_empire.actions import BONUS_BASE, DEST_BASE, NUM_ACTIONS, PASS, PAY_BASE
from gameshelf.envs.cargo_empire.game import CargoEmpireGame, CargoEmpireState
from gameshelf.envs.cargo_empire.observation import LAYOUT
from gameshelf.envs.cargo_empire.scoring import (
    MAX_VP,
    final_vp,
    goal_fulfilled,
    track_rewards,
    track_vp,
)
from gameshelf.envs.core.game import CHANCE, TERMINAL, IllegalActionError, random_playout

CITY = {name: i for i, name in enumerate(D.CITIES)}
TRUCK, TRAIN, SHIP = D.TRUCK, D.TRAIN, D.SHIP
BROWN, WHITE, GREY, ORANGE = range(4)


def tile_of(colour: int, lv1: tuple[int, int]) -> int:
    """Index of the tile producing ``colour`` whose LV1 side demands ``lv1``."""
    for i, (c, pair, _) in enumerate(D.TILES):
        if c == colour and set(pair) == set(lv1):
            return i
    raise KeyError((colour, lv1))


def pay(trucks: int = 0, trains: int = 0, ships: int = 0) -> tuple[int, int, int]:
    return (trucks, trains, ships)


# ---- helpers: scripted setup and positions ---------------------------------------------------------


def setup_state(
    n: int = 2,
    tiles: list[int] | None = None,
    public: tuple[str, ...] = ("Paris", "Berlin", "Lisbon", "Warsaw"),
    hands: list[list[int]] | None = None,
    goals: list[int] | None = None,
    starts: list[tuple[str, str]] | None = None,
) -> CargoEmpireState:
    """A state right after setup, every chance outcome given explicitly."""
    game = CargoEmpireGame(num_players=n)
    state = game.new_initial_state()
    tiles = tiles if tiles is not None else list(range(12))
    hands = hands if hands is not None else [[TRUCK, TRUCK, TRAIN, TRAIN, SHIP]] * n
    goals = goals if goals is not None else list(range(n))
    starts = starts if starts is not None else [(D.CITIES[2 * s], D.CITIES[2 * s + 1]) for s in range(n)]
    outcomes: list[int] = list(tiles) + [CITY[c] for c in public]
    for s in range(n):
        outcomes += [*list(hands[s]), goals[s]]
    for s in range(n):
        outcomes += [CITY[c] for c in starts[s]]
    for o in outcomes:
        assert state.current_player() == CHANCE
        state.apply_action(o)
    assert state.current_player() == 0
    return state


def build(state: CargoEmpireState, **changes: Any) -> CargoEmpireState:
    """``state`` with some position keys replaced, built by the position builder."""
    pos = state.position()
    pos.update(changes)
    return state.game.state_from_position(pos)


def do(state: CargoEmpireState, *moves: str) -> None:
    for move in moves:
        state.apply_action(state.game.string_to_action(state, move))


def draw_all(state: CargoEmpireState, outcome: int | None = None) -> list[str]:
    """Resolve pending draws (the first possible outcome, or ``outcome``); return their names."""
    names = []
    while state.current_player() == CHANCE:
        options = [o for o, _ in state.chance_outcomes()]
        o = outcome if outcome in options else options[0]
        names.append(state.action_to_string(o))
        state.apply_action(o)
    return names


# ---- the map and the route module ------------------------------------------------------------------


def test_map_facts():
    assert len(D.CITIES) == 12 and len(D.PORTS) == 6 and len(D.RAILROADS) == 16
    assert all(R.LAND_DIST[a][b] >= 0 for a in range(12) for b in range(12)), "every city reachable by land"
    assert [len(n) for n in R.NEIGHBOURS] == [1, 3, 3, 5, 1, 3, 3, 1, 4, 2, 4, 2]
    assert R.MAX_LAND == 5


def test_tiles():
    assert len(D.TILES) == 12
    for colour, lv1, lv2 in D.TILES:
        assert len(lv1) == 2 and colour not in lv1 and len(set(lv1)) == 2
        assert sorted(lv2) == sorted(set(range(4)) - {colour})
    for colour in range(4):
        pairs = {frozenset(t[1]) for t in D.TILES if t[0] == colour}
        assert len(pairs) == 3


def test_example_1_paris_warsaw():
    s, d = CITY["Paris"], CITY["Warsaw"]
    assert R.LAND_DIST[s][d] == 2 and R.steps_distance(s, d) == 2
    legal = R.legal_payments(s, d)
    assert pay(trains=1) in legal
    assert pay(trucks=2) in legal
    assert pay(trucks=1, trains=1) not in legal  # overpaid: one Train suffices
    assert pay(ships=1) not in legal  # neither is a port
    assert not R.is_minimal((2,), pay(trucks=1, trains=1))
    assert R.pays((2,), pay(trucks=1, trains=1))


def test_example_2_sea_shortcut_and_land_exception():
    s, d = CITY["Lisbon"], CITY["Copenhagen"]
    assert R.steps_distance(s, d) == 1 and R.LAND_DIST[s][d] == 5
    legal = R.legal_payments(s, d)
    assert pay(ships=1) in legal
    assert pay(trucks=1, trains=2) in legal
    assert pay(trucks=2, trains=2) not in legal  # drop a Truck and it still pays
    land = tuple(CITY[c] for c in ("Lisbon", "Madrid", "Paris", "Amsterdam", "Hamburg", "Copenhagen"))
    assert land in R.allowed_routes(s, d)
    s, d = CITY["Madrid"], CITY["Hamburg"]
    assert R.steps_distance(s, d) == 2 and R.LAND_DIST[s][d] == 3
    assert pay(trucks=1, ships=1) in R.legal_payments(s, d)
    routes = R.allowed_routes(s, d)
    names = [tuple(D.CITIES[c] for c in r) for r in routes]
    assert ("Madrid", "Marseille", "Hamburg") in names and ("Madrid", "Lisbon", "Hamburg") in names
    assert ("Madrid", "Paris", "Amsterdam", "Hamburg") in names
    assert ("Madrid", "Marseille", "Paris", "Amsterdam", "Hamburg") not in names
    assert pay(trucks=3) in R.legal_payments(s, d)  # the 3-edge land route
    assert pay(trucks=4) not in R.legal_payments(s, d)  # no 4-edge route is allowed


@pytest.mark.parametrize(
    ("shape", "payment", "minimal"),
    [
        ((2,), pay(trucks=2), True),
        ((2,), pay(trains=1), True),
        ((2,), pay(trucks=1, trains=1), False),
        ((3,), pay(trains=2), True),  # Train+Train for 3 edges is legal
        ((3,), pay(trucks=1, trains=1), True),
        ((3,), pay(trucks=1, trains=2), False),
        ((3,), pay(trains=3), False),
        ((1,), pay(trains=1), True),
        ((1,), pay(trucks=1), True),
        ((1,), pay(trucks=1, trains=1), False),  # 2 cards for 1 edge cannot even pay
        ((0, 0), pay(ships=1), True),
        ((0, 0), pay(ships=2), False),
        ((1, 0), pay(trucks=1, ships=1), True),
        ((1, 0), pay(trucks=1), False),  # the ship jump needs a Ship card
        ((2, 1), pay(trains=1, trucks=1, ships=1), True),
        ((2, 1), pay(trains=2, ships=1), True),
        ((2, 1), pay(trucks=3, ships=1), True),
        ((2, 1), pay(trucks=2, trains=1, ships=1), False),
        ((5,), pay(trucks=2, trains=2), False),
        ((5,), pay(trucks=1, trains=2), True),
    ],
)
def test_overpay_cases(shape, payment, minimal):
    assert R.is_minimal(shape, payment) == minimal


@given(length=st.integers(min_value=1, max_value=8), trucks=st.integers(0, 9), trains=st.integers(0, 9))
def test_single_segment_minimality_closed_form(length, trucks, trains):
    """One land segment of L edges: (t, r) is a minimal payment iff t >= 1 and t + 2r = L, or t = 0 and
    2r is L or L + 1 (an odd segment paid by Trains only)."""
    expected = (trucks >= 1 and trucks + 2 * trains == length) or (trucks == 0 and 2 * trains in (length, length + 1))
    assert R.is_minimal((length,), (trucks, trains, 0)) == expected


@settings(max_examples=60)
@given(s=st.integers(0, 11), d=st.integers(0, 11))
def test_legal_payments_are_minimal_for_an_allowed_shape(s, d):
    legal = R.legal_payments(s, d)
    if s == d:
        assert legal == ()
        return
    shapes = R.route_shapes(s, d)
    star = R.steps_distance(s, d)
    for shape in shapes:
        assert sum(shape) + len(shape) - 1 in (star, R.LAND_DIST[s][d])
    for p in legal:
        assert any(R.is_minimal(shape, p) for shape in shapes)
        assert p[2] <= 1
    # every explicit allowed route has an allowed shape and vice versa
    assert R.allowed_routes(s, d)
    for route in R.allowed_routes(s, d):
        assert len(route) - 1 in (star, R.LAND_DIST[s][d])


def test_payment_table_is_complete():
    assert set(R.ALL_PAYMENTS) == {p for s in range(12) for d in range(12) for p in R.legal_payments(s, d)}
    assert 12 + 1 + 12 + len(R.ALL_PAYMENTS) + 3 == NUM_ACTIONS


# ---- setup -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_setup(n):
    state = CargoEmpireGame(num_players=n).new_initial_state()
    rng = np.random.default_rng(n)
    tile_draws = 0
    while state.current_player() == CHANCE:
        outcomes = state.chance_outcomes()
        assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
        if state.queue[0][0] == "tile":
            assert len(outcomes) == 12 - tile_draws
            tile_draws += 1
        state.apply_action(state.sample_chance(rng))
    assert sorted(state.tile) == list(range(12)) and state.level == [1] * 12 and state.cubes == [2] * 12
    assert len(state.public_cards) == 4 and len(state.city_deck) == 8
    assert all(sum(h) == 5 for h in state.hands) and sum(state.deck) == 48 - 5 * n
    assert all(len(g) == 1 for g in state.goals) and len(state.goal_deck) == 10 - n
    starts = [c for c in range(12) if any(state.side[c])]
    assert len(starts) == 2 * n and all(sum(state.side[c]) == 1 for c in starts)
    assert all(sum(state.side[c][p] for c in range(12)) == 2 for p in range(n))
    posts = 9 if n == 5 else 12
    assert state.posts_left == [posts] * n
    assert state.current_player() == 0 and state.round == 0


def test_transport_draw_probabilities_follow_the_deck():
    state = CargoEmpireGame(num_players=2).new_initial_state()
    for t in range(12):
        state.apply_action(t)
    for c in (0, 1, 2, 3):
        state.apply_action(c)
    assert dict(state.chance_outcomes()) == {0: 24 / 48, 1: 16 / 48, 2: 8 / 48}
    state.apply_action(SHIP)
    assert dict(state.chance_outcomes()) == {0: 24 / 47, 1: 16 / 47, 2: 7 / 47}


# ---- deliveries ------------------------------------------------------------------------------------


def example3_state() -> CargoEmpireState:
    """Spec example 3: Rome (LV1 Orange, wants Grey + White, 0 cubes, B on White); A in Berlin (Grey, 1 cube)."""
    rome = tile_of(ORANGE, (GREY, WHITE))
    berlin = tile_of(GREY, (BROWN, WHITE))
    tiles = [t for t in range(12) if t not in (rome, berlin)]
    tiles.insert(CITY["Berlin"], berlin)
    tiles.insert(CITY["Rome"], rome)
    state = setup_state(
        2, tiles=tiles, public=("Berlin", "Paris", "Lisbon", "Warsaw"), starts=[("Berlin", "Madrid"), ("Rome", "London")]
    )
    pos = state.position()
    r = CITY["Rome"]
    pos["cubes"][r] = 0
    white = list(D.TILES[rome][1]).index(WHITE)
    pos["demand"][r][white] = 1
    pos["cubes"][CITY["Berlin"]] = 1
    pos["city_deck"].remove(r)
    pos["private"][0] = [r]
    return state.game.state_from_position(pos)


def test_example_3_perfect_upgrade_and_bonus_moves():
    state = example3_state()
    r, b = CITY["Rome"], CITY["Berlin"]
    do(state, "start Berlin", "to Rome")
    assert state.legal_action_mask()[PAY_BASE + R.ALL_PAYMENTS.index(pay(trains=1))]
    do(state, "pay 1 Train")
    # Perfect Upgrade: both posts to the side area, LV2 with 3 Orange cubes demanding Brown, White, Grey
    assert state.level[r] == 2 and state.cubes[r] == 3 and state.colour(r) == ORANGE
    assert sorted(state.demand_colours(r)) == [BROWN, WHITE, GREY] and state.demand[r] == [-1, -1, -1]
    assert state.side[r] == [1, 2]  # A's delivered post; B's White post and B's starting post
    assert state.cubes[b] == 0 and state.perfect[0] == 1
    # Train +1 (card) +3 bonus (public start card, private destination card, perfect) = 4
    assert state.tracks[0] == [0, 4, 0]
    assert r in state.revealed[0]
    assert state.hands[0] == [2, 1, 1] and state.discard == [0, 1, 0]
    # rewards of spaces 2 (transport card) and 4 (city card) are drawn, then seat 1 plays
    names = draw_all(state)
    assert names[0].startswith("seat 0 draws") and "city card" in names[1]
    assert len(state.private[0]) == 2 and sum(state.hands[0]) == 5
    assert state.current_player() == 1


def test_bonus_moves_go_to_paid_vehicles_only():
    state = example3_state()
    pos = state.position()
    pos["hands"][0] = [1, 0, 1]
    pos["deck"] = [
        D.TRANSPORT_DECK[0] - 1 - pos["hands"][1][0],
        D.TRANSPORT_DECK[1] - pos["hands"][1][1],
        D.TRANSPORT_DECK[2] - 1 - pos["hands"][1][2],
    ]
    state = state.game.state_from_position(pos)
    # Berlin -> Rome: Berlin-Hamburg by Truck, then a ship jump Hamburg -> Rome
    do(state, "start Berlin", "to Rome", "pay 1 Truck + 1 Ship")
    assert state.tracks[0] == [1, 0, 2]
    assert state.phase == "bonus" and state.bonus_left == 3
    mask = state.legal_action_mask()
    assert list(np.flatnonzero(mask)) == [BONUS_BASE + TRUCK, BONUS_BASE + SHIP]
    do(state, "bonus Truck", "bonus Ship", "bonus Ship")
    assert state.tracks[0] == [2, 0, 4]
    names = draw_all(state)
    # Truck entered 2 (transport), Ship entered 2 (transport) and 4 (city card)
    assert sum("draws city card" in x for x in names) == 1 and len(names) == 3


def test_no_perfect_upgrade_when_cubes_remain_and_lv2_to_lv3():
    state = example3_state()
    r = CITY["Rome"]
    pos = state.position()
    pos["cubes"][r] = 1
    pos["public_cards"] = [c for c in pos["public_cards"] if c != CITY["Berlin"]] + []
    pos["city_deck"].append(CITY["Berlin"])
    pos["city_deck"].remove(pos["city_deck"][0])
    pos["public_cards"].append(next(c for c in range(12) if c not in pos["public_cards"] + pos["city_deck"] + pos["private"][0]))
    state = state.game.state_from_position(pos)
    do(state, "start Berlin", "to Rome", "pay 1 Train")
    assert state.level[r] == 2 and state.cubes[r] == 3 and state.perfect[0] == 0
    assert state.tracks[0][TRAIN] == 2  # card +1, private destination card +1, no perfect bonus
    draw_all(state)
    # LV2 -> LV3: fill the last demand space of a LV2 city
    pos = state.position()
    pos["demand"][r] = [1, -1, 1]  # Brown and Grey filled by seat 1, White open
    pos["cubes"][r] = 2
    pos["turn"] = 2
    lon = CITY["London"]
    pos["level"][lon], pos["tile"][lon] = 1, tile_of(WHITE, (BROWN, GREY))
    pos["tile"] = [t if (t != pos["tile"][lon] or c == lon) else -2 for c, t in enumerate(pos["tile"])]
    # swap the London tile's previous owner to keep tiles unique
    old = state.tile[lon]
    for c, t in enumerate(pos["tile"]):
        if t == -2:
            pos["tile"][c] = old
            pos["demand"][c] = [-1] * len(D.TILES[old][pos["level"][c]])
    pos["side"][lon][0] = 1
    state = state.game.state_from_position(pos)
    do(state, "start London", "to Rome")
    payments = [state.action_to_string(a) for a in state.legal_actions()]
    assert payments and all(p.startswith("pay") for p in payments)
    state.apply_action(state.legal_actions()[0])
    while state.phase == "bonus":
        state.apply_action(state.legal_actions()[0])
    assert state.level[r] == 3 and state.tile[r] == -1 and state.cubes[r] == 0 and state.demand[r] == []
    assert state.side[r] == [2, 4]
    assert state.perfect[0] == 0  # 2 cubes were left
    draw_all(state)
    # an LV3 city is never a start or a destination again
    assert r not in state.destinations(0, lon) and not state.destinations(0, r)


def test_start_and_destination_masks():
    state = setup_state(2, tiles=list(range(12)))
    # tiles 0..11 on cities 0..11: city c produces colour c // 3
    mask = state.legal_action_mask()
    assert mask[PASS]
    own = {CITY["Lisbon"], CITY["Madrid"]}
    starts = set(np.flatnonzero(mask[:12]).tolist())
    assert starts <= own and starts
    # destinations demand the start colour (Brown for Lisbon)
    do(state, "start Lisbon")
    dests = [a - DEST_BASE for a in state.legal_actions()]
    assert dests and all(BROWN in state.demand_colours(d) for d in dests) and CITY["Lisbon"] not in dests
    # no cube -> not a start
    state = build(state, phase="start", sel_start=-1, cubes=[0, 0] + [2] * 10)
    assert not state.legal_action_mask()[:12].any()
    # no cards -> only pass
    state = setup_state(2)
    pos = state.position()
    pos["deck"] = [pos["deck"][v] + pos["hands"][0][v] for v in range(3)]
    pos["hands"][0] = [0, 0, 0]
    state = state.game.state_from_position(pos)
    assert state.legal_actions() == [PASS]


def test_payment_mask_is_exact_for_the_hand():
    state = setup_state(2, hands=[[TRUCK, TRUCK, TRUCK, TRUCK, TRUCK], [TRAIN] * 5])
    for s in range(12):
        for d in state.destinations(0, s):
            for i in state.affordable(0, s, d):
                assert R.ALL_PAYMENTS[i][1:] == (0, 0)
    do(state, "start Lisbon")
    dest = state.legal_actions()[0]
    state.apply_action(dest)
    mask = state.legal_action_mask()
    legal = {R.ALL_PAYMENTS[a - PAY_BASE] for a in np.flatnonzero(mask)}
    s, d = CITY["Lisbon"], dest - DEST_BASE
    assert legal == {p for p in R.legal_payments(s, d) if p[1] == p[2] == 0}
    with pytest.raises(IllegalActionError):
        state.apply_action(PAY_BASE + R.ALL_PAYMENTS.index(pay(trains=1)))


def test_delivery_to_own_city_and_ship_moves():
    state = setup_state(2, hands=[[SHIP, SHIP, TRUCK, TRAIN, TRAIN], [TRUCK] * 5])
    # Lisbon (Brown) -> a port wanting Brown by ship: Ship marker +2 per card
    s = CITY["Lisbon"]
    do(state, "start Lisbon")
    ports = [a - DEST_BASE for a in state.legal_actions() if a - DEST_BASE in D.PORTS]
    assert ports
    state.apply_action(DEST_BASE + ports[0])
    state.apply_action(state.game.string_to_action(state, "pay 1 Ship"))
    while state.phase == "bonus":
        state.apply_action(state.legal_actions()[0])
    assert state.tracks[0][SHIP] >= 2 and state.cubes[s] == 1


def test_pass_draws_two_and_returns_a_post():
    state = setup_state(2)
    do(state, "pass")
    assert state.posts_left == [11, 12]
    assert state.current_player() == CHANCE and [q[0] for q in state.queue] == ["transport", "transport"]
    draw_all(state)
    assert sum(state.hands[0]) == 7 and state.current_player() == 1


@pytest.mark.parametrize("n", [1, 2, 5])
def test_rounds_turns_and_end(n):
    state = setup_state(n)
    turns = 3 if n == 5 else 4
    for rnd in range(3):
        for _ in range(turns * n):
            assert state.round == rnd
            do(state, "pass")
            draws = draw_all(state)
        if rnd == 0 and n < 5:  # the pass, then 3 cards to each player (later the deck runs dry: nobody discards)
            assert len(draws) == 2 + 3 * n
    assert state.current_player() == TERMINAL and state.posts_left == [0] * n
    assert state.returns().shape == (n,)


def test_reshuffle_and_lost_draws():
    state = setup_state(2)
    pos = state.position()
    total = [D.TRANSPORT_DECK[v] - pos["hands"][0][v] - pos["hands"][1][v] for v in range(3)]
    pos["deck"], pos["discard"] = [0, 0, 0], total
    state = state.game.state_from_position(pos)
    do(state, "pass")
    assert dict(state.chance_outcomes()) == {v: total[v] / sum(total) for v in range(3)}
    state.apply_action(TRAIN)
    assert state.discard == [0, 0, 0] and state.deck == [total[0], total[1] - 1, total[2]]
    # nothing left anywhere: the draw is lost
    pos = setup_state(2).position()
    pos["hands"][1] = [D.TRANSPORT_DECK[v] - pos["hands"][0][v] for v in range(3)]
    pos["deck"] = [0, 0, 0]
    state = setup_state(2).game.state_from_position(pos)
    do(state, "pass")
    assert state.current_player() == 1 and sum(state.hands[0]) == 5


# ---- tracks and scoring ----------------------------------------------------------------------------


def test_track_tables():
    assert [track_vp(s) for s in range(13)] == [0, 0, 0, 0, 2, 2, 2, 5, 5, 5, 8, 8, 12]
    assert track_rewards(0, 1) == []
    assert track_rewards(1, 4) == ["transport", "city"]
    assert track_rewards(5, 12) == ["transport", "transport", "goal", "city"]
    assert track_rewards(11, 14) == []


def test_markers_stop_at_12():
    state = example3_state()
    pos = state.position()
    pos["tracks"][0] = [0, 10, 0]
    state = state.game.state_from_position(pos)
    do(state, "start Berlin", "to Rome", "pay 1 Train")
    assert state.tracks[0][TRAIN] == 12
    assert draw_all(state) == []  # space 10 was already passed, 11-12 have no reward


def test_example_4_final_score():
    assert final_vp([8, 5, 12], lv3_posts=3, private_cards=1, fulfilled_goals=[6]) == 38
    # the same as a finished position
    state = setup_state(2, goals=[6, 0])
    pos = state.position()
    for c in (CITY["Lisbon"], CITY["Copenhagen"], CITY["Rome"]):
        pos["level"][c], pos["tile"][c], pos["cubes"][c], pos["demand"][c] = 3, -1, 0, []
        pos["side"][c] = [1, 0]
    pos["side"][CITY["Madrid"]] = [0, 0]
    pos["side"][CITY["Marseille"]] = [0, 1]
    pos["tracks"][0] = [8, 5, 12]
    pos["city_deck"].remove(CITY["Vienna"])
    pos["private"][0] = [CITY["Vienna"]]
    pos.update(round=2, turn=8, over=True, posts_left=[0, 0])
    state = state.game.state_from_position(pos)
    assert state.is_terminal()
    assert state.fulfilled_goals(0) == [6]
    assert state.vp(0) == 38 and state.scores()[0] == 38
    assert state.returns().tolist() == [1.0, -1.0]


def test_goals():
    ports = [CITY["Lisbon"], CITY["London"], CITY["Rome"]]
    assert goal_fulfilled(0, ports, [], [0, 0, 0], 0)
    assert not goal_fulfilled(0, [*ports[:2], CITY["Paris"]], [], [0, 0, 0], 0)
    assert goal_fulfilled(1, [1, 2], [1, 2], [0, 0, 0], 0) and not goal_fulfilled(1, [1, 2], [1], [0, 0, 0], 0)
    assert goal_fulfilled(2, list(range(8)), [], [0, 0, 0], 0) and not goal_fulfilled(2, list(range(7)), [], [0, 0, 0], 0)
    for g, v in ((3, TRUCK), (4, TRAIN), (5, SHIP)):
        tracks = [0, 0, 0]
        tracks[v] = 8
        assert goal_fulfilled(g, [], [], tracks, 0)
        tracks[v] = 7
        assert not goal_fulfilled(g, [], [], tracks, 0)
    assert goal_fulfilled(6, [CITY["Lisbon"], CITY["Copenhagen"]], [], [0, 0, 0], 0)
    assert goal_fulfilled(7, [CITY["London"], CITY["Warsaw"]], [], [0, 0, 0], 0)
    assert goal_fulfilled(8, [CITY["Rome"], CITY["Hamburg"]], [], [0, 0, 0], 0)
    assert not goal_fulfilled(8, [CITY["Rome"]], [], [0, 0, 0], 0)
    assert goal_fulfilled(9, [], [], [0, 0, 0], 2) and not goal_fulfilled(9, [], [], [0, 0, 0], 1)


def finished(state: CargoEmpireState, **changes: Any) -> CargoEmpireState:
    n = state.n
    pos = state.position()
    pos.update(round=2, turn=n * D.turns_per_round(n), over=True, posts_left=[0] * n)
    pos.update(changes)
    return state.game.state_from_position(pos)


def test_tie_break_posts_on_map_then_shared():
    state = setup_state(3)
    side = state.position()["side"]
    side[CITY["Vienna"]] = [0, 1, 0]  # seat 1 has one more post on the map
    end = finished(state, side=side)
    assert end.vp(0) == end.vp(1) == end.vp(2) == 0
    assert end.returns().tolist() == [-0.5, 1.0, -0.5]


def test_solo_returns_scale_vp():
    state = setup_state(1)
    end = finished(state, tracks=[[12, 12, 12]])
    assert end.vp(0) == 36
    assert end.returns().tolist() == [pytest.approx(2 * 36 / MAX_VP - 1)]
    assert MAX_VP == 168
    info = CargoEmpireGame(num_players=1).info
    assert (info.min_return, info.max_return) == (-1.0, 1.0) and not info.has_hidden_info


def test_scores_hide_goals_until_the_end():
    state = setup_state(2, goals=[3, 4])
    pos = state.position()
    pos["tracks"][0] = [8, 0, 0]
    state = state.game.state_from_position(pos)
    assert state.scores().tolist() == [5.0, 0.0]
    assert finished(state).scores().tolist() == [9.0, 0.0]


# ---- options: player counts ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_player_counts(n):
    game = CargoEmpireGame(num_players=n)
    assert game.info.num_players == n and game.info.observation_shape == LAYOUT.shape
    assert game.info.has_hidden_info == (n > 1)
    state = game.new_initial_state()
    random_playout(state, np.random.default_rng(n))
    assert state.is_terminal()
    assert D.board_posts(n) == (9 if n == 5 else 12)


def test_bad_player_count():
    with pytest.raises(ValueError, match="num_players"):
        CargoEmpireGame(num_players=6)


# ---- hidden information, observation, positions ----------------------------------------------------


def random_states(n: int, seed: int, every: int = 3):
    game = CargoEmpireGame(num_players=n)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    k = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        if k % every == 0:
            yield state
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        k += 1
    yield state


@pytest.mark.parametrize("n", [2, 4])
def test_resample_hidden_keeps_counts_and_shown_cards(n):
    rng = np.random.default_rng(0)
    for state in random_states(n, seed=n):
        for seat in range(n):
            other = state.resample_hidden(seat, rng)
            assert other.observation(seat).tobytes() == state.observation(seat).tobytes()
            assert other.hands[seat] == state.hands[seat] and other.private[seat] == state.private[seat]
            for p in range(n):
                assert sum(other.hands[p]) == sum(state.hands[p])
                assert len(other.private[p]) == len(state.private[p]) and len(other.goals[p]) == len(state.goals[p])
                assert set(state.revealed[p]) <= set(other.private[p])
            for v in range(3):
                assert other.deck[v] + sum(h[v] for h in other.hands) == state.deck[v] + sum(h[v] for h in state.hands)
            assert sorted(other.city_deck + [c for h in other.private for c in h]) == sorted(
                state.city_deck + [c for h in state.private for c in h]
            )


@pytest.mark.parametrize("n", [2, 4])
def test_resample_hidden_depends_only_on_what_the_seat_sees(n):
    """Two redeals of the same position, redealt again with one seed, are the same state (nothing leaks)."""
    for state in random_states(n, seed=20 + n):
        for seat in range(n):
            a, b = (state.resample_hidden(seat, np.random.default_rng([k, seat])) for k in (1, 2))
            ra, rb = (x.resample_hidden(seat, np.random.default_rng(9)) for x in (a, b))
            assert ra.global_observation().tobytes() == rb.global_observation().tobytes()
            assert ra.goal_deck == rb.goal_deck and ra.city_deck == rb.city_deck and ra.deck == rb.deck


# ---- resample_hidden: every promise ----------------------------------------------------------------


def cargo_root(state: CargoEmpireState) -> CargoEmpireState:
    """The state a state's history starts from: the start of the game, or the position it was built from."""
    game = state.game
    return game.new_initial_state() if state._root is None else game.state_from_position(state._root)


def check_redeal(state: CargoEmpireState, seat: int, rng: np.random.Generator, movers: list[int] | None = None):
    """The kit's redeal checks (``testing.check_redeal``: a new object, the state unchanged, the same turn and
    length of history, only chance outcomes changed, the history replays to the redeal, from the redealt
    position the state was built from if it was, the position rebuilds it, playable, what the seat sees
    kept), then Cargo's own; returns the redeal. ``movers``: who made each history entry, when known."""
    game = state.game
    other = testing.check_redeal(state, seat, rng, movers=movers, changeable=(), root=cargo_root)
    # playable with the rules' mask of its own hands: every legal action leaves a valid position
    player = other.current_player()
    if player >= 0:
        for action in np.flatnonzero(other.legal_action_mask()):
            after = other.clone()
            after.apply_action(int(action))
            game.state_from_position(after.position())  # a valid position (no negative hand)
    elif player == CHANCE:
        after = other.clone()
        after.apply_action(other.chance_outcomes()[-1][0])
    # what is always deducible: every count, the seat's own cards, the shown cards, the public board
    assert other.hands[seat] == state.hands[seat] and other.private[seat] == state.private[seat]
    assert other.goals[seat] == state.goals[seat] and other.revealed == state.revealed
    assert [sum(h) for h in other.hands] == [sum(h) for h in state.hands] and other.discard == state.discard
    assert sum(other.deck) == sum(state.deck) and len(other.city_deck) == len(state.city_deck)
    assert [len(h) for h in other.private] == [len(h) for h in state.private]
    assert [len(h) for h in other.goals] == [len(h) for h in state.goals]
    return other


def played_nodes(n: int, seed: int):
    """Every node (decision, chance, the end) of a seeded random game, with who made each history entry (a
    seat or ``CHANCE``) and the seats that drew transport cards since the last reshuffle (None before one)."""
    game = CargoEmpireGame(num_players=n)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    movers: list[int] = []
    drawers: set[int] | None = None
    while True:
        yield state, movers, drawers
        if state.is_terminal():
            return
        if state.is_chance_node():
            kind, who = state.queue[0]
            if kind == D.DRAW_TRANSPORT:
                if not sum(state.deck):
                    drawers = set()
                if drawers is not None:
                    drawers.add(who)
            action = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
        movers.append(state.current_player())
        state.apply_action(action)


@pytest.mark.parametrize(("n", "seed", "every"), [(1, 4, 2), (2, 0, 1), (3, 1, 2), (4, 2, 3), (5, 3, 3)])
def test_resample_hidden_keeps_every_promise_at_every_kind_of_node(n, seed, every):
    """Promises 1-6 at the nodes of a random game: decisions (start, destination, payment, bonus steps,
    also of another seat in the middle of a delivery), chance nodes, right after a reshuffle, the end."""
    rng = np.random.default_rng(100 + n)
    phases: set[str] = set()
    changed = reshuffles = 0
    for k, (state, movers, drawers) in enumerate(played_nodes(n, seed)):
        fresh = drawers is not None and len(drawers) == 1  # right after a reshuffle, one seat drew since
        if k % every and not fresh and not state.is_terminal():
            continue
        seat = next(iter(drawers)) if fresh else k % n
        other = check_redeal(state, seat, rng, movers)
        if fresh:  # the seat alone drew from the new deck: it knows what is left in it
            assert other.deck == state.deck
            reshuffles += 1
        if state.current_player() >= 0:
            phases.add(state.phase if state.current_player() != seat else "own")
        changed += testing.fingerprint(other) != testing.fingerprint(state)
    assert phases == ({"start", "dest", "pay", "bonus", "own"} if n > 1 else {"own"})
    assert changed > 10 or n == 1  # a real redeal (nothing is hidden in a solo game)
    assert reshuffles or n < 4


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.sampled_from([2, 3, 4, 5]), stride=st.integers(5, 9))
def test_resample_hidden_keeps_every_promise_in_any_game(seed, n, stride):
    """Promises 1-5 (and the deck after a reshuffle) at every ``stride``-th node of any random game."""
    rng = np.random.default_rng(seed + 1)
    for k, (state, movers, drawers) in enumerate(played_nodes(n, seed)):
        if k % stride == 0 or state.is_terminal():
            seat = int(rng.integers(n))
            other = check_redeal(state, seat, rng, movers)
            if drawers == {seat}:
                assert other.deck == state.deck


@pytest.mark.parametrize("n", [2, 4])
def test_redeal_at_the_end_keeps_every_final_score(n):
    """At the end the final VP shows what each player's goals give it: the goals are redealt among those
    that give the same VP (and the hands, which no score shows, are redealt)."""
    rng = np.random.default_rng(7)
    goals_changed = hands_changed = 0
    for seed in range(4):
        state = CargoEmpireGame(num_players=n).new_initial_state()
        random_playout(state, np.random.default_rng(seed))
        movers = list(testing.history_movers(state))
        for k in range(10):
            other = check_redeal(state, k % n, rng, movers)
            assert [other.vp(p) for p in range(n)] == [state.vp(p) for p in range(n)]
            assert other.returns().tolist() == state.returns().tolist()
            goals_changed += other.goals != state.goals
            hands_changed += other.hands != state.hands
    assert goals_changed and hands_changed


def rome_to_vienna(phase: str, hand: list[int]) -> CargoEmpireState:
    """Seat 1 in the middle of a delivery Rome (Orange) -> Vienna (wants Orange), holding ``hand``."""
    rome, vienna = CITY["Rome"], CITY["Vienna"]
    tiles = [t for t in range(12) if t not in (tile_of(ORANGE, (BROWN, WHITE)), tile_of(BROWN, (WHITE, ORANGE)))]
    tiles[vienna:vienna] = [tile_of(BROWN, (WHITE, ORANGE))]
    tiles.append(tile_of(ORANGE, (BROWN, WHITE)))
    state = setup_state(2, tiles=tiles, starts=[("Lisbon", "Madrid"), ("Rome", "London")])
    pos = state.position()
    pos["hands"][1] = list(hand)
    pos["deck"] = [D.TRANSPORT_DECK[v] - pos["hands"][0][v] - hand[v] for v in range(3)]
    pos.update(turn=1, phase=phase, sel_start=rome, sel_dest=vienna if phase == "pay" else -1)
    return state.game.state_from_position(pos)


def test_regression_redeal_has_no_stale_legal_moves():
    """Seat 1 pays Rome -> Vienna with Train + Ship in hand: only ``pay 1 Train``. The redeal for seat 0
    used to keep that cached list while giving seat 1 other cards (then paying left it with -1 Train)."""
    state = rome_to_vienna("pay", [0, 1, 1])
    assert state.legal_actions() == [PAY_BASE + R.ALL_PAYMENTS.index(pay(trains=1))]
    rng = np.random.default_rng(1)
    hands = set()
    for _ in range(200):
        other = check_redeal(state, 0, rng)
        hand = other.hands[1]
        hands.add(tuple(hand))
        assert other.legal_actions() == [PAY_BASE + i for i in other.affordable(1, CITY["Rome"], CITY["Vienna"])]
    assert len(hands) > 3


def test_regression_redeal_in_a_delivery_keeps_it_possible():
    """What the chosen start and destination revealed (the hand can pay for them) is kept: the player to
    move always has a legal move, at the destination and at the payment step."""
    rng = np.random.default_rng(2)
    for phase in ("dest", "pay"):
        state = rome_to_vienna(phase, [0, 1, 1])
        for _ in range(150):
            other = check_redeal(state, 0, rng)
            assert other.legal_actions()
            if phase == "pay":
                assert other.hands[1] != [0, 0, 2]  # Ships do not pay Rome -> Vienna (they do pay other routes)


def test_redeal_in_a_delivery_is_uniform_among_the_hands_that_can_pay():
    """Seat 1 holds 2 of the 43 cards seat 0 has not seen, one of them a Truck or a Train (Rome -> Vienna
    is paid by one of those): each hand as often as the deck deals it, given that."""
    from math import comb

    state = rome_to_vienna("pay", [0, 1, 1])
    unseen = [D.TRANSPORT_DECK[v] - state.hands[0][v] for v in range(3)]
    hands = [(a, b, 2 - a - b) for a in range(3) for b in range(3 - a) if (a, b) != (0, 0)]
    weight = {h: np.prod([comb(unseen[v], h[v]) for v in range(3)]) for h in hands}
    total = sum(weight.values())
    rng = np.random.default_rng(3)
    draws = 3000
    seen = {h: 0 for h in hands}
    for _ in range(draws):
        seen[tuple(state.resample_hidden(0, rng).hands[1])] += 1
    distance = sum(abs(seen[h] / draws - weight[h] / total) for h in hands) / 2
    assert distance < 0.03, (seen, {h: round(draws * weight[h] / total) for h in hands})


def test_regression_history_replays_to_the_redeal():
    """The redeal's history (deals and draws rewritten) replays to the redeal, not to the true state."""
    state = setup_state(2, hands=[[TRUCK] * 5, [SHIP] * 5], goals=[0, 1])
    game = state.game
    rng = np.random.default_rng(4)
    truth = testing.fingerprint(state)
    for _ in range(20):
        other = state.resample_hidden(0, rng)
        replayed = game.state_from_history(other.history)
        assert testing.fingerprint(replayed) == testing.fingerprint(other) != truth
        assert replayed.hands == other.hands and replayed.goals == other.goals and replayed.deck == other.deck
        assert other.history[: 12 + 4] == state.history[: 12 + 4]  # tiles and public cards are public


def test_regression_deck_after_a_reshuffle_only_the_seat_drew_from_is_kept():
    """The deck runs out; seat 0 passes and draws twice from the reshuffled discards. It knows the new
    deck's make-up (the discards were public), hence seat 1's hand too: the redeal keeps both."""
    state = setup_state(2)
    pos = state.position()
    pos["discard"] = [D.TRANSPORT_DECK[v] - pos["hands"][0][v] - pos["hands"][1][v] for v in range(3)]
    pos["deck"] = [0, 0, 0]
    state = state.game.state_from_position(pos)
    do(state, "pass")
    rng = np.random.default_rng(5)
    for outcome in (SHIP, TRAIN):
        state.apply_action(outcome)  # the first draw reshuffles
        for _ in range(30):
            other = check_redeal(state, 0, rng)
            assert other.deck == state.deck and other.hands == state.hands
    # seat 1 did not see seat 0's draws: for it, they are any two cards of the new deck
    assert len({tuple(state.resample_hidden(1, rng).hands[0]) for _ in range(40)}) > 2


def test_redeal_of_city_cards_follows_the_bonus_moves():
    """Seat 1 holds one unshown city card and delivers Rome -> Vienna without a card bonus: its card is
    neither Rome nor Vienna, and any of the other six unseen cards equally often."""
    state = rome_to_vienna("pay", [1, 1, 1])
    pos = state.position()
    pos["city_deck"].remove(CITY["Madrid"])
    pos["private"][1] = [CITY["Madrid"]]
    state = state.game.state_from_position(pos)
    do(state, "pay 1 Truck")
    assert state.tracks[1] == [1, 0, 0] and not state.revealed[1]  # no bonus move: no card shown
    rng = np.random.default_rng(6)
    seen = dict.fromkeys(range(12), 0)
    for k in range(1200):
        other = check_redeal(state, 0, rng) if k < 10 else state.resample_hidden(0, rng)
        seen[other.private[1][0]] += 1
    unseen = [c for c in range(12) if c not in state.public_cards]
    assert seen[CITY["Rome"]] == seen[CITY["Vienna"]] == 0
    assert all(150 < seen[c] < 250 for c in unseen if c not in (CITY["Rome"], CITY["Vienna"]))
    # had the card been Rome's, the delivery would have shown it, and every redeal keeps it
    state = rome_to_vienna("pay", [1, 1, 1])
    pos = state.position()
    pos["city_deck"].remove(CITY["Rome"])
    pos["private"][1] = [CITY["Rome"]]
    state = state.game.state_from_position(pos)
    do(state, "pay 1 Truck")
    assert state.revealed[1] == [CITY["Rome"]] and state.tracks[1] == [2, 0, 0]
    assert all(check_redeal(state, 0, rng).private[1] == [CITY["Rome"]] for _ in range(20))


def test_observation_shows_only_own_private_things():
    state = setup_state(2, hands=[[TRUCK] * 5, [SHIP] * 5], goals=[2, 7])
    obs0 = state.observation(0)
    hand = LAYOUT.view(obs0, "hand")
    assert hand[TRUCK].sum() == 5 and hand[SHIP].sum() == 0
    assert LAYOUT.view(obs0, "own_goals")[2] == 1 and LAYOUT.view(obs0, "own_goals")[7] == 0
    obs1 = state.observation(1)
    assert LAYOUT.view(obs1, "hand")[SHIP].sum() == 5
    assert LAYOUT.view(obs0, "hand_sizes")[:2].tolist() == [0.25, 0.25]
    assert LAYOUT.view(obs0, "seat_present").tolist() == [1, 1, 0, 0, 0]
    assert LAYOUT.view(obs0, "to_move")[0] == 1 and LAYOUT.view(obs1, "to_move")[1] == 1


@pytest.mark.parametrize("n", [1, 3, 5])
def test_position_round_trip(n):
    game = CargoEmpireGame(num_players=n)
    for state in random_states(n, seed=10 + n, every=2):
        pos = json.loads(json.dumps(state.position()))
        copy = game.state_from_position(pos)
        assert copy.current_player() == state.current_player()
        assert copy.legal_action_mask().tobytes() == state.legal_action_mask().tobytes()
        assert copy.to_text() == state.to_text()
        for s in range(n):
            assert copy.observation(s).tobytes() == state.observation(s).tobytes()
            assert copy.seat_text(s) == state.seat_text(s)
        assert copy.returns().tolist() == state.returns().tolist()
        assert copy.scores().tolist() == state.scores().tolist()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"num_players": 3}, "num_players"),
        ({"round": 3}, "round"),
        ({"phase": "fly"}, "phase"),
        ({"deck": [24, 16, 8]}, "Truck cards"),
        ({"public_cards": [0, 1, 2, 3, 4]}, "city card"),
        ({"goal_deck": [0, 1]}, "goal"),
        ({"tracks": [[13, 0, 0], [0, 0, 0]]}, "Truck marker"),
        ({"sel_start": 3}, "sel_start"),
        ({"queue": [["teleport", 0]]}, "draw kind"),
        ({"bogus": 1}, "unknown keys"),
    ],
)
def test_position_validation(change, message):
    state = setup_state(2)
    pos = state.position()
    pos.update(change)
    with pytest.raises(ValueError, match=message):
        state.game.state_from_position(pos)


def test_position_validation_of_the_map():
    state = setup_state(2)
    pos = state.position()
    pos["tile"][1] = pos["tile"][0]
    with pytest.raises(ValueError, match="two cities"):
        state.game.state_from_position(pos)
    pos = state.position()
    pos["cubes"][0] = 3
    with pytest.raises(ValueError, match="cubes"):
        state.game.state_from_position(pos)
    pos = state.position()
    pos["demand"][0] = [0, 1]
    with pytest.raises(ValueError, match="upgraded"):
        state.game.state_from_position(pos)
    pos = state.position()
    pos["level"][0] = 3
    with pytest.raises(ValueError, match="tile"):
        state.game.state_from_position(pos)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.sampled_from([1, 2, 3, 4, 5]))
def test_conservation_along_random_play(seed, n):
    """Cards, cubes and posts are conserved along any game."""
    game = CargoEmpireGame(num_players=n)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    passes = [0] * n
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        action = legal[rng.integers(len(legal))]
        if action == PASS:
            passes[state.current_player()] += 1
        state.apply_action(action)
        for v in range(3):
            assert state.deck[v] + state.discard[v] + sum(h[v] for h in state.hands) == D.TRANSPORT_DECK[v]
        for p in range(n):
            placed = state.posts_on_map(p) - D.START_POSTS
            assert placed + passes[p] + state.posts_left[p] == D.board_posts(n)
    assert state.posts_left == [0] * n


# ---- names, text, image, agent ---------------------------------------------------------------------


def test_names_parse_back():
    state = setup_state(2)
    for a in state.legal_actions():
        assert state.game.string_to_action(state, state.action_to_string(a)) == a
    assert state.action_to_string(PASS) == "pass"
    do(state, "start Lisbon")
    assert all(state.action_to_string(a).startswith("to ") for a in state.legal_actions())


def test_text_and_seat_text():
    state = setup_state(2, goals=[6, 1])
    text = state.to_text()
    assert "Lisbon*" in text and "Public city cards: Paris, Berlin, Lisbon, Warsaw" in text
    assert "Your hand" not in text and "G7" not in text
    mine = state.seat_text(0)
    assert "Your hand (P0): Truck 2, Train 2, Ship 1" in mine and "G7" in mine and "G2" not in mine


@pytest.mark.parametrize("n", [1, 5])
def test_render_image(n):
    state = setup_state(n)
    image = state.render_image()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3 and image.shape[0] > 300


def test_env_make_and_heuristic():
    env = envs.make("cargo_empire-v0", num_players=3)
    env.reset(seed=0)
    assert env.action_space("player_0").n == NUM_ACTIONS
    from gameshelf.envs.cargo_empire.heuristic import CargoEmpireHeuristic

    agent = CargoEmpireHeuristic()
    rng = np.random.default_rng(1)
    state = CargoEmpireGame(num_players=2).new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            seat = state.current_player()
            state.apply_action(agent.act(state.resample_hidden(seat, rng), seat, rng))
    assert state.is_terminal()


@pytest.mark.parametrize("n", [2, 5])
def test_masks_agree_with_the_rules_queries(n):
    """Along random games: a start city is legal iff it has a payable destination, a destination iff it
    has a legal payment in the hand, a payment iff it is a legal minimal payment the hand holds."""
    for state in random_states(n, seed=40 + n, every=1):
        if state.is_terminal():
            continue
        seat = state.current_player()
        mask = state.legal_action_mask()
        if state.phase == "start":
            assert [bool(mask[s]) for s in range(12)] == [bool(state.destinations(seat, s)) for s in range(12)]
            assert mask[PASS]
        elif state.phase == "dest":
            expected = {DEST_BASE + d for d in state.destinations(seat, state.sel_start)}
            assert set(np.flatnonzero(mask).tolist()) == expected
        elif state.phase == "pay":
            hand = state.hands[seat]
            expected = {
                PAY_BASE + R.ALL_PAYMENTS.index(p)
                for p in R.legal_payments(state.sel_start, state.sel_dest)
                if all(p[v] <= hand[v] for v in range(3))
            }
            assert set(np.flatnonzero(mask).tolist()) == expected
        else:
            paid = R.ALL_PAYMENTS[state.sel_payment]
            assert set(np.flatnonzero(mask).tolist()) == {BONUS_BASE + v for v in range(3) if paid[v]}
            assert sum(1 for v in range(3) if paid[v]) >= 2


def test_solo_evaluation_reports_mean_score():
    from gameshelf.training.evaluate import evaluate

    result = evaluate("cargo_empire-v0", ["heuristic", "random"], games=3, seed=0, num_players=1)
    assert result.rating_kind == "none" and not result.ratings
    assert "mean score" in result.table()
    assert all(p.mean_score > 0 for p in result.pairs)
