"""Play seeded games between agents and print win/draw/loss per agent and seat.

    python -m gameshelf.training.match level_x-v0 heuristic random --games 200
    python -m gameshelf.training.match koplus-v0 heuristic random random --players 3

Seats rotate from game to game so every agent plays every seat. A "win" is a best final return that not
every seat shares (partners of a winning team both win), a "draw" is a game where all returns are equal.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from gameshelf import envs
from gameshelf.envs.core.game import CHANCE, Game, State
from gameshelf.training.agents import Agent, make_agent, observed_state


def play_game(game: Game, agents: Sequence[Agent], rng: np.random.Generator) -> tuple[State, int]:
    """Play one game; ``agents[seat]`` acts for each seat, seeing only its seat's view; chance from ``rng``.

    Stops at the end or after ``max_game_length`` decisions (a truncated game). Returns the final state and
    the number of decisions.
    """
    state = game.new_initial_state()
    moves = 0
    limit = game.info.max_game_length
    while not state.is_terminal():
        seat = state.current_player()
        if seat == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        if moves >= limit:
            break
        state.apply_action(int(agents[seat].act(observed_state(state, seat, rng), seat, rng)))
        moves += 1
    return state, moves


def outcome(returns: np.ndarray, seat: int) -> str:
    """``"win"``, ``"draw"`` or ``"loss"`` of one seat from the final returns."""
    r = np.asarray(returns, dtype=np.float64)
    if np.allclose(r, r[0]):
        return "draw"
    return "win" if r[seat] >= r.max() - 1e-9 else "loss"


@dataclass
class Tally:
    win: int = 0
    draw: int = 0
    loss: int = 0
    total_return: float = 0.0
    by_seat: dict[int, list[int]] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.win + self.draw + self.loss

    def add(self, seat: int, result: str, ret: float) -> None:
        setattr(self, result, getattr(self, result) + 1)
        self.total_return += ret
        row = self.by_seat.setdefault(seat, [0, 0, 0])
        row[("win", "draw", "loss").index(result)] += 1


def run_match(
    env_id: str, agent_names: Sequence[str], games: int, seed: int = 0, num_players: int | None = None
) -> dict[str, Tally]:
    """Play ``games`` seeded games with rotating seats; one tally per distinct agent slot (``name#i``)."""
    n = num_players or len(agent_names)
    if len(agent_names) != n:
        raise ValueError(f"{env_id} with {n} players needs {n} agents, got {len(agent_names)}")
    game = envs.make_game(env_id, num_players=n)
    agents = [make_agent(name, env_id) for name in agent_names]
    labels = [f"{name}#{i}" if agent_names.count(name) > 1 else name for i, name in enumerate(agent_names)]
    tallies = {label: Tally() for label in labels}
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        shift = g % n
        by_seat = [agents[(s + shift) % n] for s in range(n)]
        final, _ = play_game(game, by_seat, rng)
        returns = final.returns()
        for s in range(n):
            label = labels[(s + shift) % n]
            tallies[label].add(s, outcome(returns, s), float(returns[s]))
    return tallies


def format_table(tallies: dict[str, Tally]) -> str:
    lines = [f"{'agent':<14}{'games':>6}{'win':>6}{'draw':>6}{'loss':>6}{'win%':>7}{'mean ret':>10}   per seat (w/d/l)"]
    for label, t in tallies.items():
        seats = "  ".join(f"s{s}:{w}/{d}/{lo}" for s, (w, d, lo) in sorted(t.by_seat.items()))
        pct = 100.0 * t.win / max(t.games, 1)
        mean = t.total_return / max(t.games, 1)
        lines.append(f"{label:<14}{t.games:>6}{t.win:>6}{t.draw:>6}{t.loss:>6}{pct:>6.1f}%{mean:>10.3f}   {seats}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gameshelf match", description=__doc__.splitlines()[0])
    parser.add_argument("env_id", help=f"one of: {', '.join(envs.registered_ids())}")
    parser.add_argument("agents", nargs="+", help="random | heuristic | model:PATH, one per seat")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        envs.spec(args.env_id)
        tallies = run_match(args.env_id, args.agents, args.games, args.seed)
    except (KeyError, ValueError) as err:
        print(f"error: {err.args[0] if err.args else err}", file=sys.stderr)
        return 2
    print(f"{args.env_id}: {args.games} games, seed {args.seed}, seats rotated")
    print(format_table(tallies))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
