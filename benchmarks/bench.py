"""Throughput of random legal play on every registered id, beside PettingZoo's classic environments.

    python benchmarks/bench.py --seconds 5 --rounds 5      # the same as `gameshelf bench ...`

The measurement lives in ``gameshelf.bench.throughput``; see ``docs/benchmarks.md`` for the figures.
"""

from gameshelf.bench.throughput import main
from gameshelf.training.cli_util import run

if __name__ == "__main__":
    run(main, prog="gameshelf bench")
