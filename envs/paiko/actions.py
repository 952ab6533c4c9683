"""Paikō's action encoding and the phases of a turn (the sub-decision the player to move makes).

A move is split into consecutive decisions (choose a tile, then a square, then a facing); ``phase`` says
which one is next. The card's action table lists the numbers below.
"""

from __future__ import annotations

from gameshelf.envs.paiko.board import INDEX, NUM_SQUARES, SQUARES

# ---- actions ----------------------------------------------------------------------------------
TAKE = 0
"""0-7: take a tile of this type from the own reserve into the hand (draft, draw)."""
STOP = 8
"""End a draw after one or two tiles."""
DEPLOY = 9
"""9-16: deploy a hand tile of this type."""
GIVE = 17
"""17-24: (captured owner) give the capturer a tile of this type from the capturer's reserve."""
SQUARE = 25
"""25-136: a square (tile to move, deploy target, shift destination)."""
FACE = SQUARE + NUM_SQUARES
"""137-140: a facing N, E, S, W."""
STAY = FACE + 4
"""141: a just-deployed Sai stays where it is."""
PASS = STAY + 1
"""142: pass (only when nothing else is legal)."""
NUM_ACTIONS = PASS + 1


def square_name(sq: int) -> str:
    x, y = SQUARES[sq]
    return f"({x},{y})"


def parse_square(text: str) -> int:
    """``"(x,y)"`` or ``"x,y"`` -> square index (ValueError if not a square)."""
    body = text.strip().strip("()").replace(" ", "")
    try:
        x, y = (int(v) for v in body.split(","))
    except ValueError:
        raise ValueError(f"{text!r} is not a square; write (x,y)") from None
    if (x, y) not in INDEX:
        raise ValueError(f"({x},{y}) is not a square of the board")
    return INDEX[(x, y)]


# ---- phases (the current sub-decision) ---------------------------------------------------------
DRAFT, START, DRAW_MORE, DEPLOY_SQUARE, DEPLOY_FACING, SAI_SHIFT, SAI_FACING, MOVE_DEST, MOVE_FACING, GIFT, OVER = range(11)
PHASE_NAMES = (
    "draft",
    "start",
    "draw_more",
    "deploy_square",
    "deploy_facing",
    "sai_shift",
    "sai_facing",
    "move_destination",
    "move_facing",
    "gift",
    "over",
)
NUM_PHASES = len(PHASE_NAMES)
PHASE_TEXT = (
    "draft: take a tile from the reserve",
    "choose an action (draw, deploy, move a tile, or pass)",
    "draw another tile or stop",
    "deploy: choose the square",
    "deploy: choose the facing",
    "the deployed Sai may shift at once (or stay)",
    "Sai shift: choose the facing",
    "move: choose the destination",
    "move: choose the facing",
    "choose a tile from the capturer's reserve for the capturer's hand",
    "game over",
)
