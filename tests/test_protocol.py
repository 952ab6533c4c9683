"""The benchmark protocol: deal seeds, seat assignments, paired chance and repeatable games."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.training.benchmark import protocol
from gameshelf.training.benchmark.protocol import GameTask, PairedEpisode
from tests.toy_nim import NimGame

CHANCE_NIM = "toy_nim_chance-v0"


@pytest.fixture
def chance_nim():
    envs.register(CHANCE_NIM, "tests.toy_nim:NimGame", heuristic="tests.toy_nim:PerfectNim", kwargs={"chance": True, "pile": 9})
    yield CHANCE_NIM
    envs.unregister(CHANCE_NIM)


def without_timing(record):
    return {k: v for k, v in record.items() if k not in ("cpu_s", "act_cpu_s")}


def test_deal_seeds_are_pinned_by_the_protocol_version():
    # changing any of these changes every result: that is a new protocol version
    assert protocol.PROTOCOL == "gameshelf-protocol/2"  # version 2 plays the games of version 1
    assert protocol.deal_seed("level_x-v0", 2, 0) == 2670188012546614278
    assert protocol.deal_seed("level_x-v0", 2, 1) == 8292327628235106273
    seeds = {protocol.deal_seed(env_id, n, k) for env_id in ("level_x-v0", "olenon-v0") for n in (2, 4) for k in range(50)}
    assert len(seeds) == 200


def test_seat_assignments_play_every_seat_equally():
    assert protocol.seat_assignments(2) == [(0, 1), (1, 0)]
    for n in (3, 4, 5):
        table = np.array(protocol.seat_assignments(n))
        assert table.shape == (n, n)
        assert (table == 0).sum(axis=0).tolist() == [1] * n  # the focal agent sits in every seat once
        assert (table == 0).sum(axis=1).tolist() == [1] * n  # one focal seat per game
    with pytest.raises(ValueError, match="at least 2 players"):
        protocol.seat_assignments(1)


def test_plan_pairs_and_deals():
    tasks = protocol.plan("olenon-v0", ["random", "heuristic"], games=10)
    assert protocol.players_for("olenon-v0") == 4
    # 4 players: both orders of the pair, 3 deals (ceil(10 / 4)) of 4 rotations each
    assert {(t.focal, t.other) for t in tasks} == {("random", "heuristic"), ("heuristic", "random")}
    assert len(tasks) == 2 * 3 * 4
    assert [t.lineup for t in tasks[:4]] == [
        ("random", "heuristic", "heuristic", "heuristic"),
        ("heuristic", "random", "heuristic", "heuristic"),
        ("heuristic", "heuristic", "random", "heuristic"),
        ("heuristic", "heuristic", "heuristic", "random"),
    ]
    two = protocol.plan("level_x-v0", ["random", "heuristic", "mcts:50"], games=5)
    assert {(t.focal, t.other) for t in two} == {("random", "heuristic"), ("random", "mcts:50"), ("heuristic", "mcts:50")}
    assert len(two) == 3 * 3 * 2
    # the deal seed does not depend on the pairing
    assert len({t.seed for t in two if t.deal == 1}) == 1


def test_paired_deals_replay_the_first_games_chance_at_every_seating(chance_nim):
    records = protocol.play_deal(chance_nim, "heuristic", "random", deal=3)
    first = records[0]
    assert first["replayed"] == 0 and first["diverged_at"] is None and len(first["chance"]) > 0
    for r in records[1:]:
        script = first["chance"]
        assert r["replayed"] > 0
        assert r["chance"][: r["replayed"]] == script[: r["replayed"]]
        if r["divergence"] is None:  # followed the record to its end: a prefix of it
            assert r["chance"] == script[: len(r["chance"])]
        elif r["divergence"] == "ran_out":
            assert r["replayed"] == len(script) == r["diverged_at"]


def test_paired_deals_on_a_real_game_share_the_deal():
    records = protocol.play_deal("olenon-v0", "heuristic", "random", deal=0)
    first = records[0]["chance"]
    assert len(records) == 4
    for r in records[1:]:
        assert r["replayed"] >= 36  # the whole deal of the cards, at least, reached every seating
        assert r["chance"][: r["replayed"]] == first[: r["replayed"]]


def test_an_impossible_recorded_outcome_switches_to_the_fallback_generator():
    game = NimGame(chance=True, pile=5)

    def run(script):
        episode = PairedEpisode(game, np.random.default_rng(1), script, np.random.default_rng(7))
        episode.reset(np.random.default_rng(0))
        while not episode.done:
            episode.step(episode.require_state().legal_actions()[0])
        return episode

    episode = run([1, 0, 5, 1, 1])  # 5 stones cannot be added: the record is left at its third outcome
    assert episode.chance[:2] == [1, 0]
    assert episode.replayed == 2 and episode.diverged_at == 2 and episode.divergence == "impossible"
    again = run([1, 0, 5, 1, 1])
    assert again.chance == episode.chance  # the fallback generator is seeded: the game repeats
    short = run([1])
    assert short.divergence == "ran_out" and short.diverged_at == 1


def test_unpaired_games_draw_their_own_chance(chance_nim):
    records = protocol.play_deal(chance_nim, "random", "random", deal=0, paired=False)
    assert all(r["replayed"] == 0 and r["diverged_at"] is None for r in records)
    assert records[0]["chance"] != records[1]["chance"]


def test_a_game_repeats_exactly():
    for spec in ("random", "mcts:10"):
        task = GameTask("level_x-v0", 2, spec, "heuristic", deal=2, assignment=0)
        assert without_timing(protocol.play_task(task)) == without_timing(protocol.play_task(task))


def test_time_budgets_and_unknown_agents_are_refused():
    with pytest.raises(ValueError, match="never time budgets"):
        protocol.check_spec("mcts:0.5s")
    with pytest.raises(ValueError, match="unknown agent"):
        protocol.build_agent("nosuchagent", "level_x-v0")
    with pytest.raises(ValueError, match="cannot import"):
        protocol.build_agent("nosuch_module_xyz:factory", "level_x-v0")
    with pytest.raises(ValueError, match="no callable"):
        protocol.build_agent("tests.toy_agents:missing", "level_x-v0")
    with pytest.raises(ValueError, match="no act"):
        protocol.build_agent("tests.toy_agents:not_an_agent", "level_x-v0")
    assert protocol.build_agent("tests.toy_agents:perfect", "level_x-v0").name == "perfect"


def test_the_score_of_a_rank():
    assert protocol.pair_scores([1, -1], 0) == 1.0
    assert protocol.pair_scores([0, 0], 1) == 0.5
    assert protocol.pair_scores([1, -1, 1, -1], 0) == pytest.approx((0.5 + 1 + 1) / 3)  # partners tie
    assert protocol.pair_scores([1, 0, -1], 1) == 0.5


def test_the_reproducing_command_leaves_out_where_and_how_fast():
    argv = ["heuristic", "--ids", "a-v0", "--out", "x", "--workers=3", "--reuse", "a.jsonl", "b.jsonl", "--quiet", "--games", "8"]
    assert protocol.reproduce_command("gameshelf benchmark", argv) == "gameshelf benchmark heuristic --ids a-v0 --games 8"
