"""Range Ta Ludothèque picture: ``draw(state) -> HxWx3 uint8``, drawn with Pillow (no display needed).

A header with the round, the dice and the scoring mode, then every player's sheet in a grid (up to four
per row, squares smaller as the player count grows): compartment walls thick, floors marked, each game a
box coloured by category with its letter, mechanism and number, playmats hatched. Only the public
situation is drawn: a choice made this round shows as "chose" under the sheet until the round ends.

``draw_seat(state, seat)`` adds, on the seat's turn, a band of buttons: one per way of reading the dice
(size, category, mechanism), "playmat" and "pass". ``targets(state, seat)``: a box is placed by clicking
its top-left square on the seat's sheet and the button of its reading of the dice, a playmat by its
square and "playmat", a pass by "pass".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.drawing import GRID, INK, canvas, centred_text, font, seat_colour, to_array
from gameshelf.envs.core.rendering import Box
from gameshelf.envs.range_ta_ludotheque.actions import mat_base, pass_action
from gameshelf.envs.range_ta_ludotheque.board import CATEGORY_LETTERS, PERMS, ROUNDS

if TYPE_CHECKING:
    from gameshelf.envs.range_ta_ludotheque.game import RangeTaLudothequeState

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


PAD = 16
BUTTON_W, BUTTON_H, BUTTON_GAP = 150, 26, 6


def _layout(state: RangeTaLudothequeState) -> tuple[int, int, int, int, int, int]:
    """``(cell, per_row, block_w, block_h, width, height)`` of the public picture."""
    g = state.game.geom
    n = state.game.num_players
    per_row = min(n, 4) if n != 5 and n != 6 else 3
    cell = 44 if n <= 2 else 32 if n <= 4 else 26
    cell = max(12, min(cell, 540 // max(g.cols, g.rows)))
    block_w, block_h = g.cols * cell + 2 * PAD, g.rows * cell + 56
    rows_of_sheets = (n + per_row - 1) // per_row
    return cell, per_row, block_w, block_h, max(block_w * per_row, 420), HEADER + block_h * rows_of_sheets + 8


def _sheet_origin(state: RangeTaLudothequeState, seat: int) -> tuple[int, int]:
    _, per_row, block_w, block_h, _, _ = _layout(state)
    return (seat % per_row) * block_w + PAD, HEADER + (seat // per_row) * block_h + 20


def _square_box(state: RangeTaLudothequeState, seat: int, sq: int) -> Box:
    cell = _layout(state)[0]
    bx, by = _sheet_origin(state, seat)
    r, c = divmod(sq, state.game.geom.cols)
    return (bx + c * cell, by + r * cell, bx + (c + 1) * cell + 1, by + (r + 1) * cell + 1)


def _buttons(state: RangeTaLudothequeState, seat: int) -> dict[str, tuple[Box, str]]:
    """The seat's buttons on its turn (``"perm k"``, ``"mat"``, ``"pass"``), each with its box and label."""
    if state.is_terminal() or state.current_player() != seat:
        return {}
    size = state.game.geom.size
    legal = state.legal_actions()
    labels: dict[str, str] = {}
    dice = state.dice or (0, 0, 0)  # a box action is legal only once the dice are rolled
    for p in sorted({a // size for a in legal if a < mat_base(size)}):
        i, j, k = PERMS[p]
        labels[f"perm {p}"] = f"size {dice[i]}  {CATEGORY_LETTERS[dice[j] - 1]}  {MECH_SHORT[dice[k] - 1]}"
    if any(mat_base(size) <= a < pass_action(size) for a in legal):
        labels["mat"] = "playmat"
    if pass_action(size) in legal:
        labels["pass"] = "pass"
    width, height = _layout(state)[4:]
    per_row = max((width - 20) // (BUTTON_W + BUTTON_GAP), 1)
    out = {}
    for n, (key, label) in enumerate(labels.items()):
        row, col = divmod(n, per_row)
        x, y = 10 + col * (BUTTON_W + BUTTON_GAP), height + 30 + row * (BUTTON_H + 4)
        out[key] = ((x, y, x + BUTTON_W, y + BUTTON_H), label)
    return out


def targets(state: RangeTaLudothequeState, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """A box as its top-left square and its reading of the dice, a playmat as its square and "playmat"."""
    size = state.game.geom.size
    buttons = _buttons(state, seat)
    out: list[tuple[int, tuple[Box, ...]]] = []
    for action in state.legal_actions():
        if action == pass_action(size):
            clicks: tuple[Box, ...] = (buttons["pass"][0],)
        elif action >= mat_base(size):
            clicks = (_square_box(state, seat, action - mat_base(size)), buttons["mat"][0])
        else:
            clicks = (_square_box(state, seat, action % size), buttons[f"perm {action // size}"][0])
        out.append((action, clicks))
    return out


def draw(state: RangeTaLudothequeState) -> np.ndarray:
    """``HxWx3 uint8`` picture of the public situation."""
    return _draw(state, None)


def draw_seat(state: RangeTaLudothequeState, seat: int) -> np.ndarray:
    """The public picture with, on ``seat``'s turn, its buttons in a band under it."""
    return _draw(state, seat)


def _draw(state: RangeTaLudothequeState, viewer: int | None) -> np.ndarray:
    game = state.game
    g = game.geom
    n = game.num_players
    cell, *_, width, height = _layout(state)
    sheet_w, sheet_h = g.cols * cell, g.rows * cell
    buttons = _buttons(state, viewer) if viewer is not None else {}
    band = max(box[3] for box, _ in buttons.values()) + 8 - height if buttons else 0
    image, d = canvas(width, height + band)
    if buttons:
        d.rectangle((0, height, width, height + band), fill=(250, 246, 232))
        d.text(
            (10, height + 8),
            "your move: a square of your sheet (a box's top-left square), then how to read the dice",
            fill=INK,
            font=font(12),
        )
        for (x0, y0, x1, y1), label in buttons.values():
            d.rounded_rectangle((x0, y0, x1, y1), radius=5, fill=(255, 255, 255), outline=INK)
            centred_text(d, ((x0 + x1) / 2, (y0 + y1) / 2), label, size=12)
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
        bx, by = _sheet_origin(state, seat)
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
