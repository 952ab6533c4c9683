"""``gameshelf benchmark``: normalized scores of agents of known strength, repeatable results, resume, errors."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gameshelf import envs
from gameshelf.cli import main as cli_main
from gameshelf.training.benchmark import ladder as bm
from gameshelf.training.benchmark.leaderboard import leaderboard_markdown

NIM = "toy_nim_bench-v0"
LADDER = ["random", "heuristic"]


@pytest.fixture
def nim():
    """Nim with chance, its heuristic the perfect player (the one that leaves a multiple of 3)."""
    envs.register(NIM, "tests.toy_nim:NimGame", heuristic="tests.toy_nim:PerfectNim", kwargs={"chance": True, "pile": 8})
    yield NIM
    envs.unregister(NIM)


def numbers(result):
    """Everything in a result but the CPU times and the command line (which names the output folder)."""
    return {k: v for k, v in result.items() if k not in ("cost", "command")}


def run_nim(agent, **kwargs):
    kwargs.setdefault("games", 24)
    kwargs.setdefault("ladder", LADDER)
    kwargs.setdefault("bootstrap", 50)
    return bm.benchmark(agent, [NIM], **kwargs)


def test_normalized_score_of_agents_of_known_strength(nim):
    same_as_heuristic = run_nim("tests.toy_agents:perfect")["ids"][NIM]
    assert same_as_heuristic["normalized"]["tests.toy_agents:perfect"]["value"] == pytest.approx(1.0)
    assert same_as_heuristic["normalized"]["heuristic"]["value"] == pytest.approx(1.0)
    assert same_as_heuristic["normalized"]["random"]["value"] == 0.0
    assert same_as_heuristic["ratings"]["random"]["value"] == 0.0
    assert same_as_heuristic["ratings"]["heuristic"]["value"] > 100
    same_as_random = run_nim("tests.toy_agents:random_agent")["ids"][NIM]
    assert same_as_random["normalized"]["tests.toy_agents:random_agent"]["value"] == pytest.approx(0.0)
    halfway = run_nim("tests.toy_agents:half")
    section = halfway["ids"][NIM]
    value = section["normalized"]["tests.toy_agents:half"]
    assert 0.1 < value["value"] < 0.9
    assert value["lo"] <= value["value"] <= value["hi"]
    ratings = {a: r["value"] for a, r in section["ratings"].items()}
    assert ratings["random"] < ratings["tests.toy_agents:half"] < ratings["heuristic"]
    assert halfway["mean_normalized"]["value"] == pytest.approx(value["value"])
    assert halfway["mean_normalized"]["ids"] == [NIM]


def test_heuristic_benchmark_repeats_on_a_fast_game(tmp_path, capsys):
    args = [
        "benchmark",
        "heuristic",
        "--ids",
        "level_x-v0",
        "--games",
        "4",
        "--ladder",
        "random",
        "heuristic",
        "--bootstrap",
        "20",
    ]
    assert cli_main([*args, "--out", str(tmp_path / "a")]) == 0
    assert cli_main([*args, "--out", str(tmp_path / "b")]) == 0
    a, b = (json.loads((tmp_path / d / "result.json").read_text()) for d in ("a", "b"))
    assert numbers(a) == numbers(b)
    assert a["protocol"] == "gameshelf-protocol/2"
    assert a["ids"]["level_x-v0"]["games_per_pairing"] == 4
    md_a, md_b = (without_cpu_column((tmp_path / d / "result.md").read_text()) for d in ("a", "b"))
    assert md_a == md_b and "| random | 0 [0, 0] |" in md_a
    assert a["command"] == "gameshelf benchmark " + " ".join(args[1:])  # --out does not change a number: not in it
    assert "gameshelf-protocol/2" in capsys.readouterr().out


def without_cpu_column(markdown):
    """``result.md`` without its last table column, the CPU ms per decision (the machine's)."""
    return re.sub(r"\| [^|\n]* \|$", "|", markdown, flags=re.MULTILINE)


def test_user_agent_factory_through_the_command_line(nim, tmp_path):
    out = tmp_path / "mine"
    code = cli_main(["benchmark", "tests.toy_agents:perfect", "--ids", NIM, "--games", "6", "--ladder", *LADDER,
                     "--bootstrap", "10", "--out", str(out)])  # fmt: skip
    assert code == 0
    result = json.loads((out / "result.json").read_text())
    assert result["agent"] == "tests.toy_agents:perfect"
    assert result["ids"][NIM]["agents"] == ["random", "heuristic", "tests.toy_agents:perfect"]


def test_an_interrupted_run_resumes_to_the_same_result(nim, tmp_path):
    full = run_nim("tests.toy_agents:half", out=tmp_path / "full")
    out = tmp_path / "cut"
    run_nim("tests.toy_agents:half", out=out)
    lines = (out / "games.jsonl").read_text().splitlines(keepends=True)
    kept = len(lines) // 3
    # as if killed while writing: a third of the games kept, the next line cut in the middle
    (out / "games.jsonl").write_text("".join(lines[:kept]) + lines[kept][:40])
    (out / "result.json").unlink()
    store = bm.GameStore(out / "games.jsonl")
    assert len(store) == kept
    plan = bm.make_plan("tests.toy_agents:half", NIM, 24, ladder=LADDER)
    assert bm.run_games(plan.tasks, store) == len(lines) - kept  # only the missing games are played
    resumed = run_nim("tests.toy_agents:half", out=out)
    assert numbers(resumed) == numbers(full)
    assert len(bm.GameStore(out / "games.jsonl")) == len(lines)


def test_workers_give_the_same_numbers(nim):
    one = run_nim("tests.toy_agents:half", games=12)
    two = run_nim("tests.toy_agents:half", games=12, workers=2)
    assert numbers(one) == numbers(two)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nosuchagent", "unknown agent"),
        ("mcts:lots", "bad MCTS budget"),
        ("mcts:0.5s", "never time budgets"),
        ("model:/nonexistent/model.zip", "no saved model"),
        ("nosuch_module_xyz:factory", "cannot import"),
        ("tests.toy_agents:missing", "no callable"),
    ],
)
def test_bad_agent_specs_give_one_line_and_exit_2(spec, message, tmp_path, capsys):
    code = cli_main(["benchmark", spec, "--ids", "level_x-v0", "--games", "2", "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and message in err and err.startswith("gameshelf benchmark: error: agent")
    assert not (tmp_path / "games.jsonl").exists()


def test_other_command_line_mistakes_exit_2(capsys):
    for args in (["--ids", "nosuch-v0"], ["--games", "0"], ["--workers", "0"], ["--players", "1", "--ids", "cargo_empire-v0"]):
        assert cli_main(["benchmark", "heuristic", *args]) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert cli_main(["benchmark"]) == 2


def test_an_agent_that_breaks_the_rules_stops_the_run(nim, tmp_path, capsys):
    code = cli_main(
        ["benchmark", "tests.toy_agents:illegal", "--ids", NIM, "--games", "2", "--ladder", *LADDER, "--out", str(tmp_path)]
    )
    assert code == 1
    assert "tests.toy_agents:illegal at seat" in capsys.readouterr().err


def test_leaderboard_merges_results_and_compares_pairing(nim, tmp_path):
    a = run_nim("tests.toy_agents:half", games=8, command="gameshelf benchmark tests.toy_agents:half")
    b = run_nim("tests.toy_agents:perfect", games=8, command="gameshelf benchmark tests.toy_agents:perfect")
    u = run_nim("tests.toy_agents:half", games=8, paired=False, command="gameshelf benchmark tests.toy_agents:half --unpaired")
    text = leaderboard_markdown([a, b, u], bootstrap=20)
    assert f"## `{NIM}`, 2 players" in text
    for agent in ("random", "heuristic", "tests.toy_agents:half", "tests.toy_agents:perfect"):
        assert f"| {agent} |" in text
    assert "`gameshelf benchmark tests.toy_agents:perfect`" in text
    assert "## Paired deals against unpaired games" in text
    assert "--unpaired" not in text.split("## Paired deals")[0]  # unpaired games are not ranked


def test_ratings_that_rest_on_a_sweep_are_flagged():
    pairs = {("random", "heuristic"): [0.0, 0.0], ("mcts:50", "random"): [1.0, 0.5], ("heuristic", "mcts:50"): [1.0, 1.0]}
    assert bm.sweeps(["random", "heuristic", "mcts:50"], pairs) == {"heuristic": ["random", "mcts:50"], "mcts:50": ["heuristic"]}
    section = {"sweeps": {"heuristic": ["random"]}, "ratings": {"heuristic": {"value": 802.0, "lo": 802.0, "hi": 802.0}}}
    assert bm.rating_cell(section, "heuristic") == "802\\* [802, 802]"


def test_pairing_gain_is_below_one_when_a_deals_games_hedge_each_other():
    hedged = [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]  # every deal split: the luck was the deal's
    assert bm.pairing_gain(hedged) == 0.0
    same = [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]  # the deal decided both games: no hedging
    assert bm.pairing_gain(same) == pytest.approx(2**0.5)
    assert bm.pairing_gain([[1.0, 0.0]]) is None


def _damage(line: bytes, how: str) -> bytes:
    record = json.loads(line)
    if how == "long number":
        return line.replace(b'"cpu_s":', b'"cpu_s":' + b"1" * 5000 + b',"was":')
    if how == "deep nesting":
        return b"[" * 100_000
    if how == "nan returns":
        record["returns"][0] = float("nan")
    elif how == "returns of another seat count":
        record["returns"].append(0.0)
    elif how == "string returns":
        record["returns"] = [str(x) for x in record["returns"]]
    elif how == "focal score that disagrees":
        record["focal_score"] = 1.0 - record["focal_score"] if record["focal_score"] != 0.5 else 0.0
    elif how == "chance outcome out of range":
        record["chance"] = [2**70]
    elif how == "not utf-8":
        return b"\xff\xfe" + line
    elif how == "cut short":
        return line[:40]
    return json.dumps(record).encode()


DAMAGE = ["long number", "deep nesting", "nan returns", "returns of another seat count", "string returns",
          "focal score that disagrees", "chance outcome out of range", "not utf-8", "cut short"]  # fmt: skip


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_line_is_reported_and_its_game_played_again(nim, tmp_path, capsys, how):
    full = run_nim("tests.toy_agents:half", games=8, out=tmp_path / "full")
    path = tmp_path / "full" / "games.jsonl"
    lines = path.read_bytes().split(b"\n")[:-1]
    lines[2] = _damage(lines[2], how)  # the first game of deal 1: its replays rest on it too
    damaged = b"\n".join(lines) + b"\n"
    for out in ("own", "reused"):
        (tmp_path / out).mkdir()
    (tmp_path / "own" / "games.jsonl").write_bytes(damaged)
    (tmp_path / "old.jsonl").write_bytes(damaged)
    capsys.readouterr()
    again = run_nim("tests.toy_agents:half", games=8, out=tmp_path / "own")
    reused = run_nim("tests.toy_agents:half", games=8, out=tmp_path / "reused", reuse=[tmp_path / "old.jsonl"])
    assert numbers(again) == numbers(reused) == numbers(full)
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 2, warnings
    for warning, path in zip(warnings, (tmp_path / "own" / "games.jsonl", tmp_path / "old.jsonl"), strict=True):
        assert warning.startswith(f"warning: {path}:3: ") and len(warning) < len(str(path)) + 100
    kept = (tmp_path / "own" / "games.jsonl").read_bytes()
    assert kept.startswith(damaged) and kept.count(b"\n") == damaged.count(b"\n") + 1  # only the replayed game added
    assert len((tmp_path / "reused" / "games.jsonl").read_bytes().splitlines()) == 1


def test_a_reuse_file_that_cannot_be_read_is_one_line(tmp_path, capsys):
    args = ["benchmark", "heuristic", "--ids", "level_x-v0", "--games", "2", "--ladder", "random", "heuristic"]
    assert cli_main([*args, "--out", str(tmp_path / "out"), "--reuse", str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "missing.jsonl" in err and "No such file" in err


@pytest.mark.parametrize(
    ("sig", "workers"),
    [(signal.SIGINT, 1), (signal.SIGTERM, 1), (signal.SIGHUP, 1), (signal.SIGHUP, 2)],
    ids=["SIGINT", "SIGTERM", "SIGHUP", "SIGHUP-2-workers"],
)
def test_a_signal_keeps_the_games_and_prints_the_resume_line(tmp_path, sig, workers):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "gameshelf", "benchmark", "heuristic", "--ids", "level_x-v0", "--games", "4000",
               "--ladder", "random", "heuristic", "--bootstrap", "10", "--workers", str(workers), "--out", str(out),
               "--quiet"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    def default_sighup() -> None:  # as from a terminal, even when these tests run under nohup
        signal.signal(signal.SIGHUP, signal.SIG_DFL)

    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sighup)  # fmt: skip
    games = out / "games.jsonl"
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and (not games.exists() or games.read_bytes().count(b"\n") < 3):
            time.sleep(0.1)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + sig, err
    assert f"interrupted ({sig.name}): " in err and "run the same command again to resume" in err
    assert "Traceback" not in err
    kept = bm.GameStore(games, report=False)
    assert len(kept) >= 3 and f"{len(kept)} games kept in {games}" in err
    assert not (out / "result.json").exists()


def test_leaderboard_writes_a_run_folder_unless_told_otherwise(nim, tmp_path, monkeypatch, capsys):
    run_nim("tests.toy_agents:half", games=4, out=tmp_path / "r", command="gameshelf benchmark tests.toy_agents:half")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "leaderboard.md").write_text("tracked\n")
    assert cli_main(["leaderboard", "r/result.json", "--bootstrap", "10"]) == 0
    written = capsys.readouterr().out.strip().removeprefix("leaderboard: ")
    assert re.fullmatch(r"runs/leaderboard/\d{8}-\d{6}/leaderboard\.md", written), written
    assert "Regenerate: `gameshelf leaderboard r/result.json --bootstrap 10`" in Path(written).read_text()
    assert (tmp_path / "docs" / "leaderboard.md").read_text() == "tracked\n"
    assert cli_main(["leaderboard", "r/result.json", "--out", "docs/leaderboard.md"]) == 0
    shipped = (tmp_path / "docs" / "leaderboard.md").read_text()
    assert "Regenerate: `gameshelf leaderboard r/result.json --out docs/leaderboard.md`" in shipped


def test_analyze_writes_a_run_folder_unless_told_otherwise(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli_main(["analyze", "level_x-v0", "--games", "2", "--no-cost", "--quiet"]) == 0
    written = capsys.readouterr().out.strip().splitlines()[-1].removeprefix("report: ")
    assert re.fullmatch(r"runs/analysis/\d{8}-\d{6}/level_x\.md", written), written
    assert not (tmp_path / "docs").exists()
    folder = Path(written).parent
    assert f"`gameshelf analyze --summary --out {folder}`" in (folder / "README.md").read_text()
    assert cli_main(["analyze", "--summary"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--out" in err
    assert cli_main(["analyze", "--summary", "--out", str(folder)]) == 0
    assert "| [level_x-v0](level_x.md) |" in (folder / "README.md").read_text()


def _spoil(result: dict, how: str) -> bytes:
    text = json.dumps(result, indent=1)
    if how == "not json":
        return text.replace('"ids":', '"ids"', 1).encode()
    if how == "deep nesting":
        return b"[" * 100_000
    if how == "long number":
        return text.replace('"bootstrap": 50', '"bootstrap": ' + "9" * 5000, 1).encode()
    if how == "not utf-8":
        return b"\xff" + text.encode()
    section = result["ids"][NIM]
    if how == "nan score":
        section["pairs"][0]["deal_scores"][0] = float("nan")
    elif how == "unknown agent":
        section["pairs"][0]["focal"] = "nobody"
    elif how == "no pairs":
        del section["pairs"]
    return json.dumps(result).encode()


SPOILED = ["not json", "deep nesting", "long number", "not utf-8", "nan score", "unknown agent", "no pairs"]


@pytest.mark.parametrize("how", SPOILED)
def test_a_damaged_result_file_is_one_line_naming_it(nim, tmp_path, capsys, how):
    result = run_nim("tests.toy_agents:half", games=4)
    path = tmp_path / "result.json"
    path.write_bytes(_spoil(result, how))
    assert cli_main(["leaderboard", str(path), "--out", str(tmp_path / "board.md")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and len(err) < len(str(path)) + 120, err
    if how == "not json":  # the line of the mistake
        line = next(k for k, text in enumerate(path.read_text().splitlines(), 1) if '"ids"' in text)
        assert f"{path}:{line}: not JSON" in err
    assert not (tmp_path / "board.md").exists()


def test_analyze_summary_leaves_out_reports_it_cannot_read(tmp_path, capsys):
    shutil.copy(Path(__file__).resolve().parents[1] / "docs" / "analysis" / "level_x.json", tmp_path)
    (tmp_path / "cut.json").write_text('{"selfplay":\n {"random": ')
    (tmp_path / "deep.json").write_text("[" * 100_000)
    (tmp_path / "part.json").write_text(json.dumps({"selfplay": {"random": {}, "heuristic": {}}, "ladder": []}))
    (tmp_path / "other.json").write_text("[]")  # not a report: no row, no warning
    assert cli_main(["analyze", "--summary", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"warning: {tmp_path / 'cut.json'}:2: not JSON (column 13: Expecting value); left out of the table",
        f"warning: {tmp_path / 'deep.json'}: not a readable JSON file; left out of the table",
        f"warning: {tmp_path / 'part.json'}: not a complete analysis report; left out of the table",
    ]
    table = (tmp_path / "README.md").read_text()
    assert "| [level_x-v0](level_x.md) |" in table and table.count("\n| [") == 1
