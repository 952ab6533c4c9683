"""Benchmarks: how fast the games and the trainers run (they report; no test times anything).

* ``throughput``: ``gameshelf bench``, random legal play through ``make()``, the bare engine and the batched
  path beside PettingZoo's classic environments and pgx; ``--mcts`` measures the search path instead.
* ``rllib``: ``python -m gameshelf.bench.rllib``, training throughput on Ray RLlib beside SB3 (needs the
  rllib extra).

``python -m gameshelf.bench`` is ``gameshelf bench``. See docs/benchmarks.md for the figures.
"""
