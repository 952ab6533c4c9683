"""CATsle Builders' observation: one flat ``float32`` vector in [0, 1] built from named pieces.

Seats inside a piece are egocentric (the observing seat first, then the others in turn order), padded
to 5 seats. Imports no Pillow or torch (the package docstring fills its table from ``LAYOUT``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.catsle_builders.actions import PLACE, PLAY, TAKE
from gameshelf.envs.catsle_builders.cards import (
    MAX_COLUMNS,
    MAX_LIMIT,
    MAX_PLAYERS,
    NUM_CARDS,
    NUM_ROUNDS,
    NUM_SUITS,
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

_S = {name: LAYOUT[name].start for name in LAYOUT.pieces}
_BOARD_SEAT = MAX_COLUMNS * (NUM_SUITS + 1)
_SIZE = LAYOUT.size
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)
"""Row b: the 8 bits of byte b, lowest first."""
_MASK_PIECES = ("hand", "trick_left", "played", "discards")


def encode(state: CatsleState, seat: int) -> np.ndarray:
    """The observation of ``seat``: its own hand and everything public.

    The entries equal to 1 and the fractional ones are collected as index lists and written at once.
    """
    game = state.game
    n = game.num_players
    S = _S
    ones: list[int] = []
    idx: list[int] = []
    val: list[float] = []
    masks = (state.hands[seat], state.trick_left, state.played, state.discards)
    raw = b"".join(m.to_bytes(8, "little") for m in masks)
    bits = _BYTE_BITS[np.frombuffer(raw, dtype=np.uint8)].reshape(len(masks), 64)
    base = S["trick"]
    for i, c in enumerate(state.trick):
        ones.append(base + ((state.leader + i - seat) % n) * NUM_CARDS + c)
    if state.trick:
        ones.append(S["led_suit"] + state.trick[0] // 12)
    for k, lim in enumerate(game.limits):
        idx.append(S["limits"] + k)
        val.append(lim / MAX_LIMIT)
    score_scale = game.max_total
    for e in range(n):
        s = (seat + e) % n
        board = S["boards"] + e * _BOARD_SEAT
        cols = state.cols[s]
        for k, suit in enumerate(state.col_suit[s]):
            if suit >= 0:
                ones.append(board + k * (NUM_SUITS + 1) + suit)
                idx.append(board + k * (NUM_SUITS + 1) + NUM_SUITS)
                val.append(len(cols[k]) / MAX_TAKEN)
        v = state.voids[s]
        if v:
            ones.extend(S["voids"] + e * NUM_SUITS + suit for suit in range(NUM_SUITS) if v >> suit & 1)
        idx.extend((S["hand_sizes"] + e, S["totals"] + e, S["last_perfect"] + e))
        val.extend((state.hand_sizes[s] / MAX_HAND, state.totals[s] / score_scale, state.last_perfect[s] / 4.0))
    ones.append(S["round"] + state.round_index)
    if state.round_first >= 0:
        ones.append(S["round_first"] + (state.round_first - seat) % n)
    if state.leader >= 0:
        ones.append(S["leader"] + (state.leader - seat) % n)
    if state.phase in (PLAY, TAKE, PLACE):
        ones.append(S["to_act"] + (state.turn - seat) % n)
        ones.append(S["phase"] + (state.phase - PLAY))
    if state.pending >= 0:
        ones.append(S["pending"] + state.pending)
    ones.append(S["players"] + n - 3)
    obs = np.zeros(_SIZE, dtype=np.float32)
    for k, name in enumerate(_MASK_PIECES):
        obs[S[name] : S[name] + NUM_CARDS] = bits[k, :NUM_CARDS]
    obs[ones] = 1.0
    obs[idx] = val
    for s in state.queue[state.take_pos :]:
        obs[S["takes_left"] + (s - seat) % n] += 0.5
    return obs
