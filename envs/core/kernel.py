"""Shared pieces of compiled rules kernels: the ``jit`` decorator, a seeded generator, list-like views.

A ported game writes its rules once, as functions over a flat ``int64`` state vector (its ``kernel.py``),
decorated with ``jit``: numba compiles them (cached on disk, so only the first call after an install or an
edit pays the compile time); with ``NUMBA_DISABLE_JIT=1`` the very same functions run as plain Python. The
cache lives in the user's cache folder (``cache_dir()``), never in the checkout or the installed package. The
game's ``State`` wraps one such vector, the batched environment (``gameshelf.vector``) a matrix of them.

Kernels take the state matrix and a row index (``S, i``), never a row view: a view costs a reference
count round trip per call, more than a whole step of a small game. A single ``State`` holds a one-row
matrix. The generator is xoshiro128** on four 32-bit words kept in a row of an ``int64`` array (one row
per game in a batch), written with shifts, masks and small multipliers only, so the same code is exact compiled and
interpreted. How to port a game: ``docs/adding_a_game.md``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numba
import numpy as np

F = TypeVar("F", bound=Callable[..., Any])


def cache_dir() -> Path:
    """Where numba keeps the compiled kernels: ``NUMBA_CACHE_DIR`` when it is set, else ``gameshelf/numba`` in
    the user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``; ``%LOCALAPPDATA%`` on Windows).

    numba's own default is a ``__pycache__`` beside the source, which writes into the checkout or the installed
    package and caches nothing when the package is read-only. Each source file gets a subfolder of its own
    (named after its folder and a hash of its path), so two installs never share or overwrite a file.
    """
    config: Any = numba.config  # its settings are set at run time, unknown to type checkers
    given = os.environ.get("NUMBA_CACHE_DIR") or config.CACHE_DIR
    if given:
        return Path(given)
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "gameshelf" / "numba"


def jit(fn: F) -> F:
    """Compile ``fn`` with numba (``nopython``, cached in ``cache_dir()``); the undecorated function stays ``fn.py_func``.

    numba picks a function's cache folder when it is decorated, from ``numba.config.CACHE_DIR``; that setting
    is ours only for the length of the decoration, so other numba code in the process keeps numba's defaults.
    Where the folder cannot be written, numba falls back to its own defaults (or compiles on every run).
    """
    config: Any = numba.config
    saved = config.CACHE_DIR
    config.CACHE_DIR = str(cache_dir())
    try:
        return numba.njit(cache=True, error_model="numpy")(fn)  # type: ignore[return-value]
    finally:
        config.CACHE_DIR = saved


MASK32 = 0xFFFFFFFF


@jit
def _rotl32(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & MASK32


@jit
def next_u32(rngs: np.ndarray, i: int) -> int:
    """Next 32-bit output of the xoshiro128** generator whose state is row ``i`` of ``rngs`` (updated in place)."""
    s0, s1, s2, s3 = rngs[i, 0], rngs[i, 1], rngs[i, 2], rngs[i, 3]
    result = (_rotl32((s1 * 5) & MASK32, 7) * 9) & MASK32
    t = (s1 << 9) & MASK32
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl32(s3, 11)
    rngs[i, 0], rngs[i, 1], rngs[i, 2], rngs[i, 3] = s0, s1, s2, s3
    return result


@jit
def below(rngs: np.ndarray, i: int, k: int) -> int:
    """A uniform integer in ``[0, k)`` (``k`` < 2**31) from generator ``i`` of ``rngs``."""
    return (next_u32(rngs, i) * k) >> 32


@jit
def masked_random(masks: np.ndarray, rngs: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: a uniformly random index where ``masks[i]`` is True (-1 where none is), from generator ``i``."""
    for i in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        if count == 0:
            out[i] = -1
            continue
        k = below(rngs, i, count)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


RNG_WORDS = 4
"""Words of generator state per game."""


def seed_generators(seed: int | None, count: int) -> np.ndarray:
    """``count`` independent generator states (``(count, 4) int64``) from one seed (``None``: fresh entropy)."""
    words = np.random.default_rng(seed).integers(1, 1 << 32, size=(count, RNG_WORDS), dtype=np.int64)
    return words


# ---- list-like views, so a kernel-backed State keeps the attribute API of a list-based one ----------------
T = TypeVar("T")


class IntView(Sequence[int]):
    """A writable view of ``length`` ints of a state vector, read and compared like a list of ints."""

    __slots__ = ("_data", "_length", "_start")

    def __init__(self, data: np.ndarray, start: int, length: int) -> None:
        self._data, self._start, self._length = data, start, length

    def __len__(self) -> int:
        return self._length

    def _index(self, i: int) -> int:
        if i < 0:
            i += self._length
        if not 0 <= i < self._length:
            raise IndexError(f"index {i} out of range for length {self._length}")
        return self._start + i

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return self.tolist()[i]
        return int(self._data[self._index(i)])

    def __setitem__(self, i: int, value: int) -> None:
        self._data[self._index(i)] = value

    def __iter__(self) -> Iterator[int]:
        return iter(self.tolist())

    def tolist(self) -> list[int]:
        return self._data[self._start : self._start + self._length].tolist()  # type: ignore[no-any-return]

    def copy(self) -> list[int]:
        return self.tolist()

    def assign(self, values: Iterable[int]) -> None:
        values = list(values)
        if len(values) != self._length:
            raise ValueError(f"expected {self._length} values, got {len(values)}")
        self._data[self._start : self._start + self._length] = values

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (IntView, list, tuple)):
            return self.tolist() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.tolist())


class IntRows(Sequence[IntView]):
    """``rows`` consecutive rows of ``width`` ints of a state vector, read like a list of lists of ints."""

    __slots__ = ("_data", "_rows", "_start", "_width")

    def __init__(self, data: np.ndarray, start: int, rows: int, width: int) -> None:
        self._data, self._start, self._rows, self._width = data, start, rows, width

    def __len__(self) -> int:
        return self._rows

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(self._rows)[i]]
        if i < 0:
            i += self._rows
        if not 0 <= i < self._rows:
            raise IndexError(f"row {i} out of range for {self._rows} rows")
        return IntView(self._data, self._start + i * self._width, self._width)

    def __setitem__(self, i: int, values: Iterable[int]) -> None:
        self[i].assign(values)

    def __iter__(self) -> Iterator[IntView]:
        return (self[i] for i in range(self._rows))

    def tolist(self) -> list[list[int]]:
        return [row.tolist() for row in self]

    def assign(self, rows: Iterable[Iterable[int]]) -> None:
        rows = list(rows)
        if len(rows) != self._rows:
            raise ValueError(f"expected {self._rows} rows, got {len(rows)}")
        for i, values in enumerate(rows):
            self[i].assign(values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (IntRows, list, tuple)):
            return self.tolist() == [list(row) for row in other]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.tolist())


# ---- attributes of a kernel-backed State (its row is ``self.s``) -------------------------------------------
def int_field(index: int, doc: str = "") -> Any:
    """A read-write ``int`` attribute stored at ``index`` of the state's row."""

    def get(state: Any) -> int:
        return int(state.s[index])

    def put(state: Any, value: int) -> None:
        state.s[index] = value

    return property(get, put, doc=doc)


def flag_field(index: int, doc: str = "") -> Any:
    """A read-write ``bool`` attribute stored at ``index`` of the state's row."""

    def get(state: Any) -> bool:
        return bool(state.s[index])

    def put(state: Any, value: bool) -> None:
        state.s[index] = int(bool(value))

    return property(get, put, doc=doc)


def ints_field(start: int, length: int, doc: str = "") -> Any:
    """A list-like attribute (``IntView``) of ``length`` ints of the state's row; assigning a list writes it."""

    def get(state: Any) -> IntView:
        return IntView(state.s, start, length)

    def put(state: Any, values: Iterable[int]) -> None:
        IntView(state.s, start, length).assign(values)

    return property(get, put, doc=doc)


def rows_field(start: int, width: int, rows: int | None = None, doc: str = "") -> Any:
    """A list-of-lists attribute (``IntRows``): ``rows`` rows (default: one per player) of ``width`` ints."""

    def count(state: Any) -> int:
        return rows if rows is not None else int(state.game.num_players)

    def get(state: Any) -> IntRows:
        return IntRows(state.s, start, count(state), width)

    def put(state: Any, values: Iterable[Iterable[int]]) -> None:
        IntRows(state.s, start, count(state), width).assign(values)

    return property(get, put, doc=doc)
