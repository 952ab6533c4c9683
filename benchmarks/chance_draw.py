"""What one chance draw costs: ``state.sample_chance(rng)`` at the first chance nodes of a random game, per id.

    python benchmarks/chance_draw.py [ID ...] [--nodes 6] [--draws 50000] [--rounds 7]

Prints, per id, the CPU microseconds of one draw at each of its first ``--nodes`` chance nodes (the median of
``--rounds`` rounds of ``--draws`` draws; warm-up excluded): the generic path (``KernelState.sample_chance``,
the kernel's ``chance_weights`` read in two compiled calls) or a game's own reading of the kernel's weights,
which the kit's ``check_kernel_row`` checks draw for draw. Ids without chance are left out.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np

from gameshelf import envs
from gameshelf.envs.core.game import State


def chance_nodes(env_id: str, count: int, seed: int = 0) -> list[State]:
    """Copies of the first ``count`` chance nodes of one random game of ``env_id`` (fewer if it ends first)."""
    rng = np.random.default_rng(seed)
    state, nodes = envs.make_game(env_id).new_initial_state(), []
    while len(nodes) < count and not state.is_terminal():
        if state.is_chance_node():
            nodes.append(state.clone())
            state.apply_action(int(state.sample_chance(rng)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return nodes


def cpu_us(fn: Callable[[], object], draws: int, rounds: int) -> float:
    """Median CPU microseconds of one call of ``fn`` over ``rounds`` rounds of ``draws`` calls (after one call)."""
    fn()
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(draws):
            fn()
        times.append((time.process_time() - start) / draws * 1e6)
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="environment ids (default: every registered id)")
    parser.add_argument("--nodes", type=int, default=6, help="chance nodes per id (default 6)")
    parser.add_argument("--draws", type=int, default=50_000, help="draws per round (default 50000)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds; the median is printed (default 7)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(1)
    for env_id in args.ids or envs.registered_ids():
        nodes = chance_nodes(env_id, args.nodes)
        if nodes:
            cells = [cpu_us(lambda n=n: n.sample_chance(rng), args.draws, args.rounds) for n in nodes]
            print(f"{env_id:<28}" + " ".join(f"{c:6.2f}" for c in cells) + "  µs per draw, node by node")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
