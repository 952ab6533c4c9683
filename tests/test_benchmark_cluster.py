"""``gameshelf benchmark --address``: the Ray task plays the local game, a node of other code is refused, and
the option's mistakes (Ray missing, ``--workers`` beside it) are one line. No Ray needed: the runs on a Ray
cluster are in tests/test_rllib.py."""

from __future__ import annotations

import sys

import pytest

from gameshelf.training.benchmark import cluster, protocol
from gameshelf.training.benchmark import ladder as bm
from gameshelf.training.cli_util import run

TIMING = ("cpu_s", "act_cpu_s")
"""The fields of a game record that are the machine's (with a text agent's ``latency_s``, not played here)."""


def without_timing(record):
    return {k: v for k, v in record.items() if k not in TIMING}


def test_the_cluster_task_plays_the_game_a_local_run_plays():
    tasks = protocol.plan("level_x-v0", ["random", "heuristic"], 2, 2)[:2]  # a deal's first game and its replay
    code = bm.RunCode()
    first, replay = tasks
    assert (first.assignment, replay.assignment) == (0, 1) and replay.first == first
    local = protocol.play_task(first, None, code(first))
    on_node = cluster.play_on_node(first, None, code(first))
    assert local["chance"], "the game has chance for the replay to follow"
    assert without_timing(on_node) == without_timing(local)
    local_replay = protocol.play_task(replay, local["chance"], code(replay))
    assert without_timing(cluster.play_on_node(replay, on_node["chance"], code(replay))) == without_timing(local_replay)
    assert local_replay["replayed"] > 0


def test_a_node_with_other_code_plays_no_game():
    task = protocol.plan("level_x-v0", ["random", "heuristic"], 2, 2)[0]
    code = bm.RunCode()(task)
    other = {**code, "agents": {**code["agents"], "heuristic": "0" * 12}}
    with pytest.raises(RuntimeError, match=r"runs other code than this machine \(heuristic\) for level_x-v0"):
        cluster.play_on_node(task, None, other)


ARGS = ["random", "--ids", "level_x-v0", "--ladder", "heuristic", "--games", "2", "--quiet"]


def test_address_without_ray_is_one_line_naming_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(SystemExit) as info:
        run(bm.main, [*ARGS, "--out", str(tmp_path / "out"), "--address", "auto"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs the 'rllib' extra" in err and 'pip install "gameshelf[rllib]"' in err
    assert not (tmp_path / "out").exists(), "no game is played"


def test_workers_beside_address_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        run(bm.main, [*ARGS, "--out", str(tmp_path / "out"), "--address", "auto", "--workers", "2"])
    assert info.value.code == 2
    assert "--workers is for this machine" in capsys.readouterr().err


def test_the_command_that_reproduces_a_result_leaves_the_cluster_out():
    argv = [*ARGS, "--address", "10.0.0.5:6379", "--out", "x"]
    assert protocol.reproduce_command("gameshelf benchmark", argv) == protocol.reproduce_command("gameshelf benchmark", ARGS)
    assert "--address" not in protocol.reproduce_command("gameshelf benchmark", [*ARGS, "--address=auto"])
