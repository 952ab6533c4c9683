"""The full ladder: its rungs and pairings for every game, ``--estimate``, and the fewer deals of slow pairings."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.cli import main as cli_main
from gameshelf.envs.core.game import State
from gameshelf.training.agents import RandomAgent
from gameshelf.training.benchmark import ladder as bm
from gameshelf.training.benchmark import protocol

NIM = "toy_nim_full_ladder-v0"
SLOW = "tests.test_full_ladder:slow_agent"
GAMES = ["level_x-v0", "amoriax-v0", "koplus-v0", "olenon-v0", "cargo_empire-v0", "matchstick_tycoon-v0",
         "range_ta_ludotheque-v0", "tsukuru_ten_ten-v0", "paiko-v0", "catsle_builders-v0"]  # fmt: skip


class SlowRandom(RandomAgent):
    """A random player that spends 10 ms of CPU on every decision (a costly rung, in seconds of test time)."""

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        end = time.process_time() + 0.01
        while time.process_time() < end:
            pass
        return super().act(state, seat, rng)


def slow_agent(env_id: str) -> SlowRandom:
    return SlowRandom()


WARM = {"done": False}


class ColdStart(RandomAgent):
    """A random player whose first decision in a process costs 50 ms of CPU (as a first compilation does)."""

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        if not WARM["done"]:
            WARM["done"] = True
            end = time.process_time() + 0.05
            while time.process_time() < end:
                pass
        return super().act(state, seat, rng)


def cold_start(env_id: str) -> ColdStart:
    return ColdStart()


@pytest.fixture
def nim():
    envs.register(NIM, "tests.toy_nim:NimGame", heuristic="tests.toy_nim:PerfectNim", kwargs={"chance": True, "pile": 8})
    yield NIM
    envs.unregister(NIM)


def reaches_random(pairs: list[tuple[str, str]], rungs: list[str]) -> set[str]:
    """The rungs joined to random through pairings."""
    reached = {"random"}
    while True:
        more = {x for a, b in pairs for x in (a, b) if {a, b} & reached} - reached
        if not more:
            return reached & set(rungs)
        reached |= more


@pytest.mark.parametrize("env_id", GAMES)
def test_the_full_ladder_of_every_game_is_one_connected_scale(env_id):
    rungs = protocol.full_ladder(env_id)
    assert rungs[:7] == ["random", "heuristic", "mcts:50", "mcts:200", "mcts:1000", "reference", "mcts:200:reference"]
    assert rungs[-1] == protocol.BEST_RECIPE[env_id][0] and len(set(rungs)) == len(rungs)
    n = protocol.players_for(env_id)
    pairs = protocol.ladder_pairings(rungs, n)
    assert len(set(pairs)) == len(pairs)
    unordered = [frozenset(p) for p in pairs]
    extra = 1 if n > 2 else 0  # random focal against the heuristic, for random's own normalized score
    assert len(set(unordered)) == len(unordered) - extra
    for i, rung in enumerate(rungs[1:], 1):
        for other in ("random", "heuristic", rungs[i - 1]):
            if other != rung:
                assert (rung, other) in pairs
    assert reaches_random(pairs, rungs) == set(rungs)
    assert (("random", "heuristic") in pairs) == (n > 2)


def test_every_registered_game_has_a_best_recipe():
    assert set(protocol.BEST_RECIPE) == set(GAMES)
    assert all(reason for _, reason in protocol.BEST_RECIPE.values())
    assert protocol.BEST_RECIPE["tsukuru_ten_ten-v0"][0] == "mcts:300:reference:heuristic"


def test_bad_ladders_are_refused():
    with pytest.raises(ValueError, match="no full ladder"):
        protocol.full_ladder("toy_nim-v0")
    for rungs in (["random", "mcts:50"], ["random", "heuristic", "random"]):
        with pytest.raises(ValueError, match="distinct and include random and heuristic"):
            protocol.ladder_pairings(rungs)


def full(out, *more):
    return [
        "benchmark", "--full-ladder", "--ids", NIM, "--ladder", "random", "heuristic", "tests.toy_agents:half",
        "--deals", "3", "--bootstrap", "20", "--quiet", "--out", str(out), *more,
    ]  # fmt: skip


def test_estimate_prints_the_table_and_the_run_reuses_its_games(nim, tmp_path, capsys):
    assert cli_main(full(tmp_path, "--estimate")) == 0
    out = capsys.readouterr().out
    assert "| game | pairing | CPU s per game | games planned | CPU hours (est.) |" in out
    assert f"| `{NIM}` | `tests.toy_agents:half` vs `heuristic` |" in out
    assert "| total | | | 18 |" in out  # 3 pairings, 3 deals, 2 seatings
    assert not (tmp_path / "result.json").exists()
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 6  # the first deal of each pairing
    assert cli_main(full(tmp_path)) == 0
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["cost"]["games_reused"] == 6 and result["cost"]["games_played"] == 12
    section = result["ids"][NIM]
    assert {(p["focal"], p["other"]): p["games"] for p in section["pairs"]} == {
        ("heuristic", "random"): 6,
        ("tests.toy_agents:half", "random"): 6,
        ("tests.toy_agents:half", "heuristic"): 6,
    }
    assert section["normalized"]["heuristic"]["value"] == pytest.approx(1.0)
    assert result["deals_for_slow"] is None and not any(r["reduced"] for r in section["pairing_cost"])
    assert "Every pairing plays every deal" in (tmp_path / "result.md").read_text()
    assert result.get("agent") is None  # a full ladder rates every rung; the leaderboard reads it all the same
    assert cli_main(["leaderboard", str(tmp_path / "result.json"), "--out", str(tmp_path / "board.md")]) == 0
    board = (tmp_path / "board.md").read_text()
    assert f"## `{NIM}`, 2 players" in board and "| tests.toy_agents:half |" in board


def test_slow_pairings_play_fewer_deals_only_when_asked_and_say_so(nim, tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "SLOW_GAME_CPU_S", 0.005)  # a game of the slow agent costs 0.01 s and more
    rungs = ["random", "heuristic", SLOW]
    plain = bm.full_ladder([NIM], 4, tmp_path, rungs=rungs, bootstrap=10)
    assert {p["games"] for p in plain["ids"][NIM]["pairs"]} == {8}
    assert plain["cost"]["games_played"] == 24 == len((tmp_path / "games.jsonl").read_text().splitlines())
    result = bm.full_ladder([NIM], 4, tmp_path, rungs=rungs, deals_for_slow=2, bootstrap=10, command="cmd")
    assert result["deals_for_slow"] == 2 and result["slow_game_cpu_s"] == 0.005
    assert result["cost"]["games_played"] == 0  # every game of the smaller run is one of the first run's
    cost = {(r["focal"], r["other"]): r for r in result["ids"][NIM]["pairing_cost"]}
    assert {pair: (r["deals"], r["reduced"]) for pair, r in cost.items()} == {
        ("heuristic", "random"): (4, False),
        (SLOW, "random"): (2, True),
        (SLOW, "heuristic"): (2, True),
    }
    assert all(r["cpu_s_per_game"] > 0.005 for r in cost.values() if r["reduced"])
    saved = json.loads((tmp_path / "result.json").read_text())
    assert saved["deals_for_slow"] == 2 and saved["ids"][NIM]["pairing_cost"] == result["ids"][NIM]["pairing_cost"]
    markdown = (tmp_path / "result.md").read_text()
    assert "(`--deals-for-slow 2`)" in markdown
    assert f"`{SLOW}` vs `random` (2 deals: over 0.005 CPU s a game)" in markdown
    assert "`heuristic` vs `random` |" in markdown


def test_a_ladder_of_more_players_has_random_focal_against_the_heuristic(nim, tmp_path):
    result = bm.full_ladder([NIM], 1, num_players=3, rungs=["random", "heuristic", "tests.toy_agents:half"], bootstrap=10)
    section = result["ids"][NIM]
    assert ("random", "heuristic") in {(p["focal"], p["other"]) for p in section["pairs"]}
    assert section["normalized"]["random"]["value"] == 0.0
    assert np.isfinite(section["normalized"]["tests.toy_agents:half"]["value"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["heuristic", "--estimate"], "--estimate is an option of --full-ladder"),
        (["heuristic", "--deals-for-slow", "50"], "--deals-for-slow is an option of --full-ladder"),
        (["heuristic", "--full-ladder"], "give no agent"),
        (["--full-ladder", "--games", "10"], "--games is not an option of --full-ladder"),
        (["--full-ladder", "--deals", "0"], "--deals must be at least 1"),
        (["--full-ladder", "--deals", "50", "--deals-for-slow", "50"], "--deals-for-slow must be at least 1 and below"),
        (["--full-ladder", "--ids", "toy_nim_missing-v0"], "toy_nim_missing-v0"),
    ],
)
def test_full_ladder_mistakes_are_one_line_and_exit_2(args, message, tmp_path, capsys):
    assert cli_main(["benchmark", *args, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


def test_an_id_without_a_best_recipe_needs_its_rungs(nim, tmp_path, capsys):
    assert cli_main(["benchmark", "--full-ladder", "--ids", NIM, "--out", str(tmp_path)]) == 2
    assert "no full ladder" in capsys.readouterr().err


def test_one_time_costs_are_paid_before_the_first_deal_is_timed(nim, tmp_path, monkeypatch):
    monkeypatch.setitem(WARM, "done", False)
    monkeypatch.setattr(protocol, "SLOW_GAME_CPU_S", 0.01)  # the first game would cost 0.05 s with the cold start
    rungs = ["random", "heuristic", "tests.test_full_ladder:cold_start"]
    estimate = bm.full_ladder([NIM], 4, tmp_path, rungs=rungs, deals_for_slow=2, estimate=True)
    assert WARM["done"]
    rows = estimate["estimate"][NIM]
    assert all(r["cpu_s_per_game"] < 0.01 and not r["reduced"] for r in rows)
