"""``NetPolicy``: a small policy-and-value network stored as plain arrays and run with numpy.

One file, ``NAME.npz`` (format ``gameshelf-net/1``), read with ``numpy.load(allow_pickle=False)``: arrays only,
so loading never runs code, and playing needs neither torch nor a GPU. The file holds

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
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf.envs.core.game import State

FORMAT = "gameshelf-net/1"
MAX_FILE_BYTES = 64 * 1024 * 1024
"""Larger files are refused before reading (a reference network is a few hundred kilobytes)."""


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
        w = self.weights
        hidden = self.meta["hidden"]
        self._layers = [(_f32(w[f"dense{i}.w"]), _f32(w[f"dense{i}.b"])) for i in range(len(hidden))]
        self._cell = (_f32(w["cell.w"]), _f32(w["cell.b"])) if self.meta["cell_features"] else None
        self._policy = (_f32(w["policy.w"]), _f32(w["policy.b"]))
        self._value = (_f32(w["value.w"]), _f32(w["value.b"]))
        self._check_shapes()

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
        meta, where = self.meta, self.source or "network"
        shape = self.observation_shape
        width = int(np.prod(shape))
        if self._cell is not None:
            cw, cb = self._cell
            if len(shape) != 3 or cw.shape != (shape[-1], meta["cell_features"]) or cb.shape != (meta["cell_features"],):
                raise NetLoadError(f"{where}: 'cell' weights do not fit observation {shape}")
            width = shape[0] * shape[1] * meta["cell_features"]
        for i, (w, b) in enumerate(self._layers):
            if w.shape != (width, meta["hidden"][i]) or b.shape != (meta["hidden"][i],):
                raise NetLoadError(f"{where}: 'dense{i}' has shape {w.shape}, expected {(width, meta['hidden'][i])}")
            width = meta["hidden"][i]
        if self._policy[0].shape != (width, self.num_actions) or self._policy[1].shape != (self.num_actions,):
            raise NetLoadError(f"{where}: 'policy' has shape {self._policy[0].shape}, expected {(width, self.num_actions)}")
        if self._value[0].shape != (width, 1) or self._value[1].shape != (1,):
            raise NetLoadError(f"{where}: 'value' has shape {self._value[0].shape}, expected {(width, 1)}")


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
    lo_hi = meta["value_range"]
    if len(lo_hi) != 2 or not all(isinstance(v, int | float) and np.isfinite(v) for v in lo_hi) or lo_hi[0] >= lo_hi[1]:
        raise NetLoadError(f"{where}: 'value_range' must be two finite numbers, low < high")


def read_net(source: str | os.PathLike[str] | bytes) -> NetPolicy:
    """Load a ``gameshelf-net/1`` file (a path, or its bytes): arrays only, never unpickled; ``NetLoadError``."""
    where = "network bytes" if isinstance(source, bytes) else str(source)
    if not isinstance(source, bytes):
        path = Path(source)
        if not path.is_file():
            raise NetLoadError(f"{where}: no such network file")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise NetLoadError(f"{where}: larger than {MAX_FILE_BYTES} bytes")
        source = path.read_bytes()
    try:
        with np.load(io.BytesIO(source), allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise NetLoadError(f"{where}: not a network file ({type(exc).__name__}: {exc})") from None
    raw = arrays.pop("meta", None)
    if raw is None or raw.dtype != np.uint8 or raw.ndim != 1:
        raise NetLoadError(f"{where}: no 'meta' header")
    try:
        meta = json.loads(raw.tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise NetLoadError(f"{where}: 'meta' is not JSON ({exc})") from None
    check_meta(meta, where)
    needed = ["policy.w", "policy.b", "value.w", "value.b"] + [f"dense{i}.{p}" for i in range(len(meta["hidden"])) for p in "wb"]
    if meta["cell_features"]:
        needed += ["cell.w", "cell.b"]
    for name in needed:
        if name not in arrays:
            raise NetLoadError(f"{where}: no {name!r} array")
        if arrays[name].dtype not in (np.float32, np.float16) or not np.all(np.isfinite(arrays[name])):
            raise NetLoadError(f"{where}: {name!r} must hold finite float32 or float16 values")
    return NetPolicy(meta, {name: arrays[name] for name in needed}, source=where)


def is_net_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a network file by its suffix (``.npz``)."""
    return Path(path).suffix == ".npz"


def _f32(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)
