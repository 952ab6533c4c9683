"""CATsle Builders' observation: one flat ``float32`` vector in [0, 1] built from named pieces.

Seats inside a piece are egocentric (the observing seat first, then the others in turn order), padded
to 5 seats. Imports no Pillow or torch (the package docstring fills its table from ``LAYOUT``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.catsle_builders.cards import (
    MAX_COLUMNS,
    MAX_LIMIT,
    MAX_PLAYERS,
    NUM_CARDS,
    NUM_ROUNDS,
    NUM_SUITS,
    cards_of,
)
from gameshelf.envs.core.observation import ObservationLayout

if TYPE_CHECKING:
    from gameshelf.envs.catsle_builders.rules import CatsleState

MAX_TAKEN = 28
"""Scale for column counts: a player takes at most 2 cards in each of at most 14 tricks of a round."""
MAX_HAND = 14

LAYOUT = ObservationLayout()
LAYOUT.add("hand", NUM_CARDS, "own hand: 1 per card held (card = suit × 12 + value − 1)")
LAYOUT.add("trick", (MAX_PLAYERS, NUM_CARDS), "per ego seat: 1 at the card it played in the current trick")
LAYOUT.add("trick_left", NUM_CARDS, "cards still in the trick while it is being taken")
LAYOUT.add("led_suit", NUM_SUITS, "one-hot suit led in the current trick (zero before the lead)")
LAYOUT.add(
    "boards",
    (MAX_PLAYERS, MAX_COLUMNS, NUM_SUITS + 1),
    "per ego seat and column (limits order, column 5 = limit 0): one-hot suit held, then cards / 28",
)
LAYOUT.add("limits", MAX_COLUMNS, "limit of each column / 12 (zero for a column the board lacks)")
LAYOUT.add("played", NUM_CARDS, "cards played this round (boards, discards and the trick)")
LAYOUT.add("discards", NUM_CARDS, "cards discarded this round (left in a trick, not taken)")
LAYOUT.add("voids", (MAX_PLAYERS, NUM_SUITS), "per ego seat: 1 for each suit it showed it lacks this round")
LAYOUT.add("hand_sizes", MAX_PLAYERS, "cards in hand per ego seat / 14")
LAYOUT.add("totals", MAX_PLAYERS, "total score per ego seat / (3 × (sum of limits + 4))")
LAYOUT.add("last_perfect", MAX_PLAYERS, "perfect columns per ego seat in the latest round scoring / 4")
LAYOUT.add("round", NUM_ROUNDS, "one-hot round 1..3")
LAYOUT.add("round_first", MAX_PLAYERS, "one-hot ego seat that led the round's first trick")
LAYOUT.add("leader", MAX_PLAYERS, "one-hot ego seat that leads the current trick")
LAYOUT.add("to_act", MAX_PLAYERS, "one-hot ego seat to act (zero at chance and terminal nodes)")
LAYOUT.add("phase", 3, "one-hot decision kind: play a card, take a card, place a card")
LAYOUT.add("pending", NUM_CARDS, "the taken card waiting to be placed (place decisions)")
LAYOUT.add("takes_left", MAX_PLAYERS, "per ego seat: cards it still takes from the current trick / 2")
LAYOUT.add("players", 3, "one-hot player count 3, 4, 5")

_S = {name: LAYOUT[name] for name in LAYOUT.pieces}


def encode(state: CatsleState, seat: int) -> np.ndarray:
    """The observation of ``seat``: its own hand and everything public."""
    from gameshelf.envs.catsle_builders.rules import PLACE, PLAY, TAKE

    game = state.game
    n = game.num_players
    obs = LAYOUT.zeros()
    obs[[_S["hand"].start + c for c in cards_of(state.hands[seat])]] = 1.0
    trick = LAYOUT.view(obs, "trick")
    for i, c in enumerate(state.trick):
        trick[(state.leader + i - seat) % n, c] = 1.0
    if state.trick:
        obs[_S["led_suit"].start + state.trick[0] // 12] = 1.0
    if state.trick_left:
        obs[[_S["trick_left"].start + c for c in cards_of(state.trick_left)]] = 1.0
    boards = LAYOUT.view(obs, "boards")
    limits = LAYOUT.view(obs, "limits")
    voids = LAYOUT.view(obs, "voids")
    for k, lim in enumerate(game.limits):
        limits[k] = lim / MAX_LIMIT
    score_scale = game.max_total
    for e in range(n):
        s = (seat + e) % n
        for k, suit in enumerate(state.col_suit[s]):
            if suit >= 0:
                boards[e, k, suit] = 1.0
                boards[e, k, NUM_SUITS] = len(state.cols[s][k]) / MAX_TAKEN
        v = state.voids[s]
        for suit in range(NUM_SUITS):
            if v >> suit & 1:
                voids[e, suit] = 1.0
        obs[_S["hand_sizes"].start + e] = state.hand_sizes[s] / MAX_HAND
        obs[_S["totals"].start + e] = state.totals[s] / score_scale
        obs[_S["last_perfect"].start + e] = state.last_perfect[s] / 4.0
    if state.played:
        obs[[_S["played"].start + c for c in cards_of(state.played)]] = 1.0
    if state.discards:
        obs[[_S["discards"].start + c for c in cards_of(state.discards)]] = 1.0
    obs[_S["round"].start + state.round_index] = 1.0
    if state.round_first >= 0:
        obs[_S["round_first"].start + (state.round_first - seat) % n] = 1.0
    if state.leader >= 0:
        obs[_S["leader"].start + (state.leader - seat) % n] = 1.0
    if state.phase in (PLAY, TAKE, PLACE):
        obs[_S["to_act"].start + (state.turn - seat) % n] = 1.0
        obs[_S["phase"].start + (state.phase - PLAY)] = 1.0
    if state.pending >= 0:
        obs[_S["pending"].start + state.pending] = 1.0
    for s in state.queue[state.take_pos :]:
        obs[_S["takes_left"].start + (s - seat) % n] += 0.5
    obs[_S["players"].start + n - 3] = 1.0
    return obs
