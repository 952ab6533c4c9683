"""The ``expert`` backend: expert iteration's run folder, its targets, resume, signals and settings."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.training.agents.mcts import MCTSAgent
from gameshelf.training.cli_util import UserError
from gameshelf.training.evaluate import evaluate
from gameshelf.training.expert import NetArgmaxAgent, load_samples
from gameshelf.training.numpy_net import read_net
from gameshelf.training.train import main, train

TINY = {"expert": {"iterations": 2, "games": 2, "simulations": 8, "warm_games": 3, "eval_games": 2, "epochs": 1, "hidden": [32]}}


def tiny(**changes: object) -> dict[str, object]:
    return {"expert": {**TINY["expert"], **changes}}  # type: ignore[dict-item]


def check_run(out: Path, env_id: str, iterations: int = 2) -> None:
    for name in ("config.yaml", "state.json", "progress.csv", "eval.csv", "final_net.npz"):
        assert (out / name).is_file(), name
    assert (out / "checkpoints" / f"iter_{iterations}.npz").is_file()
    assert (out / "checkpoints" / f"iter_{iterations}.pt").is_file()
    import json

    state = json.loads((out / "state.json").read_text())
    assert state["iteration"] == iterations and state["finished"] is True and state["decisions"] >= state["samples"] > 0
    net = read_net(out / "final_net.npz")
    assert net.env_id == env_id and net.meta["trained"]["iteration"] == iterations
    result = evaluate(env_id, [NetArgmaxAgent(net, "net"), MCTSAgent(8, prior=net, leaf_value=1.0), "random"], games=2, seed=3)
    assert len(result.games) > 0  # every move went through the engine's legality checks


@pytest.mark.parametrize("env_id", ["level_x-v0", "olenon-v0"])
def test_a_tiny_run_writes_the_run_folder_and_a_network_that_plays(tmp_path, env_id):
    out = tmp_path / "run"
    result = train(env_id, backend="expert", config=tiny(), out=out, progress=False, quiet=True)
    assert result.status == "finished" and result.model_path == out / "final_net.npz"
    check_run(out, env_id)
    rows = [line.split(",")[0] for line in (out / "eval.csv").read_text().splitlines()[1:]]
    assert rows == ["0", "1", "2"]


def test_visit_targets_are_distributions_over_legal_actions(tmp_path):
    out = tmp_path / "run"
    train("olenon-v0", backend="expert", config=tiny(iterations=1), out=out, progress=False, quiet=True)
    for k in (0, 1):
        data = load_samples(out / "replay" / f"iter_{k}.npz")
        assert len(data["value"]) > 0
        assert np.allclose(data["policy"].sum(axis=1), 1.0)
        assert not np.any(data["policy"][~data["mask"]])
        assert np.all(data["mask"].sum(axis=1) > 1)  # forced moves are not samples
        assert np.all(np.abs(data["value"]) <= 1.0)


def test_resume_continues_and_matches_an_uninterrupted_run(tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    train("level_x-v0", backend="expert", config=tiny(), out=whole, progress=False, quiet=True)
    # the same run stopped after iteration 1: drop what iteration 2 wrote, as a stop there leaves it
    shutil.copytree(whole, cut)
    for name in ("checkpoints/iter_2.npz", "checkpoints/iter_2.pt", "replay/iter_2.npz", "final_net.npz"):
        (cut / name).unlink()
    import json

    state = json.loads((cut / "state.json").read_text())
    state.update(iteration=1, finished=False, checkpoint="checkpoints/iter_1.npz")
    (cut / "state.json").write_text(json.dumps(state))
    resumed = train("", resume=cut, progress=False, quiet=True)
    assert resumed.status == "finished"
    a, b = read_net(whole / "final_net.npz"), read_net(cut / "final_net.npz")
    assert b.meta["trained"]["iteration"] == 2
    for name in a.weights:
        assert np.array_equal(a.weights[name], b.weights[name]), name
    assert [line.split(",")[:2] for line in (cut / "eval.csv").read_text().splitlines()[1:]] == [
        line.split(",")[:2] for line in (whole / "eval.csv").read_text().splitlines()[1:]
    ]
    again = train("", resume=cut, progress=False, quiet=True)
    assert again.status == "already_done"
    further = train("", resume=cut, timesteps=resumed.timesteps + 1, progress=False, quiet=True)  # a decision budget
    assert further.status == "finished" and further.timesteps > resumed.timesteps
    assert read_net(cut / "final_net.npz").meta["trained"]["iteration"] == 3
    assert "iterations: null" in (cut / "config.yaml").read_text()


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_saves_and_prints_the_resume_command(tmp_path, sig, code):
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    settings = tmp_path / "long.yaml"
    settings.write_text(
        "expert: {iterations: 50, games: 50, simulations: 8, warm_games: 3, eval_games: 0, epochs: 1, hidden: [16]}\n"
    )
    command = [sys.executable, "-m", "gameshelf.training.train", "level_x-v0", "--backend", "expert"]
    proc = subprocess.Popen(
        [*command, "--config", str(settings), "--out", str(out), "--quiet"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not (out / "checkpoints" / "iter_0.npz").exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    time.sleep(0.5)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err
    assert f"Resume with: gameshelf train --resume {out}" in err and sig.name in err
    assert read_net(out / "checkpoints" / "iter_0.npz").meta["trained"]["iteration"] >= 0
    assert not (out / "final_net.npz").exists()


def test_a_full_disk_stops_with_one_line_and_keeps_the_last_iteration(tmp_path, monkeypatch):
    import errno

    from gameshelf.training import model_io
    from gameshelf.training.train import RunWriteError

    out = tmp_path / "run"
    real = model_io.atomic_write_bytes

    def filling(path, data):
        if (out / "state.json").is_file():  # room for iteration 0, no more
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, data)

    monkeypatch.setattr(model_io, "atomic_write_bytes", filling)
    with pytest.raises(RunWriteError) as info:
        train("level_x-v0", backend="expert", config=tiny(), out=out, progress=False, quiet=True)
    message = str(info.value)
    assert "\n" not in message and "iter_0.npz" in message and f"--resume {out}" in message
    assert info.value.errno == errno.ENOSPC
    monkeypatch.undo()
    resumed = train("", resume=out, progress=False, quiet=True)
    assert resumed.status == "finished" and read_net(out / "final_net.npz").meta["trained"]["iteration"] == 2


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ({"simulations": 0}, "expert.simulations=0"),
        ({"leaf_value": 2}, "expert.leaf_value=2"),
        ({"hidden": []}, "expert.hidden=[]"),
        ({"learning_rate": "fast"}, "expert.learning_rate='fast'"),
        ({"games": True}, "expert.games=True"),
    ],
)
def test_bad_settings_give_one_line(tmp_path, setting, words):
    with pytest.raises(UserError) as err:
        train("level_x-v0", backend="expert", config={"expert": setting}, out=tmp_path / "run", progress=False)
    assert words in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "run").exists()


def test_bad_setting_on_the_command_line_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("expert: {window: 0}\n")
    with pytest.raises(SystemExit) as exit_info:
        from gameshelf.training.cli_util import run

        run(main, ["level_x-v0", "--backend", "expert", "--config", str(bad), "--out", str(tmp_path / "r")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "expert.window=0" in err[0]


@pytest.mark.slow
def test_a_short_level_x_run_beats_random(tmp_path):
    """Level X's settings cut to two search iterations of 16 games: the network alone wins >= 80% of 40 games
    against random (measured: 22 CPU-seconds, 24 s wall)."""
    out = tmp_path / "run"
    train("level_x-v0", backend="expert", config={"expert": {"iterations": 2, "games": 16}}, out=out, progress=False, quiet=True)
    net = read_net(out / "final_net.npz")
    result = evaluate("level_x-v0", [NetArgmaxAgent(net, "net"), "random"], games=40, seed=11)
    assert result.pair("net", "random").win_rate >= 0.8


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A tiny finished Level X run (two search iterations), copied by each test that damages it."""
    out = tmp_path_factory.mktemp("expert") / "run"
    train("level_x-v0", backend="expert", config=tiny(), out=out, progress=False, quiet=True)
    return out


def stopped_after(run: Path, tmp_path: Path, iteration: int) -> Path:
    """A copy of ``run`` as a stop after ``iteration`` leaves it (later files removed, state unfinished)."""
    import json

    cut = tmp_path / "cut"
    shutil.copytree(run, cut)
    (cut / "final_net.npz").unlink()
    for later in range(iteration + 1, 3):
        for name in (f"checkpoints/iter_{later}.npz", f"checkpoints/iter_{later}.pt", f"replay/iter_{later}.npz"):
            (cut / name).unlink(missing_ok=True)
    state = json.loads((cut / "state.json").read_text())
    trained = read_net(cut / "checkpoints" / f"iter_{iteration}.npz").meta["trained"]
    state.update(iteration=iteration, finished=False, checkpoint=f"checkpoints/iter_{iteration}.npz")
    state.update(timesteps=trained["decisions"], decisions=trained["decisions"], samples=trained["samples"])
    (cut / "state.json").write_text(json.dumps(state))
    return cut


def pickled_list() -> bytes:
    import io

    import torch

    buffer = io.BytesIO()
    torch.save([1, 2, 3], buffer)  # loads with weights_only=True, but is no optimizer state
    return buffer.getvalue()


@pytest.mark.parametrize("content", [b"garbage" * 20, b"", pickled_list()], ids=["garbage", "empty", "a-list"])
def test_resume_skips_a_checkpoint_whose_optimizer_state_is_damaged(finished_run, tmp_path, capsys, content):
    cut = stopped_after(finished_run, tmp_path, 1)
    (cut / "checkpoints" / "iter_1.pt").write_bytes(content)
    resumed = train("", resume=cut, progress=False, quiet=True)
    err = capsys.readouterr().err.strip().splitlines()
    assert resumed.status == "finished" and read_net(cut / "final_net.npz").meta["trained"]["iteration"] == 2
    why = "no 'state' and 'param_groups'" if content == pickled_list() else "EOFError" if not content else "UnpicklingError"
    assert err == [
        f"warning: skipping the damaged checkpoint checkpoints/iter_1.npz: iter_1.pt is not a saved optimizer state ({why})",
        "warning: resuming from 136 steps (the run state says 290)",
    ]


def object_array_file(path: Path) -> None:
    np.savez(path, obs=np.array([object()], dtype=object), mask=np.ones((1, 2), bool), policy=np.ones((1, 2)), value=np.ones(1))


def wrong_shapes_file(path: Path) -> None:
    np.savez(path, obs=np.zeros((3, 5), np.float16), mask=np.ones((3, 49), bool), policy=np.ones((3, 49)), value=np.ones(3))


def nan_file(path: Path) -> None:
    good = load_samples(path)
    good["value"][0] = np.nan
    np.savez(path, **good)


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda path: path.write_bytes(b"garbage"), "not a replay file (not an .npz archive)"),
        (object_array_file, "not a replay file (pickled (object) data, never loaded)"),
        (wrong_shapes_file, "'obs' has shape (3, 5), expected (3, 212)"),
        (lambda path: np.savez(path, obs=np.zeros((1, 212))), "not a replay file (no 'mask' array)"),
        (nan_file, "'value' must hold finite floats"),
    ],
    ids=["garbage", "object-array", "wrong-shapes", "missing-array", "nan"],
)
def test_resume_leaves_out_a_damaged_replay_file_with_one_warning(finished_run, tmp_path, capsys, damage, words):
    cut = stopped_after(finished_run, tmp_path, 1)
    damage(cut / "replay" / "iter_1.npz")
    resumed = train("", resume=cut, progress=False, quiet=True)
    err = capsys.readouterr().err.strip().splitlines()
    assert resumed.status == "finished" and read_net(cut / "final_net.npz").meta["trained"]["iteration"] == 2
    assert err == [f"warning: leaving out the damaged replay/iter_1.npz: {words}"]


def test_a_small_decision_budget_runs_every_phase_once(tmp_path):
    """``--timesteps 300`` with Level X's 600 warm-start games and 160 games an iteration: the warm start stops
    after a quarter of the budget, one search iteration plays the rest, then the checkpoint and the final net."""
    import json

    out = tmp_path / "run"
    config = tiny(iterations=10, warm_games=600, games=160)
    result = train("level_x-v0", backend="expert", config=config, timesteps=300, out=out, progress=False, quiet=True)
    assert result.status == "finished" and result.model_path == out / "final_net.npz"
    rows = [line.split(",") for line in (out / "progress.csv").read_text().splitlines()]
    decisions = [int(float(row[rows[0].index("decisions")])) for row in rows[1:]]
    assert len(decisions) == 2  # the warm start, then one search iteration
    longest = envs.make_game("level_x-v0").info.max_game_length
    assert 75 <= decisions[0] < 75 + longest and 300 <= decisions[1] < 300 + longest
    check_run(out, "level_x-v0", iterations=1)
    state = json.loads((out / "state.json").read_text())
    assert state["decisions"] == decisions[1] and "iterations: null" in (out / "config.yaml").read_text()
