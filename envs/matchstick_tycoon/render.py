"""Matchstick Tycoon picture: the header (strength order, revolutions), the table in the middle with its cards
drawn as 7-segment digits (the card's own segments dark, matchsticks orange), a play being laid beside it,
then one panel per seat (cards, matchsticks, passed / out / to act), and the cards played so far.
Readable at every player count (two rows of up to four panels). Imported lazily by the core.

``draw_seat(state, seat)`` adds a band with that seat's own cards face up and, on its turn, its buttons
(a value to announce, pass, discard a matchstick). ``targets(state, seat)``: a play is announced by clicking
its value's button once per card (``2 x 7``: "7" twice), each card of it is laid by clicking that card in
the hand, a pass or a discard on its button.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.drawing import INK, canvas, centred_text, font, seat_colour, to_array
from gameshelf.envs.core.rendering import Box
from gameshelf.envs.matchstick_tycoon.actions import PASS, PICK_BASE, decode
from gameshelf.envs.matchstick_tycoon.cards import (
    COST,
    FACE_GLYPH,
    FACE_NAMES,
    GLYPHS,
    NUM_FACES,
    VALUE_NAMES,
    rotate,
)

if TYPE_CHECKING:
    from PIL import ImageDraw

    from gameshelf.envs.matchstick_tycoon.game import MatchstickState

WIDTH, HEIGHT = 960, 640
FELT = (38, 110, 70)
GOLD = (240, 190, 30)
STICK = (230, 120, 20)
DARK = (30, 30, 40)
BACK = (70, 80, 130)
GREY = (150, 150, 150)


def _segments(x: float, y: float, w: float, h: float) -> dict[int, tuple[float, float, float, float]]:
    """Segment bit -> line (x0, y0, x1, y1) of a digit in the box (x, y, w, h)."""
    left, right = x + 0.22 * w, x + 0.78 * w
    top, mid, bottom = y + 0.18 * h, y + 0.5 * h, y + 0.82 * h
    return {
        1: (left, top, right, top),  # a
        2: (right, top, right, mid),  # b
        4: (right, mid, right, bottom),  # c
        8: (left, bottom, right, bottom),  # d
        16: (left, mid, left, bottom),  # e
        32: (left, top, left, mid),  # f
        64: (left, mid, right, mid),  # g
    }


def _card(
    draw: ImageDraw.ImageDraw, x: float, y: float, face: int, value: int | None, w: float = 46, h: float = 70, label: bool = True
) -> None:
    """A card at (x, y): ``face`` showing ``value`` (None: its own value, upright)."""
    draw.rounded_rectangle((x, y, x + w, y + h), radius=6, fill=(255, 255, 250), outline=DARK, width=2)
    own = FACE_GLYPH[face]
    if value is not None and own & ~GLYPHS[value]:
        own = rotate(own)  # laid upside down
    target = GLYPHS[value] if value is not None else own
    width = max(2, int(w / 9))
    for bit, line in _segments(x, y, w, h).items():
        if own & bit:
            draw.line(line, fill=DARK, width=width)
        elif target & bit:
            draw.line(line, fill=STICK, width=width)
        else:
            draw.line(line, fill=(232, 232, 225), width=1)
    if label:
        draw.text((x + 3, y + 1), FACE_NAMES[face], fill=GREY, font=font(10))


def _sticks(draw: ImageDraw.ImageDraw, x: float, y: float, count: int, limit: int = 12) -> None:
    for i in range(min(count, limit)):
        sx = x + i * 7
        draw.line((sx, y + 4, sx, y + 22), fill=(200, 160, 100), width=3)
        draw.ellipse((sx - 2.5, y, sx + 2.5, y + 5), fill=(200, 40, 30))
    if count > limit:
        draw.text((x + limit * 7 + 2, y + 4), f"+{count - limit}", fill=INK, font=font(12))


def _seat_panel(draw: ImageDraw.ImageDraw, state: MatchstickState, seat: int, box: tuple[float, float, float, float]) -> None:
    x0, y0, x1, _y1 = box
    to_act = state.current_player() == seat
    out = state.place[seat] >= 0
    colour = seat_colour(seat)
    draw.rounded_rectangle(
        box,
        radius=8,
        fill=(240, 240, 240) if out else (255, 255, 255),
        outline=GOLD if to_act else colour,
        width=5 if to_act else 2,
    )
    draw.text((x0 + 10, y0 + 6), f"Seat {seat}", fill=colour, font=font(16))
    status = ""
    if out:
        status = f"place {state.place[seat] + 1}"
    elif to_act:
        status = "to act"
    elif state.passed[seat]:
        status = "passed"
    if state.table_count and state.last_player == seat:
        status = (status + "  " if status else "") + "on table"
    draw.text((x0 + 90, y0 + 8), status, fill=INK, font=font(13))
    n_cards = state.hand_sizes[seat]
    for i in range(min(n_cards, 16)):
        cx = x0 + 10 + i * 9
        draw.rounded_rectangle((cx, y0 + 32, cx + 14, y0 + 52), radius=2, fill=BACK, outline=(230, 230, 240))
    draw.text((x0 + 10 + min(n_cards, 16) * 9 + 12, y0 + 34), f"{n_cards} cards", fill=INK, font=font(13))
    _sticks(draw, x0 + 12, y0 + 60, state.sticks[seat])
    draw.text((x1 - 88, y0 + 62), f"{state.sticks[seat]} sticks", fill=INK, font=font(13))


BAND_H = 200
HAND_CARD_W, HAND_CARD_H, HAND_STEP = 40, 60, 46
BUTTON_W, BUTTON_H = 44, 28


def _hand_lefts(state: MatchstickState, seat: int) -> list[tuple[int, float]]:
    """Each card of ``seat``'s hand, faces ascending, with its left edge (overlapping when many)."""
    faces = [f for f in range(NUM_FACES) for _ in range(state.hands[seat][f])]
    step = min(HAND_STEP, (WIDTH - 40 - HAND_CARD_W) / max(len(faces) - 1, 1))
    return [(f, 20 + i * step) for i, f in enumerate(faces)]


def _hand_boxes(state: MatchstickState, seat: int) -> dict[int, Box]:
    top = HEIGHT + 28
    boxes: dict[int, Box] = {}
    lefts = _hand_lefts(state, seat)
    for i, (f, x) in enumerate(lefts):
        right = lefts[i + 1][1] if i + 1 < len(lefts) else x + HAND_CARD_W
        left = boxes[f][0] if f in boxes else int(x)
        boxes[f] = (left, top, int(right) + 1, top + HAND_CARD_H + 1)
    return boxes


def _buttons(state: MatchstickState, seat: int) -> dict[str, Box]:
    """The seat's buttons on its turn: ``"value W"`` for each value it may announce, ``"pass"``, ``"discard"``."""
    if state.is_terminal() or state.current_player() != seat:
        return {}
    keys: list[str] = []
    for action in state.legal_actions():
        kind, _, value = decode(action)
        key = f"value {value}" if kind == "play" else kind
        if kind != "pick" and key not in keys:
            keys.append(key)
    top = HEIGHT + 28 + HAND_CARD_H + 14
    out: dict[str, Box] = {}
    x = 20
    for key in keys:
        w = BUTTON_W if key.startswith("value") else 150
        if x + w > WIDTH - 20:  # the next row
            x, top = 20, top + BUTTON_H + 6
        out[key] = (x, top, x + w, top + BUTTON_H)
        x += w + 6
    return out


BUTTON_TEXT = {"pass": "pass (take a stick)", "discard": "discard a stick"}


def targets(state: MatchstickState, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """An announcement as its value's button once per card, a card laid as its card in the hand, the rest
    on buttons."""
    buttons = _buttons(state, seat)
    hand = _hand_boxes(state, seat)
    out: list[tuple[int, tuple[Box, ...]]] = []
    for action in state.legal_actions():
        kind, count, value = decode(action)
        if kind == "play":
            clicks: tuple[Box, ...] = (buttons[f"value {value}"],) * count
        elif kind == "pick":
            clicks = (hand[action - PICK_BASE],)
        else:
            clicks = (buttons["pass" if action == PASS else "discard"],)
        out.append((action, clicks))
    return out


def draw(state: MatchstickState) -> np.ndarray:
    """``HxWx3 uint8`` picture of the public situation (every hand as card backs)."""
    return _draw(state, None)


def draw_seat(state: MatchstickState, seat: int) -> np.ndarray:
    """The public picture with a band under it: ``seat``'s own cards face up and, on its turn, its buttons."""
    return _draw(state, seat)


def _band(d: ImageDraw.ImageDraw, state: MatchstickState, seat: int) -> None:
    d.rectangle((0, HEIGHT, WIDTH, HEIGHT + BAND_H), fill=(250, 246, 232))
    d.text((20, HEIGHT + 6), f"Your cards (seat {seat})", fill=seat_colour(seat), font=font(15))
    for f, x in _hand_lefts(state, seat):
        _card(d, x, HEIGHT + 28, f, None, w=HAND_CARD_W, h=HAND_CARD_H)
    for key, (x0, y0, x1, y1) in _buttons(state, seat).items():
        d.rounded_rectangle((x0, y0, x1, y1), radius=5, fill=(255, 255, 255), outline=INK)
        text = VALUE_NAMES[int(key.split()[1])] if key.startswith("value") else BUTTON_TEXT[key]
        centred_text(d, ((x0 + x1) / 2, (y0 + y1) / 2), text, size=14 if key.startswith("value") else 12)
    if any(k.startswith("value") for k in _buttons(state, seat)):
        d.text((20, HEIGHT + BAND_H - 20), "announce a play: its value once per card", fill=GREY, font=font(12))


def _draw(state: MatchstickState, viewer: int | None) -> np.ndarray:
    n = state.game.num_players
    image, d = canvas(WIDTH, HEIGHT + (BAND_H if viewer is not None else 0))
    if viewer is not None:
        _band(d, state, viewer)
    d.rectangle((0, 0, WIDTH, 40), fill=(60, 60, 70))
    order = "REVERSED: 0 strongest" if state.reversed else "normal: F strongest"
    d.text(
        (14, 10),
        f"Matchstick Tycoon  {n} players   order {order}   revolutions {state.revolutions}",
        fill=(255, 255, 255),
        font=font(18),
    )
    # the table
    d.rounded_rectangle((20, 52, WIDTH - 20, 222), radius=14, fill=FELT)
    if state.table_count:
        v = state.table_value
        d.text(
            (40, 62), f"{state.table_count} x {VALUE_NAMES[v]}  by seat {state.last_player}", fill=(255, 255, 255), font=font(16)
        )
        for i, f in enumerate(state.table_faces):
            _card(d, 40 + i * 62, 90, f, v, w=52, h=80)
            if COST[f][v]:
                d.text((40 + i * 62 + 12, 174), f"+{COST[f][v]}", fill=(255, 230, 180), font=font(14))
    else:
        centred_text(d, (250, 137), "table empty", size=20, fill=(220, 240, 220))
    if state.pending_count:
        v = state.pending_value
        x = 400
        d.text(
            (x, 62),
            f"seat {state.turn} lays {state.pending_count} x {VALUE_NAMES[v]} (+{state.pending_cost})",
            fill=GOLD,
            font=font(16),
        )
        for i, f in enumerate(state.picks):
            _card(d, x + i * 62, 90, f, v, w=52, h=80)
        for i in range(len(state.picks), state.pending_count):
            d.rounded_rectangle((x + i * 62, 90, x + i * 62 + 52, 170), radius=6, outline=GOLD, width=2)
    # seats: two rows of up to four panels
    per_row = min(4, n) if n <= 4 else (n + 1) // 2
    panel_w = (WIDTH - 40 - (per_row - 1) * 10) / per_row
    for s in range(n):
        row, col = divmod(s, per_row)
        x0 = 20 + col * (panel_w + 10)
        y0 = 236 + row * 110
        _seat_panel(d, state, s, (x0, y0, x0 + panel_w, y0 + 100))
    # played cards
    y = 470
    d.text((20, y), f"Played ({sum(state.played)} cards, {state.sticks_spent} matchsticks spent):", fill=INK, font=font(15))
    deck = state.deck
    col = 0
    for f in range(NUM_FACES):
        if not deck[f]:
            continue
        x = 20 + col * 58
        _card(d, x, y + 26, f, None, w=40, h=60, label=False)
        d.text((x + 6, y + 92), f"{FACE_NAMES[f]}: {state.played[f]}/{deck[f]}", fill=INK, font=font(13))
        col += 1
    if state.is_terminal():
        order_text = "  ".join(f"{i + 1}. seat {s}" for i, s in enumerate(state.out_order))
        d.rectangle((0, HEIGHT - 30, WIDTH, HEIGHT), fill=(60, 60, 70))
        d.text((14, HEIGHT - 26), f"Game over: {order_text}", fill=(255, 255, 255), font=font(16))
    return to_array(image)
