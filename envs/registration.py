"""Environment registry: ``register``, ``make``, ``spec``, ``registered_ids``.

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

if TYPE_CHECKING:
    from gameshelf.envs.core.env import GameAECEnv
    from gameshelf.envs.core.game import Game

_ID = re.compile(r"^[a-z0-9_]+-v\d+$")


@dataclass(frozen=True)
class EnvSpec:
    """How to build one environment id."""

    id: str
    entry_point: str
    """``"package.module:GameClass"``."""
    player_counts: tuple[int, ...] = (2,)
    """Supported values of ``num_players`` (the first is the default)."""
    kwargs: dict[str, Any] = field(default_factory=dict)
    """Default game options for this id."""
    description: str = ""

    def load_game_class(self) -> type[Game]:
        module_name, _, attr = self.entry_point.partition(":")
        return getattr(importlib.import_module(module_name), attr)  # type: ignore[no-any-return]


_REGISTRY: dict[str, EnvSpec] = {}


def register(
    id: str,
    entry_point: str,
    player_counts: tuple[int, ...] = (2,),
    kwargs: dict[str, Any] | None = None,
    description: str = "",
) -> EnvSpec:
    """Add an environment id to the registry (and to PettingZoo's, when it has one)."""
    if not _ID.match(id):
        raise ValueError(f"environment id {id!r} must look like 'name-v0' (lower case, digits, '_')")
    if ":" not in entry_point:
        raise ValueError(f"entry point {entry_point!r} must look like 'package.module:GameClass'")
    new = EnvSpec(id, entry_point, tuple(player_counts), dict(kwargs or {}), description)
    _REGISTRY[id] = new
    _register_with_pettingzoo(id)
    _register_with_gymnasium(id)
    return new


def registered_ids() -> list[str]:
    """Every registered environment id, in registration order."""
    return list(_REGISTRY)


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
    return GameAECEnv(id, **env_kwargs, **kwargs)


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
        gymnasium.register(gym_id, entry_point="gameshelf.wrappers.single_seat:SingleSeatEnv", kwargs={"env_id": id})


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
