"""Observation layouts built from named pieces, and the egocentric seat order.

Model: OpenSpiel's ``KuhnPokerObserver``. A layout is either a flat vector (``ObservationLayout()``) whose
pieces are runs of entries, or board planes (``ObservationLayout(planes=(H, W))``) whose pieces are runs
of channels. Each piece has a name, a shape and one line of meaning; ``layout.table()`` writes the
environment card's encoding table from them, so the card and the tensor cannot disagree. The layout also
holds the dtype and the bounds of every entry: a game's ``GameInfo`` reads its observation shape, dtype and
bounds from its layout (``Game.LAYOUT``), never restates them.

    LAYOUT = ObservationLayout()
    LAYOUT.add("hand", 7, "own cards of each value / 4")
    LAYOUT.add("hand_sizes", 4, "cards in hand per seat, observing seat first / 28")
    obs = LAYOUT.zeros()
    LAYOUT.view(obs, "hand")[:] = ...

Seats inside a piece are egocentric: the observing seat first, then the others in turn order (``(seat + k) % n``
for slot ``k``), padded to the game's largest player count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Piece:
    """One named piece: ``shape`` entries (flat) or ``shape[0]`` channels (planes), at ``index``."""

    name: str
    shape: tuple[int, ...]
    doc: str
    index: slice

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class ObservationLayout:
    """Named pieces of an observation: a flat vector, or the channels of ``(H, W, C)`` planes."""

    def __init__(
        self, planes: tuple[int, int] | None = None, dtype: Any = np.float32, low: float = 0.0, high: float = 1.0
    ) -> None:
        if not low <= high:
            raise ValueError(f"observation bounds: low {low} is above high {high}")
        self.planes = planes
        self.dtype = np.dtype(dtype)
        self.low = float(low)
        """Lowest value of any entry (the observation space's lower bound)."""
        self.high = float(high)
        """Highest value of any entry (the observation space's upper bound)."""
        self.pieces: dict[str, Piece] = {}
        self.slices: dict[str, slice] = {}
        """Each piece's slice (entries or channels) by name: a plain dict, for hot observation code."""
        self._end = 0

    def add(self, name: str, shape: int | tuple[int, ...], doc: str) -> slice:
        """Append a piece; ``shape`` is its entries (flat) or channel count (planes). Returns its slice."""
        if name in self.pieces:
            raise ValueError(f"observation piece {name!r} is defined twice")
        dims = (shape,) if isinstance(shape, int) else tuple(shape)
        if not dims or any(int(d) < 1 for d in dims):
            raise ValueError(f"observation piece {name!r} needs a positive shape, got {shape!r}")
        if self.planes is not None and len(dims) != 1:
            raise ValueError(f"plane piece {name!r} is a number of channels, got shape {shape!r}")
        size = math.prod(dims)
        index = slice(self._end, self._end + size)
        self.pieces[name] = Piece(name, dims, doc, index)
        self.slices[name] = index
        self._end += size
        return index

    @property
    def size(self) -> int:
        """Entries of a flat layout, or channels of a planes layout."""
        return self._end

    @property
    def shape(self) -> tuple[int, ...]:
        return (self._end,) if self.planes is None else (*self.planes, self._end)

    def __getitem__(self, name: str) -> slice:
        return self.pieces[name].index

    def offset(self, name: str) -> int:
        """Where piece ``name`` starts (entry or channel): the one spelling kernels use for observation offsets."""
        return self.pieces[name].index.start

    def __contains__(self, name: object) -> bool:
        return name in self.pieces

    def zeros(self) -> np.ndarray:
        return np.zeros(self.shape, dtype=self.dtype)

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The piece ``name`` of ``obs`` as a writable view: shaped as declared (flat), ``(H, W, k)`` (planes)."""
        piece = self.pieces[name]
        if self.planes is None:
            return obs[piece.index].reshape(piece.shape)
        return obs[..., piece.index]

    def table(self) -> str:
        """The encoding table of the environment card (Markdown)."""
        unit = "entries" if self.planes is None else "channels"
        lines = [f"| piece | {unit} | index | meaning |", "|---|---|---|---|"]
        for p in self.pieces.values():
            dims = "×".join(map(str, p.shape))
            lines.append(f"| `{p.name}` | {dims} | {p.index.start}–{p.index.stop - 1} | {p.doc} |")
        total = f"{self.size} entries" if self.planes is None else f"{self.planes[0]}×{self.planes[1]}×{self.size} planes"
        lines.append(f"| total | {total} | | dtype {self.dtype.name}, in [{self.low:g}, {self.high:g}] |")
        return "\n".join(lines)
