"""Ratings across agents: Elo (a Bradley–Terry fit) for two-player games, OpenSkill for more players.

Both take the list of played games (who sat where, final ranks) and return ``{name: Rating}``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ELO_SCALE = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Rating:
    value: float
    """Elo points, or OpenSkill's ordinal ``mu - 3 sigma``."""
    uncertainty: float
    """Half-width of a 95% interval (Elo) or OpenSkill's ``sigma``."""
    mu: float | None = None


def elo_ratings(
    names: Sequence[str],
    games: Sequence[tuple[int, int, float]],
    anchor: str | None = "random",
    anchor_value: float = 1000.0,
) -> dict[str, Rating]:
    """Elo ratings fitted to two-player results ``(i, j, score_of_i)`` (1 win, 0.5 draw, 0 loss).

    A maximum-likelihood Bradley–Terry fit (order-independent, unlike running Elo updates) with one
    virtual draw between every pair that met, so perfect records stay finite. ``anchor`` (when present)
    is fixed at ``anchor_value``; otherwise the mean is. Uncertainty: 1.96 standard errors.
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
    r = np.zeros(n)
    for _ in range(500):
        diff = r[:, None] - r[None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        grad = (wins - played * p).sum(axis=1)
        hess = (played * p * (1 - p)).sum(axis=1) + 1e-9
        # half a per-seat Newton step: both sides of a pairing move, so a full step overshoots by 2 and
        # two agents oscillate for ever around their fitted gap
        step = 0.5 * grad / hess
        r += np.clip(step, -2, 2)
        r -= r.mean()
        if np.abs(step).max() < 1e-10:
            break
    diff = r[:, None] - r[None, :]
    p = 1.0 / (1.0 + np.exp(-diff))
    info = (played * p * (1 - p)).sum(axis=1)
    se = np.where(info > 0, 1.0 / np.sqrt(np.maximum(info, 1e-12)), np.inf)
    elo = r * ELO_SCALE
    shift = anchor_value - (elo[list(names).index(anchor)] if anchor in names else elo.mean())
    return {name: Rating(float(elo[k] + shift), float(1.96 * se[k] * ELO_SCALE)) for k, name in enumerate(names)}


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
