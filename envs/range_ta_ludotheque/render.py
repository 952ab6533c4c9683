"""Range Ta Ludothèque picture: ``draw(state) -> HxWx3 uint8``, drawn with Pillow (no display needed).

A header with the round, the dice and the scoring mode, then every player's sheet in a grid (up to four
per row, squares smaller as the player count grows): compartment walls thick, floors marked, each game a
box coloured by category with its letter, mechanism and number, playmats hatched. Only the public
situation is drawn: a choice made this round shows as "chose" under the sheet until the round ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.drawing import GRID, INK, canvas, centred_text, font, seat_colour, to_array
from gameshelf.envs.range_ta_ludotheque.board import CATEGORY_LETTERS, ROUNDS

if TYPE_CHECKING:
    from gameshelf.envs.range_ta_ludotheque.rules import RangeTaLudothequeState

CATEGORY_FILL = {
    1: (190, 215, 240),  # T puzzle
    2: (250, 210, 160),  # A dexterity
    3: (200, 235, 190),  # C card game
    4: (240, 200, 200),  # P board game
    5: (220, 205, 240),  # F miniatures
    6: (245, 235, 170),  # R roleplaying
}
MECH_SHORT = ("Bluf", "Dedu", "Deck", "Prog", "Memo", "SecR")
MECH_TINY = ("Bl", "De", "Dk", "Pr", "Me", "SR")
EMPTY_FILL = (255, 255, 255)
MAT_FILL = (200, 200, 200)
HEADER = 56


def draw(state: RangeTaLudothequeState) -> np.ndarray:
    game = state.game
    g = game.geom
    n = game.num_players
    per_row = min(n, 4) if n != 5 and n != 6 else 3
    cell = 44 if n <= 2 else 32 if n <= 4 else 26
    cell = max(12, min(cell, 540 // max(g.cols, g.rows)))
    sheet_w, sheet_h = g.cols * cell, g.rows * cell
    pad = 16
    block_w, block_h = sheet_w + 2 * pad, sheet_h + 56
    rows_of_sheets = (n + per_row - 1) // per_row
    width = max(block_w * per_row, 420)
    height = HEADER + block_h * rows_of_sheets + 8
    image, d = canvas(width, height)
    # header
    mode = game.options["scoring"]
    title = f"Range Ta Ludotheque - {mode} scoring - round {min(state.round + 1, ROUNDS)}/{ROUNDS}"
    if state.round >= ROUNDS:
        title = f"Range Ta Ludotheque - {mode} scoring - game over"
    d.text((10, 8), title, fill=INK, font=font(16))
    dice = state.dice
    d.text(
        (10, 32),
        "dice: " + (" ".join(map(str, dice)) if dice else "to roll" if state.round < ROUNDS else "-"),
        fill=INK,
        font=font(14),
    )
    small = 9 if cell < 30 else 11
    for seat in range(n):
        bx = (seat % per_row) * block_w + pad
        by = HEADER + (seat // per_row) * block_h + 20
        colour = seat_colour(seat)
        k = state.visible_moves(seat, None)
        status = ""
        if state.pending(seat):
            status = "  (chose)"
        elif state.current_player() == seat:
            status = "  (to choose)"
        d.text((bx, by - 18), f"player {seat}{status}", fill=colour, font=font(13))
        d.rectangle([bx - 3, by - 3, bx + sheet_w + 2, by + sheet_h + 2], outline=colour, width=3)
        for r in range(g.rows):
            for c in range(g.cols):
                x, y = bx + c * cell, by + r * cell
                d.rectangle([x, y, x + cell, y + cell], fill=EMPTY_FILL, outline=GRID)
        number = 0
        for kind, face, cat, mech, sq in state.moves[seat][:k]:
            if kind == 1:
                r, c = divmod(sq, g.cols)
                x, y = bx + c * cell, by + r * cell
                d.rectangle([x + 1, y + 1, x + cell - 1, y + cell - 1], fill=MAT_FILL)
                for off in range(0, 2 * cell, 6):
                    d.line([x + max(0, off - cell), y + min(cell, off), x + min(cell, off), y + max(0, off - cell)], fill=GRID)
            elif kind == 0:
                number += 1
                squares = g.placement_at[face][sq].squares
                r0, c0 = divmod(squares[0], g.cols)
                r1, c1 = divmod(squares[-1], g.cols)
                x0, y0 = bx + c0 * cell + 2, by + r0 * cell + 2
                x1, y1 = bx + (c1 + 1) * cell - 2, by + (r1 + 1) * cell - 2
                d.rectangle([x0, y0, x1, y1], fill=CATEGORY_FILL[cat], outline=INK, width=2)
                cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
                label = f"{CATEGORY_LETTERS[cat - 1]}{number}"
                if y1 - y0 > 2 * cell - 8 or x1 - x0 > 2 * cell - 8:
                    centred_text(d, (cx, cy - small * 0.6), label, size=small + 1)
                    mech_name = MECH_SHORT[mech - 1] if x1 - x0 >= 4 * small else MECH_TINY[mech - 1]
                    centred_text(d, (cx, cy + small * 0.7), mech_name, size=small)
                else:
                    centred_text(d, (cx, cy), label, size=small + 1)
        # compartment walls and floors
        for k_r in range(g.comp_rows + 1):
            y = by + k_r * g.comp_h * cell
            d.line([bx, y, bx + sheet_w, y], fill=INK, width=3 if 0 < k_r < g.comp_rows else 2)
        for k_c in range(g.comp_cols + 1):
            x = bx + k_c * g.comp_w * cell
            d.line([x, by, x, by + sheet_h], fill=INK, width=3)
        score = state.sheet_score(seat)
        empty = state.empty_squares(seat)
        d.text((bx, by + sheet_h + 6), f"score {score}  empty {empty}", fill=INK, font=font(12))
    if state.round >= ROUNDS and n > 1:
        ret = state.returns()
        winners = ", ".join(str(s) for s in range(n) if ret[s] == ret.max())
        d.text((width - 200, 32), f"winner(s): {winners}", fill=INK, font=font(14))
    return to_array(image)
