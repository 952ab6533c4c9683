"""The kernel template: compiled rules over a flat state row, the one batch driver, the State over a row.

A ported game writes its rules once, as functions over a flat integer state row (its ``kernel.py``),
decorated with ``jit``: numba compiles them (cached on disk, so only the first call after an install or an
edit pays the compile time); with ``NUMBA_DISABLE_JIT=1`` the very same functions run as plain Python. The
cache lives in the user's cache folder (``cache_dir()``), never in the checkout or the installed package.

What every ported game does the same way lives here, once:

* the drivers (``resolve_chance``, ``random_playout``, ``batch_reset``, ``batch_step``): one template
  written against the game's kernel module ``K``, compiled for each game by ``kernel_drivers(K)`` (see
  there why it is not one compiled function), and ``illegal_actions``/``masked_random``, which need no game;
* ``KernelGame`` and ``KernelState``: a ``Game`` that names its kernel module and the row of a new game, and
  a ``State`` that is a view over one row (clone, pickling, mask, apply, returns, observation, compiled
  playout), so a game's ``game.py`` keeps only what is not a rule step (text, parsing, positions);
* the generator, ``xoshiro128**`` on four 32-bit words kept in a row of an ``int64`` array (one row per
  game in a batch), written with shifts, masks and small multipliers only, so the same code is exact
  compiled and interpreted;
* (in ``envs.core.row``) ``RowLayout``, the row declared once: offsets, bounds, the State's attributes and
  the card's table.

Kernels take the state matrix and a row index (``S, i``), so one compiled function serves a single ``State``
(a one-row matrix) and a batch. What a game's kernel module provides is ``KERNEL_INTERFACE``; how to port a
game: ``docs/adding_a_game.md``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import os
import sys
import threading
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, NamedTuple, TypeVar

import numba
import numpy as np
from numba.core.caching import FunctionCache, _CacheLocator, _SourceFileBackedLocatorMixin
from numba.core.dispatcher import Dispatcher

from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, State
from gameshelf.envs.core.row import STATE_DTYPE as STATE_DTYPE
from gameshelf.envs.core.row import RowLayout as RowLayout

F = TypeVar("F", bound=Callable[..., Any])


def cache_dir() -> Path:
    """Where numba keeps the compiled kernels: ``NUMBA_CACHE_DIR`` when it is set, else ``gameshelf/numba`` in
    the user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``; ``%LOCALAPPDATA%`` on Windows).

    numba's own default is a ``__pycache__`` beside the source, which writes into the checkout or the installed
    package and caches nothing when the package is read-only. Each source folder gets a subfolder of its own
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


def _options() -> dict[str, Any]:
    """numba's options for every kernel: ``nopython``, numpy's error model, and no reference counting runtime
    (numba's private ``_nrt`` flag, left out if this numba has no such flag)."""
    from numba.core.cpu import CPUTargetOptions

    return {"error_model": "numpy", **({"_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {})}


def jit(fn: F, *, cache: bool = True) -> F:
    """Compile ``fn`` as a kernel (numba ``nopython``, cached in ``cache_dir()`` unless ``cache`` is False);
    ``fn.py_func`` stays the plain function.

    Kernels run without numba's reference counting runtime: numba would otherwise count references to every
    array a compiled function receives (two atomic operations per array and call) wherever its optimizer cannot
    prove them useless, which after inlining and vectorizing is most non-trivial kernels: it made a quarter of
    Olenon's batched step. So a kernel never makes an array (``np.empty`` and the like are compile errors):
    scratch space comes in as an argument.

    A kernel compiles in the values of the globals it reads, which often live in other modules of its game
    folder (tables in ``board.py``, ``actions.py``) or in the core. numba's own disk cache is stamped with the
    defining file only, so the kernel is cached under ``_KernelCache`` instead: stamped with a digest of every
    Python source in its game folder and in ``envs/core``, an edit of any of them recompiles it. Where
    ``cache_dir()`` cannot be written, the kernel is compiled on every run.
    """
    dispatcher: Any = numba.njit(**_options())(fn)
    if cache and isinstance(dispatcher, Dispatcher):  # under NUMBA_DISABLE_JIT numba returns fn itself
        with contextlib.suppress(RuntimeError):  # no locator: the cache folder cannot be written
            dispatcher._cache = _KernelCache(fn)  # type: ignore[attr-defined]  # what enable_caching() sets
    return dispatcher  # type: ignore[no-any-return]


_CORE = Path(__file__).parent


@functools.cache
def _sources_digest(folder: Path) -> str:
    """A digest of the Python sources (names and contents) of ``folder`` and of the core, once per process."""
    digest = hashlib.sha256()
    for path in sorted({*folder.glob("*.py"), *_CORE.glob("*.py")}):
        digest.update(path.name.encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"\0unreadable")
    return digest.hexdigest()


class _KernelLocator(_SourceFileBackedLocatorMixin, _CacheLocator):  # type: ignore[misc]
    """numba's cache locator for kernels: files in ``cache_dir()`` (a subfolder per source folder, as numba's
    ``UserProvidedCacheLocator`` names it), stamped with ``_sources_digest`` of the kernel's game folder.

    The folder is that of the module the function belongs to (its globals' ``__file__``): a driver's code is the
    template's, but its globals are its game's, so it follows its game's sources."""

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._folder = Path(py_func.__globals__.get("__file__") or py_file).parent
        self._cache_path = str(cache_dir() / self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return _sources_digest(self._folder)


class _KernelCacheImpl(FunctionCache._impl_class):  # type: ignore[misc,valid-type]
    _locator_classes = [_KernelLocator]


class _KernelCache(FunctionCache):  # type: ignore[misc]
    """numba's function cache with ``_KernelLocator`` as its only locator."""

    _impl_class = _KernelCacheImpl


def jit_helper(fn: F) -> F:
    """``jit`` for a helper that kernels call: called from Python it runs ``jit(fn)``; a compiled caller compiles
    ``fn``'s code into itself, where LLVM can inline it (``.py_func`` is the plain function).

    A kernel compiled with ``jit`` and loaded from numba's disk cache is object code: a caller compiled later
    calls it and cannot inline it. A small function called on every step (``current_player``, ``below``)
    costs less inlined than the call does; a ``jit_helper`` is compiled into each caller, whatever the cache
    holds, and LLVM inlines it there as it sees fit.
    """
    from numba.core.extending import overload

    compiled = jit(fn)

    @functools.wraps(fn)
    def helper(*args: Any) -> Any:
        return compiled(*args)

    options: Any = _options()
    overload(helper, jit_options=options, strict=False)(lambda *args: fn)
    helper.py_func = fn  # type: ignore[attr-defined]
    return helper  # type: ignore[return-value]


MASK32 = 0xFFFFFFFF


@jit_helper
def _rotl32(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & MASK32


@jit_helper
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


@jit_helper
def shared_place_return(better: int, equal: int, n: int) -> float:
    """The return of a seat ranked behind ``better`` seats and tied with ``equal`` (itself included) among ``n``:
    the mean of the shared places' values ``1 - 2 * place / (n - 1)``, summed in order as ``rank_returns``
    sums them, so the kernels' returns are bit-identical to it."""
    acc = 0.0
    for place in range(better, better + equal):
        acc += 1.0 - 2.0 * place / (n - 1)
    return acc / equal


@jit_helper
def rank_outcomes(out: np.ndarray, n: int) -> None:
    """Replace the integer keys in ``out[:n]`` (below 2**50 in size; higher ranks ahead) by their outcome returns,
    bit-identical to ``rank_returns``: ties share the mean of their places' values. In place, as kernels make no
    arrays: the keys are shifted to 2 and above, so a key never equals a return (within [-1, 1]) already written."""
    if n < 2:
        for seat in range(n):
            out[seat] = 0.0
        return
    low = out[0]
    for seat in range(1, n):
        low = min(low, out[seat])
    for seat in range(n):
        out[seat] = out[seat] - low + 2.0  # exact for such integers
    place = 0
    while place < n:  # the best keys left take the next places
        top = 0.0
        for seat in range(n):
            top = max(top, out[seat])
        equal = 0
        for seat in range(n):
            if out[seat] == top:
                equal += 1
        value = shared_place_return(place, equal, n)
        for seat in range(n):
            if out[seat] == top:
                out[seat] = value
        place += equal


@jit_helper
def below(rngs: np.ndarray, i: int, k: int) -> int:
    """A uniform integer in ``[0, k)`` (``k`` < 2**31) from generator ``i`` of ``rngs``."""
    return (next_u32(rngs, i) * k) >> 32


@jit
def weighted_pick(weights: np.ndarray, u: float) -> int:
    """The first outcome whose cumulative weight exceeds ``u`` (``0 <= u < total``), walking the outcomes in order;
    the last possible outcome if rounding leaves ``u`` at the total."""
    cumulative = 0
    last = -1
    for k in range(weights.shape[0]):
        if weights[k]:
            cumulative += weights[k]
            last = k
            if u < cumulative:
                return k
    return last


@jit_helper
def _eight_bools(bits: np.ndarray, i: int, a: int) -> int:
    """How many of the bytes ``bits[i, a : a + 8]`` (each 0 or 1) are 1: the eight read as one 64-bit word, its
    bytes added up by shifts (each byte's sum stays below 256, so no carry crosses a byte; no product to wrap)."""
    word = 0
    for b in range(8):
        word |= int(bits[i, a + b]) << (8 * b)
    word += word >> 32
    word += word >> 16
    word += word >> 8
    return word & 0xFF


@jit
def masked_random(masks: np.ndarray, rngs: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: a uniformly random index where ``masks[i]`` is True (-1 where none is), from generator ``i``.

    The pick is the ``(k+1)``-th True for ``k = below(rngs, i, count)``. Both the count and the search for the
    pick go eight entries at a time (``_eight_bools``); the search then steps entry by entry through the eight
    that hold the pick (or the row's last few) only."""
    bits = masks.view(np.uint8)  # bytes: numba reads bools one by one
    width = bits.shape[1]
    whole = width - width % 8  # entries in whole groups of eight
    for i in range(bits.shape[0]):
        count = 0
        for a in range(0, whole, 8):
            count += _eight_bools(bits, i, a)
        for a in range(whole, width):
            count += int(bits[i, a])  # an int: under NUMBA_DISABLE_JIT a uint8 sum would wrap
        if count == 0:
            out[i] = -1
            continue
        k = below(rngs, i, count)
        seen = 0  # Trues before entry start
        start = 0
        while start < whole:
            group = _eight_bools(bits, i, start)
            if seen + group > k:
                break
            seen += group
            start += 8
        # every entry before start sees at most k Trues; from there, count the entries that still do (no branch)
        place = start
        for a in range(start, min(start + 8, width)):
            seen += int(bits[i, a])
            place += seen <= k
        out[i] = place


RNG_WORDS = 4
"""Words of generator state per game."""


def seed_generators(seed: int | None, count: int) -> np.ndarray:
    """``count`` independent generator states (``(count, 4) int64``) from one seed (``None``: fresh entropy)."""
    words = np.random.default_rng(seed).integers(1, 1 << 32, size=(count, RNG_WORDS), dtype=np.int64)
    return words


# ---- the drivers: one template, compiled for each game ---------------------------------------------------
KERNEL_INTERFACE = (
    "ROW",
    "SIZE",
    "NUM_ACTS",
    "DECISIONS",
    "initial_state",
    "current_player",
    "NUM_CHANCE",
    "chance_weights",
    "is_chance_outcome",
    "sample_chance",
    "is_legal",
    "legal_mask",
    "apply",
    "returns",
    "observation",
)
"""What a game's kernel module provides (``docs/adding_a_game.md`` says what each one is)."""

OPTIONAL_INTERFACE = ("OBS_MEMO", "observation_update")
"""What a game's kernel module may add, together, so that the batch drivers update each row's observation
where it changed instead of writing it whole: ``OBS_MEMO``, the entries per row of an ``int16`` memo that
``gameshelf.vector`` keeps beside its observation buffer (filled with -1 at first: nothing written yet), and
``observation_update(S, i, seat, out, memo)``, which leaves in row ``i`` of ``out`` exactly what ``observation``
would write there, given that ``out[i]`` still holds what it wrote last, from what ``memo[i]`` records (its own
record: e.g. the seat and the state row it wrote from), and records what it wrote now."""

DRIVER_NAMES = ("resolve_chance", "random_playout", "batch_reset", "batch_step", "chance_summary")
"""The template's drivers, made for each game by ``kernel_drivers``; a kernel module defines none of them."""

K: Any = None
"""In the template: the game's kernel module. Each game's copy of the drivers is compiled with ``K`` bound to
its kernel module, so ``K.apply`` is a direct call to that game's kernel; here it is only a placeholder."""


# The other drivers write this loop out instead of calling resolve_chance: a call per row that LLVM does not
# inline made the batched step about a tenth slower (measured on Level X and Olenon at N = 1024).
def resolve_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """Resolve chance nodes with generator ``i`` of ``rngs`` until a player is to move or the game is over;
    returns ``current_player`` then."""
    player = K.current_player(S, i)
    while player == CHANCE:
        K.apply(S, i, K.sample_chance(S, i, rngs))
        player = K.current_player(S, i)
    return player  # type: ignore[no-any-return]


def random_playout(S: np.ndarray, i: int, rngs: np.ndarray, max_decisions: int, mask: np.ndarray) -> int:
    """Play on in place with uniformly random legal actions (chance from ``rngs``; ``mask``: a ``(1, NUM_ACTS)``
    bool scratch array); returns the decisions made."""
    bits = mask.view(np.uint8)
    decisions = 0
    while decisions < max_decisions:
        player = K.current_player(S, i)
        while player == CHANCE:
            K.apply(S, i, K.sample_chance(S, i, rngs))
            player = K.current_player(S, i)
        if player < 0:
            break
        K.legal_mask(S, i, mask)
        count = 0
        for a in range(K.NUM_ACTS):
            count += int(bits[0, a])
        k = below(rngs, i, count)
        seen = 0
        place = 0
        for a in range(K.NUM_ACTS):
            seen += int(bits[0, a])
            place += seen <= k
        K.apply(S, i, place)
        decisions += 1
    return decisions


def batch_reset(
    S: np.ndarray,
    rngs: np.ndarray,
    initial: np.ndarray,
    players: np.ndarray,
    obs: np.ndarray,
    masks: np.ndarray,
    memo: np.ndarray | None = None,
) -> None:
    """Start a new game in every row (chance resolved) and write player to move, observation and mask.

    ``memo`` (only for a kernel with ``observation_update``): the observations are updated in place from what
    ``memo`` says they were written from (see ``OPTIONAL_INTERFACE``), instead of written whole."""
    for i in range(S.shape[0]):
        for k in range(K.SIZE):
            S[i, k] = initial[k]
        player = K.current_player(S, i)
        while player == CHANCE:
            K.apply(S, i, K.sample_chance(S, i, rngs))
            player = K.current_player(S, i)
        players[i] = player
        K.legal_mask(S, i, masks)
        if memo is None:
            K.observation(S, i, player, obs)
        else:
            K.observation_update(S, i, player, obs, memo)


def batch_step(
    S: np.ndarray,
    rngs: np.ndarray,
    initial: np.ndarray,
    actions: np.ndarray,
    active: np.ndarray,
    max_length: int,
    players: np.ndarray,
    obs: np.ndarray,
    masks: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    memo: np.ndarray | None = None,
) -> int:
    """One action per active row, chance resolved, finished games reported then reset, outputs written; returns 0.
    Inactive rows are left as they are (zero rewards, no end flags). ``memo``: as in ``batch_reset``.

    The actions are checked first against ``masks``, which must be the masks this driver (or ``batch_reset``)
    last wrote for these rows: if an active row's action is out of range or not legal, nothing is changed
    and the number of such rows is returned (``illegal_actions`` marks them). The kernels apply an action
    unchecked, and an illegal one can make them write outside the state matrix.
    """
    num_actions = masks.shape[1]
    bad = 0
    for i in range(S.shape[0]):
        a = actions[i]
        if active[i] and not (0 <= a < num_actions and masks[i, a]):
            bad += 1
    if bad:
        return bad
    for i in range(S.shape[0]):
        for k in range(rewards.shape[1]):
            rewards[i, k] = 0.0
        terminated[i] = False
        truncated[i] = False
        if not active[i]:
            continue
        K.apply(S, i, actions[i])
        player = K.current_player(S, i)
        while player == CHANCE:
            K.apply(S, i, K.sample_chance(S, i, rngs))
            player = K.current_player(S, i)
        if player == TERMINAL:
            K.returns(S, i, rewards[i])
            terminated[i] = True
        elif S[i, K.DECISIONS] >= max_length:
            truncated[i] = True
        if terminated[i] or truncated[i]:
            for k in range(K.SIZE):
                S[i, k] = initial[k]
            player = K.current_player(S, i)
            while player == CHANCE:
                K.apply(S, i, K.sample_chance(S, i, rngs))
                player = K.current_player(S, i)
        players[i] = player
        K.legal_mask(S, i, masks)
        if memo is None:
            K.observation(S, i, player, obs)
        else:
            K.observation_update(S, i, player, obs, memo)
    return 0


def chance_summary(S: np.ndarray, i: int, out: np.ndarray) -> tuple[int, int, bool]:
    """The kernel's ``chance_weights`` written into row ``i`` of ``out`` (zeroed first; all zero unless row ``i`` is at
    a chance node), then their total,
    how many are non-zero and whether those are equal: what ``KernelState.sample_chance`` needs before it draws,
    in one compiled call."""
    for k in range(out.shape[1]):
        out[i, k] = 0
    if K.current_player(S, i) != CHANCE:
        return 0, 0, True
    K.chance_weights(S, i, out)
    total = 0
    count = 0
    first = 0
    equal = True
    for k in range(out.shape[1]):
        w = out[i, k]
        if w:
            if count == 0:
                first = w
            elif w != first:
                equal = False
            total += w
            count += 1
    return total, count, equal


_TEMPLATE = (resolve_chance, random_playout, batch_reset, batch_step, chance_summary)


class Drivers(NamedTuple):
    """One game's drivers: the template compiled over its kernel module (``kernel_drivers``)."""

    resolve_chance: Callable[[np.ndarray, int, np.ndarray], int]
    random_playout: Callable[[np.ndarray, int, np.ndarray, int, np.ndarray], int]
    batch_reset: Callable[..., None]
    batch_step: Callable[..., int]
    chance_summary: Callable[[np.ndarray, int, np.ndarray], tuple[int, int, bool]]


_DRIVERS: dict[types.ModuleType, Drivers] = {}


def kernel_drivers(kernel: types.ModuleType) -> Drivers:
    """The drivers of the game whose kernel module is ``kernel``: the template's functions, compiled with ``K``
    bound to that module (made once per process, compiled on first use, cached on disk like the kernels).

    Why a copy per game and not one compiled driver that takes the kernels as arguments: numba types a jitted
    function passed as an argument by the function object itself, so such a driver is never found in the disk
    cache again (every process compiles it afresh and adds a file); typed as first-class function pointers it
    is cached, but unboxing each pointer costs 10-30 us per call and the kernels cannot be inlined. Here the
    template's code object runs over a namespace that binds ``K`` to the game's kernels: one source, direct
    calls. Each copy is cached under a name holding the game, stamped like the game's kernels (``jit``), so an
    edit of the game's folder recompiles its drivers (an edit of the core does it for every game).
    """
    known = _DRIVERS.get(kernel)
    if known is not None:
        return known
    name = kernel.__name__
    missing = [attr for attr in KERNEL_INTERFACE if not hasattr(kernel, attr)]
    if missing:
        raise TypeError(f"{name} is not a kernel module: it lacks {', '.join(missing)} (see KERNEL_INTERFACE)")
    own = [attr for attr in DRIVER_NAMES if attr in vars(kernel)]
    if own:
        raise TypeError(f"{name} defines {', '.join(own)}: the drivers are the template's (envs.core.kernel), not a copy")
    namespace: dict[str, Any] = {
        "__name__": name,
        "__file__": getattr(kernel, "__file__", None),  # the cache follows the game's sources (_KernelLocator)
        "K": kernel,
        "np": np,
        "CHANCE": CHANCE,
        "TERMINAL": TERMINAL,
        "below": below,
    }
    # a kernel module that cannot be imported by its name (one made at run time, as a test's variant of a game)
    # is compiled afresh in each process: a cached copy names that module and could not be loaded again
    cache = sys.modules.get(name) is kernel
    for fn in _TEMPLATE:
        copy = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__)
        copy.__qualname__ = f"{name}.{fn.__name__}"  # numba names the cache files after it: one set per game
        copy.__doc__ = fn.__doc__
        copy.__annotations__ = dict(fn.__annotations__)
        namespace[fn.__name__] = jit(copy, cache=cache)
    drivers = Drivers(*(namespace[fn.__name__] for fn in _TEMPLATE))
    _DRIVERS[kernel] = drivers
    return drivers


def is_template_driver(fn: Any, name: str) -> bool:
    """Is ``fn`` (a compiled driver, or its plain function under ``NUMBA_DISABLE_JIT``) the template's ``name``?"""
    template = {f.__name__: f for f in _TEMPLATE}.get(name)
    code = getattr(getattr(fn, "py_func", fn), "__code__", None)
    return template is not None and code is template.__code__


@jit
def illegal_actions(masks: np.ndarray, actions: np.ndarray, active: np.ndarray, bad: np.ndarray) -> int:
    """Mark in ``bad`` the active rows whose action is not legal in ``masks`` (the masks of the positions the
    actions are for); returns how many."""
    count = 0
    num_actions = masks.shape[1]
    for i in range(masks.shape[0]):
        a = actions[i]
        wrong = active[i] and not (0 <= a < num_actions and masks[i, a])
        bad[i] = wrong
        count += wrong
    return count


# ---- list-like views, so a kernel-backed State keeps the attribute API of a list-based one ----------------
T = TypeVar("T")


# ---- the Game and the State of a ported game ------------------------------------------------------------
S_ = TypeVar("S_", bound="KernelState")


class KernelGame(Game):
    """A game whose rules are compiled kernels: ``kernel`` names its kernel module and ``initial`` is the row of
    a new game (built by ``kernel.initial_state`` from the options in ``__init__``). Such a game can be batched
    (``gameshelf.vector``); its ``State`` is a ``KernelState``."""

    kernel: types.ModuleType
    """The game's kernel module (``KERNEL_INTERFACE``), a class attribute: ``kernel = K``."""
    initial: np.ndarray
    """The kernel state row of a new game (before the first chance node)."""


_SCRATCH = threading.local()


def _chance_scratch(width: int) -> np.ndarray:
    """A ``(1, width)`` int64 row for ``sample_chance``'s weights, kept per thread (no array made per draw; a draw
    by another thread cannot overwrite it between the weights and the pick)."""
    rows: dict[int, np.ndarray] = _SCRATCH.__dict__.setdefault("rows", {})
    row = rows.get(width)
    if row is None:
        row = rows[width] = np.empty((1, width), dtype=np.int64)
    return row


class KernelState(State):
    """A position of a ``KernelGame``: a view over one kernel state row, which the game's kernels act on.

    ``S`` is a one-row matrix and ``s`` its row; the game's fields are ``kernel.ROW.field(name)`` attributes
    over ``s`` (``envs.core.row``). The rule steps are the kernels' (mask, legality, apply, returns,
    observation, random playout), and so are whose turn and chance (``current_player``, and
    ``chance_outcomes``/``sample_chance`` read from the kernel's ``chance_weights``). A subclass adds text,
    move names and positions, and may read ``current_player`` from ``s`` in Python (the hottest query; the
    kit compares it with the kernel's). ``clone`` and pickling copy ``S``, the history and the attributes
    named in ``EXTRA``.
    """

    game: KernelGame
    EXTRA: ClassVar[tuple[str, ...]] = ()
    """The names of a subclass's own attributes (beside the row and the history): ``clone`` copies them as they
    are (immutable values), pickling keeps them."""

    def __init__(self, game: KernelGame) -> None:
        super().__init__(game)
        self.S: np.ndarray = game.initial.reshape(1, -1).copy()
        """The kernel state: a one-row matrix (layout: the game's ``kernel.py``); ``s`` is its row."""
        self.s: np.ndarray = self.S[0]

    def view_row(self, states: np.ndarray, i: int) -> None:
        """Make this state a view of row ``i`` of a state matrix (a batch's): it reads and writes that row."""
        self.S = states[i : i + 1]
        self.s = self.S[0]

    # ---- whose turn and chance: the kernels -------------------------------------------------------
    def current_player(self) -> int:
        """The kernel's ``current_player`` (a game may read its row in Python instead, for speed: the kit's
        ``check_kernel_row`` compares the two on every node)."""
        return int(self.game.kernel.current_player(self.S, 0))

    CHANCE_DRAW: ClassVar[str] = "integer"
    """How ``sample_chance`` turns the generator into an outcome, walking the possible outcomes in order by their
    integer weights: ``"integer"`` draws ``rng.integers(total)``; ``"real"`` draws ``rng.integers(count)`` where
    every outcome is equally likely and ``rng.random() * total`` elsewhere (dice games: the same distribution,
    kept so that seeded games replay as before)."""

    def _chance(self, out: np.ndarray) -> tuple[int, int, bool]:
        """The kernel's weights at this node written into row 0 of ``out`` (all zero unless it is a chance node)
        and the template's ``chance_summary`` of them: total, how many are non-zero, whether those are equal."""
        return kernel_drivers(self.game.kernel).chance_summary(self.S, 0, out)  # type: ignore[no-any-return]

    def chance_weights(self) -> np.ndarray:
        """The kernel's ``chance_weights``: an integer weight per chance outcome id (``kernel.NUM_CHANCE`` of
        them, zero for an impossible outcome); all zero unless the state is a chance node."""
        out = np.empty((1, self.game.kernel.NUM_CHANCE), dtype=np.int64)
        self._chance(out)
        return out[0]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The possible outcomes and their odds, read from the kernel's ``chance_weights``."""
        out = np.empty((1, self.game.kernel.NUM_CHANCE), dtype=np.int64)
        total = self._chance(out)[0]
        return [(int(o), int(out[0, o]) / total) for o in np.flatnonzero(out[0])]

    def sample_chance(self, rng: np.random.Generator) -> int:
        """An outcome drawn with ``rng`` by the kernel's ``chance_weights`` (the way ``CHANCE_DRAW`` says)."""
        out = _chance_scratch(self.game.kernel.NUM_CHANCE)
        total, count, equal = self._chance(out)
        if not total:
            raise ValueError(f"{self.game.info.name}: not a chance node")
        if self.CHANCE_DRAW == "integer":
            return int(weighted_pick(out[0], float(rng.integers(total))))
        if equal:  # the k-th possible outcome: the first whose cumulative weight passes k times the weight
            return int(weighted_pick(out[0], float(int(rng.integers(count)) * (total // count))))
        return int(weighted_pick(out[0], rng.random() * total))

    # ---- rule steps: the kernels ------------------------------------------------------------------
    def legal_action_mask(self) -> np.ndarray:
        mask = np.empty((1, self.game.info.num_actions), dtype=bool)
        self.game.kernel.legal_mask(self.S, 0, mask)
        return mask[0]

    def _is_legal(self, player: int, action: int) -> bool:
        if player == CHANCE:
            return bool(self.game.kernel.is_chance_outcome(self.S, 0, action))
        return bool(self.game.kernel.is_legal(self.S, 0, action))

    def _apply(self, action: int) -> None:
        self.game.kernel.apply(self.S, 0, action)

    def returns(self) -> np.ndarray:
        out = np.zeros(self.game.info.num_players, dtype=np.float64)
        self.game.kernel.returns(self.S, 0, out)
        return out

    def _observation(self, seat: int) -> np.ndarray:
        info = self.game.info
        shape = info.observation_shape
        out = np.empty((1, math.prod(shape)), dtype=info.observation_dtype)
        self.game.kernel.observation(self.S, 0, seat, out)
        return out[0] if len(shape) == 1 else out[0].reshape(shape)

    def random_playout(self, rng: np.random.Generator, max_decisions: int | None = None) -> int:
        """Play on in place with random legal actions in the compiled kernels, chance seeded from ``rng``.

        The same distribution as ``envs.core.random_playout`` (not the same draws); ``history`` is not
        extended (the moves are not recorded). Returns the number of decisions made.
        """
        generator = seed_generators(int(rng.integers(1 << 63)), 1)
        limit = self.game.info.max_game_length if max_decisions is None else max_decisions
        mask = np.empty((1, self.game.info.num_actions), dtype=bool)
        return int(kernel_drivers(self.game.kernel).random_playout(self.S, 0, generator, limit, mask))

    # ---- copies -----------------------------------------------------------------------------------
    def clone(self: S_) -> S_:
        new = object.__new__(type(self))
        new.game = self.game  # attribute by attribute: the fastest copy (search clones at every node)
        new.history = self.history.copy()
        S = self.S.copy()
        new.S = S
        new.s = S[0]
        for key in self.EXTRA:
            setattr(new, key, getattr(self, key))
        return new

    def __getstate__(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key != "s"}

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.__dict__.update(data)
        self.s = self.S[0]
