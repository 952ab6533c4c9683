"""Bad data given to the bare engine: positions, options and actions are refused with one clear error."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.core.game import IllegalActionError
from gameshelf.envs.core.position import MESSAGE_LENGTH


def position_after(env_id: str, moves: int, seed: int = 0, **options):
    """The game and the position after ``moves`` random decisions (chance drawn too), not over."""
    game = envs.make_game(env_id, **options)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    made = 0
    while made < moves or state.is_chance_node():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        state.apply_action(int(rng.choice(state.legal_actions())))
        made += 1
    assert not state.is_terminal()
    return game, state.position()


def refuse(game, position, key: str) -> str:
    with pytest.raises(ValueError, match=key) as info:
        game.state_from_position(position)
    assert type(info.value) is ValueError and info.value.__cause__ is None
    assert len(str(info.value)) <= MESSAGE_LENGTH
    return str(info.value)


# ---- positions ---------------------------------------------------------------------------------------
def test_an_amoriax_board_row_that_is_not_a_string_names_the_board():
    game, pos = position_after("amoriax-v0", 4)
    pos["board"][3] = 5
    refuse(game, pos, "board")


@pytest.mark.parametrize(
    ("env_id", "moves", "change", "key"),
    [
        ("olenon-v0", 6, lambda p: p["played"][3].__setitem__(0, 32768), "played"),
        ("tsukuru_ten_ten-v0", 3, lambda p: p.__setitem__("rounds_played", 32768), "rounds_played"),
        ("tsukuru_ten_ten-v0", 3, lambda p: p["scores"].__setitem__(1, 32768), "scores"),
        ("koplus-v0", 0, lambda p: p.__setitem__("pending_section", 2**63), "pending_section"),
        ("amoriax-v0", 4, lambda p: p.__setitem__("ply", 32768), "ply"),
        ("catsle_builders-v0", 4, lambda p: p["totals"].__setitem__(0, 40000), "totals"),
    ],
)
def test_values_beyond_the_int16_row_are_refused_naming_the_key(env_id, moves, change, key):
    game, pos = position_after(env_id, moves)
    change(pos)
    refuse(game, pos, key)


def test_junk_is_refused_not_defaulted():
    game, pos = position_after("paiko-v0", 20)
    assert pos["phase"] != "draft"
    refuse(game, {**pos, "draft_step": "junk"}, "draft_step")
    refuse(game, {**pos, "draft_left": 5}, "draft_left")
    game.state_from_position({**pos, "draft_step": 3, "draft_left": 0})  # the neutral values outside the draft

    game, pos = position_after("koplus-v0", 6)
    refuse(game, {**pos, "points": None}, "points")

    game, pos = position_after("catsle_builders-v0", 4)
    pos["voids"][0] = {}
    refuse(game, pos, "voids")


def test_a_deep_list_and_a_huge_string_give_one_short_error():
    deep: list = []
    for _ in range(20_000):
        deep = [deep]
    for env_id in ("level_x-v0", "paiko-v0", "range_ta_ludotheque-v0"):
        game, pos = position_after(env_id, 2)
        key = sorted(pos)[0]
        refuse(game, {**pos, key: deep}, key)
        message = refuse(game, {**pos, key: "x" * (1 << 20)}, key)
        assert "xxxx" not in message


def test_unknown_keys_that_are_not_strings_are_refused():
    game, pos = position_after("level_x-v0", 2)
    refuse(game, {**pos, 7: 1}, "7")


# ---- options -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("env_id", "option", "low", "high"),
    [("amoriax-v0", "max_plies", 1, 32767), ("paiko-v0", "max_turns", 1, 2**30 - 1)],
)
def test_options_the_row_cannot_hold_are_refused_with_their_range(env_id, option, low, high):
    for value in (low - 1, high + 1, 40_000 if high < 40_000 else 2**40):
        with pytest.raises(ValueError, match=rf"{option}=.*{low}\.\.{high}"):
            envs.make_game(env_id, **{option: value})
        with pytest.raises(ValueError, match=option):
            envs.make(env_id, **{option: value})
    assert envs.make_game(env_id, **{option: high}).info.max_game_length >= high


def test_amoriax_at_the_last_ply_the_row_holds_ends_the_game():
    game = envs.make_game("amoriax-v0", max_plies=32767)
    state = game.new_initial_state()
    pos = state.position()
    pos["ply"] = 32766
    state = game.state_from_position(pos)
    state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.position()["ply"] == 32767 and state.end == "max_plies"
    game.state_from_position(state.position())


# ---- actions on the bare engine ------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ["amoriax-v0", "koplus-v0", "tsukuru_ten_ten-v0"])
@pytest.mark.parametrize(
    "action",
    [10**30, 2**64 + 1, 2**63, -(2**63) - 1, np.uint64(2**64 - 1), np.int64(2**63 - 1), np.uint32(2**32 - 1), np.int8(-1)],
    ids=repr,
)
def test_huge_and_negative_actions_are_illegal_and_change_nothing(env_id, action):
    state = envs.make_game(env_id).new_initial_state()  # a chance node for KoPlus and Tsukuru, a decision for Amoriax
    before = (state.current_player(), state.history[:], state.legal_action_mask().tobytes())
    with pytest.raises(IllegalActionError):
        state.apply_action(action)
    assert (state.current_player(), state.history[:], state.legal_action_mask().tobytes()) == before


# ---- Amoriax: a stone set up on the crown ------------------------------------------------------------
@pytest.mark.parametrize("stone", "WBR")
@pytest.mark.parametrize("to_move", [0, 1])
@pytest.mark.parametrize("red_frozen", [False, True])
def test_an_amoriax_setup_with_a_stone_on_the_crown_round_trips(stone, to_move, red_frozen):
    game = envs.make_game("amoriax-v0")
    rows = ["W........", *["........."] * 3, f"....{stone}....", *["........."] * 3, "........B"]
    state = game.state_from_board(rows, to_move=to_move, red_frozen=red_frozen)
    assert not state.is_terminal()
    rebuilt = game.state_from_position(state.position())
    assert rebuilt.position() == state.position()
    state.apply_action(state.legal_actions()[0])
    game.state_from_position(state.position())


def test_an_amoriax_move_onto_the_crown_still_wins():
    game = envs.make_game("amoriax-v0")
    state = game.state_from_board(["........."] * 4 + ["W....B..."] + ["........."] * 4)
    state.apply_action(state.crown_moves(0)[0])
    assert state.end == "crown" and state.winner == 0
    won = state.position()
    refuse(game, {**won, "end": "", "winner": -1}, "crown")


def test_matchstick_passes_are_the_seats_between_the_table_and_the_player_to_move():
    """A position with a play on the table by seat 2 and seat 1 to move: seats 3 and 0 passed since."""
    game = envs.make_game("matchstick_tycoon-v0")
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    while True:  # random play until seat 1 is to move with another seat's play on the table and passes since
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        pos = state.position()
        if pos["table"] and pos["passed"] and pos["table"]["player"] != pos["to_move"]:
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    game.state_from_position(pos)
    refuse(game, {**pos, "passed": []}, "passed must list the seats in game after the table's player")
    refuse(game, {**pos, "passed": pos["passed"][1:]}, "passed must list")
