"""``gameshelf leaderboard``: a leaderboard (markdown) from benchmark result files.

    gameshelf leaderboard runs/benchmark/*/result.json          # writes runs/leaderboard/<time>/leaderboard.md
    gameshelf leaderboard benchmarks/results/*/result.json --out docs/leaderboard.md   # the shipped one

Result files (``result.json`` of ``gameshelf benchmark``, of protocol version 1 or 2) of the same protocol
version, id and player count are merged: every pairing they played (the one with the most deals when two
files played it), one Bradley–Terry fit and one bootstrap over all of them, so every agent of every file
lands on one scale per game (random = 0). Each row names the command and protocol version that produced
it, and the agent's CPU ms per decision in that run (version 2). The headline averages an agent's
normalized score over the ten games only when it has one on every game. Results of unpaired runs
(``--unpaired``) are not ranked: beside a paired run of the same pairings they give the section on how much
paired deals narrow the intervals.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf.training.benchmark.ladder import (
    DEFAULT_BOOTSTRAP,
    NORMALIZED_SCALE,
    RATING_SCALE,
    SWEEP_NOTE,
    Summary,
    bootstrap_seed,
    cpu_cell,
    fmt,
    interval,
    pairing_gain,
    rating_cell,
    run_folder,
    summarize,
    sweeps,
)
from gameshelf.training.benchmark.protocol import DEFAULT_PLAYERS, is_count, is_finite_number
from gameshelf.training.cli_util import ArgumentParser, UserError, check_writable_file, run


@dataclass
class Group:
    """Every pairing of one protocol version, id, player count and pairing mode, merged over files."""

    protocol: str
    env_id: str
    num_players: int
    paired: bool
    agents: list[str] = field(default_factory=list)
    pairs: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    games: dict[tuple[str, str], int] = field(default_factory=dict)
    game_scores: dict[tuple[str, str], list[list[float]]] = field(default_factory=dict)
    commands: dict[str, str] = field(default_factory=dict)
    cpu: dict[str, str] = field(default_factory=dict)
    """Per agent, CPU ms per decision from the file its command names (``ladder.cpu_cell``; ``-`` for version 1)."""
    left_out: dict[str, str] = field(default_factory=dict)


def load_result(path: str | Path) -> dict[str, Any]:
    """A ``result.json`` of ``gameshelf benchmark``; ``UserError`` naming the file (and the line or field)
    when it cannot be read or its fields do not check out."""
    p = Path(path)
    try:
        result = json.loads(p.read_bytes())
    except FileNotFoundError:
        raise UserError(f"no result file {str(p)!r}") from None
    except OSError as err:
        raise UserError(f"cannot read {str(p)!r}: {err.strerror or err}") from None
    except json.JSONDecodeError as err:
        raise UserError(f"{p}:{err.lineno}: not JSON (column {err.colno}: {err.msg})") from None
    except UnicodeDecodeError:
        raise UserError(f"{p}: not UTF-8 text") from None
    except RecursionError:
        raise UserError(f"{p}: JSON nested too deep") from None
    except ValueError:  # an integer of more digits than Python converts
        raise UserError(f"{p}: a number with too many digits") from None
    if not isinstance(result, dict) or "protocol" not in result or "ids" not in result:
        raise UserError(f"{str(p)!r} is not a benchmark result.json (no protocol or ids)")
    problem = result_problem(result)
    if problem is not None:
        raise UserError(f"{p}: {problem}")
    return result


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def result_problem(result: dict[str, Any]) -> str | None:
    """The first field of a benchmark result that ``merge`` cannot use (named by its path), or None."""
    for name in ("protocol", "command"):
        if not isinstance(result.get(name), str):
            return f"{name} is not a string"
    if not isinstance(result.get("agent"), str | None):  # None: a full ladder, which has no benchmarked agent
        return "agent is not a string"
    if not isinstance(result.get("paired", True), bool):
        return "paired is not true or false"
    if not isinstance(result["ids"], dict):
        return "ids is not an object"
    for env_id, section in result["ids"].items():
        where = f"ids.{_short(env_id)}"
        if not isinstance(section, dict):
            return f"{where} is not an object"
        n, agents, left_out = section.get("num_players"), section.get("agents"), section.get("left_out", {})
        if not is_count(n) or n < 2:
            return f"{where}.num_players is not a player count"
        if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
            return f"{where}.agents is not a list of names"
        if not isinstance(left_out, dict) or not all(isinstance(v, str) for v in left_out.values()):
            return f"{where}.left_out is not an object of reasons"
        if not isinstance(section.get("pairs"), list):
            return f"{where}.pairs is not a list"
        for k, pair in enumerate(section["pairs"]):
            at = f"{where}.pairs[{k}]"
            if not isinstance(pair, dict) or pair.get("focal") not in agents or pair.get("other") not in agents:
                return f"{at} is not a pairing of two of its agents"
            if pair["focal"] == pair["other"] or not is_count(pair.get("games")):
                return f"{at}: an agent against itself, or games not a count"
            scores, rows = pair.get("deal_scores"), pair.get("game_scores", [])
            if not isinstance(scores, list) or not all(is_finite_number(x) and 0 <= x <= 1 for x in scores):
                return f"{at}.deal_scores is not a list of scores in [0, 1]"
            if not isinstance(rows, list) or not all(isinstance(r, list) and all(map(is_finite_number, r)) for r in rows):
                return f"{at}.game_scores is not lists of scores"
    return None


def merge(results: Sequence[dict[str, Any]]) -> list[Group]:
    groups: dict[tuple[str, str, int, bool], Group] = {}
    for result in results:
        for env_id, section in result["ids"].items():
            key = (result["protocol"], env_id, section["num_players"], bool(result.get("paired", True)))
            g = groups.setdefault(key, Group(*key))
            for agent in section["agents"]:
                if agent not in g.agents:
                    g.agents.append(agent)
                # the benchmarked agent of a file names its own command; others keep the first that played them
                if agent == result.get("agent") or agent not in g.commands:
                    g.commands[agent] = result["command"]
                    g.cpu[agent] = cpu_cell(result, env_id, agent)
            g.left_out.update(section.get("left_out", {}))
            for pair in section["pairs"]:
                k = (pair["focal"], pair["other"])
                if len(pair["deal_scores"]) > len(g.pairs.get(k, [])):
                    g.pairs[k] = list(pair["deal_scores"])
                    g.games[k] = pair["games"]
                    g.game_scores[k] = pair.get("game_scores", [])
    return list(groups.values())


def _games(g: Group, agent: str) -> str:
    """Games per pairing of ``agent`` (a range when its pairings differ)."""
    counts = sorted({n for (a, b), n in g.games.items() if agent in (a, b)})
    return "-" if not counts else str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


def _versus(s: Summary, a: str, b: str) -> dict[str, float] | None:
    return s.versus(a, b) if a != b and b in s.agents else None


def default_out() -> Path:
    """Where ``gameshelf leaderboard`` writes without ``--out``: ``runs/leaderboard/<time>/leaderboard.md``."""
    return run_folder("leaderboard") / "leaderboard.md"


def leaderboard_markdown(
    results: Sequence[dict[str, Any]],
    bootstrap: int = DEFAULT_BOOTSTRAP,
    sources: Sequence[str] = (),
    out: str | Path | None = None,
) -> str:
    """The leaderboard of ``results``; ``sources`` (their files) and ``out`` (where it is written) make its
    Regenerate line."""
    groups = merge(results)
    ranked = [g for g in groups if g.paired]
    summaries = {
        id(g): summarize(g.agents, g.num_players, g.pairs, bootstrap, bootstrap_seed(g.env_id, g.num_players)) for g in groups
    }
    lines = [
        "# Leaderboard",
        "",
        "Generated from the result files of `gameshelf benchmark` by `gameshelf leaderboard RESULT.json...`;",
        "do not edit by hand. The protocol: [protocol.md](protocol.md).",
        "",
        f"* **Rating**: {RATING_SCALE}; one fit per game over every pairing of every result file.",
        f"* **Normalized score**: {NORMALIZED_SCALE}; 0 = random, 1 = heuristic.",
        f"* **Brackets**: 95% intervals of a bootstrap over deals ({bootstrap} replicates, seeded; a pairing of",
        "  fewer deals than others resamples its own deals, as its own result does).",
        "* **games**: games per pairing. Every row names the protocol version and the command that produced it",
        "  (rows of ladder rungs name a run that played them); results of different protocol versions are",
        "  rated apart.",
        "* **CPU ms/decision**: the agent's CPU time inside its `act` over its decisions, in the run its command",
        "  names (the machine's; `-` for results of gameshelf-protocol/1, which did not record it).",
    ]
    if sources:
        options = ([f"--out {out}"] if out is not None else []) + (
            [f"--bootstrap {bootstrap}"] if bootstrap != DEFAULT_BOOTSTRAP else []
        )
        lines += ["", "Regenerate: `gameshelf leaderboard " + " ".join([*sources, *options]) + "`."]
    lines += headline(ranked, summaries)
    versions: dict[tuple[str, int], set[str]] = {}
    for g in ranked:
        versions.setdefault((g.env_id, g.num_players), set()).add(g.protocol)
    for g in sorted(ranked, key=lambda g: (g.env_id, g.num_players, g.protocol)):
        s = summaries[id(g)]
        version = f", {g.protocol}" if len(versions[(g.env_id, g.num_players)]) > 1 else ""
        lines += [
            "",
            f"## `{g.env_id}`, {g.num_players} players{version}",
            "",
            "| agent | rating [95%] | normalized [95%] | vs random | vs heuristic | games | CPU ms/decision | protocol "
            "| command |",
            "|---|---:|---:|---:|---:|---:|---:|---|---|",
        ]
        swept = {"sweeps": sweeps(g.agents, g.pairs), "ratings": {a: s.cell("rating", a) for a in g.agents}}
        for a in sorted(g.agents, key=lambda a: -s.ratings[a]):
            lines.append(
                f"| {a} | {rating_cell(swept, a)} | {fmt(s.cell('normalized', a))} | "
                f"{fmt(_versus(s, a, 'random'))} | {fmt(_versus(s, a, 'heuristic'))} | {_games(g, a)} | "
                f"{g.cpu.get(a, '-')} | {g.protocol} | `{g.commands.get(a, '')}` |"
            )
        if swept["sweeps"]:
            lines += ["", SWEEP_NOTE]
        if g.left_out:
            lines += ["", "Left out of the ladder: " + "; ".join(f"`{k}`: {v}" for k, v in g.left_out.items())]
    comparison = pairing_comparison(groups, summaries)
    if comparison:
        lines += ["", *comparison]
    return "\n".join(lines) + "\n"


def headline(ranked: Sequence[Group], summaries: dict[int, Summary]) -> list[str]:
    """The table of each agent's normalized score averaged over the ten games (each at the protocol's player
    count, from the newest protocol version that rates the agent there): agents rated on all ten get the mean
    with its interval, the others ``n/10``, not a mean over fewer games."""
    per_agent: dict[str, dict[str, tuple[str, float, np.ndarray]]] = {}
    for g in ranked:
        if DEFAULT_PLAYERS.get(g.env_id) != g.num_players:
            continue
        s = summaries[id(g)]
        for a in g.agents:
            v, held = s.normalized[a], per_agent.setdefault(a, {}).get(g.env_id)
            if math.isfinite(v) and (held is None or _version(g.protocol) > _version(held[0])):
                per_agent[a][g.env_id] = (g.protocol, v, s.boot_normalized[a])
    rated = {a: games for a, games in per_agent.items() if games}
    if not rated:
        return []
    total = len(DEFAULT_PLAYERS)
    full = {a: list(games.values()) for a, games in rated.items() if len(games) == total}
    rows: list[tuple[tuple[float, ...], str]] = []
    for a, values in full.items():
        lo, hi = interval(np.mean([b for _, _, b in values], axis=0))
        cell = {"value": float(np.mean([v for _, v, _ in values])), "lo": lo, "hi": hi}
        rows.append(((0, -cell["value"]), f"| {a} | {fmt(cell)} |"))
    for a, games in rated.items():
        if a not in full:
            rows.append(((1, -len(games)), f"| {a} | {len(games)}/{total} |"))
    return [
        "",
        "## Mean normalized score",
        "",
        f"The mean of an agent's normalized score over all {total} games, each at the protocol's player count",
        "(from the newest protocol version that rates the agent there), with a bootstrap interval. Only agents",
        "with a normalized score on every game get a mean; the others show on how many games they have one",
        f"(`n/{total}`): a mean over the games an agent happened to be run on would not compare with the others'.",
        "",
        f"| agent | mean normalized over the {total} games [95%] |",
        "|---|---:|",
        *(row for _, row in sorted(rows, key=lambda r: r[0])),
    ]


def _version(name: str) -> int:
    """The number of a protocol version's name (``gameshelf-protocol/2``: 2); 0 when it has none."""
    tail = name.rpartition("/")[2]
    return int(tail) if tail.isdigit() else 0


def _gain(g: Group, pair: tuple[str, str]) -> str:
    gain = pairing_gain(g.game_scores.get(pair, []))
    return "-" if gain is None else f"{gain:.2f}"


def pairing_comparison(groups: Sequence[Group], summaries: dict[int, Summary]) -> list[str]:
    """Interval widths of the same pairings, paired against unpaired, at the same game count."""
    rows: list[str] = []
    ratios: list[float] = []
    gains: dict[bool, list[float]] = {True: [], False: []}
    for u in groups:
        if u.paired:
            continue
        match = [g for g in groups if g.paired and (g.protocol, g.env_id, g.num_players) == (u.protocol, u.env_id, u.num_players)]
        if not match:
            continue
        p = match[0]
        sp, su = summaries[id(p)], summaries[id(u)]
        for pair, scores in u.pairs.items():
            if pair not in p.pairs or len(p.pairs[pair]) != len(scores):
                continue
            cp, cu = sp.cell("pair", pair), su.cell("pair", pair)
            wp, wu = (cp["hi"] - cp["lo"]) / 2, (cu["hi"] - cu["lo"]) / 2
            ratio = wp / wu if wu > 0 else float("nan")
            if math.isfinite(ratio):
                ratios.append(ratio)
            for group, bucket in ((p, True), (u, False)):
                gain = pairing_gain(group.game_scores.get(pair, []))
                if gain is not None:
                    gains[bucket].append(gain)
            rows.append(
                f"| `{u.env_id}` | {pair[0]} vs {pair[1]} | {u.games[pair]} | {fmt(cp)} | {fmt(cu)} | "
                f"{wp:.3f} / {wu:.3f} | {'-' if not math.isfinite(ratio) else f'{ratio:.2f}'} | "
                f"{_gain(p, pair)} / {_gain(u, pair)} |"
            )
        for a in u.agents:
            if a == "random" or a not in p.agents:
                continue
            cp, cu = sp.cell("rating", a), su.cell("rating", a)
            wp, wu = (cp["hi"] - cp["lo"]) / 2, (cu["hi"] - cu["lo"]) / 2
            ratio = wp / wu if wu > 0 else float("nan")
            rows.append(
                f"| `{u.env_id}` | rating of {a} | {max(u.games.values())} | {fmt(cp, 0)} | {fmt(cu, 0)} | "
                f"{wp:.0f} / {wu:.0f} | {'-' if not math.isfinite(ratio) else f'{ratio:.2f}'} | |"
            )
    if not rows:
        return []
    head = [
        "## Paired deals against unpaired games",
        "",
        "The same pairings and game counts played twice: with the protocol's paired deals, and with independent",
        "chance in every game (`--unpaired`). *Measured*: half-widths of the 95% bootstrap intervals of the two runs",
        "and their ratio (below 1: pairing narrows the interval; the game count for equal precision scales with its",
        "square). *Within deals*: the same ratio estimated inside one run, the spread of per-deal mean scores over",
        "what it would be if the games of a deal were independent (`pairing_gain`); it should be about 1 for the",
        "unpaired run, and it is less noisy than the measured ratio, which compares two intervals each estimated",
        "from the deals of one run. A pairing one agent always wins has no interval to narrow.",
        "",
        "| game | pairing | games | paired [95%] | unpaired [95%] | half-widths paired / unpaired | measured ratio "
        "| within deals: paired / unpaired |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    tail = [""]
    if ratios:
        tail.append(f"Median measured ratio over the pairings with an interval: {float(np.median(ratios)):.2f}.")
    if gains[True]:
        tail.append(
            f"Median within-deal ratio: {float(np.median(gains[True])):.2f} in the paired runs, "
            f"{float(np.median(gains[False])) if gains[False] else float('nan'):.2f} in the unpaired runs."
        )
    return head + rows + tail


def write_leaderboard(paths: Sequence[str | Path], out: str | Path | None = None, bootstrap: int = DEFAULT_BOOTSTRAP) -> Path:
    """Write the leaderboard of the result files ``paths`` to ``out`` (default: ``default_out()``)."""
    results = [load_result(p) for p in paths]
    target = check_writable_file(out if out is not None else default_out())
    target.write_text(leaderboard_markdown(results, bootstrap, [str(p) for p in paths], out))
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="gameshelf leaderboard", description="Write a leaderboard from benchmark result files.")
    parser.add_argument("results", nargs="+", help="result.json files of gameshelf benchmark")
    parser.add_argument(
        "--out",
        default=None,
        help="markdown file to write (default runs/leaderboard/<time>/leaderboard.md; "
        "the shipped one: --out docs/leaderboard.md)",
    )
    parser.add_argument(
        "--bootstrap", type=int, default=DEFAULT_BOOTSTRAP, help=f"bootstrap replicates (default {DEFAULT_BOOTSTRAP})"
    )
    args = parser.parse_args(argv)
    if args.bootstrap < 1:
        raise UserError(f"--bootstrap must be at least 1, not {args.bootstrap}")
    print(f"leaderboard: {write_leaderboard(args.results, args.out, args.bootstrap)}")
    return 0


if __name__ == "__main__":
    run(main, prog="gameshelf leaderboard")
