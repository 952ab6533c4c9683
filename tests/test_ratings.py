"""Elo (Bradley–Terry) ratings against closed forms, and the anchor the tables name."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gameshelf.training.benchmark.ratings import elo_anchor, elo_ratings
from gameshelf.training.evaluate import evaluate
from tests.toy_nim import NIM, PerfectNim, register_nim, unregister_nim


def closed_form(wins: int, draws: int, losses: int) -> float:
    """Elo difference of a two-agent record: 400 log10(p / (1 - p)), p the score rate with the one virtual draw."""
    n = wins + draws + losses
    p = (wins + 0.5 * draws + 0.5) / (n + 1)
    return 400 * math.log10(p / (1 - p))


def record(wins: int, draws: int, losses: int) -> list[tuple[int, int, float]]:
    return [(0, 1, 1.0)] * wins + [(0, 1, 0.5)] * draws + [(0, 1, 0.0)] * losses


@pytest.mark.parametrize(
    "wins, draws, losses",
    [(67, 0, 33), (33, 0, 67), (50, 0, 50), (30, 10, 0), (1, 0, 0), (0, 0, 20), (200, 0, 0), (7, 5, 3), (0, 12, 0)],
)
def test_two_agents_match_the_closed_form_centred_on_the_mean(wins, draws, losses):
    r = elo_ratings(["a", "b"], record(wins, draws, losses))
    diff = closed_form(wins, draws, losses)
    assert r["a"].value - r["b"].value == pytest.approx(diff, abs=1e-6)
    assert (r["a"].value + r["b"].value) / 2 == pytest.approx(1000.0)
    # the same games listed from the other side, or in another order, give the same fit
    mirrored = elo_ratings(["b", "a"], [(0, 1, 1.0 - s) for _, _, s in reversed(record(wins, draws, losses))])
    assert mirrored["a"].value == pytest.approx(r["a"].value, abs=1e-6)


def test_the_reported_case_67_percent():
    r = elo_ratings(["a", "b"], record(67, 0, 33))
    assert r["a"].value == pytest.approx(1061, abs=1.5) and r["b"].value == pytest.approx(939, abs=1.5)
    # the virtual draw aside, the plain closed form: 400 log10(0.67 / 0.33) = 123 points
    assert r["a"].value - r["b"].value == pytest.approx(400 * math.log10(0.67 / 0.33), abs=2)


def test_two_agents_anchored_on_random():
    r = elo_ratings(["model", "random"], record(67, 0, 33))
    assert r["random"].value == pytest.approx(1000.0) and r["random"].uncertainty == 0.0
    assert r["model"].value == pytest.approx(1000 + closed_form(67, 0, 33), abs=1e-6)
    # the uncertainty of the difference: 1.96 / sqrt(n p (1 - p)) in natural-log units
    p = 67.5 / 101
    assert r["model"].uncertainty == pytest.approx(1.96 * 400 / math.log(10) / math.sqrt(101 * p * (1 - p)), rel=1e-3)
    swapped = elo_ratings(["random", "model"], [(0, 1, 1.0 - s) for _, _, s in record(67, 0, 33)])
    assert swapped["model"].value == pytest.approx(r["model"].value, abs=1e-6)


def test_draws_are_half_a_win_and_all_draws_tie():
    r = elo_ratings(["a", "b"], record(0, 40, 0))
    assert r["a"].value == pytest.approx(1000.0) and r["b"].value == pytest.approx(1000.0)
    half = elo_ratings(["a", "b"], record(10, 20, 10))
    assert half["a"].value == pytest.approx(half["b"].value)
    # 10 wins and 20 draws is the score of 20 wins and 10 losses
    assert elo_ratings(["a", "b"], record(10, 20, 0))["a"].value == pytest.approx(
        elo_ratings(["a", "b"], record(20, 0, 10))["a"].value
    )


def test_three_agents_fit_the_likelihood_and_recover_consistent_ratings():
    true = {"a": 250.0, "b": 100.0, "random": 0.0}
    names = list(true)
    games: list[tuple[int, int, float]] = []
    for i in range(3):
        for j in range(i + 1, 3):
            p = 1 / (1 + 10 ** ((true[names[j]] - true[names[i]]) / 400))
            wins = round(4000 * p)
            games += [(i, j, 1.0)] * wins + [(i, j, 0.0)] * (4000 - wins)
    r = elo_ratings(names, games)
    assert r["random"].value == pytest.approx(1000.0)
    for name in names:
        assert r[name].value - 1000 == pytest.approx(true[name], abs=2)
    # maximum likelihood: every agent's expected score equals its actual score (virtual draws included)
    wins_m, played = np.zeros((3, 3)), np.zeros((3, 3))
    for i, j, s in games:
        wins_m[i, j] += s
        wins_m[j, i] += 1 - s
        played[i, j] += 1
        played[j, i] += 1
    wins_m += 0.5 * (played > 0)
    played += played > 0
    elo = np.array([r[n].value for n in names])
    expected = played / (1 + 10 ** ((elo[None, :] - elo[:, None]) / 400))
    assert expected.sum(axis=1) == pytest.approx(wins_m.sum(axis=1), abs=1e-6)
    # a chain: a only met b, b only met random; each link is its own closed form
    chain = elo_ratings(["a", "b", "random"], [(0, 1, 1.0)] * 30 + [(0, 1, 0.0)] * 10 + [(1, 2, 1.0)] * 30 + [(1, 2, 0.0)] * 10)
    assert chain["b"].value - chain["random"].value == pytest.approx(closed_form(30, 0, 10), abs=1e-6)
    assert chain["a"].value - chain["b"].value == pytest.approx(closed_form(30, 0, 10), abs=1e-6)
    assert chain["random"].uncertainty == 0 < chain["b"].uncertainty < chain["a"].uncertainty


def test_agents_without_games_are_unknown():
    r = elo_ratings(["a", "b", "c"], record(5, 0, 5))
    assert r["c"].value == pytest.approx(1000.0) and math.isinf(r["c"].uncertainty)
    assert elo_ratings([], []) == {}


def test_anchor_is_named_as_it_is():
    assert elo_anchor(["model", "random"]) == "random = 1000"
    assert elo_anchor(["model", "heuristic"]) == "mean = 1000"
    assert elo_anchor(["a", "b"], anchor=None) == "mean = 1000"


@pytest.fixture
def nim():
    register_nim()
    yield NIM
    unregister_nim()


def test_table_header_names_the_anchor(nim):
    without_random = evaluate(nim, [PerfectNim(), PerfectNim()], games=4, seed=0)
    table = without_random.table()
    assert "random = 1000" not in table and "mean = 1000" in table
    values = [r.value for r in without_random.ratings.values()]
    assert np.mean(values) == pytest.approx(1000.0)
    with_random = evaluate(nim, [PerfectNim(), "random"], games=4, seed=0)
    assert "random = 1000" in with_random.table() and with_random.ratings["random"].value == pytest.approx(1000.0)
    assert with_random.to_dict()["rating_anchor"] == "random = 1000"
