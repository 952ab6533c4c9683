"""Cargo Empire's observation: one flat ``float32`` vector in [0, 1] built from named pieces.

Seats inside a piece are egocentric (the observing seat first, then the others in turn order), padded to
five players. Imports no Pillow or torch (the card's table is generated from ``LAYOUT``). The kernel
``observation`` (``kernel.py``) writes the vector.
"""

from __future__ import annotations

from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.core.observation import ObservationLayout

C, P, K = D.NUM_CITIES, D.MAX_PLAYERS, D.NUM_COLOURS
HAND_LEVELS = 8
POSTS_SCALE = 6.0
VP_SCALE = 100.0

LAYOUT = ObservationLayout()
LAYOUT.add("city_level", (C, 4), "per city: one-hot no tile yet / LV1 / LV2 / LV3")
LAYOUT.add("city_colour", (C, K), "per city: one-hot production colour (Brown, White, Grey, Orange); 0 at LV3")
LAYOUT.add("city_cubes", C, "per city: cubes on the tile / 3")
LAYOUT.add("city_demand_open", (C, K), "per city and colour: an empty demand space of that colour")
LAYOUT.add("city_demand_filled", (C, K), "per city and colour: a filled demand space of that colour")
LAYOUT.add("city_posts", (C, P), "per city and ego seat: that player's posts there (demand + side) / 6, capped at 1")
LAYOUT.add("city_public", C, "per city: its city card is public")
LAYOUT.add("city_own_private", C, "per city: its city card is one of own private cards")
LAYOUT.add("city_shown_private", (P - 1, C), "per other ego seat 1..4 and city: a private card it has shown")
LAYOUT.add("hand", (3, HAND_LEVELS), "own Truck, Train, Ship cards: entry k is 1 if holding more than k")
LAYOUT.add("hand_sizes", P, "transport cards in hand per ego seat / 20, capped at 1")
LAYOUT.add("discards", 3, "discarded Truck, Train, Ship cards / copies in the game")
LAYOUT.add("decks", 3, "cards left in the transport deck / 48, city deck / 8, goal deck / 10")
LAYOUT.add("tracks", (P, 3, D.TRACK_MAX + 1), "per ego seat and vehicle: one-hot marker space 0..12")
LAYOUT.add("posts_left", P, "posts on the board per ego seat / 12")
LAYOUT.add("private_counts", P, "private city cards per ego seat / 8")
LAYOUT.add("goal_counts", P, "goal cards per ego seat / 10")
LAYOUT.add("own_goals", D.NUM_GOALS, "own goal cards G1..G10")
LAYOUT.add("own_goals_met", D.NUM_GOALS, "own goal cards fulfilled now")
LAYOUT.add("perfect", P, "Perfect Upgrades caused per ego seat / 4, capped at 1")
LAYOUT.add("vp", P, "VP per ego seat / 100, capped at 1: markers, LV3 posts, private cards (own goals added at the end)")
LAYOUT.add("seat_present", P, "ego seat holds a player")
LAYOUT.add("to_move", P, "one-hot ego seat to move (0 at chance and terminal nodes)")
LAYOUT.add("round", D.ROUNDS, "one-hot round 1..3")
LAYOUT.add("turn", 4, "one-hot turn of the round 1..4")
LAYOUT.add("phase", 4, "one-hot decision step: start / destination / payment / bonus moves")
LAYOUT.add("sel_start", C, "one-hot start city of the delivery in progress")
LAYOUT.add("sel_dest", C, "one-hot destination of the delivery in progress")
LAYOUT.add("bonus", 4, "bonus moves left / 3, then the vehicles paid with (Truck, Train, Ship)")
LAYOUT.add("game_over", 1, "1 once the game is over")
