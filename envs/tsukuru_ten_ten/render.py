"""Tsukuru 10 Ten picture: a header (round, scoring, deck, last round), then one panel per seat: points,
dealer and turn marks, concealed tiles as backs (the hand is hidden), open sets, and the discard pile in
order (its claimable top framed in gold). Imported lazily by the core.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw

from gameshelf.envs.core.drawing import BACKGROUND, INK, canvas, font, seat_colour, to_array
from gameshelf.envs.tsukuru_ten_ten.actions import OVER
from gameshelf.envs.tsukuru_ten_ten.tiles import BLUE, COLOUR, PURPLE, RED, VALUE

if TYPE_CHECKING:
    from gameshelf.envs.tsukuru_ten_ten.rules import TsukuruTenTenState

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


def draw(state: TsukuruTenTenState) -> np.ndarray:
    n = state.n
    height = HEADER_H + n * PANEL_H + 10
    image, d = canvas(WIDTH, height)
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
