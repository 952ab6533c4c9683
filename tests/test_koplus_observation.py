"""KoPlus's observation: every value read back from the state's facts, and the batched update in place."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import vector
from gameshelf.envs.core.kernel import seed_generators
from gameshelf.envs.koplus.board import KO, PLUS
from gameshelf.envs.koplus.game import KoPlusGame
from gameshelf.envs.koplus.observation import LAYOUT

BOARDS = [(n, mode) for n in (2, 3, 4) for mode in ("random", "standard")]


def planes_from_facts(state, seat: int) -> np.ndarray:
    """``seat``'s observation built plane by plane from the state's readings, as the card's table states it."""
    n = state.num_players
    obs = np.zeros((16 * 16, LAYOUT.size), dtype=np.float32)
    plane = LAYOUT.offset
    obs[:, plane("aliens")] = state.aliens.astype(np.float32) / np.float32(5)
    owner = state.owner.astype(np.int64)
    covered = np.flatnonzero(owner >= 0)
    obs[covered, plane("tiles") + (owner[covered] - seat) % n] = 1.0
    obs[:, plane("empty")] = state.empty
    obs[:, plane("on_board")] = state.geo.on_board
    obs[:, plane("interior")] = state.geo.interior
    totals = state.totals()
    for slot in range(n):
        other = (seat + slot) % n
        top = state.top_tile(other)
        obs[:, plane("top_ko") + slot] = top == KO
        obs[:, plane("top_plus") + slot] = top == PLUS
        obs[:, plane("tiles_left") + slot] = np.float32(state.tiles_left(other) / 12)
        obs[:, plane("bonus_left") + slot] = np.float32(state.bonus_left[other] / 3)
        obs[:, plane("score") + slot] = np.float32((totals[other] + 60) / 180)
        obs[:, plane("to_move") + slot] = state.player == other
        obs[:, plane("seated") + slot] = 1.0
    return obs.reshape(16, 16, LAYOUT.size)


@pytest.mark.parametrize(("num_players", "board_mode"), BOARDS)
def test_every_observation_value_is_the_states_fact(num_players, board_mode):
    """Bit for bit, for every seat, at every decision of random games and at their ends."""
    game = KoPlusGame(num_players=num_players, board_mode=board_mode)
    rng = np.random.default_rng(num_players)
    for _ in range(3):
        state = game.new_initial_state()
        while True:
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
                continue
            for seat in range(num_players):
                assert state.observation(seat).view(np.uint32).tolist() == planes_from_facts(state, seat).view(np.uint32).tolist()
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize(("num_players", "board_mode"), BOARDS)
def test_batched_observations_are_updated_in_place_as_the_full_rewrite(num_players, board_mode):
    """The kernel's ``observation_update`` leaves, on every step of random batched games (resets, auto-resets and
    bonus turns included), bit for bit what ``observation`` writes whole for the player to move."""
    env = vector.make("koplus-v0", num_envs=6, seed=num_players, num_players=num_players, board_mode=board_mode)
    assert env._memo is not None  # the batched steps update the observations in place
    full = np.empty_like(env._flat_obs)
    rngs = seed_generators(7, 6)
    ends = same_seat = 0
    players = np.full(6, -1)
    for t in range(241):
        out = env.reset() if t in (0, 120) else env.step(env.random_actions(rngs))
        ended = out.terminated | out.truncated
        ends += int(ended.sum())
        same_seat += int(((out.current_player == players) & ~ended).sum()) if t not in (0, 120) else 0
        players = out.current_player.copy()
        full[:] = np.nan  # an entry the kernel does not write cannot match
        for i in range(env.num_envs):
            env.kernel.observation(env.states, i, int(out.current_player[i]), full)
        assert np.array_equal(out.observation.reshape(env.num_envs, -1).view(np.uint32), full.view(np.uint32)), t
    assert ends >= 6 and same_seat >= 1  # auto-resets and steps where the seat to move stays are both checked


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_observation_update_for_any_seat_is_the_full_rewrite(num_players):
    """Called directly with seats that are not the one to move (so the ``to_move`` planes and the slots change
    between calls, or stay), the update still leaves what ``observation`` writes whole."""
    env = vector.make("koplus-v0", num_envs=4, seed=3, num_players=num_players)
    kernel = env.kernel
    out = np.empty_like(env._flat_obs)
    full = np.empty_like(out)
    memo = np.full((env.num_envs, kernel.OBS_MEMO), -1, dtype=env.states.dtype)
    pick = np.random.default_rng(num_players)
    env.reset()
    rngs = seed_generators(1, 4)
    for t in range(120):
        if t % 3 == 0:
            env.step(env.random_actions(rngs))
        for i in range(env.num_envs):
            seat = int(pick.integers(num_players))
            kernel.observation_update(env.states, i, seat, out, memo)
            kernel.observation(env.states, i, seat, full)
            assert np.array_equal(out[i].view(np.uint32), full[i].view(np.uint32)), (t, i, seat)
