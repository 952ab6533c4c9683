"""The shared conformance suite: run over every registered id and each supported player count.

A new game is covered by registering it in ``envs/__init__.py``.
"""

from __future__ import annotations

import functools
import pickle
import random
from collections.abc import Iterator

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from gameshelf import envs
from gameshelf.envs.core.game import CHANCE, TERMINAL, IllegalActionError, State
from gameshelf.envs.core.record import GameRecord
from tests.conftest import case_id, env_cases

CASES = env_cases()
pytestmark = pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])


def env_fn(case: tuple[str, int]) -> functools.partial:
    env_id, n = case
    return functools.partial(envs.make, env_id, num_players=n)


def game_of(case: tuple[str, int]):
    env_id, n = case
    return envs.make_game(env_id, num_players=n)


def random_states(case: tuple[str, int], seed: int, games: int = 2, every: int = 1) -> Iterator[State]:
    """States at player decision nodes along random legal games (chance drawn from ``seed``)."""
    game = game_of(case)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state()
        step = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
                continue
            if step % every == 0:
                yield state
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            step += 1
        yield state


def fingerprint(state: State) -> tuple:
    """Everything the queries of a state return, to compare states."""
    n = state.game.info.num_players
    return (
        tuple(state.history),
        state.current_player(),
        state.to_text(),
        tuple(state.observation(s).tobytes() for s in range(n)),
        state.legal_action_mask().tobytes(),
        state.returns().tobytes(),
        state.scores().tobytes(),
    )


# ---- PettingZoo's own tests ----------------------------------------------------------------------


def test_pettingzoo_api(case):
    api_test(env_fn(case)(), num_cycles=300)


def test_pettingzoo_seed(case):
    seed_test(env_fn(case), num_cycles=100)


def test_pettingzoo_render(case):
    render_test(env_fn(case))


def test_pettingzoo_registry(case):
    import pettingzoo

    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry")
    env = pettingzoo.make("aec", f"gameshelf/{case[0]}", num_players=case[1])
    env.reset(seed=1)
    assert env.num_agents == case[1]


# ---- engine-level properties ---------------------------------------------------------------------


def test_info_is_consistent(case):
    game = game_of(case)
    info = game.info
    assert info.num_players == case[1]
    assert 0 < info.num_actions <= 5000
    assert info.max_game_length > 0
    # the observation shape is the same for every player count of the id
    shapes = {envs.make_game(case[0], num_players=n).info.observation_shape for n in envs.spec(case[0]).player_counts}
    assert len(shapes) == 1


def test_masked_actions_accepted_unmasked_rejected(case):
    for state in random_states(case, seed=11, games=1, every=3):
        if state.is_terminal():
            with pytest.raises(IllegalActionError):
                state.apply_action(0)
            continue
        mask = state.legal_action_mask()
        assert mask.dtype == np.bool_ and mask.shape == (state.game.info.num_actions,)
        assert mask.any(), "a decision node must have a legal action"
        before = fingerprint(state)
        for action in np.flatnonzero(mask):
            state.clone().apply_action(int(action))
        for action in np.flatnonzero(~mask):
            with pytest.raises(IllegalActionError):
                state.apply_action(int(action))
        assert fingerprint(state) == before


def test_chance_outcomes_are_distributions(case):
    game = game_of(case)
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    seen = 0
    while not state.is_terminal() and seen < 200:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert outcomes, "a chance node lists its outcomes"
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            assert all(p > 0 for _, p in outcomes)
            assert state.sample_chance(rng) in {o for o, _ in outcomes}
            state.apply_action(state.sample_chance(rng))
            seen += 1
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])


def test_observations_inside_space_every_step(case):
    env = env_fn(case)()
    env.reset(seed=5)
    spaces_ = {a: env.observation_space(a) for a in env.possible_agents}
    for agent in env.agent_iter():
        for other in env.possible_agents:
            obs = env.observe(other)
            space = spaces_[other]
            assert obs["observation"].dtype == space["observation"].dtype
            assert obs["action_mask"].dtype == np.int8
            assert space.contains(obs), f"observation of {other} outside its space"
            if other != env.agent_selection or env.terminations[other] or env.truncations[other]:
                assert not obs["action_mask"].any()
        _, _, term, trunc, _ = env.last()
        assert type(term) is bool and type(trunc) is bool
        if term or trunc:
            env.step(None)
        else:
            env.step(int(env.action_space(agent).sample(env.observe(agent)["action_mask"])))
    # after the end every observation is still valid
    for other in env.possible_agents:
        assert spaces_[other].contains(env.observe(other))


def test_read_only_calls_change_nothing(case):
    env = env_fn(case)(render_mode="ansi")
    env.reset(seed=9)
    for i, _agent in enumerate(env.agent_iter()):
        state = env.game_state
        before = fingerprint(state)
        rng_before = env.np_random.bit_generator.state
        for a in env.possible_agents:
            env.observe(a)
        env.last()
        env.render()
        env.state()
        state.legal_actions()
        state.returns()
        for action in state.legal_actions()[:5]:
            state.action_to_string(action)
        if i % 7 == 0:
            state.render_image()
        assert fingerprint(state) == before
        assert env.np_random.bit_generator.state == rng_before
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


def test_pickle_round_trip_mid_game(case):
    env = env_fn(case)()
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(7):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    copy = pickle.loads(pickle.dumps(env))
    assert fingerprint(copy.game_state) == fingerprint(env.game_state)
    assert copy.agent_selection == env.agent_selection
    # both continue identically (same generator state for chance)
    for e in (env, copy):
        e._trace = []  # type: ignore[attr-defined]
    for e in (env, copy):
        local = np.random.default_rng(1)
        for agent in e.agent_iter(40):
            obs, reward, term, trunc, _ = e.last()
            e._trace.append((agent, reward, obs["observation"].tobytes()))  # type: ignore[attr-defined]
            e.step(None if term or trunc else int(local.choice(np.flatnonzero(obs["action_mask"]))))
    assert env._trace == copy._trace  # type: ignore[attr-defined]


def test_deterministic_despite_global_random(case):
    def run(perturb: bool) -> list:
        env = env_fn(case)()
        env.reset(seed=123)
        local = np.random.default_rng(7)
        trace = []
        for agent in env.agent_iter(400):
            if perturb:
                random.seed(random.random())
                np.random.seed(np.random.randint(1 << 30))
                random.random()
                np.random.random()
            obs, reward, term, trunc, _ = env.last()
            trace.append((agent, reward, term, trunc, obs["observation"].tobytes(), obs["action_mask"].tobytes()))
            env.step(None if term or trunc else int(local.choice(np.flatnonzero(obs["action_mask"]))))
        return trace

    assert run(False) == run(True)


def test_clone_and_replay_reproduce_the_state(case):
    for state in random_states(case, seed=4, games=1, every=5):
        copy = state.clone()
        assert fingerprint(copy) == fingerprint(state)
        record = GameRecord.from_state(case[0], state)
        replayed = GameRecord.from_json(record.to_json()).replay()
        assert fingerprint(replayed) == fingerprint(state)
        if not state.is_terminal():
            # the clone is independent of the original
            copy.apply_action(copy.legal_actions()[0])
            assert fingerprint(state) != fingerprint(copy) or state.history != copy.history


def test_hidden_information_does_not_leak(case):
    game = game_of(case)
    if not game.info.has_hidden_info:
        pytest.skip("no hidden information")
    rng = np.random.default_rng(17)
    changed = False
    for state in random_states(case, seed=8, games=2, every=1):  # every decision: also mid-round in simultaneous-round games
        for seat in range(game.info.num_players):
            other = state.resample_hidden(seat, rng)
            assert other.observation(seat).tobytes() == state.observation(seat).tobytes()
            assert other.current_player() == state.current_player()
            if state.current_player() == seat:
                assert other.legal_action_mask().tobytes() == state.legal_action_mask().tobytes()
            changed |= (
                any(other.observation(s).tobytes() != state.observation(s).tobytes() for s in range(game.info.num_players))
                or other.to_text() != state.to_text()
            )
    assert changed, "resample_hidden never changed anything hidden"


def test_random_games_end_within_max_game_length(case):
    game = game_of(case)
    rng = np.random.default_rng(21)
    for _ in range(5):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(state.sample_chance(rng))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                decisions += 1
                assert decisions <= game.info.max_game_length
        assert state.current_player() == TERMINAL
        returns = state.returns()
        assert returns.shape == (game.info.num_players,)
        assert game.info.min_return - 1e-9 <= returns.min() and returns.max() <= game.info.max_return + 1e-9


def test_action_names_round_trip(case):
    game = game_of(case)
    for state in random_states(case, seed=13, games=1, every=4):
        if state.is_terminal():
            continue
        for action in state.legal_actions()[:30]:
            name = state.action_to_string(action)
            assert isinstance(name, str) and name
            assert game.string_to_action(state, name) == action


# ---- bad input -----------------------------------------------------------------------------------


def test_bad_inputs_raise_clear_errors(case):
    env = env_fn(case)()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    state = env.game_state
    before = fingerprint(state)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    if illegal.size:
        with pytest.raises(IllegalActionError, match="legal actions"):
            env.step(int(illegal[0]))
    with pytest.raises(ValueError, match="out of range"):
        env.step(env.game.info.num_actions)
    with pytest.raises(ValueError, match="out of range"):
        env.step(-1)
    for bad in (1.0, True, "0", [0]):
        with pytest.raises(TypeError):
            env.step(bad)
    with pytest.raises(ValueError, match="step\\(None\\)"):
        env.step(None)
    assert fingerprint(env.game_state) == before
    # play to the end, then stepping again is refused
    local = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            with pytest.raises(ValueError):
                env.step(0)
            env.step(None)
        else:
            env.step(int(local.choice(np.flatnonzero(obs["action_mask"]))))
        del agent
    with pytest.raises(RuntimeError, match="over"):
        env.step(0)


def test_bad_options_raise_value_error(case):
    with pytest.raises(ValueError, match="num_players"):
        envs.make(case[0], num_players=99)
    with pytest.raises(ValueError, match="unknown option"):
        envs.make(case[0], no_such_option=1)
    with pytest.raises(ValueError, match="reward"):
        envs.make(case[0], num_players=case[1], reward="bogus")


def test_illegal_action_penalize_mode(case):
    env = envs.make(case[0], num_players=case[1], illegal_action="penalize")
    env.reset(seed=0)
    agent = env.agent_selection
    illegal = np.flatnonzero(env.observe(agent)["action_mask"] == 0)
    if not illegal.size:
        pytest.skip("every action is legal at the start")
    env.step(int(illegal[0]))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0
    assert env._cumulative_rewards[agent] == -1.0
    assert sum(env.rewards.values()) == -1.0


def test_rewards_sum_to_returns(case):
    for mode in ("outcome", "score"):
        env = envs.make(case[0], num_players=case[1], reward=mode)
        env.reset(seed=31)
        total = dict.fromkeys(env.possible_agents, 0.0)
        local = np.random.default_rng(2)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(local.choice(np.flatnonzero(obs["action_mask"]))))
            for a, r in env.rewards.items():
                total[a] += r
            del agent
        state = env.game_state
        expected = state.returns() + (state.scores() if mode == "score" else 0)
        if state.is_terminal():
            assert np.allclose([total[a] for a in env.possible_agents], expected)
