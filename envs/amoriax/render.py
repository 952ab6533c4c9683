"""Amoriax picture: the 9x9 board, the marked inner area, the crown, the stones and the status line.

``targets(state, seat)``: a move is clicked as its stone and the square it lands on; a pass (legal only
when no move is) as the status line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.amoriax.actions import PASS
from gameshelf.envs.amoriax.board import BLACK, CENTRE, COLOUR_NAMES, EMPTY, NUM_KINDS, RED, SIZE, WHITE
from gameshelf.envs.core.drawing import INK, canvas, centred_text, to_array
from gameshelf.envs.core.rendering import Box

if TYPE_CHECKING:
    from gameshelf.envs.amoriax.game import AmoriaxState

CELL = 48
MARGIN = 28
"""Room for the coordinates around the board."""
STATUS = 40
"""Height of the status band above the board."""

BOARD_LIGHT = (236, 214, 170)
INNER_FILL = (214, 176, 110)
CROWN_FILL = (196, 146, 60)
CROWN_GOLD = (250, 204, 40)
LAST_MOVE = (120, 170, 90)
STONE_FILL = {WHITE: (250, 250, 250), BLACK: (30, 30, 30), RED: (205, 40, 40)}
STONE_EDGE = {WHITE: (60, 60, 60), BLACK: (0, 0, 0), RED: (110, 10, 10)}


def _cell_box(sq: int) -> tuple[int, int, int, int]:
    row, col = divmod(sq, SIZE)
    x0 = MARGIN + col * CELL
    y0 = STATUS + MARGIN + row * CELL
    return x0, y0, x0 + CELL, y0 + CELL


def _status(state: AmoriaxState) -> str:
    if state.end:
        from gameshelf.envs.amoriax.game import END_REASONS

        if state.winner >= 0:
            return f"{COLOUR_NAMES[state.winner]} wins ({END_REASONS[state.end]})"
        return f"Draw ({END_REASONS[state.end]})"
    text = f"{COLOUR_NAMES[state.player]} to move  ·  ply {state.ply}/{state.game.max_plies}"
    if state.red_frozen():
        text += "  ·  Red frozen"
    return text


def _crown(draw, box: tuple[int, int, int, int]) -> None:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    left, right = x0 + 0.2 * w, x0 + 0.8 * w
    base, top, mid = y0 + 0.72 * h, y0 + 0.28 * h, y0 + 0.5 * h
    points = [
        (left, base),
        (left, top),
        (x0 + 0.35 * w, mid),
        (x0 + 0.5 * w, top - 0.04 * h),
        (x0 + 0.65 * w, mid),
        (right, top),
        (right, base),
    ]
    draw.polygon(points, fill=CROWN_GOLD, outline=INK)


def draw(state: AmoriaxState) -> np.ndarray:
    """``HxWx3 uint8`` image of the position."""
    size = SIZE * CELL
    image, pen = canvas(size + 2 * MARGIN, STATUS + size + 2 * MARGIN)
    centred_text(pen, ((size + 2 * MARGIN) / 2, STATUS / 2 + 4), _status(state), size=18)
    inner = state.game.geometry.inner
    last = state.last_move or ()
    for sq in range(SIZE * SIZE):
        fill: tuple[int, ...] = CROWN_FILL if sq == CENTRE else INNER_FILL if inner[sq] else BOARD_LIGHT
        if sq in last:
            fill = tuple((a + b) // 2 for a, b in zip(fill, LAST_MOVE, strict=True))
        pen.rectangle(_cell_box(sq), fill=fill, outline=(120, 100, 70))
    # the marked inner area gets a bold border
    half = state.game.geometry.inner_size // 2
    x0, y0, _, _ = _cell_box((4 - half) * SIZE + 4 - half)
    _, _, x1, y1 = _cell_box((4 + half) * SIZE + 4 + half)
    pen.rectangle((x0, y0, x1, y1), outline=INK, width=3)
    if state.board[CENTRE] == EMPTY:
        _crown(pen, _cell_box(CENTRE))
    for i in range(SIZE):
        centred_text(pen, (MARGIN + i * CELL + CELL / 2, STATUS + MARGIN / 2), str(i), size=13)
        centred_text(pen, (MARGIN / 2, STATUS + MARGIN + i * CELL + CELL / 2), str(i), size=13)
    pad = CELL * 0.14
    for sq, stone in enumerate(state.board):
        if stone == EMPTY:
            continue
        x0, y0, x1, y1 = _cell_box(sq)
        pen.ellipse((x0 + pad, y0 + pad, x1 - pad, y1 - pad), fill=STONE_FILL[stone], outline=STONE_EDGE[stone], width=2)
        if sq == CENTRE:  # a gold ring shows the crown under the stone
            pen.ellipse((x0 + pad / 2, y0 + pad / 2, x1 - pad / 2, y1 - pad / 2), outline=CROWN_GOLD, width=3)
    if state.end == "crown":
        pen.rectangle(_cell_box(CENTRE), outline=CROWN_GOLD, width=4)
    return to_array(image)


def targets(state: AmoriaxState, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """Each move as the square it leaves and the square it lands on; the pass as the status line."""
    out: list[tuple[int, tuple[Box, ...]]] = []
    for action in state.legal_actions():
        if action == PASS:
            out.append((action, ((0, 0, SIZE * CELL + 2 * MARGIN, STATUS),)))
        else:
            out.append((action, (_cell_box(action // NUM_KINDS), _cell_box(state.destination(action)))))
    return out


__all__ = ["draw", "targets"]
