"""Range Ta Ludothèque heuristic: greedy on its own sheet.

Sheets do not interact, so the agent looks only at its own sheet: for every legal move it scores the
sheet as if the game ended after that move (the mode's score, empty squares included), adds a small
bonus for keeping the surface flat (empty squares that can take a box next round) and takes the best.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.range_ta_ludotheque.game import BOX, MAT, RangeTaLudothequeState
from gameshelf.envs.range_ta_ludotheque.scoring import Box, sheet_score


class RangeTaLudothequeHeuristic:
    """Greedy one-move agent on its own sheet (see the module docstring)."""

    name = "heuristic"

    def __init__(self, flat_weight: float = 0.1) -> None:
        self.flat_weight = flat_weight

    def act(self, state: RangeTaLudothequeState, seat: int, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        game = state.game
        geom = game.geom
        boxes = state.boxes[seat]
        occ = state.occ[seat]
        mode = game.options["scoring"]
        best, best_value = legal[0], -np.inf
        for action in legal:
            kind, face, cat, mech, sq = game.move_of_action(action, state.dice)
            if kind == BOX:
                new_boxes = [*boxes, Box(face, cat, mech, sq)]
                new_occ = occ | geom.placement_at[face][sq].cells
            elif kind == MAT:
                new_boxes, new_occ = boxes, occ | (1 << sq)
            else:
                return action
            value = float(sheet_score(geom, new_boxes, new_occ, mode, game.walls_block))
            # prefer surfaces where a 2-wide box still fits: count supported empty squares with a supported right neighbour
            flat = sum(1 for pl in geom.placements[2] if not new_occ & pl.cells and pl.below & new_occ == pl.below)
            value += self.flat_weight * flat + 1e-6 * rng.random()
            if value > best_value:
                best, best_value = action, value
        return int(best)


Heuristic = RangeTaLudothequeHeuristic
"""The game's heuristic agent, found by this name (``envs.core.agent.heuristic_class``)."""
