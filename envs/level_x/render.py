"""Level X picture: ``draw(state) -> HxWx3 uint8``, drawn with Pillow (no display needed).

Rows 10 (top) to 5 (bottom), squares right-aligned so the X squares form one column; coloured pawns on
their squares, pawns in the supply left of each row, the row's token stack right of its X square; on the
right, the dice, the bonus stack and each player's score, tokens and bonus tiles, the player to move framed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.drawing import BACKGROUND, GRID, INK, PLAYER_COLOURS, canvas, centred_text, font, to_array
from gameshelf.envs.core.rendering import Box
from gameshelf.envs.level_x.actions import BONUS_TILES, EFFECTS, PASS, ROLLS, ROW_LENGTH, ROWS

if TYPE_CHECKING:
    from gameshelf.envs.level_x.game import LevelXState

SQUARE_W, SQUARE_H, GAP = 86, 58, 6
SUPPLY_W = 110
TOP = 60
BOARD_LEFT = 20 + 40 + SUPPLY_W
X_COLUMN = BOARD_LEFT + (max(ROW_LENGTH) - 1) * (SQUARE_W + GAP)
STACK_LEFT = X_COLUMN + SQUARE_W + 16
PANEL_LEFT = STACK_LEFT + 90
WIDTH = PANEL_LEFT + 330
HEIGHT = TOP + len(ROWS) * (SQUARE_H + GAP) + 40
SQUARE_FILL = (236, 230, 214)
X_FILL = (250, 222, 140)
X_MARK = (205, 160, 60)
TOKEN_FILL = (120, 90, 60)
DIE_FILL = (255, 255, 255)
PASS_BOX = (PANEL_LEFT + 200, TOP + 18, PANEL_LEFT + 300, TOP + 58)
"""Where "pass" (no grouping) is clicked, beside the dice."""
PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)],
}


def _pawn(draw, cx: float, cy: float, seat: int, radius: int = 11, faded: bool = False) -> None:  # type: ignore[no-untyped-def]
    colour: tuple[int, ...] = PLAYER_COLOURS[seat]
    if faded:
        colour = tuple((c + 2 * b) // 3 for c, b in zip(colour, BACKGROUND, strict=True))
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=colour, outline=INK, width=1)
    centred_text(draw, (cx, cy), str(seat), size=12, fill=(255, 255, 255))


def _die(draw, x: float, y: float, value: int, size: int = 40) -> None:  # type: ignore[no-untyped-def]
    draw.rounded_rectangle((x, y, x + size, y + size), radius=6, fill=DIE_FILL, outline=INK, width=2)
    r = size * 0.08
    for px, py in PIPS[value]:
        cx, cy = x + px * size, y + py * size
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=INK)


def draw(state: LevelXState) -> np.ndarray:
    n = state.game.num_players
    image, d = canvas(WIDTH, HEIGHT)
    if state.over:
        ret = state.returns()
        status = "Game over - winner: " + ", ".join(f"player {s}" for s in range(n) if ret[s] == ret.max())
    elif state.first < 0:
        status = "Choosing the first player"
    else:
        status = f"Turn {state.turns + 1}: player {state.current} " + ("to roll" if state.dice < 0 else "to group the dice")
    if state.end_triggered and not state.over:
        status += " (last round)"
    d.text((20, 14), "Level X", fill=INK, font=font(20))
    centred_text(d, (BOARD_LEFT + 120, 24), status, size=16)

    # ---- board rows, 10 at the top ---------------------------------------------------------------
    d.text((66, TOP - 16), "supply", fill=GRID, font=font(12))
    d.text((STACK_LEFT, TOP - 16), "tokens", fill=GRID, font=font(12))
    for i, r in enumerate(range(len(ROWS) - 1, -1, -1)):
        y = TOP + i * (SQUARE_H + GAP)
        cy = y + SQUARE_H / 2
        centred_text(d, (38, cy), str(ROWS[r]), size=22)
        length = ROW_LENGTH[r]
        supply = [s for s in range(n) if state.pos[s][r] == 0]
        d.rounded_rectangle((62, y + 4, 62 + SUPPLY_W - 8, y + SQUARE_H - 4), radius=8, outline=GRID, width=1)
        for k, s in enumerate(supply):
            _pawn(d, 62 + 14 + k * 24, cy, s, radius=10, faded=True)
        for sq in range(1, length + 1):
            x = X_COLUMN - (length - sq) * (SQUARE_W + GAP)
            is_x = sq == length
            d.rectangle(
                (x, y, x + SQUARE_W, y + SQUARE_H), fill=X_FILL if is_x else SQUARE_FILL, outline=INK, width=2 if is_x else 1
            )
            if is_x:
                d.line((x + 12, y + 8, x + SQUARE_W - 12, y + SQUARE_H - 8), fill=X_MARK, width=5)
                d.line((x + 12, y + SQUARE_H - 8, x + SQUARE_W - 12, y + 8), fill=X_MARK, width=5)
            else:
                d.text((x + 4, y + 2), str(sq), fill=GRID, font=font(13))
            here = [s for s in range(n) if state.pos[s][r] == sq]
            for k, s in enumerate(here):
                px = x + SQUARE_W / 2 + (-14 if k % 2 == 0 else 14) * (len(here) > 1)
                py = cy + (-13 if k < 2 else 13) * (len(here) > 2)
                _pawn(d, px, py, s)
        # token stack: one thin chip per token, the count on top
        left = state.tokens_left[r]
        for k in range(left):
            cy_chip = y + SQUARE_H - 6 - k * 3.6
            d.rectangle((STACK_LEFT, cy_chip - 3, STACK_LEFT + 30, cy_chip), fill=TOKEN_FILL, outline=BACKGROUND)
        centred_text(d, (STACK_LEFT + 55, cy), f"{left}x{ROWS[r]}", size=14, fill=INK if left else GRID)

    # ---- side panel: dice, bonus stack, players --------------------------------------------------
    x0 = PANEL_LEFT
    d.text((x0, TOP), "Dice", fill=INK, font=font(13))
    if state.dice >= 0:
        for k, v in enumerate(ROLLS[state.dice]):
            _die(d, x0 + k * 48, TOP + 18, v)
        if not state.over:
            d.rounded_rectangle(PASS_BOX, radius=6, outline=GRID, width=1)
            centred_text(d, ((PASS_BOX[0] + PASS_BOX[2]) / 2, (PASS_BOX[1] + PASS_BOX[3]) / 2), "pass", size=14)
    else:
        d.text((x0, TOP + 30), "(not rolled)", fill=GRID, font=font(13))
    y = TOP + 72
    d.text((x0, y), "Bonus stack", fill=INK, font=font(13))
    for k, tile in enumerate(BONUS_TILES):
        present = tile in state.bonus_stack
        bx = x0 + k * 48
        d.rectangle((bx, y + 16, bx + 40, y + 44), fill=X_FILL if present else BACKGROUND, outline=INK if present else GRID)
        centred_text(d, (bx + 20, y + 30), str(tile), size=14, fill=INK if present else GRID)
    y += 60
    for s in range(n):
        box = (x0 - 6, y - 4, WIDTH - 12, y + 54)
        active = not state.over and state.first >= 0 and s == state.current
        d.rectangle(box, outline=INK if active else GRID, width=3 if active else 1)
        _pawn(d, x0 + 10, y + 12, s)
        mark = " (1)" if s == state.first else ""
        d.text(
            (x0 + 28, y + 4),
            f"player {s}{mark}: {state.score(s)} pts" + ("  <- to move" if active else ""),
            fill=INK,
            font=font(13),
        )
        tokens = "  ".join(f"{row}:{h}" for row, h in zip(ROWS, state.held[s], strict=True))
        d.text((x0 + 4, y + 24), tokens, fill=INK, font=font(13))
        if state.bonuses[s]:
            d.text((x0 + 4, y + 38), "bonus " + " + ".join(map(str, state.bonuses[s])), fill=INK, font=font(13))
        y += 64
    return to_array(image)


def _row_box(r: int) -> Box:
    """The lane of row index ``r``: its supply and its squares."""
    y = TOP + (len(ROWS) - 1 - r) * (SQUARE_H + GAP)
    return (62, y, X_COLUMN + SQUARE_W + 1, y + SQUARE_H + 1)


def targets(state: LevelXState, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """Each legal grouping as the rows it steps (one click per step); "pass" as the box beside the dice."""
    out = []
    for action in state.legal_actions():
        rows = EFFECTS[action]
        clicks = (PASS_BOX,) if action == PASS else tuple(_row_box(ROWS.index(row)) for row in rows)
        out.append((action, clicks))
    return out
