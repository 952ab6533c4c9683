"""Matchstick Tycoon: the glyph and reachability table, the deal, every rule of play, the worked examples
1-4 of the rules, each option both ways, the position builder, ``resample_hidden``, observation, text,
image and the heuristic agent.

Mid-game positions are built with ``game.state_from_position`` (never by writing private fields); the
deal is scripted by applying chance outcomes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameshelf import envs
from gameshelf.envs import testing
from gameshelf.envs.core.game import CHANCE, TERMINAL, IllegalActionError, random_playout
from gameshelf.envs.matchstick_tycoon.actions import DISCARD, NUM_ACTIONS, PASS, decode, pick_action, play_action
from gameshelf.envs.matchstick_tycoon.cards import (
    COST,
    FACE_NAMES,
    GLYPHS,
    NUM_FACES,
    VALUE_NAMES,
    cost,
    deck_copies,
    face_index,
    rotate,
    seg,
    shows,
    stronger,
)
from gameshelf.envs.matchstick_tycoon.game import MatchstickGame, MatchstickState, can_show, min_costs
from gameshelf.envs.matchstick_tycoon.observation import LAYOUT, SIZE

# ---- helpers -------------------------------------------------------------------------------------


def game(n: int = 4, **options) -> MatchstickGame:
    return MatchstickGame(num_players=n, **options)


def position(g: MatchstickGame, hands: list[str], to_move: int = 0, sticks: list[int] | None = None, **extra) -> MatchstickState:
    """A position from hands written as strings of face names (``"8 8 3/E"``); every card of the game not in a
    hand, the table or a pending play is put in ``played`` (cheapest way to make the counts add up)."""
    n = g.num_players
    hand_lists = [h.split() for h in hands]
    used = [0] * NUM_FACES
    for h in hand_lists:
        for name in h:
            used[face_index(name)] += 1
    pending = extra.get("pending")
    if pending:
        for name in pending.get("picked", []):
            used[face_index(name)] += 1
    table = extra.get("table")
    table_faces = [face_index(f) for f in table["faces"]] if table else []
    played = [0] * NUM_FACES
    for f in table_faces:
        played[f] += 1
    free = [g.deck[f] - used[f] - played[f] for f in range(NUM_FACES)]
    need = g.cards_dealt - sum(used) - sum(played)
    for f in range(NUM_FACES):
        take = min(free[f], need)
        played[f] += take
        need -= take
    assert need == 0
    pos = {
        "hands": hand_lists,
        "matchsticks": sticks if sticks is not None else [1] * n,
        "to_move": to_move,
        "played": {FACE_NAMES[f]: c for f, c in enumerate(played) if c},
        **extra,
    }
    return g.state_from_position(pos)


def do(state: MatchstickState, *moves: str) -> None:
    """Apply moves by name (each must be legal for the player to act)."""
    for move in moves:
        state.apply_action(state.game.string_to_action(state, move))


def legal_names(state: MatchstickState) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def plays(state: MatchstickState) -> set[str]:
    return {name for name in legal_names(state) if name.startswith("play")}


def deal_randomly(state: MatchstickState, rng: np.random.Generator) -> None:
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))


def deal_state(g: MatchstickGame, first: int, cards: list[int]) -> MatchstickState:
    state = g.new_initial_state()
    state.apply_action(first)
    for c in cards:
        state.apply_action(c)
    return state


# ---- glyphs and the reachability table -----------------------------------------------------------

# The rules' table: card -> (upright, rotated), value(cost) lists, base values only.
REACH = {
    "0": ("0(0) 8(1)", "0(0) 8(1)"),
    "1": ("1(0) 7(1) 4(2) 3(3) d(3) 0(4) 9(4) A(4) 8(5)", "C(2) F(2) b(3) E(3) 0(4) 6(4) A(4) 8(5)"),
    "2": ("2(0) 8(2)", "2(0) 8(2)"),
    "3/E": ("3(0) 9(1) 8(2)", "E(0) 6(1) 8(2)"),
    "4": ("4(0) 9(2) A(2) 8(3)", "b(1) 6(2) A(2) 8(3)"),
    "5": ("5(0) 6(1) 9(1) 8(2)", "5(0) 6(1) 9(1) 8(2)"),
    "6/9": ("6(0) 8(1)", "9(0) 8(1)"),
    "7": ("7(0) 3(2) 0(3) 9(3) A(3) 8(4)", "C(1) b(2) E(2) 0(3) 6(3) 8(4)"),
    "8": ("8(0)", "8(0)"),
    "A": ("A(0) 8(1)", "8(1)"),
    "b": ("b(0) 6(1) 8(2)", "9(1) A(1) 8(2)"),
    "C": ("C(0) E(1) 0(2) 6(2) 8(3)", "3(1) 0(2) 9(2) 8(3)"),
    "d": ("d(0) 8(2)", "A(1) 8(2)"),
    "F": ("F(0) E(1) 6(2) A(2) 8(3)", "3(1) d(1) 9(2) 8(3)"),
}
# Expansion: value -> {(card, orientation): cost}
REACH_EXPANSION = {
    ("1", False, "H"): 3,
    ("1", True, "G"): 3,
    ("1", True, "H"): 3,
    ("4", False, "H"): 1,
    ("4", True, "H"): 1,  # 4 rotated (c e f g) plus b is H as well
    ("7", True, "G"): 2,
    ("C", False, "G"): 1,
    ("G", False, "G"): 0,
    ("H", False, "H"): 0,
    ("H", True, "H"): 0,
}


def parse_reach(text: str) -> dict[str, int]:
    out = {}
    for item in text.split():
        value, c = item[0], int(item[2:-1])
        out[value] = c
    return out


@pytest.mark.parametrize("card", list(REACH))
def test_reachability_table(card):
    face = face_index(card)
    for rotated, text in zip((False, True), REACH[card], strict=True):
        expected = parse_reach(text)
        got = {VALUE_NAMES[v]: shows(face, v, rotated) for v in range(16) if shows(face, v, rotated) >= 0}
        assert got == expected, (card, rotated)


def test_expansion_reachability():
    for face in range(NUM_FACES):
        for rotated in (False, True):
            for v in (16, 17):
                c = shows(face, v, rotated)
                key = (FACE_NAMES[face], rotated, VALUE_NAMES[v])
                assert c == REACH_EXPANSION.get(key, -1), key


def test_published_examples_of_glyphs():
    assert cost(face_index("6/9"), VALUE_NAMES.index("8")) == 1  # 6 + 1 -> 8
    assert shows(face_index("6/9"), VALUE_NAMES.index("9"), rotated=True) == 0  # 6 upside down -> 9
    assert shows(face_index("1"), VALUE_NAMES.index("F"), rotated=True) == 2  # 1 upside down + 2 -> F
    assert cost(face_index("3/E"), VALUE_NAMES.index("9")) == 1  # 3 -> 9
    assert cost(face_index("7"), VALUE_NAMES.index("3")) == 2  # 7 -> 3
    assert cost(face_index("0"), VALUE_NAMES.index("8")) == 1  # 0 + middle -> 8
    assert cost(face_index("4"), VALUE_NAMES.index("8")) == 3  # 4 + 3 -> 8


def test_rotation_pairs_and_segments():
    assert rotate(seg("abcdg")) == GLYPHS[VALUE_NAMES.index("E")]
    assert rotate(seg("acdefg")) == GLYPHS[VALUE_NAMES.index("9")]
    for bits in range(128):
        assert rotate(rotate(bits)) == bits
        assert bin(rotate(bits)).count("1") == bin(bits).count("1")
    assert len(set(GLYPHS)) == len(GLYPHS)
    # both ways up cost the same (a cost is a difference of segment counts)
    for f in range(NUM_FACES):
        for v in range(len(VALUE_NAMES)):
            up, down = shows(f, v, False), shows(f, v, True)
            if up >= 0 and down >= 0:
                assert up == down


def test_every_card_shows_its_own_value_and_eight():
    for f in range(NUM_FACES):
        assert cost(f, VALUE_NAMES.index(FACE_NAMES[f][0])) == 0
        assert COST[f][8] >= 0


# ---- deck and deal -------------------------------------------------------------------------------


def test_deck():
    assert deck_copies(0) == (4,) * 14 + (0, 0)
    assert sum(deck_copies(0)) == 56
    assert sum(deck_copies(2)) == 60 and sum(deck_copies(4)) == 64
    assert FACE_NAMES[:14] == ("0", "1", "2", "3/E", "4", "5", "6/9", "7", "8", "A", "b", "C", "d", "F")


@pytest.mark.parametrize(
    ("n", "deal", "sizes"),
    [
        (2, "standard", [15, 15]),
        (3, "standard", [15, 15, 15]),
        (2, "all", [28, 28]),
        (3, "all", [19, 19, 18]),
        (4, "standard", [14] * 4),
        (5, "standard", [12, 11, 11, 11, 11]),
        (6, "standard", [10, 10, 9, 9, 9, 9]),
        (7, "standard", [8] * 7),
        (8, "all", [7] * 8),
    ],
)
def test_deal_sizes(n, deal, sizes):
    g = game(n, deal=deal)
    state = g.new_initial_state()
    deal_randomly(state, np.random.default_rng(0))
    assert state.hand_sizes == sizes
    assert state.sticks == [1] * n
    assert sum(sum(h) for h in state.hands) == sum(sizes)


def test_deal_is_card_by_card_with_exact_probabilities():
    g = game(4)
    state = g.new_initial_state()
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(s, 0.25) for s in range(4)]  # random first player
    state.apply_action(2)
    outcomes = dict(state.chance_outcomes())
    assert outcomes == {f: 4 / 56 for f in range(14)}
    state.apply_action(face_index("8"))
    assert dict(state.chance_outcomes())[face_index("8")] == pytest.approx(3 / 55)
    assert state.hands[0][face_index("8")] == 1  # first card to seat 0
    state.apply_action(face_index("8"))
    assert state.hands[1][face_index("8")] == 1  # second card to seat 1
    with pytest.raises(IllegalActionError):
        state.apply_action(face_index("G"))  # no expansion card in this deck


def test_first_player_starts_after_the_deal():
    g = game(2)
    cards = [f for f in range(14) for _ in range(4)][:30]
    state = deal_state(g, 1, cards)
    assert state.current_player() == 1
    assert state.hand_sizes == [15, 15]
    # 26 cards were never dealt: nobody sees them
    assert sum(state.unseen_cards(0)) == 56 - 15


def test_expansion_deck_is_dealt():
    g = game(4, expansion_copies=2)
    state = g.new_initial_state()
    deal_randomly(state, np.random.default_rng(1))
    assert sum(state.hand_sizes) == 60
    assert sum(h[face_index("G")] for h in state.hands) == 2
    assert sum(h[face_index("H")] for h in state.hands) == 2


# ---- leading and following -----------------------------------------------------------------------


def test_lead_one_to_five_cards_of_one_value():
    g = game(4)
    state = position(g, ["8 8 8 8 0 2", "1", "1", "1"], sticks=[0, 1, 1, 1])
    names = plays(state)
    assert "play 1x8" in names and "play 4x8" in names
    assert "play 5x8" not in names  # the 0 needs a matchstick to be an 8, none held
    assert "play 1x0" in names and "play 1x2" in names and "play 2x2" not in names
    assert PASS not in state.legal_actions()  # no passing on an empty table
    state2 = position(g, ["8 8 8 8 0 2", "1", "1", "1"], sticks=[1, 1, 1, 1])
    assert "play 5x8" in plays(state2)
    assert "play 2x8" in plays(state2)


def test_lead_with_matchsticks_lists_every_value_reachable():
    g = game(4)
    state = position(g, ["1", "2", "2", "2"], sticks=[5, 1, 1, 1])
    assert plays(state) == {f"play 1x{v}" for v in "17430d9A8CFbE6"}
    state = position(g, ["1", "2", "2", "2"], sticks=[2, 1, 1, 1])
    assert plays(state) == {f"play 1x{v}" for v in "174CF"}


def test_follow_same_count_stronger_value():
    g = game(3, deal="all")
    table = {"value": "9", "faces": ["6/9", "6/9"], "player": 2}
    state = position(g, ["A A b 5 5 2", "1", "1"], to_move=0, sticks=[0, 1, 1], table=table)
    assert plays(state) == {"play 2xA"}  # 5s cannot beat 9; b+b would need 2 b cards
    assert PASS in state.legal_actions()
    state = position(g, ["A A b b 5 5 2", "1", "1"], to_move=0, sticks=[0, 1, 1], table=table)
    assert plays(state) == {"play 2xA", "play 2xb"}


def test_play_is_laid_card_by_card_with_exact_masks():
    g = game(3, deal="all")
    table = {"value": "8", "faces": ["8", "8"], "player": 2}
    state = position(g, ["6/9 3/E 1", "1", "1"], to_move=0, sticks=[1, 1, 1], table=table)
    assert "play 2x9" in plays(state)
    do(state, "play 2x9")
    assert state.current_player() == 0
    # 1 as 9 costs 4: not affordable; 6/9 (0) and 3/E (+1) are
    assert legal_names(state) == {"card 6/9 as 9", "card 3/E as 9 +1"}
    do(state, "card 3/E as 9 +1")
    # the last stick is committed: the 6/9 turned round is the only way to finish
    assert legal_names(state) == {"card 6/9 as 9"}
    do(state, "card 6/9 as 9")
    assert state.table_value == VALUE_NAMES.index("9") and state.table_count == 2
    assert state.sticks[0] == 0 and state.current_player() == 1


def test_mask_refuses_a_first_card_that_leaves_the_play_unfinishable():
    g = game(3, deal="all")
    # 2 x 8 with one stick: 0 (+1) and 8 (0) work; 0 and 6/9 (+1, +1) do not
    state = position(g, ["0 6/9 8", "1", "1"], to_move=0, sticks=[1, 1, 1])
    do(state, "play 2x8")
    assert legal_names(state) == {"card 0 as 8 +1", "card 6/9 as 8 +1", "card 8 as 8"}
    do(state, "card 0 as 8 +1")
    assert legal_names(state) == {"card 8 as 8"}


def test_pure_cost_helpers():
    hand = [0] * NUM_FACES
    hand[face_index("1")] = 2
    hand[face_index("7")] = 1
    assert min_costs(hand, VALUE_NAMES.index("0")) == [3, 7, 11]  # 7 as 0 (3), then 1s (4 each)
    assert can_show(hand, VALUE_NAMES.index("0"), 2, 7)
    assert not can_show(hand, VALUE_NAMES.index("0"), 2, 6)
    assert not can_show(hand, VALUE_NAMES.index("0"), 4, 99)
    assert stronger(5, 3, False) and not stronger(5, 3, True) and stronger(0, 15, True)


# ---- worked examples -----------------------------------------------------------------------------


def test_example_1_two_nines_beat_two_eights():
    g = game(2, deal="all")
    table = {"value": "8", "faces": ["8", "8"], "player": 1}
    state = position(g, ["6/9 3/E 2", "1 2"], to_move=0, sticks=[1, 1], table=table)
    do(state, "play 2x9", "card 6/9 as 9", "card 3/E as 9 +1")
    assert state.sticks[0] == 0
    assert state.table_value == 9 and state.table_count == 2 and state.last_player == 0
    assert not state.reversed


def test_example_2_revolution_and_counter_revolution():
    g = game(2, deal="all")
    # seat 0 leads four 8s and a 0 with a stick on g; seat 1 answers with three 0s and two Cs (2 sticks each)
    state = position(g, ["8 8 8 8 0 2", "0 0 0 C C 5 5 5 5 1"], to_move=0, sticks=[1, 4])
    do(state, "play 5x8", "card 8 as 8", "card 8 as 8", "card 8 as 8", "card 8 as 8", "card 0 as 8 +1")
    assert state.reversed and state.revolutions == 1
    assert state.sticks[0] == 0
    # seat 1 must play five cards of a value in {7, ..., 0}; five 5s are impossible (four 5s, no other card makes 5)
    names = plays(state)
    assert names == {"play 5x0"}
    assert all(COST[f][5] < 0 for f in range(NUM_FACES) if FACE_NAMES[f] != "5")
    do(state, "play 5x0", "card 0 as 0", "card 0 as 0", "card 0 as 0", "card C as 0 +2", "card C as 0 +2")
    assert not state.reversed and state.revolutions == 2
    assert state.sticks[1] == 0
    assert state.table_value == 0 and state.table_count == 5


def test_example_2_reversed_order_limits_the_follow():
    g = game(2, deal="all")
    table = {"value": "8", "faces": ["8", "8", "8", "8", "0"], "player": 0}
    state = position(g, ["2", "A A A A d d d d"], to_move=1, sticks=[0, 9], table=table, reversed=True, revolutions=1)
    # nothing above 8 beats 8 after a revolution: seat 1 can only pass
    assert legal_names(state) == {"pass"}


def test_example_3_three_passes_then_two_discards():
    g = game(3, deal="all")
    # A = seat 0 (2 sticks), B = seat 1, C = seat 2
    state = position(g, ["2 5 8", "0 0", "3/E 6/9 1"], to_move=0, sticks=[2, 1, 0])
    do(state, "play 1x2", "card 2 as 2")  # A
    do(state, "pass")  # B, 1st pass
    do(state, "play 1x3", "card 3/E as 3")  # C
    do(state, "play 1x5", "card 5 as 5")  # A
    do(state, "pass")  # B, 2nd pass
    do(state, "play 1x6", "card 6/9 as 6")  # C
    do(state, "play 1x8", "card 8 as 8")  # A plays his last card, no stick used
    do(state, "pass")  # B, 3rd pass in the trick
    assert state.sticks[1] == 4
    assert state.hand_sizes[0] == 0 and state.sticks[0] == 2 and state.in_game[0]
    do(state, "pass")  # C: the trick is cleared, A's 8 stood
    assert state.table_count == 0 and state.current_player() == 0
    assert legal_names(state) == {"discard a matchstick"}
    do(state, "discard a matchstick")  # A's next turn
    assert state.sticks[0] == 1 and state.in_game[0]
    do(state, "play 1x0", "card 0 as 0")  # B leads
    do(state, "pass")  # C
    assert legal_names(state) == {"discard a matchstick"}
    do(state, "discard a matchstick")  # A's second discard: out
    assert not state.in_game[0] and state.place[0] == 0 and state.out_order == [0]
    assert state.table_count == 0 and state.current_player() == 1  # and it counted as a pass: B leads


def test_example_4_two_passes_clear_the_table():
    g = game(3, deal="all")
    state = position(g, ["4 5 5", "1 2", "1 2"], to_move=0, sticks=[1, 1, 1])
    do(state, "play 1x4", "card 4 as 4")
    do(state, "pass")
    assert state.sticks[1] == 2 and state.table_count == 1
    do(state, "pass")
    assert state.sticks[2] == 2
    assert state.table_count == 0 and state.current_player() == 0  # A leads again
    assert PASS not in state.legal_actions()


# ---- turns, clearing, going out --------------------------------------------------------------------


def test_a_passer_may_play_again_in_the_same_trick():
    g = game(3, deal="all")
    state = position(g, ["2 5", "3/E 8", "4 A"], to_move=0, sticks=[0, 0, 0])
    do(state, "play 1x2", "card 2 as 2")
    do(state, "pass")  # seat 1
    do(state, "play 1x4", "card 4 as 4")  # seat 2
    assert state.passed == [False, False, False]  # a play resets the passes
    do(state, "play 1x5", "card 5 as 5")  # seat 0
    do(state, "play 1x8", "card 8 as 8")  # seat 1 passed before, plays now


def test_leader_went_out_next_in_game_leads():
    g = game(3, deal="all")
    state = position(g, ["2", "3/E 8", "4 A"], to_move=0, sticks=[0, 0, 0])
    do(state, "play 1x2", "card 2 as 2")
    assert not state.in_game[0] and state.out_order == [0]  # no cards, no sticks: out at once
    assert state.current_player() == 1
    do(state, "pass", "pass")
    assert state.table_count == 0
    assert state.current_player() == 1  # next in game clockwise from seat 0


def test_out_of_cards_player_discards_and_it_counts_as_a_pass():
    g = game(3, deal="all")
    state = position(g, ["2", "3/E 8", "4 A"], to_move=0, sticks=[1, 0, 0])
    do(state, "play 1x2", "card 2 as 2")
    assert state.in_game[0] and state.sticks[0] == 1
    do(state, "play 1x8", "card 8 as 8")  # seat 1
    do(state, "pass")  # seat 2 (+1 stick)
    assert state.legal_actions() == [DISCARD]
    do(state, "discard a matchstick")  # seat 0: counts as a pass, and it is out
    assert not state.in_game[0] and state.place[0] == 0
    assert state.table_count == 0 and state.current_player() == 1  # seat 1's 8 stood: it leads


def test_discard_without_going_out_counts_as_pass_for_clearing():
    g = game(3, deal="all")
    state = position(g, ["2", "3/E 8", "4 A"], to_move=0, sticks=[2, 0, 0])
    do(state, "play 1x2", "card 2 as 2")
    do(state, "play 1x8", "card 8 as 8")  # seat 1
    do(state, "pass")  # seat 2
    do(state, "discard a matchstick")  # seat 0
    assert state.in_game[0] and state.sticks[0] == 1 and state.sticks[2] == 1
    assert state.table_count == 0 and state.current_player() == 1


def test_game_ends_with_one_player_left_and_ranks_by_going_out():
    g = game(3, deal="all")
    state = position(g, ["2", "3/E", "4 A"], to_move=0, sticks=[0, 0, 0])
    do(state, "play 1x2", "card 2 as 2")  # seat 0 out first
    do(state, "play 1x3", "card 3/E as 3")  # seat 1 out second: seat 2 is left
    assert state.current_player() == TERMINAL
    assert state.out_order == [0, 1, 2]
    assert state.returns().tolist() == [1.0, 0.0, -1.0]
    assert "Game over" in state.to_text()


def test_returns_zero_before_the_end():
    state = position(game(4), ["2", "3/E", "4", "A"])
    assert not state.returns().any() and not state.scores().any()


def test_spending_sticks_to_go_out_at_once():
    g = game(2, deal="all")
    state = position(g, ["0", "5 5"], to_move=0, sticks=[1, 0])
    assert plays(state) == {"play 1x0", "play 1x8"}
    do(state, "play 1x8", "card 0 as 8 +1")
    assert state.is_terminal() and state.returns().tolist() == [1.0, -1.0]


def test_g_and_h_are_values_only_with_the_expansion():
    base = position(game(2, deal="all"), ["4", "5"], sticks=[1, 0])
    assert plays(base) == {"play 1x4", "play 1xb"}
    exp = position(game(2, deal="all", expansion_copies=2), ["4", "5"], sticks=[1, 0])
    assert plays(exp) == {"play 1x4", "play 1xb", "play 1xH"}
    # G and H are the strongest values in the normal order: H beats F and G
    table = {"value": "F", "faces": ["F"], "player": 1}
    exp = position(game(2, deal="all", expansion_copies=2), ["4 C", "5"], to_move=0, sticks=[1, 0], table=table)
    assert plays(exp) == {"play 1xH", "play 1xG"}


def test_expansion_copies_options():
    for copies in (0, 2, 4):
        g = game(4, expansion_copies=copies)
        assert sum(g.deck) == 56 + 2 * copies and g.cards_dealt == 56 + 2 * copies
    with pytest.raises(ValueError, match="expansion_copies"):
        game(4, expansion_copies=3)
    with pytest.raises(ValueError, match="deal"):
        game(4, deal="some")


# ---- actions -------------------------------------------------------------------------------------


def test_action_encoding():
    assert NUM_ACTIONS == 108
    assert decode(PASS) == ("pass", 0, 0) and decode(DISCARD) == ("discard", 0, 0)
    assert decode(play_action(3, 9)) == ("play", 3, 9)
    assert decode(pick_action(13)) == ("pick", 0, 13)
    with pytest.raises(ValueError):
        decode(NUM_ACTIONS)
    with pytest.raises(ValueError):
        play_action(6, 0)


def test_illegal_actions_are_refused():
    state = position(game(4), ["2 2", "3/E", "4", "A"], sticks=[0, 1, 1, 1])
    with pytest.raises(IllegalActionError):
        state.apply_action(PASS)
    with pytest.raises(IllegalActionError):
        state.apply_action(play_action(3, 2))
    with pytest.raises(IllegalActionError):
        state.apply_action(pick_action(2))  # no play announced yet


# ---- position builder ----------------------------------------------------------------------------


def fingerprint(state: MatchstickState) -> tuple:
    n = state.game.num_players
    return (
        state.current_player(),
        state.to_text(),
        tuple(state.seat_text(s) for s in range(n)),
        tuple(state.observation(s).tobytes() for s in range(n)),
        state.legal_action_mask().tobytes(),
        state.returns().tobytes(),
        state.scores().tobytes(),
    )


@pytest.mark.parametrize(("n", "options"), [(2, {}), (3, {"deal": "all"}), (4, {}), (8, {"expansion_copies": 4})])
def test_position_round_trip_along_random_games(n, options):
    g = game(n, **options)
    rng = np.random.default_rng(n)
    for _ in range(3 if n < 8 else 1):
        state = g.new_initial_state()
        deal_randomly(state, rng)
        while True:
            pos = state.position()
            rebuilt = g.state_from_position(pos)
            assert fingerprint(rebuilt) == fingerprint(state)
            assert rebuilt.position() == pos
            if state.is_terminal():
                break
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
            state.apply_action(action)
            rebuilt.apply_action(action)
            assert fingerprint(rebuilt) == fingerprint(state)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hands": [["8"], ["Z"], [], []]}, "unknown card"),
        ({"hands": [["8"]]}, "4 hands"),
        ({"matchsticks": [1, -1, 1, 1]}, "non-negative"),
        ({"to_move": 7}, "seat"),
        ({"played": {"8": 1}, "played_by": None}, "deck has 4"),
        ({"played_by": [{"8": 1}, {}, {}, {}]}, "add up"),
        ({"table": {"value": "3", "faces": ["8"], "player": 1}}, "cannot show"),
        ({"table": {"value": "G", "faces": ["8"], "player": 1}}, "expansion"),
        ({"passed": [2]}, "only while cards are on the table"),
        ({"finished": [1]}, "still holds"),
        ({"pending": {"value": "9", "count": 2, "picked": ["2"]}}, "cannot show"),
        ({"reversed": True, "revolutions": 2}, "does not agree"),
        ({"bogus": 1}, "unknown position key"),
    ],
)
def test_position_builder_rejects_bad_positions(change, message):
    g = game(4)
    state = g.new_initial_state()
    deal_randomly(state, np.random.default_rng(0))
    pos = state.position()
    pos.update(change)
    with pytest.raises(ValueError, match=message):
        g.state_from_position(pos)


def test_position_builder_rejects_missing_cards():
    g = game(4)
    state = g.new_initial_state()
    deal_randomly(state, np.random.default_rng(0))
    pos = state.position()
    pos["hands"][0] = pos["hands"][0][1:]
    with pytest.raises(ValueError, match="56 are dealt"):
        g.state_from_position(pos)


def test_position_builder_rejects_a_table_everyone_passed_on():
    g = game(3, deal="all")
    table = {"value": "8", "faces": ["8"], "player": 0}
    with pytest.raises(ValueError, match="cleared"):
        position(g, ["2", "3/E", "4"], to_move=0, table=table, passed=[1, 2])


def test_position_builder_rejects_unfinishable_pending_play():
    g = game(2, deal="all")
    with pytest.raises(ValueError, match=r"matchsticks|no legal action"):
        position(g, ["1 1", "2"], to_move=0, sticks=[0, 1], pending={"value": "7", "count": 2, "picked": []})


def walk(g: MatchstickGame, seed: int, pass_rate: float = 0.0):
    """Every node of a random game, in order: the chance nodes of the deal, every decision (also in the middle of
    a play being laid) and the end. Yields ``(state, movers)`` where ``movers`` lists who made each entry of
    ``history`` (a seat or ``CHANCE``); the state is played on afterwards (clone it to keep it). With ``pass_rate``,
    a pass is chosen that often whenever it is legal."""
    rng = np.random.default_rng(seed)
    state = g.new_initial_state()
    movers: list[int] = []
    while True:
        yield state, movers
        if state.is_terminal():
            return
        if state.is_chance_node():
            movers.append(CHANCE)
            state.apply_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        take_pass = PASS in legal and rng.random() < pass_rate
        movers.append(state.current_player())
        state.apply_action(PASS if take_pass else legal[rng.integers(len(legal))])


def same_position(a: MatchstickState, b: MatchstickState) -> None:
    """What ``testing.check_positions`` compares, plus the hands and the chance outcomes."""
    n = a.game.num_players
    assert a.current_player() == b.current_player()
    assert a.legal_action_mask().tobytes() == b.legal_action_mask().tobytes()
    assert a.returns().tobytes() == b.returns().tobytes() and a.scores().tobytes() == b.scores().tobytes()
    assert a.to_text() == b.to_text()
    assert [a.observation(s).tobytes() for s in range(n)] == [b.observation(s).tobytes() for s in range(n)]
    assert a.hands == b.hands
    assert a.chance_outcomes() == b.chance_outcomes()


@pytest.mark.parametrize(("n", "seed"), [(2, 1), (2, 2), (3, 1), (3, 2), (8, 1)])
def test_position_round_trip_at_every_node(n, seed):
    g = game(n)
    nodes = kinds = 0
    for state, _ in walk(g, seed, pass_rate=0.3):
        pos = state.position()
        rebuilt = g.state_from_position(pos)
        same_position(rebuilt, state)
        assert rebuilt.position() == pos
        nodes += 1
        kinds |= 1 if state.is_chance_node() else 4 if state.is_terminal() else 2
    assert kinds == 7 and nodes > g.cards_dealt


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 5),
    seed=st.integers(0, 10**6),
    sizes=st.lists(st.integers(0, 2), min_size=5, max_size=5),
    sticks=st.lists(st.integers(0, 2), min_size=5, max_size=5),
)
def test_position_round_trip_in_random_endgames(n, seed, sizes, sticks):
    """Small endgames built from positions, played out at random: every node, the end included, exports a
    position its builder rebuilds (endgames often end while the player left has passed)."""
    g = game(n, deal="all")
    rng = np.random.default_rng(seed)
    deck = np.repeat(np.arange(NUM_FACES), g.deck)
    rng.shuffle(deck)
    hands = [[FACE_NAMES[f] for f in deck[2 * s : 2 * s + sizes[s]]] for s in range(n)]
    sticks = [k if sizes[s] or k else 1 for s, k in enumerate(sticks[:n])]
    state = position(g, [" ".join(h) for h in hands], to_move=int(rng.integers(n)), sticks=sticks)
    while True:
        pos = state.position()
        rebuilt = g.state_from_position(pos)
        same_position(rebuilt, state)
        assert rebuilt.position() == pos
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])


def test_position_of_a_game_that_ends_after_the_last_player_passed():
    # seat 0 goes out with its last card, seat 1 passes, seat 2 discards its last matchstick: seat 1 is left
    g = game(3)
    state = position(g, ["2", "1", ""], to_move=0, sticks=[0, 1, 1])
    do(state, "play 1x2", "card 2 as 2", "pass", "discard a matchstick")
    assert state.is_terminal() and state.out_order == [0, 2, 1]
    pos = state.position()
    rebuilt = g.state_from_position(pos)
    same_position(rebuilt, state)
    assert rebuilt.position() == pos
    # the position was built without ``played_by``: who played the earlier cards is unknown, so none is exported
    assert "played_by" not in pos
    with pytest.raises(ValueError, match="add up"):
        g.state_from_position({**pos, "played_by": [{"2": 1}, {}, {}]})
    # a seat that went out before the end still cannot have passed
    with pytest.raises(ValueError, match="cannot have passed"):
        g.state_from_position({**pos, "passed": [2]})


def test_played_by_is_exported_once_known_from_the_deal():
    g = game(2)
    rng = np.random.default_rng(4)
    state = g.new_initial_state()
    random_playout(state, rng, max_decisions=30)
    pos = state.position()
    assert [sum(pb.values()) for pb in pos["played_by"]] == [sum(state.played_by[s]) for s in range(2)]
    assert sum(sum(pb.values()) for pb in pos["played_by"]) == sum(pos["played"].values()) > 0


def test_positions_during_the_deal():
    g = game(3)
    state = g.new_initial_state()
    pos = state.position()
    assert pos["first_player"] is None and pos["dealt"] == 0 and pos["to_move"] is None
    same_position(g.state_from_position(pos), state)
    state.apply_action(2)
    for f in (8, 8, 1, 0):
        state.apply_action(f)
    pos = state.position()
    assert pos["hands"] == [["0", "8"], ["8"], ["1"]] and pos["first_player"] == 2 and pos["dealt"] == 4
    rebuilt = g.state_from_position(pos)
    same_position(rebuilt, state)
    for _ in range(g.cards_dealt - 4):  # the rebuilt deal goes on to the first player's turn
        outcome = rebuilt.chance_outcomes()[0][0]
        rebuilt.apply_action(outcome)
    assert rebuilt.current_player() == 2
    for change, message in [
        ({"hands": [["8"], ["8"], ["1", "0"]]}, "after 4 cards dealt"),
        ({"first_player": None}, "first player is drawn before the deal"),
        ({"to_move": 0}, "to_move must be None"),
        ({"played": {"8": 1}}, "played must be empty"),
        ({"matchsticks": [1, 2, 1]}, "1 matchstick"),
        ({"hands": [["8", "8"], ["8", "8"], ["8"]], "dealt": 5}, "the deck has 4"),
        ({"dealt": 46}, "dealt must be 0..45"),
    ]:
        with pytest.raises(ValueError, match=message):
            g.state_from_position({**pos, **change})


# ---- hidden information --------------------------------------------------------------------------


def test_resample_hidden_keeps_every_public_fact():
    g = game(4)
    rng = np.random.default_rng(3)
    state = g.new_initial_state()
    random_playout(state, rng, max_decisions=40)
    changed = False
    for seat in range(4):
        other = state.resample_hidden(seat, rng)
        assert other.observation(seat).tobytes() == state.observation(seat).tobytes()
        assert other.hands[seat] == state.hands[seat]
        assert other.hand_sizes == state.hand_sizes
        assert other.played == state.played and other.passed == state.passed
        assert other.sticks == state.sticks and other.table_faces == state.table_faces
        assert other.to_text() == state.to_text()
        changed |= other.hands != state.hands
        # the rewritten deal replays to the resampled state
        replay = g.state_from_history(other.history)
        assert replay.hands == other.hands and replay.to_text() == other.to_text()
    assert changed


def check_resample(
    state: MatchstickState, seat: int, rng: np.random.Generator, movers: list[int] | None = None
) -> MatchstickState:
    """The promises of ``resample_hidden(seat, rng)`` at ``state`` (a node reached from the start): the kit's
    redeal checks (``testing.check_redeal``: a new object, the original unchanged, the same player to act and
    length of history, only chance outcomes changed, the history replays to it, its position rebuilds it,
    playable, nothing the seat has seen changed), then Matchstick's own. ``movers``: who made each history
    entry, when known."""
    g = state.game
    before = ([list(h) for h in state.hands], state.chance_outcomes())
    other = testing.check_redeal(state, seat, rng, movers=movers, changeable=())
    # a new object sharing nothing; the original's hands and chance outcomes unchanged
    assert other.hands is not state.hands and other.history is not state.history
    assert (state.hands, state.chance_outcomes()) == before
    # its history replays to it and its position rebuilds it, hands and chance outcomes included
    same_position(g.state_from_history(other.history), other)
    same_position(g.state_from_position(other.position()), other)
    # playable: the last chance outcome too
    if other.is_chance_node():
        copy = other.clone()
        copy.apply_action(other.chance_outcomes()[-1][0])
    # what every seat can count: the table, the hand sizes, its own hand
    assert other.to_text() == state.to_text() and other.hand_sizes == state.hand_sizes
    assert other.hands[seat] == state.hands[seat]
    return other


@pytest.mark.parametrize(("n", "seed"), [(2, 1), (2, 2), (3, 1), (3, 2), (8, 1)])
def test_resample_hidden_keeps_its_promises_at_every_node(n, seed):
    """At every node of a random game (the deal, decisions, the middle of a play, the end): one seat in turn
    resamples, and at a play being laid also a seat that is not laying it."""
    g = game(n)
    rng = np.random.default_rng([seed, 99])
    kinds: set[str] = set()
    redealt = hidden = 0
    for k, (state, movers) in enumerate(walk(g, seed)):
        seats = {k % n}
        if state.pending_count:
            others = [s for s in range(n) if s != state.turn]
            seats.add(others[k % len(others)])
            kinds.add("laying")
        kinds.add("chance" if state.is_chance_node() else "end" if state.is_terminal() else "decision")
        for seat in seats:
            other = check_resample(state, seat, rng, movers)
            # 6. a real redeal, also during the deal: the cards of the other seats are hidden from this one
            if state.is_chance_node() and sum(state.hand_sizes) - state.hand_sizes[seat] >= 3:
                hidden += 1
                redealt += other.hands != state.hands
    assert kinds == {"chance", "decision", "laying", "end"}
    assert hidden > 0 and redealt > 0.9 * hidden


def test_resample_while_another_seat_lays_a_play_leaves_it_a_legal_move():
    # seat 0 announced two 8s and laid one; it holds one more 8 and no matchstick, so only an 8 completes the play
    g = game(2)
    state = position(g, ["8 8 2", "0 1 4"], to_move=0, sticks=[0, 1])
    state.apply_action(play_action(2, VALUE_NAMES.index("8")))
    state.apply_action(pick_action(FACE_NAMES.index("8")))
    assert state.legal_actions() == [pick_action(FACE_NAMES.index("8"))]
    rng = np.random.default_rng(0)
    for _ in range(50):
        other = state.resample_hidden(1, rng)
        assert other.legal_action_mask().any()
        assert other.hands[0][FACE_NAMES.index("8")] >= 1
        assert other.hands[1] == state.hands[1] and other.hand_sizes == state.hand_sizes


def test_resample_while_a_play_is_laid_is_uniform_over_the_hands_that_complete_it():
    """Exact check against enumeration: every hand of the laying seat drawn from the unseen cards that can
    finish the play, each set of cards equally likely."""
    g = game(3)
    # seat 0 announced three 9s and laid a 6/9 (0 sticks); it has 2 matchsticks left for two more cards
    state = position(g, ["6/9 5 3/E b 2", "0 1", "7 7"], to_move=0, sticks=[2, 1, 1])
    do(state, "play 3x9", "card 6/9 as 9")
    value, left, budget = VALUE_NAMES.index("9"), 2, 2
    unseen = state.unseen_cards(1)
    cards = [f for f in range(NUM_FACES) for _ in range(unseen[f])]
    size = state.hand_sizes[0]
    exact = np.zeros(NUM_FACES)
    count = 0
    for combo in itertools.combinations(range(len(cards)), size):
        hand = [0] * NUM_FACES
        for i in combo:
            hand[cards[i]] += 1
        if can_show(hand, value, left, budget):
            exact += hand
            count += 1
    exact /= count
    rng = np.random.default_rng(5)
    draws = 3000
    seen = np.zeros(NUM_FACES)
    for _ in range(draws):
        other = state.resample_hidden(1, rng)
        assert can_show(other.hands[0], value, left, budget)
        seen += other.hands[0]
    seen /= draws
    # mean count of each face in the laying hand, within 5 standard errors (a card count is at most 4)
    assert np.all(np.abs(seen - exact) <= 5 * 2 / np.sqrt(draws) + 1e-9), (seen.round(3), exact.round(3))
    # the rejection of hands that cannot finish matters: without it the means differ clearly
    plain = np.array([size * unseen[f] / len(cards) for f in range(NUM_FACES)])
    assert np.abs(plain - exact).max() > 0.3


def test_resample_during_the_deal_redeals_the_other_seats_cards():
    g = game(2)
    state = g.new_initial_state()
    rng = np.random.default_rng(1)
    state.apply_action(0)
    for _ in range(20):
        state.apply_action(state.sample_chance(rng))
    assert state.is_chance_node() and state.hand_sizes == [10, 10]
    unseen = np.array([g.deck[f] - state.hands[0][f] for f in range(NUM_FACES)])
    draws = 2000
    mean = np.zeros(NUM_FACES)
    copies = 0
    for k in range(draws):
        other = check_resample(state, 0, rng) if k < 100 else state.resample_hidden(0, rng)
        copies += other.hands == state.hands
        mean += other.hands[1]
        # the deck left to deal is what neither hand holds
        assert [f for f, _ in other.chance_outcomes()] == [f for f in range(NUM_FACES) if unseen[f] - other.hands[1][f]]
    assert copies < draws * 0.01
    # seat 1's ten cards are a uniform draw from the 46 cards seat 0 cannot see
    assert np.all(np.abs(mean / draws - 10 * unseen / unseen.sum()) <= 5 * 2 / np.sqrt(draws))


def test_resampled_history_replays_to_the_resampled_state():
    g = game(4)
    rng = np.random.default_rng(2)
    deal = g.new_initial_state()
    deal.apply_action(1)
    for _ in range(30):
        deal.apply_action(deal.sample_chance(rng))
    play = deal.clone()
    random_playout(play, rng, max_decisions=25)
    for state in (deal, play):
        for seat in range(4):
            other = state.resample_hidden(seat, rng)
            assert other.hands != state.hands
            replay = g.state_from_history(other.history)
            assert replay.hands == other.hands
            assert testing.fingerprint(replay) == testing.fingerprint(other)
            assert testing.fingerprint(replay) != testing.fingerprint(state)


def test_observation_shows_only_own_hand():
    g = game(4)
    state = g.new_initial_state()
    random_playout(state, np.random.default_rng(5), max_decisions=3)
    for seat in range(4):
        hand = LAYOUT.view(state.observation(seat), "hand")
        assert np.allclose(hand * 4, state.hands[seat])
    assert "hand:" not in state.to_text()
    assert "hand:" in state.seat_text(0)


def test_observation_layout_and_padding():
    for n in (2, 3, 8):
        g = game(n)
        assert g.info.observation_shape == (SIZE,)
        state = g.new_initial_state()
        random_playout(state, np.random.default_rng(0), max_decisions=5)
        obs = state.observation(1)
        assert LAYOUT.view(obs, "present").tolist() == [1.0] * n + [0.0] * (8 - n)
        cur = LAYOUT.view(obs, "current")
        assert cur[(state.current_player() - 1) % n] == 1.0 and cur.sum() == 1.0
        assert obs.min() >= 0.0 and obs.max() <= 1.0


def test_card_lists_the_observation_table():
    import gameshelf.envs.matchstick_tycoon as pkg

    assert LAYOUT.table() in (pkg.__doc__ or "")
    assert "{observation_table}" not in (pkg.__doc__ or "")


# ---- whole games ---------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.sampled_from([2, 3, 5, 8]), seed=st.integers(0, 10**6), copies=st.sampled_from([0, 2, 4]))
def test_random_games_keep_the_invariants(n, seed, copies):
    g = game(n, expansion_copies=copies)
    rng = np.random.default_rng(seed)
    state = g.new_initial_state()
    deal_randomly(state, rng)
    decisions = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        decisions += 1
        assert all(k >= 0 for k in state.sticks)
        held = [sum(h[f] for h in state.hands) for f in range(NUM_FACES)]
        picks = state.pick_counts()
        assert all(held[f] + state.played[f] + picks[f] <= g.deck[f] for f in range(NUM_FACES))
        assert sum(held) + sum(state.played) + len(picks and state.picks) == g.cards_dealt
        assert 0 <= state.table_count <= 5
        for s in range(n):
            assert state.in_game[s] == (state.place[s] < 0)
            if state.in_game[s]:
                assert state.hand_sizes[s] or state.sticks[s]
    assert decisions <= g.info.max_game_length
    assert sorted(state.out_order) == list(range(n))
    assert abs(state.returns().sum()) < 1e-9


def test_make_and_text_and_image():
    env = envs.make("matchstick_tycoon-v0", num_players=8, render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
    assert image.shape[0] >= 400 and image.shape[1] >= 600
    text = env.game_state.to_text()
    assert text.count("Seat ") == 8


def test_heuristic_beats_random():
    from gameshelf.envs.matchstick_tycoon.heuristic import MatchstickHeuristic
    from gameshelf.training.agents.base import RandomAgent

    g = game(2)
    rng = np.random.default_rng(0)
    wins = 0
    games = 40
    for i in range(games):
        seats = [MatchstickHeuristic(), RandomAgent()] if i % 2 == 0 else [RandomAgent(), MatchstickHeuristic()]
        h = i % 2
        state = g.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
                continue
            p = state.current_player()
            state.apply_action(seats[p].act(state.resample_hidden(p, rng), p, rng))
        wins += state.returns()[h] > 0
    assert wins >= 30
