"""The Level X heuristic ends a game it has won instead of passing for ever."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.core.episode import Episode
from gameshelf.envs.level_x.actions import EFFECTS
from gameshelf.training.agents import make_agent

PASS = EFFECTS.index(())


class AlwaysPass:
    name = "passer"

    def act(self, state, seat, rng):
        assert PASS in state.legal_actions()
        return PASS


@pytest.mark.parametrize("num_players, seat, seed", [(2, 0, 0), (2, 1, 1), (2, 0, 2), (3, 1, 3), (4, 3, 4)])
def test_heuristic_closes_out_a_won_game_against_a_passing_opponent(num_players, seat, seed):
    game = envs.make_game("level_x-v0", num_players=num_players)
    episode = Episode(game)
    episode.reset(np.random.default_rng(seed))
    players = {s: AlwaysPass() for s in range(num_players)}
    players[seat] = make_agent("heuristic", "level_x-v0")
    episode.play(players)
    state = episode.require_state()
    assert episode.terminated and not episode.truncated
    assert episode.num_moves < game.info.max_game_length // 4
    returns = state.returns()
    assert returns[seat] == returns.max() and np.sum(returns == returns.max()) == 1
