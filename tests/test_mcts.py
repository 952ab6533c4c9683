"""MCTS agent: forced wins found, legal moves only, seeded runs repeat, hidden information respected."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.amoriax.game import AmoriaxGame
from gameshelf.envs.core.episode import observed_state
from gameshelf.envs.core.game import CHANCE, State
from gameshelf.envs.koplus.game import KoPlusGame
from gameshelf.envs.olenon.game import OlenonGame, OlenonState
from gameshelf.training.agents import make_agent
from gameshelf.training.agents.mcts import MCTSAgent, parse_mcts_name

EMPTY_ROW = "........."


def advance(state: State, rng: np.random.Generator, decisions: int) -> None:
    """Play ``decisions`` random player moves (chance drawn from ``rng``) or until the end."""
    while decisions > 0 and not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        decisions -= 1
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))


# ---- forced wins in hand-built positions ----------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_amoriax_slides_onto_the_crown(seed):
    state = AmoriaxGame().state_from_board([*[EMPTY_ROW] * 4, ".W...R...", *[EMPTY_ROW] * 4])
    action = MCTSAgent(30).act(state, 0, np.random.default_rng(seed))
    assert [action] == state.crown_moves(0)
    state.apply_action(action)
    assert state.is_terminal() and state.returns().tolist() == [1.0, -1.0]


@pytest.mark.parametrize("seed", [0, 1])
def test_koplus_takes_the_bonus_landing(seed):
    state = KoPlusGame(num_players=2, board_mode="standard").new_initial_state()
    state.apply_action(state.game.string_to_action(state, "place コ up at r7c5"))
    state = state.game.state_from_position({**state.position(), "points": [state.points[0], 15]})
    assert max(state.placement_points(a) for a in state.legal_actions()) > 5  # not simply the most points
    action = MCTSAgent(500).act(state, 1, np.random.default_rng(seed))
    assert state.placement_points(action) == 5  # lands on 20: a bonus turn


def olenon_last_cards() -> OlenonState:
    """Seat 2 (team 0, one round won) may go out with 3x5 on the table's 4x3, which wins the game."""
    hands = [[0, 0, 1, 6, 2, 6, 4], [0, 0, 1, 1, 2, 2, 4], [3, 3, 3, 3, 5, 5, 5], [0, 0, 1, 1, 2, 2, 4]]
    state = OlenonGame().state_from_deal(hands, 2)
    state.apply_action(state.game.string_to_action(state, "play 4x3"))
    return state.game.state_from_position({**state.position(), "wins": [1, 0], "round": 1})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_olenon_plays_its_last_cards(seed):
    state = olenon_last_cards()
    assert state.current_player() == 2 and len(state.legal_actions()) > 1
    rng = np.random.default_rng(seed)
    action = MCTSAgent(10).act(observed_state(state, 2, rng), 2, rng)
    assert state.action_to_string(action) == "play 3x5"
    state.apply_action(action)
    assert state.is_terminal() and state.returns()[0] == state.returns()[2] == 1.0


# ---- hidden information ----------------------------------------------------------------------------


HIDDEN = [i for i in envs.registered_ids() if envs.make_game(i).info.has_hidden_info]


def hidden_position(env_id: str) -> tuple[State, int]:
    """A decision with a choice, a few random moves into a game with hidden information."""
    state = envs.make_game(env_id).new_initial_state()
    rng = np.random.default_rng(3)
    advance(state, rng, 6)
    while len(state.legal_actions()) < 2:
        advance(state, rng, 1)
    return state, state.current_player()


@pytest.mark.parametrize("env_id", HIDDEN)
def test_choice_depends_only_on_what_the_seat_sees(env_id):
    state, seat = hidden_position(env_id)
    redeals = [state.resample_hidden(seat, np.random.default_rng([7, k])) for k in range(5)]
    choices = {MCTSAgent(16).act(r, seat, np.random.default_rng(0)) for r in redeals}
    assert len(choices) == 1


# ---- every game: legal moves, seeded repeats -------------------------------------------------------


@pytest.mark.parametrize("env_id", envs.registered_ids())
def test_never_plays_an_illegal_move(env_id):
    game = envs.make_game(env_id)
    rng = np.random.default_rng(11)
    agent = make_agent("mcts:4", env_id)
    state = game.new_initial_state()
    for _ in range(12):  # a dozen decisions at spread-out points of a random game
        advance(state, rng, int(rng.integers(1, 6)))
        if state.is_terminal():
            break
        seat = state.current_player()
        action = agent.act(observed_state(state, seat, rng), seat, rng)
        assert action in state.legal_actions()
        state.apply_action(action)


@pytest.mark.parametrize("env_id", ["koplus-v0", "olenon-v0", "level_x-v0"])
def test_seeded_runs_repeat(env_id):
    game = envs.make_game(env_id)
    state = game.new_initial_state()
    advance(state, np.random.default_rng(5), 3)
    seat = state.current_player()

    def run(seed: int) -> tuple[int, list[int]]:
        agent = MCTSAgent(12)
        action = agent.act(state.clone(), seat, np.random.default_rng(seed))
        return action, [agent.last_simulations]

    assert run(0) == run(0)
    assert state.clone().history == state.history  # the agent searched on copies


def test_whole_game_repeats_with_subtree_reuse():
    def play(seed: int) -> list[int]:
        game = envs.make_game("koplus-v0")
        agents = [MCTSAgent(60), MCTSAgent(60)]
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        reused = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
                continue
            seat = state.current_player()
            state.apply_action(agents[seat].act(state.clone(), seat, rng))
            reused += agents[seat].reused_visits > 0
        assert reused > 0  # the subtree below the opponent's reply was kept
        return [*state.history]

    assert play(4) == play(4)


def test_three_players():
    game = envs.make_game("level_x-v0", num_players=3)
    rng = np.random.default_rng(2)
    agents = [MCTSAgent(4), make_agent("random", "level_x-v0"), MCTSAgent(4)]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        seat = state.current_player()
        state.apply_action(agents[seat].act(state.clone(), seat, rng))
    assert len(state.returns()) == 3


# ---- names -----------------------------------------------------------------------------------------


def test_names_and_budgets():
    assert parse_mcts_name("mcts:200") == {"heuristic": False, "reference": False, "model": None, "simulations": 200}
    assert parse_mcts_name("mcts:0.5s:heuristic") == {
        "heuristic": True,
        "reference": False,
        "model": None,
        "simulations": None,
        "seconds": 0.5,
    }
    assert parse_mcts_name("mcts:9:model:a:b.zip")["model"] == "a:b.zip"
    assert parse_mcts_name("mcts:9:reference") == {"heuristic": False, "reference": True, "model": None, "simulations": 9}
    assert parse_mcts_name("mcts:9:reference:heuristic") == {
        "heuristic": True,
        "reference": True,
        "model": None,
        "simulations": 9,
    }
    both = make_agent("mcts:2:reference:heuristic", "level_x-v0")
    assert isinstance(both, MCTSAgent) and both.rollout_agent is not None and both.prior is not None
    assert both.name == "mcts:2:reference:heuristic"
    agent = make_agent("mcts:3:heuristic", "koplus-v0")
    assert isinstance(agent, MCTSAgent) and agent.rollout_agent is not None and agent.name == "mcts:3:heuristic"
    for bad in (
        "mcts",
        "mcts:",
        "mcts:0",
        "mcts:-3",
        "mcts:x",
        "mcts:1:foo",
        "mcts:0s",
        "mcts:1:heuristic:2",
        "mcts:1:reference:2",
        "mcts:5:model:",
        "mcts:5:modelx",
    ):
        with pytest.raises(ValueError, match="accepted forms"):
            make_agent(bad, "koplus-v0")
    timed = make_agent("mcts:0.05s", "koplus-v0")
    state = envs.make_game("koplus-v0").new_initial_state()
    advance(state, np.random.default_rng(0), 0)
    assert timed.act(state, state.current_player(), np.random.default_rng(0)) in state.legal_actions()
    assert timed.last_simulations >= 1


def test_heuristic_rollouts_play_legal_games():
    agent = make_agent("mcts:3:heuristic", "olenon-v0")
    state = olenon_last_cards()
    rng = np.random.default_rng(0)
    assert agent.act(observed_state(state, 2, rng), 2, rng) in state.legal_actions()


# ---- policy-guided search ----------------------------------------------------------------------------


@pytest.fixture
def nim_model(tmp_path):
    """An untrained Nim model saved as gameshelf saves models (so it loads as weights only)."""
    from gameshelf.training.config import resolve_config
    from gameshelf.training.environments import make_vec_env
    from gameshelf.training.model_io import model_info, save_model
    from gameshelf.training.sb3 import build_model
    from tests.toy_nim import NIM, register_nim, unregister_nim

    register_nim()
    config = resolve_config(NIM, {"n_envs": 1, "ppo": {"n_steps": 16, "batch_size": 16, "net_arch": [8]}})
    vec = make_vec_env(config)
    model = build_model(config, vec, None)
    path = tmp_path / "model.zip"
    save_model(model, path, model_info(config, model))
    vec.close()
    yield NIM, path
    unregister_nim()


def test_policy_guided_search(nim_model):
    env_id, path = nim_model
    agent = make_agent(f"mcts:60:model:{path}", env_id)
    assert isinstance(agent, MCTSAgent) and agent.prior is not None
    game = envs.make_game(env_id, pile=8)  # 8 stones: taking 2 leaves a multiple of 3, the only winning move
    state = game.new_initial_state()
    assert agent.act(state.clone(), 0, np.random.default_rng(0)) == 1
    assert agent.act(state.clone(), 0, np.random.default_rng(0)) == agent.act(state.clone(), 0, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while not state.is_terminal():  # a whole game against itself: legal moves only
        seat = state.current_player()
        state.apply_action(agent.act(state.clone(), seat, rng))
    with pytest.raises(FileNotFoundError):
        make_agent(f"mcts:5:model:{path}.missing", env_id)


def test_hurry_ends_a_search_at_its_next_simulation():
    """Setting ``hurry`` from another thread ends a 60-second search with the best move so far."""
    import threading
    import time

    from gameshelf.training.agents.mcts import MCTSAgent

    state = envs.make_game("koplus-v0").new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
    agent = MCTSAgent(simulations=None, seconds=60.0)
    agent.hurry = threading.Event()
    chosen: list[int] = []
    search = threading.Thread(target=lambda: chosen.append(agent.act(state, state.current_player(), rng)))
    search.start()
    time.sleep(0.5)
    agent.hurry.set()
    search.join(timeout=30)
    assert not search.is_alive() and chosen[0] in state.legal_actions() and agent.last_simulations >= 1
