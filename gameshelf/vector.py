"""Batched environments over compiled rules kernels: ``gameshelf.vector.make(id, num_envs=N, seed=S, **options)``.

The implementation is ``gameshelf.envs.vector`` (see its docstring for the returned arrays and the reset rule).
"""

from typing import Any

from gameshelf.envs import vector as _vector
from gameshelf.envs.vector import Batch, VectorEnv, make


def __getattr__(name: str) -> Any:
    if name == "BATCHED_IDS":  # read from the registry when asked for (it loads every game class)
        return _vector.BATCHED_IDS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


BATCHED_IDS: tuple[str, ...]
"""The ids whose game has compiled kernels (derived from the registry)."""

__all__ = ["BATCHED_IDS", "Batch", "VectorEnv", "make"]
