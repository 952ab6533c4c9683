"""Ratings across agents: Elo (a Bradley–Terry fit) for two-player games, OpenSkill for more players.

Both take the list of played games (who sat where, final ranks) and return ``{name: Rating}``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of odds."""
Z95 = 1.959963984540054
RCOND = 1e-9
"""Eigenvalues below this fraction of the largest count as zero (the mean of the ratings is not identified)."""


@dataclass(frozen=True)
class Rating:
    value: float
    """Elo points, or OpenSkill's ordinal ``mu - 3 sigma``."""
    uncertainty: float
    """Half-width of a 95% interval (Elo) or OpenSkill's ``sigma``."""
    mu: float | None = None


def elo_anchor(names: Sequence[str], anchor: str | None = "random", anchor_value: float = 1000.0) -> str:
    """What the Elo scale is pinned to, as the tables say it: ``"random = 1000"`` when the anchor agent
    plays, else ``"mean = 1000"`` (the mean rating of the agents listed)."""
    return f"{anchor} = {anchor_value:g}" if anchor is not None and anchor in names else f"mean = {anchor_value:g}"


def elo_ratings(
    names: Sequence[str],
    games: Sequence[tuple[int, int, float]],
    anchor: str | None = "random",
    anchor_value: float = 1000.0,
) -> dict[str, Rating]:
    """Elo ratings fitted to two-player results ``(i, j, score_of_i)`` (1 win, 0.5 draw, 0 loss).

    A maximum-likelihood Bradley–Terry fit (order-independent, unlike running Elo updates) with one
    virtual draw between every pair that met, so perfect records stay finite. With two agents it is the
    closed form: the difference is ``400 log10(p / (1 - p))`` for the score rate ``p`` (virtual draw
    included). ``anchor`` (when it plays) is fixed at ``anchor_value``; otherwise the mean of all agents
    is (see ``elo_anchor``). Uncertainty: 1.96 standard errors of each rating relative to the anchor (0
    for the anchor itself), or relative to the mean when no anchor plays.
    """
    n = len(names)
    if n == 0:
        return {}
    wins = np.zeros((n, n))
    played = np.zeros((n, n))
    for i, j, s in games:
        if i == j:
            continue
        wins[i, j] += s
        wins[j, i] += 1.0 - s
        played[i, j] += 1
        played[j, i] += 1
    met = played > 0
    wins += 0.5 * met
    played += 1.0 * met

    def log_likelihood(r: np.ndarray) -> float:
        return float(-(wins * np.logaddexp(0.0, -(r[:, None] - r[None, :]))).sum())

    def information(r: np.ndarray) -> np.ndarray:
        """Fisher information (minus the Hessian of the log-likelihood): a weighted graph Laplacian."""
        p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
        w = played * p * (1 - p)
        return np.diag(w.sum(axis=1)) - w

    # Newton's method on the concave log-likelihood, with the full Hessian (the ratings are coupled: a
    # step on one agent alone overshoots) and step halving. The pseudo-inverse keeps each group of agents
    # that met its mean, the one direction the likelihood does not see.
    r = np.zeros(n)
    current = log_likelihood(r)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
        grad = (wins - played * p).sum(axis=1)
        step = np.linalg.pinv(information(r), RCOND, hermitian=True) @ grad
        t = 1.0
        while t > 1e-6 and log_likelihood(r + t * step) < current - 1e-12:
            t /= 2
        if t <= 1e-6:
            break
        r = r + t * step
        current = log_likelihood(r)
        if np.abs(t * step).max() < 1e-10:
            break
    info = information(r)
    k = list(names).index(anchor) if anchor is not None and anchor in names else None
    if k is None:  # relative to the mean; an agent without games is unknown
        variance = np.diag(np.linalg.pinv(info, RCOND, hermitian=True)).copy()
        variance[~met.any(axis=1)] = np.inf
        shift = anchor_value - r.mean() * ELO_SCALE
    else:  # relative to the anchor; an agent never linked to it by games is unknown
        keep = [m for m in range(n) if m != k]
        variance = np.zeros(n)
        variance[keep] = np.diag(np.linalg.pinv(info[np.ix_(keep, keep)], RCOND, hermitian=True))
        linked = np.zeros(n, dtype=bool)
        linked[k] = True
        for _ in range(n):
            linked |= (met[:, linked]).any(axis=1)
        variance[~linked] = np.inf
        shift = anchor_value - r[k] * ELO_SCALE
    elo = r * ELO_SCALE + shift
    se = np.sqrt(np.maximum(variance, 0.0))
    return {name: Rating(float(elo[m]), float(Z95 * se[m] * ELO_SCALE)) for m, name in enumerate(names)}


def openskill_ratings(
    names: Sequence[str], games: Sequence[tuple[Sequence[int], Sequence[float]]], seed: int = 0
) -> dict[str, Rating]:
    """OpenSkill (Plackett–Luce) ratings from multi-player games ``(agent index per seat, rank per seat)``.

    Ranks: 1 is best, ties share a rank. An agent in several seats of one game is rated as separate
    copies whose updates are averaged. Games are processed in a seeded random order.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {k: model.rating(name=name) for k, name in enumerate(names)}
    order = np.random.default_rng(seed).permutation(len(games))
    for g in order:
        lineup, ranks = games[g]
        teams = [[model.rating(mu=ratings[a].mu, sigma=ratings[a].sigma)] for a in lineup]
        new = model.rate(teams, ranks=list(ranks))
        updates: dict[int, list[tuple[float, float]]] = {}
        for a, team in zip(lineup, new, strict=True):
            updates.setdefault(a, []).append((team[0].mu, team[0].sigma))
        for a, values in updates.items():
            ratings[a] = model.rating(
                mu=float(np.mean([v[0] for v in values])), sigma=float(np.mean([v[1] for v in values])), name=names[a]
            )
    return {names[k]: Rating(float(r.mu - 3 * r.sigma), float(r.sigma), mu=float(r.mu)) for k, r in ratings.items()}
