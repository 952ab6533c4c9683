"""Profile the search path (``clone`` + ``legal_actions`` + ``apply_checked_action``) of every game.

    python benchmarks/search_path.py                          # every id: ops/s and the split per operation
    python benchmarks/search_path.py --ids koplus-v0 --profile 15   # plus cProfile's top 15 functions

The positions are those of ``gameshelf bench --mcts`` (met along random games, default options). Times
are this process's CPU time (``time.process_time``), so other jobs on a shared machine disturb them less
than wall time; each figure is the median of ``--rounds`` interleaved rounds, as in ``gameshelf bench``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from collections.abc import Sequence

import numpy as np

from gameshelf import envs
from gameshelf.bench.throughput import bench_search_path, search_positions


def split(env_id: str, seconds: float, seed: int = 0) -> tuple[float, float, float, float]:
    """Operations per CPU second, and CPU microseconds per ``clone``, per ``legal_actions`` and per
    ``apply_checked_action``, from the bench's positions."""
    positions = search_positions(env_id, seed=seed)
    rng = np.random.default_rng(seed)
    for state in positions:  # warm-up, untimed
        state.clone().legal_actions()
    clone_t = mask_t = apply_t = 0.0
    n = 0
    clock = time.process_time
    start = clock()
    end = start + seconds
    while clock() < end:
        for state in positions:
            t0 = clock()
            copy = state.clone()
            t1 = clock()
            legal = copy.legal_actions()
            t2 = clock()
            copy.apply_checked_action(legal[rng.integers(len(legal))])
            t3 = clock()
            clone_t, mask_t, apply_t = clone_t + t1 - t0, mask_t + t2 - t1, apply_t + t3 - t2
        n += len(positions)
    whole = _round_trips(positions, seconds, seed)
    return whole, 1e6 * clone_t / n, 1e6 * mask_t / n, 1e6 * apply_t / n


def _round_trips(positions: list, seconds: float, seed: int) -> float:
    """clone + legal_actions + apply per CPU second (no clock reads inside the loop)."""
    rng = np.random.default_rng(seed)
    ops = 0
    clock = time.process_time
    start = clock()
    while clock() - start < seconds:
        for state in positions:
            copy = state.clone()
            legal = copy.legal_actions()
            copy.apply_checked_action(legal[rng.integers(len(legal))])
        ops += len(positions)
    return ops / (clock() - start)


def profile(env_id: str, seconds: float, top: int) -> None:
    """cProfile's ``top`` functions by own time over ``seconds`` of the search path."""
    profiler = cProfile.Profile()
    profiler.enable()
    bench_search_path(env_id, seconds)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="*", default=None, help="environment ids (default: all registered)")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the median is reported")
    parser.add_argument("--profile", type=int, default=0, metavar="TOP", help="also print cProfile's TOP functions per id")
    args = parser.parse_args(argv)
    ids = args.ids or envs.registered_ids()
    runs: dict[str, list[tuple[float, float, float, float]]] = {env_id: [] for env_id in ids}
    for _ in range(args.rounds):
        for env_id in ids:
            runs[env_id].append(split(env_id, args.seconds))
    print(f"{'environment':<26}{'clone+mask+apply/s':>20}{'clone us':>10}{'mask us':>10}{'apply us':>10}")
    for env_id in ids:
        ops, c, m, a = (statistics.median(column) for column in zip(*runs[env_id], strict=True))
        print(f"{env_id:<26}{ops:>20,.0f}{c:>10.1f}{m:>10.1f}{a:>10.1f}", flush=True)
    if args.profile:
        for env_id in ids:
            print(f"\n== {env_id}")
            profile(env_id, args.seconds, args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
