"""CATsle Builders: every rule of the game, the worked examples of its rules page, each option both ways,
the position builder, ``resample_hidden`` consistency, observation, text, image and the heuristic agent.

Mid-game positions are built with the position builder (``game.state_from_position``); whole games are
scripted by applying chance outcomes explicitly.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameshelf import envs
from gameshelf.envs import testing
from gameshelf.envs.catsle_builders.actions import (
    DEAL,
    FIRST,
    NUM_ACTIONS,
    OVER,
    PHASE_NAMES,
    PLACE,
    PLACE_BASE,
    PLAY,
    TAKE,
    TAKE_BASE,
)
from gameshelf.envs.catsle_builders.cards import (
    FULL_DECK,
    NUM_CARDS,
    SUIT_MASK,
    SUITS,
    card,
    card_name,
    cards_of,
    column_score,
    deck_mask,
    parse_card,
    rating,
    round_score,
)
from gameshelf.envs.catsle_builders.game import CatsleGame, CatsleState, _constrained_deal
from gameshelf.envs.catsle_builders.observation import LAYOUT
from gameshelf.envs.core.game import CHANCE, TERMINAL, IllegalActionError, random_playout

# ---- helpers -------------------------------------------------------------------------------------


def C(name: str) -> int:
    return parse_card(name)


def do(state: CatsleState, *moves: str) -> None:
    """Apply moves by name (each must be legal for the player to act)."""
    for move in moves:
        state.apply_action(state.game.string_to_action(state, move))


def names(state: CatsleState) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def fill_hands(
    n: int,
    fixed: dict[int, list[str]],
    lacking: dict[int, list[str]] | None = None,
    size: int | None = None,
    exclude: tuple[str, ...] = (),
):
    """Hands of ``size`` cards (default: a full hand) holding the ``fixed`` cards; seat s gets no card of
    the suits in ``lacking[s]`` and nobody gets the ``exclude`` cards. Fillers are taken in card order."""
    lacking = lacking or {}
    game = CatsleGame(num_players=n)
    size = size or game.hand_size
    used = {C(c) for cards in fixed.values() for c in cards} | {C(c) for c in exclude}
    free = [c for c in cards_of(game.deck) if c not in used]
    hands = []
    for s in range(n):
        hand = [C(c) for c in fixed.get(s, [])]
        banned = {SUITS.index(x) for x in lacking.get(s, [])}
        for c in list(free):
            if len(hand) == size:
                break
            if c // 12 not in banned:
                hand.append(c)
                free.remove(c)
        assert len(hand) == size
        hands.append([card_name(c) for c in hand])
    return hands


def position(n: int, **over) -> dict:
    """A start-of-play position of round 1 (seat 0 leads), with keys overridden by ``over``."""
    game = CatsleGame(num_players=n)
    pos = {
        "num_players": n,
        "column_limits": [1, 2, 3, 4],
        "phase": "play",
        "round": 1,
        "round_first": 0,
        "totals": [0] * n,
        "round_scores": [],
        "last_perfect": [0] * n,
        "hands": fill_hands(n, {}),
        "boards": [[[] for _ in game.limits] for _ in range(n)],
        "discards": [],
        "leader": 0,
        "trick": [],
        "trick_left": None,
        "pending": None,
        "voids": [[] for _ in range(n)],
    }
    pos.update(over)
    return pos


def build(n: int, **over) -> CatsleState:
    return CatsleGame(num_players=n).state_from_position(position(n, **over))


def deal_round(state: CatsleState, hands: list[list[int]]) -> None:
    """Apply the chance outcomes that deal ``hands`` (card k goes to seat k % n)."""
    n = state.game.num_players
    for k in range(n * state.game.hand_size):
        state.apply_action(hands[k % n][k // n])


def fingerprint(state: CatsleState) -> tuple:
    n = state.game.num_players
    return (
        state.current_player(),
        state.legal_action_mask().tobytes(),
        tuple(state.observation(s).tobytes() for s in range(n)),
        state.returns().tobytes(),
        state.scores().tobytes(),
        state.to_text(),
        tuple(state.seat_text(s) for s in range(n)),
    )


# ---- cards and pure functions ---------------------------------------------------------------------


def test_deck_and_card_names():
    assert NUM_CARDS == 60 and NUM_ACTIONS == 125
    assert bin(deck_mask(4)).count("1") == bin(deck_mask(5)).count("1") == 60
    assert bin(deck_mask(3)).count("1") == 48 and deck_mask(3) & SUIT_MASK[4] == 0  # no Moats at 3 players
    for c in range(NUM_CARDS):
        assert parse_card(card_name(c)) == c
    assert card_name(card(0, 5)) == "Walls 5" and card_name(card(4, 12)) == "Moats 12"
    assert parse_card("gates9") == card(2, 9) and parse_card("Gat 9") == card(2, 9) and parse_card("W 1") == card(0, 1)
    with pytest.raises(ValueError):
        parse_card("Walls 13")
    with pytest.raises(ValueError):
        parse_card("G 3")  # ambiguous: Gables or Gates


def test_parse_card_prefix_must_be_unique():
    # "Ga" starts both "Gables" and "Gates": refused
    with pytest.raises(ValueError):
        parse_card("Ga 9")


@pytest.mark.parametrize(
    ("limits", "counts", "score", "perfect"),
    [
        # worked example 3 of the rules page
        ((1, 2, 3, 4, 0), (1, 2, 5, 4, 2), 5, 3),
        ((1, 2, 3, 4, 0), (0, 3, 5, 6, 1), 0, 0),
        ((1, 2, 3, 4), (1, 2, 3, 4), 14, 4),
        # more
        ((1, 2, 3, 4, 0), (0, 0, 0, 0, 0), 0, 0),
        ((1, 2, 3, 4, 0), (1, 0, 0, 0, 0), 1, 1),
        ((1, 2, 3, 4, 0), (1, 2, 0, 0, 0), 4, 2),  # 3 + bonus 1
        ((1, 2, 3, 4, 0), (1, 2, 3, 0, 0), 8, 3),  # 6 + bonus 2
        ((1, 2, 3, 4, 0), (1, 2, 3, 4, 1), 13, 4),  # 10 - 1 + bonus 4
        ((1, 2, 3, 4, 0), (0, 1, 2, 3, 0), 6, 0),
        ((1, 2, 3, 4), (2, 2, 2, 2), 5, 1),  # -1 + 2 + 2 + 2
    ],
)
def test_round_score_table(limits, counts, score, perfect):
    assert round_score(limits, counts) == (score, perfect)


def test_column_score_over_limit_is_negative_sideways_count():
    assert [column_score(3, k) for k in range(7)] == [0, 1, 2, 3, -1, -2, -3]
    assert [column_score(0, k) for k in range(4)] == [0, -1, -2, -3]


@given(st.lists(st.integers(0, 12), min_size=5, max_size=5))
def test_round_score_properties(counts):
    limits = (1, 2, 3, 4, 0)
    score, perfect = round_score(limits, counts)
    assert score >= 0
    assert perfect == sum(1 for lim, k in zip(limits, counts, strict=True) if lim and k == lim)
    assert score <= 14  # the maximum: every column perfect
    raw = sum(column_score(lim, k) for lim, k in zip(limits, counts, strict=True))
    assert score == max(0, raw + (0, 0, 1, 2, 4)[perfect])


@given(st.permutations(list(range(NUM_CARDS))).map(lambda p: p[:5]))
def test_rating_properties(cards):
    order = rating(cards)
    assert sorted(order) == list(range(len(cards)))
    led = cards[0] // 12
    ranked = [cards[i] for i in order]
    # every led-suit card ranks above every other card, each group by value (higher first)
    follows = [c // 12 == led for c in ranked]
    assert follows == sorted(follows, reverse=True)
    values = [(c // 12 == led, c % 12) for c in ranked]
    assert values == sorted(values, reverse=True)
    # equal values off the led suit: the later card ranks higher
    for a in range(len(order)):
        for b in range(a + 1, len(order)):
            ca, cb = cards[order[a]], cards[order[b]]
            if ca // 12 != led and cb // 12 != led and ca % 12 == cb % 12:
                assert order[a] > order[b]


# ---- options and setup --------------------------------------------------------------------------


def test_options_and_player_counts():
    assert envs.spec("catsle_builders-v0").player_counts == (4, 3, 5)
    for n, hand, cols in ((3, 11, 4), (4, 14, 5), (5, 12, 5)):
        g = CatsleGame(num_players=n)
        assert g.hand_size == hand and g.num_columns == cols
        assert g.limits == ((1, 2, 3, 4) if n == 3 else (1, 2, 3, 4, 0))
    with pytest.raises(ValueError, match="num_players"):
        CatsleGame(num_players=2)
    for bad in ([1, 2, 3], [1, 2, 3, 13], [1, 2, 3, -1], "1234", [1, 2, 3, True]):
        with pytest.raises(ValueError, match="column_limits"):
            CatsleGame(column_limits=bad)
    g = CatsleGame(column_limits=[2, 2, 3, 3])
    assert g.limits == (2, 2, 3, 3, 0) and g.options["column_limits"] == (2, 2, 3, 3)
    hash(g)


def test_column_limits_option_changes_scoring_and_observation():
    for limits in ((1, 2, 3, 4), (2, 2, 3, 3)):
        game = CatsleGame(num_players=3, column_limits=limits)
        state = game.new_initial_state()
        rng = np.random.default_rng(1)
        random_playout(state, rng)
        for s in range(3):
            score, perfect = round_score(game.limits, state.board_counts(s))
            assert state.round_scores[-1][s] == score and state.last_perfect[s] == perfect
        obs = state.observation(0)
        assert np.allclose(LAYOUT.view(obs, "limits")[:4], np.array(limits) / 12)


def test_initial_chance_first_leader_then_deal():
    for n in (3, 4, 5):
        game = CatsleGame(num_players=n)
        state = game.new_initial_state()
        assert state.current_player() == CHANCE and state.phase == FIRST
        assert state.chance_outcomes() == [(s, 1 / n) for s in range(n)]
        state.apply_action(n - 1)
        assert state.phase == DEAL and state.round_first == n - 1
        outcomes = state.chance_outcomes()
        assert len(outcomes) == game.deck_size and abs(sum(p for _, p in outcomes) - 1) < 1e-12
        if n == 3:
            assert all(c // 12 != 4 for c, _ in outcomes)  # Moats removed
        rng = np.random.default_rng(n)
        while state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        assert state.hand_sizes == [game.hand_size] * n
        assert bin(state.undealt).count("1") == {3: 15, 4: 4, 5: 0}[n]
        assert state.current_player() == n - 1  # the round's first leader leads


# ---- tricks: following suit, rating, taking, placing ----------------------------------------------


def test_must_follow_suit_when_able_and_voids_are_recorded():
    hands = fill_hands(4, {0: ["Walls 5"], 1: ["Gates 9"], 2: ["Walls 2"], 3: ["Bridges 9"]}, {1: ["Walls"], 3: ["Walls"]})
    state = build(4, hands=hands)
    do(state, "play Walls 5")
    assert state.current_player() == 1
    assert all(n.startswith("play") for n in names(state)) and len(names(state)) == 14  # void in Walls: anything
    do(state, "play Gates 9")
    assert state.voids[1] == 1 << 0
    walls2 = {card_name(c) for c in cards_of(state.hands[2] & SUIT_MASK[0])}
    assert names(state) == {f"play {c}" for c in walls2}  # must follow
    with pytest.raises(IllegalActionError):
        do(state, f"play {card_name(cards_of(state.hands[2] & ~SUIT_MASK[0])[0])}")
    do(state, "play Walls 2")
    assert state.voids[2] == 0


def test_worked_example_1_four_player_trick():
    hands = fill_hands(4, {0: ["Walls 5"], 1: ["Gates 9"], 2: ["Walls 2"], 3: ["Bridges 9"]}, {1: ["Walls"], 3: ["Walls"]})
    state = build(4, hands=hands)
    do(state, "play Walls 5", "play Gates 9", "play Walls 2", "play Bridges 9")
    assert state.trick_rating() == [0, 2, 3, 1]  # Bridges 9 (later) above Gates 9
    assert state.queue == [0, 2, 2]
    # seat 0 takes 1 card, from all four (his own included)
    assert state.phase == TAKE and state.current_player() == 0
    assert names(state) == {"take Walls 5", "take Gates 9", "take Walls 2", "take Bridges 9"}
    do(state, "take Gates 9")
    # an empty board: any empty column, the limit-0 column included
    assert state.phase == PLACE and state.current_player() == 0
    assert names(state) == {f"place in column {k} (limit {lim})" for k, lim in zip(range(1, 6), (1, 2, 3, 4, 0), strict=True)}
    do(state, "place in column 3 (limit 3)")
    # seat 2 takes 2 cards of the 3 left
    assert state.phase == TAKE and state.current_player() == 2
    assert names(state) == {"take Walls 5", "take Walls 2", "take Bridges 9"}
    do(state, "take Walls 5", "place in column 1 (limit 1)")
    # the second Walls must join the Walls column: placed without a decision
    do(state, "take Walls 2")
    assert state.cols[2][0] == [C("Walls 5"), C("Walls 2")]
    # one card discarded; seat 2 leads the next trick
    assert state.discards == 1 << C("Bridges 9")
    assert state.phase == PLAY and state.current_player() == 2 and state.leader == 2 and state.trick == []
    assert [len(c) for c in state.cols[0]] == [0, 0, 1, 0, 0]


def test_worked_example_2_five_players_take_1_1_2():
    hands = fill_hands(
        5, {0: ["Gates 3"], 1: ["Gates 12"], 2: ["Walls 7"], 3: ["Gates 1"], 4: ["Moats 7"]}, {2: ["Gates"], 4: ["Gates"]}
    )
    state = build(5, hands=hands)
    do(state, "play Gates 3", "play Gates 12", "play Walls 7", "play Gates 1", "play Moats 7")
    # rating: Gates 12 (seat 1), Gates 3 (seat 0), Gates 1 (seat 3), Moats 7 (seat 4, later), Walls 7 (seat 2)
    assert state.trick_rating() == [1, 0, 3, 4, 2]
    assert state.queue == [1, 0, 3, 3]
    assert state.current_player() == 1 and len(state.legal_actions()) == 5
    do(state, "take Gates 1", "place in column 2 (limit 2)")
    assert state.current_player() == 0 and len(state.legal_actions()) == 4
    do(state, "take Moats 7", "place in column 5 (limit 0)")
    assert state.current_player() == 3 and len(state.legal_actions()) == 3
    do(state, "take Gates 3", "place in column 4 (limit 4)", "take Gates 12")  # same suit: same column, no decision
    assert state.cols[3][3] == [C("Gates 3"), C("Gates 12")]
    assert state.discards == 1 << C("Walls 7")
    assert state.phase == PLAY and state.current_player() == 3  # the 3rd rated player leads


def test_three_players_second_takes_both_left_without_choosing():
    hands = fill_hands(3, {0: ["Walls 5", "Gates 2"], 1: ["Walls 9"], 2: ["Walls 1"]})
    state = build(3, hands=hands)
    do(state, "play Walls 5", "play Walls 9", "play Walls 1")
    assert state.trick_rating() == [1, 0, 2]
    do(state, "take Walls 1", "place in column 4 (limit 4)")
    # seat 0 takes the two cards left: no take decision; the first one needs a column
    assert state.phase == PLACE and state.current_player() == 0 and state.pending == C("Walls 5")
    assert len(state.legal_actions()) == 4  # 3 players: 4 columns, no limit-0 column
    do(state, "place in column 1 (limit 1)")
    assert state.cols[0][0] == [C("Walls 5"), C("Walls 9")]  # second Walls follows without a decision
    assert state.discards == 0 and state.phase == PLAY and state.current_player() == 0


def test_placement_same_suit_column_forced_and_new_suit_any_empty_column():
    game = CatsleGame(num_players=4)
    boards: list[list[list[str]]] = [[[] for _ in range(5)] for _ in range(4)]
    boards[0][1] = ["Gables 4"]
    boards[0][4] = ["Gates 1"]
    boards[1][0] = ["Gables 1"]
    boards[1][2] = ["Walls 1", "Walls 3"]
    boards[2][3] = ["Gables 2"]
    discards = ["Moats 1", "Moats 2"]  # two tricks done: 6 cards on boards, 2 discarded
    used = tuple(c for b in boards for col in b for c in col) + tuple(discards)
    fixed = {0: ["Gables 10"], 1: ["Gables 12"], 2: ["Bridges 12"], 3: ["Moats 12"]}
    hands = fill_hands(4, fixed, {2: ["Gables"], 3: ["Gables"]}, size=12, exclude=used)
    voids = [[], [], ["Gables"], ["Gables"]]
    state = game.state_from_position(position(4, hands=hands, boards=boards, discards=discards, voids=voids))
    do(state, "play Gables 10", "play Gables 12", "play Bridges 12", "play Moats 12")
    assert state.trick_rating() == [1, 0, 3, 2]
    assert state.current_player() == 1
    do(state, "take Gables 10")  # seat 1 has a Gables column: placed there, no decision
    assert state.cols[1][0] == [C("Gables 1"), C("Gables 10")]
    assert state.current_player() == 0 and state.phase == TAKE
    do(state, "take Moats 12")  # new suit: the three empty columns (limits 1, 3, 4)
    assert names(state) == {"place in column 1 (limit 1)", "place in column 3 (limit 3)", "place in column 4 (limit 4)"}
    with pytest.raises(IllegalActionError):
        do(state, "place in column 2 (limit 2)")
    do(state, "place in column 4 (limit 4)")
    do(state, "take Gables 12")  # his Gables column
    assert state.cols[0][1] == [C("Gables 4"), C("Gables 12")]
    assert state.current_player() == 0 and state.phase == PLAY


def test_sideways_cards_count_in_text():
    boards: list[list[list[str]]] = [[[] for _ in range(5)] for _ in range(4)]
    boards[0][0] = ["Walls 1", "Walls 2", "Walls 3"]
    hands = fill_hands(4, {}, size=13, exclude=("Walls 1", "Walls 2", "Walls 3", "Moats 12"))
    state = build(4, hands=hands, boards=boards, discards=["Moats 12"])
    assert "+2 sideways" in state.to_text()


# ---- rounds and game end ----------------------------------------------------------------------------


def test_round_end_scoring_rotation_and_clearing():
    game = CatsleGame(num_players=3)
    state = game.new_initial_state()
    state.apply_action(1)  # seat 1 leads round 1
    rng = np.random.default_rng(5)
    while state.round_index == 0 and not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    assert state.round_index == 1 and state.phase == DEAL
    assert len(state.round_scores) == 1 and state.totals == state.round_scores[0]
    assert state.round_first == 2  # the player after round 1's first leader
    assert all(not any(col) for board in state.cols for col in board) and state.discards == 0 and state.voids == [0] * 3
    assert state.chance_outcomes()[0][1] == pytest.approx(1 / 48)
    random_playout(state, rng)
    assert state.phase == OVER and state.current_player() == TERMINAL and len(state.round_scores) == 3
    assert state.totals == [sum(r[s] for r in state.round_scores) for s in range(3)]


def test_round_first_leader_rotates_every_round():
    game = CatsleGame(num_players=5)
    state = game.new_initial_state()
    state.apply_action(4)
    firsts = []
    rng = np.random.default_rng(2)
    while not state.is_terminal():
        if state.is_chance_node():
            if state.phase == DEAL and state.dealt == 0:
                firsts.append(state.round_first)
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    assert firsts == [4, 0, 1]


def final_position(n: int, totals: list[int], perfect: list[int]) -> dict:
    return position(
        n,
        phase="over",
        round=3,
        totals=totals,
        round_scores=[totals, [0] * n, [0] * n],
        last_perfect=perfect,
        hands=[[] for _ in range(n)],
        **_full_boards(n),
    )


def _full_boards(n: int) -> dict:
    """Boards and discards after a whole round (every dealt card placed or discarded)."""
    game = CatsleGame(num_players=n)
    cards = cards_of(game.deck)[: n * game.hand_size]
    tricks = game.hand_size
    takes = sum(game.takes)
    on_board = cards[: tricks * takes]
    discards = cards[tricks * takes :]
    boards: list[list[list[str]]] = [[[] for _ in game.limits] for _ in range(n)]
    for i, c in enumerate(on_board):
        s = i % n
        suit = c // 12
        column = boards[s][suit] if suit < len(game.limits) else None
        assert column is not None
        column.append(card_name(c))
    return {"boards": boards, "discards": [card_name(c) for c in discards], "leader": 0}


def test_winner_by_total_then_perfect_columns_then_shared():
    state = CatsleGame(num_players=4).state_from_position(final_position(4, [20, 20, 12, 3], [1, 3, 4, 0]))
    assert state.is_terminal()
    assert list(state.returns()) == pytest.approx([1 / 3, 1.0, -1 / 3, -1.0])
    state = CatsleGame(num_players=4).state_from_position(final_position(4, [20, 20, 12, 3], [2, 2, 4, 0]))
    assert list(state.returns()) == pytest.approx([2 / 3, 2 / 3, -1 / 3, -1.0])
    assert "seat 0 and seat 1 win" in state.to_text()
    assert list(state.scores()) == [20, 20, 12, 3]


# ---- position builder -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5])
def test_position_round_trip_along_random_games(n):
    game = CatsleGame(num_players=n)
    rng = np.random.default_rng(n)
    state = game.new_initial_state()
    step = 0
    while True:
        if step % 3 == 0 or state.is_terminal():
            pos = state.position()
            json.dumps(pos)
            again = game.state_from_position(json.loads(json.dumps(pos)))
            assert fingerprint(again) == fingerprint(state)
            assert again.position() == pos
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        step += 1


def test_position_rebuilt_state_plays_on_like_the_original():
    game = CatsleGame(num_players=4)
    state = game.new_initial_state()
    rng = np.random.default_rng(8)
    for _ in range(150):
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    copy = game.state_from_position(state.position())
    r1, r2 = np.random.default_rng(3), np.random.default_rng(3)
    random_playout(state, r1)
    random_playout(copy, r2)
    assert list(state.returns()) == list(copy.returns()) and state.totals == copy.totals


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"num_players": 3}, "players"),
        ({"phase": "bidding"}, "unknown phase"),
        ({"round": 4}, "round"),
        ({"totals": [1, 0, 0, 0]}, "round_scores"),
        ({"hands": [["Walls 1"], [], [], []]}, "hand sizes|holds"),
        ({"discards": ["Walls 99"]}, "unknown card"),
        ({"trick": ["Walls 1"]}, "twice"),
        ({"voids": [["Walls"], [], [], []]}, "void"),
        ({"voids": [["Towers"], [], [], []]}, "unknown suit"),
        ({"extra": 1}, "unknown"),
        ({"leader": 7}, "leader"),
        ({"trick_left": ["Walls 1"]}, "null"),
    ],
)
def test_position_validation_names_the_problem(change, message):
    pos = position(4)
    pos.update(change)
    with pytest.raises(ValueError, match=message):
        CatsleGame(num_players=4).state_from_position(pos)


def test_position_moats_refused_at_three_players():
    hands = fill_hands(3, {})
    hands[0][0] = "Moats 3"
    with pytest.raises(ValueError, match="not in the deck"):
        build(3, hands=hands)


def test_position_off_suit_play_needs_a_void():
    hands = fill_hands(4, {0: ["Walls 5"], 1: ["Gates 9"]}, {1: ["Walls"]})
    state = build(4, hands=hands)
    do(state, "play Walls 5", "play Gates 9")
    pos = state.position()
    assert pos["voids"][1] == ["Walls"]
    pos["voids"][1] = []
    with pytest.raises(ValueError, match="without being void"):
        CatsleGame(num_players=4).state_from_position(pos)


# ---- hidden information ----------------------------------------------------------------------------


def test_resample_hidden_keeps_public_facts_and_voids():
    game = CatsleGame(num_players=4)
    rng = np.random.default_rng(4)
    state = game.new_initial_state()
    changed = False
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        for seat in range(4):
            other = state.resample_hidden(seat, rng)
            assert other.hands[seat] == state.hands[seat]
            assert other.hand_sizes == [bin(h).count("1") for h in other.hands] == state.hand_sizes
            for s in range(4):
                for suit in range(5):
                    if state.voids[s] >> suit & 1:
                        assert other.hands[s] & SUIT_MASK[suit] == 0
            every = other.undealt | other.played
            for h in other.hands:
                assert every & h == 0
                every |= h
            assert every == game.deck
            assert other.observation(seat).tobytes() == state.observation(seat).tobytes()
            changed |= other.hands != state.hands
            # the rewritten history replays to the resampled state
            replay = game.state_from_history(other.history)
            assert replay.hands == other.hands and replay.observation(seat).tobytes() == state.observation(seat).tobytes()
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        if state.round_index == 1:
            break
    assert changed


@pytest.mark.parametrize("n", [3, 4, 5])
def test_resample_hidden_keeps_the_order_in_which_the_seat_was_dealt_its_own_cards(n):
    """A seat saw its own cards come in one by one: a redeal keeps their order in the history (only the cards of
    the others are dealt anew), so nothing read off the history, a text log say, tells the redeal apart."""
    game = CatsleGame(num_players=n)
    rng = np.random.default_rng(n)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
    start = state.deal_start
    for seat in range(n):
        mine = [a for k, a in enumerate(state.history[start:]) if k % n == seat]
        for _ in range(3):
            other = state.resample_hidden(seat, rng)
            assert [a for k, a in enumerate(other.history[start:]) if k % n == seat] == mine
            assert game.state_from_history(other.history).hands == other.hands


def test_constrained_deal_fallback_respects_bans():
    rng = np.random.default_rng(0)
    # 12 Walls and 12 Gables into three hands; hand 0 lacks Walls, hand 1 lacks Gables: few shuffles fit
    cards = list(range(24))
    for _ in range(20):
        out = _constrained_deal(cards, [12, 12, 0], [1, 2, 0], rng)
        assert out[0] == SUIT_MASK[1] and out[1] == SUIT_MASK[0] and out[2] == 0
    cards = list(range(36))
    for _ in range(20):
        out = _constrained_deal(cards, [10, 10, 16], [0b011, 0b101, 0], rng)
        assert out[0] & (SUIT_MASK[0] | SUIT_MASK[1]) == 0 and out[1] & (SUIT_MASK[0] | SUIT_MASK[2]) == 0
        assert sum(bin(m).count("1") for m in out) == 36 and (out[0] | out[1] | out[2]) == (1 << 36) - 1


def catsle_rare_node(state: CatsleState) -> bool:
    """Nodes a stride would often miss: a round's first, second and last dealt cards, a place decision,
    the first trick's plays and the end."""
    n = state.game.num_players
    return (
        state.phase in (FIRST, PLACE, OVER)
        or (state.phase == DEAL and state.dealt in (0, 1, n * state.game.hand_size - 1))
        or (state.phase == PLAY and state.played == 0)
    )


def catsle_phase(state: CatsleState) -> str:
    return PHASE_NAMES[state.phase]


def only_chance(state: CatsleState, seat: int) -> tuple[int, ...]:
    """No decision of another seat may change in a redeal: only chance outcomes (the cards dealt)."""
    return ()


def positions_everywhere(state: CatsleState, seat: int, redeal: CatsleState) -> None:
    """``position()`` at every node, chance nodes included (the kit allows ``NotImplementedError`` there)."""
    state.position()
    redeal.position()


@pytest.mark.parametrize(("n", "every"), [(3, 4), (4, 8), (5, 10)])
def test_resample_contract_at_every_kind_of_node(n, every):
    """The kit's redeal checks (``testing.check_redeal``, only chance outcomes may change) for every seat at the
    nodes of seeded random games: the deal's chance nodes, plays, takes, places, a new round's deal and the
    end; ``position()`` at every node."""
    checked: Counter[str] = Counter()
    for seed, limits in enumerate([(1, 2, 3, 4), (0, 3, 3, 4)]):
        game = CatsleGame(num_players=n, column_limits=limits)
        checked += testing.check_redeals_along(
            game,
            seed,
            every=every,
            always=catsle_rare_node,
            label=catsle_phase,
            changeable=only_chance,
            also=positions_everywhere,
        )
    assert set(checked) == set(PHASE_NAMES), checked


def test_resample_contract_when_the_counting_deal_is_used(monkeypatch):
    """With no rejection tries every redeal is dealt by counting; the contract still holds."""
    import gameshelf.envs.catsle_builders.game as rules_mod

    monkeypatch.setattr(rules_mod, "_REJECTION_TRIES", 0)
    checked = testing.check_redeals_along(
        CatsleGame(num_players=4),
        7,
        every=23,
        always=lambda s: s.phase == OVER,
        changeable=only_chance,
        also=positions_everywhere,
    )
    assert checked["decision"] + checked["again"] + checked["after chance"] > 10 and checked["terminal"] == 1


def all_consistent_deals(cards: list[int], caps: list[int], banned: list[int]) -> set[tuple[int, ...]]:
    deals = set()
    for order in itertools.permutations(cards):
        masks, pos = [], 0
        for cap in caps:
            masks.append(sum(1 << c for c in order[pos : pos + cap]))
            pos += cap
        if not any(banned[d] >> (c // 12) & 1 for d, m in enumerate(masks) for c in cards_of(m)):
            deals.add(tuple(masks))
    return deals


@pytest.mark.parametrize(
    ("cards", "caps", "banned"),
    [
        ([0, 1, 2, 12, 13, 24], [1, 3, 2], [0b001, 0b010, 0]),
        ([0, 1, 2, 12, 13, 24, 25], [2, 2, 3], [0b110, 0b001, 0]),
        ([0, 1, 12, 13, 24, 36], [1, 1, 4], [0b011, 0b110, 0]),
    ],
)
def test_constrained_deal_is_uniform_over_the_consistent_deals(monkeypatch, cards, caps, banned):
    """Every deal that respects the voids is equally likely, also when rejection gives up (the deal by
    counting): chi-square of the observed deals against the uniform distribution."""
    import gameshelf.envs.catsle_builders.game as rules_mod

    deals = all_consistent_deals(cards, caps, banned)
    for tries in (rules_mod._REJECTION_TRIES, 0):
        monkeypatch.setattr(rules_mod, "_REJECTION_TRIES", tries)
        rng = np.random.default_rng(tries)
        samples = 400 * len(deals)
        seen = Counter(tuple(_constrained_deal(cards, caps, banned, rng)) for _ in range(samples))
        assert set(seen) == deals
        expected = samples / len(deals)
        chi2 = sum((seen[d] - expected) ** 2 / expected for d in deals)
        df = len(deals) - 1
        assert chi2 < df + 6 * np.sqrt(2 * df), (tries, chi2, df)


# ---- observation, actions, text, image ------------------------------------------------------------


def test_observation_pieces():
    hands = fill_hands(4, {0: ["Walls 5"], 1: ["Gates 9"], 2: ["Walls 2"], 3: ["Bridges 9"]}, {1: ["Walls"], 3: ["Walls"]})
    state = build(4, hands=hands)
    do(state, "play Walls 5", "play Gates 9")
    obs = state.observation(1)
    assert obs.shape == LAYOUT.shape and obs.dtype == np.float32
    assert LAYOUT.view(obs, "hand").sum() == 13
    trick = LAYOUT.view(obs, "trick")
    assert trick[0, C("Gates 9")] == 1 and trick[3, C("Walls 5")] == 1  # seat 0 is seat 1's ego 3
    assert LAYOUT.view(obs, "voids")[0, 0] == 1
    assert LAYOUT.view(obs, "to_act")[1] == 1 and LAYOUT.view(obs, "leader")[3] == 1
    assert LAYOUT.view(obs, "played")[C("Walls 5")] == 1
    assert list(LAYOUT.view(obs, "players")) == [0, 1, 0]
    import gameshelf.envs.catsle_builders as pkg

    assert "| `boards` |" in (pkg.__doc__ or "")


def test_action_names_parse_back_and_unknown_names_fail():
    state = build(4)
    game = state.game
    for a in state.legal_actions():
        assert game.string_to_action(state, state.action_to_string(a)) == a
    with pytest.raises(IllegalActionError):
        game.string_to_action(state, "take Walls 1")
    assert TAKE_BASE == 60 and PLACE_BASE == 120


def test_seat_text_shows_only_own_hand():
    state = build(3)
    text0 = state.seat_text(0)
    assert "hand: Walls" in text0 and text0.count("hand: ") == 1
    assert "hand: " not in state.to_text()


def test_render_image_every_player_count():
    for n in (3, 4, 5):
        state = CatsleGame(num_players=n).new_initial_state()
        random_playout(state, np.random.default_rng(n), max_decisions=40)
        image = state.render_image()
        assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
        assert image.shape[0] > 200 and image.shape[1] > 200


def test_max_game_length_bounds_random_games():
    for n in (3, 4, 5):
        game = CatsleGame(num_players=n)
        for seed in range(3):
            state = game.new_initial_state()
            assert random_playout(state, np.random.default_rng(seed)) <= game.info.max_game_length


def test_full_deck_constant():
    assert FULL_DECK == (1 << 60) - 1


def test_heuristic_beats_random_quickly():
    from gameshelf.envs.catsle_builders.heuristic import CatsleHeuristic

    agent = CatsleHeuristic()
    rng = np.random.default_rng(0)
    game = CatsleGame(num_players=3)
    wins = 0
    for g in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
            elif state.current_player() == g % 3:
                view = state.resample_hidden(state.current_player(), rng)
                state.apply_action(agent.act(view, state.current_player(), rng))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
        wins += state.returns()[g % 3] > 0
    assert wins >= 3  # 1 win in 3 is the random level
