"""Tsukuru 10 Ten observation: one flat ``float32`` vector in [0, 1] built from named pieces.

Seats inside a piece are egocentric (the observing seat first, then the next seats clockwise), padded
to four seats. Imports no Pillow or torch (the package card reads ``LAYOUT.table()``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.tsukuru_ten_ten.actions import DISCARDING, MAX_PLAYERS, PICK_COLOUR, TURN
from gameshelf.envs.tsukuru_ten_ten.hand import HAND_SIZE
from gameshelf.envs.tsukuru_ten_ten.tiles import COPIES, NUM_KINDS, NUM_TILES

if TYPE_CHECKING:
    from gameshelf.envs.tsukuru_ten_ten.rules import TsukuruTenTenState

PILE_SLOTS = 28
"""Most recent discards of each pile shown in order (older ones still count in ``discard_counts``)."""
MAX_DECK = NUM_TILES - 2 * HAND_SIZE

LAYOUT = ObservationLayout()
LAYOUT.add("hand", NUM_KINDS, "own concealed tiles of each kind / copies of that kind")
LAYOUT.add("drawn", NUM_KINDS, "one-hot kind of the tile drawn this turn (while discarding after a draw)")
LAYOUT.add(
    "open_sets",
    (MAX_PLAYERS, 2, NUM_KINDS + 2),
    "per ego seat, per open set: its tiles of each kind / 3, then one-hot colour (blue, red; none while being chosen)",
)
LAYOUT.add("discard_counts", (MAX_PLAYERS, NUM_KINDS), "per ego seat: tiles of each kind in the discard pile / 4")
LAYOUT.add(
    "discard_order",
    (MAX_PLAYERS, PILE_SLOTS, NUM_KINDS),
    f"per ego seat: one-hot kind of its discards in order, most recent first (the last {PILE_SLOTS})",
)
LAYOUT.add("claimable", MAX_PLAYERS, "per ego seat: 1 if its top discard is its most recent one (claimable; see claim_from)")
LAYOUT.add("concealed", MAX_PLAYERS, "per ego seat: concealed tiles / 8")
LAYOUT.add("deck", 1, f"tiles left in the deck / {MAX_DECK}")
LAYOUT.add("unseen", NUM_KINDS, "per kind: tiles the seat cannot see (deck and other hands) / copies")
LAYOUT.add("scores", MAX_PLAYERS, "per ego seat: points / target (4 basic, 25 advanced), capped at 1")
LAYOUT.add("dealer", MAX_PLAYERS, "one-hot ego seat of the dealer")
LAYOUT.add("current", MAX_PLAYERS, "one-hot ego seat to act (zero at chance and terminal nodes)")
LAYOUT.add("phase", 3, "one-hot decision: turn start, discard (after a draw or a get), colour of an all-purple set")
LAYOUT.add("turns", MAX_PLAYERS, "per ego seat: turns started this round / 30, capped at 1")
LAYOUT.add("dealt_rounds", MAX_PLAYERS, "per ego seat: rounds dealt / 2, capped at 1")
LAYOUT.add("players", 3, "one-hot number of players 2, 3, 4")
LAYOUT.add("options", 3, "advanced scoring, claim from previous player only, dealer-twice end")

SIZE = LAYOUT.size
_INV = np.array([1.0 / c for c in COPIES], dtype=np.float32)
_SLICES = {name: LAYOUT[name] for name in LAYOUT.pieces}
_SETS = _SLICES["open_sets"].start
_SET_SIZE = 2 * (NUM_KINDS + 2)
_COUNTS = _SLICES["discard_counts"].start
_ORDER = _SLICES["discard_order"].start
_ORDER_SIZE = PILE_SLOTS * NUM_KINDS
_SLOT_STEP = np.arange(PILE_SLOTS) * NUM_KINDS
_PHASE_INDEX = {TURN: 0, DISCARDING: 1, PICK_COLOUR: 2}


def encode(state: TsukuruTenTenState, seat: int) -> np.ndarray:
    """The observation of ``seat`` (only what that seat may know)."""
    out = np.zeros(SIZE, dtype=np.float32)
    n = state.n
    game = state.game
    hands = np.array(state.hands, dtype=np.float32)
    out[_SLICES["hand"]] = hands[seat] * _INV
    if state.drawn >= 0 and state.turn == seat:
        out[_SLICES["drawn"].start + state.drawn] = 1.0
    o_claim = _SLICES["claimable"].start
    o_conc = _SLICES["concealed"].start
    o_score = _SLICES["scores"].start
    o_turns = _SLICES["turns"].start
    o_dealt = _SLICES["dealt_rounds"].start
    third = np.float32(1.0 / 3.0)
    for i in range(n):
        s = (seat + i) % n
        base = _SETS + i * _SET_SIZE
        slots = [(o.kinds, o.colour) for o in state.open_sets[s]]
        if s == state.turn and state.pending is not None:
            slots.append((state.pending, -1))
        for j, (kinds, colour) in enumerate(slots):
            b = base + j * (NUM_KINDS + 2)
            for k in kinds:
                out[b + k] += third
            if colour >= 0:
                out[b + NUM_KINDS + colour] = 1.0
        pile = state.discards[s]
        if pile:
            kinds_arr = np.array(pile[::-1][:PILE_SLOTS])
            out[_ORDER + i * _ORDER_SIZE + _SLOT_STEP[: len(kinds_arr)] + kinds_arr] = 1.0
            out[_COUNTS + i * NUM_KINDS : _COUNTS + (i + 1) * NUM_KINDS] = np.bincount(pile, minlength=NUM_KINDS) * 0.25
        out[o_claim + i] = float(state.claimable[s])
        out[o_conc + i] = sum(state.hands[s]) / 8.0
        out[o_score + i] = min(1.0, state.scores_[s] / game.target)
        out[o_turns + i] = min(1.0, state.turns_taken[s] / 30.0)
        out[o_dealt + i] = min(1.0, state.dealer_counts[s] / 2.0)
    out[_SLICES["deck"].start] = min(1.0, state.deck_size / MAX_DECK)
    unseen = hands.sum(axis=0) - hands[seat] + np.asarray(state.deck, dtype=np.float32)
    out[_SLICES["unseen"]] = unseen * _INV
    if state.dealer >= 0:
        out[_SLICES["dealer"].start + (state.dealer - seat) % n] = 1.0
    player = state.current_player()
    if player >= 0:
        out[_SLICES["current"].start + (player - seat) % n] = 1.0
        out[_SLICES["phase"].start + _PHASE_INDEX[state.phase]] = 1.0
    out[_SLICES["players"].start + n - 2] = 1.0
    o = _SLICES["options"].start
    out[o] = float(game.advanced)
    out[o + 1] = float(game.previous_only)
    out[o + 2] = float(game.dealer_twice)
    return out
