"""The batched environment (``gameshelf.vector``) against the AEC environment, by replaying its games."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from gameshelf import envs, vector
from gameshelf.envs.core.game import IllegalActionError
from gameshelf.envs.core.kernel import seed_generators
from gameshelf.envs.testing import check_batched

CASES = [
    ("level_x-v0", {}),
    ("level_x-v0", {"num_players": 3, "displaced_to": "square1"}),
    ("level_x-v0", {"num_players": 4, "remove_one_per_stack_if_lt4": True}),
    ("level_x-v0", {"num_players": 3, "remove_one_per_stack_if_lt4": True}),
    ("olenon-v0", {}),
    ("olenon-v0", {"first_player_rule": "winner", "open_team_info": True}),
    ("olenon-v0", {"first_player_rule": "loser_team"}),
    ("olenon-v0", {"first_player_rule": "random"}),
    ("matchstick_tycoon-v0", {"num_players": 2}),
    ("matchstick_tycoon-v0", {"num_players": 3, "expansion_copies": 2}),
    ("matchstick_tycoon-v0", {}),
    ("matchstick_tycoon-v0", {"num_players": 5, "expansion_copies": 4}),
    ("matchstick_tycoon-v0", {"num_players": 6, "deal": "all"}),
    ("matchstick_tycoon-v0", {"num_players": 7, "expansion_copies": 2}),
    ("matchstick_tycoon-v0", {"num_players": 8}),
    ("matchstick_tycoon-v0", {"num_players": 2, "deal": "all", "expansion_copies": 4}),
    ("matchstick_tycoon-v0", {"num_players": 3, "deal": "all"}),
    ("range_ta_ludotheque-v0", {"num_players": 1}),
    ("range_ta_ludotheque-v0", {"num_players": 1, "scoring": "expert", "comp_rows": 1, "comp_cols": 1}),
    ("range_ta_ludotheque-v0", {}),
    ("range_ta_ludotheque-v0", {"num_players": 3, "scoring": "expert"}),
    ("range_ta_ludotheque-v0", {"num_players": 4, "walls_block_adjacency": True, "playmat_only_if_no_box": False}),
    ("range_ta_ludotheque-v0", {"num_players": 5, "comp_rows": 1, "comp_cols": 3, "comp_h": 4, "comp_w": 5}),
    ("range_ta_ludotheque-v0", {"num_players": 6, "scoring": "expert", "comp_rows": 4, "comp_cols": 4, "comp_h": 6, "comp_w": 6}),
    ("range_ta_ludotheque-v0", {"num_players": 7, "comp_rows": 3, "comp_h": 5, "walls_block_adjacency": True}),
    ("range_ta_ludotheque-v0", {"num_players": 8, "scoring": "expert", "playmat_only_if_no_box": False}),
    ("koplus-v0", {}),
    ("koplus-v0", {"num_players": 3}),
    ("koplus-v0", {"num_players": 4, "board_mode": "standard"}),
    ("koplus-v0", {"num_players": 2, "board_mode": "standard"}),
    ("koplus-v0", {"num_players": 4}),
    ("cargo_empire-v0", {"num_players": 1}),
    ("cargo_empire-v0", {"num_players": 3}),
    ("cargo_empire-v0", {"num_players": 4}),
    ("cargo_empire-v0", {"num_players": 5}),
    ("cargo_empire-v0", {}),
    ("amoriax-v0", {}),
    ("amoriax-v0", {"inner_size": 5, "start": "sides"}),
    ("amoriax-v0", {"red_lock": "own_turns", "max_plies": 40}),
    ("amoriax-v0", {"inner_size": 5, "start": "sides", "red_lock": "own_turns", "max_plies": 120}),
    ("tsukuru_ten_ten-v0", {}),
    (
        "tsukuru_ten_ten-v0",
        {"num_players": 3, "scoring": "advanced", "claim_from": "previous_player", "game_end": "dealer_twice"},
    ),
    ("tsukuru_ten_ten-v0", {"num_players": 4}),
    ("tsukuru_ten_ten-v0", {"num_players": 2, "scoring": "advanced", "game_end": "dealer_twice"}),
    ("paiko-v0", {"max_turns": 40}),
    ("paiko-v0", {"num_players": 2, "max_turns": 1}),
    ("paiko-v0", {"max_turns": 12}),
    ("paiko-v1", {"max_turns": 12}),
    ("paiko-v1", {"max_turns": 40}),
    ("catsle_builders-v0", {}),
    ("catsle_builders-v0", {"num_players": 3}),
    ("catsle_builders-v0", {"num_players": 3, "column_limits": (2, 2, 3, 3)}),
    ("catsle_builders-v0", {"num_players": 5, "column_limits": (0, 3, 3, 4)}),
]
REPLAY_STEPS = {"tsukuru_ten_ten-v0": 2400}
"""Batch steps of the replay test for ids whose random games run much longer than its 400 steps."""


@pytest.mark.parametrize(("env_id", "options"), CASES)
def test_batched_games_replay_through_the_aec_env(env_id, options):
    """Every game of the batch, replayed through ``envs.make`` with the same chance outcomes: same rewards,
    observations, masks, players, ends."""
    games = check_batched(env_id, num_envs=6, steps=REPLAY_STEPS.get(env_id, 400), seed=3, **options)
    assert games >= 6  # several whole games per slot, auto-reset included


def test_same_seed_same_games_and_another_seed_other_games():
    def run(seed):
        env = vector.make("level_x-v0", num_envs=16, seed=seed, num_players=3)
        env.reset()
        rngs = seed_generators(99, 16)
        trace = []
        for _ in range(200):
            out = env.step(env.random_actions(rngs))
            trace.append((out.observation.copy(), out.rewards.copy(), out.terminated.copy()))
        return trace

    a, b, c = run(5), run(5), run(6)
    assert all(np.array_equal(x, y) for s, t in zip(a, b, strict=True) for x, y in zip(s, t, strict=True))
    assert not all(np.array_equal(s[0], t[0]) for s, t in zip(a, c, strict=True))


def test_reset_with_a_seed_restarts_the_same_games():
    env = vector.make("level_x-v0", num_envs=4, seed=1)
    first = env.reset(seed=11).observation.copy()
    env.step(env.random_actions(seed_generators(0, 4)))
    assert np.array_equal(env.reset(seed=11).observation, first)
    assert not np.array_equal(env.reset(seed=12).observation, first)


def test_shapes_dtypes_and_buffers():
    env = vector.make("level_x-v0", num_envs=5, seed=0, num_players=4)
    out = env.reset()
    assert out.current_player.shape == (5,) and out.observation.shape == (5, 212) and out.observation.dtype == np.float32
    assert out.action_mask.shape == (5, 49) and out.action_mask.dtype == bool and out.action_mask.any(axis=1).all()
    assert out.rewards.shape == (5, 4) and not out.rewards.any()
    assert out.terminated.dtype == bool and out.truncated.dtype == bool
    assert set(out.current_player.tolist()) <= {0, 1, 2, 3}
    again = env.step(env.random_actions(seed_generators(0, 5)))
    assert again.observation is out.observation  # buffers, overwritten by each step (documented)


def test_illegal_actions_raise_naming_the_games_and_change_nothing():
    env = vector.make("level_x-v0", num_envs=4, seed=0)
    out = env.reset()
    before = env.states.copy()
    actions = np.flatnonzero(out.action_mask[0])[:1].repeat(4)  # pass is legal everywhere
    actions[[1, 3]] = -1
    with pytest.raises(IllegalActionError, match=r"env 1: action -1, env 3: action -1"):
        env.step(actions)
    illegal = np.flatnonzero(~out.action_mask[2])[0]
    actions[[1, 3]] = 0
    actions[2] = illegal
    with pytest.raises(IllegalActionError, match=re.escape(f"env 2: action {illegal}")):
        env.step(actions)
    assert np.array_equal(env.states, before)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="integer"):
        env.step(np.zeros(4))


DRIVER_SCRIPT = """
import sys
import numpy as np
from gameshelf import vector
from gameshelf.envs.core.kernel import seed_generators

env = vector.make(sys.argv[1], num_envs=3, seed=0)
out = env.reset()
illegal = int(np.flatnonzero(~out.action_mask[2])[0])
buffers = (env.states, env.rngs, env._players, env._obs, env._masks, env._rewards, env._terminated, env._truncated)
for bad in ({0: 10**8}, {1: -(10**8)}, {2: illegal}, {0: 10**8, 1: -(10**8), 2: illegal}):
    actions = env.random_actions(seed_generators(1, 3))
    for i, a in bad.items():
        actions[i] = a
    before = [b.copy() for b in buffers]
    refused = env.drivers.batch_step(env.states, env.rngs, env._initial, actions, env._all, env.max_game_length,
        env._players, env._flat_obs, env._masks, env._rewards, env._terminated, env._truncated)
    assert refused == len(bad), (bad, refused)
    assert all(np.array_equal(b, a) for b, a in zip(before, buffers)), bad
inactive = np.array([True, True, False])
actions = env.random_actions(seed_generators(1, 3))
actions[2] = 10**8  # ignored: its row is not stepped
assert env.drivers.batch_step(env.states, env.rngs, env._initial, actions, inactive, env.max_game_length,
    env._players, env._flat_obs, env._masks, env._rewards, env._terminated, env._truncated) == 0
print("refused")
"""


@pytest.mark.parametrize("env_id", ["level_x-v0", "koplus-v0"])
def test_the_batch_driver_refuses_illegal_actions_and_changes_nothing(env_id):
    """Called directly, unchecked, ``batch_step`` refuses out-of-range and illegal actions itself (it returns how
    many rows, changing nothing) instead of applying them, which could write outside the state matrix and end
    the process: so it runs in a subprocess."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", DRIVER_SCRIPT, env_id], cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"exit status {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.split() == ["refused"]


def test_koplus_illegal_actions_raise_and_change_nothing():
    env = vector.make("koplus-v0", num_envs=2, seed=0)
    env.reset()
    before = env.states.copy()
    for action in (10**8, -(10**8)):
        with pytest.raises(IllegalActionError, match=f"env 1: action {action}"):
            env.step(np.array([env.random_actions(seed_generators(0, 2))[0], action]))
    assert np.array_equal(env.states, before)


def test_active_takes_any_array_like_of_bools_and_refuses_anything_else():
    env = vector.make("level_x-v0", num_envs=3, seed=0)
    out = env.reset()

    def first_legal():
        return np.array([np.flatnonzero(m)[0] for m in out.action_mask])

    before = env.states.copy()
    env.step(first_legal(), active=[False, True, False])  # a list
    assert np.array_equal(env.states[[0, 2]], before[[0, 2]]) and not np.array_equal(env.states[1], before[1])
    for active in ((True, False, False), np.zeros(3, dtype=bool), np.array([[True], [True], [True]])[:, 0]):
        env.step(first_legal(), active=active)  # a tuple, an array, a strided view
    before = env.states.copy()
    for bad in ([1, 0, 1], [True, False], np.ones((3, 1), bool), "yes", 1, [True, [False], True], [0.5] * 3):
        with pytest.raises(ValueError, match="active must be 3 bools"):
            env.step(first_legal(), active=bad)
    assert np.array_equal(env.states, before)


def test_bad_construction():
    from tests.toy_nim import register_nim, unregister_nim

    try:  # a registered game without kernels: the refusal names the ids that have them
        with pytest.raises(ValueError, match=r"no compiled kernel.*level_x-v0.*olenon-v0"):
            vector.make(register_nim(), num_envs=2)
    finally:
        unregister_nim()
    with pytest.raises(Exception, match="level_x-v0"):
        vector.make("no_such_game-v0", num_envs=2)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="num_envs"):
            vector.make("level_x-v0", num_envs=bad)
    with pytest.raises(ValueError, match="num_players"):
        vector.make("level_x-v0", num_envs=2, num_players=7)
    with pytest.raises(RuntimeError, match="reset"):
        vector.make("level_x-v0", num_envs=2).step(np.zeros(2, dtype=np.int64))


def test_batched_ids_are_the_games_with_kernels():
    """Whether an id is batched is read from its game: the registry's flag, ``batched_ids`` and ``BATCHED_IDS``
    agree with the games that have kernels, and every such game runs on the kernel template."""
    from gameshelf.envs.core.kernel import KernelGame
    from gameshelf.envs.testing import check_kernel_template

    for env_id in envs.registered_ids():
        game = envs.make_game(env_id)
        has_kernel = getattr(game, "kernel", None) is not None
        assert has_kernel == envs.spec(env_id).batched == (env_id in envs.batched_ids()), env_id
        assert has_kernel == isinstance(game, KernelGame), env_id
        if has_kernel:
            check_kernel_template(env_id)
    assert tuple(envs.batched_ids()) == vector.BATCHED_IDS
    assert {"level_x-v0", "olenon-v0"} <= set(vector.BATCHED_IDS)


def test_the_drivers_are_the_templates_and_a_copy_is_refused():
    """Each game's drivers are the template's code compiled over its kernels; a kernel module that brings its
    own driver, or lacks part of the interface, is refused."""
    import types

    from gameshelf.envs.core.kernel import DRIVER_NAMES, is_template_driver, kernel_drivers
    from gameshelf.envs.level_x import kernel as level_x_kernel
    from gameshelf.envs.olenon import kernel as olenon_kernel

    made = [kernel_drivers(level_x_kernel), kernel_drivers(olenon_kernel)]
    assert kernel_drivers(level_x_kernel) is made[0]  # made once per process
    for drivers in made:
        assert all(is_template_driver(getattr(drivers, name), name) for name in DRIVER_NAMES)
    assert made[0].batch_step is not made[1].batch_step
    copy = types.ModuleType("a_game_with_its_own_driver")
    copy.__dict__.update({k: v for k, v in vars(level_x_kernel).items() if not k.startswith("__")})
    copy.batch_step = made[0].batch_step
    with pytest.raises(TypeError, match="defines batch_step"):
        kernel_drivers(copy)
    del copy.batch_step, copy.observation
    with pytest.raises(TypeError, match="lacks observation"):
        kernel_drivers(copy)


def test_the_mask_is_read_only_because_the_next_step_checks_against_it():
    env = vector.make("olenon-v0", num_envs=2, seed=0)
    out = env.reset()
    with pytest.raises(ValueError, match="read-only"):
        out.action_mask[0, 0] = True
    legal = np.array([np.flatnonzero(m)[0] for m in out.action_mask])
    assert env.step(legal).action_mask is out.action_mask


@pytest.mark.parametrize("width", [1, 7, 8, 9, 63, 64, 65, 200, 1054])
def test_masked_random_picks_the_drawn_legal_action(width):
    """The pick is the ``below(count)``-th legal action, drawn from the row's generator (and no draw where none is
    legal): the same draws and picks as walking the legal actions one by one."""
    from gameshelf.envs.core.kernel import below, masked_random

    rng = np.random.default_rng(width)
    masks = rng.random((60, width)) < rng.choice([0.0, 0.01, 0.1, 0.5, 1.0], size=(60, 1))
    rngs = seed_generators(width, 60)
    expected_rngs = rngs.copy()
    out = np.empty(60, dtype=np.int64)
    for _ in range(2):
        masked_random(masks, rngs, out)
        for i, row in enumerate(masks):
            legal = np.flatnonzero(row)
            assert out[i] == (legal[below(expected_rngs, i, len(legal))] if len(legal) else -1)
    assert (rngs == expected_rngs).all()


INCREMENTAL_CASES = [case for case in CASES if hasattr(envs.make_game(case[0]).kernel, "observation_update")]
"""The cases whose kernel updates observations in place (``envs.core.kernel.OPTIONAL_INTERFACE``)."""


@pytest.mark.parametrize(("env_id", "options"), INCREMENTAL_CASES)
def test_observations_updated_in_place_are_the_full_rewrite(env_id, options):
    """On every step of random batched games (resets and auto-resets included), each row's observation, updated
    where it changed, holds bit for bit what the kernel's ``observation`` writes whole for its player to move."""
    env = vector.make(env_id, num_envs=6, seed=5, **options)
    assert env._memo is not None
    full = np.empty_like(env._flat_obs)
    rngs = seed_generators(6, 6)
    ends = 0
    for t in range(301):
        out = env.reset() if t in (0, 150) else env.step(env.random_actions(rngs))
        ends += int(out.terminated.sum() + out.truncated.sum())
        full[:] = np.nan  # so that an entry the kernel does not write cannot match
        for i in range(env.num_envs):
            env.kernel.observation(env.states, i, int(out.current_player[i]), full)
        assert np.array_equal(out.observation.reshape(env.num_envs, -1).view(np.uint32), full.view(np.uint32)), t
    assert ends >= 6  # auto-resets are checked too


def test_the_observation_is_read_only_because_steps_update_it_in_place():
    env = vector.make("paiko-v0", num_envs=2, seed=0)
    out = env.reset()
    with pytest.raises(ValueError, match="read-only"):
        out.observation[0, 0, 0, 0] = 1.0


def test_truncation_at_the_length_limit_resets_the_game():
    env = vector.make("level_x-v0", num_envs=3, seed=0)
    env.reset()
    env.max_game_length = 7  # the game's limit (2000) is out of reach of a quick test
    rngs = seed_generators(0, 3)
    for step in range(1, 8):
        out = env.step(env.random_actions(rngs))
        assert out.truncated.all() == (step == 7) and not out.terminated.any()
    assert (env.states[:, env.kernel.DECISIONS] == 0).all() and not out.rewards.any()


def test_kernel_dice_follow_the_roll_probabilities():
    from gameshelf.envs.level_x import kernel
    from gameshelf.envs.level_x.actions import ROLL_PROBS

    state = envs.make_game("level_x-v0").new_initial_state()
    state.apply_action(0)
    rngs = seed_generators(4, 1)
    draws = 60000
    counts = np.bincount([kernel.sample_chance(state.S, 0, rngs) for _ in range(draws)], minlength=126)
    expected = np.array(ROLL_PROBS) * draws
    assert float(((counts - expected) ** 2 / expected).sum()) < 200  # 125 degrees of freedom


def test_kernel_playout_reaches_the_end():
    rng = np.random.default_rng(0)
    game = envs.make_game("level_x-v0", num_players=3)
    lengths = []
    for _ in range(50):
        state = game.new_initial_state()
        lengths.append(state.random_playout(rng))
        assert state.is_terminal() and sorted(state.returns().tolist()) in (
            [-1.0, 0.0, 1.0],
            [-1.0, 0.5, 0.5],
            [-0.5, -0.5, 1.0],
            [0.0, 0.0, 0.0],
        )
    assert 60 < np.mean(lengths) < 130  # random 3-player games take about 91 decisions


PLAIN_PYTHON_CASES = list({env_id: (env_id, options) for env_id, options in CASES}.values())
"""One case per batched id (its last in ``CASES``) for the compiled-against-interpreted comparison."""

SCRIPT = """
import json, sys
import numpy as np
from gameshelf import envs, vector
from gameshelf.envs.core.kernel import seed_generators
env_id, options = sys.argv[1], json.loads(sys.argv[2])
env = vector.make(env_id, num_envs=3, seed=2, **options)
env.reset()
rngs = seed_generators(1, 3)
total = 0.0
for _ in range(150):
    out = env.step(env.random_actions(rngs))
    total += float(out.observation.sum()) + 10 * float(out.rewards.sum() ** 2) + int(out.terminated.sum())
state = envs.make_game(env_id, **options).new_initial_state()
played = state.random_playout(np.random.default_rng(7))
print(env_id, repr(total), env.states.sum(), played, state.returns().tolist(), state.observation(0).sum())
"""


@pytest.mark.parametrize(("env_id", "options"), PLAIN_PYTHON_CASES)
def test_the_same_kernels_run_as_plain_python(env_id, options):
    """``NUMBA_DISABLE_JIT=1``: the undecorated functions give exactly the compiled results."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    outputs = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        command = [sys.executable, "-c", SCRIPT, env_id, json.dumps(options)]
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and outputs[0].startswith(env_id)


CACHE_SCRIPT = """
from gameshelf import vector
from gameshelf.envs.core.kernel import seed_generators
for env_id in ("level_x-v0", "olenon-v0"):
    env = vector.make(env_id, num_envs=2, seed=0)
    env.reset()
    env.step(env.random_actions(seed_generators(0, 2)))
    for driver in (env.drivers.batch_reset, env.drivers.batch_step):
        print(sum(driver.stats.cache_misses.values()), sum(driver.stats.cache_hits.values()))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled")
def test_a_new_process_loads_the_drivers_from_the_disk_cache():
    """The drivers compiled once are found in numba's disk cache by the next process: it compiles nothing."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runs = [
        subprocess.run([sys.executable, "-c", CACHE_SCRIPT], cwd=root, capture_output=True, text=True, timeout=600)
        for _ in range(2)
    ]
    assert all(run.returncode == 0 for run in runs), runs[-1].stderr
    assert runs[1].stdout.split() == ["0", "1"] * 4  # no miss, one hit: per game, batch_reset and batch_step


def test_mcts_rollouts_use_the_kernel_playout(monkeypatch):
    from gameshelf.envs.level_x.game import LevelXState
    from gameshelf.training.agents.mcts import MCTSAgent

    calls = []
    original = LevelXState.random_playout

    def spy(self, rng, max_decisions=None):
        calls.append(max_decisions)
        return original(self, rng, max_decisions)

    monkeypatch.setattr(LevelXState, "random_playout", spy)
    state = envs.make_game("level_x-v0").new_initial_state()
    rng = np.random.default_rng(0)
    while state.current_player() < 0:
        state.apply_action(state.sample_chance(rng))
    action = MCTSAgent(30).act(state, state.current_player(), rng)
    assert action in state.legal_actions() and len(calls) >= 20


def test_olenon_batch_observes_only_the_acting_seats_hand():
    from gameshelf.envs.olenon import kernel
    from gameshelf.envs.olenon.observation import LAYOUT as OBSERVATION

    env = vector.make("olenon-v0", num_envs=8, seed=4)
    out = env.reset()
    rngs = seed_generators(2, 8)
    for _ in range(100):
        for i in range(8):
            seat = out.current_player[i]
            hand = env.states[i, kernel.HANDS + 7 * seat : kernel.HANDS + 7 * seat + 7]
            assert np.allclose(out.observation[i, OBSERVATION.slices["hand"]], hand / np.array(kernel.DECK))
            assert not out.observation[i, OBSERVATION.slices["open_hands"]].any()  # the others' hands stay hidden
        out = env.step(env.random_actions(rngs))


def test_olenon_kernel_deals_by_the_copies_left():
    state = envs.make_game("olenon-v0").new_initial_state()
    state.apply_action(0)
    from gameshelf.envs.olenon import kernel

    rngs = seed_generators(8, 1)
    counts = np.bincount([kernel.sample_chance(state.S, 0, rngs) for _ in range(32000)], minlength=7)
    assert np.allclose(counts / 32000, np.array(kernel.DECK) / 32, atol=0.01)


def test_matchstick_tycoon_batch_observes_only_the_acting_seats_hand():
    """The batched observation holds the acting seat's hand and nothing of the other hands: the other hands
    redealt among themselves (each keeping its size) give the same observation."""
    from gameshelf.envs.matchstick_tycoon import kernel
    from gameshelf.envs.matchstick_tycoon.observation import LAYOUT as OBSERVATION

    n, faces = 4, kernel.F
    env = vector.make("matchstick_tycoon-v0", num_envs=8, seed=4, num_players=n)
    out = env.reset()
    rngs = seed_generators(2, 8)
    rng = np.random.default_rng(0)
    redealt = 0
    for _ in range(150):
        for i in range(8):
            seat = out.current_player[i]
            hand = env.states[i, kernel.HANDS + faces * seat : kernel.HANDS + faces * (seat + 1)]
            assert np.array_equal(out.observation[i, OBSERVATION.slices["hand"]], hand / 4)
            row = env.states[i : i + 1].copy()
            others = [s for s in range(n) if s != seat]
            held = [row[0, kernel.HANDS + faces * s : kernel.HANDS + faces * (s + 1)] for s in others]
            cards = np.repeat(np.arange(faces), sum(held))
            rng.shuffle(cards)
            pos = 0
            for s in others:
                size = int(row[0, kernel.SIZES + s])
                start = kernel.HANDS + faces * s
                row[0, start : start + faces] = np.bincount(cards[pos : pos + size], minlength=faces)
                pos += size
            redealt += not np.array_equal(row, env.states[i : i + 1])
            seen = np.empty((1, out.observation.shape[1]), dtype=np.float32)
            kernel.observation(row, 0, seat, seen)
            assert np.array_equal(seen[0], out.observation[i])  # the other hands stay hidden
        out = env.step(env.random_actions(rngs))
    assert redealt > 100


def test_range_ta_ludotheque_batch_hides_this_rounds_choices_of_the_other_seats():
    from gameshelf.envs.range_ta_ludotheque import kernel
    from gameshelf.envs.range_ta_ludotheque.observation import LAYOUT as OBSERVATION
    from gameshelf.envs.range_ta_ludotheque.observation import SHEET_CHANNELS

    n, envs_ = 4, 8
    env = vector.make("range_ta_ludotheque-v0", num_envs=envs_, seed=4, num_players=n)
    out = env.reset()
    rngs = seed_generators(2, envs_)
    hidden = 0
    for _ in range(150):
        planes = out.observation.reshape(envs_, 36, OBSERVATION.size)
        for i in range(envs_):
            seat = int(out.current_player[i])
            row = env.states[i]
            for slot in range(n):
                other = (seat + slot) % n
                moves = int(row[kernel.NMOV + other])
                seen = moves - 1 if other < seat else moves  # the seats before the chooser chose this round
                occupied = planes[i, :, slot * SHEET_CHANNELS].sum()
                assert occupied == 36 - kernel.empty_squares(env.states, i, other, seen)
                assert planes[i, 0, OBSERVATION.slices["chosen"].start + slot] == (other < seat)
                hidden += bool(occupied < row[kernel.FILLED + other])
        out = env.step(env.random_actions(rngs))
    assert hidden > 100


def test_cargo_empire_batch_observes_only_the_acting_seats_hand():
    from gameshelf.envs.cargo_empire import kernel
    from gameshelf.envs.cargo_empire.observation import HAND_LEVELS
    from gameshelf.envs.cargo_empire.observation import LAYOUT as OBSERVATION

    env = vector.make("cargo_empire-v0", num_envs=8, seed=4, num_players=3)
    out = env.reset()
    rngs = seed_generators(2, 8)
    for _ in range(150):
        for i in range(8):
            seat = out.current_player[i]
            row = env.states[i]
            hand = row[kernel.HANDS + 3 * seat : kernel.HANDS + 3 * seat + 3]
            shown = OBSERVATION.view(out.observation[i], "hand")
            assert shown.sum(axis=1).tolist() == np.minimum(hand, HAND_LEVELS).tolist()
            own = row[kernel.PRIV + kernel.C * seat : kernel.PRIV + kernel.C * seat + row[kernel.PRIV_LEN + seat]]
            assert np.flatnonzero(OBSERVATION.view(out.observation[i], "city_own_private")).tolist() == sorted(own.tolist())
            goals = row[kernel.GOALS + kernel.G * seat : kernel.GOALS + kernel.G * seat + row[kernel.GOAL_LEN + seat]]
            assert np.flatnonzero(OBSERVATION.view(out.observation[i], "own_goals")).tolist() == sorted(goals.tolist())
        out = env.step(env.random_actions(rngs))


def test_tsukuru_ten_ten_batch_observes_only_the_acting_seats_hand():
    from gameshelf.envs.tsukuru_ten_ten import kernel
    from gameshelf.envs.tsukuru_ten_ten.observation import LAYOUT as OBSERVATION

    env = vector.make("tsukuru_ten_ten-v0", num_envs=8, seed=4, num_players=3)
    out = env.reset()
    rngs = seed_generators(2, 8)
    shuffle = np.random.default_rng(0)
    obs = np.empty((1, OBSERVATION.size), dtype=np.float32)
    width = kernel.NUM_KINDS
    for _ in range(300):
        for i in range(8):
            seat = int(out.current_player[i])
            row = env.states[i].copy()
            hand = row[kernel.HANDS + width * seat : kernel.HANDS + width * (seat + 1)]
            assert np.allclose(out.observation[i, OBSERVATION.slices["hand"]], hand / np.array(kernel.COPIES))
            # the other concealed hands and the deck redealt (same sizes): the observation does not change
            others = [s for s in range(3) if s != seat]
            pool = row[kernel.DECK : kernel.DECK + width].astype(np.int64)
            for s in others:
                pool = pool + row[kernel.HANDS + width * s : kernel.HANDS + width * (s + 1)]
            tiles = shuffle.permutation(np.repeat(np.arange(width), pool))
            start = 0
            for s in others:
                size = int(row[kernel.HANDS + width * s : kernel.HANDS + width * (s + 1)].sum())
                counts = np.bincount(tiles[start : start + size], minlength=width)
                row[kernel.HANDS + width * s : kernel.HANDS + width * (s + 1)] = counts
                start += size
            row[kernel.DECK : kernel.DECK + width] = np.bincount(tiles[start:], minlength=width)
            kernel.observation(row.reshape(1, -1), 0, seat, obs)
            assert np.array_equal(obs[0], out.observation[i])
        out = env.step(env.random_actions(rngs))


def test_catsle_builders_batch_observes_only_the_acting_seats_hand():
    from gameshelf.envs.catsle_builders import kernel
    from gameshelf.envs.catsle_builders.observation import LAYOUT as OBSERVATION

    env = vector.make("catsle_builders-v0", num_envs=8, seed=4, num_players=5)
    out = env.reset()
    rngs = seed_generators(2, 8)
    hidden = 0
    for _ in range(300):
        for i in range(8):
            seat = out.current_player[i]
            where = env.states[i, kernel.LOC : kernel.LOC + kernel.NC]
            obs = out.observation[i]
            assert np.array_equal(OBSERVATION.view(obs, "hand"), (where == kernel.IN_HAND + seat).astype(np.float32))
            others = (where >= kernel.IN_HAND) & (where < kernel.IN_HAND + 5) & (where != kernel.IN_HAND + seat)
            hidden += int(others.sum())
            for piece in ("played", "trick_left", "discards", "pending"):  # no card piece names another seat's cards
                assert not OBSERVATION.view(obs, piece)[others].any()
            assert not OBSERVATION.view(obs, "trick")[:, others].any()
        out = env.step(env.random_actions(rngs))
    assert hidden > 0
