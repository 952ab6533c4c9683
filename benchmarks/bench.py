"""Throughput of random legal play: every registered id, beside PettingZoo's classic environments.

    python benchmarks/bench.py                 # all ids, 3 s each
    python benchmarks/bench.py --seconds 10 --ids level_x-v0

For each environment it prints agent-steps/s and games/s through ``envs.make()`` (the PettingZoo AEC loop:
``last()`` then ``step()``) and through the bare engine (``legal_actions`` / ``apply_action``, chance
sampled inline). PettingZoo's ``connect_four_v3`` and ``tictactoe_v3`` (``pip install
'pettingzoo[classic]'``) are measured in the same run with the same loop.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import envs
from envs.core import random_playout


def bench_aec(make_env: Callable[[], Any], seconds: float, seed: int = 0) -> tuple[float, float]:
    """Agent-steps/s and games/s of random legal play through an AEC environment."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=int(rng.integers(1 << 31)))
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def bench_engine(env_id: str, num_players: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Agent-steps/s and games/s of random legal play on the bare engine."""
    game = envs.make_game(env_id, num_players=num_players)
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        steps += random_playout(game.new_initial_state(), rng)
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def pettingzoo_references() -> dict[str, Callable[[], Any]]:
    refs: dict[str, Callable[[], Any]] = {}
    try:
        from pettingzoo.classic import connect_four_v3, tictactoe_v3
    except ImportError:
        print("(PettingZoo's classic environments are not installed: pip install 'pettingzoo[classic]')")
        return refs
    refs["pettingzoo connect_four_v3"] = connect_four_v3.env
    refs["pettingzoo tictactoe_v3"] = tictactoe_v3.env
    return refs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--ids", nargs="*", default=None, help="environment ids (default: all registered)")
    args = parser.parse_args()
    ids = args.ids or envs.registered_ids()
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; {args.seconds:g} s each")
    header = f"{'environment':<30}{'make() steps/s':>16}{'games/s':>10}{'engine steps/s':>16}{'games/s':>10}"
    print(header)
    print("-" * len(header))
    for name, fn in pettingzoo_references().items():
        steps, games = bench_aec(fn, args.seconds)
        print(f"{name:<30}{steps:>16,.0f}{games:>10,.1f}{'-':>16}{'-':>10}", flush=True)
    for env_id in ids:
        for n in envs.spec(env_id).player_counts:
            label = f"{env_id} ({n}p)"
            try:
                steps, games = bench_aec(lambda env_id=env_id, n=n: envs.make(env_id, num_players=n), args.seconds)
                esteps, egames = bench_engine(env_id, n, args.seconds)
            except ImportError as err:
                print(f"{label:<30}  not available: {err}")
                continue
            print(f"{label:<30}{steps:>16,.0f}{games:>10,.1f}{esteps:>16,.0f}{egames:>10,.1f}", flush=True)


if __name__ == "__main__":
    main()
