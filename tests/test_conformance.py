"""The shared conformance suite: every check of the shipped kit (``gameshelf.envs.testing``), run over
every registered id and each supported player count, one test per check.

A new game is covered by registering it in ``envs/__init__.py``.
"""

from __future__ import annotations

import pytest

from gameshelf import envs
from gameshelf.envs import testing
from tests.conftest import case_id, env_cases

CASES = env_cases()


def game_of(case: tuple[str, int]):
    return envs.make_game(case[0], num_players=case[1])


@pytest.mark.parametrize("check", testing.GAME_CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_engine(case, check):
    check(game_of(case))


@pytest.mark.parametrize("check", testing.ENV_CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_environment(case, check):
    check(testing.env_factory(case[0], num_players=case[1]))


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_registry_and_spaces(case):
    import gymnasium
    import pettingzoo

    env_id, n = case
    env = pettingzoo.make("aec", f"gameshelf/{env_id}", num_players=n)
    env.reset(seed=1)
    assert env.num_agents == n
    # the observation shape is the same for every player count of the id
    shapes = {envs.make_game(env_id, num_players=k).info.observation_shape for k in envs.spec(env_id).player_counts}
    assert len(shapes) == 1
    single = gymnasium.make(f"gameshelf/{env_id}", num_players=n, opponents="random")
    obs, info = single.reset(seed=0)
    assert single.observation_space.contains(obs) and info["action_mask"].any()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_bad_options_raise_value_error(case):
    with pytest.raises(ValueError, match="num_players"):
        envs.make(case[0], num_players=99)
    with pytest.raises(ValueError, match="unknown option"):
        envs.make(case[0], no_such_option=1)
    with pytest.raises(ValueError, match="reward"):
        envs.make(case[0], num_players=case[1], reward="bogus")


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_every_id_has_a_heuristic_and_a_training_config(case):
    from importlib import resources

    env_spec = envs.spec(case[0])
    assert env_spec.load_heuristic() is not None, f"{case[0]} has no heuristic agent (envs/<game>/heuristic.py)"
    from gameshelf.training.agents import make_agent

    assert hasattr(make_agent("heuristic", case[0]), "act")
    config = resources.files("gameshelf.training") / "configs" / f"{env_spec.game_name}.yaml"
    assert config.is_file(), f"no training config {config}"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_text_prompts_hide_what_each_seat_cannot_see(case):
    """Language-model play (``gameshelf.wrappers.text``): a seat's prompt is unchanged when what it cannot see is
    redealt. The check lives beside the prompts, since the kit (``envs``) may not import ``wrappers``."""
    from gameshelf.wrappers.text import check_prompt_hides_what_the_seat_cannot_see

    check_prompt_hides_what_the_seat_cannot_see(game_of(case), seed=case[1], per_kind=2, redeals=1)
