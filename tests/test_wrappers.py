"""The learner's views: ``SingleSeatEnv`` semantics (own reward, seats, masks, termination vs truncation,
pickling, ``MaskablePPO`` under ``SubprocVecEnv``) and the observation wrappers."""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.core.game import IllegalActionError
from gameshelf.wrappers import ChannelsFirstObservation, FlattenObservation, SingleSeatEnv, to_policy_input
from tests.toy_nim import NIM, NimGame, PerfectNim, ScriptedAgent, make_nim_env, register_nim, unregister_nim


@pytest.fixture(autouse=True)
def nim_registered():
    register_nim()
    yield
    unregister_nim()


def available_ids() -> list[str]:
    out = []
    for env_id in envs.registered_ids():
        if env_id.startswith("toy_"):
            continue
        try:
            envs.make_game(env_id)
        except ImportError:
            continue
        out.append(env_id)
    return out


REAL_IDS = available_ids()


def random_episode(env, rng):
    rewards = []
    while True:
        legal = np.flatnonzero(env.action_masks())
        _, r, term, trunc, info = env.step(int(rng.choice(legal)))
        rewards.append(r)
        if term or trunc:
            return rewards, term, trunc, info


# ---- rewards ---------------------------------------------------------------------------------


def test_loss_on_the_opponents_move_reaches_the_learner():
    opponent = ScriptedAgent([1])  # takes the last 2 stones
    env = SingleSeatEnv(NIM, opponents=opponent, seat=0, pile=3)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(0)  # take 1, leaves 2
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert list(info["final_returns"]) == [-1.0, 1.0]
    assert not env.action_masks().any()


def test_win_on_the_learners_own_move():
    env = SingleSeatEnv(NIM, opponents=ScriptedAgent(), seat=0, pile=2)
    env.reset(seed=0)
    _, reward, terminated, truncated, _ = env.step(1)
    assert (reward, terminated, truncated) == (1.0, True, False)


def test_nothing_before_the_end_with_outcome_rewards():
    env = SingleSeatEnv(NIM, opponents=ScriptedAgent([0, 0]), seat=0, pile=7)
    env.reset(seed=0)
    assert env.step(0)[1:4] == (0.0, False, False)


def test_score_rewards_are_own_score_changes_plus_outcome():
    env = SingleSeatEnv(NIM, opponents=ScriptedAgent([0, 0, 0]), seat=0, pile=7, reward="score")
    env.reset(seed=0)
    assert env.step(1)[1] == 2.0  # took 2 (pile 5), opponent took 1 (pile 4)
    assert env.step(0)[1] == 1.0  # took 1 (pile 3), opponent took 1 (pile 2)
    _, reward, terminated, _, _ = env.step(1)  # took the last 2: +2 score, +1 outcome
    assert (reward, terminated) == (3.0, True)


def test_three_players_a_win_by_another_seat_is_a_loss_for_the_learner():
    env = SingleSeatEnv(NIM, opponents=ScriptedAgent([0, 1]), seat=0, num_players=3, pile=4)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(0)  # 3 left; seat 1 takes 1, seat 2 takes the last 2
    assert terminated
    assert reward == pytest.approx(-0.5)
    assert list(info["final_returns"]) == pytest.approx([-0.5, -0.5, 1.0])


@pytest.mark.parametrize("reward_mode", ["outcome", "score"])
@pytest.mark.parametrize("options", [{}, {"chance": True}, {"num_players": 3, "pile": 11}, {"hidden": True}])
def test_episode_rewards_sum_to_the_final_value(reward_mode, options):
    env = SingleSeatEnv(NIM, reward=reward_mode, **options)
    rng = np.random.default_rng(1)
    for episode in range(30):
        env.reset(seed=episode)
        rewards, terminated, _, info = random_episode(env, rng)
        assert terminated
        expected = info["final_returns"][env.seat] + (info["final_scores"][env.seat] if reward_mode == "score" else 0.0)
        assert sum(rewards) == pytest.approx(expected)


def test_rewards_match_the_aec_environment():
    """Replay the single-seat game in the AEC env: the learner's AEC rewards between its turns are the same."""
    env = SingleSeatEnv(NIM, reward="score", chance=True, pile=9)
    rng = np.random.default_rng(3)
    for episode in range(10):
        env.reset(seed=episode)
        rewards, *_ = random_episode(env, rng)
        seat, history = env.seat, list(env.state.history)
        aec = envs.make(NIM, reward="score", chance=True, pile=9)
        replay = NimGame(chance=True, pile=9).new_initial_state()
        chance, moves = [], []
        for action in history:  # split the history into chance outcomes and player moves
            (chance if replay.is_chance_node() else moves).append(action)
            replay.apply_action(action)
        aec.reset(seed=0, options={"chance_outcomes": chance})
        aec_rewards, acc, moved = [], 0.0, False
        for action in moves:
            player = aec.game_state.current_player()
            if player == seat and moved:
                aec_rewards.append(acc)
                acc = 0.0
            moved = moved or player == seat
            assert aec.agent_selection == aec.possible_agents[player]
            aec.step(action)
            acc += aec.rewards[aec.possible_agents[seat]]
        aec_rewards.append(acc)
        assert rewards == pytest.approx(aec_rewards)


# ---- seats -------------------------------------------------------------------------------------


def test_learner_seat_is_drawn_each_episode():
    env = SingleSeatEnv(NIM)
    seats = set()
    for episode in range(40):
        _, info = env.reset(seed=episode)
        seats.add(info["seat"])
        assert env.state.current_player() == env.seat
    assert seats == {0, 1}


def test_learner_seat_can_be_fixed():
    env = SingleSeatEnv(NIM, seat=1)
    assert {env.reset(seed=s)[1]["seat"] for s in range(10)} == {1}
    assert env.reset(seed=0, options={"seat": 0})[1]["seat"] == 0
    with pytest.raises(ValueError, match="seat"):
        SingleSeatEnv(NIM, seat=2)
    with pytest.raises(ValueError, match="seat"):
        env.reset(options={"seat": 5})


def test_opponents_open_the_game_when_the_learner_sits_second():
    opponent = ScriptedAgent([1])
    env = SingleSeatEnv(NIM, opponents=opponent, seat=1, pile=7)
    obs, _ = env.reset(seed=0)
    assert env.state.pile == 5 and len(opponent.seen) == 1
    assert obs[5] == 1.0 and obs[13] == 1.0


def test_same_seed_same_episode():
    def run(seed):
        env = SingleSeatEnv(NIM, chance=True, pile=10)
        env.reset(seed=seed)
        random_episode(env, np.random.default_rng(0))
        return env.state.history

    assert run(5) == run(5)


def test_opponent_pool_weights():
    a, b = ScriptedAgent(), ScriptedAgent()
    env = SingleSeatEnv(NIM, opponents={a: 1.0, b: 0.0}, seat=0)
    for s in range(5):
        env.reset(seed=s)
        env.step(0)
    assert a.seen and not b.seen
    env.set_opponents([b])
    env.reset(seed=0)
    env.step(0)
    assert b.seen
    with pytest.raises(ValueError):
        env.set_opponents([])
    with pytest.raises(ValueError, match="no heuristic"):
        SingleSeatEnv(NIM, opponents="heuristic")
    with pytest.raises(ValueError, match="agent_factory"):
        SingleSeatEnv(NIM, opponents="model:x.zip")


def test_opponents_by_name_use_the_agent_factory():
    built = []

    def factory(name, env_id):
        built.append((name, env_id))
        return PerfectNim()

    env = SingleSeatEnv(NIM, opponents=["perfect"], agent_factory=factory, seat=1)
    env.reset(seed=0)
    assert built == [("perfect", NIM)]
    assert env.state.pile == 6  # perfect play from 7 takes 1


def test_hidden_information_opponents_see_a_redealt_state():
    opponent = ScriptedAgent()
    env = SingleSeatEnv(NIM, opponents=opponent, seat=0, hidden=True)
    env.reset(seed=0)
    env.step(0)
    assert opponent.seen and all(s is not env.state and s.resampled_for == 1 for s in opponent.seen)


# ---- masks, termination, truncation, errors ---------------------------------------------------------


def test_action_masks():
    env = SingleSeatEnv(NIM, opponents=ScriptedAgent([0] * 10), seat=0, pile=4)
    env.reset(seed=0)
    mask = env.action_masks()
    assert mask.dtype == bool and list(mask) == [True, True, False]
    env.step(1)  # 2 left, opponent takes 1
    assert list(env.action_masks()) == [True, False, False]
    *_, info = env.step(0)
    assert not env.action_masks().any() and not info["action_mask"].any()


@pytest.mark.parametrize(("seat", "learner_steps"), [(0, 3), (1, 2)])
def test_truncation_only_at_max_game_length(seat, learner_steps):
    env = SingleSeatEnv(NIM, opponents=ScriptedAgent([2] * 10), seat=seat, allow_pass=True, max_length=5)
    env.reset(seed=0)
    for k in range(learner_steps):
        _, reward, terminated, truncated, _ = env.step(2)
        assert not terminated and reward == 0.0
        assert truncated == (k == learner_steps - 1)
    assert env.num_moves == 5
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_bad_inputs():
    env = SingleSeatEnv(NIM, pile=1, illegal_action="raise")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(1)
    with pytest.raises(ValueError, match="out of range"):
        env.step(7)
    with pytest.raises(TypeError):
        env.step(0.5)
    assert env.step(np.int64(0))[2]
    with pytest.raises(ValueError, match="reward"):
        SingleSeatEnv(NIM, reward="points")
    with pytest.raises(ValueError, match="pile"):
        SingleSeatEnv(NIM, pile=0)


# ---- pickling and vectorized training ------------------------------------------------------------


def test_default_mode_penalizes_illegal_actions_for_unmasked_learners():
    env = SingleSeatEnv(NIM, pile=1, seat=0)
    assert env.illegal_action == "penalize"
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(1)  # take 2 from a pile of 1
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):  # not an action at all: raises in both modes
        env.step(7)
    with pytest.raises(TypeError):
        env.step(0.5)


def test_reset_options_are_checked():
    env = SingleSeatEnv(NIM, pile=5)
    assert env.reset(seed=0, options={"seat": 1})[1]["seat"] == 1
    for bad in ({"seat": True}, {"seat": 5}, {"seet": 0}):
        with pytest.raises(ValueError):
            env.reset(seed=0, options=bad)
    with pytest.raises(TypeError):
        env.reset(seed=0, options=["seat"])


def test_refused_reset_changes_nothing():
    env = SingleSeatEnv(NIM, pile=12, chance=True)
    env.reset(seed=3)
    before = (env.np_random.bit_generator.state, env.seat, env.action_masks().tobytes())
    refused = ((True, None, TypeError), (1.0, None, TypeError), (-1, None, ValueError), (4, {"seat": 9}, ValueError))
    for seed, options, error in refused:
        with pytest.raises(error):
            env.reset(seed=seed, options=options)
        assert (env.np_random.bit_generator.state, env.seat, env.action_masks().tobytes()) == before


@pytest.mark.parametrize("copier", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy])
def test_copied_env_continues_its_episode(copier):
    env = SingleSeatEnv(NIM, opponents=[PerfectNim(), "random"], pile=12, chance=True, reward="score")
    env.reset(seed=5)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    twin = copier(env)
    for _ in range(20):
        legal = np.flatnonzero(env.action_masks())
        if not len(legal):
            break
        a, b = env.step(int(legal[0])), twin.step(int(legal[0]))
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]


def test_pickle_round_trip():
    env = SingleSeatEnv(NIM, opponents=[PerfectNim(), "random"], pile=9)
    env.reset(seed=0)
    clone = pickle.loads(pickle.dumps(env))
    obs, _ = clone.reset(seed=1)
    assert obs.shape == env.observation_space.shape
    random_episode(clone, np.random.default_rng(0))


def test_maskable_ppo_under_subproc_vec_env():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = SubprocVecEnv([lambda: FlattenObservation(make_nim_env(pile=9)) for _ in range(2)])
    try:
        model = MaskablePPO("MlpPolicy", vec, n_steps=16, batch_size=16, n_epochs=1, seed=0, device="cpu")
        model.learn(32)
        assert model.num_timesteps >= 32
        masks = np.stack(vec.env_method("action_masks"))
        assert masks.shape == (2, 3) and masks.dtype == bool
    finally:
        vec.close()


# ---- observation wrappers ------------------------------------------------------------------------


def test_flatten_observation():
    env = FlattenObservation(SingleSeatEnv(NIM))
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.float32 and obs.shape == (16,) and env.observation_space.contains(obs)
    assert env.action_masks().dtype == bool


def test_channels_first_observation():
    class Planes(gym.Env):
        observation_space = gym.spaces.Box(0, 1, (4, 5, 3), np.int8)
        action_space = gym.spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            return np.arange(60).reshape(4, 5, 3).astype(np.int8) % 2, {}

        def action_masks(self):
            return np.array([1, 0])

    env = ChannelsFirstObservation(Planes())
    obs, _ = env.reset()
    assert obs.shape == (3, 4, 5) and env.observation_space.shape == (3, 4, 5) and obs.dtype == np.float32
    raw = Planes().reset()[0]
    assert np.array_equal(obs[:, 1, 2], raw[1, 2])
    assert list(env.action_masks()) == [True, False]
    assert to_policy_input(raw, (3, 4, 5)).shape == (3, 4, 5)
    assert to_policy_input(raw, (60,)).shape == (60,)
    with pytest.raises(ValueError):
        to_policy_input(raw, (7,))
    flat = ChannelsFirstObservation(SingleSeatEnv(NIM))
    assert flat.observation_space.shape == (1, 1, 16)


# ---- every real game that is available --------------------------------------------------------------


@pytest.mark.parametrize("env_id", REAL_IDS)
def test_real_games_random_episodes(env_id):
    rng = np.random.default_rng(0)
    for n in envs.spec(env_id).player_counts:
        env = FlattenObservation(SingleSeatEnv(env_id, num_players=n, reward="score"))
        for episode in range(2):
            obs, _ = env.reset(seed=episode)
            assert env.observation_space.contains(obs)
            rewards, terminated, truncated, info = random_episode(env, rng)
            assert terminated or truncated
            base = env.unwrapped
            value = info["final_returns"][base.seat] + info["final_scores"][base.seat]
            assert sum(rewards) == pytest.approx(value)


def test_illegal_actions_can_be_penalized():
    env = SingleSeatEnv(NIM, pile=1, illegal_action="penalize")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(1)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(ValueError, match="illegal_action"):
        SingleSeatEnv(NIM, illegal_action="ignore")


@pytest.mark.parametrize("env_id", REAL_IDS)
def test_gymnasium_env_checker(env_id):
    from gymnasium.utils.env_checker import check_env

    check_env(SingleSeatEnv(env_id, illegal_action="penalize"), skip_render_check=True)


@pytest.mark.parametrize("env_id", ["level_x-v0", "olenon-v0"])
def test_single_seat_view_passes_gymnasium_and_sb3_env_checkers_with_defaults(env_id):
    """The checkers sample unmasked actions: the default penalize mode lets them run to the end."""
    from gymnasium.utils.env_checker import check_env as gym_check_env

    gym_check_env(SingleSeatEnv(env_id, opponents="random"), skip_render_check=True)
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # SB3 warns about anything it finds suspicious
        sb3_checker.check_env(SingleSeatEnv(env_id, opponents="heuristic"), warn=True)
