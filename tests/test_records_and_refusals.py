"""Nothing lost on bad input: refused steps, reset options, option types, game records and their files."""

from __future__ import annotations

import copy
import functools
import itertools
import json
import os
import tempfile
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameshelf import envs
from gameshelf.envs.core.episode import Episode
from gameshelf.envs.core.game import IllegalActionError
from gameshelf.envs.core.record import RecordError, save_record
from gameshelf.envs.records import load_record
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


def env_fingerprint(env):
    """Everything a reset could change: the visible state, both generators, the outcomes still scripted."""
    return (
        env_snapshot(env),
        env.np_random.bit_generator.state,
        env.episode.rng.bit_generator.state,
        list(copy.copy(env.episode._script)),  # a copy of the iterator: nothing is consumed
        env._seeded,
    )


def chance_and_moves(seed):
    """A finished level_x game split into its chance outcomes and its players' actions, in order."""
    history = finished_game_at(seed).game_state.history
    state = envs.make_game("level_x-v0").new_initial_state()
    chance, moves = [], []
    for action in history:
        (chance if state.is_chance_node() else moves).append(action)
        state.apply_action(action)
    return chance, moves


@pytest.mark.parametrize(
    ("seed", "options", "error"),
    [
        (5, {"chance_outcomes": [10**9]}, IllegalActionError),
        (None, {"chance_outcomes": [10**9]}, IllegalActionError),
        (None, {"chance_outcomes": [-1]}, IllegalActionError),
        (None, {"chance_outcomes": [1.7]}, TypeError),
        (None, {"chance_outcomes": [1.0]}, TypeError),
        (None, {"chance_outcomes": [True]}, TypeError),
        (None, {"chance_outcomes": "1"}, TypeError),
        (None, {"chance_outcomes": 1}, TypeError),
        (True, None, TypeError),
        (1.0, None, TypeError),
        ("1", None, TypeError),
        (-1, None, ValueError),
        (0, "chance_outcomes", TypeError),
    ],
)
def test_a_refused_reset_leaves_the_env_exactly_as_it_was(seed, options, error):
    """Mid-game, with scripted chance outcomes still pending: a refused reset changes nothing at all."""
    chance, moves = chance_and_moves(3)  # level_x: who starts, the first roll, then a roll after each move
    control, env = envs.make("level_x-v0"), envs.make("level_x-v0")
    for e in (control, env):
        e.reset(seed=0, options={"chance_outcomes": chance[:9]})  # a recorded game's first 9 outcomes
        for action in moves[:5]:
            e.step(action)
    before = env_fingerprint(env)
    assert before == env_fingerprint(control) and len(before[3]) == 2  # two outcomes still scripted
    with pytest.raises(error):
        env.reset(seed=seed, options=options)
    assert env_fingerprint(env) == before
    # the game goes on as if nothing had happened: the scripted rolls, then rolls drawn by the generator
    picks = np.random.default_rng(0)
    for k in itertools.count(5):
        if control.episode.done:
            break
        mask = control.observe(control.agent_selection)["action_mask"]
        action = moves[k] if k < 7 else int(picks.choice(np.flatnonzero(mask)))
        for e in (control, env):
            e.step(action)
        assert env_fingerprint(env) == env_fingerprint(control)
    assert env.episode.done and env.record() == control.record()


def test_integer_chance_outcomes_of_any_integer_kind_are_accepted():
    for outcomes in ([1], (1,), [np.int64(1)], np.array([1])):
        env = envs.make("level_x-v0")
        env.reset(seed=0, options={"chance_outcomes": outcomes})
        assert env.agent_selection == "player_1"


def test_agent_iter_before_reset_is_a_clear_error():
    env = envs.make("level_x-v0")
    with pytest.raises(RuntimeError, match="reset"):
        for _ in env.agent_iter():
            break
    env.reset(seed=0)
    assert next(iter(env.agent_iter())) == env.agent_selection


# ---- records ----------------------------------------------------------------------------------------
def finished_game(**kwargs):
    return finished_game_at(3, **kwargs)


def finished_game_at(seed, **kwargs):
    env = envs.make("level_x-v0", **kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
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
    episode = Episode.from_record(load_record(tmp_path / "p.json"))
    assert episode.terminated and episode.offender == env.agent_name_mapping[offender]
    assert np.allclose(episode.totals, env.episode.totals)

    passer = envs.make("level_x-v0")  # everyone passes: cut off at max_game_length
    passer.reset(seed=0)
    for _ in passer.agent_iter():
        _, _, term, trunc, _ = passer.last()
        passer.step(None if term or trunc else 0)
    assert all(passer.truncations.values())
    save_record(passer.record(), tmp_path / "t.json")
    episode = Episode.from_record(load_record(tmp_path / "t.json"))
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


# ---- any damage to a record file gives one RecordError ------------------------------------------------------
RAW_JSON = {
    "huge_int": "9" * 5000,
    "huge_negative_int": "-" + "1" * 4400,
    "huge_float": "1" + "0" * 400 + ".5",
    "inf": "1e999",
    "nan": "NaN",
    "deep_list": "[" * 5000 + "]" * 5000,
    "very_deep_list": "[" * 200_000 + "]" * 200_000,
    "deep_object": '{"a":' * 3000 + "0" + "}" * 3000,
}
"""JSON text that ``json.dumps`` cannot produce: spliced into the record where a marker string stands."""

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from([f"@@{name}@@" for name in RAW_JSON]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


def record_paths(data, prefix=()):
    """Every place in a record's JSON tree: each key of each object, each item of each list."""
    yield prefix
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        yield from record_paths(value, (*prefix, key))


@functools.lru_cache(maxsize=1)
def base_records():
    penalized = envs.make("level_x-v0", illegal_action="penalize")
    penalized.reset(seed=0)
    penalized.step(int(np.flatnonzero(penalized.observe(penalized.agent_selection)["action_mask"] == 0)[0]))
    return (finished_game().record().to_dict(), penalized.record().to_dict())


@st.composite
def damaged_records(draw):
    data = copy.deepcopy(draw(st.sampled_from(base_records())))
    for _ in range(draw(st.integers(1, 3))):
        paths = list(record_paths(data))
        path = draw(st.sampled_from(paths[:1] + paths[1:40] + paths[-5:]))
        *parent_path, key = path or (None,)
        parent = data
        for step in parent_path:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "delete", "add"] if path else ["replace"]))
        if not path:
            data = draw(json_values)
            break
        if action == "delete":
            del parent[key]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["offender", "action", "kind", "x", "version", "snapshots"]))] = draw(json_values)
        else:
            parent[key] = draw(json_values)
        if not isinstance(data, dict):
            break
    text = json.dumps(data)
    for name, raw in RAW_JSON.items():
        text = text.replace(f'"@@{name}@@"', raw)
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=damaged_records())
def test_any_damaged_record_loads_or_raises_one_record_error(text):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "damaged.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            record = load_record(path)
        except RecordError as err:
            assert str(err) and len(str(err)) < 2000  # one readable message, not a dump of the file
        else:
            assert Episode.from_record(record) is not None


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("version", "9" * 5000, "too long"),
        ("actions", "[" + "1" * 4400 + "]", "too long"),
        ("ending", '{"kind": "illegal_action", "offender": 7, "action": 0}', "not a seat"),
        ("ending", '{"kind": "illegal_action", "offender": 100000000000000000000, "action": 0}', "not a seat"),
    ],
)
def test_huge_numbers_and_an_offender_who_is_not_a_seat_are_record_errors(tmp_path, field, value, message):
    data = finished_game().record().to_dict()
    data[field] = "@@"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data).replace('"@@"', value))
    with pytest.raises(RecordError, match=message):
        load_record(path)


def test_episode_replay_refuses_an_offender_who_is_not_a_seat():
    from gameshelf.envs.core.record import Ending

    episode = Episode(envs.make_game("level_x-v0"))
    for offender in (7, -1, 10**20, True):
        with pytest.raises(ValueError, match="not a seat"):
            episode.replay([], Ending("illegal_action", offender, 0))
    assert episode.state is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_without_writer_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    result: list[BaseException | None] = []

    def load():
        try:
            load_record(fifo)
        except BaseException as err:  # handed to the test's thread
            result.append(err)
        else:
            result.append(None)

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():  # unblock the hung open so the thread ends
        with open(fifo, "wb"):
            pass
        worker.join(timeout=10)
        pytest.fail("load_record blocked on a FIFO without a writer")
    assert isinstance(result[0], RecordError) and "not a regular file" in str(result[0])


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_devices_and_folders_are_refused_without_reading(tmp_path, device):
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    for path in (device, tmp_path):
        with pytest.raises(RecordError, match="not a regular file"):
            load_record(path)


@pytest.mark.skipif(not os.path.isfile("/proc/self/maps"), reason="no /proc here")
def test_reading_stops_one_byte_past_the_limit(monkeypatch):
    """A /proc file is a regular file whose size reads as 0: only the limit plus one byte of it is read."""
    from gameshelf.envs.core import record as record_module

    monkeypatch.setattr(record_module, "MAX_BYTES", 100)
    reads = []
    real_fdopen = os.fdopen

    class Spy:
        def __init__(self, f):
            self.f = f

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def read(self, size=-1):
            reads.append(size)
            return self.f.read(size)

    monkeypatch.setattr(record_module.os, "fdopen", lambda fd, *a, **k: Spy(real_fdopen(fd, *a, **k)))
    with pytest.raises(RecordError, match="more than the 100 bytes"):
        load_record("/proc/self/maps")
    assert reads == [101]
