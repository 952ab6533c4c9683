"""Tsukuru 10 Ten hidden information: what a seat cannot see, redealt, with a history that replays to it.

``redeal(state, seat, rng)`` is ``TsukuruTenTenState.resample_hidden``. Every round of the history is
read back (``read_rounds``): which history entries brought a hidden tile to which seat (a dealt or a
drawn tile) and, in order, which tiles each seat gave away (discards, the pairs of its open sets) or
took into its concealed hand (a discard it finished with). For each round, the concealed hands ``seat``
did not see at the round's end (every hand but its own and a finisher's, which he revealed) and the
deck are redealt from a uniform shuffle of their tiles, each hand keeping its size. Then each hand is
walked back through the round: a tile it gave away comes back into it, and a dealt or drawn tile is one
of the tiles it then held, picked at random. So every discard and every get of the rewritten history is
legal when it is made, the history replays to the redealt state, and ``seat``'s own tiles and the
finisher's revealed hand are the ones it knew.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from gameshelf.envs.tsukuru_ten_ten import actions as act
from gameshelf.envs.tsukuru_ten_ten.actions import DEAL, DISCARDING, FIRST_DEALER, OVER
from gameshelf.envs.tsukuru_ten_ten.hand import HAND_SIZE, HAND_TILES
from gameshelf.envs.tsukuru_ten_ten.tiles import COPIES, NUM_KINDS, counts_of, kinds_of, shapes_of

if TYPE_CHECKING:
    from gameshelf.envs.tsukuru_ten_ten.game import TsukuruTenTenState

ARRIVE, SHOWN, GIVE, TAKE = 0, 1, 2, 3
"""Events of a seat in a round: a hidden tile arrives, or a tile arrives that everyone sees (the draw a
player finishes with is named); the value of both is the index of the tile in the history. The seat
gives a tile of its concealed hand away (a discard or half of an open set's pair) or takes a public tile
into it (the discard it finishes with); the value of these two is the tile kind."""


@dataclass
class RoundLog:
    """One round read back from a history."""

    dealer: int
    events: list[list[tuple[int, int]]]
    """Per seat, its events in order (``ARRIVE``, ``SHOWN``, ``GIVE``, ``TAKE``)."""
    hands: list[list[int]]
    """Concealed tiles of each seat (kind counts) at the end of the log."""
    deck: list[int] = field(default_factory=lambda: list(COPIES))
    finisher: int = -1
    """The seat that finished the round (and showed his hand), -1 if none."""
    ended: bool = False


def read_rounds(history: list[int], n: int) -> list[RoundLog]:
    """The rounds of a game history that starts at the game's start (the last one may be in progress)."""
    rounds: list[RoundLog] = []
    if not history:
        return rounds
    dealer = history[0]
    pos, end = 1, len(history)
    while pos < end:
        log = RoundLog(dealer, [[] for _ in range(n)], [[0] * NUM_KINDS for _ in range(n)])
        rounds.append(log)
        hands, deck, events = log.hands, log.deck, log.events
        piles: list[list[int]] = [[] for _ in range(n)]
        for i in range(HAND_SIZE * n):
            if pos == end:
                return rounds
            seat, kind = (dealer + i) % n, history[pos]
            hands[seat][kind] += 1
            deck[kind] -= 1
            events[seat].append((ARRIVE, pos))
            pos += 1
        turn = dealer
        while pos < end and not log.ended:
            action = history[pos]
            pos += 1
            if action == act.DRAW:
                if pos == end:
                    break
                kind = history[pos]
                hands[turn][kind] += 1
                deck[kind] -= 1
                events[turn].append((ARRIVE, pos))
                pos += 1
            elif action == act.END_ROUND:
                log.ended = True
            elif action == act.FINISH:
                log.ended, log.finisher = True, turn
                events[turn][-1] = (SHOWN, events[turn][-1][1])
            elif act.FINISH_FROM <= action < act.DISCARD:
                kind = piles[(turn + action - act.FINISH_FROM + 1) % n].pop()
                hands[turn][kind] += 1
                events[turn].append((TAKE, kind))
                log.ended, log.finisher = True, turn
            elif act.DISCARD <= action < act.COLOUR:
                kind = action - act.DISCARD
                hands[turn][kind] -= 1
                piles[turn].append(kind)
                events[turn].append((GIVE, kind))
                turn = (turn + 1) % n
            elif action >= act.GET:
                offset, a, b = act.decode_get(action)
                tile = piles[(turn + offset) % n].pop()
                for kind in (a, b):
                    hands[turn][kind] -= 1
                    events[turn].append((GIVE, kind))
                if len(shapes_of((tile, a, b))) > 1 and pos < end:  # all purple: the colour follows
                    pos += 1
            # a colour choice (after a get) changes no concealed hand
        dealer = (dealer + 1) % n
    return rounds


def redeal_round(
    log: RoundLog, seat: int, rng: np.random.Generator, history: list[int] | None
) -> tuple[list[list[int]], list[int]]:
    """Redeal the hands ``seat`` did not see at the end of ``log`` and the deck; rewrite the round's hidden
    tiles in ``history`` (a list, changed in place; None: no history to rewrite) to match. Returns the new
    hands and deck (kind counts)."""
    n = len(log.hands)
    others = [s for s in range(n) if s != seat and s != log.finisher]
    pool = list(log.deck)
    for s in others:
        for k in range(NUM_KINDS):
            pool[k] += log.hands[s][k]
    tiles = np.repeat(np.arange(NUM_KINDS), pool)
    rng.shuffle(tiles)
    hands = [list(h) for h in log.hands]
    pos = 0
    for s in others:
        size = sum(log.hands[s])
        hands[s] = counts_of(tiles[pos : pos + size].tolist())
        pos += size
    deck = counts_of(tiles[pos:].tolist())
    if history is None:
        return hands, deck
    for s in range(n):
        if s == seat:
            continue  # its own tiles: it saw them arrive
        events = log.events[s]
        held = kinds_of(hands[s])
        picks = rng.random(sum(1 for e, _ in events if e == ARRIVE)).tolist()
        for event, value in reversed(events):
            if event == GIVE:
                held.append(value)
            elif event == TAKE:
                held.remove(value)
            elif event == SHOWN:
                held.remove(history[value])
            else:
                j = int(picks.pop() * len(held))
                history[value] = held[j]
                held[j] = held[-1]
                held.pop()
        assert not held, "a round read back from the history does not add up"
    return hands, deck


def redeal(state: TsukuruTenTenState, seat: int, rng: np.random.Generator) -> TsukuruTenTenState:
    """``state.resample_hidden(seat, rng)`` (see the module docstring)."""
    new = state.clone()
    if state.phase == FIRST_DEALER:
        return new
    if state.history_from_start:
        rounds = read_rounds(new.history, state.n)
        redealt = [redeal_round(log, seat, rng, new.history) for log in rounds]
        current = state.rounds_played - (state.phase == OVER)
        if len(rounds) == current + 1:  # the current round has dealt tiles
            new.hands, new.deck = redealt[-1]
        else:
            assert state.phase == DEAL and state.dealt == 0 and len(rounds) == current, "history and state disagree"
        if state.phase == DISCARDING and state.drawn >= 0:
            new.drawn = new.history[-1]  # the draw just made
        return new
    # a position built from data: its history does not hold the round
    log = RoundLog(state.dealer, [[] for _ in range(state.n)], state.hands, list(state.deck), finisher(state))
    new.hands, new.deck = redeal_round(log, seat, rng, None)
    if state.phase == DISCARDING and state.drawn >= 0 and state.turn != seat:
        held = kinds_of(new.hands[state.turn])
        new.drawn = held[int(rng.integers(len(held)))]
    return new


def finisher(state: TsukuruTenTenState) -> int:
    """At the end of the game, the seat that finished the last round (he holds 8 tiles), else -1."""
    if state.phase == OVER:
        for s in range(state.n):
            if sum(state.hands[s]) + 3 * len(state.open_sets[s]) == HAND_TILES:
                return s
    return -1
