"""Evaluation, ratings, the learned agent and the training/evaluation commands, on tiny budgets."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.training.benchmark.ratings import elo_ratings, openskill_ratings
from gameshelf.training.cli_util import run
from gameshelf.training.evaluate import evaluate, mean_ci, ranks_of, wilson
from tests.toy_nim import NIM, PerfectNim, register_nim, unregister_nim

TINY = {
    "n_envs": 2,
    "timesteps": 512,
    "selfplay": {"snapshot_every": 256, "pool_size": 2, "mix": {"snapshots": 0.5, "random": 0.5}},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
    "eval": {"every": 256, "games": 4, "opponents": ["random"]},
    "checkpoint_every": 256,
}


@pytest.fixture(autouse=True)
def nim_registered():
    register_nim()
    yield
    unregister_nim()


def exit_code(main, argv, capsys):
    with pytest.raises(SystemExit) as info:
        run(main, argv)
    return info.value.code, capsys.readouterr().err


# ---- statistics and ratings -----------------------------------------------------------------------


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    mean, half = mean_ci([1, 2, 3, 4])
    assert mean == 2.5 and half > 0


def test_ranks_average_ties():
    assert ranks_of(np.array([1.0, -1.0])) == [1, 2]
    assert ranks_of(np.array([0.5, 0.5, -1.0])) == [1.5, 1.5, 3]


def test_elo_orders_agents_and_anchors_random():
    games = [(0, 1, 1.0)] * 30 + [(0, 1, 0.0)] * 10 + [(1, 2, 1.0)] * 30 + [(1, 2, 0.0)] * 10
    r = elo_ratings(["strong", "mid", "random"], games)
    assert r["random"].value == pytest.approx(1000)
    assert r["strong"].value > r["mid"].value > r["random"].value
    assert r["mid"].value - r["random"].value == pytest.approx(191, abs=15)  # 75% expected score
    perfect = elo_ratings(["a", "random"], [(0, 1, 1.0)] * 20)
    assert np.isfinite(perfect["a"].value) and perfect["a"].value > 1000


def test_openskill_orders_agents():
    games = [((0, 1, 1), (1, 2.5, 2.5)) for _ in range(20)] + [((1, 0, 0), (3, 1.5, 1.5)) for _ in range(20)]
    r = openskill_ratings(["a", "b"], games)
    assert r["a"].value > r["b"].value and r["a"].mu is not None


# ---- the evaluation engine -------------------------------------------------------------------------


def test_evaluate_two_players_every_seat():
    result = evaluate(NIM, [PerfectNim(), "random"], games=20, seed=3)
    assert result.agents == ["perfect", "random"] and result.rating_kind == "elo"
    pair = result.pair("perfect", "random")
    assert pair.games == 20 and pair.wins + pair.draws + pair.losses == 20
    assert set(pair.win_rate_by_seat) == {0, 1}
    assert pair.win_rate_by_seat[0] == 1.0  # from 7 stones the first player wins with perfect play
    mirror = result.pair("random", "perfect")
    assert mirror.wins == pair.losses
    assert result.ratings["perfect"].value > result.ratings["random"].value
    table = result.table()
    assert "perfect" in table and "Elo" in table
    again = evaluate(NIM, [PerfectNim(), "random"], games=20, seed=3)
    assert [g.returns for g in again.games] == [g.returns for g in result.games]


def test_evaluate_more_players_mean_rank_and_openskill(tmp_path):
    result = evaluate(NIM, ["random", PerfectNim()], games=6, seed=0, num_players=3, options={"pile": 10})
    assert result.num_players == 3 and result.rating_kind == "openskill"
    assert {(p.agent, p.opponent) for p in result.pairs} == {("random", "perfect"), ("perfect", "random")}
    for p in result.pairs:
        assert p.games == 6 and set(p.win_rate_by_seat) == {0, 1, 2} and 1 <= p.mean_rank <= 3
    assert "mean rank" in result.table()
    result.plot(tmp_path / "eval.png")
    assert (tmp_path / "eval.png").stat().st_size > 1000
    assert result.to_dict()["pairs"][0]["games"] == 6


def test_evaluate_first_only_and_bad_arguments():
    result = evaluate(NIM, ["random", PerfectNim(), "random"], games=4, first_only=True)
    assert {(p.agent, p.opponent) for p in result.pairs} >= {("random", "perfect"), ("random", "random#2")}
    assert len(result.games) == 8
    with pytest.raises(ValueError):
        evaluate(NIM, ["random"], games=4)


# ---- training, the learned agent, resuming ---------------------------------------------------------


def test_train_tiny_run_then_resume_and_play(tmp_path):
    from gameshelf.training.agents import make_agent
    from gameshelf.training.train import read_evaluations, train

    out = tmp_path / "run"
    result = train(NIM, config=TINY, out=out, progress=False)
    assert result.timesteps >= 512 and result.model_path.is_file()
    for name in ("config.yaml", "eval.csv", "learning_curve.png", "state.json"):
        assert (out / name).is_file(), name
    assert list((out / "tb").iterdir()) and list((out / "checkpoints").glob("model_*.zip"))
    assert len(list((out / "pool").glob("snap_*.zip"))) >= 2
    rows = read_evaluations(out)
    assert rows[0]["timesteps"] == 0 and rows[-1]["timesteps"] >= 512 and "win_random" in rows[0]

    resumed = train("", resume=out, timesteps=1024, progress=False)
    assert resumed.timesteps >= 1024 and len(read_evaluations(out)) > len(rows)

    agent = make_agent(f"model:{result.model_path}", NIM)
    game = envs.make_game(NIM)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply_action(agent.act(state, state.current_player(), rng))
    sampler = make_agent(f"model:{result.model_path}", NIM, deterministic=False)
    probs = sampler.action_probabilities(game.new_initial_state(), 0)
    assert probs.sum() == pytest.approx(1.0) and probs[2] == 0.0  # pass is illegal
    import pickle

    assert pickle.loads(pickle.dumps(sampler)).act(game.new_initial_state(), 0, rng) in (0, 1)


def test_a_run_evaluates_at_step_0_only_when_an_evaluation_is_due_and_draws_its_curve_once(tmp_path, monkeypatch, capsys):
    import gameshelf.training.callbacks as callbacks
    from gameshelf.training.train import read_evaluations, train

    drawn = []
    real = callbacks.plot_learning_curve
    monkeypatch.setattr(callbacks, "plot_learning_curve", lambda rows, *args: drawn.append(len(rows)) or real(rows, *args))
    due = train(NIM, config=TINY, out=tmp_path / "due", progress=False)
    assert [r["timesteps"] for r in read_evaluations(due.run_dir)][:2] == [0, 256] and drawn == [len(due.evaluations)]
    # every evaluation says how the learner played, in eval.csv and in the line it prints
    assert {r["policy_mode"] for r in read_evaluations(due.run_dir)} == {"deterministic"}
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    assert len(lines) == len(due.evaluations) and all("steps, " in line and "] deterministic vs random" in line for line in lines)
    drawn.clear()
    config = {**TINY, "timesteps": 128, "eval": {**TINY["eval"], "every": 10_000}}  # no evaluation inside the run
    late = train(NIM, config=config, out=tmp_path / "late", progress=False)
    assert [r["timesteps"] for r in read_evaluations(late.run_dir)] == [late.timesteps] and drawn == [1]
    assert (late.run_dir / "learning_curve.png").is_file()


def test_the_policies_optimizer_is_torch_adam_without_importing_dynamo():
    """``EagerAdam`` steps exactly as ``torch.optim.Adam`` (same state dicts, either way), and training with it
    never imports ``torch._dynamo`` (checked in a fresh interpreter)."""
    import torch

    from gameshelf.training.optim import EagerAdam
    from gameshelf.training.policies import optimizer_kwargs

    assert optimizer_kwargs()["optimizer_class"] is EagerAdam

    def run(optimizer_class, state=None):
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
        optimizer = optimizer_class(net.parameters(), lr=1e-2, eps=1e-5)
        if state is not None:
            optimizer.load_state_dict(state)
        for step in range(5):
            optimizer.zero_grad()
            net(torch.full((3, 4), float(step))).square().sum().backward()
            optimizer.step()
        return net.state_dict(), optimizer.state_dict()

    (torch_net, torch_state), (eager_net, eager_state) = run(torch.optim.Adam), run(EagerAdam)
    assert all(torch.equal(torch_net[k], eager_net[k]) for k in torch_net)
    assert str(torch_state) == str(eager_state)
    assert str(run(EagerAdam, torch_state)) == str(run(torch.optim.Adam, eager_state))
    script = (
        "import sys, torch\n"
        "from gameshelf.training.optim import EagerAdam\n"
        "net = torch.nn.Linear(3, 1)\n"
        "opt = EagerAdam(net.parameters(), lr=0.1)\n"
        "opt.zero_grad(); net(torch.ones(2, 3)).sum().backward(); opt.step(); opt.load_state_dict(opt.state_dict())\n"
        "assert 'torch._dynamo' not in sys.modules, 'torch._dynamo was imported'\n"
        "assert 'stable_baselines3' not in sys.modules, 'the optimizer needs torch only'\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


# ---- training runs: interruption, resuming, self-contained folders, pruning ------------------------------


SHORT = {**TINY, "timesteps": 256, "checkpoint_every": 10_000, "eval": {"every": 10_000, "games": 2, "opponents": ["random"]}}


def send_signal_at(steps, signum):
    """An SB3 callback that sends ``signum`` to this process once ``steps`` learner steps are done."""
    from stable_baselines3.common.callbacks import BaseCallback

    class SignalAt(BaseCallback):
        sent = False

        def _on_step(self):
            if not self.sent and self.num_timesteps >= steps:
                self.sent = True
                os.kill(os.getpid(), signum)
            return True

    return SignalAt()


def read_state(run_dir):
    return json.loads((run_dir / "state.json").read_text())


def test_ctrl_c_saves_a_checkpoint_then_resume_finishes_and_a_finished_run_says_so(tmp_path, capsys):
    from gameshelf.training.train import main, train

    out = tmp_path / "run"
    result = train(NIM, config=SHORT, out=out, progress=None, callbacks=[send_signal_at(64, signal.SIGINT)])
    err = capsys.readouterr().err
    assert result.status == "interrupted" and 64 <= result.timesteps < 256  # before the first checkpoint is due
    assert f"--resume {out}" in err and "SIGINT" in err
    assert "train toy_nim-v0" not in err  # no progress bar: the output is not a terminal
    assert [p.name for p in (out / "checkpoints").iterdir()] == [f"model_{result.timesteps}.zip"]
    state = read_state(out)
    assert state["finished"] is False and state["timesteps"] == result.timesteps
    assert state["snapshots"] and all(s.startswith("pool/") for s in state["snapshots"])

    resumed = train("", resume=out, progress=False)
    assert resumed.status == "finished" and resumed.timesteps >= 256 and (out / "final_model.zip").is_file()
    assert read_state(out)["finished"] is True

    code, _ = exit_code(main, ["--resume", str(out)], capsys)
    assert code == 0
    code, _ = exit_code(main, ["--resume", str(out), "--timesteps", "128"], capsys)
    assert code == 0
    again = train("", resume=out, progress=False)
    assert again.status == "already_done" and "already finished" in again.message
    lower = train("", resume=out, timesteps=128, progress=False)
    assert lower.status == "already_done" and "nothing to do" in lower.message


def test_sigterm_while_building_saves_the_fresh_model_and_resume_finishes(tmp_path, monkeypatch, capsys):
    import gameshelf.training.train as train_module

    real = train_module.make_vec_env

    def make_then_signal(config):
        vec = real(config)
        os.kill(os.getpid(), signal.SIGTERM)
        return vec

    monkeypatch.setattr(train_module, "make_vec_env", make_then_signal)
    out = tmp_path / "run"
    config = {**SHORT, "timesteps": 128}
    result = train_module.train(NIM, config=config, out=out, progress=False)
    assert result.status == "interrupted" and result.signal == "SIGTERM" and result.timesteps == 0
    assert (out / "checkpoints" / "model_0.zip").is_file() and read_state(out)["timesteps"] == 0
    monkeypatch.setattr(train_module, "make_vec_env", real)
    resumed = train_module.train("", resume=out, progress=False)
    assert resumed.status == "finished" and resumed.timesteps >= 128


def test_a_run_killed_before_its_first_checkpoint_starts_again(tmp_path, capsys):
    import yaml

    from gameshelf.training.config import resolve_config
    from gameshelf.training.train import train

    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    config = resolve_config(NIM, {**SHORT, "timesteps": 128})
    (out / "config.yaml").write_text(yaml.safe_dump({"env_id": NIM, **config.to_dict()}))
    result = train("", resume=out, progress=False)
    assert result.status == "finished" and result.timesteps >= 128
    assert "no usable checkpoint" in capsys.readouterr().err


def test_stop_on_signal_catches_sigterm_once():
    from gameshelf.training.callbacks import StopOnSignal

    before = signal.getsignal(signal.SIGTERM)
    with StopOnSignal() as stop:
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.received == signal.SIGTERM and stop.signal_name == "SIGTERM"
        assert stop._on_step() is False
    assert signal.getsignal(signal.SIGTERM) == before


def test_stop_on_signal_catches_sighup_and_leaves_an_ignored_signal_ignored():
    """SIGHUP (the terminal closed) stops a run as SIGTERM does; under ``nohup`` (SIGHUP ignored) it stays ignored."""
    from gameshelf.training.callbacks import StopOnSignal

    before = signal.getsignal(signal.SIGHUP)
    try:
        with StopOnSignal() as stop:
            assert signal.getsignal(signal.SIGHUP) == stop._handle
            os.kill(os.getpid(), signal.SIGHUP)
            assert stop.received == signal.SIGHUP and stop.signal_name == "SIGHUP"
        assert signal.getsignal(signal.SIGHUP) == before
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        with StopOnSignal() as stop:
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)
            assert stop.received is None
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


def test_sighup_saves_the_run_and_resume_continues_from_it(tmp_path, capsys):
    from gameshelf.training.train import exit_code as status_of
    from gameshelf.training.train import train

    out = tmp_path / "run"
    result = train(NIM, config=SHORT, out=out, progress=False, callbacks=[send_signal_at(64, signal.SIGHUP)])
    assert result.status == "interrupted" and result.signal == "SIGHUP" and status_of(result) == 128 + signal.SIGHUP
    assert "SIGHUP" in capsys.readouterr().err
    state = read_state(out)
    assert state["finished"] is False and state["timesteps"] == result.timesteps >= 64
    resumed = train("", resume=out, progress=False)
    assert resumed.status == "finished" and (out / "checkpoints" / f"model_{result.timesteps}.zip").is_file()
    assert "no usable checkpoint" not in capsys.readouterr().err


def test_a_moved_run_resumes_on_its_own_files_skipping_a_damaged_checkpoint(tmp_path, capsys):
    from gameshelf.training.train import main, train

    config = {**SHORT, "checkpoint_every": 64, "keep_checkpoints": 2}
    config["selfplay"] = {**SHORT["selfplay"], "snapshot_every": 64, "pool_size": 2}
    out = tmp_path / "run"
    train(NIM, config=config, out=out, progress=False)
    checkpoints = sorted((out / "checkpoints").glob("model_*.zip"), key=lambda p: int(p.stem[6:]))
    assert len(checkpoints) == 2  # pruned to keep_checkpoints
    pool = sorted(p.name for p in (out / "pool").iterdir())
    assert len(pool) == 2 and sorted(s.removeprefix("pool/") for s in read_state(out)["snapshots"]) == pool

    moved = tmp_path / "moved"
    shutil.copytree(out, moved)
    shutil.rmtree(out)
    latest = moved / "checkpoints" / checkpoints[-1].name
    latest.write_bytes(latest.read_bytes()[:300])  # a damaged latest checkpoint
    capsys.readouterr()
    code, err = exit_code(main, ["--resume", str(moved), "--timesteps", "384", "--quiet"], capsys)
    assert code == 0 and "skipping the damaged checkpoint" in err and checkpoints[-2].name in err
    assert not out.exists()
    state = read_state(moved)
    assert state["finished"] and state["timesteps"] >= 384
    assert all((moved / s).is_file() and not os.path.isabs(s) for s in state["snapshots"])


def test_state_file_never_points_outside_its_run(tmp_path, capsys):
    from gameshelf.training.checkpoints import RunDir

    other = tmp_path / "other"
    (other / "pool").mkdir(parents=True)
    (other / "pool" / "snap_4.zip").write_bytes(b"x")
    run_dir = RunDir(tmp_path / "run")
    run_dir.create()
    (run_dir.pool / "snap_1.zip").write_bytes(b"x")
    stored = ["pool/snap_1.zip", "../other/pool/snap_4.zip", str(other / "pool" / "snap_4.zip"), "pool/missing.zip"]
    run_dir.state_file.write_text(json.dumps({"timesteps": 5, "snapshots": stored}))
    assert run_dir.read_state().snapshots == ["pool/snap_1.zip"]
    assert capsys.readouterr().err.count("ignoring the snapshot") == 3


def test_state_and_checkpoints_are_written_atomically(tmp_path, monkeypatch):
    from gameshelf.training import model_io
    from gameshelf.training.checkpoints import RunDir, RunState

    run_dir = RunDir(tmp_path)
    run_dir.write_state(RunState(timesteps=10))
    before = run_dir.state_file.read_text()

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(model_io.os, "replace", crash)
    with pytest.raises(OSError):
        run_dir.write_state(RunState(timesteps=20))
    assert run_dir.state_file.read_text() == before and sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_resume_skips_a_damaged_self_play_snapshot_with_one_warning(tmp_path, capsys):
    from gameshelf.training.train import main, train

    config = {**SHORT, "timesteps": 128, "checkpoint_every": 64}
    config["selfplay"] = {**SHORT["selfplay"], "snapshot_every": 64, "pool_size": 2}
    out = tmp_path / "run"
    train(NIM, config=config, out=out, progress=False)
    pool = read_state(out)["snapshots"]
    assert len(pool) == 2
    damaged = out / pool[-1]
    damaged.write_bytes(damaged.read_bytes()[:300])  # the newest snapshot, cut short
    capsys.readouterr()
    code, err = exit_code(main, ["--resume", str(out), "--timesteps", "192", "--quiet"], capsys)
    assert code == 0 and "Traceback" not in err
    warnings = [line for line in err.splitlines() if "damaged self-play snapshot" in line]
    assert warnings == [f"warning: skipping the damaged self-play snapshot {pool[-1]}: " + warnings[0].split(": ", 2)[2]]
    state = read_state(out)
    assert state["finished"] and state["timesteps"] >= 192 and pool[-1] not in state["snapshots"]


def test_self_play_pool_drops_snapshots_that_do_not_load(tmp_path, capsys):
    from gameshelf.training.selfplay import OpponentPool

    (tmp_path / "pool").mkdir()
    (tmp_path / "pool" / "snap_1.zip").write_bytes(b"not a zip")
    mix = {"snapshots": 0.5, "random": 0.5}
    pool = OpponentPool(NIM, mix, size=2, snapshots=["pool/snap_1.zip", "pool/missing.zip"], root=tmp_path)
    assert pool.snapshots == [] and pool.opponents() == [("random", 0.5)]
    err = capsys.readouterr().err
    assert err.count("skipping the damaged self-play snapshot") == 2 and len(err.strip().splitlines()) == 2
    pool.add("pool/snap_1.zip")  # damaged after it joined: left out of the mix, with one warning
    assert pool.opponents() == [("random", 0.5)] and pool.snapshots == []
    assert capsys.readouterr().err.count("skipping the damaged self-play snapshot pool/snap_1.zip") == 1
    untouched = OpponentPool(NIM, {"random": 1.0}, size=2, snapshots=["pool/snap_1.zip"], root=tmp_path)
    assert untouched.snapshots == ["pool/snap_1.zip"] and capsys.readouterr().err == ""  # snapshots not played


@pytest.mark.parametrize(
    "snapshots", [5, "pool/snap_2.zip", {"pool/snap_2.zip": 1}, [["pool/snap_2.zip"]], [{"a": 1}], True, 1.5]
)
def test_state_json_snapshots_of_the_wrong_kind_are_ignored_everywhere(tmp_path, capsys, snapshots):
    from gameshelf.training.checkpoints import RunDir

    run_dir = RunDir(tmp_path / "run")
    run_dir.create()
    for n in (1, 2, 3):
        (run_dir.pool / f"snap_{n}.zip").write_bytes(b"x")
    run_dir.state_file.write_text(json.dumps({"timesteps": 5, "snapshots": snapshots}))
    state = run_dir.read_state()
    assert state.timesteps == 5 and state.snapshots == []
    err = capsys.readouterr().err
    assert err.startswith("warning: ignoring the snapshot") and len(err.strip().splitlines()) == 1
    run_dir.prune_pool(["pool/snap_3.zip"])  # the first checkpoint after resuming
    assert sorted(p.name for p in run_dir.pool.iterdir()) == ["snap_3.zip"]
    assert capsys.readouterr().err == ""  # the state was checked, and warned about, once


@pytest.mark.parametrize(
    "text",
    [
        '{"timesteps": Infinity}',
        '{"timesteps": NaN}',
        '{"timesteps": -4}',
        '{"timesteps": "12"}',
        '{"timesteps": true}',
        '{"wall_s": 1e999}',
        '{"finished": "yes"}',
        '{"checkpoint": 3}',
        '{"timesteps": ' + "9" * 5000 + "}",
        "[" * 100_000,
        "[]",
    ],
)
def test_an_unreadable_state_json_is_ignored_with_one_warning(tmp_path, capsys, text):
    from gameshelf.training.checkpoints import RunDir, RunState

    run_dir = RunDir(tmp_path)
    run_dir.create()
    (run_dir.pool / "snap_1.zip").write_bytes(b"x")
    run_dir.state_file.write_text(text)
    assert run_dir.read_state() == RunState()
    err = capsys.readouterr().err
    assert "is unreadable" in err and "using the checkpoints alone" in err and len(err.strip().splitlines()) == 1
    run_dir.prune_pool([])
    assert not list(run_dir.pool.iterdir())


def test_a_full_disk_stops_training_with_one_line_and_keeps_the_last_good_checkpoint(tmp_path, monkeypatch, capsys):
    import errno

    import yaml

    from gameshelf.training import model_io
    from gameshelf.training.checkpoints import RunDir
    from gameshelf.training.train import main

    out = tmp_path / "run"
    checkpoints = out / "checkpoints"

    class FullFile:
        """Takes a few bytes, then the disk is full."""

        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            self.f.write(data[:10])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def open_on_a_filling_disk(path, mode="r", *args, **kwargs):
        f = open(path, mode, *args, **kwargs)  # noqa: SIM115 - closed by the wrapper
        full = (out / "state.json").is_file()  # room for one checkpoint and its state, no more
        return FullFile(f) if full and "w" in mode else f

    monkeypatch.setattr(model_io, "open", open_on_a_filling_disk, raising=False)
    config = {**SHORT, "timesteps": 256, "checkpoint_every": 64}
    config["selfplay"] = {**SHORT["selfplay"], "snapshot_every": 64}
    config_file = tmp_path / "tiny.yaml"
    config_file.write_text(yaml.safe_dump(config))
    code, err = exit_code(main, [NIM, "--config", str(config_file), "--out", str(out), "--quiet"], capsys)
    assert code == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert os.strerror(errno.ENOSPC) in err and "model_64.zip" in err and f"--resume {out}" in err
    assert [p.name for p in checkpoints.iterdir()] == ["model_64.zip"]
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]  # no half-written file left
    assert RunDir(out).sound_checkpoint()[2] == 64 and read_state(out)["timesteps"] == 64

    monkeypatch.undo()  # room again: the run resumes from its checkpoint
    code, _ = exit_code(main, ["--resume", str(out), "--quiet"], capsys)
    assert code == 0 and read_state(out)["finished"] and read_state(out)["timesteps"] >= 256


def test_a_full_disk_before_the_first_checkpoint_leaves_no_half_run(tmp_path, monkeypatch):
    import errno

    from gameshelf.training import model_io
    from gameshelf.training.train import RunWriteError, train

    def full(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(model_io, "atomic_write_bytes", full)
    with pytest.raises(RunWriteError, match="nothing was kept") as info:
        train(NIM, config={**SHORT, "timesteps": 64}, out=tmp_path / "run", progress=False)
    assert info.value.errno == errno.ENOSPC and isinstance(info.value, OSError)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("yaml_text", "argv", "named"),
    [
        ("game_options: {stones: 3}\n", [], "stones"),
        ("selfplay: {snapshot_evry: 5}\n", [], "selfplay.snapshot_evry"),
        ("selfplay: {mix: {bots: 1}}\n", [], "selfplay.mix"),
        ("ppo: {learning_rate: fast}\n", [], "ppo.learning_rate"),
        ("ppo: {net_arch: [64, -1]}\n", [], "ppo.net_arch"),
        ("ppo: {net_arch: 64}\n", [], "ppo.net_arch"),
        ("torch_threads: 0\n", [], "torch_threads"),
        ("ppo: [1, 2\n", [], "not valid YAML"),
        ("", ["--seed", "-1"], "seed"),
        ("", ["--seed", str(2**32)], "seed"),
    ],
)
def test_bad_settings_are_refused_before_anything_is_created(tmp_path, capsys, yaml_text, argv, named):
    from gameshelf.training.train import main

    config = tmp_path / "config.yaml"
    config.write_text(yaml_text)
    out = tmp_path / "run"
    code, err = exit_code(main, [NIM, "--config", str(config), "--out", str(out), *argv], capsys)
    assert code == 2 and named in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert any(word in err for word in ("allowed", "known", "YAML"))
    assert not out.exists()


# ---- command-line errors ----------------------------------------------------------------------------


def test_train_cli_user_errors(tmp_path, capsys):
    from gameshelf.training.train import main

    code, err = exit_code(main, ["nope-v0"], capsys)
    assert code == 2 and "unknown environment id" in err and "Traceback" not in err
    code, err = exit_code(main, [NIM, "--players", "9"], capsys)
    assert code == 2 and "players" in err
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, err = exit_code(main, [NIM, "--out", str(blocker / "run")], capsys)
    assert code == 2 and "cannot write" in err
    code, err = exit_code(main, [NIM, "--config", str(tmp_path / "missing.yaml")], capsys)
    assert code == 2 and "config" in err
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: {learning_rat: 1}\n")
    code, err = exit_code(main, [NIM, "--config", str(bad)], capsys)
    assert code == 2 and "learning_rat" in err
    code, err = exit_code(main, ["--resume", str(tmp_path)], capsys)
    assert code == 2 and "not a run directory" in err
    code, _ = exit_code(main, [NIM, "--opponent", "nobody"], capsys)
    assert code == 2
    code, _ = exit_code(main, [NIM, "--timesteps", "0"], capsys)
    assert code == 2


def test_evaluate_cli(tmp_path, capsys):
    from gameshelf.training.evaluate import main

    code, err = exit_code(main, ["nope-v0", "random", "random"], capsys)
    assert code == 2 and "unknown environment id" in err
    code, err = exit_code(main, [NIM, "random", "wizard"], capsys)
    assert code == 2 and "wizard" in err
    code, err = exit_code(main, [NIM, "random", f"model:{tmp_path / 'none.zip'}"], capsys)
    assert code == 2 and "no saved model" in err
    code, err = exit_code(main, [NIM, "random", "random", "--plot", str(tmp_path)], capsys)
    assert code == 2 and "directory" in err
    plot, data = tmp_path / "e.png", tmp_path / "e.json"
    code, _ = exit_code(
        main, [NIM, "random", "random", "--games", "4", "--quiet", "--plot", str(plot), "--json", str(data)], capsys
    )
    assert code == 0 and plot.is_file() and data.is_file()


def test_cli_runs_as_a_module_without_traceback():
    out = subprocess.run(
        [sys.executable, "-m", "gameshelf.training.evaluate", "nope-v0", "random", "random"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr and "unknown environment id" in out.stderr


# ---- slow: a short run beats random on a real game --------------------------------------------------------


@pytest.mark.slow
def test_training_beats_random_on_level_x(tmp_path):
    try:
        envs.make_game("level_x-v0")
    except ImportError:
        pytest.skip("level_x-v0 is not available")
    from gameshelf.training.train import train

    config = {
        "timesteps": 40_000,
        "selfplay": {"snapshot_every": 10_000, "mix": {"snapshots": 0.3, "random": 0.7}},
        "eval": {"every": 40_000, "games": 20},
    }
    result = train("level_x-v0", config=config, out=tmp_path / "run", progress=False)
    evaluation = evaluate("level_x-v0", [f"model:{result.model_path}", "random"], games=100, seed=7)
    assert evaluation.pair(evaluation.agents[0], "random").win_rate >= 0.9


def test_train_with_board_planes_and_fixed_opponent(tmp_path):
    from gameshelf.training.agents import make_agent
    from gameshelf.training.train import train

    config = {**TINY, "timesteps": 128, "observation": "planes", "opponent": "random", "eval": {"every": 128, "games": 2}}
    result = train(NIM, config=config, out=tmp_path / "run", progress=False)
    agent = make_agent(f"model:{result.model_path}", NIM)
    state = envs.make_game(NIM).new_initial_state()
    assert agent.act(state, 0, np.random.default_rng(0)) in (0, 1)
    assert not list((tmp_path / "run" / "pool").iterdir())


def test_the_batched_backend_writes_the_same_run_folder_and_resumes(tmp_path, capsys):
    """``train(config, backend="batched")``: the SB3 learner on compiled batched games, its model saved with
    gameshelf.json (read without the legacy reader), checkpoints and state.json like every run; it resumes."""
    from gameshelf.training.agents import make_agent
    from gameshelf.training.config import resolve_config
    from gameshelf.training.model_io import read_info
    from gameshelf.training.train import main, train

    config = {**TINY, "timesteps": 128, "opponent": "random", "eval": {"every": 128, "games": 2, "opponents": ["random"]}}
    config["checkpoint_every"] = 64
    out = tmp_path / "run"
    result = train(config=resolve_config("level_x-v0", config, seed=1), backend="batched", out=out, progress=False)
    assert result.status == "finished" and result.model_path == out / "final_model.zip"
    info = read_info(result.model_path)  # gameshelf.json, not the legacy reader
    assert info.env_id == "level_x-v0" and info.timesteps == result.timesteps >= 128
    assert json.loads((out / "state.json").read_text())["finished"] and (out / "eval.csv").is_file()
    assert "backend: batched" in (out / "config.yaml").read_text() and list((out / "checkpoints").glob("model_*.zip"))
    make_agent(f"model:{out}/final_model.zip", "level_x-v0")
    resumed = train(resume=out, timesteps=192, progress=False)
    assert resumed.status == "finished" and resumed.timesteps >= 192
    for argv, message in [
        (["level_x-v0", "--backend", "batched", "--opponent", "self"], "opponent=self is not available with --backend batched"),
        ([NIM, "--backend", "batched", "--opponent", "random"], "has no compiled kernel"),
        (["--resume", str(out), "--backend", "sb3"], "resumes with --backend batched"),
    ]:
        code, err = exit_code(main, [*argv, "--out", str(tmp_path / "refused")], capsys)
        assert code == 2 and message in err, err
    assert not (tmp_path / "refused").exists()


def test_the_batched_backend_lays_its_measured_settings_over_the_games_file():
    from gameshelf.training.batched import SETTINGS
    from gameshelf.training.config import resolve_config
    from gameshelf.training.train import BACKENDS

    game = resolve_config("level_x-v0")
    tuned = resolve_config("level_x-v0", backend_settings=SETTINGS)
    assert (
        (tuned.n_envs, tuned.ppo.n_steps, tuned.ppo.batch_size)
        == (64, 64, 1024)
        != (game.n_envs, game.ppo.n_steps, game.ppo.batch_size)
    )
    assert tuned.ppo.n_epochs == game.ppo.n_epochs and tuned.ppo.gamma == game.ppo.gamma
    mine = resolve_config("level_x-v0", {"ppo": {"n_steps": 32}}, overrides={"n_envs": 4}, backend_settings=SETTINGS)
    assert (mine.n_envs, mine.ppo.n_steps, mine.ppo.batch_size) == (4, 32, 1024)  # a dict and the command line win
    assert BACKENDS["batched"].settings is SETTINGS and not any(BACKENDS[name].settings for name in ("sb3", "rllib", "expert"))


def test_fully_conv_policy_scores_moves_by_cell():
    import gymnasium as gym
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from gameshelf.training.policies import FullyConvPolicy

    class Grid(gym.Env):
        """Pick the marked cell of a 3x3 grid (2 planes of actions: 18)."""

        observation_space = gym.spaces.Box(0, 1, (2, 3, 3), np.float32)
        action_space = gym.spaces.Discrete(18)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            self.target = int(self.np_random.integers(9))
            obs = np.zeros((2, 3, 3), np.float32)
            obs[0].flat[self.target] = 1
            return obs, {}

        def step(self, action):
            return self.reset()[0], float(action == self.target), True, False, {}

        def action_masks(self):
            return np.arange(18) < 9

    kwargs = {"net_arch": {}, "features_extractor_class": FlattenExtractor}
    model = MaskablePPO(FullyConvPolicy, Grid(), n_steps=32, batch_size=32, policy_kwargs=kwargs)
    model.learn(64)
    assert model.policy.action_net.__class__.__name__ == "Identity"
    obs, _ = Grid().reset(seed=0)
    action, _ = model.predict(obs, action_masks=Grid().action_masks())
    assert 0 <= int(action) < 9


@pytest.mark.slow
@pytest.mark.parametrize(
    ("env_id", "players", "timesteps", "threshold"),
    [
        ("koplus-v0", 2, 60_000, 0.75),  # the committed config reaches ~94% at 50k steps
        ("olenon-v0", 4, 100_000, 0.7),  # team wins with the agent in one seat; ~92% at 200k steps
        ("matchstick_tycoon-v0", 2, 15_000, 0.75),  # above 90% from its first evaluation (15k steps) on
        ("cargo_empire-v0", 2, 25_000, 0.7),  # 92% at 25k steps in the recorded run
        pytest.param(
            "amoriax-v0",
            2,
            60_000,
            0.6,  # first above 90% at 120k steps in the recorded run (30-game evaluations)
            marks=pytest.mark.xfail(
                strict=True,
                reason="a known failure, cause not yet found: on a fresh install of today's packages (stable-baselines3 2.9.2, "
                "gymnasium 1.4.0, numpy 2.4.6, torch 2.13.0) the committed Amoriax config learns nothing: 0 of 100 "
                "against random at 60k steps, at commit 5215d37 too; 1% at 120k (6% sampled)",
            ),
        ),
        ("range_ta_ludotheque-v0", 2, 20_000, 0.72),  # 80% at 20k, 82% at 41k; untrained and deterministic: ~67%
        ("tsukuru_ten_ten-v0", 2, 20_000, 0.85),  # 100% of 40 games at 20k steps (seed 11)
        ("paiko-v0", 2, 16_000, 0.6),  # 75% of 100 at 12k (131 CPU-s), 100% of 200 at 21.5k steps
        ("catsle_builders-v0", 4, 25_000, 0.4),  # first places among 4 (25% by chance); 62% at 25k steps
    ],
)
def test_default_config_learns_to_beat_random(tmp_path, env_id, players, timesteps, threshold):
    """The committed per-game configuration, cut short, already beats the random agent clearly."""
    from gameshelf.training.train import train

    # the evaluations during training are not what is checked here: two games against random only
    config = {"timesteps": timesteps, "eval": {"every": timesteps, "games": 2, "opponents": ["random"]}}
    result = train(env_id, config=config, out=tmp_path / "run", progress=False)
    evaluation = evaluate(env_id, [f"model:{result.model_path}", "random"], games=100, seed=11, num_players=players)
    assert evaluation.pair(evaluation.agents[0], "random").win_rate >= threshold


# ---- the backend table ----------------------------------------------------------------------------


def test_the_backend_table_is_the_one_source(tmp_path, monkeypatch):
    """``BACKENDS`` alone names the backends: the CLI's choices, the unknown-backend error, and a fifth entry is a
    backend that plans, runs (its own ``learn``) and names its run folder."""
    import dataclasses

    from gameshelf.training import train as train_module
    from gameshelf.training.checkpoints import TrainResult
    from gameshelf.training.cli_util import UserError

    parser = train_module.build_parser()
    choices = next(a.choices for a in parser._actions if a.dest == "backend")
    assert tuple(choices) == tuple(train_module.BACKENDS) == ("sb3", "batched", "rllib", "expert")
    with pytest.raises(UserError, match=r"allowed values: sb3, batched, rllib, expert$"):
        train_module.train("level_x-v0", backend="nope", out=tmp_path / "nope")

    ran = []

    def learn(plan, progress, quiet, verbose, callbacks):
        ran.append(plan)
        return TrainResult(plan.run.root, plan.run.root / "model")

    fifth = dataclasses.replace(train_module.BACKENDS["sb3"], learn=learn, suffix="-fifth", callbacks=False)
    monkeypatch.setitem(train_module.BACKENDS, "fifth", fifth)
    monkeypatch.chdir(tmp_path)
    assert "fifth" in next(a.choices for a in train_module.build_parser()._actions if a.dest == "backend")
    result = train_module.train("level_x-v0", backend="fifth", config=TINY, progress=False)
    assert [plan.backend for plan in ran] == ["fifth"] and result.run_dir.name.endswith("-s0-fifth")
    assert "backend: fifth" in (result.run_dir / "config.yaml").read_text()
    with pytest.raises(ValueError, match="the fifth backend takes none"):
        train_module.train("level_x-v0", backend="fifth", config=TINY, out=tmp_path / "cb", callbacks=[object()])


@pytest.mark.parametrize("backend", ["sb3", "batched", "expert"])
def test_each_backend_refuses_the_options_it_does_not_take(backend, tmp_path, capsys):
    """RLlib's options only with a backend whose table entry takes them, from the CLI and from ``train``."""
    from gameshelf.training.cli_util import UserError
    from gameshelf.training.train import BACKENDS, main, train

    assert not BACKENDS[backend].rllib and BACKENDS["rllib"].rllib
    argv = ["level_x-v0", "--backend", backend, "--num-cpus", "2", "--out", str(tmp_path / "cli")]
    code, err = exit_code(main, argv, capsys)
    assert code == 2 and "--num-cpus only apply with --backend rllib" in err
    with pytest.raises(UserError, match=f"the {backend} backend takes no RLlib settings"):
        train("level_x-v0", backend=backend, config=TINY, out=tmp_path / "api", rllib={"num_cpus": 2})
    if not BACKENDS[backend].callbacks:
        with pytest.raises(ValueError, match=f"the {backend} backend takes none"):
            train("level_x-v0", backend=backend, config=TINY, out=tmp_path / "api", callbacks=[object()])
    assert not (tmp_path / "api").exists() and not (tmp_path / "cli").exists()
