"""Olenon picture: the table in the middle, the four seats around it (seat 0 at the bottom, then clockwise
left, top, right), hands as card backs with their size (faces with ``open_team_info``), face-up passed cards,
the seat to act framed in gold, the score and the discard pile in the header. Imported lazily.

``targets(state, seat)``: a play is made by clicking its cards in the seat's hand (a value's cards once per
card), a replacement likewise with the new value's cards, a pass by clicking the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.drawing import BACKGROUND, INK, PLAYER_COLOURS, canvas, centred_text, font, to_array
from gameshelf.envs.core.rendering import Box
from gameshelf.envs.olenon.actions import decode
from gameshelf.envs.olenon.cards import DECK, NUM_SEATS, NUM_VALUES, TEAM_NAMES

if TYPE_CHECKING:
    from PIL import ImageDraw

    from gameshelf.envs.olenon.game import OlenonState

WIDTH, HEIGHT = 860, 660
CARD_W, CARD_H = 40, 58
TEAM_COLOURS = (PLAYER_COLOURS[0], PLAYER_COLOURS[1])
VALUE_COLOURS = [
    (90, 90, 90),  # 0
    (38, 139, 210),  # 1
    (42, 161, 152),  # 2
    (133, 153, 0),  # 3
    (181, 137, 0),  # 4
    (203, 75, 22),  # 5
    (108, 113, 196),  # 6
]
FELT = (38, 110, 70)
GOLD = (240, 190, 30)
BACK = (70, 80, 130)

# centre of each seat's panel: bottom, left, top, right (clockwise)
SEAT_CENTRES = [(WIDTH // 2, 590), (120, 360), (WIDTH // 2, 130), (WIDTH - 120, 360)]
HAND_SCALE, HAND_SPAN = 0.75, 215
TABLE = (230, 230, WIDTH - 230, 490)


def _card(draw: ImageDraw.ImageDraw, x: float, y: float, value: int | None, scale: float = 1.0) -> None:
    """A card with its top-left corner at (x, y); ``value=None`` draws its back."""
    w, h = CARD_W * scale, CARD_H * scale
    if value is None:
        draw.rounded_rectangle((x, y, x + w, y + h), radius=5 * scale, fill=BACK, outline=(230, 230, 240), width=2)
        draw.rounded_rectangle(
            (x + 5 * scale, y + 5 * scale, x + w - 5 * scale, y + h - 5 * scale), radius=3, outline=(150, 160, 210)
        )
        return
    colour = VALUE_COLOURS[value]
    draw.rounded_rectangle((x, y, x + w, y + h), radius=5 * scale, fill=(255, 255, 252), outline=colour, width=3)
    centred_text(draw, (x + w / 2, y + h / 2), str(value), size=int(30 * scale), fill=colour)


def _row_of_cards(
    draw: ImageDraw.ImageDraw, cx: float, y: float, values: list[int | None], scale: float = 1.0, max_span: int = 300
) -> None:
    """Cards centred on ``cx``, overlapping as needed to fit ``max_span`` pixels."""
    for x, value in zip(_card_lefts(cx, len(values), scale, max_span), values, strict=True):
        _card(draw, x, y, value, scale)


def _card_lefts(cx: float, count: int, scale: float, max_span: int) -> list[float]:
    """The left edges of ``count`` cards centred on ``cx``, overlapping as needed to fit ``max_span``."""
    w = CARD_W * scale
    step = min(w + 4, (max_span - w) / max(count - 1, 1)) if count > 1 else 0
    left = cx - (w + step * (count - 1)) / 2
    return [left + k * step for k in range(count)]


def _expand(counts: list[int]) -> list[int | None]:
    return [v for v in range(NUM_VALUES) for _ in range(counts[v])]


def _seat_panel(draw: ImageDraw.ImageDraw, state: OlenonState, seat: int, face_up: bool = False) -> None:
    cx, cy = SEAT_CENTRES[seat]
    team = seat % 2
    to_act = state.current_player() == seat
    box = (cx - 115, cy - 62, cx + 115, cy + 62)
    draw.rounded_rectangle(
        box, radius=10, fill=(255, 255, 255), outline=GOLD if to_act else TEAM_COLOURS[team], width=6 if to_act else 2
    )
    title = f"Seat {seat} - team {TEAM_NAMES[team]}"
    centred_text(draw, (cx, cy - 48), title, size=16, fill=TEAM_COLOURS[team])
    size = state.hand_sizes[seat]
    if state.game.open_team_info or face_up:
        values: list[int | None] = _expand(state.hands[seat])
    else:
        values = [None] * min(size, 12)
    _row_of_cards(draw, cx, cy - 32, values, scale=HAND_SCALE, max_span=HAND_SPAN)
    status = f"{size} card{'s' if size != 1 else ''}"
    if not state.game.open_team_info and any(state.known[seat]):
        status += "  known: " + " ".join(str(v) for v in _expand(state.known[seat]))
    centred_text(draw, (cx, cy + 28), status, size=15)
    tags = []
    if to_act:
        tags.append("TO ACT")
    if state.last_player == seat:
        tags.append("last to play")
    if state.out_player == seat and state.is_terminal():
        tags.append("WENT OUT")
    if tags:
        centred_text(draw, (cx, cy + 48), "  |  ".join(tags), size=14, fill=(150, 100, 0) if to_act else INK)
    card = state.passed[seat]
    if card >= 0:
        # the face-up passed card sits between the panel and the table
        px, py = {0: (cx + 135, cy - 60), 1: (cx + 130, cy + 70), 2: (cx + 135, cy - 10), 3: (cx - 170, cy + 70)}[seat]
        _card(draw, px, py, card, 0.8)
        draw.text((px - 2, py + CARD_H * 0.8 + 2), "PASSED", fill=(200, 30, 30))


def draw(state: OlenonState) -> np.ndarray:
    """``HxWx3 uint8`` picture of the public situation (all hands when ``open_team_info``)."""
    return _draw(state, viewer=None)


def draw_seat(state: OlenonState, seat: int) -> np.ndarray:
    """The picture ``seat`` may see: the public one with its own hand face up."""
    return _draw(state, viewer=seat)


def _draw(state: OlenonState, viewer: int | None) -> np.ndarray:
    image, d = canvas(WIDTH, HEIGHT)
    # header: score, round, discards
    d.rectangle((0, 0, WIDTH, 44), fill=(235, 232, 220))
    small = font(14)
    d.text((12, 4), f"Olenon  -  round {state.round_index + 1}", fill=INK, font=font(17))
    first = f"first player: seat {state.round_first}" if state.round_first >= 0 else "choosing first player"
    d.text((12, 25), first, fill=INK, font=small)
    score_x = WIDTH // 2 - 90
    d.text((score_x, 4), f"team A (seats 0,2): {state.wins[0]}", fill=TEAM_COLOURS[0], font=font(16))
    d.text((score_x, 24), f"team B (seats 1,3): {state.wins[1]}", fill=TEAM_COLOURS[1], font=font(16))
    d.text((WIDTH - 320, 4), "discarded this round (of deck):", fill=INK, font=small)
    x = WIDTH - 320
    for v in range(NUM_VALUES):
        d.text((x, 24), f"{v}:{state.discards[v]}/{DECK[v]}", fill=VALUE_COLOURS[v], font=small)
        x += 45
    # the table
    table = TABLE
    d.ellipse(table, fill=FELT, outline=(20, 70, 40), width=4)
    tcx, tcy = (table[0] + table[2]) / 2, (table[1] + table[3]) / 2
    if state.table_count:
        _row_of_cards(d, tcx, tcy - CARD_H / 2 - 8, [state.table_value] * state.table_count, scale=1.2)
        label = f"{state.table_count} x {state.table_value}"
        if state.table_count == 4:
            label += "  OLENON"
        centred_text(d, (tcx, tcy + 48), label, size=18, fill=(255, 255, 255))
    else:
        centred_text(d, (tcx, tcy), "table empty", size=18, fill=(220, 240, 220))
    if state.is_chance_node():
        centred_text(d, (tcx, tcy + 80), f"dealing {state.dealt}/28", size=15, fill=(255, 255, 255))
    for seat in range(NUM_SEATS):
        _seat_panel(d, state, seat, face_up=seat == viewer)
    if state.is_terminal():
        team = state.winning_team()
        msg = f"Team {TEAM_NAMES[team]} wins {state.wins[team]}-{state.wins[1 - team]}"
        d.rounded_rectangle(
            (tcx - 150, tcy + 62, tcx + 150, tcy + 100), radius=8, fill=BACKGROUND, outline=TEAM_COLOURS[team], width=3
        )
        centred_text(d, (tcx, tcy + 81), msg, size=20, fill=TEAM_COLOURS[team])
    return to_array(image)


def _hand_boxes(state: OlenonState, seat: int) -> dict[int, Box]:
    """The visible part of each value's cards in ``seat``'s face-up hand."""
    cx, cy = SEAT_CENTRES[seat]
    values = _expand(state.hands[seat])
    lefts = _card_lefts(cx, len(values), HAND_SCALE, HAND_SPAN)
    top, bottom = cy - 32, cy - 32 + CARD_H * HAND_SCALE
    boxes: dict[int, Box] = {}
    for k, value in enumerate(values):
        if value is None or value in boxes:
            continue
        last = max(j for j, v in enumerate(values) if v == value)
        right = lefts[last + 1] if last + 1 < len(values) else lefts[last] + CARD_W * HAND_SCALE
        boxes[value] = (int(lefts[k]), int(top), int(right), int(bottom) + 1)
    return boxes


def targets(state: OlenonState, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """A play or a replacement as its cards in ``seat``'s hand (one click per card), a pass as the table."""
    hand = _hand_boxes(state, seat)
    out: list[tuple[int, tuple[Box, ...]]] = []
    for action in state.legal_actions():
        kind, count, value = decode(action)
        if kind == "pass":
            out.append((action, (TABLE,)))
        else:
            out.append((action, (hand[value],) * (count if kind == "play" else state.table_count)))
    return out
