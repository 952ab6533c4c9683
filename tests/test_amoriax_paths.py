"""The benchmark protocol (``protocol.play_game``) and ``gameshelf evaluate`` (``evaluate.play``) measure the
same thing: handed the same generators, they play the same games of Amoriax, move for move, from either seat,
and score a game alike. What differs between them is only which seeds they draw (docs/protocol.md,
"The protocol and gameshelf evaluate")."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.training.agents import make_agent
from gameshelf.training.benchmark import protocol
from gameshelf.training.evaluate import evaluate, outcome, play

ENV = "amoriax-v0"
SEARCH = "mcts:8:reference"
"""A cheap agent of the kind compared (PUCT with the shipped network as prior, random rollouts)."""


class Pinned:
    """``inner`` moving with one given generator, whatever generator the caller hands it; every move is logged."""

    def __init__(self, inner, rng: np.random.Generator, log: list[tuple[int, int]]) -> None:
        self.inner, self.rng, self.log = inner, rng, log
        self.name = inner.name

    def act(self, state, seat: int, rng: np.random.Generator) -> int:
        action = int(self.inner.act(state, seat, self.rng))
        self.log.append((seat, action))
        return action


class Recorder:
    """A random mover that keeps the generator it is handed and the state it was in at its first move."""

    name = "random"

    def __init__(self) -> None:
        self.rng: np.random.Generator | None = None
        self.first_state: dict | None = None

    def act(self, state, seat: int, rng: np.random.Generator) -> int:
        if self.rng is None:
            self.rng, self.first_state = rng, rng.bit_generator.state
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])


def pinned_lineup(lineup: tuple[str, ...], seed: int) -> tuple[list[Pinned], list[tuple[int, int]]]:
    """Fresh agents for ``lineup``, every seat drawing from one generator seeded by ``seed``, and their move log."""
    rng, log = np.random.default_rng(seed), []
    return [Pinned(make_agent(spec, ENV), rng, log) for spec in lineup], log


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("assignment", [0, 1])
def test_both_paths_play_the_same_game_from_the_same_generator(seed, assignment):
    task = protocol.GameTask(ENV, 2, SEARCH, "heuristic", deal=seed, assignment=assignment)
    agents, protocol_moves = pinned_lineup(task.lineup, seed)
    record = protocol.play_game(task, script=[], agents=agents, code={})
    agents, evaluate_moves = pinned_lineup(task.lineup, seed)
    returns, _, length, truncated = play(envs.make_game(ENV, num_players=2), agents, np.random.default_rng(99))
    assert protocol_moves == evaluate_moves
    assert {seat for seat, _ in protocol_moves} == {0, 1}  # both seats moved
    assert record["returns"] == returns.tolist() and not truncated
    assert record["decisions"] == length == len(protocol_moves)
    focal_seat = task.seats.index(0)
    assert record["focal_score"] == {"win": 1.0, "draw": 0.5, "loss": 0.0}[outcome(returns, focal_seat)]


def test_the_protocol_hands_each_seat_its_own_stream_of_the_deal():
    task = protocol.GameTask(ENV, 2, "random", "random", deal=3, assignment=1)
    agents = [Recorder(), Recorder()]
    protocol.play_game(task, script=[], agents=agents, code={})
    for seat, agent in enumerate(agents):
        assert agent.first_state == protocol.stream(task.seed, protocol.SEED_SEAT, seat).bit_generator.state
    assert agents[0].rng is not agents[1].rng


def test_evaluate_hands_every_seat_the_generator_of_the_game():
    agents = [Recorder(), Recorder()]
    result = evaluate(ENV, agents, games=1, seed=7)
    assert agents[0].first_state == np.random.default_rng(result.games[0].seed).bit_generator.state
    assert agents[0].rng is agents[1].rng


def test_evaluate_reusing_its_agents_plays_the_games_fresh_agents_play():
    result = evaluate(ENV, [SEARCH, "heuristic"], games=4, seed=5)
    game = envs.make_game(ENV, num_players=2)
    for g in result.games:
        fresh = [make_agent([SEARCH, "heuristic"][k], ENV) for k in g.lineup]
        returns, _, length, _ = play(game, fresh, np.random.default_rng(g.seed))
        assert (returns.tolist(), length) == (g.returns, g.length)
    assert [g.lineup for g in result.games] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert result.games[0].seed == result.games[1].seed != result.games[2].seed  # a deal is played both ways


@pytest.mark.parametrize(
    ("returns", "expected"), [([1.0, -1.0], (1.0, 0.0)), ([-1.0, 1.0], (0.0, 1.0)), ([0.0, 0.0], (0.5, 0.5))]
)
def test_a_two_player_game_scores_alike_on_both_paths(returns, expected):
    points = {"win": 1.0, "draw": 0.5, "loss": 0.0}
    for seat in (0, 1):
        assert protocol.pair_scores(returns, seat) == points[outcome(np.asarray(returns), seat)] == expected[seat]
