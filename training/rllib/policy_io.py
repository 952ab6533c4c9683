"""Saving and loading trained RLlib policies without running code from the file.

RLlib's own checkpoints (``Algorithm.save_to_path``, ``RLModule.save_to_path``) keep the module's class
and constructor arguments as *pickles*, so restoring one from a stranger runs code. gameshelf therefore
exports every policy it trains as a folder of plain data, the same rule as for SB3 models
(``gameshelf.training.model_io``, ``docs/security.md``):

* ``gameshelf.json``: the environment id, player count, game options, observation size, number of
  actions, the network's hidden layers and which module plays which seat;
* ``<module>.pt`` for each module: its weights, read back with ``torch.load(weights_only=True)`` (tensors
  and plain containers only; anything else is refused).

Loading rebuilds ``MaskedPPOModule`` from gameshelf's own code with the JSON's shapes, then loads the
weights strictly: a file whose weights do not fit what its JSON says is refused with a message.
"""

from __future__ import annotations

import io
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gameshelf.training.model_io import MAX_ENTRY_BYTES, ModelLoadError, atomic_write_bytes, atomic_write_text

METADATA = "gameshelf.json"
KIND = "rllib"
FORMAT = 1
ACTIVATIONS = ("tanh", "relu", "silu", "elu", "linear")
_MODULE_ID = re.compile(r"^[A-Za-z0-9_]{1,64}$")


@dataclass(frozen=True)
class PolicyInfo:
    """What gameshelf writes beside an RLlib policy's weights: enough to rebuild its modules."""

    env_id: str
    num_players: int
    observation_size: int
    num_actions: int
    hidden: list[int]
    activation: str
    seats: list[str]
    """The module playing each seat (``["main", "main"]`` for one shared policy)."""
    env_steps: int = 0
    iteration: int = 0
    game_options: dict[str, Any] = field(default_factory=dict)
    kind: str = KIND
    format: int = FORMAT

    @property
    def modules(self) -> list[str]:
        return sorted(set(self.seats))

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str, where: str) -> PolicyInfo:
        try:
            data = json.loads(text)
        except ValueError as err:
            raise ModelLoadError(f"{where}: {METADATA} is not valid JSON ({err})") from None
        if not isinstance(data, dict):
            raise ModelLoadError(f"{where}: {METADATA} must be a JSON object")
        if data.get("kind") != KIND:
            raise ModelLoadError(f"{where}: {METADATA} does not describe an RLlib policy (kind {data.get('kind')!r})")
        fmt = data.get("format")
        if not isinstance(fmt, int) or isinstance(fmt, bool) or not 1 <= fmt <= FORMAT:
            raise ModelLoadError(f"{where}: {METADATA} has format {fmt!r}; this gameshelf reads format 1..{FORMAT}")

        def need(key: str, kind: Any, ok: Any = lambda v: True) -> Any:
            value = data.get(key)
            if not isinstance(value, kind) or isinstance(value, bool) or not ok(value):
                raise ModelLoadError(f"{where}: {METADATA} has a missing or bad {key!r}: {value!r:.60}")
            return value

        def positive_ints(v: Any, most: int, limit: int) -> bool:
            return len(v) <= most and all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= limit for n in v)

        return cls(
            env_id=need("env_id", str),
            num_players=need("num_players", int, lambda v: 1 <= v <= 64),
            observation_size=need("observation_size", int, lambda v: 1 <= v <= 10**7),
            num_actions=need("num_actions", int, lambda v: 1 <= v <= 10**7),
            hidden=list(need("hidden", list, lambda v: len(v) >= 1 and positive_ints(v, 16, 65536))),
            activation=need("activation", str, lambda v: v in ACTIVATIONS),
            seats=list(
                need("seats", list, lambda v: 1 <= len(v) <= 64 and all(isinstance(m, str) and _MODULE_ID.match(m) for m in v))
            ),
            env_steps=need("env_steps", int, lambda v: v >= 0),
            iteration=need("iteration", int, lambda v: v >= 0),
            game_options=need("game_options", dict),
            format=fmt,
        )


def save_policy(folder: str | os.PathLike[str], info: PolicyInfo, weights: dict[str, dict[str, Any]]) -> Path:
    """Write ``info`` and each module's weights (``{module: state_dict}``) into ``folder``; returns it."""
    import torch

    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    for module in info.modules:
        tensors = {k: torch.as_tensor(v).detach().cpu().clone() for k, v in weights[module].items()}
        buffer = io.BytesIO()
        torch.save(tensors, buffer)
        atomic_write_bytes(root / f"{module}.pt", buffer.getvalue())
    atomic_write_text(root / METADATA, info.to_json())  # last: a folder with its JSON is complete
    return root


def policy_folder(path: str | os.PathLike[str]) -> Path:
    """The policy folder of ``path``: the folder itself, or a run folder's ``final_policy``."""
    p = Path(path)
    for candidate in (p, p / "final_policy"):
        if (candidate / METADATA).is_file():
            return candidate
    raise FileNotFoundError(f"no RLlib policy at {str(path)!r} (a folder with {METADATA}, or a run folder with final_policy/)")


def read_policy_info(path: str | os.PathLike[str]) -> PolicyInfo:
    folder = policy_folder(path)
    file = folder / METADATA
    if file.stat().st_size > 2**20:
        raise ModelLoadError(f"{str(file)!r} is too large to be a policy description")
    return PolicyInfo.from_json(file.read_text(encoding="utf-8", errors="replace"), repr(str(folder)))


def module_spec(info: PolicyInfo) -> Any:
    """The ``RLModuleSpec`` of the policy's modules (all seats share one architecture)."""
    import gymnasium as gym
    import numpy as np
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from gameshelf.training.rllib.env import MASK_KEY, OBS_KEY
    from gameshelf.training.rllib.module import MaskedPPOModule

    space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-np.inf, np.inf, (info.observation_size,), np.float32),
            MASK_KEY: gym.spaces.Box(0.0, 1.0, (info.num_actions,), np.float32),
        }
    )
    return RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=space,
        action_space=gym.spaces.Discrete(info.num_actions),
        model_config=DefaultModelConfig(fcnet_hiddens=list(info.hidden), fcnet_activation=info.activation),
    )


def load_policy_modules(path: str | os.PathLike[str]) -> tuple[PolicyInfo, dict[str, Any]]:
    """``(info, {module_id: module})`` of a saved policy, rebuilt from our code with weights-only loading."""
    import pickle

    import torch

    folder = policy_folder(path)
    info = read_policy_info(folder)
    spec = module_spec(info)
    modules: dict[str, Any] = {}
    for module_id in info.modules:
        file = folder / f"{module_id}.pt"
        where = repr(str(file))
        if not file.is_file():
            raise ModelLoadError(f"{where} is missing (named in {METADATA})")
        if file.stat().st_size > MAX_ENTRY_BYTES:
            raise ModelLoadError(f"{where} is too large ({file.stat().st_size} bytes)")
        try:
            weights = torch.load(file, map_location="cpu", weights_only=True)
        except pickle.UnpicklingError as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ModelLoadError(
                f"{where} holds more than plain weights and was refused (loading it would run code from the file): {first}"
            ) from None
        except (RuntimeError, EOFError, ValueError, OSError) as err:
            raise ModelLoadError(f"{where} is damaged ({type(err).__name__}: {str(err)[:120]})") from None
        if not isinstance(weights, dict):
            raise ModelLoadError(f"{where} is not a state dict")
        module = spec.build()
        try:
            module.load_state_dict(weights, strict=True)
        except (RuntimeError, TypeError, ValueError) as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ModelLoadError(f"{where}: the weights do not fit the network {METADATA} describes ({first})") from None
        module.eval()
        modules[module_id] = module
    return info, modules
