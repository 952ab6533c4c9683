"""Amoriax's observation layout: (9, 9, 10) board planes (the card's table is generated from it)."""

from __future__ import annotations

from gameshelf.envs.amoriax.board import SIZE
from gameshelf.envs.core.observation import ObservationLayout

LAYOUT = ObservationLayout(planes=(SIZE, SIZE))
LAYOUT.add("own_stones", 1, "the observer's stones")
LAYOUT.add("opponent_stones", 1, "the opponent's stones")
LAYOUT.add("red", 1, "the Red stone")
LAYOUT.add("inner_area", 1, "the inner area (depends on `inner_size`)")
LAYOUT.add("crown", 1, "the crown C")
LAYOUT.add("own_red_lock", 1, "all ones if the observer may not move Red on its current/next move")
LAYOUT.add("opponent_red_lock", 1, "all ones if the opponent may not move Red on its current/next move")
LAYOUT.add("to_move", 1, "all ones if the observer is to move (zeros once the game is over)")
LAYOUT.add("repetitions", 1, "(occurrences of the current position - 1) / 2: 0, 0.5 or 1")
LAYOUT.add("ply", 1, "ply / `max_plies`")
