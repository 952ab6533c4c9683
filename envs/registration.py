"""Environment registry: ``register``, ``make``, ``spec``, ``registered_ids``, ``batched_ids``.

Entry points are ``"module:Class"`` strings naming a ``Game`` subclass, imported only when an
environment is made, so importing ``envs`` imports no game. Every id is mirrored into PettingZoo's own
registry under ``gameshelf/`` when the installed PettingZoo has one, and its single-seat view
(``gameshelf.wrappers.SingleSeatEnv``) into Gymnasium's under the same name.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gameshelf.envs.core.agent import heuristic_class

if TYPE_CHECKING:
    from gameshelf.envs.core.agent import Agent
    from gameshelf.envs.core.env import GameAECEnv
    from gameshelf.envs.core.game import Game

_ID = re.compile(r"^[a-z0-9_]+-v\d+$")


@dataclass(frozen=True)
class EnvSpec:
    """How to build one environment id."""

    id: str
    entry_point: str
    """``"package.module:GameClass"``."""
    kwargs: dict[str, Any] = field(default_factory=dict)
    """Default game options for this id."""
    description: str = ""
    heuristic: str | None = None
    """``"package.module:AgentClass"``: an override for a game with no ``heuristic.py`` beside it (e.g. a game
    defined in one module outside ``gameshelf.envs``); None (every game of the package): found by convention,
    see ``load_heuristic``."""

    def load_game_class(self) -> type[Game]:
        return load_entry_point(self.entry_point)  # type: ignore[no-any-return]

    def load_heuristic(self) -> type[Agent] | None:
        """The game's heuristic agent class (``make_agent("heuristic", id)``): the ``Heuristic`` of the
        ``heuristic.py`` beside its ``Game`` (``envs.core.agent.heuristic_class``), unless ``heuristic`` names
        another; None when it has neither."""
        if self.heuristic is not None:
            return load_entry_point(self.heuristic)  # type: ignore[no-any-return]
        return heuristic_class(self.load_game_class().__module__)

    @property
    def game_name(self) -> str:
        """The id without its version: ``"level_x"`` for ``"level_x-v0"`` (names the training config)."""
        return self.id.rpartition("-v")[0]

    @property
    def batched(self) -> bool:
        """Can ``gameshelf.vector`` batch this id? Read from its game: yes when its rules are compiled kernels
        (the ``Game`` names a ``kernel`` module, as every ``envs.core.kernel.KernelGame`` does)."""
        return getattr(self.load_game_class(), "kernel", None) is not None

    @property
    def player_counts(self) -> tuple[int, ...]:
        """Supported values of ``num_players``, the default first (from the game's ``num_players`` option)."""
        option = self.load_game_class().OPTIONS.get("num_players")
        if option is None:
            return (1,)
        default = self.kwargs.get("num_players", option.default)
        others = [n for n in (option.choices or (default,)) if n != default]
        return (default, *others)


def load_entry_point(entry_point: str) -> Any:
    """The object named by ``"package.module:attr"``."""
    module_name, _, attr = entry_point.partition(":")
    return getattr(importlib.import_module(module_name), attr)


_REGISTRY: dict[str, EnvSpec] = {}


def register(
    id: str,
    entry_point: str,
    *,
    heuristic: str | None = None,
    kwargs: dict[str, Any] | None = None,
    description: str = "",
) -> EnvSpec:
    """Add an environment id to the registry (and to PettingZoo's, when it has one)."""
    if not _ID.match(id):
        raise ValueError(f"environment id {id!r} must look like 'name-v0' (lower case, digits, '_')")
    if ":" not in entry_point:
        raise ValueError(f"entry point {entry_point!r} must look like 'package.module:GameClass'")
    if heuristic is not None and ":" not in heuristic:
        raise ValueError(f"heuristic {heuristic!r} must look like 'package.module:AgentClass'")
    new = EnvSpec(id, entry_point, dict(kwargs or {}), description, heuristic)
    _REGISTRY[id] = new
    _register_with_pettingzoo(id)
    _register_with_gymnasium(id)
    return new


def unregister(id: str) -> None:
    """Remove an id from the registry (a no-op for an unknown id)."""
    _REGISTRY.pop(id, None)


def registered_ids() -> list[str]:
    """Every registered environment id, in registration order."""
    return list(_REGISTRY)


def batched_ids() -> list[str]:
    """The registered ids that ``gameshelf.vector`` can batch (``EnvSpec.batched``), in registration order."""
    return [id for id, env_spec in _REGISTRY.items() if env_spec.batched]


def spec(id: str) -> EnvSpec:
    """The ``EnvSpec`` of an id; unknown ids raise ``KeyError`` listing the known ones."""
    try:
        return _REGISTRY[id]
    except KeyError:
        raise KeyError(f"unknown environment id {id!r}; known ids: {', '.join(_REGISTRY)}") from None


def make_game(id: str, **options: Any) -> Game:
    """The bare rules engine of an id, with its default options overridden by ``options``."""
    env_spec = spec(id)
    merged = {**env_spec.kwargs, **options}
    return env_spec.load_game_class()(**merged)


ENV_KWARGS = ("render_mode", "reward", "illegal_action")


def make(id: str, **kwargs: Any) -> GameAECEnv:
    """Build the PettingZoo AEC environment of ``id``.

    ``render_mode`` (``"ansi"``, ``"rgb_array"``, ``"human"`` or None), ``reward`` (``"outcome"`` or
    ``"score"``) and ``illegal_action`` (``"raise"`` or ``"penalize"``) configure the environment; every
    other keyword is a game option (e.g. ``num_players=3``).
    """
    from gameshelf.envs.core.env import GameAECEnv

    env_kwargs = {k: kwargs.pop(k) for k in ENV_KWARGS if k in kwargs}
    return GameAECEnv(make_game(id, **kwargs), env_id=id, **env_kwargs)


def _register_with_pettingzoo(id: str) -> None:
    try:
        from pettingzoo.env_registry.registration import aec_registry
        from pettingzoo.env_registry.registration import register as pz_register
    except ImportError:  # this PettingZoo has no registry
        return
    pz_id = f"gameshelf/{id}"
    if pz_id not in aec_registry:
        pz_register("aec", pz_id, entry_point=_PettingZooEntry(id))


def _register_with_gymnasium(id: str) -> None:
    """The single-seat view under ``gameshelf/<id>``: ``gymnasium.make("gameshelf/koplus-v0", opponents="random")``."""
    import gymnasium

    gym_id = f"gameshelf/{id}"
    if gym_id not in gymnasium.registry:
        gymnasium.register(gym_id, entry_point="gameshelf.wrappers.single_seat:SingleSeatEnv", kwargs={"game": id})


class _PettingZooEntry:
    """Callable entry point for PettingZoo's registry that defers to ``make``."""

    def __init__(self, id: str) -> None:
        self.id = id

    def __call__(self, **kwargs: Any) -> GameAECEnv:
        return make(self.id, **kwargs)

    def __hash__(self) -> int:  # PettingZoo caches entry points with lru_cache
        return hash(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _PettingZooEntry) and other.id == self.id
