"""Paikō picture: the diamond board with homegrounds, black squares and tiles (type, owner, facing), and a
side panel with scores, lost tiles, reserves, hands, the repetition counters and the decision in progress.

``draw_seat(state, seat)`` adds, on the seat's turn, buttons for the facings, "stop", "stay" and "pass".
``targets(state, seat)``: a tile type is clicked in its reserve or hand row (draft, draw, deploy, gift), a
square on the board (the tile to move, a deploy square, a destination), the rest on its button.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.drawing import INK, canvas, centred_text, font, to_array
from gameshelf.envs.core.rendering import Box
from gameshelf.envs.paiko.actions import DEPLOY, DRAFT, FACE, GIVE, OVER, PASS, PHASE_TEXT, SQUARE, STAY, STOP, TAKE, square_name
from gameshelf.envs.paiko.board import (
    FACING_NAMES,
    IS_BLACK,
    NUM_TYPES,
    PLAYER_NAMES,
    SIZE,
    SQUARES,
    TYPE_NAMES,
    ZONE,
    code_facing,
    code_owner,
    code_type,
)

if TYPE_CHECKING:
    from gameshelf.envs.paiko.game import PaikoState

CELL = 40
MARGIN = 26
PANEL = 330
ZONE_FILL = {-1: (236, 222, 190), 0: (214, 228, 240), 1: (240, 214, 210)}
TILE_FILL = ((250, 250, 246), (40, 40, 40))
TILE_TEXT = ((20, 20, 20), (245, 245, 245))
SELECTED = (70, 160, 70)
DEST = (230, 160, 30)
CAPTURED = (200, 40, 40)
SHORT = ("Sai", "Swd", "Bow", "Lot", "Air", "Fir", "Ear", "Wat")


def _box(sq: int) -> tuple[int, int, int, int]:
    x, y = SQUARES[sq]
    x0, y0 = MARGIN + x * CELL, MARGIN + y * CELL
    return x0, y0, x0 + CELL, y0 + CELL


def _arrow(pen, box: tuple[int, int, int, int], facing: int, colour) -> None:
    x0, y0, x1, y1 = (float(v) for v in box)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    w = CELL * 0.12
    tips: dict[int, list[tuple[float, float]]] = {
        0: [(cx, y0 + 3), (cx - w, y0 + 3 + w), (cx + w, y0 + 3 + w)],
        1: [(x1 - 3, cy), (x1 - 3 - w, cy - w), (x1 - 3 - w, cy + w)],
        2: [(cx, y1 - 3), (cx - w, y1 - 3 - w), (cx + w, y1 - 3 - w)],
        3: [(x0 + 3, cy), (x0 + 3 + w, cy - w), (x0 + 3 + w, cy + w)],
    }
    pen.polygon(tips[facing], fill=colour)


def _status_lines(state: PaikoState) -> list[str]:
    if state.phase == OVER:
        from gameshelf.envs.paiko.game import END_REASONS

        verdict = f"{PLAYER_NAMES[state.winner]} wins" if state.winner >= 0 else "Draw"
        return [f"{verdict} ({END_REASONS[state.end]})"]
    who = state.current_player()
    lines = [
        "Opening draft" if state.phase == DRAFT else f"Turn {state.turn + 1}/{state.game.max_turns}: {PLAYER_NAMES[state.mover]}",
        f"{PLAYER_NAMES[who]} decides:",
    ]
    lines += textwrap.wrap(PHASE_TEXT[state.phase], 38)
    if state.sel_type >= 0:
        lines.append(f"deploying {TYPE_NAMES[state.sel_type]}")
    if state.sel_sq >= 0:
        lines.append(f"square {square_name(state.sel_sq)}")
    if state.sel_dest >= 0:
        lines.append(f"destination {square_name(state.sel_dest)}")
    if state.phase == 9:
        lines.append(f"gifts owed: {state.gifts}")
    return lines


def _panel_left() -> int:
    return SIZE * CELL + 2 * MARGIN + 8


def _row_tops(state: PaikoState) -> tuple[dict[tuple[int, str], int], int]:
    """The top of each player's reserve and hand rows in the panel, and where the legend starts."""
    y = MARGIN + 19 * len(_status_lines(state)) + 8
    tops = {}
    for p in range(2):
        y += 22
        for label in ("reserve", "hand"):
            tops[(p, label)] = y
            y += 32
        y += 8
    return tops, y


def _type_box(top: int, t: int) -> Box:
    cx = _panel_left() + 70 + t * 31
    return (cx - 2, top - 2, cx + 29, top + 30)


BUTTON_W, BUTTON_H = 72, 28
BUTTON_LABELS = {FACE + f: f"face {name}" for f, name in enumerate(FACING_NAMES)} | {STOP: "stop", STAY: "stay", PASS: "pass"}


def _buttons(state: PaikoState, seat: int) -> dict[int, Box]:
    """The seat's legal actions that are neither a tile type nor a square, each with its button."""
    if state.phase == OVER or state.current_player() != seat:
        return {}
    _, legend = _row_tops(state)
    top = legend + 4 * 16 + 10
    out = {}
    for k, action in enumerate(a for a in state.legal_actions() if a in BUTTON_LABELS):
        x = _panel_left() + k * (BUTTON_W + 6)
        out[action] = (x, top, x + BUTTON_W, top + BUTTON_H)
    return out


def targets(state: PaikoState, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """Each legal decision as one click: a tile type in a reserve or hand row, a square, or a button."""
    tops, _ = _row_tops(state)
    buttons = _buttons(state, seat)
    out: list[tuple[int, tuple[Box, ...]]] = []
    for action in state.legal_actions():
        if action in buttons:
            box = buttons[action]
        elif action >= SQUARE:
            box = _box(action - SQUARE)
        elif action >= GIVE:
            box = _type_box(tops[(1 - seat, "reserve")], action - GIVE)
        elif action >= DEPLOY:
            box = _type_box(tops[(seat, "hand")], action - DEPLOY)
        else:
            box = _type_box(tops[(seat, "reserve")], action - TAKE)
        out.append((action, (box,)))
    return out


def draw_seat(state: PaikoState, seat: int) -> np.ndarray:
    """The picture with, on ``seat``'s turn, its buttons (facings, stop, stay, pass) under the panel."""
    return _draw(state, seat)


def draw(state: PaikoState) -> np.ndarray:
    """``HxWx3 uint8`` image of the position."""
    return _draw(state, None)


def _draw(state: PaikoState, viewer: int | None) -> np.ndarray:
    board_px = SIZE * CELL + 2 * MARGIN
    image, pen = canvas(board_px + PANEL, max(board_px, 560))
    for i in range(SIZE):
        centred_text(pen, (MARGIN + i * CELL + CELL / 2, MARGIN / 2), str(i), size=12)
        centred_text(pen, (MARGIN / 2, MARGIN + i * CELL + CELL / 2), str(i), size=12)
    captured = {sq for sq, _ in state.last_captured} if state.turn and state.phase == 9 else set()
    for sq in range(len(SQUARES)):
        box = _box(sq)
        fill = (25, 25, 25) if IS_BLACK[sq] else ZONE_FILL[ZONE[sq]]
        pen.rectangle(box, fill=fill, outline=(140, 120, 90))
        code = state.board[sq]
        if code >= 0:
            owner, kind = code_owner(code), code_type(code)
            x0, y0, x1, y1 = box
            pad = 4
            pen.rectangle((x0 + pad, y0 + pad, x1 - pad, y1 - pad), fill=TILE_FILL[owner], outline=(90, 90, 90), width=2)
            centred_text(pen, ((x0 + x1) / 2, (y0 + y1) / 2), SHORT[kind], size=12, fill=TILE_TEXT[owner])
            _arrow(pen, box, code_facing(code), (200, 60, 40))
        if sq == state.sel_sq:
            pen.rectangle(box, outline=SELECTED, width=3)
        if sq == state.sel_dest:
            pen.rectangle(box, outline=DEST, width=3)
        if sq in captured:
            x0, y0, x1, y1 = box
            pen.line((x0 + 6, y0 + 6, x1 - 6, y1 - 6), fill=CAPTURED, width=3)
            pen.line((x0 + 6, y1 - 6, x1 - 6, y0 + 6), fill=CAPTURED, width=3)
    # side panel
    px = board_px + 8
    y = MARGIN
    lines = _status_lines(state)
    for line in lines:
        pen.text((px, y), line, fill=INK, font=font(14))
        y += 19
    y += 8
    for p in range(2):
        pen.rectangle((px, y + 2, px + 14, y + 16), fill=TILE_FILL[p], outline=INK)
        rep = f"  moved {square_name(state.rep_sq[p])} x{state.rep_count[p]}" if state.rep_sq[p] >= 0 else ""
        pen.text((px + 20, y), f"{PLAYER_NAMES[p]}: {state.score[p]} pts, lost {state.lost[p]}{rep}", fill=INK, font=font(14))
        y += 22
        for label, rows in (("reserve", state.reserve[p]), ("hand", state.hand[p])):
            pen.text((px + 8, y), label, fill=INK, font=font(13))
            for t in range(NUM_TYPES):
                cx = px + 70 + t * 31
                pen.text((cx, y), f"{SHORT[t]}", fill=(90, 90, 90), font=font(10))
                pen.text((cx + 8, y + 12), str(rows[t]), fill=INK, font=font(13))
            y += 32
        y += 8
    legend = [
        "facing: red triangle",
        f"({'/'.join(FACING_NAMES)} = up/right/down/left)",
        "blue: White homeground",
        "pink: Black homeground",
    ]
    for line in legend:
        pen.text((px, y), line, fill=(80, 80, 80), font=font(12))
        y += 16
    if viewer is not None:
        for action, (x0, y0, x1, y1) in _buttons(state, viewer).items():
            pen.rounded_rectangle((x0, y0, x1, y1), radius=5, fill=(255, 255, 255), outline=INK)
            centred_text(pen, ((x0 + x1) / 2, (y0 + y1) / 2), BUTTON_LABELS[action], size=13)
    return to_array(image)


__all__ = ["draw", "draw_seat", "targets"]
