"""The core works up to eight players: conformance, images, seat colours and evaluation tables."""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.drawing import PLAYER_COLOURS, seat_colour
from gameshelf.envs.core.env import GameAECEnv
from gameshelf.envs.testing import check_env
from tests.toy_nim import NIM, NimGame, register_nim, unregister_nim


def test_eight_distinct_seat_colours():
    assert len(set(PLAYER_COLOURS)) == 8
    assert [seat_colour(s) for s in range(8)] == PLAYER_COLOURS


def test_toy_game_at_eight_players_passes_the_kit_and_renders():
    game = NimGame(num_players=8, pile=20, chance=True, hidden=True)
    check_env(game)
    env = GameAECEnv(game, render_mode="rgb_array")
    env.reset(seed=0)
    assert len(env.possible_agents) == 8
    image = env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
    for agent in env.possible_agents:
        assert env.observation_space(agent).contains(env.observe(agent))


def test_evaluation_table_at_eight_players():
    from gameshelf.training.evaluate import evaluate

    register_nim()
    try:
        result = evaluate(NIM, ["random", "random"], games=8, seed=0, num_players=8, options={"pile": 12}, progress=False)
    finally:
        unregister_nim()
    table = result.table()
    assert "rank" in table.lower()
    assert result.num_players == 8
