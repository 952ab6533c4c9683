"""Level X's observation layout: one flat float32 vector in [0, 1] (the card's table is generated from it)."""

from __future__ import annotations

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.level_x.actions import BONUS_TILES, ROW_LENGTH, ROWS

MAX_PLAYERS = 4
NUM_ROWS = len(ROWS)
POSITIONS = 1 + max(ROW_LENGTH)  # supply, squares 1..4

LAYOUT = ObservationLayout()
LAYOUT.add("pawns", (MAX_PLAYERS, NUM_ROWS, POSITIONS), "[slot, row 5..10, position] one-hot; 0 = supply, 1..4 = square")
LAYOUT.add("tokens_left", NUM_ROWS, "tokens left in each row's stack / 12")
LAYOUT.add("tokens_held", (MAX_PLAYERS, NUM_ROWS), "[slot, row] tokens held / 12")
LAYOUT.add("bonus_stack", len(BONUS_TILES), "bonus tiles 15, 12, 9, 6 still in the stack")
LAYOUT.add("bonus_held", (MAX_PLAYERS, len(BONUS_TILES)), "[slot, tile 15/12/9/6] held")
LAYOUT.add("scores", MAX_PLAYERS, "score (tokens + bonuses) per slot / 452")
LAYOUT.add("dice", (4, 6), "current dice, ascending, each one-hot over 1..6 (zero before the roll)")
LAYOUT.add("seat_present", MAX_PLAYERS, "slot holds a player")
LAYOUT.add("to_move", MAX_PLAYERS, "slot to move (zero at chance and terminal nodes)")
LAYOUT.add("first_player", MAX_PLAYERS, "slot of the first player")
LAYOUT.add("end_triggered", 1, "the last round is being completed")
LAYOUT.add("game_over", 1, "the game is over")
