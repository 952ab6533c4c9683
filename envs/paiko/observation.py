"""Paikō's observation: 14x14 board planes (row y, column x) built from named pieces.

Egocentric by channels ("own" = the observing seat); the board itself is not turned. Counts and flags
that are not about a square fill a whole plane. Imports no Pillow and no torch. The kernel
``observation`` (``kernel.py``) writes it.
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

__all__ = ["LAYOUT"]
