"""Pig's observation layout: a flat vector, seats egocentric (the observing seat first)."""

from gameshelf.envs.core.observation import ObservationLayout

MAX_PLAYERS = 4

LAYOUT = ObservationLayout()
LAYOUT.add("scores", MAX_PLAYERS, "each seat's score / target (at most 1), observing seat first")
LAYOUT.add("turn_total", 1, "the turn's total / target (at most 1)")
LAYOUT.add("last_die", 6, "the last face thrown, one-hot (none before the first throw)")
LAYOUT.add("to_move", MAX_PLAYERS, "the seat to move, one-hot, egocentric")
