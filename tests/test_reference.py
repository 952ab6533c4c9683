"""The ``reference`` agent (the network shipped for each game) and network files (``model:PATH.npz``) as agents.

The first two tests play the networks shipped in the package (``training/reference/<game>.npz``); every
other test plays networks with random weights (``tests.toy_nets``), put in place of the shipped folder
where it needs a ``reference``.
"""

from __future__ import annotations

import os
import pickle
import tomllib
from pathlib import Path

import numpy as np
import pytest

import gameshelf.training.agents.network_agent as netagent
from gameshelf import envs
from gameshelf.training.agents import FORMS, make_agent
from gameshelf.training.agents.mcts import MCTSAgent
from gameshelf.training.agents.network_agent import NetAgent, reference_path
from gameshelf.training.benchmark import protocol
from gameshelf.training.cli_util import UserError
from gameshelf.training.evaluate import evaluate
from tests.toy_nets import BAD_FILES, BAD_WORDS, ReferenceFolder, bad_net, random_net, write_net

ALL_IDS = list(dict.fromkeys([*envs.registered_ids(), *envs.batched_ids()]))
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def reference_dir(tmp_path, monkeypatch):
    """An empty folder in place of the shipped ``training/reference``; ``add(env_id)`` puts a random network there."""
    return ReferenceFolder(tmp_path, monkeypatch)


@pytest.fixture
def load_calls(monkeypatch):
    """The names of the arrays the network loader reads (the network cache emptied first, so files are read).
    Every one goes through its reader of raw ``.npy`` data, which never unpickles; ``numpy.load`` (which
    could) is not called at all."""
    import gameshelf.training.numpy_net as netmodule

    calls: list[str] = []
    real = netmodule._read_data

    def spy(archive, member, header, name, where):
        calls.append(name)
        return real(archive, member, header, name, where)

    def no_load(*args, **kwargs):
        raise AssertionError("numpy.load was called")

    monkeypatch.setattr(netmodule, "_read_data", spy)
    monkeypatch.setattr(np, "load", no_load)
    monkeypatch.setattr(netagent, "_CACHE", {})
    return calls


def play_against_random(agent, env_id: str):
    """One whole game of ``agent`` against random at the protocol's player count (an illegal move raises)."""
    n = protocol.players_for(env_id)
    result = evaluate(env_id, [agent, "random"], games=1, seed=3, num_players=n, first_only=True)
    assert len(result.games) == 1 and len(result.games[0].returns) == n and result.games[0].length > 0
    return result


# ---- the shipped networks (these need the trained files in training/reference/) ---------------------------
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_shipped_reference_loads_weights_only_and_plays_a_legal_game(env_id, load_calls):
    agent = make_agent("reference", env_id)
    assert isinstance(agent, NetAgent) and agent.name == "reference"
    assert Path(agent.path) == reference_path(env_id) and reference_path(env_id).parent == ROOT / "training" / "reference"
    assert {"meta", "policy.w", "value.b"} <= set(load_calls)
    assert agent.net.env_id == env_id
    play_against_random(agent, env_id)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_shipped_reference_guides_mcts_in_a_legal_game(env_id):
    agent = make_agent("mcts:20:reference", env_id)
    assert isinstance(agent, MCTSAgent) and isinstance(agent.prior, NetAgent) and agent.name == "mcts:20:reference"
    play_against_random(agent, env_id)


def test_every_game_ships_a_small_reference_network():
    """A network for every registered game, a few megabytes at most in all (the package carries them)."""
    missing = [i for i in ALL_IDS if not reference_path(i).is_file()]
    assert not missing, f"no reference network shipped for {missing}"
    total = sum(reference_path(i).stat().st_size for i in ALL_IDS)
    assert total <= 10 * 2**20, f"the reference networks take {total} bytes"
    assert netagent.reference_ids() == envs.registered_ids()


# ---- network files and reference agents (random weights) --------------------------------------------------
def test_reference_networks_are_package_data():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "reference/*.npz" in data["gameshelf.training"]
    assert netagent.REFERENCE_DIR == ROOT / "training" / "reference"
    assert reference_path("tsukuru_ten_ten-v0").name == "tsukuru_ten_ten.npz"
    assert {p.name for p in (ROOT / "training" / "configs").glob("*.yaml")} >= {
        f"{envs.spec(i).game_name}.yaml" for i in envs.registered_ids()
    }
    assert reference_path("paiko-v1").name == "paiko-v1.npz"  # a later version's own network


@pytest.mark.parametrize("env_id", ["level_x-v0", "amoriax-v0", "olenon-v0"])
def test_a_network_file_plays_whole_legal_games(env_id, tmp_path, load_calls):
    """Flat observations (Level X), planes with the per-cell layer (Amoriax), four players (Olenon)."""
    path = write_net(tmp_path / "net.npz", env_id)
    agent = make_agent(f"model:{path}", env_id)
    assert isinstance(agent, NetAgent) and agent.name == f"model:{path}" and agent.deterministic
    assert {"meta", "policy.w", "value.b"} <= set(load_calls)
    play_against_random(agent, env_id)
    search = make_agent(f"mcts:5:model:{path}", env_id)
    assert isinstance(search, MCTSAgent) and isinstance(search.prior, NetAgent)
    play_against_random(search, env_id)


def test_reference_comes_from_the_reference_folder(reference_dir, load_calls):
    reference_dir.add("level_x-v0")
    agent = make_agent("reference", "level_x-v0")
    assert agent.name == "reference" and Path(agent.path) == reference_dir.path / "level_x.npz"
    assert {"meta", "policy.w", "value.b"} <= set(load_calls)
    play_against_random(agent, "level_x-v0")
    play_against_random(make_agent("mcts:10:reference", "level_x-v0"), "level_x-v0")
    play_against_random(make_agent("mcts:0.05s:reference", "level_x-v0"), "level_x-v0")
    assert netagent.reference_ids() == ["level_x-v0"] and netagent.has_reference("level_x-v0")


def test_a_game_without_a_reference_names_the_games_with_one(reference_dir):
    with pytest.raises(ValueError, match=r"no reference network for 'amoriax-v0'; games with one: none") as none:
        make_agent("reference", "amoriax-v0")
    assert "gameshelf train ID --backend expert" in str(none.value)
    reference_dir.add("level_x-v0")
    reference_dir.add("koplus-v0")
    listed = r"no reference network for 'amoriax-v0'; games with one: \['level_x-v0', 'koplus-v0'\]"
    for name in ("reference", "mcts:10:reference"):
        with pytest.raises(ValueError, match=listed):
            make_agent(name, "amoriax-v0")


def test_a_network_of_another_player_count_plays_when_its_shapes_fit(tmp_path):
    path = write_net(tmp_path / "four.npz", "level_x-v0", num_players=4)
    agent = make_agent(f"model:{path}", "level_x-v0")
    assert agent.net.meta["num_players"] == 4
    play_against_random(agent, "level_x-v0")  # two players
    result = evaluate("level_x-v0", [agent, "random"], games=1, num_players=3, first_only=True)
    assert len(result.games[0].returns) == 3


def test_deterministic_takes_the_most_likely_legal_action_and_sampling_uses_the_callers_rng(tmp_path):
    env_id = "level_x-v0"
    path = write_net(tmp_path / "net.npz", env_id)
    game = envs.make_game(env_id)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.sample_chance(np.random.default_rng(1)))
    seat = state.current_player()
    best = make_agent(f"model:{path}", env_id)
    probs, value = best.evaluate(state, seat)
    legal = state.legal_actions()
    assert probs.sum() == pytest.approx(1.0) and set(np.flatnonzero(probs)) <= set(legal) and -1.0 <= value <= 1.0
    assert best.act(state, seat, np.random.default_rng(0)) == int(np.argmax(probs)) in legal
    assert best.value(state, seat) == value and np.array_equal(best.action_probabilities(state, seat), probs)
    sampler = make_agent(f"model:{path}", env_id, deterministic=False)
    draws = [sampler.act(state, seat, np.random.default_rng(k)) for k in range(40)]
    assert set(draws) <= set(legal) and len(set(draws)) > 1
    assert draws == [sampler.act(state, seat, np.random.default_rng(k)) for k in range(40)]  # the rng decides


def test_agents_pickle_as_their_path_and_networks_are_cached_by_file(tmp_path, monkeypatch):
    monkeypatch.setattr(netagent, "_CACHE", {})
    path = write_net(tmp_path / "net.npz", "koplus-v0")
    agent = make_agent(f"model:{path}", "koplus-v0")
    data = pickle.dumps(agent)
    assert len(data) < 1000 < path.stat().st_size
    copy = pickle.loads(data)
    assert copy._net is None and copy.name == agent.name and copy.net is agent.net  # the process's cached network
    assert make_agent(f"model:{path}", "koplus-v0").net is agent.net
    stat = path.stat()
    write_net(path, "koplus-v0", seed=1, hidden=(8,))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    fresh = make_agent(f"model:{path}", "koplus-v0")
    assert fresh.net is not agent.net and fresh.net.meta["hidden"] == [8]


def test_names_parse_back(tmp_path, reference_dir):
    reference_dir.add("level_x-v0")
    path = write_net(tmp_path / "net.npz", "level_x-v0")
    for name in ("reference", f"model:{path}", "mcts:7:reference", "mcts:0.5s:reference", f"mcts:7:model:{path}"):
        agent = make_agent(name, "level_x-v0")
        assert agent.name == name and make_agent(agent.name, "level_x-v0").name == name


def test_trust_model_does_not_apply_to_network_files(tmp_path):
    path = write_net(tmp_path / "net.npz", "level_x-v0")
    assert isinstance(make_agent(f"model:{path}", "level_x-v0", trust_model=True), NetAgent)
    assert isinstance(make_agent(f"mcts:5:model:{path}", "level_x-v0", trust_model=True).prior, NetAgent)
    evil = bad_net(tmp_path, "pickled object array")
    with pytest.raises(ValueError, match="not a network file"):
        make_agent(f"model:{evil}", "level_x-v0", trust_model=True)
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("kind", BAD_FILES)
def test_bad_network_files_are_refused_with_one_clear_error(kind, tmp_path, reference_dir):
    path = bad_net(tmp_path, kind)
    for name in (f"model:{path}", f"mcts:5:model:{path}"):
        with pytest.raises(ValueError) as err:
            make_agent(name, "level_x-v0")
        message = str(err.value)
        assert BAD_WORDS[kind] in message and str(path) in message and "\n" not in message, message
    # the same file shipped as the game's reference
    with open(reference_path("level_x-v0"), "wb") as shipped:
        if kind == "oversize":
            shipped.truncate(path.stat().st_size)
        else:
            shipped.write(path.read_bytes())
    with pytest.raises(ValueError, match=BAD_WORDS[kind]):
        make_agent("reference", "level_x-v0")
    assert not (tmp_path / "ran").exists()


def test_a_network_of_another_game_names_both(tmp_path):
    path = write_net(tmp_path / "amoriax.npz", "amoriax-v0")
    with pytest.raises(ValueError, match=r"trained on amoriax-v0, not level_x-v0") as err:
        make_agent(f"model:{path}", "level_x-v0")
    assert str(path) in str(err.value)
    net = random_net("level_x-v0")
    net.meta["env_id"] = "koplus-v0"  # a header that lies about its game: the shapes do not fit
    net.save(tmp_path / "liar.npz")
    with pytest.raises(
        ValueError, match=r"header says koplus-v0 with observation \(212,\) and 49 actions; koplus-v0 has observation"
    ):
        make_agent(f"model:{tmp_path / 'liar.npz'}", "koplus-v0")


def test_unknown_agents_name_every_form():
    with pytest.raises(ValueError) as err:
        make_agent("grandmaster", "level_x-v0")
    for form in ("'reference'", "'mcts:N:reference'", "PATH.npz", "'mcts:N:heuristic'", "'model:PATH'"):
        assert form in str(err.value) and form in FORMS
    with pytest.raises(ValueError, match="':reference'"):
        make_agent("mcts:5:referee", "level_x-v0")
    assert "'reference'" in protocol.AGENT_FORMS and "':reference'" in protocol.AGENT_FORMS


# ---- where agent names are taken: the protocol, evaluate, training configs ---------------------------------
def test_the_protocol_takes_reference_and_keys_it_by_the_shipped_file(reference_dir):
    protocol.check_spec("reference")
    protocol.check_spec("mcts:50:reference")
    with pytest.raises(ValueError, match="no reference network"):
        protocol.build_agent("reference", "level_x-v0")
    assert protocol.spec_identity("reference", "level_x-v0") == "reference"  # no file yet
    reference_dir.add("level_x-v0")
    agent = protocol.build_agent("reference", "level_x-v0")
    assert agent is protocol.build_agent("reference", "level_x-v0") and agent.name == "reference"
    first = protocol.spec_identity("reference", "level_x-v0")
    assert first.startswith("reference#") and protocol.spec_identity("mcts:50:reference", "level_x-v0").startswith(
        "mcts:50:reference#"
    )
    both = protocol.spec_identity("mcts:50:reference:heuristic", "level_x-v0")
    assert both.startswith("mcts:50:reference:heuristic#") and both.endswith(first.partition("#")[2])
    assert protocol.spec_identity("reference") == "reference"
    reference_dir.add("level_x-v0", seed=5)
    assert protocol.spec_identity("reference", "level_x-v0") != first  # new weights: old games are not reused
    assert protocol.spec_identity("mcts:50:reference:heuristic", "level_x-v0") != both


def test_evaluate_command_plays_reference_and_network_files(reference_dir, tmp_path, capsys):
    from gameshelf.training.evaluate import main

    reference_dir.add("level_x-v0")
    path = write_net(tmp_path / "net.npz", "level_x-v0", seed=2)
    assert main(["level_x-v0", "reference", f"model:{path}", "--games", "2", "--no-plot", "--stochastic", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "reference~sampled" in out and "model:net~sampled" in out and out.count(str(path)) == 1
    with pytest.raises(UserError, match="no reference network for 'amoriax-v0'"):
        main(["amoriax-v0", "reference", "random", "--games", "1", "--no-plot"])


def test_benchmark_help_names_the_new_forms(capsys):
    from gameshelf.training.benchmark.ladder import build_parser

    text = build_parser().format_help()
    assert "'reference'" in text and "PATH.npz" in text


def test_training_configs_take_reference_opponents(reference_dir):
    from gameshelf.training.config import resolve_config
    from gameshelf.training.selfplay import OpponentPool

    settings = {
        "opponent": "reference",
        "selfplay": {"mix": {"snapshots": 0.5, "reference": 0.25, "mcts:3:reference": 0.25}},
        "eval": {"opponents": ["random", "reference", "mcts:2:reference"]},
    }
    for key, value in [*settings.items(), ("opponent", "mcts:4:reference:heuristic")]:
        with pytest.raises(UserError, match=r"no reference network for 'level_x-v0'; games with one: none") as err:
            resolve_config("level_x-v0", {key: value})
        assert "\n" not in str(err.value)
    reference_dir.add("level_x-v0")
    config = resolve_config("level_x-v0", settings)
    assert config.opponent == "reference" and config.eval.opponents == ["random", "reference", "mcts:2:reference"]
    for name in ("mcts:4:reference", "mcts:4:reference:heuristic"):
        assert resolve_config("level_x-v0", {"opponent": name}).opponent == name
    pool = OpponentPool("level_x-v0", {"reference": 0.5, "random": 0.25, "mcts:3:reference": 0.25})
    assert pool.opponents() == [("reference", 0.5), ("random", 0.25), ("mcts:3:reference", 0.25)]


def test_a_reference_opponent_plays_in_the_training_environment(reference_dir):
    pytest.importorskip("stable_baselines3")
    from gameshelf.training.config import resolve_config
    from gameshelf.training.environments import make_env_fn

    reference_dir.add("level_x-v0")
    config = resolve_config("level_x-v0", {"opponent": "reference", "n_envs": 1})
    env = make_env_fn(config, ["reference"])()
    env.reset(seed=0)
    assert type(env.unwrapped._agent("reference")).__name__ == "NetAgent"
    for _ in range(2000):
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            break
    assert terminated or truncated


def test_play_takes_reference_opponents(reference_dir, capsys):
    from gameshelf.cli import main as cli
    from gameshelf.play import play

    assert cli(["play", "amoriax-v0", "--opponents", "reference"]) == 2
    assert "no reference network for 'amoriax-v0'" in capsys.readouterr().err
    reference_dir.add("level_x-v0")
    out: list[str] = []

    def read(_prompt: str) -> str:  # the first listed legal move
        start = max(i for i, line in enumerate(out) if line.startswith("Your move"))
        return out[start + 1].split(":")[0].strip()

    final = play("level_x-v0", 1, ["reference"], seed=1, read=read, write=lambda t: out.extend(t.splitlines()))
    assert final.is_terminal() and "seats: player_0 reference, player_1 you" in out
