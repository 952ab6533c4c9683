"""Olenon: every rule of docs/rules/olenon.md, its worked examples 4.1-4.4, each option both ways,
``resample_hidden`` consistency, observation layout, text, image and the heuristic agent.

Positions are scripted by applying chosen chance outcomes (``game.state_from_deal``), so every state
here replays from its history like any other.
"""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.core.game import CHANCE, TERMINAL, IllegalActionError, random_playout
from gameshelf.envs.olenon.actions import NUM_ACTIONS, PASS, decode, parse, play_action, replace_action
from gameshelf.envs.olenon.cards import BEATERS, DECK, beats
from gameshelf.envs.olenon.game import OlenonGame, OlenonState
from gameshelf.envs.olenon.observation import LAYOUT as OBSERVATION
from gameshelf.envs.olenon.observation import SIZE

# ---- helpers -------------------------------------------------------------------------------------


def game(**options) -> OlenonGame:
    return OlenonGame(**options)


def do(state: OlenonState, *moves: str) -> None:
    """Apply moves by name (each must be legal for the player to act)."""
    for move in moves:
        state.apply_action(state.game.string_to_action(state, move))


def legal_names(state: OlenonState) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def deal(state: OlenonState, hands) -> None:
    """Apply the chance outcomes that deal ``hands`` (the state must be at the start of a deal)."""
    for card in OlenonGame.deal_outcomes(hands):
        state.apply_action(card)


def snapshot(state: OlenonState) -> tuple:
    return (
        state.phase,
        state.round_index,
        tuple(state.wins),
        state.round_first,
        state.out_player,
        tuple(map(tuple, state.hands)),
        tuple(state.hand_sizes),
        state.dealt,
        state.table_value,
        state.table_count,
        tuple(state.passed),
        tuple(state.discards),
        tuple(map(tuple, state.known)),
        state.turn,
        state.last_player,
    )


def random_play(g: OlenonGame, seed: int, games: int = 3):
    """States at every node of random games (chance nodes included)."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = g.new_initial_state()
        while not state.is_terminal():
            yield state
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
        yield state


# Example 4.1 hands: seat 0 leads 1,1; seat 1 replaces with 2,2; seat 2 adds a 2; seat 3 passes; seat 0 adds 2,2.
HANDS_41 = [
    [1, 1, 2, 2, 3, 4, 5],
    [2, 2, 3, 4, 5, 6, 0],
    [2, 3, 4, 5, 6, 0, 0],
    [1, 1, 3, 6, 6, 0, 0],
]
# Example 4.2 hands: seat 0 leads a 6, seat 1 replaces with a 0, seat 2 passes, seat 3 leads a 2, seat 0 passes.
HANDS_42 = [
    [6, 1, 1, 3, 4, 5, 5],
    [0, 0, 2, 3, 4, 6, 1],
    [0, 2, 2, 3, 4, 5, 6],
    [2, 2, 3, 4, 1, 1, 0],
]
# A quick round: the first player (seat f) plays four 3s (Olenon), leads again three 5s and goes out.
GO_OUT = [3, 3, 3, 3, 5, 5, 5]


def quick_hands(first: int) -> list[list[int]]:
    others = [[0, 0, 1, 1, 2, 2, 4], [0, 0, 1, 1, 2, 2, 4], [0, 0, 1, 6, 2, 6, 4]]
    hands = []
    for s in range(4):
        hands.append(GO_OUT if s == first else others.pop())
    return hands


# Seat 3 leads 2,2,2; seat 0 passes; seat 1 adds 2,2 (Olenon), leads 3,3,3,3 (Olenon), then a 5 and goes out.
HANDS_OUT_1 = [
    [0, 0, 0, 1, 1, 4, 4],
    [2, 2, 3, 3, 3, 3, 5],
    [1, 1, 4, 4, 5, 5, 5],
    [2, 2, 2, 0, 0, 0, 1],
]


def seat1_goes_out(g: OlenonGame) -> OlenonState:
    state = g.state_from_deal(HANDS_OUT_1, first_player=3)
    do(state, "play 3x2", "pass (take a 2)", "play 2x2")
    assert state.current_player() == 1 and state.hands[0][2] == 1  # Olenon: seat 0 took its 2 back
    do(state, "play 4x3", "play 1x5")
    return state


# ---- cards and encoding --------------------------------------------------------------------------


def test_deck_has_32_cards_with_the_spec_counts():
    assert DECK == (6, 5, 5, 4, 4, 4, 4) and sum(DECK) == 32


def test_action_table_round_trips():
    assert NUM_ACTIONS == 36
    seen = set()
    for k in range(1, 5):
        for v in range(7):
            a = play_action(k, v)
            assert decode(a) == ("play", k, v)
            seen.add(a)
    for w in range(7):
        assert decode(replace_action(w)) == ("replace", 0, w)
        seen.add(replace_action(w))
    assert decode(PASS) == ("pass", 0, 0)
    seen.add(PASS)
    assert seen == set(range(NUM_ACTIONS))
    with pytest.raises(ValueError):
        decode(NUM_ACTIONS)


def test_zero_beats_only_six_and_is_lowest_otherwise():
    assert beats(0, 6) and not beats(0, 5) and not beats(0, 0)
    assert all(beats(w, 0) for w in range(1, 7))
    assert BEATERS[6] == (0,)
    assert BEATERS[3] == (4, 5, 6)
    assert not beats(3, 3)


def test_parse_move_names():
    assert parse("play 2x5") == ("play", 2, 5)
    assert parse("Play 5") == ("play", 1, 5)
    assert parse("replace with 3x6") == ("replace", 3, 6)
    assert parse("replace with 6") == ("replace", None, 6)
    assert parse("pass") == ("pass", None, None)
    assert parse("pass (take a 4)") == ("pass", None, 4)
    assert parse("fold") is None


# ---- options and info ----------------------------------------------------------------------------


def test_options_and_info():
    g = game()
    assert g.options == {"num_players": 4, "first_player_rule": "rotate", "open_team_info": False}
    assert g.info.num_players == 4 and g.info.num_actions == 36
    assert g.info.observation_shape == (SIZE,) == (120,)
    assert g.info.has_chance and g.info.has_hidden_info
    assert not game(open_team_info=True).info.has_hidden_info
    for bad in ({"num_players": 2}, {"first_player_rule": "left"}, {"open_team_info": 1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            game(**bad)
    for rule in ("rotate", "winner", "loser_team", "random"):
        assert game(first_player_rule=rule).first_player_rule == rule


# ---- chance: first player and the deal -----------------------------------------------------------


def test_first_player_of_round_one_is_a_uniform_chance_node():
    state = game().new_initial_state()
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(s, 0.25) for s in range(4)]
    assert state.action_to_string(2) == "first player: seat 2"
    state.apply_action(2)
    assert state.round_first == 2


def test_deal_is_card_by_card_weighted_by_remaining_copies():
    state = game().new_initial_state()
    state.apply_action(0)
    outcomes = dict(state.chance_outcomes())
    assert outcomes == {v: DECK[v] / 32 for v in range(7)}
    assert state.action_to_string(0) == "deal a 0 to seat 0"
    for _ in range(6):
        state.apply_action(0)  # every 0 dealt
    outcomes = dict(state.chance_outcomes())
    assert 0 not in outcomes and abs(sum(outcomes.values()) - 1) < 1e-12
    assert outcomes[1] == pytest.approx(5 / 26)
    with pytest.raises(IllegalActionError):
        state.apply_action(0)
    assert state.hand_sizes == [2, 2, 1, 1]  # clockwise from seat 0


def test_a_deal_gives_seven_cards_each_and_sets_four_aside():
    rng = np.random.default_rng(0)
    state = game().new_initial_state()
    chance_nodes = 0
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
        chance_nodes += 1
    assert chance_nodes == 1 + 28
    assert state.hand_sizes == [7, 7, 7, 7]
    assert sum(state.unseen_cards(0)) == 21 + 4  # three other hands + the set-aside cards
    assert state.current_player() == state.round_first


def test_deal_outcomes_rebuild_the_chosen_hands_and_validate():
    state = game().state_from_deal(HANDS_41, first_player=1)
    for s in range(4):
        assert state.hands[s] == [HANDS_41[s].count(v) for v in range(7)]
    assert state.current_player() == 1
    with pytest.raises(ValueError, match="7"):
        OlenonGame.deal_outcomes([[1, 2]] * 4)
    with pytest.raises(ValueError, match="deck has 4"):
        OlenonGame.deal_outcomes([[6, 6, 6, 0, 0, 0, 1], [6, 6, 1, 1, 1, 1, 0], [2] * 5 + [3, 3], [3, 3, 4, 4, 4, 4, 0]])


# ---- the turn: play, add, replace, pass ----------------------------------------------------------


def test_lead_on_an_empty_table_any_one_value_up_to_four_cards():
    state = game().state_from_deal(HANDS_41, 0)  # seat 0: 1 1 2 2 3 4 5
    assert legal_names(state) == {"play 1x1", "play 2x1", "play 1x2", "play 2x2", "play 1x3", "play 1x4", "play 1x5"}
    # a lead of four equal cards is an immediate Olenon and the same player leads again
    state = game().state_from_deal(quick_hands(0), 0)
    assert "play 4x3" in legal_names(state)
    do(state, "play 4x3")
    assert state.current_player() == 0 and state.table_count == 0 and state.discards[3] == 4


def test_add_same_value_up_to_four_cards_replace_higher_or_pass():
    state = game().state_from_deal(HANDS_41, 0)
    do(state, "play 1x1")  # table: one 1; seat 1 holds 2 2 3 4 5 6 0 (no 1)
    assert state.current_player() == 1
    assert legal_names(state) == {
        "replace with 1x2",
        "replace with 1x3",
        "replace with 1x4",
        "replace with 1x5",
        "replace with 1x6",
        "pass (take a 1)",
    }
    do(state, "replace with 1x4")
    assert state.table_value == 4 and state.table_count == 1 and state.discards[1] == 1
    assert state.last_player == 1 and state.current_player() == 2


def test_example_4_3_illegal_moves():
    # table 4,4,4: replace needs exactly three cards of 5 or 6 (not 0); two more 4s would make 5 cards
    hands = [[4, 4, 4, 1, 1, 1, 2], [4, 5, 5, 5, 6, 6, 6], [0, 0, 0, 3, 3, 3, 2], [1, 1, 2, 2, 0, 0, 0]]
    state = game().state_from_deal(hands, 0)
    do(state, "play 3x4")
    assert state.table_count == 3 and state.table_value == 4
    assert legal_names(state) == {"play 1x4", "replace with 3x5", "replace with 3x6", "pass (take a 4)"}
    mask = state.legal_action_mask()
    assert not mask[play_action(2, 4)] and not mask[replace_action(0)]
    with pytest.raises(IllegalActionError):
        state.apply_action(play_action(2, 4))
    do(state, "pass (take a 4)")  # table 4,4
    # seat 2 holds three 0s and three 3s: neither beats 4 (0 beats only 6), so only pass is left
    assert state.current_player() == 2
    assert legal_names(state) == {"pass (take a 4)"}
    # table 6: a single 0 may replace it
    state = game().state_from_deal(HANDS_42, 0)
    do(state, "play 1x6")
    assert "replace with 1x0" in legal_names(state)
    do(state, "replace with 1x0")
    assert state.table_value == 0 and state.discards[6] == 1


def test_zero_cannot_replace_a_five_but_anything_higher_replaces_zeros():
    hands = [[5, 0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 2, 2, 3], [0, 0, 3, 3, 4, 4, 5], [1, 2, 3, 4, 5, 6, 6]]
    state = game().state_from_deal(hands, 0)
    do(state, "play 1x5")
    assert "replace with 1x0" not in legal_names(state)
    state = game().state_from_deal(hands, 1)
    do(state, "play 2x0")  # seat 1 leads two 0s
    names = legal_names(state)  # seat 2: 0 0 3 3 4 4 5
    assert names == {"play 1x0", "play 2x0", "replace with 2x3", "replace with 2x4", "pass (take a 0)"}


def test_pass_that_empties_the_table_forces_the_next_player_to_lead():
    state = game().state_from_deal(HANDS_42, 0)
    do(state, "play 1x6", "replace with 1x0", "pass (take a 0)")
    assert state.table_count == 0 and state.passed[2] == 0
    assert state.current_player() == 3
    assert PASS not in state.legal_actions()
    assert all(decode(a)[0] == "play" for a in state.legal_actions())


def test_passed_player_is_skipped_until_the_trick_ends():
    state = game().state_from_deal(HANDS_41, 0)
    do(state, "play 1x1", "pass (take a 1)")  # seat 1 passes, table empty
    assert state.current_player() == 2
    do(state, "play 1x3", "play 1x3")  # seats 2 and 3 lead/add
    assert state.current_player() == 0
    do(state, "play 1x3")  # seat 0 adds; seat 1 is passed, so seat 2 is next
    assert state.current_player() == 2


def test_always_a_legal_action_and_masks_match_the_rules():
    for state in random_play(game(), seed=5, games=5):
        if state.current_player() < 0:
            assert not state.legal_action_mask().any()
            continue
        seat = state.current_player()
        mask = state.legal_action_mask()
        assert mask.any()
        assert state.passed[seat] < 0 and state.hand_sizes[seat] > 0
        assert 0 <= state.table_count <= 3
        assert sum(p >= 0 for p in state.passed[0::2]) < 2 and sum(p >= 0 for p in state.passed[1::2]) < 2
        hand = state.hands[seat]
        n, v = state.table_count, state.table_value
        for a in range(NUM_ACTIONS):
            kind, k, w = decode(a)
            if kind == "play":
                ok = hand[w] >= k and (n + k <= 4 if n else True) and (w == v if n else True)
            elif kind == "replace":
                ok = n > 0 and beats(w, v) and hand[w] >= n
            else:
                ok = n > 0
            assert mask[a] == ok, (state.to_text(), a)


# ---- trick ends: the worked examples -------------------------------------------------------------


def test_example_4_1_olenon():
    state = game().state_from_deal(HANDS_41, 0)
    do(state, "play 2x1")
    do(state, "replace with 2x2")
    assert state.discards[1] == 2 and (state.table_count, state.table_value) == (2, 2)
    do(state, "play 1x2")
    assert state.table_count == 3
    do(state, "pass (take a 2)")
    assert state.passed[3] == 2 and state.table_count == 2 and state.hand_sizes[3] == 7
    assert state.current_player() == 0
    do(state, "play 2x2")  # the 4th card: Olenon
    assert state.discards[2] == 4 and state.discards[1] == 2
    assert state.table_count == 0 and state.table_value == -1
    assert state.passed == [-1, -1, -1, -1]
    assert state.hand_sizes == [3, 5, 6, 8] and state.hands[3][2] == 1
    assert state.known[3][2] == 1  # everyone saw seat 3 take its 2 back
    assert state.current_player() == 0 and state.last_player == 0
    # all five 2s of the deck are accounted for: four discarded, one back in seat 3's hand
    assert sum(h[2] for h in state.hands) + state.discards[2] == DECK[2]


def test_example_4_2_team_pass():
    state = game().state_from_deal(HANDS_42, 0)
    do(state, "play 1x6", "replace with 1x0", "pass (take a 0)")
    assert state.current_player() == 3 and state.table_count == 0
    do(state, "play 1x2")
    assert state.current_player() == 0
    do(state, "pass (take a 2)")  # both team-A players have passed: the trick ends
    assert state.passed == [-1, -1, -1, -1] and state.table_count == 0
    assert state.hands[2][0] == 2 and state.hands[0][2] == 1
    assert state.hand_sizes == [7, 6, 8, 6]  # seat 2 never played: 7 + its 0
    assert state.discards == [0, 0, 0, 0, 0, 0, 1]
    assert state.current_player() == 3 and state.last_player == 3


def test_team_pass_discards_the_cards_left_on_the_table():
    state = game().state_from_deal(HANDS_41, 0)
    do(state, "play 2x1", "pass (take a 1)", "pass (take a 1)")  # seats 1 and 2 pass: one of each team
    assert state.table_count == 0 and state.current_player() == 3
    do(state, "play 1x3", "play 1x3")  # seat 3 leads a 3, seat 0 adds a 3 (table 3,3)
    assert state.current_player() == 3  # seats 1 and 2 are passed
    do(state, "pass (take a 3)")  # seat 3 passes: seats 1 and 3 (team B) both passed
    assert state.passed == [-1, -1, -1, -1]
    assert state.discards[3] == 1  # the remaining 3 on the table
    assert state.current_player() == 0 and state.last_player == 0
    assert state.hands[1][1] == 1 and state.hands[2][1] == 1 and state.hands[3][3] == 1


# ---- rounds and the game -------------------------------------------------------------------------


def test_example_4_4_round_and_game():
    g = game()
    state = g.state_from_deal(quick_hands(2), first_player=2)
    do(state, "play 4x3", "play 3x5")  # seat 2 plays its last card
    assert state.wins == [1, 0] and state.round_index == 1
    assert state.current_player() == CHANCE and state.dealt == 0  # redeal 7 each
    assert state.hand_sizes == [0, 0, 0, 0] and state.discards == [0] * 7
    assert state.returns().tolist() == [0, 0, 0, 0] and state.scores().tolist() == [1, 0, 1, 0]
    assert state.round_first == 3  # rotate
    deal(state, quick_hands(3))
    assert state.current_player() == 3 and state.hand_sizes == [7, 7, 7, 7]
    do(state, "play 4x3", "play 3x5")  # team B evens the score
    assert state.wins == [1, 1] and state.round_first == 0
    deal(state, quick_hands(0))
    do(state, "play 4x3", "play 3x5")
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.wins == [2, 1] and state.winning_team() == 0
    assert state.returns().tolist() == [1.0, -1.0, 1.0, -1.0]
    assert state.scores().tolist() == [2.0, 1.0, 2.0, 1.0]
    assert not state.legal_action_mask().any() and state.legal_actions() == []
    with pytest.raises(IllegalActionError):
        state.apply_action(0)


def test_team_b_wins_in_two_rounds():
    state = game(first_player_rule="winner").state_from_deal(quick_hands(1), 1)
    do(state, "play 4x3", "play 3x5")
    deal(state, quick_hands(1))
    do(state, "play 4x3", "play 3x5")
    assert state.is_terminal() and state.wins == [0, 2] and state.round_index == 1
    assert state.returns().tolist() == [-1.0, 1.0, -1.0, 1.0]


# seat 1: Olenon with four 3s, leads a 1 (hand 2 2); seat 2 passes; then seat 1 goes out with its two 2s
HANDS_PRECEDENCE = [
    [2, 2, 0, 0, 0, 4, 4],
    [3, 3, 3, 3, 1, 2, 2],
    [1, 4, 4, 5, 5, 5, 6],
    [1, 1, 0, 0, 0, 6, 6],
]


def test_going_out_takes_precedence_over_olenon():
    state = game().state_from_deal(HANDS_PRECEDENCE, 1)
    do(state, "play 4x3", "play 1x1", "pass (take a 1)")
    assert state.current_player() == 3 and state.table_count == 0
    do(state, "play 2x1", "replace with 2x2")  # seat 3 leads two 1s, seat 0 replaces them with two 2s
    assert state.current_player() == 1 and state.hand_sizes[1] == 2
    do(state, "play 2x2")  # the 4th table card and seat 1's last cards
    assert state.wins == [0, 1] and state.out_player == 1
    assert state.is_chance_node() and state.round_index == 1  # the round is over, not just the trick


def test_going_out_by_replace():
    state = game().state_from_deal(HANDS_PRECEDENCE, 1)
    do(state, "play 4x3", "play 1x1", "pass (take a 1)", "play 1x0", "play 1x0")  # table 0,0
    assert state.current_player() == 1
    assert legal_names(state) == {"replace with 2x2", "pass (take a 0)"}
    do(state, "replace with 2x2")
    assert state.wins == [0, 1] and state.out_player == 1 and state.is_chance_node()


def test_face_up_passed_card_is_not_in_the_hand():
    state = game().state_from_deal(HANDS_PRECEDENCE, 1)
    do(state, "play 4x3", "play 1x1", "pass (take a 1)")
    assert state.hand_sizes[2] == 7 and state.hands[2][1] == 1 and state.passed[2] == 1  # its own 1 only
    assert state.observation(0)[OBSERVATION["hand_sizes"]][2] * 28 == pytest.approx(7)


def _round_after_seat1_out(rule: str) -> OlenonState:
    return seat1_goes_out(game(first_player_rule=rule))


def test_olenon_by_adding_gives_the_lead_and_returns_passed_cards():
    state = game().state_from_deal(HANDS_OUT_1, first_player=3)
    do(state, "play 3x2", "pass (take a 2)", "play 2x2")
    assert state.current_player() == 1 and state.passed == [-1] * 4 and state.hands[0][2] == 1
    assert state.discards[2] == 4


@pytest.mark.parametrize(
    ("rule", "first"),
    [("rotate", 0), ("winner", 1), ("loser_team", 2)],
)
def test_first_player_rule(rule, first):
    # round 1: seat 3 was first, seat 1 went out
    state = _round_after_seat1_out(rule)
    assert state.wins == [0, 1] and state.out_player == 1
    assert state.is_chance_node()
    assert state.round_first == first
    deal(state, HANDS_41)
    assert state.current_player() == first


def test_first_player_rule_random_is_a_chance_node_every_round():
    state = _round_after_seat1_out("random")
    assert state.is_chance_node() and state.chance_outcomes() == [(s, 0.25) for s in range(4)]
    state.apply_action(2)
    deal(state, HANDS_41)
    assert state.current_player() == 2 and state.round_first == 2
    # the default rule goes straight to the deal
    state = _round_after_seat1_out("rotate")
    assert dict(state.chance_outcomes()) == {v: DECK[v] / 32 for v in range(7)}


# ---- rewards -------------------------------------------------------------------------------------


def test_partners_share_the_team_result_in_random_games():
    for state in random_play(game(), seed=2, games=20):
        if state.is_terminal():
            r = state.returns()
            assert r[0] == r[2] and r[1] == r[3] and {r[0], r[1]} == {1.0, -1.0}
            assert max(state.wins) == 2
            assert r[state.out_player] == 1.0  # the team that went out last won the deciding round


# ---- hidden information --------------------------------------------------------------------------


def test_resample_hidden_is_consistent_with_everything_public():
    g = game()
    rng = np.random.default_rng(1)
    changed = 0
    for i, state in enumerate(random_play(g, seed=3, games=4)):
        if i % 3:
            continue
        for seat in range(4):
            other = state.resample_hidden(seat, rng)
            assert other.observation(seat).tobytes() == state.observation(seat).tobytes()
            assert other.current_player() == state.current_player()
            if state.current_player() == seat:
                assert other.legal_action_mask().tobytes() == state.legal_action_mask().tobytes()
            assert other.hands[seat] == state.hands[seat]
            assert other.hand_sizes == state.hand_sizes
            assert other.to_text() == state.to_text()  # the public view is unchanged
            for s in range(4):
                assert sum(other.hands[s]) == other.hand_sizes[s]
                assert all(h >= k for h, k in zip(other.hands[s], other.known[s], strict=True))
            # conservation: hands + table + discards + face-up cards + unseen = deck, per value
            leftover = other.unseen_cards(seat)
            assert all(c >= 0 for c in leftover)
            if state.phase == 2:
                others = sum(other.hand_sizes[1:]) - sum(sum(k) for k in other.known[1:])
                assert sum(other.unseen_cards(0)) - others == 4  # the set-aside cards
            # the rewritten history replays to the redealt state
            replayed = g.state_from_history(other.history)
            assert snapshot(replayed) == snapshot(other)
            changed += snapshot(other) != snapshot(state)
    assert changed > 0


def test_resample_keeps_publicly_known_cards():
    state = game().state_from_deal(HANDS_41, 0)
    do(state, "play 2x1", "replace with 2x2", "play 1x2", "pass (take a 2)", "play 2x2")
    assert state.known[3][2] == 1
    rng = np.random.default_rng(0)
    for _ in range(30):
        other = state.resample_hidden(0, rng)
        assert other.hands[3][2] == 1  # the only 2 left in play is known to be seat 3's
        assert all(other.hands[s][2] == 0 for s in (1, 2))
    # once seat 3 plays a 2, nothing about its 2s is known any more
    do(state, "play 1x4", "pass (take a 4)")  # seat 0 leads a 4, seat 1 takes it: seat 2 must lead
    do(state, "play 1x0", "replace with 1x2")  # seat 2 leads a 0, seat 3 replaces it with a 2
    assert state.known[3][2] == 0


def test_open_team_info_both_ways():
    hidden, open_ = game(), game(open_team_info=True)
    s_h = hidden.state_from_deal(HANDS_41, 0)
    s_o = open_.state_from_deal(HANDS_41, 0)
    sl = OBSERVATION["open_hands"]
    assert not s_h.observation(0)[sl].any()
    obs = s_o.observation(0)[sl].reshape(3, 7)
    for i, seat in enumerate((1, 2, 3)):
        assert np.allclose(obs[i] * np.array(DECK), s_o.hands[seat])
    assert s_o.observation(0)[OBSERVATION["open_info"]][0] == 1 and s_h.observation(0)[OBSERVATION["open_info"]][0] == 0
    # text: hands only when open
    assert "hand: 2 2 3 4 5 6" not in s_h.to_text() and "hand: 0 2 2 3 4 5 6" in s_o.to_text()
    # nothing is hidden in the open variant
    assert snapshot(s_o.resample_hidden(0, np.random.default_rng(0))) == snapshot(s_o)
    assert snapshot(s_h.resample_hidden(0, np.random.default_rng(0))) != snapshot(s_h)
    # the rules are the same: same legal moves
    assert s_h.legal_actions() == s_o.legal_actions()


def test_observation_contains_nothing_of_other_hands_by_default():
    state = game().state_from_deal(HANDS_41, 0)
    obs = state.observation(1)
    hand = obs[OBSERVATION["hand"]] * np.array(DECK)
    assert np.allclose(hand, state.hands[1])
    assert not obs[OBSERVATION["known"]].any()  # nothing known yet about the others


# ---- observation layout --------------------------------------------------------------------------


def test_observation_layout_and_pieces():
    assert sum(p.size for p in OBSERVATION.pieces.values()) == SIZE == 120
    state = game().state_from_deal(HANDS_41, 0)
    do(state, "play 2x1", "replace with 2x2", "play 1x2", "pass (take a 2)")
    # seat 0 to act; seat 3 passed showing a 2; table 2,2; seat 2 played last
    obs = state.observation(1)  # ego: 1, 2, 3, 0
    assert obs.dtype == np.float32 and obs.shape == (120,)
    assert obs.min() >= 0 and obs.max() <= 1
    assert obs[OBSERVATION["table_count"]].tolist() == [0, 0, 1, 0, 0]
    assert obs[OBSERVATION["table_value"]].tolist() == [0, 0, 1, 0, 0, 0, 0]
    passed = obs[OBSERVATION["passed"]].reshape(4, 8)
    assert passed[2].tolist() == [1, 0, 0, 1, 0, 0, 0, 0]  # ego 2 = seat 3, showing a 2
    assert not passed[[0, 1, 3]].any()
    assert obs[OBSERVATION["current"]].tolist() == [0, 0, 0, 1]  # seat 0 is ego 3
    assert obs[OBSERVATION["last_player"]].tolist() == [0, 1, 0, 0]  # seat 2 is ego 1
    assert obs[OBSERVATION["team"]].tolist() == [0, 1]
    assert np.allclose(obs[OBSERVATION["hand_sizes"]] * 28, [5, 6, 7, 5])
    assert np.allclose(obs[OBSERVATION["discards"]] * np.array(DECK), [0, 2, 0, 0, 0, 0, 0])
    assert obs[OBSERVATION["round"]].tolist() == [1, 0, 0]
    state = _round_after_seat1_out("rotate")
    deal(state, HANDS_41)
    obs = state.observation(1)
    assert obs[OBSERVATION["round_wins"]].tolist() == [0.5, 0.0]
    assert obs[OBSERVATION["round"]].tolist() == [0, 1, 0]
    assert state.observation(0)[OBSERVATION["round_wins"]].tolist() == [0.0, 0.5]
    with pytest.raises(ValueError):
        state.observation(4)


def test_known_cards_appear_in_the_observation():
    state = game().state_from_deal(HANDS_41, 0)
    do(state, "play 2x1", "replace with 2x2", "play 1x2", "pass (take a 2)", "play 2x2")
    known = state.observation(0)[OBSERVATION["known"]].reshape(3, 7) * np.array(DECK)
    assert np.allclose(known[2], [0, 0, 1, 0, 0, 0, 0])  # ego 3 = seat 3 holds a known 2


# ---- names, text, image --------------------------------------------------------------------------


def test_action_names_and_parsing():
    g = game()
    state = g.state_from_deal(HANDS_41, 0)
    assert state.action_to_string(play_action(2, 5)) == "play 2x5"
    assert state.action_to_string(replace_action(6)) == "replace with 6"
    assert state.action_to_string(PASS) == "pass"
    assert g.string_to_action(state, "play 1") == play_action(1, 1)
    assert g.string_to_action(state, "PLAY 2x1") == play_action(2, 1)
    assert g.string_to_action(state, str(play_action(1, 5))) == play_action(1, 5)
    for bad in ("play 3x1", "pass", "replace with 6", "dance"):
        with pytest.raises(IllegalActionError, match="legal moves"):
            g.string_to_action(state, bad)
    do(state, "play 2x1")
    assert state.action_to_string(replace_action(2)) == "replace with 2x2"
    assert state.action_to_string(PASS) == "pass (take a 1)"
    assert g.string_to_action(state, "replace with 2") == replace_action(2)
    assert g.string_to_action(state, "replace with 2x2") == replace_action(2)
    assert g.string_to_action(state, "pass") == PASS
    with pytest.raises(IllegalActionError):
        g.string_to_action(state, "replace with 3x2")  # the table holds 2 cards
    with pytest.raises(IllegalActionError):
        g.string_to_action(state, "pass (take a 5)")


def test_to_text_shows_the_public_situation():
    state = game().state_from_deal(HANDS_41, 0)
    do(state, "play 2x1", "replace with 2x2", "play 1x2", "pass (take a 2)")
    text = state.to_text()
    assert "round 1" in text and "A (seats 0,2) 0" in text and "B (seats 1,3) 0" in text
    assert "Table: 2 2  (2 x 2)" in text
    assert "Last to play: seat 2" in text
    assert "Seat 3 [B]  cards:  7  passed: 2 (face up)" in text
    assert "Seat 0 [A]  cards:  5" in text and "<- to act" in text.splitlines()[4]
    assert "Discards: 1 1" in text
    assert "hand:" not in text  # hands are private
    assert "Seat 0 [A]  cards:  5  passed: -  hand: 2 2 3 4 5 <- to act" in state.to_text(seat=0)
    assert state.to_text(seat=0).count("hand:") == 1
    # game over text
    state = game().state_from_deal(quick_hands(2), 2)
    do(state, "play 4x3", "play 3x5")
    assert "Previous round won by team A" in state.to_text()


def test_render_image_is_an_rgb_picture():
    state = game().state_from_deal(HANDS_41, 0)
    image = state.render_image()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    do(state, "play 2x1")
    assert not np.array_equal(image, state.render_image())
    open_state = game(open_team_info=True).state_from_deal(HANDS_41, 0)
    assert not np.array_equal(image, open_state.render_image())


# ---- termination ---------------------------------------------------------------------------------


def test_rules_allow_endless_play():
    """Four tricks in which every played card is taken back by a passer return to the same hands."""
    hands = [[0, 1, 1, 2, 2, 3, 3], [0, 1, 1, 2, 2, 3, 4], [0, 0, 1, 4, 4, 5, 5], [0, 0, 5, 5, 6, 6, 6]]
    state = game().state_from_deal(hands, 0)
    trick = ["play 1x0", "pass (take a 0)", "play 1x0", "play 1x0", "pass (take a 0)", "pass (take a 0)"]
    start = (list(map(list, state.hands)), state.current_player())
    for leader in (0, 3, 2, 1):
        assert state.current_player() == leader
        do(state, *trick)
        assert state.discards == [0] * 7
    assert (state.hands, state.current_player()) == start
    after_one = [state.observation(s).tobytes() for s in range(4)]
    for _ in range(4):
        do(state, *trick)
    assert [state.observation(s).tobytes() for s in range(4)] == after_one
    assert state.game.info.max_game_length >= 1000


# ---- position builder ----------------------------------------------------------------------------


def assert_rebuilds(state: OlenonState) -> None:
    """``state_from_position(state.position())`` rebuilds everything every seat can see or do."""
    rebuilt = state.game.state_from_position(state.position())
    assert rebuilt.current_player() == state.current_player()
    assert rebuilt.legal_action_mask().tobytes() == state.legal_action_mask().tobytes()
    assert rebuilt.returns().tolist() == state.returns().tolist()
    assert rebuilt.scores().tolist() == state.scores().tolist()
    assert rebuilt.to_text() == state.to_text()
    assert rebuilt.chance_outcomes() == state.chance_outcomes()
    for seat in range(4):
        assert rebuilt.observation(seat).tobytes() == state.observation(seat).tobytes()
        assert rebuilt.to_text(seat) == state.to_text(seat)
    assert rebuilt.position() == state.position()


ENDLESS_HANDS = [[0, 1, 1, 2, 2, 3, 3], [0, 1, 1, 2, 2, 3, 4], [0, 0, 1, 4, 4, 5, 5], [0, 0, 5, 5, 6, 6, 6]]
ENDLESS_TRICK = ["play 1x0", "pass (take a 0)", "play 1x0", "play 1x0", "pass (take a 0)", "pass (take a 0)"]


def test_a_card_played_more_often_than_its_copies_rebuilds():
    """Played, taken back by a passer, played again: ``played`` counts past the deck's 6 zeros (was refused at 7)."""
    state = game().state_from_deal(ENDLESS_HANDS, 0)
    for _ in range(12):
        for move in ENDLESS_TRICK:
            do(state, move)
            assert_rebuilds(state)
    assert max(state.played[s][0] for s in range(4)) > DECK[0]
    assert sum(state.picked[s][0] for s in range(4)) > DECK[0]
    assert state.discards == [0] * 7


def test_the_reported_position_with_six_zeros_played_rebuilds_after_a_seventh():
    """Seat 0 has played six 0s (taken back by passers), holds a 0 and leads on an empty table: ``play 1x0``."""
    state = game().state_from_deal(ENDLESS_HANDS, 0)
    moves = 0
    while not (state.played[0][0] == 6 and state.current_player() == 0 and state.table_count == 0):
        do(state, ENDLESS_TRICK[moves % len(ENDLESS_TRICK)])
        moves += 1
    assert state.hands[0][0] >= 1
    rebuilt = game().state_from_position(state.position())
    do(rebuilt, "play 1x0")
    assert rebuilt.played[0][0] == 7
    assert_rebuilds(rebuilt)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"first_player_rule": "winner"},
        {"first_player_rule": "loser_team"},
        {"first_player_rule": "random"},
        {"open_team_info": True},
    ],
    ids=["rotate", "winner", "loser_team", "random", "open"],
)
def test_positions_round_trip_at_every_node_of_random_games(options):
    g = game(**options)
    for state in random_play(g, seed=17, games=3):
        assert_rebuilds(state)


def test_position_builder_refuses_cards_that_do_not_add_up():
    state = game().state_from_deal(HANDS_41, 0)
    do(state, "play 2x1", "replace with 2x2", "play 1x2", "pass (take a 2)")
    good = state.position()
    assert_rebuilds(state)

    def changed(key, seat, value, by):
        table = [list(row) for row in good[key]]
        table[seat][value] += by
        return {**good, key: table}

    for bad, message in [
        (changed("played", 0, 1, 1), "played"),  # a 1 played that is nowhere
        (changed("picked", 3, 2, 1), "picked|played|dealt"),
        (changed("hands", 2, 6, -1), "dealt"),
        (changed("known", 0, 3, 1), "known"),  # not taken back after a pass
        ({**good, "discards": [0, 1, 0, 0, 0, 0, 0]}, "played"),
        ({**good, "to_move": 3}, "to_move"),  # seat 3 passed
        ({**good, "dealt": 27}, "dealt"),
        ({**good, "last_player": -1}, "last_player"),
        ({**good, "out_player": 1}, "out_player"),
        ({**good, "phase": "over", "wins": [0, 2], "round": 1}, "out_player|to_move"),
    ]:
        with pytest.raises(ValueError, match=message):
            game().state_from_position(bad)


def test_position_builder_refuses_a_trick_that_has_ended():
    state = game().state_from_deal(HANDS_42, 0)
    do(state, "play 1x6", "replace with 0", "pass (take a 0)", "play 1x2")
    assert_rebuilds(state)
    both_passed = {**state.position(), "passed": [2, -1, 0, -1], "table_count": 0, "table_value": -1, "to_move": 1}
    with pytest.raises(ValueError, match="passed"):
        game().state_from_position(both_passed)
    lead = game().state_from_deal(HANDS_41, 0)
    do(lead, "play 2x1")
    olenon = lead.position()  # as if seat 3 had added its two 1s: four on the table end the trick
    olenon["hands"][3][1] -= 2
    olenon["played"][3][1] += 2
    with pytest.raises(ValueError, match="table_count"):
        game().state_from_position({**olenon, "table_count": 4, "last_player": 3})
    dealing = game().new_initial_state()
    dealing.apply_action(1)
    for _ in range(5):
        dealing.apply_action(dealing.sample_chance(np.random.default_rng(0)))
    assert_rebuilds(dealing)
    with pytest.raises(ValueError, match="dealt"):
        game().state_from_position({**dealing.position(), "hands": [[3, 0, 0, 0, 0, 0, 0], *dealing.position()["hands"][1:]]})
    with pytest.raises(ValueError, match="random"):
        game().state_from_position({**game().new_initial_state().position(), "round": 1, "wins": [1, 0], "out_player": 0})


def test_random_games_are_far_below_the_truncation_limit():
    g = game()
    rng = np.random.default_rng(7)
    for _ in range(30):
        decisions = random_playout(g.new_initial_state(), rng)
        assert decisions < g.info.max_game_length // 5


# ---- environment ---------------------------------------------------------------------------------


def test_env_options_reach_the_engine():
    env = envs.make("olenon-v0", first_player_rule="loser_team", open_team_info=True, render_mode="ansi")
    env.reset(seed=3)
    assert env.game.options["first_player_rule"] == "loser_team" and env.game.open_team_info
    agent = env.agent_selection
    obs = env.observe(agent)
    assert obs["observation"][OBSERVATION["open_info"]][0] == 1
    assert "hand:" in env.render()
    env.reset(seed=3)
    assert env.game.options["open_team_info"] is True


def test_env_plays_to_the_end_with_team_rewards():
    env = envs.make("olenon-v0")
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    values = [total[a] for a in env.possible_agents]
    assert values[0] == values[2] and values[1] == values[3] and sorted({values[0], values[1]}) == [-1.0, 1.0]


# ---- heuristic agent -----------------------------------------------------------------------------


def test_heuristic_team_beats_random_team():
    from gameshelf.training.agents import make_agent
    from gameshelf.training.evaluate import outcome, play

    game_ = game()
    heuristic, random_agent = make_agent("heuristic", "olenon-v0"), make_agent("random", "olenon-v0")
    wins = 0
    for g in range(120):
        team = g % 2  # the heuristic team plays seats 0 & 2, then 1 & 3
        agents = [heuristic if s % 2 == team else random_agent for s in range(4)]
        returns = play(game_, agents, np.random.default_rng([1, g]))[0]
        assert outcome(returns, team) == outcome(returns, team + 2)  # partners share the result
        wins += outcome(returns, team) == "win"
    assert wins / 120 >= 0.85, wins


def test_heuristic_goes_out_and_takes_olenon():
    from gameshelf.training.agents import make_agent

    agent = make_agent("heuristic", "olenon-v0")
    rng = np.random.default_rng(0)
    state = game().state_from_deal(quick_hands(2), 2)
    assert agent.act(state.resample_hidden(2, rng), 2, rng) == play_action(4, 3)  # Olenon lead
    do(state, "play 4x3")
    assert agent.act(state.resample_hidden(2, rng), 2, rng) == play_action(3, 5)  # out
