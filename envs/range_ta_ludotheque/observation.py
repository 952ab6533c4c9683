"""Range Ta Ludothèque observation: board planes ``(rows, cols, channels)``, float32 in [0, 1].

Built from named pieces with ``ObservationLayout``; ``LAYOUT`` is the default 6×6 sheet (the channel
list is the same for every geometry, only ``rows × cols`` change). Imports no Pillow or torch. The
observation itself is written by the compiled kernel ``kernel.observation``.
"""

from __future__ import annotations

from gameshelf.envs.core.observation import ObservationLayout

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
