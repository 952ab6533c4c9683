"""Networks with random weights (``gameshelf-net/1``) for any registered game, and broken network files.

The tests of the ``reference`` agent and of network files play these instead of trained weights: a random
network plays legal moves as well as a trained one does.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf import envs
from gameshelf.training.benchmark import protocol
from gameshelf.training.numpy_net import FORMAT, MAX_FILE_BYTES, NetPolicy


def random_net(env_id: str, num_players: int | None = None, hidden: tuple[int, ...] = (16,), seed: int = 0) -> NetPolicy:
    """A network of ``env_id`` at ``num_players`` (default: the protocol's count) with random weights."""
    n = num_players or protocol.players_for(env_id)
    info = envs.make_game(env_id, num_players=n).info
    shape, actions = tuple(int(d) for d in info.observation_shape), int(info.num_actions)
    rng = np.random.default_rng(seed)
    cell = 4 if len(shape) == 3 else 0
    weights: dict[str, np.ndarray] = {}
    width = int(np.prod(shape))
    if cell:
        weights["cell.w"] = rng.normal(0.0, 0.5, (shape[-1], cell)).astype(np.float32)
        weights["cell.b"] = np.zeros(cell, np.float32)
        width = shape[0] * shape[1] * cell
    for i, h in enumerate(hidden):
        weights[f"dense{i}.w"] = rng.normal(0.0, 1.0 / np.sqrt(width), (width, h)).astype(np.float32)
        weights[f"dense{i}.b"] = np.zeros(h, np.float32)
        width = h
    weights["policy.w"] = rng.normal(0.0, 1.0, (width, actions)).astype(np.float32)
    weights["policy.b"] = np.zeros(actions, np.float32)
    weights["value.w"] = rng.normal(0.0, 1.0, (width, 1)).astype(np.float32)
    weights["value.b"] = np.zeros(1, np.float32)
    meta = {
        "format": FORMAT,
        "env_id": env_id,
        "num_players": n,
        "options": {},
        "observation_shape": list(shape),
        "num_actions": actions,
        "cell_features": cell,
        "hidden": list(hidden),
        "value_range": [float(info.min_return), float(info.max_return)],
        "trained": "random weights (tests)",
    }
    return NetPolicy(meta, weights)


def write_net(path: str | Path, env_id: str, **kwargs) -> Path:
    """``random_net(env_id, **kwargs)`` saved at ``path``."""
    return random_net(env_id, **kwargs).save(path)


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def _savez(path: Path, arrays: dict[str, np.ndarray]) -> Path:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())
    return path


BAD_FILES = ("another game", "damaged", "pickled object array", "oversize", "no meta")
"""The broken network files ``bad_net`` makes (for ``level_x-v0``), each refused with its own words."""

BAD_WORDS = {
    "another game": "trained on amoriax-v0, not level_x-v0",
    "damaged": "not a network file",
    "pickled object array": "not a network file",
    "oversize": f"larger than {MAX_FILE_BYTES} bytes",
    "no meta": "no 'meta' header",
}


def bad_net(folder: Path, kind: str, marker: Path | None = None) -> Path:
    """A network file that ``level_x-v0`` must refuse: ``kind`` is one of ``BAD_FILES``.

    ``pickled object array``: a ``weights`` array of Python objects whose unpickling would create
    ``marker`` (so a test can see that nothing ran)."""
    path = folder / f"{kind.replace(' ', '_')}.npz"
    if kind == "another game":
        return write_net(path, "amoriax-v0")
    good = _arrays(write_net(folder / "good_for_bad.npz", "level_x-v0"))
    if kind == "damaged":
        data = (folder / "good_for_bad.npz").read_bytes()
        path.write_bytes(data[: len(data) // 2])
        return path
    if kind == "pickled object array":
        target = str(marker or folder / "ran")

        class Payload:
            def __reduce__(self):
                return (exec, (f"open({target!r}, 'w').close()",))

        good["dense0.w"] = np.array([Payload()], dtype=object)
        return _savez(path, good)
    if kind == "oversize":
        with open(path, "wb") as f:  # sparse: no disk used, the size is read before anything else
            f.truncate(MAX_FILE_BYTES + 1)
        return path
    if kind == "no meta":
        good.pop("meta")
        return _savez(path, good)
    raise ValueError(kind)


def meta_of(path: str | Path) -> dict:
    with zipfile.ZipFile(path) as archive, archive.open("meta.npy") as f:
        return json.loads(np.lib.format.read_array(f, allow_pickle=False).tobytes().decode())


class ReferenceFolder:
    """An empty folder put in place of the shipped ``training/reference`` (``monkeypatch``: undone after the test);
    ``add(env_id)`` writes a random network for the game there."""

    def __init__(self, tmp_path: Path, monkeypatch: Any) -> None:
        import gameshelf.training.agents.network_agent as netagent

        self.path = tmp_path / "reference"
        self.path.mkdir()
        monkeypatch.setattr(netagent, "REFERENCE_DIR", self.path)
        monkeypatch.setattr(netagent, "_CACHE", {})

    @staticmethod
    def add(env_id: str, **kwargs: Any) -> Path:
        from gameshelf.training.agents.network_agent import reference_path

        return write_net(reference_path(env_id), env_id, **kwargs)
