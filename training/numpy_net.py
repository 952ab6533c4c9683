"""``NetPolicy``: a small policy-and-value network stored as plain arrays and run with numpy.

One file, ``NAME.npz`` (format ``gameshelf-net/1``), arrays only: ``read_net`` checks the ``meta`` header (against
the game's registration too) and every array's ``.npy`` header before reading any weight, and never unpickles,
so loading never runs code nor takes more than ``MAX_UNPACKED_BYTES``; playing needs neither torch nor a GPU.
The file holds

* ``meta``: UTF-8 JSON (as ``uint8``) with ``format``, ``env_id``, ``num_players``, ``options``,
  ``observation_shape``, ``num_actions``, ``cell_features``, ``hidden``, ``value_range`` and ``trained``
  (free-form: the command that made it, seeds, CPU time, samples);
* the weights, float32 or float16 (computed in float32):

  ==================  =================================  ==============================================
  array               shape                              role
  ==================  =================================  ==============================================
  ``cell.w/.b``       ``(C, F)`` / ``(F,)``              only when ``cell_features`` F > 0 (3-D
                                                         observations ``(H, W, C)``): the same linear map
                                                         of every cell's C planes (a 1x1 convolution),
                                                         then ReLU and flatten to ``H * W * F``
  ``dense{i}.w/.b``   ``(D_i, hidden[i])``               ReLU layers, ``D_0`` the flattened input
  ``policy.w/.b``     ``(hidden[-1], num_actions)``      action logits (illegal ones masked out)
  ``value.w/.b``      ``(hidden[-1], 1)``                ``tanh``, mapped onto ``value_range`` (the
                                                         game's return range): the mover's return
  ==================  =================================  ==============================================

The input is ``state.observation(seat)`` as float32, as the environment gives it to ``seat``.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf.envs.core.game import State

FORMAT = "gameshelf-net/1"
MAX_FILE_BYTES = 64 * 1024 * 1024
"""Larger files are refused before reading (a reference network is a few hundred kilobytes)."""
MAX_UNPACKED_BYTES = 2 * MAX_FILE_BYTES
"""A network whose declared arrays would take more memory than this is refused before any is read."""
MAX_META_BYTES = 1024 * 1024
"""The largest ``meta`` header read."""
MAX_LAYERS, MAX_WIDTH, MAX_CELL_FEATURES = 8, 4096, 256
"""The largest architecture read: as many ``hidden`` layers, as wide, and as many ``cell_features``
(the bounds of the ``expert`` settings that train networks)."""


class NetLoadError(ValueError):
    """A network file that cannot be used: one message saying which file and why."""


@dataclass
class NetPolicy:
    """A loaded network (see the module docstring): ``logits``, ``value`` and ``action_probabilities``."""

    meta: dict[str, Any]
    weights: dict[str, np.ndarray]
    source: str = ""
    _layers: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        check_meta(self.meta, self.source or "network")
        self._check_shapes()
        w = self.weights
        hidden = self.meta["hidden"]
        self._layers = [(_f32(w[f"dense{i}.w"]), _f32(w[f"dense{i}.b"])) for i in range(len(hidden))]
        self._cell = (_f32(w["cell.w"]), _f32(w["cell.b"])) if self.meta["cell_features"] else None
        self._policy = (_f32(w["policy.w"]), _f32(w["policy.b"]))
        self._value = (_f32(w["value.w"]), _f32(w["value.b"]))

    # ---- what it says ------------------------------------------------------------------------------------------
    @property
    def env_id(self) -> str:
        return str(self.meta["env_id"])

    @property
    def num_actions(self) -> int:
        return int(self.meta["num_actions"])

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.meta["observation_shape"])

    def forward(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``(B, num_actions)`` and values ``(B,)`` (in the game's return range) of a batch of observations."""
        x = np.asarray(observations, dtype=np.float32)
        batch = x.shape[0]
        if self._cell is not None:
            cw, cb = self._cell
            x = np.maximum(x.reshape(-1, cw.shape[0]) @ cw + cb, 0.0)
        x = x.reshape(batch, -1)
        for w, b in self._layers:
            x = np.maximum(x @ w + b, 0.0)
        logits = x @ self._policy[0] + self._policy[1]
        lo, hi = self.meta["value_range"]
        value = np.tanh((x @ self._value[0] + self._value[1])[:, 0])
        return logits, lo + (value + 1.0) * 0.5 * (hi - lo)

    def evaluate(self, state: State, seat: int) -> tuple[np.ndarray, float]:
        """The distribution over actions (zero on illegal ones) and the value of ``state`` for ``seat``."""
        obs = np.asarray(state.observation(seat))
        if obs.shape != self.observation_shape:
            raise ValueError(
                f"{self.source or 'the network'} was trained on observations {self.observation_shape}; "
                f"this state gives {obs.shape}"
            )
        logits, value = self.forward(obs[None])
        mask = np.asarray(state.legal_action_mask(), dtype=bool)
        return masked_softmax(logits[0], mask), float(value[0])

    def action_probabilities(self, state: State, seat: int) -> np.ndarray:
        return self.evaluate(state, seat)[0]

    def value(self, state: State, seat: int) -> float:
        return self.evaluate(state, seat)[1]

    def fits(self, env_id: str, observation_shape: tuple[int, ...], num_actions: int) -> str | None:
        """Why this network cannot play that game (None when it can)."""
        if tuple(observation_shape) != self.observation_shape or num_actions != self.num_actions:
            return (
                f"{self.source or 'the network'} was trained on {self.env_id} (observation {self.observation_shape}, "
                f"{self.num_actions} actions); {env_id} has observation {tuple(observation_shape)} and {num_actions} actions"
            )
        return None

    # ---- files -------------------------------------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the network to ``path`` (``.npz``), atomically."""
        from gameshelf.training.model_io import atomic_write_bytes

        buffer = io.BytesIO()
        meta = np.frombuffer(json.dumps(self.meta, sort_keys=True).encode(), dtype=np.uint8)
        np.savez_compressed(buffer, meta=meta, **self.weights)  # type: ignore[arg-type]
        target = Path(path)
        atomic_write_bytes(target, buffer.getvalue())
        return target

    def _check_shapes(self) -> None:
        where = self.source or "network"
        for name, shape in expected_shapes(self.meta).items():
            if name not in self.weights:
                raise NetLoadError(f"{where}: no {name!r} array")
            if np.shape(self.weights[name]) != shape:
                raise NetLoadError(f"{where}: {name!r} has shape {np.shape(self.weights[name])}, expected {shape}")


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Softmax over the legal actions (``mask``) in float64; zero elsewhere."""
    z = np.where(mask, logits.astype(np.float64), -np.inf)
    z = np.exp(z - z.max())
    return z / z.sum()


def check_meta(meta: Any, where: str) -> None:
    """``NetLoadError`` unless ``meta`` is a complete ``gameshelf-net/1`` header."""
    if not isinstance(meta, Mapping):
        raise NetLoadError(f"{where}: 'meta' is not a JSON object")
    if meta.get("format") != FORMAT:
        raise NetLoadError(f"{where}: format {meta.get('format')!r}, expected {FORMAT!r}")
    for key, kind in (
        ("env_id", str),
        ("num_players", int),
        ("options", dict),
        ("observation_shape", list),
        ("num_actions", int),
        ("cell_features", int),
        ("hidden", list),
        ("value_range", list),
    ):
        if not isinstance(meta.get(key), kind) or isinstance(meta.get(key), bool):
            raise NetLoadError(f"{where}: 'meta' needs {key!r} as {kind.__name__}")
    if not all(isinstance(d, int) and d > 0 for d in meta["observation_shape"] + meta["hidden"]) or not meta["hidden"]:
        raise NetLoadError(f"{where}: 'observation_shape' and 'hidden' must be positive integers")
    if meta["num_actions"] < 1 or meta["cell_features"] < 0:
        raise NetLoadError(f"{where}: 'num_actions' must be positive and 'cell_features' not negative")
    if len(meta["hidden"]) > MAX_LAYERS or max(meta["hidden"]) > MAX_WIDTH or meta["cell_features"] > MAX_CELL_FEATURES:
        raise NetLoadError(
            f"{where}: 'hidden' must be 1 to {MAX_LAYERS} widths up to {MAX_WIDTH} and 'cell_features' at most "
            f"{MAX_CELL_FEATURES}; the file says {_short(meta['hidden'])} and {meta['cell_features']}"
        )
    if meta["cell_features"] and len(meta["observation_shape"]) != 3:
        raise NetLoadError(f"{where}: 'cell_features' needs a 3-D observation, not {_short(meta['observation_shape'])}")
    lo_hi = meta["value_range"]
    if len(lo_hi) != 2 or not all(isinstance(v, int | float) and np.isfinite(v) for v in lo_hi) or lo_hi[0] >= lo_hi[1]:
        raise NetLoadError(f"{where}: 'value_range' must be two finite numbers, low < high")


def expected_shapes(meta: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """The shape of every weight array of the architecture ``meta`` declares (``check_meta`` passed)."""
    shape = tuple(meta["observation_shape"])
    width = int(np.prod(shape))
    shapes: dict[str, tuple[int, ...]] = {}
    if meta["cell_features"]:
        features = meta["cell_features"]
        shapes.update({"cell.w": (shape[-1], features), "cell.b": (features,)})
        width = shape[0] * shape[1] * features
    for i, size in enumerate(meta["hidden"]):
        shapes.update({f"dense{i}.w": (width, size), f"dense{i}.b": (size,)})
        width = size
    actions = meta["num_actions"]
    shapes.update({"policy.w": (width, actions), "policy.b": (actions,), "value.w": (width, 1), "value.b": (1,)})
    return shapes


def check_game(meta: Mapping[str, Any], where: str) -> None:
    """``NetLoadError`` unless ``meta`` names a registered game, one of its player counts, allowed options,
    and that game's observation shape and action count."""
    from gameshelf import envs

    env_id, players, options = meta["env_id"], meta["num_players"], meta["options"]
    if env_id not in envs.registered_ids():
        raise NetLoadError(f"{where}: trained on {_short(env_id)}, which is not a registered environment id")
    counts = envs.spec(env_id).player_counts
    if players not in counts:
        raise NetLoadError(f"{where}: 'num_players' is {players}; {env_id} allows {list(counts)}")
    if "num_players" in options:
        raise NetLoadError(f"{where}: 'options' must not hold num_players (it is a field of its own)")
    try:
        info = envs.make_game(env_id, num_players=players, **options).info
    except (ValueError, TypeError) as err:
        raise NetLoadError(f"{where}: 'options' are not {env_id}'s: {_short(str(err))}") from None
    if list(info.observation_shape) != meta["observation_shape"] or info.num_actions != meta["num_actions"]:
        raise NetLoadError(
            f"{where}: its header says {env_id} with observation {_short(tuple(meta['observation_shape']))} and "
            f"{meta['num_actions']} actions; {env_id} has observation {tuple(info.observation_shape)} "
            f"and {info.num_actions} actions"
        )


def read_net(source: str | os.PathLike[str] | bytes) -> NetPolicy:
    """Load a ``gameshelf-net/1`` file (a path, or its bytes): arrays only, never unpickled; ``NetLoadError``.

    The ``meta`` header is read and checked first (against the game's registration too), then every array's
    ``.npy`` header against the architecture it declares, all before any weight is read: a file can neither
    make the loader allocate more than ``MAX_UNPACKED_BYTES`` nor hold arrays of another shape or type."""
    where = "network bytes" if isinstance(source, bytes) else str(source)
    if not isinstance(source, bytes):
        path = Path(source)
        if not path.is_file():
            raise NetLoadError(f"{where}: no such network file")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise NetLoadError(f"{where}: larger than {MAX_FILE_BYTES} bytes")
        source = path.read_bytes()
    elif len(source) > MAX_FILE_BYTES:
        raise NetLoadError(f"{where}: larger than {MAX_FILE_BYTES} bytes")
    try:
        with zipfile.ZipFile(io.BytesIO(source)) as archive:
            members = {info.filename.removesuffix(".npy"): info for info in archive.infolist()}
            if "meta" not in members:
                raise NetLoadError(f"{where}: no 'meta' header")
            meta = _read_meta(archive, members["meta"], where)
            shapes = expected_shapes(meta)
            for name in shapes:
                if name not in members:
                    raise NetLoadError(f"{where}: no {name!r} array")
            headers = {name: _read_header(archive, members[name], where) for name in shapes}
            total = 0
            for name, (shape, dtype, _) in headers.items():
                if dtype not in (np.float32, np.float16) or not dtype.isnative:
                    raise NetLoadError(f"{where}: {name!r} must hold finite float32 or float16 values, not {dtype}")
                if shape != shapes[name]:
                    raise NetLoadError(f"{where}: {name!r} has shape {_short(shape)}, expected {shapes[name]}")
                total += int(np.prod(shape)) * dtype.itemsize
            if total > MAX_UNPACKED_BYTES:
                raise NetLoadError(f"{where}: its arrays would take {total} bytes, more than {MAX_UNPACKED_BYTES}")
            weights = {name: _read_data(archive, members[name], headers[name], name, where) for name in shapes}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError, RuntimeError, NotImplementedError, zlib.error) as exc:
        if isinstance(exc, NetLoadError):
            raise
        raise NetLoadError(f"{where}: not a network file ({type(exc).__name__}: {_short(str(exc))})") from None
    for name, array in weights.items():
        if not np.all(np.isfinite(array)):
            raise NetLoadError(f"{where}: {name!r} must hold finite float32 or float16 values")
    return NetPolicy(meta, weights, source=where)


def _read_header(archive: zipfile.ZipFile, member: zipfile.ZipInfo, where: str) -> tuple[tuple[int, ...], np.dtype, bool]:
    """The shape, dtype and Fortran order in the ``.npy`` header of ``member``, its data left unread.

    A header naming a Python-object dtype (a pickle) is refused here."""
    with archive.open(member) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise NetLoadError(f"{where}: {member.filename!r} has .npy format {version}, not 1.0 or 2.0")
    if dtype.hasobject:
        raise NetLoadError(f"{where}: not a network file ({member.filename!r} holds Python objects, never unpickled)")
    if any(int(d) < 0 for d in shape):
        raise NetLoadError(f"{where}: {member.filename!r} has shape {_short(shape)}")
    return tuple(int(d) for d in shape), dtype, bool(fortran)


def _read_data(
    archive: zipfile.ZipFile, member: zipfile.ZipInfo, header: tuple[tuple[int, ...], np.dtype, bool], name: str, where: str
) -> np.ndarray:
    """The array of ``member``, reading exactly the bytes its (checked) header declares."""
    shape, dtype, fortran = header
    size = int(np.prod(shape)) * dtype.itemsize
    with archive.open(member) as f:
        version = np.lib.format.read_magic(f)
        (np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0)(f)
        data = f.read(size)
    if len(data) != size:
        raise NetLoadError(f"{where}: {name!r} is cut short ({len(data)} of {size} bytes)")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def _read_meta(archive: zipfile.ZipFile, member: zipfile.ZipInfo, where: str) -> dict[str, Any]:
    """The ``meta`` header (UTF-8 JSON as ``uint8``), checked by ``check_meta`` and ``check_game``."""
    shape, dtype, fortran = _read_header(archive, member, where)
    if dtype != np.uint8 or len(shape) != 1:
        raise NetLoadError(f"{where}: no 'meta' header")
    if shape[0] > MAX_META_BYTES:
        raise NetLoadError(f"{where}: 'meta' is larger than {MAX_META_BYTES} bytes")
    raw = _read_data(archive, member, (shape, dtype, fortran), "meta", where)
    try:
        meta = json.loads(raw.tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise NetLoadError(f"{where}: 'meta' is not JSON ({_short(str(exc))})") from None
    check_meta(meta, where)
    check_game(meta, where)
    return meta  # type: ignore[no-any-return]


def _short(value: Any, limit: int = 120) -> str:
    """``value`` as text, cut to ``limit`` characters."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_net_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a network file by its suffix (``.npz``)."""
    return Path(path).suffix == ".npz"


def _f32(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)
