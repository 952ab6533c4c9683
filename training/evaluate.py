"""Evaluate agents against each other over seeded games, every seat played, with ratings.

    python -m gameshelf.training.evaluate level_x-v0 model:runs/level_x-v0/demo/final_model.zip heuristic random --games 200
    python -m gameshelf.training.evaluate koplus-v0 heuristic random --players 3 --games 60 --plot runs/eval/koplus.png

A learned policy (``model:PATH``, ``rllib:PATH``, ``reference``) plays in two modes by default, as two agents:
``model:NAME`` takes its most likely legal action (deterministic) and ``model:NAME~sampled`` draws its move from
the policy; the two play the same deals against every opponent, never each other (``--policy-mode
deterministic`` or ``sampled`` for one mode; a name may end in ``~sampled`` itself). A saved model is named
after its file, made unique when two names clash; the table lists every model's file once below it.

Two players: every pair of agents meets ``--games`` times, seats alternating, the two games of a couple
sharing their chance seed; the table gives win/draw/loss with 95% Wilson intervals and the first
agent's wins/draws/losses in each seat (``s0`` is ``player_0``); ratings are Elo (a Bradley–Terry fit;
random = 1000 when random plays, else the mean of the agents = 1000). More players: each agent plays
against a field of copies of each other agent, its seat rotating; the table gives the mean rank, score
and return with 95% intervals, and ratings are OpenSkill's (ordinal mu - 3 sigma). A "win" is a best
final return not shared by every seat.

Without the ``train`` extra (a base install) the command still plays and rates ``random``, ``heuristic`` and
``mcts:...`` agents: the plot is left out with a note (no matplotlib), there is no progress bar (no tqdm), and
games of more than two players get no ratings (no OpenSkill), also with a note.

Each run writes its plot to a new file (``runs/eval/<env>-<players>p-<time>.png``) unless ``--plot`` names one,
and prints its path.

Every mistake in the command line (unknown id, agent or option, a bad number, an unwritable or
non-image plot path, a model that does not load) is one line on standard error and exit status 2,
before any game is played.

The engine is ``evaluate(env_id, agents, ...) -> EvalResult`` for scripts, tests and notebooks.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf import envs
from gameshelf.envs.core.episode import Episode
from gameshelf.envs.core.game import Game
from gameshelf.training.agents import Agent, make_agent
from gameshelf.training.agents.base import PolicyAgent
from gameshelf.training.agents.llm import TEXT_STATS, seat_stats, stats_grown
from gameshelf.training.benchmark.ratings import Rating, elo_anchor, elo_ratings, openskill_ratings
from gameshelf.training.cli_util import ArgumentParser, UserError, check_env_id, check_writable_file, run, show_progress
from gameshelf.training.model_io import atomic_write_bytes, atomic_write_text
from gameshelf.training.numpy_net import is_net_file

Z95 = 1.959963984540054
SAMPLED = "~sampled"
"""The ending of a learned policy's name when it draws its moves from the policy (``model:X~sampled``); without
it a learned policy plays its most likely legal action."""
MODES = ("deterministic", "sampled", "both")
"""How ``evaluate`` plays the learned policies: each as given, each sampled, or each in both modes."""


# ---- statistics -----------------------------------------------------------------------------------
def wilson(k: float, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``k / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal interval."""
    a = np.asarray(values, dtype=np.float64)
    if a.size == 0:
        return (float("nan"), float("nan"))
    half = Z95 * a.std(ddof=1) / math.sqrt(a.size) if a.size > 1 else float("inf")
    return (float(a.mean()), float(half))


def ranks_of(returns: np.ndarray) -> list[float]:
    """Rank of every seat (1 best), ties averaged."""
    r = np.asarray(returns, dtype=np.float64)
    out = []
    for v in r:
        greater = int(np.sum(r > v + 1e-9))
        equal = int(np.sum(np.abs(r - v) <= 1e-9))
        out.append(1 + greater + (equal - 1) / 2)
    return out


# ---- results --------------------------------------------------------------------------------------
@dataclass
class GameResult:
    lineup: tuple[int, ...]
    """Agent index at every seat."""
    returns: list[float]
    scores: list[float]
    length: int
    truncated: bool
    seed: int
    text_stats: list[dict[str, Any] | None] | None = None
    """Per seat, what a text agent (``llm:``, ``callable:``) spent in this game; None when no seat plays through text."""


@dataclass
class PairResult:
    """``agent`` against ``opponent`` (2 players) or against a field of ``opponent`` copies (more)."""

    agent: str
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    mean_rank: float
    rank_ci: float
    mean_score: float
    score_ci: float
    mean_return: float
    return_ci: float
    win_rate_by_seat: dict[int, float] = field(default_factory=dict)
    by_seat: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    """Wins, draws and losses of ``agent`` in each seat it played (seat 0 is ``player_0``)."""

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else float("nan")

    @property
    def win_ci(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)


@dataclass
class EvalResult:
    env_id: str
    num_players: int
    agents: list[str]
    games_per_pairing: int
    seed: int
    games: list[GameResult]
    pairs: list[PairResult]
    ratings: dict[str, Rating]
    rating_kind: str
    wall_s: float
    notes: list[str] = field(default_factory=list)
    """One line each about what is missing from the results and why (e.g. no ratings without OpenSkill)."""
    policies: dict[str, str] = field(default_factory=dict)
    """The label of every learned policy and the file it was loaded from (``""``: a model held in memory)."""

    def pair(self, agent: str, opponent: str) -> PairResult:
        for p in self.pairs:
            if p.agent == agent and p.opponent == opponent:
                return p
        raise KeyError(f"no results for {agent!r} against {opponent!r}")

    def listed_pairs(self) -> list[PairResult]:
        """The pairings shown in the table: two players, each pair once (the first-listed agent's view)."""
        if self.num_players != 2:
            return list(self.pairs)
        order = {name: k for k, name in enumerate(self.agents)}
        return [p for p in self.pairs if order[p.agent] < order[p.opponent]]

    def table(self) -> str:
        """The results as a plain-text table (what the command prints)."""
        lines = [
            f"{self.env_id}, {players_text(self.num_players)}, {self.games_per_pairing} games per pairing, seed {self.seed}, "
            f"{len(self.games)} games in {self.wall_s:.1f} s"
        ]
        width = max(len(a) for a in self.agents) + 2
        if self.num_players == 2:
            lines.append(
                f"{'agent':<{width}}{'opponent':<{width}}{'games':>6}  {'win [95% CI]':<22}{'draw':>7}{'loss':>7}"
                "   agent's w/d/l by seat"
            )
            for p in self.listed_pairs():
                lo, hi = p.win_ci
                seats = "  ".join(f"s{s} {w}/{d}/{lo_}" for s, (w, d, lo_) in sorted(p.by_seat.items()))
                lines.append(
                    f"{p.agent:<{width}}{p.opponent:<{width}}{p.games:>6}  "
                    f"{f'{100 * p.win_rate:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]':<22}"
                    f"{100 * p.draws / p.games:6.1f}%{100 * p.losses / p.games:6.1f}%   {seats}"
                )
        elif self.num_players == 1:  # solitaire: the score is the result
            lines.append(f"{'agent':<{width}}{'games':>6}  {'mean score ± 95%':<20}{'mean return':>11}")
            for k, name in enumerate(self.agents):
                mine = [g for g in self.games if g.lineup[0] == k]
                score, score_ci = mean_ci([g.scores[0] for g in mine])
                ret = float(np.mean([g.returns[0] for g in mine])) if mine else 0.0
                lines.append(f"{name:<{width}}{len(mine):>6}  {f'{score:.2f} ± {score_ci:.2f}':<20}{ret:>+11.3f}")
        else:
            lines.append(
                f"{'agent':<{width}}{'field':<{width}}{'games':>6}  {'win':>6}  {'mean rank ± 95%':<16}"
                f"{'mean score ± 95%':<20}{'mean return':>11}"
            )
            for p in self.pairs:
                lines.append(
                    f"{p.agent:<{width}}{p.opponent:<{width}}{p.games:>6}  {100 * p.win_rate:5.1f}%  "
                    f"{f'{p.mean_rank:.2f} ± {p.rank_ci:.2f}':<16}{f'{p.mean_score:.1f} ± {p.score_ci:.1f}':<20}"
                    f"{p.mean_return:>+11.3f}"
                )
        lines += self.policy_lines()
        lines += self.text_play_lines()
        if self.rating_kind != "none":
            kind = (
                f"Elo (Bradley–Terry fit, {elo_anchor(self.agents)}), ± 95%"
                if self.rating_kind == "elo"
                else "OpenSkill ordinal (mu - 3 sigma), mu ± sigma"
            )
            lines.append(f"ratings: {kind}")
            for name, r in sorted(self.ratings.items(), key=lambda kv: -kv[1].value):
                if self.rating_kind == "elo":
                    lines.append(f"  {name:<{width}}{r.value:7.0f} ± {r.uncertainty:.0f}")
                else:
                    lines.append(f"  {name:<{width}}{r.value:7.2f}   ({r.mu:.2f} ± {r.uncertainty:.2f})")
        return "\n".join(lines + [f"note: {note}" for note in self.notes])

    def policy_lines(self) -> list[str]:
        """How the learned policies played, and each one's file, listed once for both of its modes."""
        if not self.policies:
            return []
        files: dict[str, str] = {}
        for label, path in self.policies.items():
            files.setdefault(label.removesuffix(SAMPLED), path)
        width = max(len(label) for label in files) + 2
        return [
            f"learned policies: NAME plays its most likely legal action (deterministic), NAME{SAMPLED} draws its "
            "move from the policy (sampled)",
            *(f"  {label:<{width}}{path or '(a model in memory)'}" for label, path in files.items()),
        ]

    def text_play(self) -> dict[str, dict[str, Any]]:
        """Per agent that plays through text, its statistics summed over every game, with rates per decision."""
        totals: dict[str, dict[str, Any]] = {}
        for g in self.games:
            for seat, entry in enumerate(g.text_stats or []):
                if entry is not None:
                    mine = totals.setdefault(self.agents[g.lineup[seat]], dict.fromkeys(TEXT_STATS, 0))
                    for key in TEXT_STATS:
                        mine[key] += entry[key]
        for mine in totals.values():
            moves, replies = max(mine["moves"], 1), max(mine["calls"], 1)
            mine.update(tokens_per_move=mine["total_tokens"] / moves, invalid_rate=mine["invalid"] / replies,
                        fallback_rate=mine["fallbacks"] / moves)  # fmt: skip
        return totals

    def text_play_lines(self) -> list[str]:
        totals = self.text_play()
        if not totals:
            return []
        width = max(len(name) for name in totals) + 2
        lines = [
            "text play (replies are re-asked when invalid; a fallback is a random legal move after the last re-ask):",
            f"  {'agent':<{width}}{'moves':>7}{'replies':>9}{'tokens/move':>13}{'invalid':>9}{'fallback':>10}{'waited':>9}",
        ]
        for name, t in totals.items():
            lines.append(
                f"  {name:<{width}}{t['moves']:>7}{t['calls']:>9}{t['tokens_per_move']:>13.1f}"
                f"{100 * t['invalid_rate']:>8.1f}%{100 * t['fallback_rate']:>9.1f}%{t['latency_s']:>8.1f}s"
            )
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "num_players": self.num_players,
            "agents": self.agents,
            "games_per_pairing": self.games_per_pairing,
            "seed": self.seed,
            "wall_s": self.wall_s,
            "rating_kind": self.rating_kind,
            "notes": self.notes,
            "text_play": self.text_play(),
            "policies": {
                label: {"path": path, "mode": "sampled" if label.endswith(SAMPLED) else "deterministic"}
                for label, path in self.policies.items()
            },
            "rating_anchor": elo_anchor(self.agents) if self.rating_kind == "elo" else None,
            "ratings": {k: asdict(v) for k, v in self.ratings.items()},
            "pairs": [{**asdict(p), "win_rate": p.win_rate, "win_ci": p.win_ci} for p in self.pairs],
            "games": [asdict(g) for g in self.games],
        }

    def plot(self, path: str | Path | None = None, title: str | None = None) -> Any:
        """Win rates (or mean ranks) per pairing and the ratings; saved as PNG when ``path`` is given."""
        import matplotlib

        if path is not None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        pairs = self.listed_pairs()
        labels = [f"{p.agent} vs {p.opponent}" for p in pairs]
        # wide enough for both panels' tick labels (about 0.09 inch a character), so the layout always fits
        width = max(11.0, 0.09 * (max(map(len, labels), default=0) + max(map(len, self.agents), default=0)) + 6.0)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(width, 0.5 * len(pairs) + 2.2), gridspec_kw={"width_ratios": [3, 2]})
        y = np.arange(len(pairs))
        if self.num_players == 1:
            ax1.barh(y, [p.mean_score for p in pairs], xerr=[p.score_ci for p in pairs], color="#55a868", capsize=3)
            ax1.set_xlabel("mean score with 95% interval")
        elif self.num_players == 2:
            values = [100 * p.win_rate for p in pairs]
            err = np.array([[100 * (p.win_rate - p.win_ci[0]), 100 * (p.win_ci[1] - p.win_rate)] for p in pairs]).T
            err = np.clip(err, 0, None)
            ax1.barh(y, values, xerr=err, color="#4c72b0", capsize=3)
            ax1.set_xlim(0, 100)
            ax1.set_xlabel("win rate (%) with 95% interval")
        else:
            values = [p.mean_rank for p in pairs]
            ax1.barh(y, values, xerr=[p.rank_ci for p in pairs], color="#55a868", capsize=3)
            ax1.set_xlim(1, self.num_players)
            ax1.set_xlabel(f"mean rank (1 best, {self.num_players} worst) with 95% interval")
        ax1.set_yticks(y, labels)
        ax1.invert_yaxis()
        names = sorted(self.ratings, key=lambda n: -self.ratings[n].value)
        ax2.barh(
            np.arange(len(names)),
            [self.ratings[n].value for n in names],
            xerr=[self.ratings[n].uncertainty for n in names] if self.rating_kind == "elo" else None,
            color="#c44e52",
            capsize=3,
        )
        ax2.set_yticks(np.arange(len(names)), names)
        ax2.invert_yaxis()
        ax2.set_xlabel(f"Elo ({elo_anchor(self.agents)})" if self.rating_kind == "elo" else "OpenSkill ordinal")
        fig.suptitle(title or f"{self.env_id}, {players_text(self.num_players)}, {self.games_per_pairing} games per pairing")
        fig.tight_layout()
        if path is not None:
            save_figure(fig, path)
        return fig


def players_text(n: int) -> str:
    """``"1 player"``, ``"3 players"``."""
    return f"{n} player" if n == 1 else f"{n} players"


# ---- playing ------------------------------------------------------------------------------------------
def play(game: Game, agents: Sequence[Agent], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """One game, ``agents[seat]`` seeing only its seat's view, chance from ``rng``: final returns, scores,
    number of decisions, and whether it was cut off at ``max_game_length``."""
    episode = Episode(game)
    episode.reset(rng)
    episode.play(dict(enumerate(agents)))
    state = episode.require_state()
    returns = np.asarray(state.returns(), dtype=np.float64)
    return returns, np.asarray(state.scores(), dtype=np.float64), episode.num_moves, episode.truncated


def outcome(returns: np.ndarray, seat: int) -> str:
    """``"win"``, ``"draw"`` or ``"loss"`` of one seat from the final returns.

    A win is a best return that not every seat shares (partners of a winning team both win).
    """
    r = np.asarray(returns, dtype=np.float64)
    if np.allclose(r, r[0]):
        return "draw"
    return "win" if r[seat] >= r.max() - 1e-9 else "loss"


def agent_labels(agents: Sequence[Agent]) -> list[str]:
    """A distinct label for every agent: its ``name``, made unique where names clash.

    Saved models are named after their file (``model:final_model``), so two models with the same file name
    in different folders get the shortest path suffix that tells them apart (``model:a/final_model`` and
    ``model:b/final_model``). Agents that are still alike (the same model twice, two ``random``) are
    numbered: ``random``, ``random#2``. A learned policy that samples its moves ends in ``~sampled``.
    """
    labels, endings = [], []
    for agent in agents:
        label = str(getattr(agent, "name", type(agent).__name__))
        sampled = isinstance(agent, PolicyAgent) and not agent.deterministic
        labels.append(label.removesuffix(SAMPLED) if sampled else label)
        endings.append(SAMPLED if sampled else "")
    clashes: dict[str, list[int]] = {}
    for k, label in enumerate(labels):
        clashes.setdefault(label, []).append(k)
    for label, group in clashes.items():
        paths = {k: str(getattr(agents[k], "path", "") or "") for k in group}
        with_path = [k for k in group if paths[k]]
        if len(with_path) < 2:
            continue
        parts = {k: Path(paths[k]).resolve().with_suffix("").parts for k in with_path}
        stem = Path(paths[with_path[0]]).stem
        if not all(Path(paths[k]).stem == stem for k in with_path) or not label.endswith(stem):
            continue
        prefix, distinct = label.removesuffix(stem), len(set(parts.values()))
        for depth in range(2, max(len(p) for p in parts.values()) + 1):
            suffixes = {k: "/".join(parts[k][-depth:]) for k in with_path}
            if len(set(suffixes.values())) == distinct > 1:
                for k, suffix in suffixes.items():
                    labels[k] = prefix + suffix
                break
    names: list[str] = []
    for base, ending in zip(labels, endings, strict=True):
        name, k = base + ending, 2
        while name in names:
            name, k = f"{base}#{k}{ending}", k + 1
        names.append(name)
    return names


def sampled_twin(agent: PolicyAgent) -> PolicyAgent:
    """The same learned policy (sharing its loaded model), drawing its moves from the policy."""
    twin = object.__new__(type(agent))
    twin.__dict__.update(agent.__dict__)
    twin.deterministic = False
    twin.name = agent.name.removesuffix(SAMPLED) + SAMPLED
    return twin


def build_agents(specs: Sequence[str | Agent], env_id: str, deterministic: bool = True, trust_model: bool = False) -> list[Agent]:
    """Agents from names (``random``, ``heuristic``, ``reference``, ``model:PATH``, ``rllib:PATH``, ``mcts:...``) or
    agent objects (see ``make_agent``).

    A learned policy's name may end in ``~sampled`` (``model:PATH~sampled``): that agent draws its moves from
    the policy, as every learned agent does with ``deterministic=False``. A saved model is named after its
    file (``model:final_model``), whatever folder it is in.

    ``trust_model``: load models not saved by gameshelf with a full (unpickling) load; see docs/security.md
    (network files, ``.npz``, are never unpickled).
    """
    out: list[Agent] = []
    for spec in specs:
        if not isinstance(spec, str):
            out.append(spec)
            continue
        base = spec.removesuffix(SAMPLED)
        try:
            kwargs: dict[str, Any] = {}
            if base.startswith("model:"):
                kwargs = {"deterministic": deterministic, "trust_model": trust_model}
            elif base.startswith("rllib:") or base == "reference":
                kwargs = {"deterministic": deterministic}
            elif base.startswith("mcts:") and ":model:" in base:
                kwargs = {"trust_model": trust_model}
            agent = make_agent(base, env_id, **kwargs)
            if base.startswith("model:") and is_net_file(base):  # named after its file, as a saved SB3 model is
                agent.name = f"model:{Path(base).stem}"
        except (ValueError, FileNotFoundError, ImportError) as err:
            raise UserError(f"agent {spec!r}: {err}") from None
        if base != spec:
            if not isinstance(agent, PolicyAgent):
                raise UserError(f"agent {spec!r}: only a learned policy (model:PATH, rllib:PATH, reference) can end in {SAMPLED}")
            agent = sampled_twin(agent)
        out.append(agent)
    return out


def in_modes(agents: Sequence[Agent], modes: str) -> tuple[list[Agent], list[int]]:
    """The agents with their learned policies played as ``modes`` says (one of ``MODES``), and the index in
    ``agents`` each comes from. ``deterministic`` keeps every agent as given; ``sampled`` makes every learned
    policy draw its moves; ``both`` follows every deterministic learned policy with its sampled twin."""
    if modes not in MODES:
        raise ValueError(f"modes={modes!r} is not allowed; allowed values: {list(MODES)}")
    out: list[Agent] = []
    origin: list[int] = []
    for k, agent in enumerate(agents):
        if isinstance(agent, PolicyAgent) and agent.deterministic and modes != "deterministic":
            played: list[Agent] = [sampled_twin(agent)] if modes == "sampled" else [agent, sampled_twin(agent)]
        else:
            played = [agent]
        out += played
        origin += [k] * len(played)
    return out, origin


def lineups(
    num_agents: int, num_players: int, games: int, first_only: bool = False
) -> list[tuple[int, int, int, tuple[int, ...]]]:
    """``(focal, opponent, deal, lineup)`` of every game: all seats played, paired deals.

    ``first_only``: only the pairings of agent 0 against each other agent.
    """
    out: list[tuple[int, int, int, tuple[int, ...]]] = []
    if num_players == 2:
        for i, j in itertools.combinations(range(num_agents), 2):
            if first_only and i != 0:
                continue
            for k in range(games):
                out.append((i, j, k // 2, (i, j) if k % 2 == 0 else (j, i)))
    else:
        for i, j in itertools.permutations(range(num_agents), 2):
            if first_only and i != 0:
                continue
            for k in range(games):
                seat = k % num_players
                out.append((i, j, k // num_players, tuple(i if s == seat else j for s in range(num_players))))
    return out


def evaluate(
    env_id: str,
    agents: Sequence[str | Agent],
    games: int = 100,
    seed: int = 0,
    num_players: int | None = None,
    options: dict[str, Any] | None = None,
    progress: bool = False,
    first_only: bool = False,
    modes: str = "deterministic",
) -> EvalResult:
    """Play seeded games between ``agents`` (every pairing, every seat) and summarize them.

    ``games`` is the number of games per pairing (two players: per pair of agents; more players: per
    agent against a field of another agent). Game ``k`` of a pairing uses a chance seed derived from
    ``(seed, pairing, k // num_players)``, so results do not depend on the order of play.
    ``first_only``: only the first agent against each of the others (for quick checks during training).
    ``modes``: how learned policies play (``deterministic``: as given, names without ``~sampled`` take their
    most likely action; ``sampled``; ``both``: each also as ``NAME~sampled``, never against itself).
    """
    if len(agents) < 2:
        raise ValueError("evaluate needs at least two agents")
    if games < 1:
        raise ValueError("games must be at least 1")
    game_options = dict(options or {})
    if num_players is not None:
        game_options["num_players"] = num_players
    game = envs.make_game(env_id, **game_options)
    n = game.info.num_players
    players, origin = in_modes(build_agents(agents, env_id), modes)
    names = agent_labels(players)
    learned = [(name, a) for name, a in zip(names, players, strict=True) if isinstance(a, PolicyAgent)]
    policies = {name: str(getattr(a, "path", "") or "") for name, a in learned}
    start = time.perf_counter()
    # a policy never plays its own twin; the two modes of a policy play the same deals against each opponent
    plan = [game for game in lineups(len(players), n, games, first_only) if origin[game[0]] != origin[game[1]]]
    pair_index = {pair: k for k, pair in enumerate(sorted({(origin[i], origin[j]) for i, j, _, _ in plan}))}
    bar = None
    if progress:
        try:
            from tqdm.auto import tqdm
        except ImportError:  # a base install: no progress bar
            pass
        else:
            bar = tqdm(total=len(plan), desc=f"evaluate {env_id}", unit="game")
    results: list[GameResult] = []
    for i, j, deal, lineup in plan:
        game_seed = int(np.random.SeedSequence([seed, pair_index[(origin[i], origin[j])], deal]).generate_state(1)[0])
        rng = np.random.default_rng(game_seed)
        seated = [players[a] for a in lineup]
        before = seat_stats(seated)
        returns, scores, length, truncated = play(game, seated, rng)
        text = stats_grown(before, seat_stats(seated))
        results.append(GameResult(lineup, returns.tolist(), scores.tolist(), length, truncated, game_seed, text))
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    pairs = _summarize(names, n, results, plan)
    notes: list[str] = []
    if n == 2:
        duels = []
        for g in results:
            a, b = g.lineup
            result = outcome(np.asarray(g.returns), 0)
            duels.append((a, b, {"win": 1.0, "draw": 0.5, "loss": 0.0}[result]))
        ratings = elo_ratings(names, duels)
        kind = "elo"
    elif n == 1:  # solitaire: no one to rate against, the table gives the mean scores
        ratings, kind = {}, "none"
    else:
        try:
            ratings = openskill_ratings(names, [(g.lineup, ranks_of(np.asarray(g.returns))) for g in results], seed=seed)
            kind = "openskill"
        except ModuleNotFoundError as err:
            if not (err.name or "").startswith("openskill"):
                raise
            ratings, kind = {}, "none"
            notes.append('no ratings: OpenSkill is not installed (it comes with the train extra: pip install "gameshelf[train]")')
    wall_s = time.perf_counter() - start
    return EvalResult(env_id, n, names, games, seed, results, pairs, ratings, kind, wall_s, notes, policies)


def _summarize(names: list[str], n: int, results: list[GameResult], plan: list[Any]) -> list[PairResult]:
    per: dict[tuple[int, int], list[tuple[int, GameResult]]] = {}
    for (i, j, _, lineup), g in zip(plan, results, strict=True):
        if n == 2:
            per.setdefault((i, j), []).append((lineup.index(i), g))
            per.setdefault((j, i), []).append((lineup.index(j), g))
        else:
            per.setdefault((i, j), []).append((lineup.index(i), g))
    pairs = []
    for (i, j), items in per.items():
        tally = {"win": 0, "draw": 0, "loss": 0}
        seat_wins: dict[int, list[int]] = {}
        seat_tally: dict[int, list[int]] = {}
        ranks, scores, rets = [], [], []
        for seat, g in items:
            r = np.asarray(g.returns)
            result = outcome(r, seat)
            tally[result] += 1
            seat_wins.setdefault(seat, []).append(int(result == "win"))
            seat_tally.setdefault(seat, [0, 0, 0])[("win", "draw", "loss").index(result)] += 1
            ranks.append(ranks_of(r)[seat])
            scores.append(g.scores[seat])
            rets.append(g.returns[seat])
        rank, rank_ci = mean_ci(ranks)
        score, score_ci = mean_ci(scores)
        ret, ret_ci = mean_ci(rets)
        pairs.append(
            PairResult(
                names[i], names[j], len(items), tally["win"], tally["draw"], tally["loss"],
                rank, rank_ci, score, score_ci, ret, ret_ci,
                {s: float(np.mean(v)) for s, v in sorted(seat_wins.items())},
                {s: (w, d, lo) for s, (w, d, lo) in sorted(seat_tally.items())},
            )
        )  # fmt: skip
    pairs.sort(key=lambda p: (names.index(p.agent), names.index(p.opponent)))
    return pairs


# ---- command line -------------------------------------------------------------------------------------
def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="gameshelf evaluate",
        description="Play agents against each other over seeded games (every seat) and rate them.",
    )
    parser.add_argument("env_id", help="environment id, e.g. level_x-v0")
    parser.add_argument(
        "agents",
        nargs="+",
        help="agents: random, heuristic, reference, model:PATH (PATH.npz: a network file), rllib:PATH, "
        "mcts:N[:heuristic|:reference|:reference:heuristic|:model:PATH], mcts:Ts (at least two); a learned "
        "policy's name may end in ~sampled",
    )
    parser.add_argument("--games", type=int, default=100, help="games per pairing (default 100)")
    parser.add_argument("--players", type=int, default=None, help="number of players (default: the id's first count)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the chance draws (default 0)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--policy-mode",
        choices=MODES,
        default=None,
        help="how learned policies (model:, rllib:, reference) play: their most likely legal action, moves drawn "
        "from the policy (named NAME~sampled), or both, as two agents (default both)",
    )
    mode.add_argument("--stochastic", action="store_true", help="the same as --policy-mode sampled")
    parser.add_argument(
        "--trust-model",
        action="store_true",
        help="load models not saved by gameshelf with a full load, which can run code from the file (docs/security.md)",
    )
    plot = parser.add_mutually_exclusive_group()
    plot.add_argument("--plot", default=None, help="image path, e.g. .png (default: a new runs/eval/<env>-<players>p-<time>.png)")
    plot.add_argument("--no-plot", action="store_true", help="do not save a plot")
    parser.add_argument("--json", default=None, help="also write the full results as JSON to this path")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (there is none unless the output is a terminal)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    players = check_env_id(args.env_id, args.players)
    if len(args.agents) < 2:
        raise UserError(f"give at least two agents to play each other (got {len(args.agents)})")
    if args.games < 1:
        raise UserError(f"--games must be at least 1, not {args.games}")
    if args.seed < 0:
        raise UserError(f"--seed must be 0 or more, not {args.seed}")
    agents = build_agents(args.agents, args.env_id, trust_model=args.trust_model)
    for spec, agent in zip(args.agents, agents, strict=True):
        if spec.startswith("model:") and not is_net_file(spec.removeprefix("model:")):  # a network is loaded when made
            try:
                _ = agent.model  # type: ignore[attr-defined]
            except Exception as err:
                raise UserError(f"agent {spec!r}: cannot load the model ({err})") from None
    plot_path = None
    plot_note = None
    if args.plot is None and not args.no_plot and not plotting_available():
        plot_note = 'plot: none, matplotlib is not installed (it comes with the train extra: pip install "gameshelf[train]")'
    elif not args.no_plot:  # an explicit --plot without matplotlib is refused with the same hint
        plot_path = check_plot_path(args.plot or str(default_plot_path(args.env_id, players)))
    json_path = check_writable_file(args.json) if args.json else None
    result = evaluate(
        args.env_id,
        agents,
        games=args.games,
        seed=args.seed,
        num_players=players,
        progress=show_progress(args.quiet),
        modes="sampled" if args.stochastic else args.policy_mode or "both",
    )
    print(result.table())
    if plot_path is not None:
        replaced = plot_path.exists()
        result.plot(plot_path)
        print(f"plot: {plot_path}" + (" (replaced the file that was there)" if replaced else ""))
    elif plot_note is not None:
        print(plot_note)
    if json_path is not None:
        atomic_write_text(json_path, json.dumps(result.to_dict(), indent=1))
        print(f"results: {json_path}")
    return 0


def save_figure(fig: Any, path: str | Path) -> None:
    """Write a matplotlib figure as the image ``path`` names (format by its extension), atomically; close it."""
    import io

    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format=Path(path).suffix.removeprefix(".").lower() or "png", dpi=110)
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())


def default_plot_path(env_id: str, players: int) -> Path:
    """Where a run writes its plot unless ``--plot`` names a file: a new ``runs/eval/<env>-<players>p-<time>.png``."""
    return new_file_path(Path("runs/eval"), f"{env_id}-{players}p", ".png")


def new_file_path(folder: Path, stem: str, suffix: str) -> Path:
    """A path in ``folder`` named after ``stem`` and the local time, that no file has yet: one per run."""
    base = f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    path, k = folder / f"{base}{suffix}", 2
    while path.exists():
        path, k = folder / f"{base}-{k}{suffix}", k + 1
    return path


def plotting_available() -> bool:
    """Whether matplotlib can be imported (it comes with the ``train`` extra)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def check_plot_path(path: str) -> Path:
    """A writable image path whose extension matplotlib can write (checked before any game is played)."""
    from matplotlib.backend_bases import FigureCanvasBase

    if Path(path).is_dir():
        raise UserError(f"--plot {path!r} is a directory, expected a file path such as {path}/evaluation.png")
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().removeprefix(".")
    if suffix not in formats:
        known = ", ".join(f".{ext}" for ext in sorted(formats))
        raise UserError(f"--plot {path!r}: the file name must end in an image format: {known}")
    return check_writable_file(path)


if __name__ == "__main__":
    run(main, prog="gameshelf evaluate")
