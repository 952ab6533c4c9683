"""Paikō's observations, built from named pieces: ``LAYOUT`` (``paiko-v0``) and ``LAYOUT_V1`` (``paiko-v1``).

Both are egocentric by channels and entries ("own" = the observing seat); the board itself is not turned.
``LAYOUT``: 14x14 board planes (row y, column x, channel) where counts and flags that are not about a square
fill a whole plane. ``LAYOUT_V1``: one flat vector, 14x14 planes one after the other (channel, row y, column
x: per-square values only, fewer channels) followed by the values that are not about a square, once each.
Imports no Pillow and no torch. The kernels ``observation`` write them (``kernel.py``, ``kernel_v1.py``).
"""

from __future__ import annotations

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.paiko.actions import NUM_PHASES
from gameshelf.envs.paiko.board import NUM_TYPES, SIZE

LAYOUT = ObservationLayout(planes=(SIZE, SIZE))
LAYOUT.add(
    "own_tiles",
    32,
    "own tiles: channel type*4 + facing (types Sai, Sword, Bow, Lotus, Air, Fire, Earth, Water; facings N, E, S, W)",
)
LAYOUT.add("opp_tiles", 32, "opponent's tiles, same channels")
LAYOUT.add("squares", 1, "1 on the 108 squares a non-Lotus tile may stand on")
LAYOUT.add("black", 1, "1 on the 4 black squares (Lotus only)")
LAYOUT.add("own_home", 1, "1 on the own homeground")
LAYOUT.add("opp_home", 1, "1 on the opponent's homeground")
LAYOUT.add("own_threat", 1, "T_own per square (own non-Fire threats + every Fire's), min(T, 4) / 4")
LAYOUT.add("opp_threat", 1, "T_opp per square, min(T, 4) / 4")
LAYOUT.add("own_cover", 1, "C_own per square (0/1, homeground included)")
LAYOUT.add("opp_cover", 1, "C_opp per square")
LAYOUT.add("own_reserve", NUM_TYPES, "own reserve per type / 3 (whole plane)")
LAYOUT.add("opp_reserve", NUM_TYPES, "opponent's reserve per type / 3")
LAYOUT.add("own_hand", NUM_TYPES, "own hand per type / 3")
LAYOUT.add("opp_hand", NUM_TYPES, "opponent's hand per type / 3 (public: every draw is from a public reserve)")
LAYOUT.add("scores", 2, "[own, opponent] score, min(score, 10) / 10")
LAYOUT.add("lost", 2, "[own, opponent] tiles lost / 24")
LAYOUT.add("repeat", 2, "[own, opponent] tile moved on the last own turn: its square holds consecutive moves / 3")
LAYOUT.add(
    "phase",
    NUM_PHASES,
    "one-hot sub-decision (the position builder's phase names, in order: draft ... gift, over)",
)
LAYOUT.add("selected_type", NUM_TYPES, "one-hot type being deployed")
LAYOUT.add("selected", 2, "the square chosen (deploy target / tile to move), the destination chosen")
LAYOUT.add(
    "counters",
    6,
    "observer decides now, observer is the mover, draft picks left / 9, drawn this turn / 3, gifts owed / 8, turn / max_turns",
)

PLANE = (SIZE, SIZE)
LAYOUT_V1 = ObservationLayout()
"""``paiko-v1``'s observation: one ``float32`` vector, the board planes (channel, row y, column x; only what is
about one square, zero off the 112 squares of the board), then the values about no square, once each."""
LAYOUT_V1.add(
    "tiles",
    (NUM_TYPES, *PLANE),
    "the type of the tile on the square (either player's), one-hot Sai, Sword, Bow, Lotus, Air, Fire, Earth, Water",
)
LAYOUT_V1.add("owner", (2, *PLANE), "[own, opponent] tile on the square")
LAYOUT_V1.add("facing", (4, *PLANE), "the facing of the tile on the square, one-hot N, E, S, W")
LAYOUT_V1.add("own_threat", PLANE, "T_own per square (own non-Fire threats + every Fire's), min(T, 4) / 4")
LAYOUT_V1.add("opp_threat", PLANE, "T_opp per square, min(T, 4) / 4")
LAYOUT_V1.add("own_cover", PLANE, "C_own per square (0/1, homeground included)")
LAYOUT_V1.add("opp_cover", PLANE, "C_opp per square")
LAYOUT_V1.add("repeat", (2, *PLANE), "[own, opponent] tile moved on the last own turn: its square holds consecutive moves / 3")
LAYOUT_V1.add("selected", (2, *PLANE), "the square chosen (deploy target / tile to move), the destination chosen")
LAYOUT_V1.add("observer", 2, "the observing seat, one-hot (White, Black): which homeground is own")
LAYOUT_V1.add("own_reserve", NUM_TYPES, "own reserve per type / 3")
LAYOUT_V1.add("opp_reserve", NUM_TYPES, "opponent's reserve per type / 3")
LAYOUT_V1.add("own_hand", NUM_TYPES, "own hand per type / 3")
LAYOUT_V1.add("opp_hand", NUM_TYPES, "opponent's hand per type / 3 (public: every draw is from a public reserve)")
LAYOUT_V1.add("scores", 2, "[own, opponent] score, min(score, 10) / 10")
LAYOUT_V1.add("lost", 2, "[own, opponent] tiles lost / 24")
LAYOUT_V1.add(
    "phase",
    NUM_PHASES,
    "one-hot sub-decision (the position builder's phase names, in order: draft ... gift, over)",
)
LAYOUT_V1.add("selected_type", NUM_TYPES, "one-hot type being deployed")
LAYOUT_V1.add(
    "counters",
    6,
    "observer decides now, observer is the mover, draft picks left / 9, drawn this turn / 3, gifts owed / 8, turn / max_turns",
)

__all__ = ["LAYOUT", "LAYOUT_V1"]
