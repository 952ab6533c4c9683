"""Tsukuru 10 Ten picture: a header (round, scoring, deck, last round), then one panel per seat: points,
dealer and turn marks, concealed tiles as backs (the hand is hidden), open sets, and the discard pile in
order (its claimable top framed in gold). Imported lazily by the core.

``draw_seat(state, seat)`` shows that seat's own tiles face up and, on its turn, a band of buttons (draw,
end round, finish, the colours of an all-purple set). ``targets(state, seat)``: a discard is clicked on its
tile in the hand; a get on the opponent's claimable discard and the two tiles of the hand that go with it;
a finish from a discard on that discard and "finish"; the rest on their buttons.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw

from gameshelf.envs.core.drawing import BACKGROUND, INK, canvas, centred_text, font, seat_colour, to_array
from gameshelf.envs.core.rendering import Box
from gameshelf.envs.tsukuru_ten_ten import actions as act
from gameshelf.envs.tsukuru_ten_ten.actions import OVER
from gameshelf.envs.tsukuru_ten_ten.tiles import BLUE, COLOUR, PURPLE, RED, VALUE

if TYPE_CHECKING:
    from gameshelf.envs.tsukuru_ten_ten.game import TsukuruTenTenState

WIDTH = 900
TILE_W, TILE_H, GAP = 24, 32, 3
PER_ROW = 30
PANEL_H = 142
HEADER_H = 70
TILE_COLOURS = {BLUE: (38, 110, 200), RED: (210, 45, 40), PURPLE: (130, 60, 170)}
BACK = (90, 100, 120)
GOLD = (240, 190, 30)


@lru_cache(maxsize=64)
def _sprite(kind: int | None, framed: bool = False) -> Image.Image:
    """One tile (or a tile back) as a small image, drawn once and pasted wherever it appears."""
    pad = 3
    image = Image.new("RGB", (TILE_W + 2 * pad + 1, TILE_H + 2 * pad + 1), BACKGROUND)
    d = ImageDraw.Draw(image)
    x, y = pad, pad
    if kind is None:
        d.rounded_rectangle((x, y, x + TILE_W, y + TILE_H), radius=4, fill=BACK, outline=(220, 220, 230))
        return image
    colour = TILE_COLOURS[COLOUR[kind]]
    d.rounded_rectangle((x, y, x + TILE_W, y + TILE_H), radius=4, fill=(255, 255, 250), outline=colour, width=3)
    d.text((x + TILE_W / 2, y + TILE_H / 2), str(VALUE[kind]), fill=colour, font=font(17), anchor="mm")
    if framed:
        d.rounded_rectangle((0, 0, TILE_W + 2 * pad, TILE_H + 2 * pad), radius=5, outline=GOLD, width=3)
    return image


def _tile(image: Image.Image, x: float, y: float, kind: int | None, framed: bool = False) -> None:
    image.paste(_sprite(kind, framed), (int(x) - 3, int(y) - 3))


BUTTON_W, BUTTON_H, BAND_H = 130, 28, 48
BUTTON_LABELS = {act.DRAW: "draw", act.END_ROUND: "end round", act.FINISH: "finish", act.COLOUR: "blue", act.COLOUR + 1: "red"}


def _hand_lefts(state: TsukuruTenTenState, seat: int) -> list[tuple[int, float]]:
    """Each tile of ``seat``'s hand, kinds ascending, with its left edge."""
    kinds = [k for k, count in enumerate(state.hands[seat]) for _ in range(count)]
    return [(k, 62 + i * (TILE_W + GAP)) for i, k in enumerate(kinds)]


def _hand_boxes(state: TsukuruTenTenState, seat: int) -> dict[int, Box]:
    top = HEADER_H + seat * PANEL_H + 28
    boxes: dict[int, Box] = {}
    for k, x in _hand_lefts(state, seat):
        left = boxes[k][0] if k in boxes else int(x)
        boxes[k] = (left, top - 2, int(x + TILE_W) + 2, top + TILE_H + 2)
    return boxes


def _discard_top(state: TsukuruTenTenState, owner: int) -> Box:
    pile = state.discards[owner]
    row, col = divmod(len(pile) - 1, PER_ROW - 3)
    x = 90 + col * (TILE_W + GAP)
    y = HEADER_H + owner * PANEL_H + 28 + TILE_H + 8 + row * (TILE_H + 4)
    return (x - 3, y - 3, x + TILE_W + 4, y + TILE_H + 4)


def _buttons(state: TsukuruTenTenState, seat: int) -> dict[int, Box]:
    """The seat's buttons on its turn: draw, end round, finish (also from a discard), blue, red."""
    if state.phase == OVER or state.current_player() != seat:
        return {}
    legal = state.legal_actions()
    shown = [a for a in BUTTON_LABELS if a in legal]
    if act.FINISH not in shown and any(act.FINISH_FROM <= a < act.DISCARD for a in legal):
        shown.append(act.FINISH)
    top = HEADER_H + state.n * PANEL_H + 10 + (BAND_H - BUTTON_H) // 2
    return {a: (12 + k * (BUTTON_W + 8), top, 12 + k * (BUTTON_W + 8) + BUTTON_W, top + BUTTON_H) for k, a in enumerate(shown)}


def targets(state: TsukuruTenTenState, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """Discards on the hand's tiles, gets on the claimable discard plus two hand tiles, the rest on buttons."""
    buttons = _buttons(state, seat)
    hand = _hand_boxes(state, seat)
    out: list[tuple[int, tuple[Box, ...]]] = []
    for action in state.legal_actions():
        clicks: tuple[Box, ...]
        if action in (act.DRAW, act.END_ROUND, act.FINISH) or act.COLOUR <= action < act.GET:
            clicks = (buttons[action],)
        elif action < act.DISCARD:
            owner = (state.turn + action - act.FINISH_FROM + 1) % state.n
            clicks = (_discard_top(state, owner), buttons[act.FINISH])
        elif action < act.COLOUR:
            clicks = (hand[action - act.DISCARD],)
        else:
            offset, a, b = act.decode_get(action)
            clicks = (_discard_top(state, (state.turn + offset) % state.n), hand[a], hand[b])
        out.append((action, clicks))
    return out


def draw(state: TsukuruTenTenState) -> np.ndarray:
    """``HxWx3 uint8`` picture of the public situation (every hand as tile backs)."""
    return _draw(state, None)


def draw_seat(state: TsukuruTenTenState, seat: int) -> np.ndarray:
    """The public picture with ``seat``'s own tiles face up and, on its turn, its buttons under it."""
    return _draw(state, seat)


def _draw(state: TsukuruTenTenState, viewer: int | None) -> np.ndarray:
    n = state.n
    height = HEADER_H + n * PANEL_H + 10
    buttons = _buttons(state, viewer) if viewer is not None else {}
    image, d = canvas(WIDTH, height + (BAND_H if buttons else 0))
    for action, (x0, y0, x1, y1) in buttons.items():
        d.rounded_rectangle((x0, y0, x1, y1), radius=5, fill=(255, 255, 255), outline=INK)
        centred_text(d, ((x0 + x1) / 2, (y0 + y1) / 2), BUTTON_LABELS[action], size=13)
    game = state.game
    title = f"Tsukuru 10 Ten  -  {game.options['scoring']} scoring to {game.target}"
    if game.dealer_twice:
        title += ", or every player dealing twice"
    d.text((12, 8), title, fill=INK, font=font(18))
    rnd = state.rounds_played + (state.phase != OVER)
    status = f"Round {rnd}   Deck: {state.deck_size} tiles"
    if state.phase == OVER:
        status += "   GAME OVER"
    d.text((12, 32), status, fill=INK, font=font(14))
    if state.last_round:
        d.text((12, 50), state.last_round[:130], fill=(90, 90, 90), font=font(12))
    player = state.current_player()
    for s in range(n):
        top = HEADER_H + s * PANEL_H
        colour = seat_colour(s)
        outline = GOLD if player == s else (200, 200, 200)
        d.rounded_rectangle((6, top, WIDTH - 6, top + PANEL_H - 6), radius=8, outline=outline, width=3 if player == s else 1)
        d.rectangle((6, top, 14, top + PANEL_H - 6), fill=colour)
        label = f"Seat {s}   {state.scores_[s]} pts"
        if s == state.dealer and state.phase != OVER:
            label += "   DEALER"
        if player == s:
            label += "   to act"
        d.text((22, top + 6), label, fill=INK, font=font(15))
        # concealed tiles (backs) and open sets
        x = 22
        y = top + 28
        d.text((x, y + 8), "hand", fill=INK, font=font(12))
        x += 40
        if s == viewer:
            for k, left in _hand_lefts(state, s):
                _tile(image, left, y, k)
            x += sum(state.hands[s]) * (TILE_W + GAP)
        else:
            for _ in range(sum(state.hands[s])):
                _tile(image, x, y, None)
                x += TILE_W + GAP
        x += 16
        sets = [o.kinds for o in state.open_sets[s]]
        if s == state.turn and state.pending is not None:
            sets.append(state.pending)
        for kinds in sets:
            for k in sorted(kinds, key=lambda k: (VALUE[k], k)):
                _tile(image, x, y, k)
                x += TILE_W + GAP
            x += 12
        # discard pile, bottom to top, wrapping
        pile = state.discards[s]
        y = top + 28 + TILE_H + 8
        d.text((22, y + 8), "discards", fill=INK, font=font(12))
        for i, k in enumerate(pile):
            row, col = divmod(i, PER_ROW - 3)
            framed = state.claimable[s] and i == len(pile) - 1
            _tile(image, 90 + col * (TILE_W + GAP), y + row * (TILE_H + 4), k, framed)
    return to_array(image)
