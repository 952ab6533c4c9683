"""Position builders: where the core finds a game's, and helpers to read a position dict.

A game's position builder lives in ``envs/<game>/position.py``, found by the core the way it finds
``render.draw`` (by module convention, imported on first use), so ``rules.py`` never imports it:

* ``build_state(game, position) -> State``: ``game.state_from_position(position)``, validated;
* ``export_position(state) -> dict``: ``state.position()``, plain data that ``build_state`` rebuilds.

A game may instead override ``Game.state_from_position`` and ``State.position`` in ``rules.py``. A builder
reads its keys through a ``PositionReader``, so a bad position names the key and what is allowed, and
unknown keys are refused:

    read = PositionReader(position, game="level_x")
    dice = read.int_list("dice", length=4, low=1, high=6)
    read.done()                                  # any key not read is an error
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from functools import cache
from types import ModuleType
from typing import Any


@cache
def _position_module(game_module: str) -> ModuleType | None:
    package = game_module.rpartition(".")[0] or game_module
    try:
        return importlib.import_module(f"{package}.position")
    except ModuleNotFoundError as err:
        if err.name != f"{package}.position":
            raise
        return None


def position_function(game_class: type, name: str) -> Callable[..., Any] | None:
    """``name`` (``build_state`` or ``export_position``) of the ``position.py`` beside ``game_class``'s module, or None."""
    module = _position_module(game_class.__module__)
    return None if module is None else getattr(module, name, None)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class PositionReader:
    """Reads the keys of one position dict; every failure is a ``ValueError`` naming the key."""

    def __init__(self, position: Mapping[str, Any], game: str) -> None:
        if not isinstance(position, Mapping):
            raise ValueError(f"{game}: a position is a dict, got {type(position).__name__}")
        self.position = position
        self.game = game
        self.read: set[str] = set()

    def fail(self, key: str, message: str) -> ValueError:
        return ValueError(f"{self.game} position: {key!r} {message}")

    def get(self, key: str, default: Any = ...) -> Any:
        self.read.add(key)
        if key not in self.position:
            if default is ...:
                raise self.fail(key, "is missing")
            return default
        return self.position[key]

    def integer(self, key: str, low: int, high: int, default: Any = ...) -> int:
        value = self.get(key, default)
        if not _is_int(value) or not low <= value <= high:
            raise self.fail(key, f"must be an integer in {low}..{high}, got {value!r}")
        return int(value)

    def flag(self, key: str, default: Any = ...) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, got {value!r}")
        return value

    def choice(self, key: str, allowed: tuple[Any, ...], default: Any = ...) -> Any:
        value = self.get(key, default)
        if value not in allowed:
            raise self.fail(key, f"must be one of {list(allowed)}, got {value!r}")
        return value

    def int_list(self, key: str, low: int, high: int, length: int | None = None, default: Any = ...) -> list[int]:
        value = self.get(key, default)
        return self.check_int_list(key, value, low, high, length)

    def check_int_list(self, key: str, value: Any, low: int, high: int, length: int | None = None) -> list[int]:
        if not isinstance(value, (list, tuple)) or (length is not None and len(value) != length):
            size = f" of {length}" if length is not None else ""
            raise self.fail(key, f"must be a list{size} integers, got {value!r}")
        for item in value:
            if not _is_int(item) or not low <= item <= high:
                raise self.fail(key, f"must hold integers in {low}..{high}, got {item!r}")
        return [int(v) for v in value]

    def int_table(self, key: str, rows: int, low: int, high: int, length: int | None = None) -> list[list[int]]:
        """A list of ``rows`` integer lists (one per seat, say)."""
        value = self.get(key)
        if not isinstance(value, (list, tuple)) or len(value) != rows:
            raise self.fail(key, f"must be a list of {rows} lists, got {value!r}")
        return [self.check_int_list(f"{key}[{i}]", row, low, high, length) for i, row in enumerate(value)]

    def done(self) -> None:
        """Refuse keys that were not read (a typo must not pass silently)."""
        unknown = sorted(set(self.position) - self.read)
        if unknown:
            raise ValueError(f"{self.game} position: unknown key(s) {unknown}; known keys: {sorted(self.read)}")
