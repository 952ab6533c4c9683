"""Position builders: where the core finds a game's, and helpers to read a position dict.

A game's position builder lives in ``envs/<game>/position.py``, found by the core the way it finds
``render.draw`` (by module convention, imported on first use), so ``game.py`` never imports it:

* ``build_state(game, position) -> State``: ``game.state_from_position(position)``, validated;
* ``export_position(state) -> dict``: ``state.position()``, plain data that ``build_state`` rebuilds.

A game may instead override ``Game.state_from_position`` (decorated with ``position_builder``) and
``State.position`` in ``game.py``. Either way a position is checked to be small plain data before the
builder reads it (``check_plain``: no megabyte string, no list nested thousands deep) and a refusal is one
``ValueError`` of at most ``MESSAGE_LENGTH`` characters, values in it shown cut (``show``). A builder reads
its keys through a ``PositionReader``, so a bad position names the key and what is allowed, and unknown
keys are refused:

    read = PositionReader(position, game="level_x")
    dice = read.int_list("dice", length=4, low=1, high=6)
    read.done()                                  # any key not read is an error
"""

from __future__ import annotations

import functools
import reprlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from gameshelf.envs.core.companion import companion


def position_function(game_class: type, name: str) -> Callable[..., Any] | None:
    """``name`` (``build_state`` or ``export_position``) of the ``position.py`` beside ``game_class``'s module, or None."""
    module = companion(game_class.__module__, "position")
    return None if module is None else getattr(module, name, None)


_SHOW = reprlib.Repr()
_SHOW.maxstring = _SHOW.maxother = 60
_SHOW.maxlevel = 3
_SHOW.maxlist = _SHOW.maxtuple = _SHOW.maxdict = 8

MESSAGE_LENGTH = 300
"""The longest message of a refused position or option (``cut``): a bad value is shown cut, never whole."""


def show(value: Any) -> str:
    """``repr(value)`` cut to a readable length (about 60 characters, 3 levels deep): safe for a huge string or
    a list nested thousands deep."""
    return _SHOW.repr(value)


def cut(message: str, length: int = MESSAGE_LENGTH) -> str:
    """``message`` cut to ``length`` characters (``...`` marks the cut)."""
    return message if len(message) <= length else message[: length - 3] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def same_value(value: Any, allowed: Any) -> bool:
    """``value == allowed`` with the same type: ``True`` is not ``1``, ``1.0`` is not ``1``."""
    return type(value) is type(allowed) and value == allowed


MAX_DEPTH = 10
"""How deep a position's lists and dicts may nest (the position dict itself is depth 1)."""
MAX_STRING = 1000
"""The longest string a position may hold."""


def check_plain(position: Any, game: str) -> None:
    """Refuse a position that is not small plain data: a dict whose lists and dicts nest at most ``MAX_DEPTH``
    deep and whose strings (keys included) have at most ``MAX_STRING`` characters. Run before any builder
    reads it, so no builder meets a string of a megabyte or a list nested thousands deep; the ``ValueError``
    names the key."""
    if not isinstance(position, Mapping):
        raise ValueError(f"{game}: a position is a dict, got {type(position).__name__}")
    for key in position:
        if not isinstance(key, str):
            raise ValueError(f"{game} position: the key {show(key)} is not a string")
    stack: list[tuple[str, Any, int]] = [(show(key), value, 2) for key, value in position.items()]
    stack += [("a key", key, 1) for key in position]
    while stack:
        where, value, depth = stack.pop()
        if isinstance(value, str) and len(value) > MAX_STRING:
            raise ValueError(f"{game} position: {where} holds a string of {len(value)} characters (at most {MAX_STRING})")
        if isinstance(value, (list, tuple, Mapping)):
            if depth > MAX_DEPTH:
                raise ValueError(f"{game} position: {where} nests lists or dicts more than {MAX_DEPTH} deep")
            items = value.items() if isinstance(value, Mapping) else enumerate(value)
            for key, item in items:
                if isinstance(value, Mapping) and not isinstance(key, str):
                    raise ValueError(f"{game} position: {where} has a key {show(key)} that is not a string")
                stack.append((f"{where}[{show(key)}]", item, depth + 1))
                if isinstance(value, Mapping):
                    stack.append((f"a key of {where}", key, depth + 1))


B = TypeVar("B", bound=Callable[..., Any])


def position_builder(build: B) -> B:
    """Decorate a builder ``build(game, position)`` (``build_state``, or ``Game.state_from_position`` overridden):
    the position is checked to be small plain data first (``check_plain``), a kernel game's row is checked
    against its declared bounds last (``RowLayout.check``), and a refusal's message is cut to ``MESSAGE_LENGTH``
    characters."""

    @functools.wraps(build)
    def checked(game: Any, position: Any) -> Any:
        check_plain(position, game.name)
        try:
            state = build(game, position)
            layout = getattr(getattr(game, "kernel", None), "ROW", None)
            if layout is not None:  # a kernel game's row: every field within its declared bounds
                layout.check(state.s)
            return state
        except ValueError as err:
            if len(str(err)) <= MESSAGE_LENGTH:
                raise
            raise ValueError(cut(str(err))) from None

    return checked  # type: ignore[return-value]


class PositionReader:
    """Reads the keys of one position dict (checked by ``check_plain`` first); every failure is a ``ValueError``
    naming the key, its message cut to ``MESSAGE_LENGTH``."""

    def __init__(self, position: Mapping[str, Any], game: str) -> None:
        check_plain(position, game)
        self.position = position
        self.game = game
        self.read: set[str] = set()

    def fail(self, key: str, message: str) -> ValueError:
        return ValueError(cut(f"{self.game} position: {key!r} {message}"))

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
            raise self.fail(key, f"must be an integer in {low}..{high}, got {show(value)}")
        return int(value)

    def flag(self, key: str, default: Any = ...) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, got {show(value)}")
        return value

    def choice(self, key: str, allowed: tuple[Any, ...], default: Any = ...) -> Any:
        value = self.get(key, default)
        if not any(same_value(value, a) for a in allowed):
            raise self.fail(key, f"must be one of {list(allowed)}, got {show(value)}")
        return value

    def int_list(self, key: str, low: int, high: int, length: int | None = None, default: Any = ...) -> list[int]:
        value = self.get(key, default)
        return self.check_int_list(key, value, low, high, length)

    def check_int_list(self, key: str, value: Any, low: int, high: int, length: int | None = None) -> list[int]:
        if not isinstance(value, (list, tuple)) or (length is not None and len(value) != length):
            size = f" of {length}" if length is not None else " of"
            raise self.fail(key, f"must be a list{size} integers, got {show(value)}")
        for item in value:
            if not _is_int(item) or not low <= item <= high:
                raise self.fail(key, f"must hold integers in {low}..{high}, got {show(item)}")
        return [int(v) for v in value]

    def int_table(self, key: str, rows: int, low: int, high: int, length: int | None = None) -> list[list[int]]:
        """A list of ``rows`` integer lists (one per seat, say)."""
        value = self.get(key)
        if not isinstance(value, (list, tuple)) or len(value) != rows:
            raise self.fail(key, f"must be a list of {rows} lists, got {show(value)}")
        return [self.check_int_list(f"{key}[{i}]", row, low, high, length) for i, row in enumerate(value)]

    def done(self) -> None:
        """Refuse keys that were not read (a typo must not pass silently)."""
        unknown = sorted(show(key) for key in set(self.position) - self.read)
        if unknown:
            raise ValueError(cut(f"{self.game} position: unknown key(s) {', '.join(unknown)}; known keys: {sorted(self.read)}"))
