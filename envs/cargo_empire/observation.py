"""Cargo Empire's observation: one flat ``float32`` vector in [0, 1] built from named pieces.

Seats inside a piece are egocentric (the observing seat first, then the others in turn order), padded to
five players. Imports no Pillow or torch (the card's table is generated from ``LAYOUT``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.cargo_empire.actions import PHASES
from gameshelf.envs.cargo_empire.routes import ALL_PAYMENTS
from gameshelf.envs.core.observation import ObservationLayout, seat_order

if TYPE_CHECKING:
    from gameshelf.envs.cargo_empire.rules import CargoEmpireState

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


OFF = {name: piece.index.start for name, piece in LAYOUT.pieces.items()}
"""Start index of each piece in the flat vector."""
_TRACK_STRIDE = 3 * (D.TRACK_MAX + 1)


def encode(state: CargoEmpireState, seat: int) -> np.ndarray:
    n = state.n
    obs = [0.0] * LAYOUT.size  # a Python list is much faster to fill than a NumPy array
    ego = seat_order(seat, n)
    level, demand, side = state.level, state.demand, state.side
    o_level, o_colour, o_cubes = OFF["city_level"], OFF["city_colour"], OFF["city_cubes"]
    o_open, o_fill, o_posts = OFF["city_demand_open"], OFF["city_demand_filled"], OFF["city_posts"]
    for c in range(C):
        obs[o_level + 4 * c + level[c]] = 1.0
        t = state.tile[c]
        if t >= 0:
            obs[o_colour + K * c + D.TILES[t][0]] = 1.0
            obs[o_cubes + c] = state.cubes[c] / D.MAX_CUBES
            colours = D.TILES[t][1] if level[c] == 1 else D.TILES[t][2]
            for dc, owner in zip(colours, demand[c], strict=True):
                obs[(o_fill if owner >= 0 else o_open) + K * c + dc] = 1.0
        row = side[c]
        dem = demand[c]
        for i, p in enumerate(ego):
            k = row[p] + dem.count(p)
            if k:
                obs[o_posts + P * c + i] = min(1.0, k / POSTS_SCALE)
    for c in state.public_cards:
        obs[OFF["city_public"] + c] = 1.0
    for c in state.private[seat]:
        obs[OFF["city_own_private"] + c] = 1.0
    o = OFF["city_shown_private"]
    for i, p in enumerate(ego[1:]):
        for c in state.revealed[p]:
            obs[o + C * i + c] = 1.0
    o = OFF["hand"]
    hand = state.hands[seat]
    for k in range(3):
        for j in range(min(HAND_LEVELS, hand[k])):
            obs[o + HAND_LEVELS * k + j] = 1.0
        obs[OFF["discards"] + k] = state.discard[k] / D.TRANSPORT_DECK[k]
    o = OFF["decks"]
    obs[o] = sum(state.deck) / D.DECK_SIZE
    obs[o + 1] = len(state.city_deck) / (D.NUM_CITIES - D.NUM_PUBLIC_CARDS)
    obs[o + 2] = len(state.goal_deck) / D.NUM_GOALS
    end = state.is_terminal()
    o_tracks = OFF["tracks"]
    for i, p in enumerate(ego):
        obs[OFF["hand_sizes"] + i] = min(1.0, sum(state.hands[p]) / 20.0)
        for k in range(3):
            obs[o_tracks + _TRACK_STRIDE * i + (D.TRACK_MAX + 1) * k + state.tracks[p][k]] = 1.0
        obs[OFF["posts_left"] + i] = state.posts_left[p] / 12.0
        obs[OFF["private_counts"] + i] = len(state.private[p]) / 8.0
        obs[OFF["goal_counts"] + i] = len(state.goals[p]) / D.NUM_GOALS
        obs[OFF["perfect"] + i] = min(1.0, state.perfect[p] / 4.0)
        obs[OFF["vp"] + i] = min(1.0, state.vp(p, with_goals=end and p == seat) / VP_SCALE)
        obs[OFF["seat_present"] + i] = 1.0
    for g in state.goals[seat]:
        obs[OFF["own_goals"] + g] = 1.0
    for g in state.fulfilled_goals(seat):
        obs[OFF["own_goals_met"] + g] = 1.0
    player = state.current_player()
    if player >= 0:
        obs[OFF["to_move"] + (player - seat) % n] = 1.0
        obs[OFF["phase"] + PHASES.index(state.phase)] = 1.0
    obs[OFF["round"] + state.round] = 1.0
    obs[OFF["turn"] + min(3, state.turn // n)] = 1.0
    if state.sel_start >= 0:
        obs[OFF["sel_start"] + state.sel_start] = 1.0
    if state.sel_dest >= 0:
        obs[OFF["sel_dest"] + state.sel_dest] = 1.0
    o = OFF["bonus"]
    obs[o] = min(1.0, state.bonus_left / 3.0)
    if state.sel_payment >= 0:
        for k in range(3):
            obs[o + 1 + k] = float(ALL_PAYMENTS[state.sel_payment][k] > 0)
    obs[OFF["game_over"]] = float(end)
    return np.array(obs, dtype=np.float32)
