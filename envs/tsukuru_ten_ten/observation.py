"""Tsukuru 10 Ten observation: one flat ``float32`` vector in [0, 1] built from named pieces.

Seats inside a piece are egocentric (the observing seat first, then the next seats clockwise), padded
to four seats. Imports no Pillow or torch (the package card reads ``LAYOUT.table()``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.tsukuru_ten_ten.tiles import COPIES, NUM_KINDS, NUM_TILES

if TYPE_CHECKING:
    from gameshelf.envs.tsukuru_ten_ten.rules import TsukuruTenTenState

MAX_PLAYERS = 4
PILE_SLOTS = 28
"""Most recent discards of each pile shown in order (older ones still count in ``discard_counts``)."""
MAX_DECK = NUM_TILES - 2 * 7

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
LAYOUT.add("claimable", MAX_PLAYERS, "per ego seat: 1 if the top of its pile is its most recent discard (may be taken)")
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


def encode(state: TsukuruTenTenState, seat: int) -> np.ndarray:
    """The observation of ``seat`` (only what that seat may know)."""
    from gameshelf.envs.tsukuru_ten_ten.rules import DISCARD, PICK_COLOUR, TURN

    out = np.zeros(SIZE, dtype=np.float32)
    n = state.n
    game = state.game
    ego = [(seat + i) % n for i in range(n)]
    out[_SLICES["hand"]] = np.asarray(state.hands[seat], dtype=np.float32) * _INV
    if state.drawn >= 0 and state.turn == seat:
        out[_SLICES["drawn"].start + state.drawn] = 1.0
    sets = LAYOUT.view(out, "open_sets")
    counts = LAYOUT.view(out, "discard_counts")
    order = LAYOUT.view(out, "discard_order")
    o_claim = _SLICES["claimable"].start
    o_conc = _SLICES["concealed"].start
    o_score = _SLICES["scores"].start
    o_turns = _SLICES["turns"].start
    o_dealt = _SLICES["dealt_rounds"].start
    for i, s in enumerate(ego):
        slots = [(o.kinds, o.colour) for o in state.open_sets[s]]
        if s == state.turn and state.pending is not None:
            slots.append((state.pending, -1))
        for j, (kinds, colour) in enumerate(slots):
            for k in kinds:
                sets[i, j, k] += 1.0 / 3.0
            if colour >= 0:
                sets[i, j, NUM_KINDS + colour] = 1.0
        pile = state.discards[s]
        for k in pile:
            counts[i, k] += 0.25
        for j, k in enumerate(reversed(pile[-PILE_SLOTS:])):
            order[i, j, k] = 1.0
        out[o_claim + i] = float(state.claimable[s])
        out[o_conc + i] = sum(state.hands[s]) / 8.0
        out[o_score + i] = min(1.0, state.scores_[s] / game.target)
        out[o_turns + i] = min(1.0, state.turns_taken[s] / 30.0)
        out[o_dealt + i] = min(1.0, state.dealer_counts[s] / 2.0)
    out[_SLICES["deck"].start] = min(1.0, state.deck_size / MAX_DECK)
    out[_SLICES["unseen"]] = np.asarray(state.unseen(seat), dtype=np.float32) * _INV
    if state.dealer >= 0:
        out[_SLICES["dealer"].start + (state.dealer - seat) % n] = 1.0
    player = state.current_player()
    if player >= 0:
        out[_SLICES["current"].start + (player - seat) % n] = 1.0
        phase = {TURN: 0, DISCARD: 1, PICK_COLOUR: 2}[state.phase]
        out[_SLICES["phase"].start + phase] = 1.0
    out[_SLICES["players"].start + n - 2] = 1.0
    o = _SLICES["options"].start
    out[o] = float(game.advanced)
    out[o + 1] = float(game.previous_only)
    out[o + 2] = float(game.dealer_twice)
    return out
