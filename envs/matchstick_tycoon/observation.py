"""Matchstick Tycoon's observation: one flat ``float32`` vector in [0, 1] built from named pieces.

Seats inside a piece are egocentric (the observing seat first, then the others in turn order) and padded
to 8 seats, so every player count shares one shape. Imports no Pillow or torch (the card reads ``LAYOUT``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.matchstick_tycoon.actions import MAX_PLAY
from gameshelf.envs.matchstick_tycoon.cards import NUM_FACES, NUM_VALUES

if TYPE_CHECKING:
    from gameshelf.envs.matchstick_tycoon.rules import MatchstickState

MAX_PLAYERS = 8
HAND_SCALE = 32.0
"""Largest possible hand: 64 cards (expansion with 4 copies) dealt to 2 players."""
STICK_CAP = 20
"""Matchstick counts are shown as min(count, 20) / 20."""

LAYOUT = ObservationLayout()
LAYOUT.add("hand", NUM_FACES, "own cards of each face (0 1 2 3/E 4 5 6/9 7 8 A b C d F G H) / 4")
LAYOUT.add("table_value", NUM_VALUES, "one-hot value shown by the cards on the table (0 … F, G, H); zero when empty")
LAYOUT.add("table_count", MAX_PLAY, "one-hot number of cards on the table (1 … 5); zero when empty")
LAYOUT.add("table_faces", NUM_FACES, "faces of the cards on the table / 4")
LAYOUT.add("reversed", 1, "1 after an odd number of revolutions (0 strongest)")
LAYOUT.add("announced_value", NUM_VALUES, "one-hot value of the play being laid down (after `play n x W`); else zero")
LAYOUT.add("announced_count", MAX_PLAY, "one-hot count of the play being laid down; else zero")
LAYOUT.add("picked", NUM_FACES, "faces already laid for the play being laid down / 4")
LAYOUT.add("picked_cost", 1, "matchsticks committed by those cards, min(k, 20) / 20")
LAYOUT.add("played", NUM_FACES, "cards of each face played so far by anyone (table included) / copies in the deck")
LAYOUT.add("unseen", NUM_FACES, "cards of each face the observer cannot place (other hands, unused cards) / 4")
LAYOUT.add("present", MAX_PLAYERS, "per seat (egocentric, padded to 8): 1 if the seat exists")
LAYOUT.add("in_game", MAX_PLAYERS, "per seat: 1 while it still holds cards or matchsticks")
LAYOUT.add("cards", MAX_PLAYERS, "per seat: cards in hand / 32")
LAYOUT.add("sticks", MAX_PLAYERS, "per seat: matchsticks, min(k, 20) / 20")
LAYOUT.add("passed", MAX_PLAYERS, "per seat: took a turn without playing since the last play")
LAYOUT.add("last_player", MAX_PLAYERS, "one-hot seat whose cards are on the table")
LAYOUT.add("current", MAX_PLAYERS, "one-hot seat to act (zero at chance and terminal nodes)")
LAYOUT.add("place", (MAX_PLAYERS, MAX_PLAYERS), "per seat: one-hot finishing place 1 … 8 once it is out (or last)")
LAYOUT.add("expansion", 1, "copies of G and of H in the deck / 4")
SIZE = LAYOUT.size


_O = {name: piece.index.start for name, piece in LAYOUT.pieces.items()}


def encode(state: MatchstickState, seat: int) -> np.ndarray:
    """The observation of ``seat`` (only its own hand and public facts), written entry by entry for speed."""
    n = state.game.num_players
    deck = state.deck
    o = [0.0] * SIZE
    hand = state.hands[seat]
    base = _O["hand"]
    for f in range(NUM_FACES):
        o[base + f] = hand[f] / 4.0
    if state.table_count:
        o[_O["table_value"] + state.table_value] = 1.0
        o[_O["table_count"] + state.table_count - 1] = 1.0
        base = _O["table_faces"]
        for f in state.table_faces:
            o[base + f] += 0.25
    o[_O["reversed"]] = float(state.reversed)
    picks = [0] * NUM_FACES
    if state.pending_count:
        o[_O["announced_value"] + state.pending_value] = 1.0
        o[_O["announced_count"] + state.pending_count - 1] = 1.0
        base = _O["picked"]
        for f in state.picks:
            o[base + f] += 0.25
            picks[f] += 1
        o[_O["picked_cost"]] = min(state.pending_cost, STICK_CAP) / STICK_CAP
    played = state.played
    base_p, base_u = _O["played"], _O["unseen"]
    for f in range(NUM_FACES):
        if deck[f]:
            o[base_p + f] = played[f] / deck[f]
            o[base_u + f] = (deck[f] - hand[f] - played[f] - picks[f]) / 4.0
    b_present, b_in, b_cards, b_sticks, b_passed, b_place = (
        _O["present"],
        _O["in_game"],
        _O["cards"],
        _O["sticks"],
        _O["passed"],
        _O["place"],
    )
    for k in range(n):
        s = (seat + k) % n
        o[b_present + k] = 1.0
        if state.in_game[s]:
            o[b_in + k] = 1.0
        o[b_cards + k] = state.hand_sizes[s] / HAND_SCALE
        o[b_sticks + k] = min(state.sticks[s], STICK_CAP) / STICK_CAP
        if state.passed[s]:
            o[b_passed + k] = 1.0
        if state.place[s] >= 0:
            o[b_place + k * MAX_PLAYERS + state.place[s]] = 1.0
    if state.last_player >= 0 and state.table_count:
        o[_O["last_player"] + (state.last_player - seat) % n] = 1.0
    to_act = state.current_player()
    if to_act >= 0:
        o[_O["current"] + (to_act - seat) % n] = 1.0
    o[_O["expansion"]] = state.game.expansion_copies / 4.0
    return np.array(o, dtype=np.float32)
