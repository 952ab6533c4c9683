"""Agents that play through text (``llm:MODEL@URL``, ``callable:MODULE:FACTORY``) in the benchmark protocol,
against the scripted local chat server of ``tests/chat_server.py``."""

from __future__ import annotations

import json
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gameshelf.cli import main as cli_main
from gameshelf.training.agents.llm import LLMStats
from gameshelf.training.benchmark import protocol
from tests.chat_server import ChatServer, listed_moves, status

IDS = ["koplus-v0", "amoriax-v0"]  # one with chance, one without; a few seconds in all against random
JUNK = "callable:tests.test_llm_benchmark:junk"


def scripted(text: str) -> str:
    """A reply that depends on the prompt alone (so a rerun gets the same replies): junk for one prompt in
    five (asked again, the same junk: a fallback), else a legal move by number or by name."""
    h = zlib.crc32(text.encode())
    if h % 5 == 0:
        return "I pass."
    number, name = listed_moves(text)[h % len(listed_moves(text))]
    return name if h % 2 else number


def junk() -> Callable[[str], str]:
    """A factory for ``callable:tests.test_llm_benchmark:junk``: never a move, so every move is a fallback."""
    return lambda text: "no idea"


@pytest.fixture(scope="module")
def server() -> Iterator[ChatServer]:
    chat = ChatServer()
    chat.policy = scripted
    yield chat
    chat.close()


@pytest.fixture(autouse=True)
def no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GAMESHELF_LLM_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def bench(spec: str, out: Path, ids: list[str] = IDS, *extra: str) -> int:
    args = ["benchmark", spec, "--ids", *ids, "--games", "2", "--ladder", "random", "--bootstrap", "10", *extra]
    return cli_main([*args, "--out", str(out), "--quiet"])


def read(out: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    return records, json.loads((out / "result.json").read_text())


def untimed(record: dict[str, Any]) -> dict[str, Any]:
    """A game record without what depends on the machine: CPU seconds and seconds waited for replies."""
    stats = [None if s is None else {k: v for k, v in s.items() if k != "latency_s"} for s in record["text_stats"]]
    return {**{k: v for k, v in record.items() if k not in ("cpu_s", "act_cpu_s")}, "text_stats": stats}


def numbers(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k not in ("cost", "command")}


def test_an_llm_agent_is_benchmarked_with_its_text_play_statistics(server: ChatServer, tmp_path: Path, capsys) -> None:
    spec = f"llm:test-model@{server.url}"
    asked = len(server.requests)
    assert bench(spec, tmp_path / "a") == 0
    printed = capsys.readouterr().out
    records, result = read(tmp_path / "a")
    assert len(records) == 2 * len(IDS)
    for r in records:
        seat = r["lineup"].index(spec)
        stats = r["text_stats"][seat]
        assert r["text_stats"][1 - seat] is None  # random plays no text
        assert set(stats) == set(protocol.TEXT_STATS) and 0 < stats["moves"] <= r["decisions"]
        assert stats["calls"] == stats["moves"] + stats["invalid"] - stats["fallbacks"]
        assert stats["prompt_tokens"] == 100 * stats["calls"] and stats["completion_tokens"] == 3 * stats["calls"]
        assert stats["latency_s"] > 0
    assert sum(r["text_stats"][r["lineup"].index(spec)]["calls"] for r in records) == len(server.requests) - asked
    md = (tmp_path / "a" / "result.md").read_text()
    for env_id in IDS:
        mine = [r["text_stats"][r["lineup"].index(spec)] for r in records if r["env_id"] == env_id]
        total = {k: sum(s[k] for s in mine) for k in protocol.TEXT_STATS if k != "latency_s"}
        play = result["ids"][env_id]["text_play"][spec]
        assert {k: play[k] for k in total} == total and play["games"] == 2
        assert play["tokens_per_decision"] == pytest.approx(103 * total["calls"] / total["moves"])
        assert play["invalid_rate"] == pytest.approx(total["invalid"] / total["calls"])
        assert play["fallback_rate"] == pytest.approx(total["fallbacks"] / total["moves"])
        assert env_id in result["cost"]["text_wait_s_of_games"]
        section = md.split(f"## `{env_id}`")[1].split("\n## ")[0]
        row = next(line for line in section.splitlines() if line.startswith(f"| {spec} | ") and "%" in line)
        assert f"| {100 * play['invalid_rate']:.1f}% |" in row and f"| {100 * play['fallback_rate']:.1f}% |" in row
        assert f"{env_id}: {spec} waited " in printed
    assert sum(result["ids"][i]["text_play"][spec]["fallbacks"] for i in IDS) > 0  # the junk replies fell back
    assert md in printed  # the tables per game, printed at the end of the run
    # the same replies give the same games and the same numbers (the fallbacks are seeded by the protocol),
    # in any process
    assert bench(spec, tmp_path / "b", IDS, "--workers", "2") == 0
    again, result_b = read(tmp_path / "b")
    assert numbers(result_b) == numbers(result)
    assert {r["key"]: untimed(r) for r in again} == {r["key"]: untimed(r) for r in records}


def test_a_callable_agent_runs_through_the_benchmark(tmp_path: Path) -> None:
    assert bench(JUNK, tmp_path, ["koplus-v0"]) == 0
    records, result = read(tmp_path)
    play = result["ids"]["koplus-v0"]["text_play"][JUNK]
    assert play["calls"] == play["total_tokens"] == 0 and play["tokens_per_decision"] == 0.0  # no server
    assert play["fallback_rate"] == play["invalid_rate"] == 1.0 and play["invalid"] == 3 * play["moves"]
    assert result["ids"]["koplus-v0"]["agents"] == ["random", JUNK]
    assert all(r["text_stats"][r["lineup"].index(JUNK)]["moves"] > 0 for r in records)


def test_the_fallback_generator_is_seeded_from_the_deal_and_the_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    seeds: list[Any] = []
    make = protocol.make_agent

    def spy(name: str, env_id: str, **kwargs: Any) -> Any:
        seeds.append(kwargs.get("seed"))
        return make(name, env_id, **kwargs)

    monkeypatch.setattr(protocol, "make_agent", spy)
    task = protocol.GameTask("koplus-v0", 2, JUNK, "random", deal=3, assignment=1)
    protocol.play_game(task, [1] * 64)
    assert seeds == [None, protocol.text_seed(task.seed, 1)]  # random at seat 0 takes no seed; the junk agent sits at 1
    all_seeds = {protocol.text_seed(protocol.deal_seed("koplus-v0", 2, d), s) for d in range(20) for s in range(4)}
    assert len(all_seeds) == 80
    agent = protocol.build_agent(JUNK, "koplus-v0", 12345)
    assert agent.rng.integers(1 << 30) == np.random.default_rng(12345).integers(1 << 30)


def test_text_agents_are_protocol_specs_and_keyed_by_their_name() -> None:
    for spec in ("llm:qwen2.5:7b@http://127.0.0.1:8080/v1", JUNK):
        protocol.check_spec(spec)
        assert protocol.spec_identity(spec, "koplus-v0") == spec  # name, model and URL: no file to digest
    assert "'llm:MODEL@URL'" in protocol.AGENT_FORMS and "'callable:MODULE:FACTORY'" in protocol.AGENT_FORMS
    assert set(protocol.TEXT_STATS) == set(LLMStats().as_dict())


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("llm:model-without-url", "expected 'llm:MODEL@URL'"),
        ("llm:m@ftp://example.org", "must start with http:// or https://"),
        ("callable:no_such_module_here:make", "cannot import 'no_such_module_here'"),
        ("callable:tests.test_llm_benchmark:IDS", "has no function 'IDS'"),
    ],
)
def test_a_bad_text_agent_is_one_line_and_exit_2(spec: str, message: str, tmp_path: Path, capsys) -> None:
    assert bench(spec, tmp_path, ["koplus-v0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and err.startswith("gameshelf benchmark: error: agent")
    assert not (tmp_path / "games.jsonl").exists()


def test_a_failing_server_stops_the_run_in_one_line(tmp_path: Path, capsys) -> None:
    chat = ChatServer()
    chat.script = [status(401)]
    try:
        assert bench(f"llm:m@{chat.url}", tmp_path, ["koplus-v0"]) == 1
    finally:
        chat.close()
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "status 401" in err and "Traceback" not in err


# ---- damaged statistics in games.jsonl -----------------------------------------------------------------------
def _damage(record: dict[str, Any], how: str) -> None:
    seat = next(s for s, entry in enumerate(record["text_stats"]) if entry is not None)
    stats = record["text_stats"][seat]
    if how == "not a list":
        record["text_stats"] = "many"
    elif how == "one entry short":
        record["text_stats"].pop()
    elif how == "a field missing":
        del stats["fallbacks"]
    elif how == "negative tokens":
        stats["prompt_tokens"] = -5
    elif how == "string count":
        stats["calls"] = "10"
    elif how == "nan seconds":
        stats["latency_s"] = float("nan")
    elif how == "more fallbacks than moves":
        stats["fallbacks"] = stats["invalid"] = stats["moves"] + 1
    elif how == "more moves than decisions":
        stats["moves"] = record["decisions"] + 1


DAMAGE = ["not a list", "one entry short", "a field missing", "negative tokens", "string count", "nan seconds",
          "more fallbacks than moves", "more moves than decisions"]  # fmt: skip


@pytest.fixture(scope="module")
def koplus_run(server: ChatServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    spec, out = f"llm:test-model@{server.url}", tmp_path_factory.mktemp("koplus")
    assert bench(spec, out, ["koplus-v0"]) == 0
    return spec, out


@pytest.mark.parametrize("how", DAMAGE)
def test_damaged_text_stats_are_a_record_problem(koplus_run: tuple[str, Path], how: str) -> None:
    records, _ = read(koplus_run[1])
    assert protocol.record_problem(records[0]) is None
    _damage(records[0], how)
    problem = protocol.record_problem(records[0])
    assert problem is not None and problem.startswith("text_stats") and len(problem) < 80


@pytest.mark.parametrize("how", ["negative tokens", "more moves than decisions"])
def test_a_damaged_text_stats_line_is_reported_and_its_game_played_again(
    koplus_run: tuple[str, Path], tmp_path: Path, capsys, how: str
) -> None:
    spec, full = koplus_run
    lines = (full / "games.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    _damage(record, how)
    damaged = "\n".join([json.dumps(record), *lines[1:]]) + "\n"
    (tmp_path / "games.jsonl").write_text(damaged)
    capsys.readouterr()
    assert bench(spec, tmp_path, ["koplus-v0"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and warnings[0].startswith(f"warning: {tmp_path / 'games.jsonl'}:1: text_stats")
    kept = (tmp_path / "games.jsonl").read_text()
    assert kept.startswith(damaged) and kept.count("\n") == damaged.count("\n") + 1  # only that game played again
    assert numbers(read(tmp_path)[1]) == numbers(read(full)[1])  # the same replies: the same game


def test_a_callable_of_the_current_folder_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "llm_bench_folder_agent.py").write_text("def make():\n    return lambda text: '1'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    monkeypatch.setitem(sys.modules, "llm_bench_folder_agent", None)  # with the next line: gone after the test
    monkeypatch.delitem(sys.modules, "llm_bench_folder_agent")
    agent = protocol.build_agent("callable:llm_bench_folder_agent:make", "koplus-v0")
    assert agent.name == "callable:llm_bench_folder_agent:make"
