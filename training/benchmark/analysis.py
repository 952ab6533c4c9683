"""``gameshelf analyze ID``: what a game is like to play and to learn, measured under the protocol.

    gameshelf analyze level_x-v0 --games 200                  # runs/analysis/<time>/level_x.md (+ .png, .json)
    gameshelf analyze koplus-v0 --games 100 --with-mcts       # mcts:50 self-play and rung too
    gameshelf analyze level_x-v0 --out docs/analysis          # the shipped page, docs/analysis/level_x.md
    gameshelf analyze --summary --out docs/analysis           # docs/analysis/README.md from the .json files

Self-play by random and by the heuristic (and ``mcts:50`` with ``--with-mcts``) on the protocol's deals
``0..N-1`` (``training.benchmark.protocol``: deal seeds, seat generators), every seat the same agent; then the
ladder's first rungs against each other under the protocol (paired deals, every seat assignment). It
reports:

* decisions and chance events per game, and the game length distribution;
* the branching factor: legal actions at each decision (mean, median, max; forced moves);
* observation and action sizes;
* seat advantage: each seat's win rate and mean score of rank (1 best, 0 worst) in self-play: with the
  same agent everywhere every seat should score 1/2, so the gap is what sitting there is worth;
* the draw rate (every return equal) and games cut off at the length limit;
* how decisive skill is: the score of each rung against the one below (heuristic vs random, ...);
* the CPU cost of MCTS per simulation at positions of heuristic games, and what a game would cost at
  each ladder budget (a measurement of the machine it ran on, unlike everything else in the file).

It writes ``OUT/<game>.md``, ``OUT/<game>.json`` and, when matplotlib is installed, ``OUT/<game>.png``,
and rewrites ``OUT/README.md``: one table of every game analyzed there. ``OUT`` is ``--out``, by default a
new folder ``runs/analysis/<time>``.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf import envs
from gameshelf.envs.core.episode import observed_state
from gameshelf.envs.core.game import CHANCE, TERMINAL, State
from gameshelf.training.agents import Agent
from gameshelf.training.benchmark import protocol
from gameshelf.training.benchmark.ladder import GameStore, Progress, RunCode, collect, fmt, run_folder, run_games, summarize
from gameshelf.training.benchmark.protocol import reproduce_command
from gameshelf.training.cli_util import ArgumentParser, UserError, check_env_id, check_writable_dir, run, show_progress
from gameshelf.training.evaluate import Z95, outcome, wilson

MCTS_BUDGET = 50
"""The MCTS budget of ``--with-mcts`` (self-play and the ladder's third rung)."""


class Counting:
    """An agent that records how many legal actions it had at each of its decisions."""

    def __init__(self, inner: Agent, log: list[tuple[int, int]]) -> None:
        self.inner, self.log, self.name = inner, log, getattr(inner, "name", "agent")

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        self.log.append((len(state.history), len(state.legal_actions())))
        return self.inner.act(state, seat, rng)


def self_play(env_id: str, spec: str, games: int, num_players: int, bar: Progress | None = None) -> list[dict[str, Any]]:
    """``games`` games of ``spec`` in every seat on the protocol's deals 0..games-1, each with the legal-action
    counts of its decisions (``branching``, in order)."""
    out = []
    code = RunCode()  # the code digests, read once
    for deal in range(games):
        task = protocol.GameTask(env_id, num_players, spec, spec, deal, 0)
        log: list[tuple[int, int]] = []
        agents = [Counting(protocol.build_agent(spec, env_id), log) for _ in range(num_players)]
        record = protocol.play_game(task, agents=agents, code=code(task))
        record["branching"] = [count for _, count in sorted(log)]
        out.append(record)
        if bar is not None:
            bar.update(env_id)
    return out


def describe(values: Sequence[float]) -> dict[str, float]:
    a = np.asarray(values, dtype=np.float64)
    if a.size == 0:
        return {}
    return {
        "mean": float(a.mean()),
        "median": float(np.median(a)),
        "p10": float(np.percentile(a, 10)),
        "p90": float(np.percentile(a, 90)),
        "min": float(a.min()),
        "max": float(a.max()),
    }


def selfplay_stats(records: list[dict[str, Any]], num_players: int) -> dict[str, Any]:
    """Length, chance, branching, seat results and draws of a set of self-play games."""
    branching = [b for r in records for b in r["branching"]]
    seats = []
    for s in range(num_players):
        wins = sum(outcome(np.asarray(r["returns"]), s) == "win" for r in records)
        scores = [protocol.pair_scores(r["returns"], s) for r in records]
        half = Z95 * float(np.std(scores, ddof=1)) / math.sqrt(len(scores)) if len(scores) > 1 else float("inf")
        lo, hi = wilson(wins, len(records))
        seats.append(
            {"win_rate": wins / len(records), "win_lo": lo, "win_hi": hi, "score": float(np.mean(scores)), "score_ci": half}
        )
    draws = sum(np.allclose(r["returns"], r["returns"][0]) for r in records)
    return {
        "games": len(records),
        "decisions": describe([r["decisions"] for r in records]),
        "chance_events": describe([len(r["chance"]) for r in records]),
        "lengths": [r["decisions"] for r in records],
        "branching": {
            "mean": float(np.mean(branching)),
            "median": float(np.median(branching)),
            "max": int(np.max(branching)),
            "forced": float(np.mean(np.asarray(branching) == 1)),
        },
        "branching_by_decision": _by_index([r["branching"] for r in records]),
        "seats": seats,
        "draw_rate": draws / len(records),
        "draw_ci": list(wilson(draws, len(records))),
        "truncated": sum(bool(r["truncated"]) for r in records),
        "cpu_s_per_game": float(np.mean([r["cpu_s"] for r in records])),
    }


def _by_index(rows: list[list[int]], bins: int = 40) -> list[float]:
    """Mean legal actions by decision number (the first ``bins * k`` decisions, in ``bins`` buckets)."""
    longest = max((len(r) for r in rows), default=0)
    if longest == 0:
        return []
    width = max(1, math.ceil(longest / bins))
    out = []
    for start in range(0, longest, width):
        values = [v for r in rows for v in r[start : start + width]]
        out.append(float(np.mean(values)) if values else float("nan"))
    return out


def mcts_cost(
    env_id: str, num_players: int, decisions: float | None = None, positions: int = 6, simulations: int = 50
) -> dict[str, Any]:
    """CPU seconds per MCTS simulation at ``positions`` positions spread over a heuristic game (after a
    warm-up search, so compiling is not counted), and the CPU seconds a game with MCTS in every seat would
    take at each ladder budget: ``decisions`` per game (default: those of that game) times the budget
    times the cost of a simulation."""
    game = envs.make_game(env_id, num_players=num_players)
    seed = protocol.deal_seed(env_id, num_players, 0)
    rng = np.random.default_rng(seed)
    heuristic = protocol.build_agent("heuristic", env_id)
    state = game.new_initial_state()
    states: list[State] = []
    while state.current_player() != TERMINAL and len(states) < game.info.max_game_length:
        player = state.current_player()
        if player == CHANCE:
            state.apply_checked_action(state.sample_chance(rng))
            continue
        states.append(state.clone())
        state.apply_action(heuristic.act(observed_state(state, player, rng), player, rng))
    picks = [states[int(k)] for k in np.linspace(0, len(states) - 1, positions + 1)[:-1]]
    warm = protocol.build_agent("mcts:5", env_id)
    warm.act(observed_state(picks[0], picks[0].current_player(), rng), picks[0].current_player(), rng)
    per_sim = []
    for s in picks:
        agent = protocol.build_agent(f"mcts:{simulations}", env_id)
        seat = s.current_player()
        view = observed_state(s, seat, rng)
        start = time.process_time()
        agent.act(view, seat, rng)
        per_sim.append((time.process_time() - start) / max(int(getattr(agent, "last_simulations", simulations)), 1))
    cost = float(np.mean(per_sim))
    per_game = float(decisions) if decisions is not None else float(len(states))
    return {
        "cpu_s_per_simulation": cost,
        "positions": len(picks),
        "decisions_per_game": per_game,
        "cpu_s_per_game": {str(b): cost * b * per_game for b in protocol.LADDER_BUDGETS},
    }


def ladder_scores(
    env_id: str, num_players: int, rungs: Sequence[str], games: int, bar: Progress | None, workers: int = 1
) -> list[dict[str, Any]]:
    """Each rung against the one below it, and the top rung against random, under the protocol."""
    pairs = [(rungs[k], rungs[k - 1]) for k in range(1, len(rungs))]
    if len(rungs) > 2:
        pairs.append((rungs[-1], rungs[0]))
    store = GameStore()
    tasks = [t for a, b in pairs for t in protocol.plan(env_id, [a, b], games, num_players) if (t.focal, t.other) == (a, b)]
    run_games(tasks, store, workers, progress=False)
    if bar is not None:
        for task in tasks:
            bar.update(task.env_id)
    found = collect(tasks, store)
    summary = summarize(
        list(rungs),
        num_players,
        {p: v.deal_scores for p, v in found.items()},
        bootstrap=200,
        seed=protocol.deal_seed(env_id, num_players, 2**32 - 2),
    )
    out = []
    for (a, b), p in found.items():
        out.append({"agent": a, "opponent": b, "games": p.games, "wins": p.wins, "draws": p.draws, "losses": p.losses,
                    "score": summary.cell("pair", (a, b))})  # fmt: skip
    return out


# ---- the report -------------------------------------------------------------------------------------------
def analyze(env_id: str, games: int = 100, num_players: int | None = None, with_mcts: bool = False, cost: bool = True,
            progress: bool = False, workers: int = 1) -> dict[str, Any]:  # fmt: skip
    n = protocol.players_for(env_id, num_players)
    game = envs.make_game(env_id, num_players=n)
    info = game.info
    agents = ["random", "heuristic"] + ([f"mcts:{MCTS_BUDGET}"] if with_mcts else [])
    ladder_games = len(agents) - 1 + (len(agents) > 2)
    total = games * len(agents) + ladder_games * protocol.deals_for(games, n) * len(protocol.seat_assignments(n))
    bar = Progress(total, env_id, progress)
    try:
        selfplay = {a: selfplay_stats(self_play(env_id, a, games, n, bar), n) for a in agents}
        ladder = ladder_scores(env_id, n, agents, games, bar, workers) if n >= 2 else []
    finally:
        bar.close()
    return {
        "protocol": protocol.PROTOCOL,
        "env_id": env_id,
        "game": envs.spec(env_id).game_name,
        "description": envs.spec(env_id).description,
        "num_players": n,
        "player_counts": list(envs.spec(env_id).player_counts),
        "num_actions": info.num_actions,
        "observation_shape": list(info.observation_shape),
        "observation_size": int(np.prod(info.observation_shape)),
        "max_game_length": info.max_game_length,
        "has_chance": info.has_chance,
        "has_hidden_info": info.has_hidden_info,
        "games": games,
        "deal_seeds": [protocol.deal_seed(env_id, n, 0), protocol.deal_seed(env_id, n, games - 1)],
        "selfplay": selfplay,
        "ladder": ladder,
        "mcts_cost": mcts_cost(env_id, n, selfplay["heuristic"]["decisions"]["mean"]) if cost else None,
    }


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def report_markdown(a: dict[str, Any], command: str, plot: str | None) -> str:
    n = a["num_players"]
    lines = [
        f"# {a['description'].split(':')[0]} (`{a['env_id']}`)",
        "",
        f"{a['description']}. Measured at {n} players (the protocol's count; the id also takes "
        f"{', '.join(str(c) for c in a['player_counts'] if c != n) or 'no other count'}) under `{a['protocol']}`: "
        f"self-play on the protocol's deals 0..{a['games'] - 1} ({a['games']} games per agent; the deal seeds are "
        f"`protocol.deal_seed(id, players, k)`: {a['deal_seeds'][0]} for deal 0 ... {a['deal_seeds'][1]} for deal "
        f"{a['games'] - 1}), every seat played by the same agent with the seat's own generator; the ladder games play "
        "the same deals. Reproduce: `" + command + "`.",
        "",
        "## Sizes",
        "",
        f"* actions: {a['num_actions']} (one `Discrete` head); observation {tuple(a['observation_shape'])} = "
        f"{a['observation_size']:,} values; length limit {a['max_game_length']:,} decisions",
        f"* chance: {'yes' if a['has_chance'] else 'no'}; hidden information: {'yes' if a['has_hidden_info'] else 'no'}",
        "",
        "## Self-play",
        "",
        "| | " + " | ".join(a["selfplay"]) + " |",
        "|---|" + "---:|" * len(a["selfplay"]),
    ]

    def row(label: str, f: Any) -> None:
        lines.append(f"| {label} | " + " | ".join(f(s) for s in a["selfplay"].values()) + " |")

    row("games", lambda s: str(s["games"]))
    row("decisions per game: mean (median)", lambda s: f"{s['decisions']['mean']:.1f} ({s['decisions']['median']:.0f})")
    row("decisions: 10th-90th percentile", lambda s: f"{s['decisions']['p10']:.0f}-{s['decisions']['p90']:.0f}")
    row("decisions: min-max", lambda s: f"{s['decisions']['min']:.0f}-{s['decisions']['max']:.0f}")
    row("chance events per game: mean", lambda s: f"{s['chance_events']['mean']:.1f}")
    row("legal actions per decision: mean", lambda s: f"{s['branching']['mean']:.1f}")
    row("legal actions: median / max", lambda s: f"{s['branching']['median']:.0f} / {s['branching']['max']}")
    row("forced decisions (one legal action)", lambda s: _pct(s["branching"]["forced"]))
    for seat in range(n):
        row(
            f"seat {seat}: win rate [95%]",
            lambda s, k=seat: (
                f"{_pct(s['seats'][k]['win_rate'])} [{100 * s['seats'][k]['win_lo']:.0f}, {100 * s['seats'][k]['win_hi']:.0f}]"
            ),
        )
    for seat in range(n):
        row(
            f"seat {seat}: score of rank ± 95%",
            lambda s, k=seat: f"{s['seats'][k]['score']:.3f} ± {s['seats'][k]['score_ci']:.3f}",
        )
    row("draws (every return equal)", lambda s: f"{_pct(s['draw_rate'])}")
    row("cut off at the length limit", lambda s: str(s["truncated"]))
    row("CPU s per game (this machine)", lambda s: f"{s['cpu_s_per_game']:.3f}")
    lines += [
        "",
        "A seat's score of rank is 1 for the best return, 0 for the worst, ties averaged; with the same agent "
        f"in every seat each seat would score 0.5 if seats were worth the same{' (a win needs a best return not shared by every seat; partners share theirs)' if n > 2 else ''}.",  # noqa: E501
    ]
    if a["ladder"]:
        lines += [
            "",
            "## How decisive skill is",
            "",
            "Each rung against the one below it (and the top rung against random) under the protocol (paired "
            + (
                "deals, both seatings of every deal). "
                if n == 2
                else f"deals; the agent sits in one seat and the opponent in the other {n - 1}, the agent's seat rotating). "
            )
            + "Score: mean score of rank against the other seats (1/2 is even), 95% bootstrap interval over deals.",
            "",
            "| agent | opponent | games | wins / draws / losses | score [95%] |",
            "|---|---|---:|---:|---:|",
        ]
        for r in a["ladder"]:
            lines.append(
                f"| {r['agent']} | {r['opponent']} | {r['games']} | "
                f"{r['wins']} / {r['draws']} / {r['losses']} | {fmt(r['score'])} |"
            )
    c = a.get("mcts_cost")
    if c:
        est = c["cpu_s_per_game"]
        lines += [
            "",
            "## Cost of search",
            "",
            f"`mcts:50` at {c['positions']} positions of the heuristic's game on deal 0: "
            f"{1000 * c['cpu_s_per_simulation']:.2f} ms CPU per simulation on this machine (a shared 2-core VM; a "
            "timing, so it varies with the load). A game of the heuristic's length "
            f"({c['decisions_per_game']:.0f} decisions) with MCTS in every seat would cost about "
            + ", ".join(f"{float(est[str(b)]):,.1f} s at `mcts:{b}`" for b in protocol.LADDER_BUDGETS)
            + " of CPU.",
        ]
    if plot:
        lines += ["", f"![length, branching and seats]({plot})"]
    return "\n".join(lines) + "\n"


def plot_analysis(a: dict[str, Any], path: Path) -> bool:
    """Game lengths, legal actions along the game and seat scores; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    every = [v for s in a["selfplay"].values() for v in s["lengths"]]
    bins = np.histogram_bin_edges(every, bins=min(25, max(5, len(set(every)))))
    for name, s in a["selfplay"].items():
        axes[0].hist(s["lengths"], bins=bins, alpha=0.5, label=name)
        axes[1].plot(np.linspace(0, 1, len(s["branching_by_decision"])), s["branching_by_decision"], label=name)
    axes[0].set_xlabel("decisions per game")
    axes[0].set_ylabel("games")
    axes[0].legend()
    axes[1].set_xlabel("fraction of the longest game")
    axes[1].set_ylabel("mean legal actions")
    axes[1].legend()
    width = 0.8 / max(len(a["selfplay"]), 1)
    for k, (name, s) in enumerate(a["selfplay"].items()):
        xs = np.arange(a["num_players"]) + k * width
        axes[2].bar(xs, [v["score"] for v in s["seats"]], width, yerr=[v["score_ci"] for v in s["seats"]], label=name, capsize=2)
    axes[2].axhline(0.5, color="grey", lw=0.8)
    axes[2].set_xticks(np.arange(a["num_players"]) + 0.4 - width / 2, [f"seat {s}" for s in range(a["num_players"])])
    axes[2].set_ylabel("score of rank (self-play)")
    axes[2].legend()
    fig.suptitle(f"{a['env_id']}, {a['num_players']} players, {a['games']} self-play games per agent")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return True


def default_out() -> Path:
    """Where ``gameshelf analyze ID`` writes without ``--out``: ``runs/analysis/<time>``."""
    return run_folder("analysis")


def summary_row(a: dict[str, Any]) -> str | None:
    """The README table's row of one report (None without random and heuristic self-play)."""
    r, h = a["selfplay"].get("random"), a["selfplay"].get("heuristic")
    if r is None or h is None:
        return None
    up = {(x["agent"], x["opponent"]): x for x in a["ladder"]}
    hr = up.get(("heuristic", "random"))
    mcts = a.get("mcts_cost") or {}
    at200 = float(mcts["cpu_s_per_game"]["200"]) if mcts else float("nan")
    cost = "-" if not mcts else f"{at200:,.1f}" if at200 < 10 else f"{at200:,.0f}"
    return (
        f"| [{a['env_id']}]({a['game']}.md) | {a['num_players']} | {a['num_actions']} | {a['observation_size']:,} | "
        f"{'yes' if a['has_chance'] else 'no'} / {'yes' if a['has_hidden_info'] else 'no'} | "
        f"{r['decisions']['mean']:.0f} / {h['decisions']['mean']:.0f} | {r['chance_events']['mean']:.0f} | "
        f"{r['branching']['mean']:.1f} / {r['branching']['median']:.0f} / {r['branching']['max']} | "
        f"{r['seats'][0]['score']:.2f} / {h['seats'][0]['score']:.2f} | {_pct(r['draw_rate'])} / {_pct(h['draw_rate'])} | "
        f"{fmt(hr['score']) if hr else '-'} | {cost} |"
    )


def summary_markdown(folder: Path) -> str:
    """``folder``/README.md (docs/analysis/README.md): one row per analyzed game. A report that cannot be
    read is one warning on standard error (its file, and its line where JSON says) and no row."""
    rows = []
    for path in sorted(folder.glob("*.json")):
        problem = None
        try:
            a = json.loads(path.read_bytes())
        except json.JSONDecodeError as err:
            problem = f"{path}:{err.lineno}: not JSON (column {err.colno}: {err.msg})"
        except (OSError, ValueError, RecursionError):  # unreadable, not UTF-8, a number too long, nested too deep
            problem = f"{path}: not a readable JSON file"
        else:
            if not isinstance(a, dict) or "selfplay" not in a:
                continue  # another JSON file, not a report
            try:
                row = summary_row(a)
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                problem = f"{path}: not a complete analysis report"
            else:
                rows += [row] if row is not None else []
        if problem is not None:
            print(f"warning: {problem}; left out of the table", file=sys.stderr)
    return (
        "\n".join(
            [
                "# Game analysis",
                "",
                f"Generated by `gameshelf analyze ID --out {folder}` (one page per game, linked below; `gameshelf "
                f"analyze --summary --out {folder}` rewrites this table). Self-play on the protocol's deals "
                "(docs/protocol.md); game counts and seeds are on each page. Columns: players (the protocol's count);"
                " actions; observation size; chance / hidden information; decisions per game in random / heuristic "
                "self-play; chance events per random game; legal actions per decision in random play (mean / median /"
                " max); seat 0's score of rank in random / heuristic self-play (0.5 = no first-seat advantage); draws"
                " in random / heuristic self-play; the heuristic's score against random under the protocol (paired "
                "deals, 95% interval); estimated CPU seconds of one game with `mcts:200` in every seat (measured on a"
                " shared 2-core VM).",
                "",
                "| game | players | actions | obs size | chance / hidden | decisions (random / heuristic) | chance events | "
                "branching (mean / median / max) | seat 0 score (random / heuristic) | draws (random / heuristic) | "
                "heuristic vs random | CPU s per game at mcts:200 |",
                "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
                *rows,
            ]
        )
        + "\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = ArgumentParser(prog="gameshelf analyze", description="Describe a game: length, branching, seat advantage, skill.")
    parser.add_argument("env_id", nargs="?", help="environment id, e.g. level_x-v0")
    parser.add_argument(
        "--games", type=int, default=100, help="self-play games per agent and games per ladder pairing (default 100)"
    )
    parser.add_argument("--players", type=int, default=None, help="player count (default: the protocol's)")
    parser.add_argument("--with-mcts", action="store_true", help=f"add mcts:{MCTS_BUDGET} self-play and its ladder rung")
    parser.add_argument("--no-cost", action="store_true", help="do not time MCTS (the only timing in the report)")
    parser.add_argument("--workers", type=int, default=1, help="processes for the ladder games (default 1)")
    parser.add_argument(
        "--out",
        default=None,
        help="folder of the reports (default runs/analysis/<time>; the shipped pages: --out docs/analysis)",
    )
    parser.add_argument(
        "--summary", action="store_true", help="only rewrite OUT/README.md from the .json files in OUT (needs --out)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(args_list)
    if args.summary and args.out is None:
        raise UserError("--summary rewrites the table of a folder of reports: name it with --out (e.g. --out docs/analysis)")
    if args.env_id is None and not args.summary:
        raise UserError("give an environment id (or --summary)")
    if args.summary:
        out = check_writable_dir(args.out)
        (out / "README.md").write_text(summary_markdown(out))
        print(f"summary: {out / 'README.md'}")
        return 0
    if args.games < 2:
        raise UserError(f"--games must be at least 2, not {args.games}")
    check_env_id(args.env_id, args.players)
    n = protocol.players_for(args.env_id, args.players)
    if n < 2:
        raise UserError(f"{args.env_id}: the analysis compares seats; give --players 2 or more")
    try:
        protocol.build_agent("heuristic", args.env_id)
    except ValueError as err:
        raise UserError(str(err)) from None
    out = check_writable_dir(args.out if args.out is not None else default_out())
    result = analyze(
        args.env_id, args.games, args.players, args.with_mcts, not args.no_cost, show_progress(args.quiet), args.workers
    )
    name = result["game"]
    command = reproduce_command("gameshelf analyze", args_list)
    result["command"] = command
    (out / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
    plot = f"{name}.png" if plot_analysis(result, out / f"{name}.png") else None
    (out / f"{name}.md").write_text(report_markdown(result, command, plot))
    (out / "README.md").write_text(summary_markdown(out))
    print(report_markdown(result, command, plot))
    print(f"report: {out / (name + '.md')}")
    return 0


if __name__ == "__main__":
    run(main, prog="gameshelf analyze")
