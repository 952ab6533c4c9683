"""Range Ta Ludothèque observation: board planes ``(rows, cols, channels)``, float32 in [0, 1].

Built from named pieces with ``ObservationLayout``; ``LAYOUT`` is the default 6×6 sheet (the channel
list is the same for every geometry, only ``rows × cols`` change). Imports no Pillow or torch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.range_ta_ludotheque.board import ROUNDS, Geometry
from gameshelf.envs.range_ta_ludotheque.scoring import Box

MAX_PLAYERS = 8
SHEET_CHANNELS = 16
"""Per sheet: occupied, playmat, category ×6, mechanism ×6, joins right, joins down."""
OCC, MAT, CAT0, MECH0, JOIN_RIGHT, JOIN_DOWN = 0, 1, 2, 8, 14, 15


def make_layout(rows: int, cols: int) -> ObservationLayout:
    layout = ObservationLayout(planes=(rows, cols))
    layout.add(
        "sheets",
        MAX_PLAYERS * SHEET_CHANNELS,
        "16 channels per seat, observing seat first then the others in turn order, padded to 8 seats: "
        "occupied, playmat, category one-hot T A C P F R, mechanism one-hot Bluffing Deduction Deckbuilding "
        "Programming Memory SecretRoles, same box as the square to the right, same box as the square below. "
        "Another seat's sheet shows only placements of finished rounds",
    )
    layout.add("supported", 1, "own sheet: empty squares where a single square could go now (on a floor or on a filled square)")
    layout.add("floor", 1, "1 on every compartment's bottom row (its floor)")
    layout.add("wall_right", 1, "1 where a compartment wall lies on the square's right edge")
    layout.add("dice", 18, "this round's dice in ascending order, each one-hot over faces 1..6 (all 0 before the roll)")
    layout.add("round", 1, "rounds finished / 12")
    layout.add("present", MAX_PLAYERS, "slot holds a player (egocentric)")
    layout.add("chosen", MAX_PLAYERS, "slot has already chosen this round (what it chose stays hidden until the round ends)")
    layout.add("options", 3, "scoring is expert, walls_block_adjacency, playmat_only_if_no_box")
    return layout


LAYOUT = make_layout(6, 6)
"""The layout of the default 6×6 sheet (the card's table)."""


def sheet_planes(geom: Geometry, boxes: Sequence[Box], mats: Sequence[int]) -> np.ndarray:
    """The 16 channels of one sheet, ``(rows, cols, 16)``."""
    out = np.zeros((geom.rows, geom.cols, SHEET_CHANNELS), dtype=np.float32)
    for sq in mats:
        draw_mat(out, geom, sq)
    for box in boxes:
        draw_box(out, geom, box)
    return out


def draw_mat(planes: np.ndarray, geom: Geometry, sq: int) -> None:
    """Add a playmat to a sheet's channels (in place)."""
    row = planes.reshape(geom.size, SHEET_CHANNELS)[sq]
    row[OCC] = 1.0
    row[MAT] = 1.0


def draw_box(planes: np.ndarray, geom: Geometry, box: Box) -> None:
    """Add a box to a sheet's channels (in place)."""
    flat = planes.reshape(geom.size, SHEET_CHANNELS)
    squares = geom.placement_at[box.face][box.anchor].squares
    cells = set(squares)
    cat, mech = CAT0 + box.category - 1, MECH0 + box.mechanism - 1
    for sq in squares:
        row = flat[sq]
        row[OCC] = 1.0
        row[cat] = 1.0
        row[mech] = 1.0
        if sq + 1 in cells and (sq + 1) % geom.cols:
            row[JOIN_RIGHT] = 1.0
        if sq + geom.cols in cells:
            row[JOIN_DOWN] = 1.0


def static_planes(layout: ObservationLayout, geom: Geometry, options: Sequence[bool]) -> np.ndarray:
    """The channels that never change in a game: floors, walls, options."""
    obs = layout.zeros()
    floor = layout.view(obs, "floor").reshape(geom.size)
    wall = layout.view(obs, "wall_right").reshape(geom.size)
    for sq in range(geom.size):
        floor[sq] = float(geom.is_floor[sq])
        c = sq % geom.cols
        wall[sq] = float(c + 1 < geom.cols and geom.comp_of[sq] != geom.comp_of[sq + 1])
    opts = layout.view(obs, "options")
    for i, flag in enumerate(options):
        opts[..., i] = float(flag)
    return obs


def encode(
    layout: ObservationLayout,
    base: np.ndarray,
    geom: Geometry,
    sheets: Sequence[np.ndarray],
    own_occ: int,
    dice: tuple[int, ...] | None,
    rounds_done: int,
    num_players: int,
    chosen: Sequence[bool],
) -> np.ndarray:
    """One observation: ``sheets`` and ``chosen`` already in egocentric order (what the seat may see)."""
    obs = base.copy()
    start = layout["sheets"].start
    for slot, planes in enumerate(sheets):
        obs[..., start + slot * SHEET_CHANNELS : start + (slot + 1) * SHEET_CHANNELS] = planes
    obs[..., layout["supported"].start] = geom.supported_plane(own_occ)
    if dice is not None:
        d0 = layout["dice"].start
        for i, v in enumerate(dice):
            obs[..., d0 + 6 * i + v - 1] = 1.0
    obs[..., layout["round"].start] = rounds_done / ROUNDS
    p0 = layout["present"].start
    obs[..., p0 : p0 + num_players] = 1.0
    c0 = layout["chosen"].start
    for slot, flag in enumerate(chosen):
        if flag:
            obs[..., c0 + slot] = 1.0
    return obs
