"""Training on Ray RLlib: the environment adapter, masking, the league, safe policy files and a short run.

The fast tests need Ray importable; one of them (about 20 s) starts a two-node Ray cluster on this machine and
trains on it with the env runner on the worker node. The slow ones start a local Ray with two CPUs, train a
few iterations on Level X and play the saved policy: a whole run, a run stopped by SIGTERM and resumed to its
end, a run stopped by Ctrl-C (SIGINT to its process group) in a subprocess, and a run on batched runners.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from gameshelf import envs  # noqa: E402
from gameshelf.training.agents import make_agent  # noqa: E402
from gameshelf.training.cli_util import UserError, run  # noqa: E402
from gameshelf.training.model_io import ModelLoadError, PolicyInfo, save_policy  # noqa: E402
from gameshelf.training.rllib.agent import load_policy_modules  # noqa: E402
from gameshelf.training.rllib.env import MASK_KEY, OBS_KEY, make_rllib_env, rllib_observation  # noqa: E402
from gameshelf.training.rllib.league import League  # noqa: E402
from gameshelf.training.rllib.module import module_spec  # noqa: E402

TINY = {
    "players": 2,
    "n_envs": 2,
    "timesteps": 1000,
    "opponent": "self",
    "selfplay": {"snapshot_every": 500, "pool_size": 2, "mix": {"snapshots": 0.4, "heuristic": 0.3, "random": 0.3}},
    "ppo": {"n_steps": 250, "batch_size": 250, "n_epochs": 1, "net_arch": [32, 32]},
    "eval": {"every": 500, "games": 6, "opponents": ["random", "heuristic"]},
    "checkpoint_every": 500,
    "keep_checkpoints": 1,
}


def play_random(env, rng):
    """Play one random legal game through RLlib's MultiAgentEnv API; returns what every agent received."""
    obs, _ = env.reset(seed=int(rng.integers(2**31)))
    received = {a: 0.0 for a in env.possible_agents}
    final_obs: dict[str, dict] = {}
    last_mover = None
    while True:
        assert len(obs) == 1, "a turn-based game asks one seat at a time"
        (agent, o), *_ = obs.items()
        assert env.observation_spaces[agent].contains(o)
        legal = np.flatnonzero(o[MASK_KEY])
        assert legal.size > 0
        last_mover = agent
        obs, rewards, terminated, truncated, _ = env.step({agent: int(rng.choice(legal))})
        for a, r in rewards.items():
            received[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            final_obs, final_rewards = obs, rewards
            return received, final_obs, final_rewards, last_mover


@pytest.mark.parametrize("env_id", envs.registered_ids())
def test_every_seat_gets_its_whole_return_through_rllibs_pettingzoo_env(env_id):
    env = make_rllib_env({"env_id": env_id})
    rng = np.random.default_rng(7)
    aec = env.env.unwrapped
    for _ in range(2):
        received, final_obs, final_rewards, _ = play_random(env, rng)
        returns = aec.episode.state.returns()
        for seat, agent in enumerate(aec.possible_agents):
            assert received[agent] == pytest.approx(float(returns[seat])), (agent, received, returns)
        # the game's end reaches every seat on the last move, not only the one who made it
        assert set(final_obs) == set(aec.possible_agents) == set(final_rewards)
        for o in final_obs.values():
            assert not o[MASK_KEY].any(), "no seat may act once the game is over"


def test_the_losers_final_reward_arrives_on_the_winners_move():
    env = make_rllib_env({"env_id": "level_x-v0", "players": 2})
    rng = np.random.default_rng(3)
    for _ in range(5):
        received, _, final_rewards, last_mover = play_random(env, rng)
        other = next(a for a in env.possible_agents if a != last_mover)
        assert {final_rewards[last_mover], final_rewards[other]} == {1.0, -1.0}
        assert received[last_mover] == final_rewards[last_mover]


def test_our_observation_keeps_its_names_and_rllib_gets_its_own():
    aec = envs.make("level_x-v0")
    aec.reset(seed=0)
    ours = aec.observe(aec.agent_selection)
    assert set(ours) == {"observation", "action_mask"}
    theirs = rllib_observation(ours)
    assert set(theirs) == {OBS_KEY, MASK_KEY}
    assert theirs[OBS_KEY].dtype == np.float32 and theirs[OBS_KEY].ndim == 1
    np.testing.assert_array_equal(theirs[MASK_KEY], ours["action_mask"])
    planes = envs.make("amoriax-v0")
    assert len(planes.observation_space("player_0")["observation"].shape) == 3
    assert make_rllib_env({"env_id": "amoriax-v0"}).observation_spaces["player_0"][OBS_KEY].shape == (
        int(np.prod(planes.observation_space("player_0")["observation"].shape)),
    )


# ---- the masked module -------------------------------------------------------------------------------
def level_x_info(seats=("main", "main"), hidden=(16,)):
    game = envs.make_game("level_x-v0")
    return PolicyInfo(
        env_id="level_x-v0",
        num_players=2,
        observation_size=int(np.prod(game.info.observation_shape)),
        num_actions=game.info.num_actions,
        hidden=list(hidden),
        activation="tanh",
        seats=list(seats),
    )


def random_batch(n, seed=0):
    """Observations and masks of ``n`` positions reached by random play in Level X."""
    from ray.rllib.core.columns import Columns

    game = envs.make_game("level_x-v0")
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while len(obs) < n:
        state = game.new_initial_state()
        while not state.is_terminal() and len(obs) < n:
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
                continue
            seat = state.current_player()
            o = rllib_observation({"observation": state.observation(seat), "action_mask": state.legal_action_mask()})
            obs.append(o[OBS_KEY])
            masks.append(o[MASK_KEY])
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
    return {Columns.OBS: {OBS_KEY: torch.as_tensor(np.stack(obs)), MASK_KEY: torch.as_tensor(np.stack(masks))}}


def test_masked_module_never_gives_an_illegal_action_any_probability():
    from ray.rllib.core.columns import Columns

    module = module_spec(level_x_info()).build()
    batch = random_batch(200)
    mask = batch[Columns.OBS][MASK_KEY].bool()
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        probs = torch.softmax(logits, dim=-1)
        assert float(probs.detach()[~mask].max()) == 0.0
        samples = torch.distributions.Categorical(logits=logits).sample((50,))
        assert bool(mask.gather(1, samples.T).all())
    assert set(batch[Columns.OBS]) == {OBS_KEY, MASK_KEY}, "the caller's batch is left as it was"
    values = module.compute_values(batch)
    assert values.shape == (200,)


def test_masked_module_refuses_observations_without_the_mask():
    from ray.rllib.core.columns import Columns

    module = module_spec(level_x_info()).build()
    with pytest.raises(ValueError, match="action_mask"):
        module.forward_inference({Columns.OBS: torch.zeros(1, 212)})


def test_masked_random_module_is_uniform_over_legal_actions():
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from gameshelf.training.rllib.module import MaskedRandomModule

    spec = module_spec(level_x_info())
    module = RLModuleSpec(
        module_class=MaskedRandomModule, observation_space=spec.observation_space, action_space=spec.action_space
    ).build()
    batch = random_batch(20)
    probs = torch.softmax(module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS], dim=-1)
    mask = batch[Columns.OBS][MASK_KEY]
    expected = mask / mask.sum(dim=1, keepdim=True)
    assert torch.allclose(probs, expected, atol=1e-6)


# ---- the league -------------------------------------------------------------------------------------
class FakeEpisode:
    def __init__(self, id_):
        self.id_ = id_


def test_league_lineups_follow_the_mix_and_agree_within_an_episode():
    league = League(2, "shared", "self", {"snapshots": 0.5, "heuristic": 0.25, "random": 0.25}, pool_size=3)
    assert league.trained == ["main"] and league.snapshots == ["snap_0", "snap_1", "snap_2"]
    assert league.frozen == ["snap_0", "snap_1", "snap_2", "random"]
    counts: dict[str, int] = {}
    learner_seats = [0, 0]
    for k in range(4000):
        episode = FakeEpisode(f"episode-{k}")
        lineup = [league(f"player_{s}", episode) for s in range(2)]
        assert lineup == [league(f"player_{s}", episode) for s in range(2)], "same episode, same line-up"
        assert "main" in lineup
        learner_seats[lineup.index("main")] += 1
        other = lineup[1 - lineup.index("main")] if lineup != ["main", "main"] else "self"
        counts[other] = counts.get(other, 0) + 1
    n = sum(counts.values())
    assert counts["self"] / n == pytest.approx(0.25, abs=0.03)
    assert counts["random"] / n == pytest.approx(0.25, abs=0.03)
    assert counts["snap_0"] / n == pytest.approx(0.25, abs=0.03), "the newest snapshot gets half the snapshot share"
    assert counts["snap_1"] / n == pytest.approx(0.125, abs=0.03)
    assert min(learner_seats) > 1500, "the learner plays every seat"


def test_league_per_seat_and_random_opponents():
    per_seat = League(3, "per_seat", "self", {"snapshots": 1.0}, pool_size=4)
    assert per_seat.trained == ["seat_0", "seat_1", "seat_2"] and per_seat.frozen == []
    assert [per_seat(f"player_{s}", FakeEpisode("x")) for s in range(3)] == ["seat_0", "seat_1", "seat_2"]
    versus_random = League(3, "shared", "random", {"snapshots": 1.0}, pool_size=4)
    assert versus_random.frozen == ["random"]
    lineup = versus_random.lineup("y")
    assert sorted(lineup) == ["main", "random", "random"]
    with pytest.raises(ValueError, match="opponent"):
        League(2, "shared", "heuristic", {}, 2)
    with pytest.raises(ValueError, match="policies"):
        League(2, "everyone", "self", {}, 2)


# ---- batched runners: many games per call on compiled kernels ------------------------------------------
def test_batched_vector_env_steps_every_game_at_once_with_next_step_resets():
    from gameshelf.training.rllib.batched_env import BatchedSeatVectorEnv

    n = 16
    env = BatchedSeatVectorEnv("level_x-v0", n, "random")
    obs, _ = env.reset(seed=5)
    assert env.observation_space.contains(obs) and obs[OBS_KEY].shape == (n, 212)
    rng = np.random.default_rng(0)
    returns, running, resets = [], np.zeros(n), np.zeros(n, dtype=bool)
    for _ in range(400):
        mask = obs[MASK_KEY].astype(bool)
        assert mask.any(axis=1).all(), "every game waits for the learner"
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        actions[resets] = 10**6  # ignored: those games were just redealt (gymnasium's next-step autoreset)
        obs, rewards, terminated, truncated, _ = env.step(actions)
        assert not rewards[resets].any() and not (terminated | truncated)[resets].any()
        running += rewards
        for i in np.flatnonzero(terminated | truncated):
            returns.append(running[i])
            running[i] = 0.0
        resets = terminated | truncated
    assert len(returns) > 20 and set(returns) <= {-1.0, 1.0}, "the learner gets the game's outcome, whoever ends it"
    assert 0.3 < np.mean(np.array(returns) > 0) < 0.7, "random against random"


def test_batched_vector_env_with_heuristic_opponents_loses_more():
    from gameshelf.training.rllib.batched_env import BatchedSeatVectorEnv

    env = BatchedSeatVectorEnv("level_x-v0", 8, "heuristic", num_players=2)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    wins, games, resets = 0, 0, np.zeros(8, dtype=bool)
    while games < 40:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs[MASK_KEY].astype(bool)])
        obs, rewards, terminated, truncated, _ = env.step(actions)
        done = (terminated | truncated) & ~resets
        games += int(done.sum())
        wins += int((rewards[done] > 0).sum())
        resets = terminated | truncated
    assert wins / games < 0.3


def test_runner_env_auto_is_batched_for_kernel_games_with_fixed_opponents(tmp_path):
    from gameshelf.training.config import resolve_config
    from gameshelf.training.rllib.train import RLlibSettings, resolve_runner_env

    auto = RLlibSettings()
    for opponent, expected in [("random", "batched"), ("heuristic", "batched"), ("self", "aec")]:
        cfg = resolve_config("level_x-v0", {**TINY, "opponent": opponent}, seed=0)
        assert resolve_runner_env(cfg, auto).runner_env == expected
    cfg = resolve_config("level_x-v0", {**TINY, "opponent": "random"}, seed=0)
    assert resolve_runner_env(cfg, RLlibSettings(policies="per_seat")).runner_env == "aec"
    assert resolve_runner_env(cfg, RLlibSettings(runner_env="aec")).runner_env == "aec"
    from tests.toy_nim import register_nim, unregister_nim

    nim = dataclasses.replace(cfg, env_id=register_nim())
    try:
        assert resolve_runner_env(nim, auto).runner_env == "aec"
        with pytest.raises(UserError, match="no compiled kernels"):
            resolve_runner_env(nim, RLlibSettings(runner_env="batched"))
    finally:
        unregister_nim()


# ---- policy files: weights only, checked against the game --------------------------------------------
def saved_policy(tmp_path: Path, seats=("main", "main")) -> Path:
    info = level_x_info(seats)
    spec = module_spec(info)
    weights = {m: spec.build().state_dict() for m in info.modules}
    return save_policy(tmp_path / "policy", info, weights)


def test_saved_policy_loads_as_an_agent_and_plays(tmp_path):
    from gameshelf.training.evaluate import evaluate

    folder = saved_policy(tmp_path, seats=("seat_0", "seat_1"))
    assert sorted(p.name for p in folder.iterdir()) == ["gameshelf.json", "seat_0.pt", "seat_1.pt"]
    agent = make_agent(f"rllib:{folder}", "level_x-v0")
    assert agent.name == "rllib:policy"
    assert agent.module_for(0) is not agent.module_for(1)
    result = evaluate("level_x-v0", [agent, "random"], games=4, seed=1)
    assert sum(g.length for g in result.games) > 0
    # a run folder stands for its final_policy/
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    folder.rename(run_dir / "final_policy")
    assert make_agent(f"rllib:{run_dir}", "level_x-v0").path == str(run_dir / "final_policy")


def test_policy_file_with_a_pickled_payload_is_refused(tmp_path):
    folder = saved_policy(tmp_path)
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    torch.save({"encoder.encoder.net.mlp.0.weight": Payload()}, folder / "main.pt")
    with pytest.raises(ModelLoadError, match="refused"):
        load_policy_modules(folder)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "sb3"}, "not describe an RLlib policy"),
        ({"format": 99}, "format"),
        ({"hidden": ["64"]}, "hidden"),
        ({"seats": ["../evil"]}, "seats"),
        ({"activation": "os.system"}, "activation"),
        ({"hidden": [17]}, "do not fit"),
    ],
)
def test_bad_policy_descriptions_are_refused(tmp_path, change, message):
    folder = saved_policy(tmp_path)
    data = json.loads((folder / "gameshelf.json").read_text())
    data.update(change)
    (folder / "gameshelf.json").write_text(json.dumps(data))
    with pytest.raises(ModelLoadError, match=message):
        load_policy_modules(folder)


def test_policy_of_another_game_is_refused_naming_both(tmp_path):
    folder = saved_policy(tmp_path)
    with pytest.raises(ModelLoadError, match=r"trained on level_x-v0 .* cannot play koplus-v0"):
        make_agent(f"rllib:{folder}", "koplus-v0")
    with pytest.raises(FileNotFoundError, match="no RLlib policy"):
        make_agent(f"rllib:{tmp_path / 'nothing'}", "level_x-v0")


# ---- the command line: every mistake is caught before Ray starts -----------------------------------
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["level_x-v0", "--num-env-runners", "2"], "only apply with --backend rllib"),
        (["level_x-v0", "--backend", "rllib", "--runner-env", "aec", "--opponent", "heuristic"], "opponent=heuristic is not"),
        (["level_x-v0", "--backend", "rllib", "--runner-env", "batched"], "fixed opponents inside the batch"),
        (
            ["level_x-v0", "--backend", "rllib", "--runner-env", "batched", "--opponent", "random", "--policies", "per_seat"],
            "per_seat",
        ),
        (["level_x-v0", "--backend", "rllib", "--policies", "per_seat", "--opponent", "random"], "per_seat"),
        (["level_x-v0", "--backend", "rllib", "--num-env-runners", "-1"], "--num-env-runners"),
        (["level_x-v0", "--runner-resources", "worker=1"], "only apply with --backend rllib"),
        (["level_x-v0", "--backend", "rllib", "--runner-resources", "worker"], "NAME=AMOUNT"),
        (["level_x-v0", "--backend", "rllib", "--runner-resources", "worker=none"], "must be a number"),
        (["level_x-v0", "--backend", "rllib", "--runner-resources", "worker=0"], "above 0"),
        (["level_x-v0", "--backend", "rllib", "--runner-resources", "CPU=2"], "Ray's own resources"),
        (["level_x-v0", "--backend", "rllib", "--num-env-runners", "0", "--runner-resources", "worker=1"], "1 or more"),
    ],
)
def test_train_command_refuses_bad_rllib_settings(argv, message, tmp_path, capsys):
    from gameshelf.training.train import main

    with pytest.raises(SystemExit) as info:
        run(main, [*argv, "--out", str(tmp_path / "run")])
    assert info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_resuming_an_rllib_run_keeps_its_policies_and_other_runs_take_no_rllib_options(tmp_path, capsys):
    from gameshelf.training.checkpoints import RunDir
    from gameshelf.training.config import resolve_config
    from gameshelf.training.train import main

    cfg = resolve_config("level_x-v0", TINY, seed=0)
    (tmp_path / "rllib").mkdir()
    (tmp_path / "sb3").mkdir()
    RunDir(tmp_path / "rllib").write_config(cfg, "rllib", {"rllib": {"num_env_runners": 0, "policies": "shared"}})
    RunDir(tmp_path / "sb3").write_config(cfg, "sb3")
    for argv, message in [
        (["--resume", str(tmp_path / "rllib"), "--policies", "per_seat"], "keeps its policies"),
        (["--resume", str(tmp_path / "sb3"), "--num-env-runners", "2"], "only apply to RLlib runs"),
        (["--resume", str(tmp_path / "rllib"), "--backend", "sb3"], "resumes with --backend rllib"),
        (["--resume", str(tmp_path / "rllib"), "--runner-env", "batched"], "keeps its runner environment"),
    ]:
        with pytest.raises(SystemExit) as info:
            run(main, argv)
        assert info.value.code == 2
        assert message in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "rllib").iterdir()) == ["config.yaml"]


def test_evaluate_names_a_missing_rllib_policy(capsys):
    from gameshelf.training.evaluate import build_agents

    with pytest.raises(UserError, match="no RLlib policy"):
        build_agents(["rllib:/nonexistent/run", "random"], "level_x-v0")


# ---- a short run on a local Ray ----------------------------------------------------------------------
@pytest.mark.slow
def test_ctrl_c_in_a_terminal_stops_an_rllib_run_with_a_checkpoint(tmp_path):
    """SIGINT to the whole process group, as Ctrl-C in a terminal sends it (Ray's workers get it too): the run
    stops after its iteration with a checkpoint that plays as ``rllib:PATH`` and the resume command, status 130."""
    import signal
    import subprocess
    import sys
    import time

    import yaml

    from gameshelf.training.evaluate import main as evaluate_main

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY, "timesteps": 10**6, "eval": {**TINY["eval"], "opponents": ["random"]}}))
    out = tmp_path / "run"
    argv = ["level_x-v0", "--backend", "rllib", "--num-env-runners", "1", "--num-cpus", "2", "--config", str(config)]
    command = [sys.executable, "-m", "gameshelf.training.train", *argv, "--out", str(out), "--quiet"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while not (out / "progress.csv").exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert process.poll() is None, process.communicate()[1][-2000:]
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=180)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, err[-2000:]
    assert "SIGINT: stopped at" in err and f"gameshelf train --resume {out}" in err
    state = json.loads((out / "state.json").read_text())
    stopped = out / state["checkpoint"]
    assert not state["finished"] and state["timesteps"] >= 500 and (stopped / "algorithm").is_dir()
    assert sorted(p.name for p in (stopped / "league").iterdir()) == ["snap_0.pt", "snap_1.pt"]
    assert evaluate_main(["level_x-v0", f"rllib:{stopped}", "random", "--games", "2", "--no-plot", "--quiet"]) == 0


@pytest.fixture
def two_node_cluster():
    """A Ray cluster of two nodes on this machine: a head with one CPU and a worker node with one CPU and the
    custom resource ``worker`` (which the head lacks); shut down, with every process it started, afterwards."""
    import ray
    from ray.cluster_utils import Cluster

    assert not ray.is_initialized(), "this test needs a process where Ray is not running (local_ray shuts it down)"
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        worker = cluster.add_node(num_cpus=1, resources={"worker": 1})
        cluster.wait_for_nodes()
        yield cluster, worker
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()


def test_a_run_on_a_two_node_cluster_samples_on_the_worker_node_and_plays_as_rllib_path(two_node_cluster, tmp_path, capsys):
    """The command line against a running multi-node cluster (``--address``): ``--runner-resources worker=1``
    puts the env runners on the node that has ``worker``, they report that node, and the run's policy plays."""
    import yaml

    from gameshelf.training.evaluate import main as evaluate_main
    from gameshelf.training.train import main as train_main

    cluster, worker = two_node_cluster
    head = cluster.head_node
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY, "eval": {**TINY["eval"], "opponents": ["random"]}}))
    out = tmp_path / "run"
    argv = ["level_x-v0", "--backend", "rllib", "--address", cluster.address, "--num-env-runners", "1"]
    argv += ["--runner-resources", "worker=1", "--config", str(config), "--out", str(out)]
    assert train_main(argv) == 0
    said = capsys.readouterr().out
    placement = json.loads((out / "env_runners.json").read_text())
    runners = placement["env_runners"]
    assert [r["runner"] for r in runners] == [1]
    assert {r["node_id"] for r in runners} == {worker.node_id} != {head.node_id}
    assert placement["driver"]["node_id"] == head.node_id, "the driver joined the cluster through its head"
    assert f"env runners: 1 on 1 node: {runners[0]['node_ip']}" in said and "(this node)" not in said
    assert yaml.safe_load((out / "config.yaml").read_text())["rllib"]["runner_resources"] == {"worker": 1.0}
    state = json.loads((out / "state.json").read_text())
    assert state["finished"] and state["timesteps"] >= 1000
    # the cluster outlives the run; the policy plays as rllib:PATH
    assert len([n for n in cluster.list_all_nodes() if n.remaining_processes_alive()]) == 2
    assert evaluate_main(["level_x-v0", f"rllib:{out}", "random", "--games", "2", "--no-plot", "--quiet"]) == 0


BENCHMARK = ["random", "--ids", "level_x-v0", "--ladder", "heuristic", "--games", "8", "--bootstrap", "20", "--quiet"]


def benchmark_games(out):
    """The records of a benchmark's games.jsonl by key, without the machine's timings (CPU seconds)."""
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    return {r["key"]: {k: v for k, v in r.items() if k not in ("cpu_s", "act_cpu_s")} for r in records}


def test_a_benchmark_on_a_two_node_cluster_plays_the_games_of_a_local_run(two_node_cluster, tmp_path, capsys, monkeypatch):
    """``gameshelf benchmark --address``: stopped by SIGTERM after two games it keeps them and says how to resume
    (Ray's own SIGTERM handler does not take over); resumed, it ends with the records of a local run, game for
    game, and the same result (its command without ``--address``). The driver cannot play a game (its
    ``play_task`` raises): the cluster's workers did. An agent that breaks the rules on a node stops the run
    with the message a local run gives."""
    import signal

    from gameshelf.training.benchmark import ladder, protocol

    cluster, _ = two_node_cluster
    assert ladder.main([*BENCHMARK, "--out", str(tmp_path / "local")]) == 0
    local = benchmark_games(tmp_path / "local")
    assert len(local) == 8

    def not_here(*args, **kwargs):
        raise AssertionError("a game was played in the driver")

    monkeypatch.setattr(protocol, "play_task", not_here)
    update = ladder.Progress.update

    def stop_after_two(self, desc=None):
        update(self, desc)
        if self.count == 2:
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(ladder.Progress, "update", stop_after_two)
    remote = tmp_path / "remote"
    argv = [*BENCHMARK, "--out", str(remote), "--address", cluster.address]
    with pytest.raises(SystemExit) as info:
        ladder.main(argv)
    assert info.value.code == 128 + signal.SIGTERM
    assert "interrupted (SIGTERM): 2 games kept" in capsys.readouterr().err
    assert len(benchmark_games(remote)) == 2
    monkeypatch.setattr(ladder.Progress, "update", update)
    assert ladder.main(argv) == 0
    assert benchmark_games(remote) == local
    here, there = (json.loads((out / "result.json").read_text()) for out in (tmp_path / "local", remote))
    assert {k: v for k, v in here.items() if k != "cost"} == {k: v for k, v in there.items() if k != "cost"}
    assert there["cost"]["games_played"] == 6 and there["cost"]["games_reused"] == 2
    assert there["ids"]["level_x-v0"]["chance"]["replays"] == 4
    # an agent's mistake on a node stops the run with its own message, as it does here
    broken = ["tests.toy_agents:illegal", "--ids", "level_x-v0", "--ladder", "random", "--games", "2", "--quiet"]
    with pytest.raises(SystemExit) as info:
        ladder.main([*broken, "--out", str(tmp_path / "broken"), "--address", cluster.address])
    assert info.value.code == 1
    assert "a game failed: tests.toy_agents:illegal at seat" in capsys.readouterr().err


@pytest.fixture
def local_ray():
    """Ray on this machine for one test, shut down after it: tests run in a random order, and the two-node
    cluster test needs a process where Ray is not running."""
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.mark.slow
def test_rllib_training_episodes_hold_every_seats_final_reward(local_ray, tmp_path):
    from gameshelf.training.config import resolve_config
    from gameshelf.training.rllib.train import RLlibSettings, Run

    cfg = resolve_config("level_x-v0", TINY, seed=3)
    training = Run(cfg, RLlibSettings(num_env_runners=0), tmp_path, say=lambda _: None)
    try:
        episodes = training.algo.env_runner.sample(num_episodes=6, explore=True)
        for episode in episodes:
            assert episode.is_done
            returns = {aid: sa.get_return() for aid, sa in episode.agent_episodes.items()}
            assert set(returns) == {"player_0", "player_1"}
            assert sorted(returns.values()) == [-1.0, 1.0], returns
        row = training.train_iteration()
        assert row["env_steps"] >= 250 and row["env_steps_per_s"] > 0
    finally:
        training.stop()


@pytest.mark.slow
def test_rllib_training_command_saves_a_policy_that_loads_and_plays(local_ray, tmp_path, capsys):
    import yaml

    from gameshelf.training.evaluate import main as evaluate_main
    from gameshelf.training.train import main as train_main

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(TINY))
    out = tmp_path / "run"
    argv = ["level_x-v0", "--backend", "rllib", "--num-env-runners", "1", "--config", str(config), "--out", str(out)]
    assert train_main([*argv, "--quiet"]) == 0
    saved = yaml.safe_load((out / "config.yaml").read_text())
    assert saved["backend"] == "rllib" and saved["rllib"]["num_env_runners"] == 1
    progress = (out / "progress.csv").read_text().splitlines()
    assert len(progress) >= 3 and "env_steps_per_s" in progress[0]
    assert "win_heuristic" in (out / "eval.csv").read_text()
    assert (out / "learning_curve.png").stat().st_size > 0
    assert (out / "final_policy" / "algorithm").is_dir() and (out / "final_policy" / "league" / "snap_1.pt").is_file()
    checkpoints = sorted((out / "checkpoints").iterdir())
    assert len(checkpoints) == 1, "only keep_checkpoints are kept"
    info = json.loads((out / "final_policy" / "gameshelf.json").read_text())
    assert info["env_steps"] >= 1000 and info["seats"] == ["main", "main"]
    for path in (out, checkpoints[0]):
        assert evaluate_main(["level_x-v0", f"rllib:{path}", "random", "--games", "4", "--no-plot", "--quiet"]) == 0
    assert "rllib:run" in capsys.readouterr().out


@pytest.mark.slow
def test_rllib_run_stopped_by_a_signal_saves_a_checkpoint_and_resumes_to_the_end(local_ray, tmp_path, capsys, monkeypatch):
    """SIGTERM (as a job scheduler stops a job) after the first iteration (500 moves): a checkpoint with the
    algorithm and the league, the resume command; ``--resume`` (on one env runner instead of none) finishes
    the 1,000 moves with the snapshots, the counts and the evaluations carried over, and the policy plays as
    ``rllib:PATH``."""
    import shutil
    import signal

    import yaml

    from gameshelf.training.config import resolve_config
    from gameshelf.training.evaluate import main as evaluate_main
    from gameshelf.training.rllib.train import RLlibSettings, Run
    from gameshelf.training.train import main as train_main

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(TINY))
    out = tmp_path / "run"
    train_iteration = Run.train_iteration

    def interrupted(self):
        row = train_iteration(self)
        os.kill(os.getpid(), signal.SIGTERM)  # caught: the iteration is over, the run stops
        return row

    monkeypatch.setattr(Run, "train_iteration", interrupted)
    argv = ["level_x-v0", "--backend", "rllib", "--num-env-runners", "0", "--config", str(config), "--out", str(out)]
    assert train_main([*argv, "--quiet"]) == 128 + signal.SIGTERM
    err = capsys.readouterr().err
    assert "SIGTERM: stopped at" in err and f"gameshelf train --resume {out}" in err
    monkeypatch.undo()
    state = json.loads((out / "state.json").read_text())
    assert not state["finished"] and 500 <= state["timesteps"] < 1000
    stopped = out / state["checkpoint"]
    assert stopped.parent.name == "checkpoints" and (stopped / "algorithm").is_dir()
    assert not (out / "final_policy").exists()
    snapshot = tmp_path / "main_at_stop.pt"
    shutil.copy(stopped / "main.pt", snapshot)  # the snapshot pushed at 500 moves, before the checkpoint
    first = [torch.load(stopped / "league" / "snap_0.pt"), torch.load(snapshot)]
    assert first[0].keys() == first[1].keys() and all(torch.equal(first[0][k], first[1][k]) for k in first[0])
    # rebuilt from the checkpoint: the learner's weights and its optimizer's state (Adam's steps) are back
    restored = Run(
        resolve_config("level_x-v0", TINY, seed=0), RLlibSettings(num_env_runners=0), tmp_path / "c", checkpoint=stopped
    )
    try:
        learner = restored.algo.learner_group.get_state()["learner"]
        assert all(torch.equal(torch.as_tensor(learner["rl_module"]["main"][k]), first[1][k]) for k in first[1])
        adam = learner["optimizer"]["main_default_optimizer"]["state"]["state"]
        assert adam and all(float(p["step"]) >= 1 for p in adam.values())
        assert (restored.steps, restored.iteration) == (state["timesteps"], 1)
    finally:
        restored.stop()

    assert train_main(["--resume", str(out), "--num-env-runners", "1", "--quiet"]) == 0
    state = json.loads((out / "state.json").read_text())
    assert state["finished"] and state["timesteps"] >= 1000 and state["checkpoint"] == "final_policy"
    info = json.loads((out / "final_policy" / "gameshelf.json").read_text())
    assert info["env_steps"] == state["timesteps"] and info["iteration"] == 2
    # the league came back: the snapshot of 500 moves is now the older one, snap_1
    older = torch.load(out / "final_policy" / "league" / "snap_1.pt")
    assert all(torch.equal(older[k], first[1][k]) for k in older)
    evaluations = [float(r.split(",")[0]) for r in (out / "eval.csv").read_text().splitlines()[1:]]
    assert evaluations[0] >= 500 and evaluations[-1] >= 1000 and len(evaluations) == 2
    progress = (out / "progress.csv").read_text().splitlines()[1:]
    assert [int(float(r.split(",")[0])) for r in progress] == [1, 2]
    assert yaml.safe_load((out / "config.yaml").read_text())["rllib"]["num_env_runners"] == 1
    assert train_main(["--resume", str(out)]) == 0 and "already finished" in capsys.readouterr().out
    assert evaluate_main(["level_x-v0", f"rllib:{out}", "random", "--games", "4", "--no-plot", "--quiet"]) == 0


@pytest.mark.slow
def test_a_batched_run_steps_its_games_in_one_call_per_runner_and_plays_as_rllib_path(tmp_path, capsys):
    """``--opponent random`` on a game with kernels: batched runners (auto), 8 games per runner stepped by the
    kernels, which refuse any illegal action, so a finished run sampled legal moves only; the policy plays."""
    import yaml

    from gameshelf.training.evaluate import main as evaluate_main
    from gameshelf.training.train import main as train_main

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY, "opponent": "random", "eval": {**TINY["eval"], "opponents": ["random"]}}))
    out = tmp_path / "run"
    argv = ["level_x-v0", "--backend", "rllib", "--num-env-runners", "1", "--envs-per-runner", "8", "--num-cpus", "2"]
    assert train_main([*argv, "--config", str(config), "--out", str(out), "--quiet"]) == 0
    saved = yaml.safe_load((out / "config.yaml").read_text())["rllib"]
    assert saved["runner_env"] == "batched" and saved["envs_per_runner"] == 8
    runners = json.loads((out / "env_runners.json").read_text())["env_runners"]
    assert [(r["runner"], r["games"]) for r in runners] == [(1, 8)]
    progress = (out / "progress.csv").read_text().splitlines()
    assert "return_main" in progress[0] and len(progress) >= 2
    info = json.loads((out / "final_policy" / "gameshelf.json").read_text())
    assert info["seats"] == ["main", "main"] and sorted(p.name for p in (out / "final_policy").glob("*.pt")) == ["main.pt"]
    assert evaluate_main(["level_x-v0", f"rllib:{out}", "random", "--games", "4", "--no-plot", "--quiet"]) == 0
    assert train_main(["--resume", str(out), "--timesteps", "2000", "--num-env-runners", "0", "--quiet"]) == 0
    assert json.loads((out / "state.json").read_text())["timesteps"] >= 2000
