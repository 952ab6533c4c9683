"""KoPlus's observation layout: (16, 16, 36) board planes (the card's table is generated from it)."""

from __future__ import annotations

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.koplus.actions import GRID
from gameshelf.envs.koplus.board import MAX_PLAYERS

LAYOUT = ObservationLayout(planes=(GRID, GRID))
LAYOUT.add("aliens", 1, "alien value of the cell (also under tiles) / 5")
LAYOUT.add("tiles", MAX_PLAYERS, "cell covered by a tile of slot k")
LAYOUT.add("empty", 1, "cell is on the board and empty")
LAYOUT.add("on_board", 1, "cell is on the board")
LAYOUT.add("interior", 1, "cell is in the interior region (first-tile area)")
LAYOUT.add("top_ko", MAX_PLAYERS, "slot k's top tile is a コ (broadcast)")
LAYOUT.add("top_plus", MAX_PLAYERS, "slot k's top tile is a ＋ (both 0: stack empty)")
LAYOUT.add("tiles_left", MAX_PLAYERS, "tiles left in slot k's stack / 12")
LAYOUT.add("bonus_left", MAX_PLAYERS, "bonus turns left to slot k / 3")
LAYOUT.add("score", MAX_PLAYERS, "slot k's score (placements, plus final scoring once over): (score + 60) / 180")
LAYOUT.add("to_move", MAX_PLAYERS, "slot k is to move")
LAYOUT.add("seated", MAX_PLAYERS, "slot k is a seat of this game")
