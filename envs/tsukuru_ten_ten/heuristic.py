"""A heuristic Tsukuru 10 Ten agent: finish whenever possible, otherwise keep the hand with the most outs.

It reads only its own hand and public information (the state it is handed is already redealt from its
seat's point of view by the caller):

* a finish (after a draw or from a discard) is always taken;
* discard: for each candidate, count the *outs* of the 7 tiles kept: unseen tiles (deck and other
  hands) that would make the hand worth exactly 10. Keep the most outs; between equals, prefer hands
  with more possible sets and a lower face total (sets lower the value towards 10);
* turn start: draw, unless a Get leads to clearly more outs than the current hand (a Get loses the
  Closed bonus); with an empty deck take a Get if any, else end the round.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, cast

import numpy as np

from gameshelf.envs.core.game import State
from gameshelf.envs.tsukuru_ten_ten import actions as act
from gameshelf.envs.tsukuru_ten_ten.hand import available_shapes, face_sum, is_winning_fast
from gameshelf.envs.tsukuru_ten_ten.tiles import NUM_KINDS, shapes_of

if TYPE_CHECKING:
    from gameshelf.envs.tsukuru_ten_ten.game import TsukuruTenTenState


def outs(hand: list[int], open_value: int, num_open: int, unseen: list[int]) -> int:
    """Unseen tiles that would make the 7-tile hand a winning hand."""
    return sum(unseen[t] for t in winning_kinds(tuple(hand), open_value, num_open))


@lru_cache(maxsize=1 << 16)
def winning_kinds(hand: tuple[int, ...], open_value: int, num_open: int) -> tuple[int, ...]:
    """The tile kinds that would make the 7-tile hand a winning hand (cached: hands recur within a game)."""
    kinds = []
    counts = list(hand)
    for t in range(NUM_KINDS):
        counts[t] += 1
        if is_winning_fast(tuple(counts), open_value, num_open):
            kinds.append(t)
        counts[t] -= 1
    return tuple(kinds)


def keep_score(hand: list[int], open_value: int, num_open: int, unseen: list[int]) -> float:
    shapes = len(available_shapes(tuple(hand))) if num_open < 2 else 0
    return 100.0 * outs(hand, open_value, num_open, unseen) + 2.0 * min(shapes, 6) - 0.3 * face_sum(hand)


class TsukuruTenTenHeuristic:
    """Finish when possible; otherwise maximise outs (see the module docstring)."""

    name = "heuristic"

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        s = cast("TsukuruTenTenState", state)
        legal = s.legal_actions()
        if len(legal) == 1:
            return legal[0]
        for a in legal:
            if act.FINISH <= a < act.DISCARD:
                return a
        unseen = s.unseen(seat)
        open_value = s.open_value(seat)
        num_open = len(s.open_sets[seat])
        hand = list(s.hands[seat])
        if legal[0] >= act.DISCARD and legal[-1] < act.COLOUR:  # discard
            return self._best_discard(hand, open_value, num_open, unseen, legal, rng)[0]
        if legal[0] >= act.COLOUR and legal[-1] < act.GET:  # colour of an all-purple set: red (higher points)
            return act.COLOUR + 1 if (act.COLOUR + 1) in legal else legal[0]
        gets = [a for a in legal if a >= act.GET]
        base = outs(hand, open_value, num_open, unseen) if act.DRAW in legal else -1
        best, best_outs = -1, base + 4 if act.DRAW in legal else -1
        for a in gets:
            offset, x, y = act.decode_get(a)
            tile = s.discards[(seat + offset) % s.n][-1]
            after = list(hand)
            after[x] -= 1
            after[y] -= 1
            value = max(sh.value for sh in shapes_of((tile, x, y)))
            _, got = self._best_discard(after, open_value + value, num_open + 1, unseen, None, rng)
            if got > best_outs:
                best, best_outs = a, got
        if best >= 0:
            return best
        if act.DRAW in legal:
            return act.DRAW
        return act.END_ROUND if act.END_ROUND in legal else legal[0]

    @staticmethod
    def _best_discard(
        hand: list[int], open_value: int, num_open: int, unseen: list[int], legal: list[int] | None, rng: np.random.Generator
    ) -> tuple[int, int]:
        """(discard action, outs kept) of the best discard from an 8-tile concealed hand."""
        best, best_score, best_outs = -1, -1e18, 0
        for k in range(NUM_KINDS):
            if not hand[k]:
                continue
            hand[k] -= 1
            score = keep_score(hand, open_value, num_open, unseen) + rng.random() * 1e-3
            if score > best_score:
                best, best_score = act.DISCARD + k, score
                best_outs = outs(hand, open_value, num_open, unseen)
            hand[k] += 1
        return best, best_outs


__all__ = ["TsukuruTenTenHeuristic", "outs"]


Heuristic = TsukuruTenTenHeuristic
"""The game's heuristic agent, found by this name (``envs.core.agent.heuristic_class``)."""
