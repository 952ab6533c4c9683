"""Matchstick Tycoon's observation: one flat ``float32`` vector in [0, 1] built from named pieces.

Seats inside a piece are egocentric (the observing seat first, then the others in turn order) and padded
to 8 seats, so every player count shares one shape. The vector is written by the kernel
(``kernel.observation``). Imports no Pillow or torch (the card reads ``LAYOUT``).
"""

from __future__ import annotations

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.matchstick_tycoon.actions import MAX_PLAY
from gameshelf.envs.matchstick_tycoon.cards import NUM_FACES, NUM_VALUES

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
