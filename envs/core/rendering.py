"""Rendering dispatch: the core finds a game's renderer, so engines never import their drawing code.

A game package may hold ``render.py`` with ``draw(state) -> np.ndarray`` (an ``HxWx3 uint8`` image drawn
with Pillow). ``render_image(state)`` imports it on first use; a game without one is drawn as its text.
``draw`` shows only public information; a game with hidden information may add ``draw_seat(state, seat)``,
the picture one seat may see (its own hand face up), used by ``render_seat_image``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.companion import companion

if TYPE_CHECKING:
    from gameshelf.envs.core.game import State


@cache
def _renderer(game_module: str) -> Callable[[State], np.ndarray] | None:
    module = companion(game_module, "render")
    return None if module is None else getattr(module, "draw", None)


def render_image(state: State) -> np.ndarray:
    """The ``HxWx3 uint8`` picture of ``state``: the game's ``render.draw`` or its text drawn as an image."""
    draw = _renderer(type(state.game).__module__)
    if draw is None:
        from gameshelf.envs.core.drawing import text_image

        return text_image(state.to_text())
    return draw(state)


@cache
def _seat_renderer(game_module: str) -> Callable[[State, int], np.ndarray] | None:
    if _renderer(game_module) is None:
        return None
    return getattr(companion(game_module, "render"), "draw_seat", None)


def render_seat_image(state: State, seat: int) -> np.ndarray:
    """The picture of what ``seat`` may see: the public picture plus that seat's own hidden information.

    A game's ``render.py`` may define ``draw_seat(state, seat)`` for it (used at every player count, also
    where nothing is hidden, e.g. a seat's buttons for its own moves); otherwise this is the public
    ``render_image(state)`` (which never shows hidden information), and the seat's private part is left to
    ``state.seat_text(seat)``.
    """
    draw_seat = _seat_renderer(type(state.game).__module__)
    if draw_seat is not None:
        return draw_seat(state, seat)
    return render_image(state)


# ---- clicks on the picture -------------------------------------------------------------------------------
Box = tuple[int, int, int, int]
"""A rectangle of the picture, ``(left, top, right, bottom)`` in pixels (right and bottom excluded)."""


@cache
def _target_finder(game_module: str) -> Callable[[State, int], list[tuple[int, tuple[Box, ...]]]] | None:
    if _renderer(game_module) is None:
        return None
    return getattr(companion(game_module, "render"), "targets", None)


def has_click_targets(state: State) -> bool:
    """Whether the game's picture can be played by clicking (its ``render.py`` defines ``targets``)."""
    return _target_finder(type(state.game).__module__) is not None


def click_targets(state: State, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """How ``seat``, to move, plays each legal action by clicking on ``render_seat_image(state, seat)``.

    A game's ``render.py`` may define ``targets(state, seat)``: for each legal action, the boxes of the
    picture to click in turn (one box for most moves; several for a move made of parts, such as the cards
    of a play or the rows a dice grouping advances). No two actions share a sequence of clicks; one
    action's sequence may begin another's (the page then asks to confirm the shorter). The boxes come from
    the picture the seat sees, so they reveal nothing the picture does not. A game without ``targets``, or a
    seat not to move, has none (the page's move list plays every game).
    """
    find = _target_finder(type(state.game).__module__)
    if find is None or state.is_terminal() or state.current_player() != seat:
        return []
    return [(int(action), tuple(tuple(int(v) for v in box) for box in clicks)) for action, clicks in find(state, seat)]  # type: ignore[misc]
