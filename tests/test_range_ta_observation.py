"""Range Ta Ludothèque's observation updated in place (``kernel.observation_update``): bit for bit what the full
write gives, over whole games of every sheet shape and option, and written only where it changes."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import vector
from gameshelf.envs.core.kernel import seed_generators
from gameshelf.envs.range_ta_ludotheque import kernel as K

SOLO_OPTIONS = [
    {},
    {"scoring": "expert", "walls_block_adjacency": True},
    {"playmat_only_if_no_box": False, "comp_rows": 1, "comp_cols": 1},
    {"comp_rows": 1, "comp_cols": 3, "comp_h": 4, "comp_w": 5},
    {"comp_rows": 4, "comp_cols": 4, "comp_h": 6, "comp_w": 6, "scoring": "expert"},
    {"comp_rows": 3, "comp_h": 5, "playmat_only_if_no_box": False},
]


def states_of_random_games(steps: int, num_envs: int = 3, **options):
    """``(env, [(states, players), ...])``: the batched rows after each of ``steps`` random steps (games end and
    start again on the way)."""
    env = vector.make("range_ta_ludotheque-v0", num_envs=num_envs, seed=3, **options)
    out = env.reset()
    rngs = seed_generators(9, num_envs)
    seen = [(env.states.copy(), out.current_player.copy())]
    for _ in range(steps):
        out = env.step(env.random_actions(rngs))
        seen.append((env.states.copy(), out.current_player.copy()))
    return env, seen


def full(states: np.ndarray, players: np.ndarray, width: int) -> np.ndarray:
    expected = np.full((len(states), width), np.nan, dtype=np.float32)
    for i in range(len(states)):
        K.observation(states, i, int(players[i]), expected)
    return expected


@pytest.mark.parametrize("options", SOLO_OPTIONS)
def test_a_solo_observation_updated_in_place_is_the_full_write_and_leaves_the_rest_unwritten(options):
    """Every step of random solo games (new games included): the update gives the full write's bits, and an
    entry that never changes (a padded seat slot's) is not written again."""
    env, seen = states_of_random_games(40, num_envs=3, num_players=1, **options)
    width = env._flat_obs.shape[1]
    obs = np.zeros((3, width), dtype=np.float32)
    memo = np.full((3, K.OBS_MEMO), -1, dtype=np.int16)
    padded = K.O_SHEETS + 7 * 16  # slot 7 of square 0: always 0 in a solo game
    for t, (states, players) in enumerate(seen):
        for i in range(3):
            K.observation_update(states, i, int(players[i]), obs, memo)
        expected = full(states, players, width)
        if t:
            assert (obs[:, padded] == 2.0).all(), t  # not written since it was marked
            obs[:, padded] = 0.0
        assert np.array_equal(obs.view(np.uint32), expected.view(np.uint32)), t
        obs[:, padded] = 2.0
    assert (seen[-1][0][:, K.ROUND] < seen[len(seen) // 2][0][:, K.ROUND]).any()  # a new game came on the way


def test_a_buffer_written_for_another_game_is_written_whole():
    """A row whose buffer last held another player count's or sheet's observation is written whole, not
    updated from the solo record it holds from before."""
    _, solo = states_of_random_games(6, num_envs=1, num_players=1)
    _, duo = states_of_random_games(3, num_envs=1, num_players=2)
    _, small = states_of_random_games(3, num_envs=1, num_players=1, comp_rows=1, comp_cols=1)
    width = 36 * K.OBS_C
    obs = np.zeros((1, width), dtype=np.float32)
    memo = np.full((1, K.OBS_MEMO), -1, dtype=np.int16)
    for states, players in (solo[4], duo[3], solo[5], small[3], solo[6]):
        K.observation_update(states, 0, int(players[0]), obs, memo)
        expected = full(states, players, width)
        used = int(states[0, K.SQ]) * K.OBS_C
        assert np.array_equal(obs[:, :used].view(np.uint32), expected[:, :used].view(np.uint32))


def test_the_batched_solo_environment_keeps_the_record():
    env = vector.make("range_ta_ludotheque-v0", num_envs=2, seed=0, num_players=1)
    env.reset()
    assert env._memo is not None and (env._memo[:, K.M_SEAT] == 0).all()
    duo = vector.make("range_ta_ludotheque-v0", num_envs=2, seed=0, num_players=2)
    duo.reset()
    assert duo._memo is not None and (duo._memo[:, K.M_SEAT] == -1).all()  # 2+ players: written whole, no record
