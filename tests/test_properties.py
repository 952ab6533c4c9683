"""Property-based checks over every registered id: hypothesis picks chance outcomes and moves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameshelf import envs
from tests.conftest import case_id, env_cases
from tests.test_conformance import fingerprint

CASES = env_cases()
choices = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=400)


def play_by_choices(case: tuple[str, int], picks: list[int]):
    """Follow ``picks`` (indices into the chance outcomes or legal actions, cycled) until the end or exhaustion."""
    game = envs.make_game(case[0], num_players=case[1])
    state = game.new_initial_state()
    for i in range(2000):
        if state.is_terminal():
            break
        pick = picks[i % len(picks)]
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(outcomes[pick % len(outcomes)])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[pick % len(legal)])
    return game, state


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picks=choices)
def test_invariants_along_any_line_of_play(case, picks):
    game, state = play_by_choices(case, picks)
    info = game.info
    for seat in range(info.num_players):
        obs = state.observation(seat)
        assert obs.shape == info.observation_shape and obs.dtype == np.dtype(info.observation_dtype)
        assert obs.min() >= info.observation_low and obs.max() <= info.observation_high
    if state.is_terminal():
        returns = state.returns()
        if info.num_players > 1:  # solo returns are the final score scaled into the return range
            assert abs(returns.sum()) < 1e-9, "outcome returns are zero-sum"
        assert info.min_return - 1e-9 <= returns.min() and returns.max() <= info.max_return + 1e-9
    else:
        assert state.legal_action_mask().any() or state.is_chance_node()
        assert not state.returns().any(), "no outcome before the end"
    assert fingerprint(game.state_from_history(state.history)) == fingerprint(state)
