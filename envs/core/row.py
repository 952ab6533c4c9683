"""A kernel state row declared once: ``RowLayout``, the row's twin of ``ObservationLayout``.

A game's ``kernel.py`` declares its row at the top, field by field; ``add`` returns the field's offset, a plain
``int``, so kernel bodies index the row as before (numba freezes module-level ints as constants):

    ROW = RowLayout("level_x")
    POS = ROW.add("pos", (4, 6), "square of seat s's pawn in row r (0 = supply)", bounds=(0, 4), per_seat=True)
    LEFT = ROW.add("tokens_left", 6, "tokens left in each row's stack", bounds=(0, 12))
    FIRST = ROW.add("first", 1, "first player (-1 before the opening chance node)", bounds=(-1, 3), fill=-1)
    OVER = ROW.flag("over", "the game is over")
    SIZE = ROW.size

From that one declaration come the row of a new game (``new_row``, every field at its ``fill``), the bound
checks (``check``: a value outside a field's bounds is refused with the field's name and range, so a position
or an option that does not fit the row never wraps around silently), the State's attributes (``field``:
``state.pos[0][2]``, ``state.over``) and the layout table of the kernel's docstring and the environment card
(``table``), so the three cannot disagree.

A row whose length depends on the game (a log of the plies played) ends with a ``tail``: a field of at least
its declared count whose bounds hold for every entry to the row's end.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

STATE_DTYPE = np.int16
"""The dtype of every kernel state row."""
_INFO = np.iinfo(STATE_DTYPE)


@dataclass(frozen=True)
class RowField:
    """One named field of a row: ``shape`` entries from ``offset``, each in ``low..high``."""

    name: str
    offset: int
    shape: tuple[int, ...]
    meaning: str
    low: int
    high: int
    fill: int
    flag: bool
    per_seat: bool
    open_ended: bool = False
    """The row's ``tail``: a longer row's entries after it are its too."""

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def index(self) -> slice:
        return slice(self.offset, self.offset + self.size)

    def refuse(self, value: Any, game: str) -> ValueError:
        return ValueError(f"{game}: {self.name} holds {self.low}..{self.high}, got {value}")


class RowLayout:
    """The named fields of a game's kernel state row, in order (see the module docstring)."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.fields: dict[str, RowField] = {}
        self._end = 0
        self._tail: RowField | None = None

    def add(
        self,
        name: str,
        shape: int | tuple[int, int],
        meaning: str,
        bounds: tuple[int, int],
        *,
        fill: int = 0,
        per_seat: bool = False,
    ) -> int:
        """Append a field of ``shape`` entries (an int, or ``(rows, width)``), each in ``bounds`` (inclusive),
        ``fill`` in a new game's row; returns its offset. ``per_seat``: one entry (a count) or one row (a
        ``(seats, width)`` shape) per seat, padded to the largest player count; the State's attribute shows as
        many as the game has players."""
        if name in self.fields:
            raise ValueError(f"{self.game}: row field {name!r} is declared twice")
        dims = (shape,) if isinstance(shape, int) else tuple(shape)
        if not 1 <= len(dims) <= 2 or any(int(d) < 1 for d in dims):
            raise ValueError(f"{self.game}: row field {name!r} needs a positive count or (rows, width), got {shape!r}")
        low, high = (int(b) for b in bounds)
        if self._tail is not None:
            raise ValueError(f"{self.game}: row field {name!r} comes after the tail {self._tail.name!r}, the row's last field")
        if not _INFO.min <= low <= high <= _INFO.max:
            raise ValueError(f"{self.game}: row field {name!r} bounds {bounds} are not within {_INFO.min}..{_INFO.max}")
        if not low <= fill <= high:
            raise ValueError(f"{self.game}: row field {name!r} fill {fill} is outside its bounds {low}..{high}")

        field = RowField(name, self._end, dims, meaning, low, high, fill, flag=False, per_seat=per_seat)
        self.fields[name] = field
        self._end += field.size
        return field.offset

    def flag(self, name: str, meaning: str) -> int:
        """Append one ``0``/``1`` entry (a ``bool`` attribute of the State); returns its offset."""
        offset = self.add(name, 1, meaning, (0, 1))
        self.fields[name] = RowField(name, offset, (1,), meaning, 0, 1, 0, flag=True, per_seat=False)
        return offset

    def tail(self, name: str, count: int, meaning: str, bounds: tuple[int, int]) -> int:
        """Append the row's last field: ``count`` entries (0 in a new game's row) and every entry a longer row has
        after them, each in ``bounds`` (a row whose length depends on the game: a log); returns its offset."""
        offset = self.add(name, count, meaning, bounds)
        self._tail = self.fields[name] = replace(self.fields[name], open_ended=True)
        return offset

    @property
    def size(self) -> int:
        """Entries in a row (the least, when it ends with a ``tail``)."""
        return self._end

    def __getitem__(self, name: str) -> RowField:
        return self.fields[name]

    def __iter__(self) -> Iterator[RowField]:
        return iter(self.fields.values())

    # ---- rows -------------------------------------------------------------------------------------
    def new_row(self) -> np.ndarray:
        """A row with every field at its ``fill``."""
        row = np.zeros(self.size, dtype=STATE_DTYPE)
        for f in self:
            row[f.index] = f.fill
        return row

    def put(self, row: np.ndarray, name: str, value: int | Iterable[int]) -> None:
        """Write a field (one value, or as many as it has entries), refused by name if out of bounds."""
        f = self.fields[name]
        values = [value] if isinstance(value, (int, np.integer)) else list(value)
        if len(values) != f.size:
            raise ValueError(f"{self.game}: {name} has {f.size} entries, got {len(values)}")
        for v in values:
            if not f.low <= v <= f.high:
                raise f.refuse(v, self.game)
        row[f.offset : f.offset + len(values)] = values

    def problem(self, row: np.ndarray) -> str | None:
        """The first entry of ``row`` outside its field's bounds, described, or ``None``."""
        if row.ndim != 1 or not (row.shape[0] == self.size or (self._tail is not None and row.shape[0] > self.size)):
            more = "" if self._tail is None else " or more"
            return f"{self.game}: a state row has {self.size}{more} entries, got shape {row.shape}"
        for f in self:
            part = row[f.offset :] if f.open_ended else row[f.index]
            bad = np.flatnonzero((part < f.low) | (part > f.high))
            if bad.size:
                k = int(bad[0])
                at = (k,) if f.open_ended else np.unravel_index(k, f.shape)
                where = f.name if part.size == 1 else f"{f.name}[{', '.join(map(str, at))}]"
                return f"{self.game}: {where} holds {f.low}..{f.high}, got {int(part[k])}"
        return None

    def check(self, row: np.ndarray) -> None:
        """``ValueError`` naming the field and its range if any entry of ``row`` is out of bounds."""
        problem = self.problem(row)
        if problem is not None:
            raise ValueError(problem)

    # ---- the State's attributes -------------------------------------------------------------------
    def field(self, name: str) -> Any:
        """The State attribute over field ``name`` (the State's row is ``self.s``): an ``int`` (or ``bool`` for
        a flag), a list-like ``IntView``, or rows of them (``IntRows``); assignments are bound-checked."""
        f = self.fields[name]
        game = self.game
        doc = f.meaning

        if f.size == 1 and f.shape == (1,):

            def get_one(state: Any) -> Any:
                value = state.s[f.offset]
                return bool(value) if f.flag else int(value)

            def put_one(state: Any, value: Any) -> None:
                v = int(bool(value)) if f.flag else int(value)
                if not f.low <= v <= f.high:
                    raise f.refuse(value, game)
                state.s[f.offset] = v

            return property(get_one, put_one, doc=doc)
        if len(f.shape) == 1:

            def length(state: Any) -> int:
                return int(state.game.num_players) if f.per_seat else f.size

            def get_list(state: Any) -> IntView:
                return IntView(state.s, f.offset, length(state), f, game)

            def put_list(state: Any, values: Iterable[int]) -> None:
                IntView(state.s, f.offset, length(state), f, game).assign(values)

            return property(get_list, put_list, doc=doc)

        rows, width = f.shape

        def count(state: Any) -> int:
            return int(state.game.num_players) if f.per_seat else rows

        def get_rows(state: Any) -> IntRows:
            return IntRows(state.s, f.offset, count(state), width, f, game)

        def put_rows(state: Any, values: Iterable[Iterable[int]]) -> None:
            IntRows(state.s, f.offset, count(state), width, f, game).assign(values)

        return property(get_rows, put_rows, doc=doc)

    # ---- documentation ----------------------------------------------------------------------------
    def table(self) -> str:
        """The layout table (Markdown) of the kernel's docstring and the environment card."""
        lines = ["| field | entries | offset | range | meaning |", "|---|---|---|---|---|"]
        for f in self:
            dims = " × ".join(map(str, f.shape))
            if f.per_seat:
                dims += " (per seat)"
            span = str(f.offset) if f.size == 1 else f"{f.offset}–{f.offset + f.size - 1}"
            if f.open_ended:
                dims, span = f"{dims} or more", f"{f.offset}–end"
            bounds = "0/1" if f.flag else f"{f.low}..{f.high}"
            lines.append(f"| `{f.name}` | {dims} | {span} | {bounds} | {f.meaning} |")
        more = "" if self._tail is None else " or more"
        lines.append(f"| total | {self.size}{more} | | {np.dtype(STATE_DTYPE).name} | |")
        return "\n".join(lines)


class IntView(Sequence[int]):
    """A writable view of ``length`` ints of a state row, read and compared like a list of ints; writes are
    bound-checked when the view is of a declared field."""

    __slots__ = ("_data", "_field", "_game", "_length", "_start")

    def __init__(self, data: np.ndarray, start: int, length: int, field: RowField | None = None, game: str = "") -> None:
        self._data, self._start, self._length = data, start, length
        self._field, self._game = field, game

    def __len__(self) -> int:
        return self._length

    def _index(self, i: int) -> int:
        if i < 0:
            i += self._length
        if not 0 <= i < self._length:
            raise IndexError(f"index {i} out of range for length {self._length}")
        return self._start + i

    def _check(self, value: Any) -> None:
        f = self._field
        if f is not None and not f.low <= value <= f.high:
            raise f.refuse(value, self._game)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return self.tolist()[i]
        return int(self._data[self._index(i)])

    def __setitem__(self, i: int, value: int) -> None:
        self._check(value)
        self._data[self._index(i)] = value

    def __iter__(self) -> Iterator[int]:
        return iter(self.tolist())

    def tolist(self) -> list[int]:
        return self._data[self._start : self._start + self._length].tolist()  # type: ignore[no-any-return]

    def copy(self) -> list[int]:
        return self.tolist()

    def assign(self, values: Iterable[int]) -> None:
        values = list(values)
        if len(values) != self._length:
            raise ValueError(f"expected {self._length} values, got {len(values)}")
        for value in values:
            self._check(value)
        self._data[self._start : self._start + self._length] = values

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (IntView, list, tuple)):
            return self.tolist() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.tolist())


class IntRows(Sequence[IntView]):
    """``rows`` consecutive rows of ``width`` ints of a state row, read like a list of lists of ints."""

    __slots__ = ("_data", "_field", "_game", "_rows", "_start", "_width")

    def __init__(
        self, data: np.ndarray, start: int, rows: int, width: int, field: RowField | None = None, game: str = ""
    ) -> None:
        self._data, self._start, self._rows, self._width = data, start, rows, width
        self._field, self._game = field, game

    def __len__(self) -> int:
        return self._rows

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(self._rows)[i]]
        if i < 0:
            i += self._rows
        if not 0 <= i < self._rows:
            raise IndexError(f"row {i} out of range for {self._rows} rows")
        return IntView(self._data, self._start + i * self._width, self._width, self._field, self._game)

    def __setitem__(self, i: int, values: Iterable[int]) -> None:
        self[i].assign(values)

    def __iter__(self) -> Iterator[IntView]:
        return (self[i] for i in range(self._rows))

    def tolist(self) -> list[list[int]]:
        return [row.tolist() for row in self]

    def assign(self, rows: Iterable[Iterable[int]]) -> None:
        table = [list(values) for values in rows]
        if len(table) != self._rows:
            raise ValueError(f"expected {self._rows} rows, got {len(table)}")
        if any(len(values) != self._width for values in table):
            raise ValueError(f"expected {self._width} values, got rows of {sorted({len(v) for v in table})}")
        views = [self[i] for i in range(self._rows)]
        for view, values in zip(views, table, strict=True):
            for value in values:
                view._check(value)  # every value first: a refused assignment writes nothing
        for view, values in zip(views, table, strict=True):
            view.assign(values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (IntRows, list, tuple)):
            return self.tolist() == [list(row) for row in other]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.tolist())
