"""Saving and loading models and policies without running code from the file, and the one writer of run files.

A ``MaskablePPO.save`` zip holds ``data`` (JSON whose non-JSON values, e.g. the learning-rate schedule,
are *pickled*), ``policy.pth`` and ``policy.optimizer.pth`` (``torch.save`` files, i.e. pickles too) and
``pytorch_variables.pth``. ``MaskablePPO.load`` unpickles all of it, so a crafted file runs code. RLlib's
own checkpoints keep the module's class and constructor arguments as pickles as well.

So every model and policy gameshelf saves carries ``gameshelf.json``: plain JSON with what is needed to
rebuild the network from our own code. Its ``kind`` says which:

* ``sb3`` (``ModelInfo``; a file without ``kind`` is one): a MaskablePPO model, a zip with
  ``gameshelf.json`` beside SB3's entries (``save_model``): environment id, player count, observation and
  action shapes, observation layout, policy kind, ``net_arch``. The SB3 and the batched trainers write these.
* ``rllib`` (``PolicyInfo``): a policy trained on RLlib, a folder with ``gameshelf.json`` and one
  ``<module>.pt`` of weights per module (``save_policy``): shapes, hidden layers, which module plays which seat.

``read_info`` is the one reader of that JSON (every field checked), ``read_weights`` the one reader of
weights: ``torch.load(weights_only=True)``, which accepts tensors and plain containers and refuses anything
else. Loading an SB3 model (``load_policy``) reads only those two and never SB3's ``data``; resuming a run
rebuilds the model from the run's ``config.yaml`` and loads the policy and optimizer weights the same way
(``load_weights``); RLlib policies load through ``gameshelf.training.rllib.agent``.

``trust_model=True`` is the one way to do a full ``MaskablePPO.load`` (for a model saved by other code,
without ``gameshelf.json``); only use it on files whose source you trust. See ``docs/security.md``.

Every file of a run folder is written by ``atomic_write_bytes`` (a temporary file beside the target,
flushed to disk, then renamed over it), so a crash or a full disk never leaves half a file.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import shutil
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np

METADATA = "gameshelf.json"
FORMAT = 1
MAX_ENTRY_BYTES = 2**31
"""The largest zip entry or weights file read (a guard against archives that expand without bound)."""
MAX_INFO_BYTES = 2**20
"""The largest ``gameshelf.json`` read."""
ACTIVATIONS = ("tanh", "relu", "silu", "elu", "linear")
_MODULE_ID = re.compile(r"^[A-Za-z0-9_]{1,64}$")


class ModelLoadError(ValueError):
    """A model file that cannot be loaded safely, or does not fit the game; the message says why."""


# ---- writing ----------------------------------------------------------------------------------------------
def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, flush it to disk, then rename it over ``path``."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def save_model(model: Any, path: str | os.PathLike[str], info: ModelInfo) -> Path:
    """``model.save`` plus ``gameshelf.json``, written atomically (a crash never leaves half a file)."""
    buffer = io.BytesIO()
    model.save(buffer)
    with zipfile.ZipFile(buffer, mode="a") as archive:
        archive.writestr(METADATA, info.to_json())
    atomic_write_bytes(path, buffer.getvalue())
    return Path(path)


def save_policy(
    folder: str | os.PathLike[str],
    info: PolicyInfo,
    weights: dict[str, dict[str, Any]],
    extra: Callable[[Path], None] | None = None,
) -> Path:
    """Write ``info`` and each module's weights (``{module: state_dict}``) as the folder ``folder``; returns it.

    The files go into a temporary folder beside it (``gameshelf.json`` last), which then replaces ``folder``:
    a crash leaves the previous folder or the new one, never half of one. ``extra(tmp)`` writes more files
    into that temporary folder before ``gameshelf.json`` (a training checkpoint's algorithm state)."""
    import torch

    root = Path(folder)
    tmp = root.with_name(root.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for module in info.modules:
        tensors = {k: torch.as_tensor(v).detach().cpu().clone() for k, v in weights[module].items()}
        buffer = io.BytesIO()
        torch.save(tensors, buffer)
        atomic_write_bytes(tmp / f"{module}.pt", buffer.getvalue())
    if extra is not None:
        extra(tmp)
    atomic_write_text(tmp / METADATA, info.to_json())  # last: a folder with its JSON is complete
    shutil.rmtree(root, ignore_errors=True)
    tmp.rename(root)
    return root


# ---- what gameshelf.json says ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelInfo:
    """``gameshelf.json`` of a MaskablePPO model (kind ``sb3``): enough to rebuild the policy."""

    env_id: str
    num_players: int
    observation_shape: tuple[int, ...]
    observation_dtype: str
    observation_low: float
    observation_high: float
    num_actions: int
    observation: str
    policy: str
    net_arch: list[int]
    features_dim: int
    timesteps: int = 0
    n_updates: int = 0
    game_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    kind: str = "sb3"
    format: int = FORMAT

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["observation_shape"] = list(self.observation_shape)
        return json.dumps(data, indent=1)

    def spaces(self) -> tuple[Any, Any]:
        import gymnasium as gym

        dtype: Any = np.dtype(self.observation_dtype)  # Gymnasium's stubs name scalar types, any dtype works
        obs = gym.spaces.Box(self.observation_low, self.observation_high, self.observation_shape, dtype)
        return obs, gym.spaces.Discrete(self.num_actions)


@dataclass(frozen=True)
class PolicyInfo:
    """``gameshelf.json`` of a policy trained on RLlib (kind ``rllib``): enough to rebuild its modules."""

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
    game_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    kind: str = "rllib"
    format: int = FORMAT

    @property
    def modules(self) -> list[str]:
        return sorted(set(self.seats))

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=1)


KINDS = {"sb3": "a MaskablePPO model", "rllib": "an RLlib policy"}


@overload
def parse_info(text: str, where: str, kind: Literal["sb3"]) -> ModelInfo: ...
@overload
def parse_info(text: str, where: str, kind: Literal["rllib"]) -> PolicyInfo: ...
def parse_info(text: str, where: str, kind: str) -> ModelInfo | PolicyInfo:
    """The checked contents of a ``gameshelf.json`` of ``kind``; ``ModelLoadError`` names the first bad field."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise ModelLoadError(f"{where}: {METADATA} is not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise ModelLoadError(f"{where}: {METADATA} must be a JSON object")
    found = data.get("kind", "sb3")
    if found != kind:
        raise ModelLoadError(f"{where}: {METADATA} does not describe {KINDS[kind]} (kind {found!r:.40})")
    fmt = data.get("format")
    if not isinstance(fmt, int) or isinstance(fmt, bool) or not 1 <= fmt <= FORMAT:
        raise ModelLoadError(f"{where}: {METADATA} has format {fmt!r:.40}; this gameshelf reads format 1..{FORMAT}")

    def need(key: str, types: Any, ok: Callable[[Any], bool] = lambda v: True) -> Any:
        value = data.get(key)
        if not isinstance(value, types) or isinstance(value, bool) or not ok(value):
            raise ModelLoadError(f"{where}: {METADATA} has a missing or bad {key!r}: {value!r:.60}")
        return value

    def positive_ints(most: int, limit: int) -> Callable[[Any], bool]:
        return lambda v: len(v) <= most and all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= limit for n in v)

    common = {
        "env_id": need("env_id", str),
        "num_players": need("num_players", int, lambda v: 1 <= v <= 64),
        "num_actions": need("num_actions", int, lambda v: 1 <= v <= 10**7),
    }
    if kind == "rllib":
        return PolicyInfo(
            **common,
            observation_size=need("observation_size", int, lambda v: 1 <= v <= 10**7),
            hidden=list(need("hidden", list, lambda v: len(v) >= 1 and positive_ints(16, 65536)(v))),
            activation=need("activation", str, lambda v: v in ACTIVATIONS),
            seats=list(
                need("seats", list, lambda v: 1 <= len(v) <= 64 and all(isinstance(m, str) and _MODULE_ID.match(m) for m in v))
            ),
            env_steps=need("env_steps", int, lambda v: v >= 0),
            iteration=need("iteration", int, lambda v: v >= 0),
            game_options=need("game_options", dict),
            format=fmt,
        )
    shape = need("observation_shape", list, lambda v: 1 <= len(v) <= 4)
    if not positive_ints(4, 10**7)(shape):
        raise ModelLoadError(f"{where}: {METADATA} has a bad observation_shape: {shape!r:.60}")
    net_arch = need("net_arch", list, lambda v: len(v) <= 16)
    if not positive_ints(16, 65536)(net_arch):
        raise ModelLoadError(f"{where}: {METADATA} has a bad net_arch: {net_arch!r:.60}")
    return ModelInfo(
        **common,
        observation_shape=tuple(shape),
        observation_dtype=need("observation_dtype", str, lambda v: v in ("float32", "float64", "uint8", "int8")),
        observation_low=float(need("observation_low", (int, float))),
        observation_high=float(need("observation_high", (int, float))),
        observation=need("observation", str, lambda v: v in ("flat", "planes")),
        policy=need("policy", str, lambda v: v in ("default", "fully_conv")),
        net_arch=list(net_arch),
        features_dim=need("features_dim", int, lambda v: 1 <= v <= 65536),
        timesteps=need("timesteps", int, lambda v: v >= 0),
        n_updates=need("n_updates", int, lambda v: v >= 0),
        game_options=need("game_options", dict),
        format=fmt,
    )


def model_info(config: Any, model: Any) -> ModelInfo:
    """The ``ModelInfo`` of ``model`` trained under ``config`` (a ``TrainConfig``)."""
    space = model.observation_space
    return ModelInfo(
        env_id=config.env_id,
        num_players=int(config.players),
        observation_shape=tuple(int(n) for n in space.shape),
        observation_dtype=str(space.dtype),
        observation_low=float(np.min(space.low)),
        observation_high=float(np.max(space.high)),
        num_actions=int(model.action_space.n),
        observation=config.observation,
        policy=config.policy,
        net_arch=list(config.ppo.net_arch),
        features_dim=int(config.ppo.features_dim),
        timesteps=int(model.num_timesteps),
        n_updates=int(getattr(model, "_n_updates", 0)),
        game_options=dict(config.game_options),
    )


# ---- reading ----------------------------------------------------------------------------------------------
def _read_entry(archive: zipfile.ZipFile, name: str, where: str) -> bytes:
    try:
        entry = archive.getinfo(name)
    except KeyError:
        raise ModelLoadError(f"{where} has no {name} (not a model saved by gameshelf train)") from None
    if entry.file_size > MAX_ENTRY_BYTES:
        raise ModelLoadError(f"{where}: {name} is too large ({entry.file_size} bytes)")
    return archive.read(name)


def _open(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise ModelLoadError(f"{str(path)!r} is not a readable model file ({err})") from None


def policy_folder(path: str | os.PathLike[str]) -> Path:
    """The policy folder of ``path``: the folder itself, or a run folder's ``final_policy``."""
    p = Path(path)
    for candidate in (p, p / "final_policy"):
        if (candidate / METADATA).is_file():
            return candidate
    raise FileNotFoundError(f"no RLlib policy at {str(path)!r} (a folder with {METADATA}, or a run folder with final_policy/)")


@overload
def read_info(path: str | os.PathLike[str], kind: Literal["sb3"] = ..., legacy: bool = ...) -> ModelInfo: ...
@overload
def read_info(path: str | os.PathLike[str], kind: Literal["rllib"], legacy: bool = ...) -> PolicyInfo: ...
def read_info(path: str | os.PathLike[str], kind: str = "sb3", legacy: bool = False) -> ModelInfo | PolicyInfo:
    """The ``gameshelf.json`` of a saved model (nothing else is read): of the zip file ``path`` (kind ``sb3``), or
    of the policy folder ``path`` or its run folder's ``final_policy/`` (kind ``rllib``).

    ``legacy`` (``sb3``): for a model saved before ``gameshelf.json`` existed, read the same facts from the
    plain JSON parts of SB3's ``data`` entry instead (its pickled parts are never decoded).
    """
    if kind == "rllib":
        folder = policy_folder(path)
        file = folder / METADATA
        if file.stat().st_size > MAX_INFO_BYTES:
            raise ModelLoadError(f"{str(file)!r} is too large to be a policy description")
        return parse_info(file.read_text(encoding="utf-8", errors="replace"), repr(str(folder)), "rllib")
    p = Path(path)
    where = repr(str(p))
    with _open(p) as archive:
        if METADATA in archive.namelist():
            return parse_info(_read_entry(archive, METADATA, where).decode("utf-8", "replace"), where, "sb3")
        info = _info_from_sb3_data(archive, where) if legacy else None
        if info is None:
            raise ModelLoadError(
                f"{where} has no {METADATA} and is not a model of gameshelf's policies: it was not saved by "
                "gameshelf train, and loading it fully would unpickle code from the file. If you trust its "
                "source, load it with trust_model=True (see docs/security.md)"
            )
        return info


MAX_DATA_BYTES = 64 * 2**20


def _info_from_sb3_data(archive: zipfile.ZipFile, where: str) -> ModelInfo | None:
    """A ``ModelInfo`` from the readable (non-pickled) fields of SB3's ``data``; None if they do not suffice.

    Only the plain JSON values and the strings SB3 writes beside each pickled value are used: the policy
    class's module and docstring, ``policy_kwargs`` (``net_arch``, the extractor's name and keyword
    arguments, parsed with ``ast.literal_eval``), the spaces' shape, dtype and action count.
    """
    import ast

    if "data" not in archive.namelist() or archive.getinfo("data").file_size > MAX_DATA_BYTES:
        return None
    try:
        data = json.loads(archive.read("data"))
        policy_class = data["policy_class"]
        kwargs = data.get("policy_kwargs") or {}
        obs_space, action_space = data["observation_space"], data["action_space"]
        module = policy_class.get("__module__") if isinstance(policy_class, dict) else None
        doc = str(policy_class.get("__doc__", "")) if isinstance(policy_class, dict) else ""

        def plain(value: Any) -> Any:
            return ast.literal_eval(value) if isinstance(value, str) else value

        if module == "gameshelf.training.policies":
            policy, net_arch = "fully_conv", [64]
        elif module == "sb3_contrib.common.maskable.policies" and doc.strip().startswith("Policy class for actor-critic"):
            policy, net_arch = "default", plain(kwargs.get("net_arch", [64, 64]))
        else:
            return None
        extractor = str(kwargs.get("features_extractor_class", ""))
        features_dim = int(plain(kwargs.get("features_extractor_kwargs", "{}")).get("features_dim", 256))
        shape = [int(n) for n in plain(obs_space["_shape"])]
        dtype = str(obs_space["dtype"])
        if dtype not in ("float32", "float64") or str(action_space.get(":type:", "")).find("Discrete") < 0:
            return None
        if policy == "default":
            if "SmallCNN" in extractor and len(shape) == 3:
                observation = "planes"
            elif extractor in ("", "None") and len(shape) == 1:
                observation = "flat"
            else:
                return None
        else:
            observation = "planes"
        text = json.dumps(
            {
                "format": FORMAT,
                "env_id": "",
                "num_players": 1,
                "observation_shape": shape,
                "observation_dtype": dtype,
                "observation_low": -1e30,
                "observation_high": 1e30,
                "num_actions": int(plain(action_space["n"])),
                "observation": observation,
                "policy": policy,
                "net_arch": list(net_arch) if isinstance(net_arch, list) else [],
                "features_dim": features_dim,
                "timesteps": int(data.get("num_timesteps", 0)),
                "n_updates": int(data.get("_n_updates", 0)),
                "game_options": {},
            }
        )
    except (KeyError, TypeError, ValueError, AttributeError, SyntaxError, MemoryError, RecursionError):
        return None
    return parse_info(text, where, "sb3")


def read_weights(source: bytes | Path, where: str) -> dict[str, Any]:
    """A state dict read with ``torch.load(weights_only=True)`` from bytes or a file: tensors and plain containers
    only; anything else (a pickled object: code) is refused with ``ModelLoadError``, as is a damaged file."""
    import pickle

    import torch

    if isinstance(source, Path) and source.stat().st_size > MAX_ENTRY_BYTES:
        raise ModelLoadError(f"{where} is too large ({source.stat().st_size} bytes)")
    try:
        weights = torch.load(io.BytesIO(source) if isinstance(source, bytes) else source, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ModelLoadError(
            f"{where} holds more than plain weights and was refused (loading it would run code from the file): {first}"
        ) from None
    except (RuntimeError, EOFError, ValueError, OSError, zipfile.BadZipFile) as err:
        raise ModelLoadError(f"{where} is damaged ({type(err).__name__}: {str(err)[:120]})") from None
    if not isinstance(weights, dict):
        raise ModelLoadError(f"{where} is not a state dict")
    return weights


def load_weights(path: str | os.PathLike[str], optimizer: bool = False) -> dict[str, Any]:
    """``{"policy": state_dict}`` (and ``"policy.optimizer"``) of a model file, read with ``read_weights``."""
    p = Path(path)
    where = repr(str(p))
    names = ["policy", "policy.optimizer"] if optimizer else ["policy"]
    with _open(p) as archive:
        return {name: read_weights(_read_entry(archive, f"{name}.pth", where), f"{where}: {name}.pth") for name in names}


@dataclass
class LoadedPolicy:
    """A policy rebuilt from our own code with weights from a file (what ``LearnedAgent`` plays with)."""

    policy: Any
    observation_space: Any
    action_space: Any
    info: ModelInfo | None = None


def build_policy(info: ModelInfo) -> Any:
    """A fresh ``MaskableActorCriticPolicy`` shaped as ``info`` says."""
    from gameshelf.training.policies import policy_spec

    obs_space, action_space = info.spaces()
    policy_class, kwargs = policy_spec(info.policy, info.observation, info.net_arch, info.features_dim)
    return policy_class(obs_space, action_space, lambda _: 0.0, **kwargs)


def load_policy(path: str | os.PathLike[str], trust_model: bool = False) -> LoadedPolicy:
    """The policy of a saved model. By default nothing is unpickled (see the module's docstring)."""
    if trust_model:
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(str(path), device="cpu")
        model.policy.set_training_mode(False)
        try:
            info: ModelInfo | None = read_info(path)
        except ModelLoadError:
            info = None
        return LoadedPolicy(model.policy, model.observation_space, model.action_space, info)
    info = read_info(path, legacy=True)
    weights = load_weights(path)["policy"]
    policy = build_policy(info)
    try:
        policy.load_state_dict(weights, strict=True)
    except (RuntimeError, TypeError, ValueError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ModelLoadError(f"{str(path)!r}: the weights do not fit the policy its {METADATA} describes ({first})") from None
    policy.set_training_mode(False)
    return LoadedPolicy(policy, policy.observation_space, policy.action_space, info)


def check_fits(loaded: LoadedPolicy, env_id: str, path: str, num_players: int | None = None) -> None:
    """Raise ``ModelLoadError`` naming both sides when the policy cannot play ``env_id``."""
    from gameshelf import envs
    from gameshelf.wrappers import to_policy_input

    info = loaded.info
    counts = envs.spec(env_id).player_counts
    n = num_players or (info.num_players if info is not None and info.num_players in counts else counts[0])
    if info is not None and info.env_id == "":
        n = num_players or counts[0]
    options = info.game_options if info is not None and info.env_id == env_id else {}
    try:
        game = envs.make_game(env_id, num_players=n, **options)
    except ValueError:
        game = envs.make_game(env_id, num_players=n)
    obs_shape = tuple(game.info.observation_shape)
    policy_shape = tuple(loaded.observation_space.shape)
    policy_actions = int(loaded.action_space.n)
    known = info is not None and info.env_id != ""
    trained = f"{info.env_id} ({info.num_players} players)" if info is not None and known else "another game"
    problems = []
    try:
        to_policy_input(np.zeros(obs_shape, dtype=np.float32), policy_shape)
    except ValueError:
        problems.append(f"observation shape {obs_shape} does not fit the model's input {policy_shape}")
    if game.info.num_actions != policy_actions:
        problems.append(f"{game.info.num_actions} actions, the model has {policy_actions}")
    if problems:
        raise ModelLoadError(
            f"model {path!r} was trained on {trained} and cannot play {env_id} ({n} players): " + "; ".join(problems)
        )
