"""``paiko-v1``: Paikō's compact observation (``envs/paiko/kernel_v1.py``) beside ``paiko-v0``'s planes."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import envs, vector
from gameshelf.envs.core.kernel import seed_generators
from gameshelf.envs.paiko import kernel as K0
from gameshelf.envs.paiko import kernel_v1 as K1
from gameshelf.envs.paiko.board import IS_BLACK, SQUARES, ZONE
from gameshelf.envs.paiko.observation import LAYOUT, LAYOUT_V1
from gameshelf.envs.testing import check_batched

WHOLE_PLANES = ("own_reserve", "opp_reserve", "own_hand", "opp_hand", "scores", "lost", "phase", "selected_type", "counters")
"""``paiko-v0``'s pieces that hold one value on every cell: ``paiko-v1`` gives each value once."""
SQUARE_PIECES = ("own_threat", "opp_threat", "own_cover", "opp_cover", "repeat", "selected")
"""Pieces that are per square in both encodings, with the same channels."""


def v0_from_v1(obs: np.ndarray) -> np.ndarray:
    """``paiko-v0``'s observation rebuilt from ``paiko-v1``'s alone (the seat is read from ``observer``)."""
    seat = int(np.flatnonzero(LAYOUT_V1.view(obs, "observer"))[0])
    out = LAYOUT.zeros()

    def planes(name: str) -> np.ndarray:  # v1's (k, 14, 14) or (14, 14) planes as v0's (14, 14, k)
        view = LAYOUT_V1.view(obs, name)
        return np.moveaxis(view, 0, -1) if view.ndim == 3 else view[..., None]

    tiles, owner, facing = planes("tiles"), planes("owner"), planes("facing")
    for k, side in enumerate(("own", "opp")):
        for t in range(tiles.shape[-1]):
            for f in range(4):
                LAYOUT.view(out, f"{side}_tiles")[..., 4 * t + f] = tiles[..., t] * owner[..., k] * facing[..., f]
    for name in SQUARE_PIECES:
        LAYOUT.view(out, name)[:] = planes(name)
    for (x, y), black, zone in zip(SQUARES, IS_BLACK, ZONE, strict=True):
        LAYOUT.view(out, "squares")[y, x] = 0.0 if black else 1.0
        LAYOUT.view(out, "black")[y, x] = 1.0 if black else 0.0
        if zone >= 0:
            LAYOUT.view(out, "own_home" if zone == seat else "opp_home")[y, x] = 1.0
    for name in WHOLE_PLANES:
        LAYOUT.view(out, name)[:] = LAYOUT_V1.view(obs, name)
    return out


def test_v1_carries_what_v0_carries_on_every_node_of_random_games():
    """At every node of random games (the end included) and for both seats, ``paiko-v0``'s observation is rebuilt
    bit for bit from ``paiko-v1``'s alone; so is v1's from v0's entries it names (the same values, once)."""
    game = envs.make_game("paiko-v1", max_turns=60)
    rng = np.random.default_rng(3)
    v0 = np.empty((1, K0.OBS_SIZE), dtype=np.float32)
    nodes = 0
    for _ in range(4):
        state = game.new_initial_state()
        while True:
            for seat in (0, 1):
                obs = state.observation(seat)
                assert obs.shape == LAYOUT_V1.shape and obs.dtype == np.float32
                K0.observation(state.S, 0, seat, v0)
                assert np.array_equal(v0_from_v1(obs).view(np.uint32), v0[0].reshape(LAYOUT.shape).view(np.uint32))
                nodes += 1
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
    assert nodes > 400


def test_v1_is_a_quarter_of_v0_and_names_the_seat():
    v1 = envs.make_game("paiko-v1").info
    v0 = envs.make_game("paiko-v0").info
    assert v1.observation_shape == (14 * 14 * 22 + 63,) and v0.observation_shape == (14, 14, 137)
    assert np.prod(v1.observation_shape) * 4 < np.prod(v0.observation_shape)
    state = envs.make_game("paiko-v1").new_initial_state()
    assert LAYOUT_V1.view(state.observation(0), "observer").tolist() == [1.0, 0.0]
    assert LAYOUT_V1.view(state.observation(1), "observer").tolist() == [0.0, 1.0]


@pytest.mark.parametrize("options", [{"max_turns": 40}, {"max_turns": 1}])
def test_batched_games_replay_through_the_aec_env(options):
    assert check_batched("paiko-v1", num_envs=4, steps=300, seed=0, **options) > 0


def test_observations_updated_in_place_are_the_full_rewrite():
    """On every step of random batched games (resets and auto-resets included), each row's observation, updated
    where it changed (for the same seat or the other), holds bit for bit what ``observation`` writes whole."""
    env = vector.make("paiko-v1", num_envs=6, seed=5, max_turns=12)
    assert env._memo is not None
    full = np.empty_like(env._flat_obs)
    rngs = seed_generators(6, 6)
    ends = swaps = 0
    before = env.reset().current_player.copy()
    for t in range(1, 401):
        out = env.reset() if t == 200 else env.step(env.random_actions(rngs))
        ends += int(out.terminated.sum() + out.truncated.sum())
        swaps += int((out.current_player != before).sum())
        before = out.current_player.copy()
        full[:] = np.nan  # so that an entry the kernel does not write cannot match
        for i in range(env.num_envs):
            K1.observation(env.states, i, int(out.current_player[i]), full)
        assert np.array_equal(out.observation.view(np.uint32), full.view(np.uint32)), t
    assert ends >= 6 and swaps >= 200  # auto-resets and changes of seat are checked too


def test_the_same_kernels_run_as_plain_python():
    """``NUMBA_DISABLE_JIT=1``: v1's observation kernels, run uncompiled, give the compiled batch's results."""
    from tests.test_vector import test_the_same_kernels_run_as_plain_python as compare

    compare("paiko-v1", {"max_turns": 12})


TINY = {
    "n_envs": 2,
    "timesteps": 256,
    "observation": "flat",
    "opponent": "random",
    "reward": "outcome",
    "reward_scale": 1.0,
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
    "eval": {"every": 256, "games": 2, "opponents": ["random"]},
    "checkpoint_every": 256,
}


@pytest.mark.parametrize("backend", ["sb3", "batched"])
def test_training_takes_the_new_id_and_its_model_plays_it(backend, tmp_path):
    """A tiny run of each SB3 backend on ``paiko-v1`` (the game's config, made small), then its model plays."""
    from gameshelf.training.agents import make_agent
    from gameshelf.training.train import train

    result = train("paiko-v1", backend=backend, config=TINY, out=tmp_path / "run", progress=False)
    assert result.timesteps >= 256 and result.model_path.is_file()
    agent = make_agent(f"model:{result.model_path}", "paiko-v1")
    state = envs.make_game("paiko-v1").new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(40):
        state.apply_action(agent.act(state, state.current_player(), rng))
