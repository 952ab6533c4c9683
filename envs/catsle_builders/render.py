"""CATsle Builders picture: a header (round, first leader, scores by round), the current trick with who
played what and who still takes, then one row per seat: its total, hand size, void suits and its board
of columns (each labelled with its limit; sideways cards beyond the limit drawn crossed in red). The seat
to act is framed in gold. Imported lazily by the core.

``draw_seat(state, seat)`` adds a band with that seat's own hand, face up. ``targets(state, seat)``: a card
is played by clicking it in that hand, taken by clicking it in the trick, and a taken card is placed by
clicking the column of the seat's own board.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.catsle_builders.actions import PLACE_BASE, TAKE_BASE
from gameshelf.envs.catsle_builders.cards import NUM_SUITS, NUM_VALUES, SUITS, cards_of, round_score
from gameshelf.envs.core.drawing import INK, canvas, centred_text, font, seat_colour, to_array
from gameshelf.envs.core.rendering import Box

if TYPE_CHECKING:
    from PIL import ImageDraw

    from gameshelf.envs.catsle_builders.game import CatsleState

WIDTH = 1040
HEADER, TRICK_H, ROW_H, HAND_H = 64, 120, 118, 80
TRICK_SCALE = 1.3
HAND_SCALE = 1.2
CARD_W, CARD_H = 34, 48
SUIT_FILL = [(245, 245, 240), (120, 190, 110), (220, 80, 70), (235, 200, 60), (80, 140, 220)]
SUIT_INK = [(60, 60, 60), (20, 80, 20), (120, 20, 20), (110, 80, 0), (20, 50, 120)]
GOLD = (240, 190, 30)


def _card(d: ImageDraw.ImageDraw, x: float, y: float, c: int, sideways: bool = False, scale: float = 1.0) -> None:
    """A card face; a sideways card (beyond its column's limit) lies across, framed in red."""
    suit = c // NUM_VALUES
    w, h = CARD_W * scale, CARD_H * scale
    if sideways:
        w, h = h, w
        y += (CARD_H - CARD_W) * scale / 2
    outline, width = ((200, 0, 0), 3) if sideways else (SUIT_INK[suit], 2)
    d.rounded_rectangle((x, y, x + w, y + h), radius=4, fill=SUIT_FILL[suit], outline=outline, width=width)
    centred_text(d, (x + w / 2, y + h / 2), str(c % NUM_VALUES + 1), size=int(17 * scale), fill=SUIT_INK[suit])


def _header(d: ImageDraw.ImageDraw, state: CatsleState) -> None:
    game = state.game
    d.rectangle((0, 0, WIDTH, HEADER), fill=(235, 232, 220))
    first = f"seat {state.round_first}" if state.round_first >= 0 else "to be drawn"
    d.text((12, 6), f"CATsle Builders - round {state.round_index + 1}/3 - first leader {first}", fill=INK, font=font(18))
    limits = "/".join(map(str, game.limits))
    status = {0: "drawing the first leader", 1: f"dealing {state.dealt}/{game.num_players * game.hand_size}"}.get(state.phase, "")
    if state.is_terminal():
        ret = state.returns()
        best = [s for s in range(game.num_players) if ret[s] == ret.max()]
        status = "game over - winner: " + ", ".join(f"seat {s}" for s in best)
    d.text((12, 34), f"column limits {limits}   {status}", fill=INK, font=font(15))
    x = 640
    d.text((x, 6), "round scores:", fill=INK, font=font(14))
    for r, scores in enumerate(state.round_scores):
        d.text((x + 100 + 90 * r, 6), f"R{r + 1}: {' '.join(map(str, scores))}", fill=INK, font=font(14))
    for s in range(NUM_SUITS):
        if state.game.deck >> (s * NUM_VALUES) & 1:
            d.rounded_rectangle((x + 78 * s, 32, x + 74 + 78 * s, 52), radius=4, fill=SUIT_FILL[s], outline=SUIT_INK[s])
            centred_text(d, (x + 37 + 78 * s, 42), SUITS[s], size=13, fill=SUIT_INK[s])


def _trick(d: ImageDraw.ImageDraw, state: CatsleState, top: int) -> None:
    d.rectangle((0, top, WIDTH, top + TRICK_H), fill=(38, 110, 70))
    n = state.game.num_players
    if not state.trick:
        text = f"seat {state.leader} to lead" if state.phase in (2, 3, 4) else ""
        centred_text(d, (WIDTH / 2, top + TRICK_H / 2), f"trick: {text}" if text else "", size=18, fill=(255, 255, 255))
    ranks = {}
    if state.queue:
        for r, s in enumerate(state.trick_rating()):
            ranks[s] = r + 1
    for i, c in enumerate(state.trick):
        seat = (state.leader + i) % n
        x = _trick_left(i)
        label = f"seat {seat}" + (" (lead)" if i == 0 else "")
        d.text((x, top + 8), label, fill=seat_colour(seat), font=font(14))
        if state.trick_left >> c & 1 or not state.queue:
            _card(d, x, top + 30, c, scale=TRICK_SCALE)
        else:
            d.rounded_rectangle((x, top + 30, x + CARD_W * 1.3, top + 30 + CARD_H * 1.3), radius=4, outline=(200, 220, 200))
            centred_text(d, (x + 22, top + 61), "taken", size=12, fill=(220, 240, 220))
        if seat in ranks:
            d.text((x + 50, top + 40), f"#{ranks[seat]}", fill=(255, 255, 255), font=font(18))
    if state.queue:
        todo = state.queue[state.take_pos :]
        text = "still to take: " + (", ".join(f"seat {s}" for s in todo) or "-")
        d.text((700, top + 30), text, fill=(255, 255, 255), font=font(15))
    if state.pending >= 0:
        d.text((700, top + 56), f"seat {state.turn} places:", fill=(255, 255, 255), font=font(15))
        _card(d, 860, top + 50, state.pending)
    discards = len(cards_of(state.discards))
    d.text((700, top + 92), f"discarded this round: {discards}", fill=(220, 240, 220), font=font(13))


def _row(d: ImageDraw.ImageDraw, state: CatsleState, seat: int, top: int) -> None:
    game = state.game
    to_act = state.current_player() == seat
    d.rounded_rectangle(
        (6, top + 4, WIDTH - 6, top + ROW_H - 4),
        radius=8,
        fill=(255, 255, 255),
        outline=GOLD if to_act else seat_colour(seat),
        width=5 if to_act else 2,
    )
    d.text((18, top + 12), f"Seat {seat}", fill=seat_colour(seat), font=font(18))
    d.text((18, top + 38), f"total {state.totals[seat]}", fill=INK, font=font(15))
    d.text((18, top + 58), f"hand {state.hand_sizes[seat]}", fill=INK, font=font(15))
    voids = ",".join(SUITS[s][:2] for s in range(NUM_SUITS) if state.voids[seat] >> s & 1)
    if voids:
        d.text((18, top + 90), f"void {voids}", fill=(150, 60, 0), font=font(13))
    if to_act:
        d.text((100, top + 12), "TO ACT", fill=(170, 110, 0), font=font(14))
    counts = state.board_counts(seat)
    score, perfect = round_score(game.limits, counts)
    d.text((100, top + 58), f"board {score}", fill=INK, font=font(14))
    d.text((100, top + 78), f"perfect {perfect}", fill=INK, font=font(13))
    x = 190
    col_w = _column_width(state)
    for k, lim in enumerate(game.limits):
        cx = x + k * col_w
        d.rectangle((cx, top + 10, cx + col_w - 8, top + ROW_H - 10), outline=(190, 190, 190))
        col = state.cols[seat][k]
        tag = f"limit {lim}: {len(col)}"
        if len(col) == lim and lim > 0:
            tag += " perfect"
        d.text((cx + 4, top + 12), tag, fill=INK, font=font(12))
        if not col:
            continue
        step = min(CARD_W + 2, (col_w - 16 - CARD_H) / max(len(col) - 1, 1))
        for i, c in enumerate(col):
            _card(
                d, cx + 4 + i * step + (CARD_H - CARD_W if i > lim else 0) * (step / (CARD_W + 2)), top + 34, c, sideways=i >= lim
            )


def _trick_left(i: int) -> int:
    return 40 + i * 130


def _column_width(state: CatsleState) -> int:
    return (WIDTH - 200) // len(state.game.limits)


def draw(state: CatsleState) -> np.ndarray:
    """``HxWx3 uint8`` picture of the public situation."""
    return _draw(state, None)


def draw_seat(state: CatsleState, seat: int) -> np.ndarray:
    """The public picture with ``seat``'s own hand, face up, in a band under the seats' rows."""
    return _draw(state, seat)


def _draw(state: CatsleState, viewer: int | None) -> np.ndarray:
    n = state.game.num_players
    height = HEADER + TRICK_H + n * ROW_H + 8 + (HAND_H if viewer is not None else 0)
    image, d = canvas(WIDTH, height)
    _header(d, state)
    _trick(d, state, HEADER)
    for seat in range(n):
        _row(d, state, seat, HEADER + TRICK_H + seat * ROW_H)
    if viewer is not None:
        top = _hand_top(state)
        d.rectangle((0, top, WIDTH, top + HAND_H), fill=(250, 246, 232))
        d.text((12, top + 8), f"Your hand (seat {viewer})", fill=seat_colour(viewer), font=font(15))
        for c, x in zip(cards_of(state.hands[viewer]), _hand_lefts(state, viewer), strict=True):
            _card(d, x, top + 14, c, scale=HAND_SCALE)
    return to_array(image)


def _hand_top(state: CatsleState) -> int:
    return HEADER + TRICK_H + state.game.num_players * ROW_H + 8


def _hand_lefts(state: CatsleState, seat: int) -> list[float]:
    count = len(cards_of(state.hands[seat]))
    step = min(CARD_W * HAND_SCALE + 6, (WIDTH - 200 - CARD_W * HAND_SCALE) / max(count - 1, 1))
    return [190 + k * step for k in range(count)]


def targets(state: CatsleState, seat: int) -> list[tuple[int, tuple[Box, ...]]]:
    """A play as the card in the seat's hand, a take as the card in the trick, a placement as the column."""
    legal = state.legal_actions()
    w, h = CARD_W * HAND_SCALE, CARD_H * HAND_SCALE
    hand_top = _hand_top(state) + 14
    in_hand = dict(zip(cards_of(state.hands[seat]), _hand_lefts(state, seat), strict=True))
    trick_w, trick_h = CARD_W * TRICK_SCALE, CARD_H * TRICK_SCALE
    row_top = HEADER + TRICK_H + seat * ROW_H
    col_w = _column_width(state)
    out: list[tuple[int, tuple[Box, ...]]] = []
    for action in legal:
        box: Box
        if action < TAKE_BASE:
            x = in_hand[action]
            box = (int(x), hand_top, int(x + min(w, _hand_step(state, seat))) + 1, int(hand_top + h) + 1)
        elif action < PLACE_BASE:
            i = state.trick.index(action - TAKE_BASE)
            x = _trick_left(i)
            box = (x, HEADER + 30, int(x + trick_w) + 1, int(HEADER + 30 + trick_h) + 1)
        else:
            cx = 190 + (action - PLACE_BASE) * col_w
            box = (cx, row_top + 10, cx + col_w - 8, row_top + ROW_H - 10)
        out.append((action, (box,)))
    return out


def _hand_step(state: CatsleState, seat: int) -> float:
    lefts = _hand_lefts(state, seat)
    return lefts[1] - lefts[0] if len(lefts) > 1 else CARD_W * HAND_SCALE
