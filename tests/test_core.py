"""Unit tests of the shared core (adapter, options, rewards, records, registry) on a toy game."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.core.game import CHANCE, IllegalActionError, rank_returns
from gameshelf.envs.core.record import GameRecord, RecordError, save_record
from gameshelf.envs.records import load_record, read_record

TOY = "toy_kuhn-v0"


@pytest.fixture(autouse=True)
def toy_registered():
    envs.register(TOY, "tests.toy_kuhn:ToyKuhnGame")
    yield
    envs.unregister(TOY)


def scripted_env(cards, **kwargs):
    """A toy env whose deal is forced to ``cards``."""
    env = envs.make(TOY, **kwargs)
    env.reset(seed=0, options={"chance_outcomes": cards})
    return env


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ([3, 1], [1, -1]),
        ([1, 1], [0, 0]),
        ([5, 9, 7], [-1, 1, 0]),
        ([2, 2, 1], [0.5, 0.5, -1]),
        ([4, 1, 4, 0], [2 / 3, -1 / 3, 2 / 3, -1]),
        ([(1, 2), (1, 3)], [-1, 1]),
        ([7], [0]),
    ],
)
def test_rank_returns(keys, expected):
    out = rank_returns(keys)
    assert np.allclose(out, expected)
    assert abs(out.sum()) < 1e-9


def test_unknown_id_lists_known_ids():
    with pytest.raises(KeyError, match="level_x-v0"):
        envs.make("unknown-v0")


def test_register_rejects_malformed_ids():
    with pytest.raises(ValueError):
        envs.register("Bad Id", "x:y")
    with pytest.raises(ValueError):
        envs.register("ok-v0", "no_colon")


def test_import_envs_is_light():
    import subprocess
    import sys

    code = (
        "import sys, gameshelf; bad=[m for m in sys.modules if m.split('.')[0] in ('torch','PIL')"
        " or m.startswith(('gameshelf.envs.level_x','gameshelf.envs.amoriax','gameshelf.envs.koplus',"
        "'gameshelf.envs.olenon','gameshelf.training','gameshelf.wrappers'))]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_options_validation():
    game = envs.make_game(TOY)
    assert game.options == {"num_players": 2, "stake": 1}
    with pytest.raises(ValueError, match="stake"):
        envs.make_game(TOY, stake=3)
    with pytest.raises(ValueError, match="stake"):
        envs.make_game(TOY, stake=True)
    with pytest.raises(ValueError, match="unknown option"):
        envs.make_game(TOY, colour="red")
    with pytest.raises(ValueError, match="render_mode"):
        envs.make(TOY, render_mode="3d")
    with pytest.raises(ValueError, match="illegal_action"):
        envs.make(TOY, illegal_action="ignore")


def test_options_survive_reset():
    env = envs.make(TOY, stake=2, reward="score")
    env.reset(seed=1)
    env.reset(seed=2)
    assert env.game.options["stake"] == 2 and env.reward_mode == "score"


def test_chance_resolved_and_agents_never_see_it():
    env = envs.make(TOY)
    env.reset(seed=3)
    assert env.game_state.current_player() != CHANCE
    assert len(env.game_state.cards) == 2


def test_outcome_reward_reaches_player_who_did_not_move_last():
    env = scripted_env([2, 0])  # seat 0 holds the high card
    env.step(0)  # bet
    env.step(0)  # call -> seat 0 wins on seat 1's move
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values())
    _, reward, term, _, _ = env.last()
    assert term and reward == env._cumulative_rewards[env.agent_selection]
    assert env._cumulative_rewards["player_0"] == 1.0


def test_cumulative_reward_since_last_turn():
    env = scripted_env([0, 2])
    env.step(0)
    env.step(1)  # seat 1 folds: seat 0 wins
    agent = env.agent_selection
    _, reward, term, _, _ = env.last()
    assert term and reward == {"player_0": 1.0, "player_1": -1.0}[agent]


def test_score_reward_mode_adds_scores():
    env = scripted_env([2, 1], reward="score", stake=2)
    env.step(0)
    env.step(0)
    assert env.rewards["player_0"] == 1.0 + 20.0
    assert env.rewards["player_1"] == -1.0 - 20.0


def test_illegal_action_error_leaves_state():
    game = envs.make_game(TOY)
    state = game.new_initial_state()
    with pytest.raises(IllegalActionError, match="possible"):
        state.apply_action(5)
    state.apply_action(1)
    state.apply_action(2)
    with pytest.raises(IllegalActionError, match="legal actions"):
        state.apply_action(2)
    with pytest.raises(TypeError):
        state.apply_action(1.0)  # type: ignore[arg-type]
    assert state.history == [1, 2]


def test_string_to_action():
    game = envs.make_game(TOY)
    state = game.state_from_history([0, 1])
    assert game.string_to_action(state, "fold") == 1
    assert game.string_to_action(state, " BET ") == 0
    assert game.string_to_action(state, "1") == 1
    with pytest.raises(IllegalActionError, match="bet"):
        game.string_to_action(state, "raise")


def test_record_save_load_replay(tmp_path):
    env = envs.make(TOY, stake=2)
    env.reset(seed=4)
    env.step(0)
    record = env.record()
    path = tmp_path / "game.json"
    save_record(record, path)
    loaded = load_record(path)
    assert loaded == record
    state = loaded.replay()
    assert state.history == env.game_state.history
    assert state.to_text() == env.game_state.to_text()
    assert len(loaded.states()) == len(record.actions) + 1
    with pytest.raises(ValueError, match="not a game record"):
        read_record("{}")
    with pytest.raises(ValueError, match="JSON"):
        read_record("{nope")
    with pytest.raises(ValueError, match="integer"):
        read_record('{"format": "gameshelf-record/1", "env_id": "x", "options": {}, "actions": [1.5]}')
    bad = GameRecord(TOY, {"stake": 2}, [0, 0])
    with pytest.raises(RecordError, match="not legal"):
        bad.replay(envs.make_game(TOY, stake=2))


def test_truncation_at_max_game_length():
    env = envs.make(TOY)
    env.reset(seed=0)
    object.__setattr__(env.game.info, "max_game_length", 1)
    env.step(0)
    assert all(env.truncations.values()) and not any(env.terminations.values())


def test_observe_for_every_agent_and_zero_mask_for_others():
    env = envs.make(TOY)
    env.reset(seed=0)
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0]
    assert env.observe("player_0")["action_mask"].tolist() == [1, 1]
    assert env.observation_space("player_0") is env.observation_space("player_0")
    assert env.state().shape == (2, 5)


# ---- the game template -------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["observation", "seat_text", "resample_hidden", "check_seat", "apply_action", "render_image"])
def test_a_state_cannot_override_a_final_method(method):
    from tests.toy_kuhn import ToyKuhnState

    with pytest.raises(TypeError, match=f"overrides State.{method}, which is final"):
        type("Overriding", (ToyKuhnState,), {method: lambda self, *args: None})


def test_every_seat_query_refuses_a_bad_seat_with_one_message():
    state = envs.make_game(TOY).new_initial_state()
    rng = np.random.default_rng(0)
    for seat in (-1, 2, 1.0, True, False, "0", None, np.float64(0.0)):
        messages = set()
        for query in (state.observation, state.seat_text, lambda s: state.resample_hidden(s, rng)):
            with pytest.raises(ValueError, match=r"is not a seat of toy_kuhn: a seat is an int in 0\.\.1") as err:
                query(seat)
            messages.add(str(err.value))
        assert len(messages) == 1
    assert state.observation(np.int64(1)).tolist() == state.observation(1).tolist()


def test_game_info_follows_from_the_options_and_the_layout():
    from tests.toy_kuhn import LAYOUT
    from tests.toy_nim import NimGame

    info = envs.make_game(TOY).info
    assert (info.name, info.num_players, info.max_players) == ("toy_kuhn", 2, 2)
    assert info.observation_shape == LAYOUT.shape == (5,)
    assert np.dtype(info.observation_dtype) == np.float32
    assert (info.observation_low, info.observation_high) == (0.0, 1.0)
    nim = NimGame(num_players=3, hidden=True)
    assert (nim.info.num_players, nim.info.max_players, nim.info.has_hidden_info) == (3, 8, True)
    assert envs.make_game("range_ta_ludotheque-v0", comp_rows=1, comp_cols=2).info.observation_shape[:2] == (3, 6)


def test_a_game_declares_facts_not_info():
    from tests.toy_kuhn import ToyKuhnGame

    with pytest.raises(TypeError, match="declare its GameFacts in _facts"):
        type("OldStyle", (ToyKuhnGame,), {"_make_info": lambda self: None})
    no_layout = type("NoLayout", (ToyKuhnGame,), {"LAYOUT": None})
    with pytest.raises(TypeError, match="declares no observation LAYOUT"):
        no_layout()


def test_the_core_finds_position_builders_by_convention():
    from gameshelf.envs.core.position import position_function

    paiko = envs.make_game("paiko-v0")
    state = paiko.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert position_function(type(paiko), "build_state") is not None
    assert "state_from_position" not in type(paiko).__dict__  # the builder lives in paiko/position.py
    rebuilt = paiko.state_from_position(state.position())
    assert rebuilt.to_text() == state.to_text() and rebuilt.history == []
    toy = envs.make_game(TOY)
    with pytest.raises(NotImplementedError, match="no position builder"):
        toy.state_from_position({})
    with pytest.raises(NotImplementedError, match="no position export"):
        toy.new_initial_state().position()


def test_the_core_finds_heuristic_agents_by_convention(tmp_path, monkeypatch):
    from gameshelf.envs.core.agent import heuristic_class
    from gameshelf.envs.paiko.heuristic import PaikoHeuristic

    assert envs.spec("paiko-v0").heuristic is None  # no string in the registry: the convention finds it
    assert envs.spec("paiko-v0").load_heuristic() is PaikoHeuristic
    assert heuristic_class("gameshelf.envs.paiko.game") is PaikoHeuristic
    assert envs.spec(TOY).load_heuristic() is None  # a game in a single module has no heuristic.py beside it
    package = tmp_path / "nameless_game"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "heuristic.py").write_text("class Greedy:\n    name = 'greedy'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(AttributeError, match=r"nameless_game\.heuristic defines no 'Heuristic'"):
            heuristic_class("nameless_game.game")
    finally:
        sys.modules.pop("nameless_game.heuristic", None)
        sys.modules.pop("nameless_game", None)


def test_a_record_replays_with_a_game_and_only_the_layer_above_finds_it_by_id():
    env = scripted_env([2, 0])
    env.step(0)
    record = env.record()
    assert record.game() is env.game  # bound to the game it was made with
    text = record.to_json()
    game = envs.make_game(TOY)
    bare = GameRecord(record.env_id, dict(record.options), list(record.actions))
    with pytest.raises(RecordError, match="no game to replay it with"):
        bare.replay()
    assert bare.replay(game).to_text() == record.replay().to_text()
    with pytest.raises(RecordError, match="are not the record's"):
        bare.bind(envs.make_game(TOY, stake=2))
    envs.unregister(TOY)  # an id the registry no longer knows: its game can still be handed over
    with pytest.raises(RecordError, match="unknown environment id"):
        read_record(text)
    assert read_record(text, game=game).game() is game
