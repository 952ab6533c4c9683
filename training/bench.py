"""Throughput of random legal play: every registered id, beside PettingZoo's classic environments.

    gameshelf bench                                  # all ids, median of 3 interleaved rounds of 2 s
    gameshelf bench --seconds 5 --rounds 5 --ids level_x-v0

For each environment it prints agent-steps/s and games/s through ``envs.make()`` (the PettingZoo AEC loop:
``last()`` then ``step()``) and through the bare engine (``legal_actions`` / ``apply_action``, chance
sampled inline). PettingZoo's ``connect_four_v3`` and ``tictactoe_v3`` (``pip install
'pettingzoo[classic]'``) are measured in the same run with the same loop.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gameshelf import envs
from gameshelf.envs.core import random_playout
from gameshelf.training.cli_util import check_env_id, run, show_progress


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gameshelf bench", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the median is reported")
    parser.add_argument("--ids", nargs="*", default=None, help="environment ids (default: all registered)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (there is none unless the output is a terminal)")
    args = parser.parse_args(argv)
    ids = args.ids or envs.registered_ids()
    for env_id in ids:
        check_env_id(env_id)
    rows: dict[str, tuple[Callable[[], Any] | None, Callable[[], tuple[float, float]] | None]] = {}
    for name, fn in pettingzoo_references().items():
        rows[name] = (fn, None)
    for env_id in ids:
        for n in envs.spec(env_id).player_counts:
            rows[f"{env_id} ({n}p)"] = (
                lambda env_id=env_id, n=n: envs.make(env_id, num_players=n),
                lambda env_id=env_id, n=n: bench_engine(env_id, n, args.seconds),
            )
    results: dict[str, list[tuple[float, ...]]] = {name: [] for name in rows}
    # rounds interleave every environment, so load changes on the machine hit all of them alike
    for _ in tqdm_or_plain(range(args.rounds), "rounds", show_progress(args.quiet)):
        for name, (make_env, engine) in rows.items():
            aec = bench_aec(make_env, args.seconds) if make_env else (float("nan"),) * 2
            eng = engine() if engine else (float("nan"),) * 2
            results[name].append((*aec, *eng))
    reference = statistics.median(r[0] for r in results.get("pettingzoo connect_four_v3", [(float("nan"),)]))
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; "
        f"median of {args.rounds} rounds of {args.seconds:g} s"
    )
    header = f"{'environment':<30}{'make() steps/s':>16}{'vs c4':>7}{'games/s':>10}{'engine steps/s':>16}{'games/s':>10}"
    print(header)
    print("-" * len(header))
    for name, runs in results.items():
        med = [statistics.median(r[i] for r in runs) for i in range(4)]
        ratio = med[0] / reference if reference == reference else float("nan")
        cells = [f"{med[0]:>16,.0f}", f"{ratio:>6.2f}x", f"{med[1]:>10,.1f}"]
        cells += [f"{med[2]:>16,.0f}", f"{med[3]:>10,.1f}"] if med[2] == med[2] else [f"{'-':>16}", f"{'-':>10}"]
        print(f"{name:<30}{''.join(cells)}", flush=True)
    return 0


def tqdm_or_plain(items: Any, desc: str, progress: bool = True) -> Any:
    """``items`` behind a progress bar when ``progress`` and tqdm is installed, else as they are."""
    if not progress:
        return items
    try:
        from tqdm import tqdm
    except ImportError:
        return items
    return tqdm(items, desc=desc, leave=False)


if __name__ == "__main__":
    run(main, prog="gameshelf bench")
