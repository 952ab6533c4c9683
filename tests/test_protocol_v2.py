"""Protocol version 2: saved games are reused only when the code that played them is the run's, every result
says what made it, and every agent's CPU time per decision is recorded."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gameshelf import envs
from gameshelf.training.benchmark import ladder as bm
from gameshelf.training.benchmark import protocol
from gameshelf.training.benchmark.leaderboard import leaderboard_markdown, load_result
from tests.toy_nets import write_net

ROOT = Path(__file__).resolve().parents[1]
NIM = "toy_nim_v2-v0"
HEURISTIC_MODULE = "toy_nim_v2_heuristic"
HEURISTIC = '''"""The heuristic of the toy Nim of these tests: leave a multiple of 3 when possible."""


class Heuristic:
    name = "heuristic"

    def act(self, state, seat, rng):
        if state.pile % 3 == 1:
            return 0
        if state.pile % 3 == 2:
            return 1
        return state.legal_actions()[0]
'''
HALF = "tests.toy_agents:half"
LADDER = ["random", "heuristic"]


@pytest.fixture
def nim(tmp_path, monkeypatch):
    """Nim with chance, its heuristic a module of its own in ``tmp_path/code`` (a file the tests edit)."""
    code = tmp_path / "code"
    code.mkdir()
    (code / f"{HEURISTIC_MODULE}.py").write_text(HEURISTIC)
    monkeypatch.syspath_prepend(str(code))
    envs.register(NIM, "tests.toy_nim:NimGame", heuristic=f"{HEURISTIC_MODULE}:Heuristic", kwargs={"chance": True, "pile": 8})
    try:
        yield code / f"{HEURISTIC_MODULE}.py"
    finally:
        envs.unregister(NIM)
        sys.modules.pop(HEURISTIC_MODULE, None)  # imported from tmp_path by these tests only


def run(out, agent=HALF, **kwargs):
    kwargs.setdefault("games", 4)  # 2 deals, 4 games per pairing, 12 games in all
    kwargs.setdefault("ladder", LADDER)
    return bm.benchmark(agent, [NIM], out=out, bootstrap=20, **kwargs)


def records(out):
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def test_the_same_code_reuses_every_saved_game(nim, tmp_path, capsys):
    first = run(tmp_path / "a")
    assert first["cost"]["games_played"] == 12 and first["cost"]["games_reused"] == 0
    again = run(tmp_path / "a")  # resumed in its own folder
    other = run(tmp_path / "b", reuse=[tmp_path / "a" / "games.jsonl"])  # another folder, --reuse
    for result in (again, other):
        assert result["cost"]["games_played"] == 0 and result["cost"]["games_reused"] == 12
        assert json.dumps(result["ids"]) == json.dumps(first["ids"]) and result["code"] == first["code"]  # NaN: as text
    assert "other code" not in capsys.readouterr().err
    assert "Games: 0 played by this run, 12 reused" in (tmp_path / "b" / "result.md").read_text()


def test_games_made_before_a_change_to_the_heuristic_are_played_again(nim, tmp_path, capsys):
    before = run(tmp_path / "a")
    capsys.readouterr()
    # the heuristic file is edited: it now takes one stone whatever the pile
    nim.write_text(HEURISTIC.replace("return state.legal_actions()[0]", "return 0").replace("return 1", "return 0"))
    sys.modules.pop(HEURISTIC_MODULE)  # the edited module plays from now on (the fixture removes it at the end)
    after = run(tmp_path / "a")
    err = capsys.readouterr().err
    involved = sum("heuristic" in r["lineup"] for r in records(tmp_path / "a")[:12])
    assert involved == 8  # random vs heuristic and heuristic vs half; random vs half does not involve it
    assert after["cost"]["games_played"] == involved and after["cost"]["games_reused"] == 12 - involved
    assert (
        f"{involved} saved games of {tmp_path / 'a' / 'games.jsonl'} were made by other code (heuristic); playing them again"
        in err
    )
    assert after["code"][NIM]["agents"]["heuristic"] != before["code"][NIM]["agents"]["heuristic"]
    assert after["code"][NIM]["agents"]["random"] == before["code"][NIM]["agents"]["random"]
    assert after["code"][NIM]["game"] == before["code"][NIM]["game"]
    # the weaker heuristic is measured: its games are new, not the old ones merged in
    score = {(p["focal"], p["other"]): p["score"]["value"] for p in after["ids"][NIM]["pairs"]}
    old = {(p["focal"], p["other"]): p["score"]["value"] for p in before["ids"][NIM]["pairs"]}
    assert score[("heuristic", HALF)] < old[("heuristic", HALF)]
    assert score[("random", HALF)] == old[("random", HALF)]
    # and a third run with the edited file reuses the games it made
    assert run(tmp_path / "a")["cost"]["games_played"] == 0


def test_a_changed_network_file_is_played_again(nim, tmp_path):
    net = write_net(tmp_path / "net.npz", NIM, seed=0)
    spec = f"model:{net}"
    first = run(tmp_path / "a", agent=spec, ladder=["random"], games=4)
    assert first["cost"]["games_played"] == 4
    assert run(tmp_path / "a", agent=spec, ladder=["random"], games=4)["cost"]["games_played"] == 0
    write_net(net, NIM, seed=1)  # new weights in the same file
    again = run(tmp_path / "a", agent=spec, ladder=["random"], games=4)
    assert again["cost"]["games_played"] == 4
    assert again["code"][NIM]["agents"][spec] != first["code"][NIM]["agents"][spec]


def test_cpu_time_per_decision_is_recorded_for_every_agent(nim, tmp_path):
    result = run(tmp_path / "a", agent=HALF)  # a custom agent (module:factory) too
    games = records(tmp_path / "a")
    for r in games:
        assert sum(r["act_decisions"]) == r["decisions"] > 0
        assert all(math.isfinite(x) and 0 <= x <= r["cpu_s"] for x in r["act_cpu_s"])
    per_decision = result["cost"]["cpu_per_decision"][NIM]
    assert set(per_decision) == {"random", "heuristic", HALF}
    for spec, entry in per_decision.items():
        decisions = sum(d for r in games for s, d in zip(r["lineup"], r["act_decisions"], strict=True) if s == spec)
        assert entry["decisions"] == decisions
        assert math.isfinite(entry["ms_per_decision"]) and entry["ms_per_decision"] >= 0
    md = (tmp_path / "a" / "result.md").read_text()
    for spec in per_decision:
        row = next(line for line in md.splitlines() if line.startswith((f"| {spec} |", f"| **{spec}** |")))
        assert row.split("|")[-2].strip() == bm.cpu_cell(result, NIM, spec) != "-"
    # a reused game keeps the figure it was played with
    assert run(tmp_path / "a")["cost"]["cpu_per_decision"] == result["cost"]["cpu_per_decision"]


def as_version_1(record):
    """A game record as version 1 wrote it: another protocol name, no code digests, no CPU per seat."""
    old = {k: v for k, v in record.items() if k not in ("code", "act_cpu_s", "act_decisions")}
    old["protocol"] = protocol.PROTOCOL_1
    old["key"] = protocol.PROTOCOL_1 + record["key"].removeprefix(protocol.PROTOCOL)
    return old


def test_version_1_games_are_not_reused(nim, tmp_path, capsys):
    """A version-1 record names no code, so nothing says it was played by the code of the run: it is played
    again (its game is the same, move for move, when the code is: see the test below)."""
    run(tmp_path / "a")
    old = tmp_path / "v1.jsonl"
    old.write_text("".join(json.dumps(as_version_1(r)) + "\n" for r in records(tmp_path / "a")))
    capsys.readouterr()
    result = run(tmp_path / "b", reuse=[old])
    assert result["cost"]["games_played"] == 12
    err = capsys.readouterr().err
    assert f"12 saved games of {old} are of gameshelf-protocol/1, not gameshelf-protocol/2" in err
    assert len(err.strip().splitlines()) == 1


def test_a_record_without_its_code_or_cpu_is_a_damaged_line(nim, tmp_path):
    run(tmp_path / "a")
    record = records(tmp_path / "a")[0]
    assert protocol.record_problem(record) is None
    for field, value in (("code", None), ("act_cpu_s", [0.1]), ("act_decisions", [0, 0])):
        assert protocol.record_problem({**record, field: value}) is not None, field
    assert "agent of the lineup" in protocol.record_problem({**record, "code": {**record["code"], "agents": {}}})


def test_version_1_results_still_load_in_the_leaderboard(nim, tmp_path):
    v1 = load_result(ROOT / "benchmarks" / "results" / "ten-heuristic" / "result.json")
    assert v1["protocol"] == protocol.PROTOCOL_1
    v2 = run(tmp_path / "a", command="gameshelf benchmark tests.toy_agents:half")
    level_x = dict(v2, ids={"level_x-v0": dict(v1["ids"]["level_x-v0"])})  # a version-2 result of a real game
    level_x["cost"] = {"cpu_per_decision": {"level_x-v0": {"random": {"ms_per_decision": 0.25}}}}
    text = leaderboard_markdown([v1, v2, level_x], bootstrap=20)
    assert (
        "## `level_x-v0`, 2 players, gameshelf-protocol/1" in text and "## `level_x-v0`, 2 players, gameshelf-protocol/2" in text
    )
    rows = [line for line in text.splitlines() if line.startswith("| random |")]
    assert any(row.endswith(f"| - | {protocol.PROTOCOL_1} | `{v1['command']}` |") for row in rows)  # version 1: no CPU figure
    assert any(f"| 0.250 | {protocol.PROTOCOL} |" in row for row in rows)
    half = next(line for line in text.splitlines() if line.startswith(f"| {HALF} |") and "protocol/2" in line)
    assert half.split("|")[-4].strip() == bm.cpu_cell(v2, NIM, HALF) != "-"


def test_the_headline_averages_only_agents_rated_on_all_ten_games():
    results = sorted((ROOT / "benchmarks" / "results").glob("*/result.json"))
    text = leaderboard_markdown([load_result(p) for p in results], bootstrap=20)
    head = text.split("## Mean normalized score")[1].split("\n## ")[0]
    assert "| heuristic | 1.00 [1.00, 1.00] |" in head
    assert "| mcts:200:reference | 7/10 |" in head  # rated on 7 games: no mean over those 7
    assert "| mcts:1000 | 1/10 |" in head
    assert "all 10 games" in head


def test_the_shipped_leaderboard_is_the_one_its_command_writes():
    """docs/leaderboard.md, regenerated from the kept results with the command it names."""
    shipped = (ROOT / "docs" / "leaderboard.md").read_text()
    sources = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "benchmarks" / "results").glob("*/result.json"))
    assert leaderboard_markdown([load_result(ROOT / s) for s in sources], sources=sources, out="docs/leaderboard.md") == shipped
    # its Tsukuru intervals are those of the result files (and of docs/results.md)
    tsukuru = shipped.split("## `tsukuru_ten_ten-v0`")[1].split("\n## ")[0]
    for folder, agent, value in (
        ("tsukuru-mcts50-reference", "mcts:50:reference", "0.05 [0.00, 0.15]"),
        ("tsukuru-mcts100-reference-heuristic", "mcts:100:reference:heuristic", "0.20 [0.00, 0.40]"),
        ("tsukuru-mcts300-reference-heuristic", "mcts:300:reference:heuristic", "0.30 [0.10, 0.50]"),
    ):
        versus = load_result(ROOT / "benchmarks" / "results" / folder / "result.json")["ids"]["tsukuru_ten_ten-v0"]["versus"]
        assert bm.fmt(versus[agent]["heuristic"]) == value
        assert f"| {value} |" in next(line for line in tsukuru.splitlines() if line.startswith(f"| {agent} |"))


def test_a_pairing_of_fewer_deals_keeps_its_own_bootstrap_when_merged():
    small = {("heuristic", "mcts"): [1.0, 0.5, 1.0, 0.0, 1.0]}
    merged = {**small, ("random", "heuristic"): [0.0] * 50}
    alone = bm.summarize(["heuristic", "mcts"], 2, small, bootstrap=200, seed=7)
    together = bm.summarize(["random", "heuristic", "mcts"], 2, merged, bootstrap=200, seed=7)
    assert together.cell("pair", ("heuristic", "mcts")) == alone.cell("pair", ("heuristic", "mcts"))


def test_the_commit_is_marked_dirty_when_play_code_changed_and_git_never_stops_a_run(tmp_path, monkeypatch):
    if shutil.which("git") is None:
        pytest.skip("no git")
    repo = tmp_path / "repo"
    repo.mkdir()
    rules, notes = repo / "rules.py", repo / "notes.md"
    rules.write_text("RULES = 1\n")
    notes.write_text("notes\n")

    def git(*args):
        return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                              check=True, capture_output=True, text=True).stdout.strip()  # fmt: skip

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "first")
    commit = git("rev-parse", "HEAD")
    assert protocol.checkout_commit([rules], module=rules) == commit
    notes.write_text("changed\n")  # not code that decides play
    assert protocol.checkout_commit([rules], module=rules) == commit
    rules.write_text("RULES = 2\n")
    assert protocol.checkout_commit([rules], module=rules) == f"{commit}-dirty"
    git("commit", "-q", "-am", "second")
    extra = repo / "extra.py"
    extra.write_text("")  # play code not committed
    assert protocol.checkout_commit([rules, extra], module=rules) == f"{git('rev-parse', 'HEAD')}-dirty"
    outside = tmp_path / "outside.py"
    outside.write_text("")
    assert protocol.checkout_commit([outside], module=outside) is None  # not a checkout
    assert protocol.checkout_commit([extra], module=extra) is None  # a file the checkout does not track
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))  # git missing
    assert protocol.checkout_commit([rules], module=rules) is None
    assert protocol.software(protocol.core_files())["commit"] is None


VERSION_1_GAMES = Path(__file__).with_name("protocol_v1_games.json")
"""Games played by protocol version 1 (commit ad9f3f6) with every action recorded, by the same loop as below."""


class Recorder:
    """An agent that logs the actions of the agent it wraps."""

    def __init__(self, agent, log):
        self.agent, self.log, self.name = agent, log, agent.name

    def act(self, state, seat, rng):
        action = self.agent.act(state, seat, rng)
        self.log.append(int(action))
        return action


def test_version_2_plays_the_games_of_version_1_move_for_move():
    saved = json.loads(VERSION_1_GAMES.read_text())
    assert {g["protocol"] for g in saved} == {protocol.PROTOCOL_1} and len(saved) == 10
    first: dict[tuple[str, int], dict] = {}
    for game in saved:
        env_id = game["env_id"]
        task = protocol.GameTask(
            env_id, protocol.players_for(env_id), game["focal"], game["other"], game["deal"], game["assignment"]
        )
        log: list[int] = []
        agents = [Recorder(protocol.build_agent(spec, env_id), log) for spec in task.lineup]
        script = None if task.assignment == 0 else first[(env_id, task.deal)]["chance"]
        record = protocol.play_game(task, script, agents)
        first.setdefault((env_id, task.deal), record)
        assert record["protocol"] == protocol.PROTOCOL
        assert log == game["actions"], (env_id, task.deal, task.assignment)
        for field in ("chance", "returns", "scores", "decisions", "replayed", "diverged_at", "divergence", "focal_score"):
            assert record[field] == game[field], field
