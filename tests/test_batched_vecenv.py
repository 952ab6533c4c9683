"""The SB3 VecEnv over batched games: one learner seat per game, opponents inside, MaskablePPO runs on it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from gameshelf.wrappers.batched import BatchedSingleSeatVecEnv


def play_random(env: BatchedSingleSeatVecEnv, episodes: int, seed: int = 0, obs_size: int = 212) -> list[float]:
    rng = np.random.default_rng(seed)
    env.reset()
    totals = np.zeros(env.num_envs)
    finished: list[float] = []
    while len(finished) < episodes:
        masks = env.action_masks()
        assert masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = env.step(actions)
        assert obs.shape == (env.num_envs, obs_size) and rewards.dtype == np.float32
        totals += rewards
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (obs_size,)
            finished.append(float(totals[i]))
            totals[i] = 0.0
        assert not rewards[~dones].any()  # outcome rewards arrive only with the end of a game
    return finished


def test_learner_is_to_move_and_episodes_return_the_outcome():
    env = BatchedSingleSeatVecEnv("level_x-v0", num_envs=6, opponents="random", seed=1, num_players=3)
    returns = play_random(env, 30)
    assert set(returns) <= {-1.0, -0.5, 0.0, 0.5, 1.0}
    obs = env.reset()
    seats = env._seats
    # the observation is the learner's own (egocentric slot 0 is to move)
    assert (obs[:, 202] == 1.0).all() and (env.batch._players == seats).all()


def test_heuristic_opponents_beat_a_random_learner_and_seeds_repeat():
    env = BatchedSingleSeatVecEnv("level_x-v0", num_envs=4, opponents="heuristic", seed=2)
    returns = play_random(env, 12)
    assert np.mean(returns) < -0.5
    a = BatchedSingleSeatVecEnv("level_x-v0", num_envs=4, seed=5).reset()
    b = BatchedSingleSeatVecEnv("level_x-v0", num_envs=4, seed=5).reset()
    assert np.array_equal(a, b)


def test_bad_arguments():
    with pytest.raises(ValueError, match="opponents"):
        BatchedSingleSeatVecEnv("level_x-v0", num_envs=2, opponents="self")
    from tests.toy_nim import register_nim, unregister_nim

    try:  # a registered game without kernels
        with pytest.raises(ValueError, match="no compiled kernel"):
            BatchedSingleSeatVecEnv(register_nim(), num_envs=2)
    finally:
        unregister_nim()


def test_maskable_ppo_learns_on_it():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = BatchedSingleSeatVecEnv("level_x-v0", num_envs=4, seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256


def test_olenon_four_seats_with_heuristic_partners_and_opponents():
    env = BatchedSingleSeatVecEnv("olenon-v0", num_envs=3, opponents="heuristic", seed=3)
    returns = play_random(env, 6, obs_size=120)
    assert set(returns) <= {-1.0, 1.0}
