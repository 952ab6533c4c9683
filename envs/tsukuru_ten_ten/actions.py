"""Tsukuru 10 Ten action encoding (597 actions) and the phases of the game. Opponents are named by their offset from the acting
seat in turn order (1 = next seat clockwise), so an action means the same thing from every seat.

The full table is in the environment card (``envs/tsukuru_ten_ten/__init__.py``): draw 0, end round
(deck empty) 1, finish 2, finish from opponent o's discard 3-5, discard kind k 6-24, colour of an
all-purple open set 25-26, get from opponent o with pair p 27-596.

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


# ---- phases: what the game waits for (``state.phase``) -------------------------------------------
FIRST_DEALER = 0
"""Chance: the first dealer (outcome = seat, uniform)."""
DEAL = 1
"""Chance: the next dealt tile (outcome = tile kind, weighted by its copies left in the deck)."""
TURN = 2
"""The player to act draws, gets, finishes from a discard, or (empty deck) ends the round."""
DRAWING = 3
"""Chance: the tile the current player draws."""
DISCARDING = 4
"""The current player (8 tiles) discards, or finishes after a draw."""
PICK_COLOUR = 5
"""The current player chooses the colour of the all-purple open set he just revealed."""
OVER = 6
PHASE_NAMES = ("first_dealer", "deal", "turn", "draw", "discard", "colour", "over")
