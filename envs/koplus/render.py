"""KoPlus picture: the board with section borders, aliens, coloured tiles and the interior region, and a
side panel with every player's score, next tiles, bonus turns and whose turn it is.

``draw_seat(state, seat)`` adds, on the seat's turn with a コ to place, a button per side its opening may
face. ``targets(state, seat)``: a ＋ is placed by clicking the cell of its centre, a コ by clicking the middle
cell of its base and the button of the side its opening faces.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.drawing import BACKGROUND, GRID, INK, PLAYER_COLOURS, canvas, centred_text, font, to_array
from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.rendering import Box
from gameshelf.envs.koplus.actions import GRID as CELLS_PER_ROW
from gameshelf.envs.koplus.actions import ORIENTATIONS, decode_action
from gameshelf.envs.koplus.board import KO, SECTION, SHAPE_OFFSETS, STACKS

if TYPE_CHECKING:
    from gameshelf.envs.koplus.game import KoPlusState

CELL = 34
MARGIN = 28
TITLE = 30
PANEL = 300
SECTION_SHADES = ((236, 232, 218), (224, 230, 236))
UNDRAWN = (200, 200, 200)
ALIEN = (96, 60, 150)
INTERIOR = (230, 140, 20)
LAST_TILE = (255, 215, 0)


def _mix(colour: tuple[int, int, int], other: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return tuple(round(a + (b - a) * t) for a, b in zip(colour, other, strict=True))  # type: ignore[return-value]


def _shape_icon(draw, x: float, y: float, shape: int, colour, size: int = 9) -> None:
    """A small picture of a tile (コ opening up, or ＋) with its top-left bounding corner at (x, y)."""
    offsets = SHAPE_OFFSETS[shape][0]
    rmin = min(dr for dr, _ in offsets)
    cmin = min(dc for _, dc in offsets)
    for dr, dc in offsets:
        x0, y0 = x + (dc - cmin) * size, y + (dr - rmin) * size
        draw.rectangle((x0, y0, x0 + size - 1, y0 + size - 1), fill=colour, outline=INK)


def cell_box(idx: int) -> Box:
    """The square of cell ``idx`` (on the 16-wide anchor grid) in the picture."""
    x0, y0 = MARGIN, TITLE + MARGIN
    r, c = divmod(idx, CELLS_PER_ROW)
    return x0 + c * CELL, y0 + r * CELL, x0 + (c + 1) * CELL, y0 + (r + 1) * CELL


BUTTON_W, BUTTON_H = 66, 28


def _buttons(state: KoPlusState, seat: int) -> dict[int, Box]:
    """The orientation buttons (``orientation -> box``) of ``seat`` when it is to place a コ."""
    if state.player != seat or state.top_tile(seat) != KO:
        return {}
    left = MARGIN + state.geo.cols * CELL + 20
    top = TITLE + 10 + state.num_players * 118 + 6 + 3 * 16 + 30
    return {
        o: (left + o * (BUTTON_W + 6), top, left + o * (BUTTON_W + 6) + BUTTON_W, top + BUTTON_H)
        for o in range(len(ORIENTATIONS))
    }


def _middle(cells: tuple[int, ...]) -> int:
    """The cell with tile cells on two opposite sides: the centre of a ＋, the middle of a コ's base."""
    tile = set(cells)
    for cell in cells:
        if {cell - 1, cell + 1} <= tile or {cell - CELLS_PER_ROW, cell + CELLS_PER_ROW} <= tile:
            return cell
    raise ValueError(f"no middle cell in {cells}")


def targets(state: KoPlusState, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """A placement as the middle cell of the tile (its centre; a コ's base) plus, for a コ, its opening's button."""
    buttons = _buttons(state, seat)
    out: list[tuple[int, tuple[Box, ...]]] = []
    for action in state.legal_actions():
        centre = cell_box(_middle(state.placement_cells(action, seat)))
        out.append((action, (centre, buttons[decode_action(action)[0]]) if buttons else (centre,)))
    return out


def draw(state: KoPlusState) -> np.ndarray:
    """``HxWx3 uint8`` picture of the position."""
    return _draw(state, None)


def draw_seat(state: KoPlusState, seat: int) -> np.ndarray:
    """The picture with, on ``seat``'s turn with a コ to place, the buttons of the sides its opening may face."""
    return _draw(state, seat)


def _draw(state: KoPlusState, viewer: int | None) -> np.ndarray:
    geo = state.geo
    n = state.num_players
    board_w, board_h = geo.cols * CELL, geo.rows * CELL
    panel_h = TITLE + 20 + n * 118 + 70
    buttons = _buttons(state, viewer) if viewer is not None else {}
    if buttons:
        panel_h = max(box[3] for box in buttons.values()) + 12
    width = MARGIN + board_w + 20 + PANEL
    height = max(TITLE + MARGIN + board_h + 20, panel_h)
    image, d = canvas(width, height)
    x0, y0 = MARGIN, TITLE + MARGIN

    # title
    if state.player == CHANCE:
        status = "setting up the board"
    elif state.player == TERMINAL:
        status = "game over"
    else:
        status = f"P{state.player} to move" + (" (bonus turn)" if state.bonus_turn else "")
    d.text((MARGIN, 8), f"KoPlus  {n} players  {state.game.options['board_mode']} board  -  {status}", fill=INK, font=font(16))

    # coordinates
    for c in range(geo.cols):
        centred_text(d, (x0 + c * CELL + CELL / 2, y0 - 10), str(c), size=11, fill=GRID)
    for r in range(geo.rows):
        centred_text(d, (x0 - 13, y0 + r * CELL + CELL / 2), str(r), size=11, fill=GRID)

    # cells: section shading, aliens, tiles
    drawn = len(state.layout)
    last = len(state.tiles) - 1
    for idx in np.flatnonzero(geo.on_board).tolist():
        r, c = divmod(idx, CELLS_PER_ROW)
        position = (r // SECTION) * geo.section_cols + c // SECTION
        box = cell_box(idx)
        owner = int(state.owner[idx])
        value = int(state.aliens[idx])
        if position >= drawn:
            d.rectangle(box, fill=UNDRAWN, outline=GRID)
            centred_text(d, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), "?", size=14, fill=BACKGROUND)
            continue
        if owner >= 0:
            d.rectangle(box, fill=_mix(PLAYER_COLOURS[owner], (255, 255, 255), 0.25))
        else:
            shade = SECTION_SHADES[(r // SECTION + c // SECTION) % 2]
            d.rectangle(box, fill=shade, outline=_mix(shade, GRID, 0.5))
        if value:
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            if owner >= 0:  # captured alien: small and faint
                centred_text(d, (cx, cy), str(value), size=12, fill=(255, 255, 255))
            else:
                radius = 8 + value
                d.ellipse(
                    (cx - radius, cy - radius, cx + radius, cy + radius), fill=_mix(ALIEN, (255, 255, 255), 0.55 - 0.1 * value)
                )
                centred_text(d, (cx, cy), str(value), size=13 + value, fill=(255, 255, 255))

    # tile outlines (each tile separately, so neighbouring tiles of one colour stay distinguishable)
    for index, (seat, shape, action) in enumerate(state.tiles):
        cells = set(geo.cells_of[shape][action])
        edge = LAST_TILE if index == last and state.player != TERMINAL else _mix(PLAYER_COLOURS[seat], INK, 0.5)
        for cell in cells:
            bx0, by0, bx1, by1 = cell_box(cell)
            if cell - CELLS_PER_ROW not in cells:
                d.line((bx0, by0, bx1, by0), fill=edge, width=3)
            if cell + CELLS_PER_ROW not in cells:
                d.line((bx0, by1, bx1, by1), fill=edge, width=3)
            if cell % CELLS_PER_ROW == 0 or cell - 1 not in cells:
                d.line((bx0, by0, bx0, by1), fill=edge, width=3)
            if cell % CELLS_PER_ROW == CELLS_PER_ROW - 1 or cell + 1 not in cells:
                d.line((bx1, by0, bx1, by1), fill=edge, width=3)

    # section borders and the board frame
    for sr in range(geo.section_rows + 1):
        d.line((x0, y0 + sr * SECTION * CELL, x0 + board_w, y0 + sr * SECTION * CELL), fill=INK, width=2)
    for sc in range(geo.section_cols + 1):
        d.line((x0 + sc * SECTION * CELL, y0, x0 + sc * SECTION * CELL, y0 + board_h), fill=INK, width=2)

    # interior region (where the first tile must go), dashed
    ix0, iy0 = x0 + SECTION * CELL, y0 + SECTION * CELL
    ix1, iy1 = x0 + board_w - SECTION * CELL, y0 + board_h - SECTION * CELL
    dash = 8
    thick = 4 if not state.tiles else 2
    for x in range(ix0, ix1, 2 * dash):
        d.line((x, iy0, min(x + dash, ix1), iy0), fill=INTERIOR, width=thick)
        d.line((x, iy1, min(x + dash, ix1), iy1), fill=INTERIOR, width=thick)
    for y in range(iy0, iy1, 2 * dash):
        d.line((ix0, y, ix0, min(y + dash, iy1)), fill=INTERIOR, width=thick)
        d.line((ix1, y, ix1, min(y + dash, iy1)), fill=INTERIOR, width=thick)

    # side panel
    px = MARGIN + board_w + 20
    py = TITLE + 10
    totals = state.totals()
    returns = state.returns() if state.player == TERMINAL else None
    for s in range(n):
        colour = PLAYER_COLOURS[s]
        top = py + s * 118
        active = state.player == s
        d.rectangle(
            (px, top, px + PANEL - 12, top + 108),
            fill=_mix(colour, (255, 255, 255), 0.85),
            outline=INK if active else _mix(colour, (255, 255, 255), 0.4),
            width=3 if active else 1,
        )
        d.rectangle((px + 8, top + 8, px + 26, top + 26), fill=colour, outline=INK)
        label = f"P{s}   score {totals[s]}"
        if active:
            label += "   << to move" + (" (bonus)" if state.bonus_turn else "")
        if returns is not None and returns[s] == returns.max():
            label += "   WINNER"
        d.text((px + 34, top + 8), label, fill=INK, font=font(15))
        d.text(
            (px + 10, top + 32),
            f"tiles left {state.tiles_left(s)}   bonus turns {state.bonus_left[s]}",
            fill=INK,
            font=font(12),
        )
        if state.final is not None:
            f = state.final[s]
            d.text(
                (px + 10, top + 50),
                f"placed {state.points[s]}  group {f.largest_group}: +{f.bonus}  isolated {f.isolated}  small {f.small}",
                fill=INK,
                font=font(11),
            )
        else:
            d.text((px + 10, top + 50), "next tiles:", fill=INK, font=font(12))
        upcoming = STACKS[s % 2][state.placed[s] : state.placed[s] + 6]
        for k, shape in enumerate(upcoming):
            icon_colour = colour if k == 0 else _mix(colour, (255, 255, 255), 0.5)
            _shape_icon(d, px + 12 + k * 44, top + 70, shape, icon_colour, size=9)
    legend_y = py + n * 118 + 6
    d.text(
        (px, legend_y),
        "purple discs: aliens (value = points)\norange dashes: interior (first tile)\ngold outline: last tile placed",
        fill=INK,
        font=font(12),
    )
    if buttons:
        d.text((px, min(box[1] for box in buttons.values()) - 20), "the opening of your tile faces:", fill=INK, font=font(13))
        for o, (bx0, by0, bx1, by1) in buttons.items():
            d.rounded_rectangle((bx0, by0, bx1, by1), radius=5, fill=(255, 255, 255), outline=INK)
            centred_text(d, ((bx0 + bx1) / 2, (by0 + by1) / 2), ORIENTATIONS[o], size=13)
    return to_array(image)
