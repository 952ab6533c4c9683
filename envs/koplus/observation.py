"""KoPlus's observation layout: (16, 16, 36) board planes (the card's table is generated from it)."""

from __future__ import annotations

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.koplus.board import GRID

MAX_PLAYERS = 4

OBSERVATION = ObservationLayout(planes=(GRID, GRID))
OBSERVATION.add("aliens", 1, "alien value of the cell (also under tiles) / 5")
OBSERVATION.add("tiles", MAX_PLAYERS, "cell covered by a tile of slot k")
OBSERVATION.add("empty", 1, "cell is on the board and empty")
OBSERVATION.add("on_board", 1, "cell is on the board")
OBSERVATION.add("interior", 1, "cell is in the interior region (first-tile area)")
OBSERVATION.add("top_ko", MAX_PLAYERS, "slot k's top tile is a コ (broadcast)")
OBSERVATION.add("top_plus", MAX_PLAYERS, "slot k's top tile is a ＋ (both 0: stack empty)")
OBSERVATION.add("tiles_left", MAX_PLAYERS, "tiles left in slot k's stack / 12")
OBSERVATION.add("bonus_left", MAX_PLAYERS, "bonus turns left to slot k / 3")
OBSERVATION.add("score", MAX_PLAYERS, "slot k's score (placements, plus final scoring once over): (score + 60) / 180")
OBSERVATION.add("to_move", MAX_PLAYERS, "slot k is to move")
OBSERVATION.add("seated", MAX_PLAYERS, "slot k is a seat of this game")
