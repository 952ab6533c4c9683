"""Tsukuru 10 Ten action encoding (597 actions). Opponents are named by their offset from the acting
seat in turn order (1 = next seat clockwise), so an action means the same thing from every seat.

| id | name | meaning |
|---|---|---|
| 0 | `draw` | take the top tile of the deck |
| 1 | `end round (deck empty)` | the deck is empty: end the round with no score |
| 2 | `finish` | after drawing: reveal the 8 tiles, a winning hand |
| 3 + (o-1), o = 1..3 (3-5) | `finish with R5 from seat s` | take the claimable discard of the opponent o seats on and win with it |
| 6 + k, k = 0..18 (6-24) | `discard B3` | discard one tile of kind k |
| 25, 26 | `colour blue`, `colour red` | the colour of an all-purple open set just formed |
| 27 + 190*(o-1) + p (27-596) | `get R5 from seat s with R4+R6` | take opponent o's claimable discard and reveal it with the pair p of hand tiles as an open set |

Tile kinds k: B1-B7 = 0-6, R0-R7 = 7-14, P5-P8 = 15-18. Pairs p enumerate the kind pairs (a, b) with
a <= b in order: (0,0), (0,1), ..., (0,18), (1,1), ...
"""

from __future__ import annotations

from gameshelf.envs.tsukuru_ten_ten.tiles import NUM_KINDS

MAX_PLAYERS = 4
MAX_OFFSETS = MAX_PLAYERS - 1

DRAW = 0
END_ROUND = 1
FINISH = 2
FINISH_FROM = 3
DISCARD = FINISH_FROM + MAX_OFFSETS  # 6
COLOUR = DISCARD + NUM_KINDS  # 25
GET = COLOUR + 2  # 27
PAIRS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(NUM_KINDS) for b in range(a, NUM_KINDS))
PAIR_INDEX = {pair: i for i, pair in enumerate(PAIRS)}
NUM_PAIRS = len(PAIRS)  # 190
NUM_ACTIONS = GET + MAX_OFFSETS * NUM_PAIRS  # 597


def finish_from(offset: int) -> int:
    return FINISH_FROM + offset - 1


def discard(kind: int) -> int:
    return DISCARD + kind


def get(offset: int, a: int, b: int) -> int:
    return GET + (offset - 1) * NUM_PAIRS + PAIR_INDEX[(min(a, b), max(a, b))]


def decode_get(action: int) -> tuple[int, int, int]:
    """(offset, kind a, kind b) of a get action."""
    offset, p = divmod(action - GET, NUM_PAIRS)
    a, b = PAIRS[p]
    return offset + 1, a, b
