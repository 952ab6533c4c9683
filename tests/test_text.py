"""Text play (``gameshelf.wrappers.text``): the short rules, the prompt and what it hides, reading replies, and
the TextArena-shaped environment."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameshelf import envs
from gameshelf.envs.core.game import State
from gameshelf.envs.testing import ConformanceError, random_states
from gameshelf.wrappers import text
from gameshelf.wrappers.text import (
    TextArenaEnv,
    check_prompt_hides_what_the_seat_cannot_see,
    examples_markdown,
    legal_names,
    parse_move,
    prompt,
    short_rules,
)

IDS = envs.registered_ids()


def played(env_id: str, moves: int, seed: int = 0) -> State:
    """A state after ``moves`` random decisions (chance resolved after them)."""
    return text.played(envs.make_game(env_id), moves, seed)[0]


# ---- the short rules and the prompt -------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_every_registered_id_has_short_rules(env_id: str) -> None:
    game = envs.make_game(env_id)
    rules = short_rules(game.info.name)
    heading, body = rules.split("\n", 1)
    assert heading.startswith("# ") and 200 < len(body) < 2000
    assert body.strip() in prompt(game.new_initial_state(), 0)


def test_a_game_without_short_rules_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="no short rules for the game 'chess'"):
        short_rules("chess")


def test_the_prompt_holds_the_rules_the_seats_view_what_happened_and_the_numbered_moves() -> None:
    state = played("olenon-v0", 9)
    seat = state.current_player()
    lines = prompt(state, seat).splitlines()
    assert lines[0].startswith(f"You are player_{seat} in a game of Olenon (4 players")
    view = state.seat_text(seat).rstrip().splitlines()
    start = lines.index("== What you see ==") + 1
    assert lines[start : start + len(view)] == view
    since = lines[lines.index("== Since your last move ==") + 1 : lines.index("== Your legal moves ==")]
    assert since[0].startswith("you: ") and any(line.startswith("player_") for line in since)
    listed = lines[lines.index("== Your legal moves ==") + 1 :]
    assert listed[: len(legal_names(state))] == [f"{k}. {name}" for k, (_, name) in enumerate(legal_names(state), 1)]


def test_a_seat_reads_its_own_cards_dealt_but_not_the_others() -> None:
    state = played("olenon-v0", 0)
    seat = state.current_player()
    log = prompt(state, seat).split("== So far ==")[1].split("== Your legal moves ==")[0]
    assert len(re.findall(f"deal an? \\d to seat {seat}$", log, re.M)) == 7
    assert not re.search(f"to seat (?!{seat})", log)
    assert "It is not your turn (player_" in prompt(state, (seat + 1) % 4)


def test_a_state_whose_history_starts_at_a_position_is_a_value_error() -> None:
    game = envs.make_game("koplus-v0")
    state = game.state_from_position(played("koplus-v0", 6).position())  # its history: the board's deal only
    state.apply_action(state.legal_actions()[-1])
    with pytest.raises(ValueError, match="does not start there"):
        prompt(state, state.current_player())


def test_a_bad_seat_is_a_value_error() -> None:
    state = played("koplus-v0", 2)
    with pytest.raises(ValueError):
        prompt(state, 5)


@pytest.mark.parametrize("env_id", IDS)
def test_a_prompt_hides_what_the_seat_cannot_see(env_id: str) -> None:
    game = envs.make_game(env_id)
    compared = check_prompt_hides_what_the_seat_cannot_see(game, seed=1, per_kind=2, redeals=1)
    assert (compared > 0) == game.info.has_hidden_info


def test_the_leak_check_catches_a_prompt_that_names_what_is_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text, "seen_by", lambda *args, **kwargs: True)  # every move named to every seat
    with pytest.raises(ConformanceError, match=r"prompt leak: seat \d's prompt changed .* line \d+ reads"):
        check_prompt_hides_what_the_seat_cannot_see(envs.make_game("olenon-v0"), per_kind=2)


# ---- reading replies ----------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_legal_move_reads_back_by_name_and_by_number(env_id: str, seed: int) -> None:
    game = envs.make_game(env_id)
    states = (s for s in random_states(game, seed, games=1, every=5) if not s.is_terminal())
    for state in itertools.islice(states, 12):
        for k, (action, name) in enumerate(legal_names(state), start=1):
            assert parse_move(state, name) == (action, "exact name"), name
            assert parse_move(state, str(k)).action == action, (k, name)


def koplus_state() -> State:
    state = played("koplus-v0", 2)
    names = [n for _, n in legal_names(state)]
    assert names[:3] == ["place ＋ at r2c5", "place ＋ at r2c6", "place ＋ at r2c7"] and len(names) == 16  # the position read
    return state


@pytest.mark.parametrize(
    ("reply", "name", "how"),
    [
        ("place ＋ at r3c8", "place ＋ at r3c8", "exact name"),
        ("  `place ＋ at r3c8`.  ", "place ＋ at r3c8", "exact name"),
        ("PLACE + AT R3C8", "place ＋ at r3c8", "name (case or spacing aside)"),
        ("2", "place ＋ at r2c6", "number 2 of the list"),
        ("#1", "place ＋ at r2c5", "number 1 of the list"),
        ("place + at r10", "place ＋ at r10c7", "unambiguous prefix"),
        ("plase ＋ at r3c8", "place ＋ at r3c8", "close match"),
        ("place + at r2c7x", "place ＋ at r2c7", "close match"),
        ("5. place ＋ at r3c8", "place ＋ at r3c8", "line 5 of the list"),
        ("<think>\nr3c8 covers a 5.\n</think>\n\nplace ＋ at r3c8", "place ＋ at r3c8", "exact name"),
    ],
)
def test_a_reply_reads_as_a_name_a_number_a_prefix_or_a_close_match(reply: str, name: str, how: str) -> None:
    state = koplus_state()
    action, reason = parse_move(state, reply)
    assert action is not None and state.action_to_string(action) == name and reason == how


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "the reply is empty"),
        ("   ", "the reply is empty"),
        ("0", "'0' is not a number of the list (1 to 16)"),
        ("12345", "'12345' is not a number of the list (1 to 16)"),
        ("place + at r4", "'place + at r4' begins 2 legal moves: 'place ＋ at r4c3', 'place ＋ at r4c9'"),
        ("placed ＋ at r5c", "'placed ＋ at r5c' is close to 14 legal moves: "),
        ("capture the alien", "'capture the alien' is not a legal move"),
        ("4. place ＋ at r3c8", "'4. place ＋ at r3c8': move 4 of the list is 'place ＋ at r3c4', not 'place ＋ at r3c8'"),
        ("<think>the best move is 2</think>", "the reply is empty"),
        ("x" * 500, "'" + "x" * 80 + "...' is not a legal move"),
        (None, "a reply must be text, not NoneType"),
        (3, "a reply must be text, not int"),
    ],
)
def test_anything_else_is_invalid_with_a_reason(reply: Any, reason: str) -> None:
    action, why = parse_move(koplus_state(), reply)
    assert action is None and why.startswith(reason) and len(why) < 300


def test_no_move_is_read_when_no_move_is_expected() -> None:
    state = played("level_x-v0", 10**6)
    assert state.is_terminal() and parse_move(state, "pass") == (None, "no move is expected now")


# ---- TextArena's shape --------------------------------------------------------------------------------
def text_player(seed: int) -> Any:
    """A TextArena-style agent: observation text in, action text out (a finishing move when offered, else a
    random listed move, by name or by number)."""
    rng = np.random.default_rng(seed)

    def act(observation: str) -> str:
        moves = re.findall(r"^(\d+)\. (.*)$", observation.split("== Your legal moves ==")[1], re.M)
        finishing = [name for _, name in moves if name.startswith(("finish", "win"))]
        if finishing:
            return finishing[0]
        number, name = moves[rng.integers(len(moves))]
        return name if rng.random() < 0.5 else number

    return act


@pytest.mark.parametrize("env_id", IDS)
def test_a_whole_game_of_every_id_with_text_actions_only(env_id: str) -> None:
    env = TextArenaEnv(env_id)
    env.reset(num_players=envs.make_game(env_id).info.num_players, seed=0)
    agents = [text_player(seat) for seat in range(len(env.game_info))]
    done, turns = False, 0
    while not done:
        player_id, observation = env.get_observation()
        assert observation.startswith(f"You are player_{player_id} ")
        done, step_info = env.step(action=agents[player_id](observation))
        assert step_info == {}
        turns += 1
    rewards, game_info = env.close()
    state = env.episode.require_state() if env.episode else None
    assert state is not None and state.is_terminal()
    assert rewards == {s: float(r) for s, r in enumerate(state.returns())}
    assert sum(info["turn_count"] for info in game_info.values()) == turns
    assert all(info["reason"] == "the game ended" and not info["invalid_move"] for info in game_info.values())
    assert env.step(action="1") == (True, {})


def test_an_invalid_reply_may_be_resubmitted_then_ends_the_game() -> None:
    env = TextArenaEnv("koplus-v0")
    env.reset(seed=1)
    assert env.step(action="1") == (False, {})
    player, _ = env.get_observation()
    done, info = env.step(action="let me think")
    assert not done and "'let me think' is not a legal move" in info["invalid_move"]
    again, observation = env.get_observation()
    assert again == player and "Your last reply was invalid: 'let me think' is not a legal move" in observation
    assert env.step(action="1") == (False, {})  # a valid move clears the count
    assert "invalid" not in env.get_observation()[1]
    player = env.get_observation()[0]
    assert env.step(action="") == (False, {"invalid_move": "the reply is empty"})
    done, info = env.step(action="99")
    assert done and "not a number of the list" in info["invalid_move"]
    rewards, game_info = env.close()
    assert rewards == {player: -1.0, 1 - player: 0.0}
    assert game_info[player]["invalid_move"] and not game_info[1 - player]["invalid_move"]
    assert game_info[player]["reason"].startswith(f"Player {player} made an invalid move: ")


def test_textarena_env_errors_are_clear() -> None:
    with pytest.raises(RuntimeError, match="call reset"):
        TextArenaEnv("koplus-v0").get_observation()
    with pytest.raises(ValueError, match="error_allowance"):
        TextArenaEnv("koplus-v0", error_allowance=-1)
    with pytest.raises(Exception, match="nope-v0"):
        TextArenaEnv("nope-v0")
    with pytest.raises(ValueError, match="num_players"):
        TextArenaEnv("koplus-v0").reset(num_players=9)


def test_the_same_seed_plays_the_same_game() -> None:
    games = []
    for _ in range(2):
        env = TextArenaEnv("tsukuru_ten_ten-v0")
        env.reset(seed=5)
        observations = [env.get_observation()[1] for _ in range(1)]
        env.step(action="1")
        games.append((observations, env.get_observation()[1]))
    assert games[0] == games[1]


def test_the_example_prompts_in_the_docs_are_current() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "llm.md").read_text(encoding="utf-8")
    section = doc.split("<!-- example prompts: begin -->\n")[1].split("<!-- example prompts: end -->")[0]
    assert section == examples_markdown(), "docs/llm.md: regenerate its example prompts with python -m gameshelf.wrappers.text"
