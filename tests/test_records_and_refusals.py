"""Nothing lost on bad input: refused steps, reset options, option types, game records and their files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.core.game import IllegalActionError
from gameshelf.envs.core.record import RecordError, load_record, save_record
from gameshelf.envs.testing import env_snapshot


def test_a_refused_action_keeps_pending_rewards():
    """Score mode: a raise-mode refusal must not zero the reward last() reports, for anyone."""
    env = envs.make("koplus-v0", board_mode="standard", reward="score")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:  # play until some agent has a non-zero pending reward
        obs, reward, term, trunc, _ = env.last()
        if reward != 0 or term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert reward != 0
    before = env_snapshot(env)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env_snapshot(env) == before
    assert env.last()[1] == reward


def test_last_before_reset_is_a_clear_error():
    env = envs.make("level_x-v0")
    for call in (env.last, lambda: env.step(0), lambda: env.observe("player_0")):
        with pytest.raises(RuntimeError, match="reset"):
            call()


def test_reset_options_are_checked():
    env = envs.make("level_x-v0")
    with pytest.raises(TypeError):
        env.reset(seed=0, options="seat=1")
    with pytest.warns(UserWarning, match="unknown key"):
        env.reset(seed=0, options={"sead": 1})
    env.reset(seed=0, options={"chance_outcomes": [1]})  # seat 1 is drawn to start
    assert env.agent_selection == "player_1"


def test_numpy_integer_options_become_plain_ints():
    game = envs.make_game("level_x-v0", num_players=np.int64(3))
    assert game.options["num_players"] == 3 and type(game.options["num_players"]) is int
    env = envs.make("koplus-v0", num_players=np.int32(3))
    env.reset(seed=0)
    json.dumps(env.record().to_dict())  # saving works


def test_penalize_mode_still_raises_for_non_actions():
    env = envs.make("level_x-v0", illegal_action="penalize")
    env.reset(seed=0)
    for bad, kind in ((1.5, TypeError), ("0", TypeError), (10**6, ValueError), (-1, ValueError)):
        with pytest.raises(kind):
            env.step(bad)
    assert not any(env.terminations.values())


# ---- records ----------------------------------------------------------------------------------------
def finished_game(**kwargs):
    env = envs.make("level_x-v0", **kwargs)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env


def test_record_names_every_option_and_its_version(tmp_path):
    env = finished_game()
    path = tmp_path / "g.json"
    save_record(env.record(), path)
    data = json.loads(path.read_text())
    assert data["version"] == 2 and data["ending"] == {"kind": "terminal"}
    assert set(data["options"]) == set(envs.make_game("level_x-v0").options)
    del data["options"]["displaced_to"]
    path.write_text(json.dumps(data))
    with pytest.raises(RecordError, match="missing"):
        load_record(path)


def test_changing_an_option_in_a_record_is_detected(tmp_path):
    env = finished_game()
    data = env.record().to_dict()
    data["options"]["remove_one_per_stack_if_lt4"] = True
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RecordError):
        load_record(path)


def test_penalized_and_truncated_games_replay_to_the_same_ending(tmp_path):
    env = envs.make("level_x-v0", illegal_action="penalize", reward="score")
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    offender = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0]))
    save_record(env.record(), tmp_path / "p.json")
    episode = load_record(tmp_path / "p.json").replay_episode()
    assert episode.terminated and episode.offender == env.agent_name_mapping[offender]
    assert np.allclose(episode.totals, env.episode.totals)

    passer = envs.make("level_x-v0")  # everyone passes: cut off at max_game_length
    passer.reset(seed=0)
    for _ in passer.agent_iter():
        _, _, term, trunc, _ = passer.last()
        passer.step(None if term or trunc else 0)
    assert all(passer.truncations.values())
    save_record(passer.record(), tmp_path / "t.json")
    episode = load_record(tmp_path / "t.json").replay_episode()
    assert episode.truncated and not episode.terminated


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe not utf-8", "UTF-8"),
        (b'{"format": "gameshelf-record", "version": 2, "env_id": "level_x-v0", "opt', "truncated JSON"),
        (b"[" * 100_000, "nested too deeply|JSON"),
        (b'{"format": "something-else"}', "not a game record"),
        (b'{"format": "gameshelf-record", "version": 99, "env_id": "level_x-v0", "options": {}, "actions": []}', "newer"),
        (b'{"format": "gameshelf-record", "version": 2, "env_id": "chess-v9", "options": {}, "actions": []}', "unknown"),
        (b'{"format": "gameshelf-record", "version": 2, "env_id": "level_x-v0", "options": [], "actions": []}', "options"),
        (b'{"format": "gameshelf-record", "version": 2, "env_id": "level_x-v0", "options": {}, "actions": "1"}', "actions"),
        (b'{"format": "gameshelf-record", "version": 2, "env_id": 5, "options": {}, "actions": []}', "env_id"),
    ],
)
def test_bad_record_files_raise_one_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=message):
        load_record(path)


def test_record_with_an_illegal_or_absurd_action_is_refused(tmp_path):
    data = finished_game().record().to_dict()
    for actions, message in (([10**12], "integer in"), ([0, 0, 10**6], "not legal"), ([True], "integer")):
        data["actions"] = actions
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(data))
        with pytest.raises(RecordError, match=message):
            load_record(path)


def test_save_record_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "g.json"
    record = finished_game().record()
    save_record(record, path)
    original = path.read_text()
    import os

    def crash(*_args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        save_record(record, path)
    assert path.read_text() == original
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]  # no temporary file left behind
