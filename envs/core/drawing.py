"""Small Pillow helpers shared by the games' renderers. Imported only when an image is drawn."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

PLAYER_COLOURS = [
    (220, 50, 47),  # red
    (38, 139, 210),  # blue
    (133, 153, 0),  # green
    (211, 54, 130),  # magenta
    (203, 120, 0),  # orange
    (42, 161, 152),  # teal
    (108, 113, 196),  # violet
    (120, 90, 60),  # brown
]
"""Seat colours for up to 8 players, used by every game (``seat_colour`` for any seat)."""


def seat_colour(seat: int) -> tuple[int, int, int]:
    """The colour of a seat; seats past the palette reuse it."""
    return PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


BACKGROUND = (250, 248, 240)
INK = (20, 20, 20)
GRID = (160, 160, 160)


@lru_cache(maxsize=16)
def font(size: int = 14) -> Any:
    """Pillow's built-in scalable font (no system fonts needed)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # very old Pillow: fixed-size bitmap font
        return ImageFont.load_default()


def canvas(width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), BACKGROUND)
    return image, ImageDraw.Draw(image)


def to_array(image: Image.Image) -> np.ndarray:
    return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


def text_size(draw: ImageDraw.ImageDraw, text: str, size: int = 14) -> tuple[int, int]:
    left, top, right, bottom = draw.multiline_textbbox((0, 0), text, font=font(size))
    return int(right - left), int(bottom - top)


def text_image(text: str, size: int = 14, margin: int = 10) -> np.ndarray:
    """Render plain text (monospace layout not guaranteed) as an image."""
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    w, h = text_size(probe, text, size)
    image, draw = canvas(w + 2 * margin, h + 2 * margin)
    draw.multiline_text((margin, margin), text, fill=INK, font=font(size))
    return to_array(image)


def centred_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int = 14, fill: Any = INK) -> None:
    draw.text(xy, text, fill=fill, font=font(size), anchor="mm")
