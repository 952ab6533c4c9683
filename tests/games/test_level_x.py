"""Level X: every rule and every worked example of the rules (``docs/rules/level_x.md``), each option both ways."""

from __future__ import annotations

import itertools
import pickle
import re
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.core.game import CHANCE, TERMINAL, IllegalActionError
from gameshelf.envs.level_x.actions import (
    BONUS_TILES,
    EFFECT_INDEX,
    EFFECTS,
    NUM_ACTIONS,
    PASS,
    ROLL_INDEX,
    ROLL_MASKS,
    ROLL_PROBS,
    ROLLS,
    ROW_LENGTH,
    TOKENS,
)
from gameshelf.envs.level_x.game import OBS_SIZE, LevelXGame, LevelXState
from gameshelf.envs.level_x.observation import LAYOUT as OBSERVATION

R = {row: row - 5 for row in range(5, 11)}
"""Row number -> row index."""


# ---- helpers -------------------------------------------------------------------------------------
def start(first: int = 0, **options) -> LevelXState:
    """A new game with the first player chosen (state waits for the first roll)."""
    state = LevelXGame(**options).new_initial_state()
    state.apply_action(first)
    return state


def roll(state: LevelXState, *dice: int) -> None:
    assert state.current_player() == CHANCE
    state.apply_action(ROLL_INDEX[tuple(sorted(dice))])


def play(state: LevelXState, text: str) -> None:
    state.apply_action(state.game.string_to_action(state, text))


def turn(state: LevelXState, dice: tuple[int, ...], text: str = "pass") -> None:
    roll(state, *dice)
    play(state, text)


def effects_by_brute_force(dice: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Label each die unused or with one of 4 group names: every grouping, independently of the engine."""
    out = set()
    for labels in itertools.product(range(5), repeat=4):
        sums = Counter()
        for die, label in zip(dice, labels, strict=True):
            if label:
                sums[label] += die
        out.add(tuple(sorted(s for s in sums.values() if 5 <= s <= 10)))
    return out


def random_states(count: int, num_players: int = 2, seed: int = 0, **options):
    """States at decision nodes along random games."""
    rng = np.random.default_rng(seed)
    game = LevelXGame(num_players=num_players, **options)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(out) < count:
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
            else:
                out.append(state.clone())
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
    return out


# ---- options and components ----------------------------------------------------------------------
def test_defaults_and_bad_options():
    game = LevelXGame()
    assert game.options == {"num_players": 2, "remove_one_per_stack_if_lt4": False, "displaced_to": "supply"}
    for bad in (
        {"num_players": 5},
        {"num_players": 1},
        {"num_players": 2.0},
        {"displaced_to": "start"},
        {"remove_one_per_stack_if_lt4": 1},
        {"colour": "red"},
    ):
        with pytest.raises(ValueError, match=next(iter(bad))):
            LevelXGame(**bad)


def test_components():
    assert ROW_LENGTH == (4, 4, 3, 3, 2, 2)
    assert TOKENS == (12, 11, 10, 9, 8, 7) and sum(TOKENS) == 57
    state = start()
    assert state.tokens_left == [12, 11, 10, 9, 8, 7]
    assert state.bonus_stack == [15, 12, 9, 6] and BONUS_TILES == (15, 12, 9, 6)
    assert state.pos == [[0] * 6, [0] * 6]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_remove_one_per_stack_option_both_ways(num_players):
    assert start(num_players=num_players).tokens_left == [12, 11, 10, 9, 8, 7]
    reduced = start(num_players=num_players, remove_one_per_stack_if_lt4=True).tokens_left
    assert reduced == ([11, 10, 9, 8, 7, 6] if num_players < 4 else [12, 11, 10, 9, 8, 7])


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_info_is_the_same_for_every_player_count(num_players):
    info = LevelXGame(num_players=num_players).info
    assert info.num_actions == NUM_ACTIONS == 49
    assert info.observation_shape == (OBS_SIZE,) == (212,)
    assert info.observation_dtype == np.float32 and info.max_players == 4
    assert info.has_chance and not info.has_hidden_info


# ---- chance nodes --------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_first_player_is_a_chance_node(num_players):
    state = LevelXGame(num_players=num_players).new_initial_state()
    assert state.current_player() == CHANCE
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == list(range(num_players))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert state.action_to_string(1) == "first player: seat 1"
    state.apply_action(num_players - 1)
    assert state.first == num_players - 1
    roll(state, 1, 2, 3, 4)
    assert state.current_player() == num_players - 1  # the first player moves first
    play(state, "pass")
    roll(state, 1, 2, 3, 4)
    assert state.current_player() == 0  # then increasing seat order


def test_dice_chance_node_probabilities():
    state = start()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == len(ROLLS) == 126
    assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
    exact = Counter(tuple(sorted(r)) for r in itertools.product(range(1, 7), repeat=4))
    for outcome, p in outcomes:
        assert p == pytest.approx(float(Fraction(exact[ROLLS[outcome]], 1296)))
    assert ROLL_PROBS[ROLL_INDEX[(1, 1, 1, 1)]] == pytest.approx(1 / 1296)
    assert ROLL_PROBS[ROLL_INDEX[(3, 3, 4, 6)]] == pytest.approx(12 / 1296)
    assert ROLL_PROBS[ROLL_INDEX[(1, 2, 3, 4)]] == pytest.approx(24 / 1296)
    assert state.action_to_string(ROLL_INDEX[(3, 3, 4, 6)]) == "roll 3,3,4,6"


def test_sample_chance_matches_the_probabilities():
    rng = np.random.default_rng(7)
    state = start()
    draws = 60000
    counts = np.bincount([state.sample_chance(rng) for _ in range(draws)], minlength=126)
    expected = np.array(ROLL_PROBS) * draws
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 200  # 125 degrees of freedom: mean 125, sd ~16
    first = LevelXGame(num_players=3).new_initial_state()
    seats = Counter(first.sample_chance(rng) for _ in range(3000))
    assert set(seats) == {0, 1, 2} and min(seats.values()) > 850


def test_bad_chance_outcomes_raise_and_change_nothing():
    state = start()
    before = state.clone()
    for bad in (-1, 126):
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
    with pytest.raises(TypeError):
        state.apply_action(True)
    assert state.history == before.history and state.dice == before.dice
    fresh = LevelXGame().new_initial_state()
    with pytest.raises(IllegalActionError):
        fresh.apply_action(2)  # only seats 0 and 1 can start a 2-player game


# ---- grouping and the action mask ----------------------------------------------------------------
def test_action_table():
    assert EFFECTS[PASS] == () and PASS == 0
    assert EFFECTS[1:7] == tuple((r,) for r in range(5, 11))
    assert len([e for e in EFFECTS if len(e) == 2]) == 21
    assert {e for e in EFFECTS if len(e) == 4} == {(5, 5, 5, 5), (5, 5, 5, 6), (5, 5, 6, 6), (5, 6, 6, 6), (6, 6, 6, 6)}


def test_mask_is_exact_for_every_roll():
    reachable = set()
    for roll_id, dice in enumerate(ROLLS):
        expected = effects_by_brute_force(dice)
        reachable |= expected
        assert {EFFECTS[a] for a in np.flatnonzero(ROLL_MASKS[roll_id])} == expected, dice
    assert reachable == set(EFFECTS)


def test_pass_is_always_legal_and_the_only_move_on_four_ones():
    state = start()
    roll(state, 1, 1, 1, 1)
    assert state.legal_actions() == [PASS]
    assert state.action_to_string(PASS) == "pass"
    for dice in ROLLS:
        state = start()
        roll(state, *dice)
        assert state.legal_action_mask()[PASS]


def test_worked_example_1_grouping():
    """Roll 3,3,4,6: {4,3}=7 {6,3}=9; {3,3,4}=10 {6}=6; {3,3}=6 {4} {6}=6."""
    state = start()
    roll(state, 3, 3, 4, 6)
    legal = {EFFECTS[a] for a in state.legal_actions()}
    assert {(7, 9), (6, 10), (6, 6)} <= legal
    assert state.action_to_string(EFFECT_INDEX[(7, 9)]) == "group {3,4}=7 {3,6}=9"
    assert state.game.string_to_action(state, "group {4,3}=7 {6,3}=9") == EFFECT_INDEX[(7, 9)]
    assert state.game.string_to_action(state, "group {3,3,4}=10 {6}=6") == EFFECT_INDEX[(6, 10)]
    assert state.game.string_to_action(state, "group {3,3}=6 {4} {6}=6") == EFFECT_INDEX[(6, 6)]

    a = state.clone()
    play(a, "group {4,3}=7 {6,3}=9")
    assert a.pos[0] == [0, 0, 1, 0, 1, 0]  # rows 7 and 9 enter square 1 from the supply
    b = state.clone()
    play(b, "group {3,3,4}=10 {6}=6")
    assert b.pos[0] == [0, 1, 0, 0, 0, 1]
    c = state.clone()
    play(c, "group {3,3}=6 {4} {6}=6")
    assert c.pos[0] == [0, 2, 0, 0, 0, 0]  # two steps in row 6, the lone 4 does nothing


def test_grouping_parser_refuses_wrong_groupings():
    state = start()
    roll(state, 3, 3, 4, 6)
    before = state.clone()
    for bad in ("group {3,4}=8", "group {5,4}=9", "group {3,3,3}=9", "group {x}", "group {}", "group {3,4}=7 junk", "dance"):
        with pytest.raises(IllegalActionError):
            state.game.string_to_action(state, bad)
    assert state.game.string_to_action(state, str(EFFECT_INDEX[(7,)])) == EFFECT_INDEX[(7,)]
    assert state.game.string_to_action(state, "GROUP {3,4}=7") == EFFECT_INDEX[(7,)]
    assert state.history == before.history


def test_names_are_unique_and_round_trip():
    for state in random_states(400, num_players=3, seed=1):
        legal = state.legal_actions()
        names = [state.action_to_string(a) for a in legal]
        assert len(set(names)) == len(names)
        for action, name in zip(legal, names, strict=True):
            assert state.game.string_to_action(state, name) == action


def test_illegal_actions_raise_and_change_nothing():
    state = start()
    roll(state, 1, 1, 1, 2)  # only 5 (and pass) possible
    assert {EFFECTS[a] for a in state.legal_actions()} == {(), (5,)}
    snapshot = (state.clone().pos, list(state.history))
    for bad in (EFFECT_INDEX[(6,)], EFFECT_INDEX[(5, 5)]):
        with pytest.raises(IllegalActionError, match="legal actions"):
            state.apply_action(bad)
    for bad_type in (1.0, True, None, "5"):
        with pytest.raises(TypeError):
            state.apply_action(bad_type)
    assert (state.pos, state.history) == snapshot


# ---- movement, X squares and tokens --------------------------------------------------------------
def test_steps_from_supply_to_x_and_a_token_only_on_x():
    state = start()
    turn(state, (5, 5, 5, 5), "group {5}=5 {5}=5 {5}=5 {5}=5")
    assert state.pos[0][R[5]] == 4  # supply -> 1 -> 2 -> 3 -> X
    assert state.held[0][R[5]] == 1 and state.tokens_left[R[5]] == 11  # one token: only the last step is on X
    assert state.score(0) == 5 and list(state.scores()) == [5.0, 0.0]


def test_rows_9_and_10_enter_on_square_1_not_x():
    state = start()
    turn(state, (4, 5, 4, 6), "group {4,5}=9 {4,6}=10")
    assert state.pos[0][R[9]] == 1 and state.pos[0][R[10]] == 1
    assert state.held[0] == [0] * 6


def test_pawn_on_x_does_not_move_and_takes_a_token_each_step():
    state = start()
    state.pos[0][R[7]] = 3
    turn(state, (3, 4, 5, 2), "group {3,4}=7 {5,2}=7")
    assert state.pos[0][R[7]] == 3 and state.held[0][R[7]] == 2 and state.score(0) == 14


def test_no_token_when_the_row_is_empty():
    state = start()
    state.pos[0][R[7]] = 3
    state.tokens_left[R[7]] = 0
    turn(state, (3, 4, 1, 1), "group {3,4}=7")
    assert state.held[0][R[7]] == 0 and state.score(0) == 0


def test_many_pawns_on_a_square_but_one_on_x():
    state = start(num_players=4)
    for seat in range(4):
        state.pos[seat][R[5]] = 2
    turn(state, (5, 1, 1, 1), "group {5}=5")
    assert [p[R[5]] for p in state.pos] == [3, 2, 2, 2]
    state.pos[1][R[5]] = 4  # seat 1 now stands on X
    turn(state, (5, 1, 1, 1), "group {5}=5")  # seat 1 already on X: another token
    assert state.held[1][R[5]] == 1


@pytest.mark.parametrize(("displaced_to", "square"), [("supply", 0), ("square1", 1)])
def test_worked_example_2_x_square_and_displacement(displaced_to, square):
    """A (seat 0) on square 1 of row 9, B (seat 1) on X; A rolls 5,4,6,3 and plays {5,4}=9 {6,3}=9."""
    state = start(displaced_to=displaced_to)
    state.pos[0][R[9]] = 1
    state.pos[1][R[9]] = 2
    turn(state, (5, 4, 6, 3), "group {5,4}=9 {6,3}=9")
    assert state.pos[0][R[9]] == 2  # A on X
    assert state.pos[1][R[9]] == square  # B pushed back
    assert state.held[0][R[9]] == 2 and state.tokens_left[R[9]] == 6
    assert state.score(0) == 18 and state.score(1) == 0
    assert state.x_occupant(R[9]) == 0


@pytest.mark.parametrize(("left", "gain"), [(1, 9), (0, 0)])
def test_worked_example_2_with_few_tokens_left(left, gain):
    state = start()
    state.pos[0][R[9]] = 1
    state.pos[1][R[9]] = 2
    state.tokens_left[R[9]] = left
    turn(state, (5, 4, 6, 3), "group {5,4}=9 {6,3}=9")
    assert state.score(0) == gain and state.tokens_left[R[9]] == 0
    assert state.pos[1][R[9]] == 0  # pushed off even when there is nothing to take


def test_displaced_pawn_re_enters_from_the_supply():
    state = start()
    state.pos[1][R[8]] = 3
    state.pos[0][R[8]] = 2
    turn(state, (4, 4, 1, 1), "group {4,4}=8")
    assert state.pos[1][R[8]] == 0
    turn(state, (4, 4, 1, 1), "group {4,4}=8")  # seat 1: supply -> square 1
    assert state.pos[1][R[8]] == 1 and state.pos[0][R[8]] == 3


# ---- bonuses -------------------------------------------------------------------------------------
def test_worked_example_3_bonuses():
    """A holds 5,6,7,8,9 and takes a 10 -> 15; later B completes a set -> 12."""
    state = start()
    state.held[0] = [1, 1, 1, 1, 1, 0]
    state.tokens_left = [t - 1 for t in state.tokens_left[:5]] + [7]
    state.pos[0][R[10]] = 2
    turn(state, (4, 6, 1, 1), "group {4,6}=10")
    assert state.bonuses[0] == [15] and state.bonus_stack == [12, 9, 6]
    assert state.score(0) == 5 + 6 + 7 + 8 + 9 + 10 + 15
    state.held[1] = [1, 1, 1, 1, 1, 0]
    state.pos[1][R[10]] = 1
    turn(state, (4, 6, 1, 1), "group {4,6}=10")  # B arrives on X (pushing A off) and takes a 10
    assert state.pos[0][R[10]] == 0
    assert state.bonuses[1] == [12] and state.bonus_stack == [9, 6]
    assert state.score(1) == 45 + 12


def test_second_bonus_needs_two_of_each_and_two_can_come_at_once():
    state = start()
    state.held[0] = [2, 2, 2, 2, 2, 1]
    state.bonuses[0] = [15]
    state.bonus_stack = [12, 9, 6]
    state.pos[0][R[10]] = 2
    turn(state, (4, 6, 1, 1), "group {4,6}=10")
    assert state.bonuses[0] == [15, 12]
    state.held[1] = [2, 2, 2, 2, 1, 0]
    state.pos[1][R[9]] = 2
    state.pos[1][R[10]] = 2
    state.pos[0][R[10]] = 1  # A no longer on X
    turn(state, (4, 5, 4, 6), "group {4,5}=9 {4,6}=10")
    assert state.held[1] == [2, 2, 2, 2, 2, 1] and state.bonuses[1] == [9]  # one complete set: one tile only
    # a complete second set and a first one at once for a fresh player: both tiles in one turn
    fresh = start()
    fresh.held[0] = [2, 2, 2, 2, 2, 1]
    fresh.pos[0][R[10]] = 2
    turn(fresh, (4, 6, 1, 1), "group {4,6}=10")
    assert fresh.bonuses[0] == [15, 12]


def test_no_bonus_without_a_full_set():
    state = start()
    state.held[0] = [3, 3, 3, 3, 0, 0]
    state.pos[0][R[9]] = 2
    turn(state, (4, 5, 1, 1), "group {4,5}=9")
    assert state.bonuses[0] == [] and state.bonus_stack == [15, 12, 9, 6]


# ---- end of the game -----------------------------------------------------------------------------
def arm_trigger(state: LevelXState, seat: int) -> None:
    """Rows 5 and 6 empty, one 7 left and ``seat``'s row-7 pawn on X: its next 7 empties a third stack."""
    state.tokens_left[R[5]] = state.tokens_left[R[6]] = 0
    state.tokens_left[R[7]] = 1
    state.pos[seat][R[7]] = 3


def test_two_empty_stacks_do_not_end_the_game():
    state = start()
    state.tokens_left[R[5]] = state.tokens_left[R[6]] = 0
    for _ in range(4):
        turn(state, (1, 1, 1, 1))
    assert not state.end_triggered and state.current_player() == CHANCE


@pytest.mark.parametrize("first", [0, 1])
def test_end_two_players_trigger_by_first_player(first):
    second = 1 - first
    state = start(first=first)
    arm_trigger(state, first)
    turn(state, (3, 4, 1, 1), "group {3,4}=7")
    assert state.end_triggered and state.current_player() == CHANCE
    roll(state, 3, 3, 1, 1)
    assert state.current_player() == second  # the second player plays one last turn
    state.pos[second][R[6]] = 3
    play(state, "group {3,3}=6")
    assert state.current_player() == TERMINAL and state.turns == 2
    assert state.score(first) == 7 and state.score(second) == 0  # row 6 was empty: no token


@pytest.mark.parametrize("first", [0, 1])
def test_end_two_players_trigger_by_second_player_ends_at_once(first):
    second = 1 - first
    state = start(first=first)
    turn(state, (1, 1, 1, 1))
    arm_trigger(state, second)
    turn(state, (3, 4, 1, 1), "group {3,4}=7")
    assert state.is_terminal() and state.turns == 2
    assert list(state.returns()) == ([-1.0, 1.0] if second == 1 else [1.0, -1.0])


@pytest.mark.parametrize(("trigger_turn", "total_turns"), [(0, 3), (1, 3), (2, 3), (3, 6)])
def test_end_three_players_round_completed(trigger_turn, total_turns):
    """First player = seat 1; order 1, 2, 0. Whoever triggers, the round runs to seat 0's turn."""
    state = start(first=1, num_players=3)
    order = [1, 2, 0, 1, 2, 0]
    for _ in range(trigger_turn):
        assert state.current_player() == CHANCE
        turn(state, (1, 1, 1, 1))
    arm_trigger(state, order[trigger_turn])
    roll(state, 3, 4, 1, 1)
    assert state.current_player() == order[trigger_turn]
    play(state, "group {3,4}=7")
    assert state.end_triggered
    while not state.is_terminal():
        roll(state, 1, 1, 1, 1)
        assert state.current_player() == order[state.turns]
        play(state, "pass")
    assert state.turns == total_turns  # everyone had the same number of turns


def test_end_by_empty_bonus_stack():
    state = start()
    state.bonus_stack = [6]
    state.bonuses = [[15, 12], [9]]
    state.held[0] = [3, 3, 3, 3, 3, 2]
    state.pos[0][R[10]] = 2
    turn(state, (4, 6, 1, 1), "group {4,6}=10")
    assert state.bonuses[0] == [15, 12, 6] and state.bonus_stack == []
    assert state.end_triggered and not state.is_terminal()
    turn(state, (1, 1, 1, 1))
    assert state.is_terminal()


# ---- results -------------------------------------------------------------------------------------
def finished(num_players: int, held: list[list[int]], bonuses: list[list[int]]) -> LevelXState:
    state = start(num_players=num_players)
    state.held = held
    state.bonuses = bonuses
    state.over = True
    return state


def test_returns_zero_until_the_end_and_scores_run():
    state = start()
    state.pos[0][R[5]] = 4
    turn(state, (5, 1, 1, 1), "group {5}=5")
    assert list(state.returns()) == [0.0, 0.0] and list(state.scores()) == [5.0, 0.0]


def test_highest_score_wins():
    state = finished(3, [[1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1], [0, 1, 0, 0, 0, 0]], [[], [], []])
    assert list(state.returns()) == [-1.0, 1.0, 0.0]
    assert state.current_player() == TERMINAL and state.legal_actions() == []


def test_tie_break_more_bonus_tiles():
    # 30 each: seat 0 = three 8s + the 6 bonus (3 tokens), seat 1 = five 6s (5 tokens): bonus tiles first
    state = finished(2, [[0, 0, 0, 3, 0, 0], [0, 5, 0, 0, 0, 0]], [[6], []])
    assert state.score(0) == state.score(1) == 30
    assert list(state.returns()) == [1.0, -1.0]


def test_tie_break_more_tokens():
    state = finished(2, [[2, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]], [[], []])
    assert state.score(0) == state.score(1) == 10
    assert list(state.returns()) == [1.0, -1.0]


def test_full_tie_is_shared():
    state = finished(3, [[0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]], [[], [], []])
    assert list(state.returns()) == [0.5, -1.0, 0.5]


# ---- observation, text, picture ------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_observation_shape_bounds_and_padding(num_players):
    for state in random_states(60, num_players=num_players, seed=num_players):
        for seat in range(num_players):
            obs = state.observation(seat)
            assert obs.shape == (212,) and obs.dtype == np.float32
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            pawns = obs[OBSERVATION["pawns"]].reshape(4, 6, 5)
            assert (pawns[:num_players].sum(axis=2) == 1).all() and (pawns[num_players:] == 0).all()
            assert list(obs[OBSERVATION["seat_present"]]) == [1.0] * num_players + [0.0] * (4 - num_players)
            assert obs[OBSERVATION["to_move"]][(state.current_player() - seat) % num_players] == 1.0


def test_observation_is_egocentric():
    state = start(first=1, num_players=3)
    state.pos[1][R[8]] = 3
    state.held[2][R[6]] = 6
    state.bonuses[2] = [15]
    state.bonus_stack = [12, 9, 6]
    roll(state, 3, 3, 4, 6)
    obs = state.observation(1)
    pawns = obs[OBSERVATION["pawns"]].reshape(4, 6, 5)
    assert pawns[0, R[8], 3] == 1.0  # slot 0 = seat 1 itself
    assert obs[OBSERVATION["tokens_held"]].reshape(4, 6)[1, R[6]] == pytest.approx(0.5)  # slot 1 = seat 2
    assert list(obs[OBSERVATION["bonus_held"]].reshape(4, 4)[1]) == [1.0, 0.0, 0.0, 0.0]
    assert list(obs[OBSERVATION["bonus_stack"]]) == [0.0, 1.0, 1.0, 1.0]
    assert list(obs[OBSERVATION["first_player"]]) == [1.0, 0.0, 0.0, 0.0]
    assert list(obs[OBSERVATION["to_move"]]) == [1.0, 0.0, 0.0, 0.0]
    dice = obs[OBSERVATION["dice"]].reshape(4, 6)
    assert [int(np.argmax(d)) + 1 for d in dice] == [3, 3, 4, 6]
    assert obs[OBSERVATION["scores"]][1] == pytest.approx((36 + 15) / 452)
    assert list(state.observation(0)[OBSERVATION["first_player"]]) == [0.0, 1.0, 0.0, 0.0]
    with pytest.raises(ValueError):
        state.observation(3)


def test_to_text_shows_board_scores_dice_and_turn():
    state = start(first=1)
    state.pos[0][R[9]] = 2
    state.pos[1][R[5]] = 1
    state.held[0][R[9]] = 1
    roll(state, 3, 3, 4, 6)
    text = state.to_text()
    assert "row 10" in text and "row  5" in text and "X:0" in text
    assert "tokens left 12" in text and "bonus stack: 15 12 9 6" in text
    assert re.search(r"player 0:\s+9 pts  tokens 9x1", text) and "player 1 (1):" in text
    assert "player 1 to move, dice 3 3 4 6" in text


def test_render_image():
    state = random_states(30, num_players=4, seed=5)[-1]
    image = state.render_image()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
    assert image.shape[0] > 300 and image.shape[1] > 600
    colours = {tuple(c) for c in image.reshape(-1, 3)[::7]}
    assert (220, 50, 47) in colours and (38, 139, 210) in colours  # seat 0 and seat 1 pawns


# ---- engine contracts ----------------------------------------------------------------------------
def test_clone_is_independent_and_replay_rebuilds():
    for state in random_states(50, num_players=3, seed=9)[::10]:
        copy = state.clone()
        copy.apply_action(copy.legal_actions()[-1])
        assert copy.history != state.history
        rebuilt = state.game.state_from_history(state.history)
        assert rebuilt.to_text() == state.to_text()
        assert np.array_equal(rebuilt.observation(0), state.observation(0))


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_pettingzoo_api(num_players):
    from pettingzoo.test import api_test

    env = envs.make("level_x-v0", num_players=num_players)
    api_test(env, num_cycles=200)


def test_env_seeding_and_pickle():
    def run(seed):
        env = envs.make("level_x-v0", num_players=3, render_mode="ansi")
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        texts = []
        for _agent in env.agent_iter(max_iter=400):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            texts.append(env.render())
        return texts

    assert run(3) == run(3)
    assert run(3) != run(4)
    env = envs.make("level_x-v0", displaced_to="square1")
    env.reset(seed=1)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.game.options["displaced_to"] == "square1"
    assert env.render_mode is None and env.observation_space("player_0")["observation"].shape == (212,)


# ---- heuristic agent -----------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3])
def test_heuristic_beats_random(num_players):
    from gameshelf.training.agents import make_agent

    heuristic, rand = make_agent("heuristic", "level_x-v0"), make_agent("random", "level_x-v0")
    rng = np.random.default_rng(11)
    game = LevelXGame(num_players=num_players)
    games, total = 30, 0.0
    for g in range(games):
        seat = g % num_players
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
            else:
                agent = heuristic if state.current_player() == seat else rand
                state.apply_action(agent.act(state.clone(), state.current_player(), rng))
        total += state.returns()[seat]
    assert total / games > 0.8
