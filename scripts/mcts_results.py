"""Reproduce the "MCTS per game" tables of docs/results.md: MCTS at two budgets against the heuristic and random.

    python scripts/mcts_results.py --out runs/mcts_results                 # every id of PLAN, one JSON each
    python scripts/mcts_results.py --out runs/mcts_results --ids koplus-v0 --games 40
    python scripts/mcts_results.py --table runs/mcts_results               # the Markdown tables from the JSONs

For each game, each budget of ``PLAN`` plays ``gameshelf evaluate``'s games against the heuristic and
against random (``evaluate(..., first_only=True)``: two players, seats alternating; more players, one seat
against a field of copies of the opponent, the seat rotating), and the heuristic plays random once. Every
run uses seed 0, so a budget meets the same deals against each opponent as the other budget does. The
ratings pool all games of a game id (Elo for two players, random = 1000; OpenSkill ordinals for more). The
time per move is the mean wall time of the agent's ``act`` over all its decisions in these games (those
with one legal move included, which it plays without searching); it depends on the machine's load.

``gameshelf evaluate <id> mcts:N heuristic random --games G`` gives the same pairings plus the ones
between heuristic and random in both roles (with more players, a field of MCTS copies too, which costs
several times as much).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf.training.agents import make_agent
from gameshelf.training.benchmark.ratings import elo_ratings, openskill_ratings
from gameshelf.training.evaluate import evaluate, ranks_of, wilson

PLAN: dict[str, tuple[tuple[str, ...], int]] = {
    # id: (MCTS budgets, games per pairing). Budgets by simulations where a simulation is cheap; a time
    # per move where random rollouts are long (hundreds of decisions), so that the run stays small.
    "level_x-v0": (("mcts:10", "mcts:50"), 10),
    "koplus-v0": (("mcts:10", "mcts:50"), 20),
    "olenon-v0": (("mcts:10", "mcts:50"), 12),
    "cargo_empire-v0": (("mcts:10", "mcts:50"), 10),
    "matchstick_tycoon-v0": (("mcts:10", "mcts:50"), 8),
    "range_ta_ludotheque-v0": (("mcts:10", "mcts:50"), 20),
    "amoriax-v0": (("mcts:0.02s", "mcts:0.1s"), 4),
    "tsukuru_ten_ten-v0": (("mcts:0.02s", "mcts:0.1s"), 4),
    "paiko-v0": (("mcts:0.02s", "mcts:0.1s"), 4),
    "paiko-v1": (("mcts:0.02s", "mcts:0.1s"), 4),
    "catsle_builders-v0": (("mcts:0.02s", "mcts:0.1s"), 4),
}


class Timed:
    """An agent whose ``act`` calls are timed (same name, same moves)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = agent.name
        self.seconds = 0.0
        self.moves = 0

    def act(self, state: Any, seat: int, rng: np.random.Generator) -> int:
        start = time.perf_counter()
        action = self.agent.act(state, seat, rng)
        self.seconds += time.perf_counter() - start
        self.moves += 1
        return action


def run_game(env_id: str, budgets: Sequence[str], games: int) -> dict[str, Any]:
    """Play the plan of one id; the summary that ``--table`` renders."""
    start = time.perf_counter()
    names = [*budgets, "heuristic", "random"]
    rows: list[dict[str, Any]] = []
    duels: list[tuple[int, int, float]] = []
    field_games: list[tuple[list[int], list[float]]] = []
    timing: dict[str, dict[str, float]] = {}
    runs = [[Timed(make_agent(b, env_id)), "heuristic", "random"] for b in budgets] + [["heuristic", "random"]]
    num_players = 2
    for lineup in runs:
        result = evaluate(env_id, lineup, games=games, seed=0, first_only=True)
        num_players = result.num_players
        index = [names.index(a) for a in result.agents]
        for pair in result.pairs:
            if pair.agent != result.agents[0]:
                continue
            low, high = wilson(pair.wins, pair.games)
            rows.append(
                {
                    "agent": pair.agent,
                    "opponent": pair.opponent,
                    "games": pair.games,
                    "wins": pair.wins,
                    "draws": pair.draws,
                    "losses": pair.losses,
                    "win_ci": [low, high],
                    "mean_rank": pair.mean_rank,
                    "rank_ci": pair.rank_ci,
                    "by_seat": {str(s): list(t) for s, t in pair.by_seat.items()},
                }
            )
        for g in result.games:
            seats = [index[a] for a in g.lineup]
            if num_players == 2:
                r = np.asarray(g.returns)
                duels.append((seats[0], seats[1], 1.0 if r[0] > r[1] else 0.5 if r[0] == r[1] else 0.0))
            else:
                field_games.append((seats, [float(x) for x in ranks_of(np.asarray(g.returns))]))
        timed = lineup[0]
        if isinstance(timed, Timed):
            timing[timed.name] = {"seconds_per_move": timed.seconds / max(1, timed.moves), "moves": timed.moves}
    ratings = elo_ratings(names, duels) if num_players == 2 else openskill_ratings(names, field_games, seed=0)
    return {
        "env_id": env_id,
        "num_players": num_players,
        "games_per_pairing": games,
        "rows": rows,
        "ratings": {k: [v.value, v.uncertainty] for k, v in ratings.items()},
        "rating_kind": "elo" if num_players == 2 else "openskill",
        "timing": timing,
        "wall_s": time.perf_counter() - start,
    }


def table(folder: Path) -> list[str]:
    """Markdown: one line per game and agent (win rate with its 95% Wilson interval against the heuristic
    and against random, and with more players the mean rank; rating; seconds per move)."""
    lines = [
        "| game | agent | vs heuristic: win [95% CI] | vs random: win [95% CI] | rating | s/move |",
        "|---|---|---|---|---|---|",
    ]
    for env_id in PLAN:
        path = folder / f"{env_id}.json"
        if not path.is_file():
            continue
        data = json.loads(path.read_text())
        rows = {(r["agent"], r["opponent"]): r for r in data["rows"]}
        budgets = [k for k in data["ratings"] if k not in ("heuristic", "random")]
        for agent in [*budgets, "heuristic"]:
            cells = []
            for opponent in ("heuristic", "random"):
                r = rows.get((agent, opponent))
                if r is None:
                    cells.append("")
                    continue
                low, high = r["win_ci"]
                cell = f"{100 * r['wins'] / r['games']:.0f}% [{100 * low:.0f}, {100 * high:.0f}] of {r['games']}"
                if data["num_players"] > 2:
                    cell += f", rank {r['mean_rank']:.2f} ± {r['rank_ci']:.2f}"
                cells.append(cell)
            value, spread = data["ratings"][agent]
            rating = f"{value:.0f} ± {spread:.0f}" if data["rating_kind"] == "elo" else f"{value:.1f}"
            per_move = data["timing"].get(agent, {}).get("seconds_per_move")
            timing = f"{per_move:.3f}" if per_move is not None else "-"
            lines.append(f"| `{env_id}` ({data['num_players']}p) | {agent} | {cells[0]} | {cells[1]} | {rating} | {timing} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/mcts_results"), help="folder of the per-id JSON files")
    parser.add_argument("--ids", nargs="*", default=None, help="ids to play (default: every id of PLAN)")
    parser.add_argument("--games", type=int, default=None, help="games per pairing (default: PLAN's, per id)")
    parser.add_argument("--table", type=Path, default=None, metavar="FOLDER", help="print the Markdown table of FOLDER and stop")
    args = parser.parse_args(argv)
    if args.table is not None:
        print("\n".join(table(args.table)))
        return 0
    unknown = [i for i in args.ids or () if i not in PLAN]
    if unknown:
        parser.error(f"no plan for {unknown}; ids: {', '.join(PLAN)}")
    args.out.mkdir(parents=True, exist_ok=True)
    for env_id in args.ids or PLAN:
        budgets, games = PLAN[env_id]
        summary = run_game(env_id, budgets, args.games or games)
        (args.out / f"{env_id}.json").write_text(json.dumps(summary, indent=1))
        print(f"{env_id}: {summary['wall_s']:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
