"""Cargo Empire picture: the map (railroads, ports, each city's tile with its cubes, demand spaces and their
posts, side-area posts, public cards), the header (round, turn, the move in progress) and one board per
player (development markers with their VP bands, posts left, hand size, private cards, goals, VP).
Imported lazily by the core; only public information is drawn by ``draw``. ``draw_seat(state, seat)`` adds a
band with the seat's own transport cards, private city cards and goals, and on its turn a button per legal
payment or bonus vehicle and a pass button.

``targets(state, seat)``: a start or a destination is clicked on its city, a payment, a bonus vehicle or a
pass on its button in the band.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.cargo_empire.actions import DEST_BASE, PASS, PAY_BASE, action_text
from gameshelf.envs.core.drawing import INK, canvas, centred_text, font, seat_colour, to_array
from gameshelf.envs.core.rendering import Box

if TYPE_CHECKING:
    from PIL import ImageDraw

    from gameshelf.envs.cargo_empire.game import CargoEmpireState

WIDTH, HEIGHT = 1180, 760
MAP_X0, MAP_Y0, MAP_W, MAP_H = 30, 70, 660, 620
CUBE_COLOURS = [(139, 90, 43), (245, 245, 245), (140, 140, 140), (240, 140, 30)]
SEA = (205, 225, 240)
RAIL = (90, 70, 60)
GOLD = (235, 185, 20)
BOX_W, BOX_H = 110, 72
BAND_H = 96
"""Height of the seat's own band under the picture (``draw_seat``)."""
BUTTON_W, BUTTON_H, BUTTON_GAP = 140, 26, 6


def _xy(city: int) -> tuple[float, float]:
    fx, fy = D.MAP_XY[city]
    return MAP_X0 + 60 + fx * (MAP_W - 120), MAP_Y0 + 40 + fy * (MAP_H - 80)


def _cube(draw: ImageDraw.ImageDraw, x: float, y: float, colour: int, size: int = 11) -> None:
    draw.rectangle((x, y, x + size, y + size), fill=CUBE_COLOURS[colour], outline=INK)


def _post(draw: ImageDraw.ImageDraw, x: float, y: float, seat: int, r: int = 6) -> None:
    draw.ellipse((x - r, y - r, x + r, y + r), fill=seat_colour(seat), outline=INK)


def _city(draw: ImageDraw.ImageDraw, state: CargoEmpireState, c: int) -> None:
    x, y = _xy(c)
    x0, y0 = x - BOX_W / 2, y - BOX_H / 2
    selected = c in (state.sel_start, state.sel_dest)
    outline = GOLD if selected else INK
    fill = (255, 253, 245) if state.level[c] != 3 else (225, 215, 240)
    draw.rounded_rectangle((x0, y0, x0 + BOX_W, y0 + BOX_H), radius=6, fill=fill, outline=outline, width=3 if selected else 1)
    draw.text((x0 + 5, y0 + 3), D.CITIES[c], fill=INK, font=font(13))
    if c in D.PORTS:
        draw.text((x0 + BOX_W - 16, y0 + 3), "P", fill=(30, 90, 170), font=font(13))
    level = {0: "-", 1: "LV1", 2: "LV2", 3: "LV3"}[state.level[c]]
    draw.text((x0 + 5, y0 + 19), level, fill=INK, font=font(11))
    if c in state.public_cards:
        draw.text((x0 + 32, y0 + 19), "PUB", fill=(170, 110, 0), font=font(11))
    colour = state.colour(c)
    if colour >= 0:  # cubes
        for k in range(state.cubes[c]):
            _cube(draw, x0 + BOX_W - 42 + k * 13, y0 + 20, colour)
        # demand spaces with their posts
        for i, (dc, owner) in enumerate(zip(state.demand_colours(c), state.demand[c], strict=True)):
            sx = x0 + 6 + i * 24
            draw.rectangle((sx, y0 + 34, sx + 20, y0 + 52), fill=CUBE_COLOURS[dc], outline=INK)
            if owner >= 0:
                _post(draw, sx + 10, y0 + 43, owner)
    # side-area posts
    px = x0 + 8
    for p in range(state.n):
        k = state.side[c][p]
        if k:
            _post(draw, px, y0 + 63, p, r=5)
            draw.text((px + 6, y0 + 57), str(k), fill=INK, font=font(10))
            px += 20


def _player(draw: ImageDraw.ImageDraw, state: CargoEmpireState, p: int, x0: float, y0: float, h: float) -> None:
    to_move = state.current_player() == p
    draw.rounded_rectangle((x0, y0, x0 + 460, y0 + h - 6), radius=6, fill=(255, 255, 255),
                           outline=GOLD if to_move else seat_colour(p), width=3 if to_move else 2)  # fmt: skip
    _post(draw, x0 + 14, y0 + 14, p, r=7)
    end = state.is_terminal()
    head = (
        f"P{p}  VP {state.vp(p, with_goals=end)}   posts left {state.posts_left[p]}   on map {state.posts_on_map(p)}   "
        f"hand {sum(state.hands[p])}   private {len(state.private[p])}   goals {len(state.goals[p])}   perfect {state.perfect[p]}"
    )
    draw.text((x0 + 28, y0 + 6), head, fill=INK, font=font(11))
    row_h = min(18.0, (h - 30) / 3)
    for v in range(3):
        ty = y0 + 24 + v * row_h
        draw.text((x0 + 8, ty), D.VEHICLES[v], fill=INK, font=font(11))
        for s in range(D.TRACK_MAX + 1):
            sx = x0 + 52 + s * 30
            vp = D.TRACK_VP[s]
            shade = 255 - min(120, vp * 9)
            draw.rectangle((sx, ty, sx + 28, ty + row_h - 3), fill=(shade, shade, 255), outline=(170, 170, 170))
            if s in D.TRACK_REWARDS:
                draw.text((sx + 2, ty), "*", fill=(170, 110, 0), font=font(10))
            if state.tracks[p][v] == s:
                draw.rectangle((sx + 8, ty + 2, sx + 20, ty + row_h - 5), fill=seat_colour(p), outline=INK)
    if state.revealed[p] and h > 100:
        shown = "shown private cards: " + ", ".join(D.CITIES[c] for c in state.revealed[p])
        draw.text((x0 + 8, y0 + 28 + 3 * row_h), shown, fill=INK, font=font(11))


def draw(state: CargoEmpireState) -> np.ndarray:
    """``HxWx3 uint8`` picture of the public situation."""
    return _draw(state, None)


def draw_seat(state: CargoEmpireState, seat: int) -> np.ndarray:
    """The public picture with ``seat``'s own cards and, on its turn, its buttons in a band under it."""
    return _draw(state, seat)


def _buttons(state: CargoEmpireState, seat: int) -> list[tuple[int, Box]]:
    """The seat's legal actions that are not a city, each with its button in the band."""
    if state.is_terminal() or state.current_player() != seat:
        return []
    actions = [a for a in state.legal_actions() if a == PASS or a >= PAY_BASE]
    top = HEIGHT + 58
    per_row = (WIDTH - 40) // (BUTTON_W + BUTTON_GAP)
    out = []
    for k, action in enumerate(actions):
        row, col = divmod(k, per_row)
        x = 20 + col * (BUTTON_W + BUTTON_GAP)
        y = top + row * (BUTTON_H + 4)
        out.append((action, (x, y, x + BUTTON_W, y + BUTTON_H)))
    return out


def _band_height(state: CargoEmpireState, seat: int) -> int:
    per_row = (WIDTH - 40) // (BUTTON_W + BUTTON_GAP)
    rows = -(-len(_buttons(state, seat)) // per_row)
    return BAND_H + max(rows - 1, 0) * (BUTTON_H + 4)


def _city_box(city: int) -> Box:
    x, y = _xy(city)
    return (int(x - BOX_W / 2), int(y - BOX_H / 2), int(x + BOX_W / 2) + 1, int(y + BOX_H / 2) + 1)


def targets(state: CargoEmpireState, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """A start or destination as its city on the map; a payment, a bonus vehicle or a pass as its button."""
    buttons = dict(_buttons(state, seat))
    out: list[tuple[int, tuple[Box, ...]]] = []
    for action in state.legal_actions():
        if action in buttons:
            out.append((action, (buttons[action],)))
        else:
            out.append((action, (_city_box(action if action < PASS else action - DEST_BASE),)))
    return out


def _band(d: ImageDraw.ImageDraw, state: CargoEmpireState, seat: int) -> None:
    top = HEIGHT
    d.rectangle((0, top, WIDTH, top + _band_height(state, seat)), fill=(250, 246, 232))
    hand = state.hands[seat]
    cards = "   ".join(f"{D.VEHICLES[v]} x{hand[v]}" for v in range(3))
    private = ", ".join(D.CITIES[c] for c in state.private[seat]) or "-"
    goals = ", ".join(D.GOALS[g][0] for g in state.goals[seat]) or "-"
    d.text((20, top + 8), f"Your cards (P{seat}):  {cards}   private cities: {private}", fill=seat_colour(seat), font=font(14))
    d.text((20, top + 30), f"goals: {goals}", fill=INK, font=font(12))
    for action, (x0, y0, x1, y1) in _buttons(state, seat):
        d.rounded_rectangle((x0, y0, x1, y1), radius=5, fill=(255, 255, 255), outline=INK)
        centred_text(d, ((x0 + x1) / 2, (y0 + y1) / 2), action_text(action), size=12)


def _draw(state: CargoEmpireState, viewer: int | None) -> np.ndarray:
    image, d = canvas(WIDTH, HEIGHT + (_band_height(state, viewer) if viewer is not None else 0))
    if viewer is not None:
        _band(d, state, viewer)
    n = state.n
    tpr = D.turns_per_round(n)
    header = f"Cargo Empire   round {state.round + 1}/{D.ROUNDS}   turn {min(state.turn // n + 1, tpr)}/{tpr}"
    player = state.current_player()
    if state.is_terminal():
        header += "   game over: " + ", ".join(f"P{p} {state.vp(p)} VP" for p in range(n))
    elif player >= 0:
        header += f"   P{player} to move ({state.phase})"
        if state.sel_start >= 0:
            header += f": {D.CITIES[state.sel_start]}"
        if state.sel_dest >= 0:
            header += f" -> {D.CITIES[state.sel_dest]}"
        if state.bonus_left:
            header += f", {state.bonus_left} bonus move(s) to place"
    else:
        header += "   drawing..."
    d.text((20, 14), header, fill=INK, font=font(18))
    deck = (
        f"transport deck {sum(state.deck)}   discards T{state.discard[0]} R{state.discard[1]} S{state.discard[2]}   "
        f"city deck {len(state.city_deck)}   goal deck {len(state.goal_deck)}"
    )
    d.text((20, 42), deck, fill=INK, font=font(12))
    # map
    d.rounded_rectangle((MAP_X0, MAP_Y0, MAP_X0 + MAP_W, MAP_Y0 + MAP_H), radius=10, fill=SEA)
    for a, b in D.RAILROADS:
        d.line((*_xy(a), *_xy(b)), fill=RAIL, width=4)
    for c in range(D.NUM_CITIES):
        _city(d, state, c)
    # legend
    lx, ly = MAP_X0 + 10, MAP_Y0 + MAP_H + 10
    for k, name in enumerate(D.COLOURS):
        _cube(d, lx + k * 90, ly, k)
        d.text((lx + k * 90 + 16, ly - 1), name, fill=INK, font=font(11))
    d.text(
        (lx + 370, ly - 1), "P = port (ships join any two ports)   PUB = public card   * = track reward", fill=INK, font=font(11)
    )
    # player boards
    top, bottom = MAP_Y0, HEIGHT - 20
    h = (bottom - top) / max(n, 1)
    h = min(h, 140)
    for p in range(n):
        _player(d, state, p, MAP_X0 + MAP_W + 20, top + p * h, h)
    return to_array(image)
