"""Batched environments over compiled rules kernels: ``gameshelf.vector.make(id, num_envs=N, seed=S, **options)``.

The implementation is ``gameshelf.envs.vector`` (see its docstring for the returned arrays and the reset rule).
"""

from gameshelf.envs.vector import BATCHED_IDS, Batch, VectorEnv, make

__all__ = ["BATCHED_IDS", "Batch", "VectorEnv", "make"]
