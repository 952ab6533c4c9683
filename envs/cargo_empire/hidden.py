"""Redealing what a seat cannot see (``CargoEmpireState.resample_hidden``).

What a seat cannot see are the outcomes of the other players' draws: their transport cards, private city
cards and goals (and, for a state built from a position, their hands, unshown city cards and goals in that
position, with the decks). ``resample`` draws those outcomes again, writes them into the history (every
other entry stays: the player decisions, the public draws, the seat's own draws) and gives the state that
history replays to from its root (the initial state, or the position the state was built from, redealt
likewise). The result is a legal game: its history replays to it, its position rebuilds it, and its legal
moves are the rules' moves for its own hands.

The redeal is conditioned on everything the seat has seen (and nothing else):

* transport cards: the seat's own draws; the make-up of every deck formed by a reshuffle (the public
  discard pile it was made from); every payment another player made (the cards were in its hand when it
  paid); a player in the middle of a delivery can complete it (at its destination step some destination
  of the chosen start is payable from its hand, at its payment step some legal payment of the chosen start
  and destination is in its hand);
* private city cards: the seat's own; the public cards; a card another player showed was drawn by that
  player before it was shown, and shown at the first delivery from or to its city after the draw; a card
  is not in a player's hand if that player delivered from or to its city (while it was not public) after
  drawing it without showing it (both are what the bonus moves and the shown cards tell);
* goals: the seat's own; at the end of the game the final VP of every player (so the VP of its
  fulfilled goals).

Sampling: uniform over the redeals consistent with the above, each draw weighted as the deck deals it
(the players' choices are not modelled). City cards and goals are drawn exactly (a count over the
assignments that are still possible). Transport cards are drawn by rejection from the deck's odds, which
is exact; when ``EXACT_TRIES`` deals all break a condition (long games with 4 or 5 players, where every
payment made by another player is a condition), a guided draw (each card drawn with the deck's odds among
the cards that keep the later payments possible) is followed by ``POLISH_SWEEPS`` sweeps of swaps of two
cards of the same deck, each kept iff every condition still holds: a Markov chain whose stationary
distribution is the exact one, run for a bounded time, so this case is close to uniform but not exact.
Should the guided draw meet a dead end ``GUIDED_TRIES`` times (never seen in random games), the transport
cards are kept as they are.

The history is read once per position (``_trace``, kept on the state while its history does not change)
and the redeal is written into a copy of the state: its hidden fields are set to what replaying the
rewritten history gives (the tests replay it).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.cargo_empire.actions import DEST, PAY_BASE
from gameshelf.envs.cargo_empire.actions import PAY as PAY_PHASE
from gameshelf.envs.cargo_empire.routes import ALL_PAYMENTS, Payment, legal_payments
from gameshelf.envs.cargo_empire.scoring import goal_fulfilled

if TYPE_CHECKING:
    from gameshelf.envs.cargo_empire.game import CargoEmpireState

EXACT_TRIES = 256
"""Deals from the deck's odds tried before the guided draw takes over."""
EXACT_BATCH = 64
"""Deals checked at once."""
GUIDED_TRIES = 200
"""Guided draws tried (one that runs into a dead end is started again)."""
POLISH_SWEEPS = 4
"""Swap proposals after a guided draw, in units of the number of transport cards redealt."""

SLOT, PAY = 0, 1
"""Transport events: another player's hidden card ``(SLOT, epoch, seat)``, its payment ``(PAY, seat, cards)``."""


class _Script:
    """What the seat knows of the game, read from the history: everything but the hidden outcomes."""

    def __init__(self) -> None:
        # transport cards
        self.epochs: list[list[int]] = []
        """Per deck (0: the root's deck and the other hands in it, then one per reshuffle): the Truck, Train,
        Ship cards that the other players drew or may still draw from it (the seat's own draws removed)."""
        self.events: list[tuple[int, int, Any]] = []
        """The other players' hidden cards and payments, in the order of the game."""
        self.t_index: list[int] = []
        """History index of each hidden card (``SLOT`` order); -1 for a card in a hand of the root."""
        self.t_owner: list[int] = []
        self.t_epoch: list[int] = []
        self.t_true: list[int] = []
        """The vehicle each hidden card really is: only for the last resort of ``_sample_transport``."""
        self.final: tuple[int, tuple[Payment, ...]] | None = None
        """The player in the middle of a delivery and the payments one of which its hand must hold."""
        # city cards
        self.c_owner: list[int] = []
        self.c_time: list[int] = []
        """History index of each hidden city card draw; -1 for an unshown card of the root."""
        self.c_pool: list[int] = []
        """The city cards those draws can be."""
        self.touches: dict[int, list[tuple[int, int]]] = {}
        """Per other player: (history index, city) of each delivery from or to a city whose card was not public."""
        self.shown: dict[int, dict[int, int]] = {}
        """Per other player: card -> history index of the delivery that showed it (after the root)."""
        # goals
        self.g_owner: list[int] = []
        self.g_index: list[int] = []
        self.g_pool: list[int] = []
        self.goal_vp: dict[int, tuple[int, list[int]]] | None = None
        """At the end: per other player, the VP of its fulfilled goals and the VP each goal would give it."""
        self.cache: dict[str, Any] = {}
        """What the samplers prepare from the script (kept for the next redeal of the same position)."""


def resample(state: CargoEmpireState, seat: int, rng: np.random.Generator) -> CargoEmpireState:
    """A redeal of ``state`` for ``seat`` (see the module docstring); ``state`` is not changed."""
    script = _read(state, seat)
    cards = _sample_transport(script, state.n, rng)
    cities = _sample_cities(script, rng)
    goals = _sample_goals(script, rng)
    return _build(state, seat, script, cards, cities, goals)


# ---- reading the history --------------------------------------------------------------------------------
TRANSPORT, CITY, GOAL, PAYMENT = range(4)
"""Entries of a ``_Trace`` log."""


class _Trace:
    """The history read once for every seat (it holds every outcome: never shown to anyone)."""

    def __init__(self, root: CargoEmpireState) -> None:
        self.deck = list(root.deck)
        self.hands = [list(h) for h in root.hands]
        self.private = [list(h) for h in root.private]
        self.revealed = [list(h) for h in root.revealed]
        self.goals = [list(h) for h in root.goals]
        self.scripts: dict[int, _Script] = {}
        """Per seat, what it knows (``_read``)."""
        self.reshuffles: list[list[int]] = []
        """The deck each reshuffle formed (the discards of that moment)."""
        self.log: list[tuple[Any, ...]] = []
        """In the order of the history: ``(TRANSPORT, index, seat, vehicle, deck number)``, ``(CITY, index, seat,
        card)``, ``(GOAL, index, seat, goal)``, ``(PAYMENT, index, seat, cards, cities whose card was not public,
        cards shown)``."""


def _trace(state: CargoEmpireState) -> _Trace:
    """The history of ``state`` replayed from its root and logged; kept on the state while its history is."""
    cached = state._trace
    if cached is not None and cached[0] == len(state.history):
        return cached[1]
    s = state.game.new_initial_state() if state._root is None else type(state)._load(state.game, state._root)
    tr = _Trace(s)
    n = state.n
    for i, action in enumerate(state.history):
        draw = s.next_draw()
        if draw is not None:
            kind, who = draw
            if kind == D.DRAW_TRANSPORT:
                if not sum(s.deck):  # this draw reshuffles the (public) discards into a new deck
                    tr.reshuffles.append(list(s.discard))
                tr.log.append((TRANSPORT, i, who, action, len(tr.reshuffles)))
            elif kind == D.DRAW_CITY:
                tr.log.append((CITY, i, who, action))
            elif kind == D.DRAW_GOAL:
                tr.log.append((GOAL, i, who, action))
        elif s.phase == PAY_PHASE:
            p = s.turn % n
            touched = tuple(c for c in (s.sel_start, s.sel_dest) if c not in s.public_cards)
            before = len(s.revealed[p])
            s.apply_checked_action(action)
            tr.log.append((PAYMENT, i, p, ALL_PAYMENTS[action - PAY_BASE], touched, tuple(s.revealed[p][before:])))
            continue
        s.apply_checked_action(action)
    state._trace = (len(state.history), tr)
    return tr


def _read(state: CargoEmpireState, seat: int) -> _Script:
    """What ``seat`` knows: the trace of the history without the outcomes it has not seen."""
    tr = _trace(state)
    known = tr.scripts.get(seat)
    if known is not None:
        return known
    sc = _Script()
    others = [p for p in range(state.n) if p != seat]
    sc.touches = {p: [] for p in others}
    sc.shown = {p: {} for p in others}
    _read_root(sc, tr, others)
    _read_log(sc, tr, seat)
    sc.final = _final_delivery(state, seat)
    root_shown = {c for p in others for c in tr.revealed[p]}
    sc.c_pool = [
        c for c in range(D.NUM_CITIES) if c not in state.public_cards and c not in state.private[seat] and c not in root_shown
    ]
    sc.g_pool = [g for g in range(D.NUM_GOALS) if g not in state.goals[seat]]
    if state.is_terminal():  # the final VP shows what the goals of every player give it
        sc.goal_vp = _final_goal_vp(state, others)
    tr.scripts[seat] = sc
    return sc


def _read_root(sc: _Script, tr: _Trace, others: Sequence[int]) -> None:
    """The other players' hands, unshown city cards and goals at the root: hidden, the first deck holds the cards."""
    deck0 = list(tr.deck)
    for p in others:
        for v in range(3):
            deck0[v] += tr.hands[p][v]
            for _ in range(tr.hands[p][v]):
                sc.events.append((SLOT, 0, p))
                sc.t_index.append(-1)
                sc.t_owner.append(p)
                sc.t_epoch.append(0)
                sc.t_true.append(v)
        hidden = [c for c in tr.private[p] if c not in tr.revealed[p]]
        sc.c_owner += [p] * len(hidden)
        sc.c_time += [-1] * len(hidden)
        sc.g_owner += [p] * len(tr.goals[p])
        sc.g_index += [-1] * len(tr.goals[p])
    sc.epochs = [deck0] + [list(d) for d in tr.reshuffles]


def _read_log(sc: _Script, tr: _Trace, seat: int) -> None:
    """The history's draws and payments: the other players' are hidden cards and conditions, the seat's own known."""
    for entry in tr.log:
        kind, i, who = entry[0], entry[1], entry[2]
        if kind == PAYMENT:
            if who != seat:
                sc.events.append((PAY, who, entry[3]))
                sc.touches[who] += [(i, c) for c in entry[4]]
                for c in entry[5]:
                    sc.shown[who][c] = i
        elif kind == TRANSPORT:
            epoch = entry[4]
            if who == seat:
                sc.epochs[epoch][entry[3]] -= 1
            else:
                sc.events.append((SLOT, epoch, who))
                sc.t_index.append(i)
                sc.t_owner.append(who)
                sc.t_epoch.append(epoch)
                sc.t_true.append(entry[3])
        elif who != seat:
            if kind == CITY:
                sc.c_owner.append(who)
                sc.c_time.append(i)
            else:
                sc.g_owner.append(who)
                sc.g_index.append(i)


def _final_delivery(s: CargoEmpireState, seat: int) -> tuple[int, tuple[Payment, ...]] | None:
    """Another player in the middle of a delivery and the payments one of which its hand holds (else None)."""
    player = s.turn % s.n
    if s.over or player == seat or s.phase not in (DEST, PAY_PHASE):
        return None
    start = s.sel_start
    if s.phase == DEST:
        colour = s.colour(start)
        dests = [d for d in range(D.NUM_CITIES) if d != start and s.open_demand(d, colour) >= 0]
        payments = sorted({p for d in dests for p in legal_payments(start, d)})
    else:
        payments = list(legal_payments(start, s.sel_dest))
    if not _payable(s.hands[player], payments):  # the position was built so (no move is legal)
        return None
    return (player, tuple(payments))


def _final_goal_vp(s: CargoEmpireState, others: Sequence[int]) -> dict[int, tuple[int, list[int]]]:
    """Per other player at the end: the VP of its goals and the VP each goal would give it."""
    goal_vp = {}
    for p in others:
        cities = s.cities_of(p)
        lv3 = [c for c in cities if s.level[c] == 3]
        worth = [D.GOALS[g][2] if goal_fulfilled(g, cities, lv3, s.tracks[p], s.perfect[p]) else 0 for g in range(D.NUM_GOALS)]
        goal_vp[p] = (sum(worth[g] for g in s.goals[p]), worth)
    return goal_vp


# ---- transport cards ------------------------------------------------------------------------------------
def _payable(hand: Sequence[int], payments: Sequence[Payment]) -> bool:
    return any(q[0] <= hand[0] and q[1] <= hand[1] and q[2] <= hand[2] for q in payments)


def _sample_transport(sc: _Script, n: int, rng: np.random.Generator) -> list[int]:
    """A vehicle for each hidden transport card (``SLOT`` order)."""
    if not sc.t_owner:
        return []
    cards = _exact(sc, rng)
    if cards is not None:
        return cards
    plan = sc.cache.get("plan")
    if plan is None:
        plan = sc.cache["plan"] = _Plan(sc, n)
    for _ in range(GUIDED_TRIES):
        guided = plan.guided(rng)
        if guided is not None:
            plan.polish(guided, rng)
            return guided[: len(sc.t_owner)]
    return list(sc.t_true)  # last resort, not met in random games of any size: the cards as they are


def _exact(sc: _Script, rng: np.random.Generator) -> list[int] | None:
    """Rejection from the deck's odds: each deck shuffled, its cards dealt to its hidden draws in turn, until
    every payment and the delivery in progress can be made with the hands this gives (``EXACT_TRIES`` deals,
    checked ``EXACT_BATCH`` at a time; the first that passes is the one kept). None if none passes."""
    setup = sc.cache.get("exact")
    if setup is None:
        setup = sc.cache["exact"] = _exact_setup(sc)
    slots, pools, where, rows, need, final = setup
    for _ in range(EXACT_TRIES // EXACT_BATCH):
        cards = np.empty((EXACT_BATCH, slots), dtype=np.int64)
        for e, pool in enumerate(pools):
            if len(where[e]):
                deals = rng.permuted(np.broadcast_to(pool, (EXACT_BATCH, len(pool))), axis=1)
                cards[:, where[e]] = deals[:, : len(where[e])]
        held = (cards[:, None, :] == np.arange(3)[None, :, None]).astype(np.float32)  # batch x vehicle x slot
        ok = (held @ rows.T >= need.T[None]).all(axis=(1, 2))
        if final is not None:
            hand = held @ final[0] - final[1][None]
            ok &= (hand[:, None, :] >= final[2][None]).all(axis=2).any(axis=1)
        passed = np.flatnonzero(ok)
        if len(passed):
            return cards[passed[0]].tolist()
    return None


def _exact_setup(sc: _Script) -> tuple[Any, ...]:
    """The decks, where their cards go, and one row per payment of another player: its hidden cards before
    the payment and what it has paid so far (with the delivery in progress, if any)."""
    slots = len(sc.t_owner)
    epochs = np.array(sc.t_epoch)
    owners = np.array(sc.t_owner)
    pools = [np.repeat(np.arange(3), e) for e in sc.epochs]
    where = [np.flatnonzero(epochs == e) for e in range(len(pools))]
    # one row per payment of another player: its slots before the payment, and what it paid so far
    before: list[np.ndarray] = []
    paid: list[list[int]] = []
    total = {p: [0, 0, 0] for p in set(sc.t_owner) | {a for kind, a, _ in sc.events if kind == PAY}}
    seen = np.zeros(slots, dtype=bool)
    slot = 0
    for kind, a, b in sc.events:
        if kind == SLOT:
            seen[slot] = True
            slot += 1
            continue
        total[a] = [total[a][v] + b[v] for v in range(3)]
        before.append(seen & (owners == a))
        paid.append(total[a])
    rows = np.array(before, dtype=np.float32).reshape(len(before), slots)
    need = np.array(paid, dtype=np.float32).reshape(len(paid), 3)
    final = None
    if sc.final is not None:
        p = sc.final[0]
        final = ((owners == p).astype(np.float32), np.array(total.get(p, [0, 0, 0])), np.array(sc.final[1]))
    return slots, pools, where, rows, need, final


class _Plan:
    """The guided draw and the swap chain: the transport events split by player."""

    def __init__(self, sc: _Script, n: int) -> None:
        self.sc = sc
        self.n = n
        self.mine: list[list[tuple[int, Any]]] = [[] for _ in range(n)]
        """Per player: its events in order, ``(SLOT, slot number)`` or ``(PAY, cards)``."""
        slot = 0
        for kind, a, b in sc.events:
            p = b if kind == SLOT else a
            if kind == SLOT:
                self.mine[p].append((SLOT, slot))
                slot += 1
            else:
                self.mine[p].append((PAY, b))
        self.slot_epoch = sc.t_epoch
        self.last = len(sc.epochs) - 1
        self.still_paid: list[list[int]] = [[0, 0, 0]]
        """Per event (from the last): the cards of each vehicle the other players pay from that event on."""
        for kind, _, b in reversed(sc.events):
            after = self.still_paid[-1]
            self.still_paid.append([after[v] + b[v] for v in range(3)] if kind == PAY else after)
        self.still_paid.reverse()
        self.players = [p for p in range(n) if self.mine[p]]
        self._needs_memo: dict[tuple[int, ...], bool] = {}
        self._peak_memo: dict[tuple[int, int, int, int], int] = {}

    def _needs(self, p: int, k: int, hand: Sequence[int]) -> bool:
        """Can ``p``'s events from position ``k`` on be met, holding ``hand``, with its later cards whatever
        they are (each card needed by a payment drawn before it)?"""
        key = (p, k, hand[0], hand[1], hand[2])
        known = self._needs_memo.get(key)
        if known is not None:
            return known
        slots = 0
        paid = [0, 0, 0]
        ok = True
        for kind, x in self.mine[p][k:]:
            if kind == SLOT:
                slots += 1
                continue
            for v in range(3):
                paid[v] += x[v]
            if sum(max(0, paid[v] - hand[v]) for v in range(3)) > slots:
                ok = False
                break
        final = self.sc.final
        if ok and final is not None and final[0] == p:
            ok = any(sum(max(0, paid[v] + q[v] - hand[v]) for v in range(3)) <= slots for q in final[1])
        self._needs_memo[key] = ok
        return ok

    def _deck_peak(self, q: int, k: int, epoch: int, v: int) -> int:
        """The cards of vehicle ``v`` that ``q``'s payments from position ``k`` on need beyond what its draws
        from decks after ``epoch`` can give (at most its draws from each before the payment, at most that
        deck's cards of ``v``): what it must hold or still draw from deck ``epoch`` (the most over its payments)."""
        key = (q, k, epoch, v)
        known = self._peak_memo.get(key)
        if known is not None:
            return known
        paid = 0
        peak = 0
        later = [0] * len(self.sc.epochs)
        supply = [e[v] for e in self.sc.epochs]
        for kind, x in self.mine[q][k:]:
            if kind == SLOT:
                f = self.slot_epoch[x]
                if f > epoch:
                    later[f] += 1
                continue
            if x[v]:
                paid += x[v]
                peak = max(peak, paid - sum(min(later[f], supply[f]) for f in range(epoch + 1, len(later))))
        self._peak_memo[key] = peak
        return peak

    def _supply(self, epoch: int, v: int, left: int, hands: list[list[int]], nxt: list[int]) -> bool:
        """Are there enough cards of ``v`` left in deck ``epoch`` for what every player must still draw from it?"""
        need = 0
        for q in self.players:
            need += max(0, self._deck_peak(q, nxt[q], epoch, v) - hands[q][v])
            if need > left:
                return False
        return True

    def guided(self, rng: np.random.Generator) -> list[int] | None:
        """Each hidden card drawn with the deck's odds among the vehicles that keep every condition
        possible (see ``_needs``, ``_supply``); None at a dead end. Returns the cards, then the current
        deck's leftover cards."""
        sc = self.sc
        left = [list(e) for e in sc.epochs]
        hands = [[0, 0, 0] for _ in range(self.n)]
        nxt = [0] * self.n
        cards: list[int] = []
        for i, (kind, a, b) in enumerate(sc.events):
            if kind == SLOT:
                e, p = a, b
                nxt[p] += 1
                weights = [0, 0, 0]
                for v in range(3):
                    if not left[e][v]:
                        continue
                    hands[p][v] += 1
                    left[e][v] -= 1
                    if self._needs(p, nxt[p], hands[p]) and (
                        left[e][v] >= self.still_paid[i][v] or self._supply(e, v, left[e][v], hands, nxt)
                    ):
                        weights[v] = left[e][v] + 1
                    hands[p][v] -= 1
                    left[e][v] += 1
                total = sum(weights)
                if not total:
                    return None
                u = rng.random() * total
                v = 0 if u < weights[0] else 1 if u < weights[0] + weights[1] else 2
                hands[p][v] += 1
                left[e][v] -= 1
                cards.append(v)
            else:
                p = a
                nxt[p] += 1
                for v in range(3):
                    hands[p][v] -= b[v]
                    if hands[p][v] < 0:
                        return None
        if sc.final is not None and not _payable(hands[sc.final[0]], sc.final[1]):
            return None
        return cards + [v for v in range(3) for _ in range(left[self.last][v])]

    def _valid(self, p: int, cards: Sequence[int]) -> bool:
        hand = [0, 0, 0]
        for kind, x in self.mine[p]:
            if kind == SLOT:
                hand[cards[x]] += 1
                continue
            for v in range(3):
                hand[v] -= x[v]
                if hand[v] < 0:
                    return False
        final = self.sc.final
        return final is None or final[0] != p or _payable(hand, final[1])

    def polish(self, cards: list[int], rng: np.random.Generator) -> None:
        """Swap two cards of the same deck (hidden cards, and the current deck's leftover cards after them),
        keeping each swap iff every condition still holds; the uniform redeal is the chain's stationary law."""
        groups: list[list[int]] = [[] for _ in self.sc.epochs]
        for i, e in enumerate(self.slot_epoch):
            groups[e].append(i)
        groups[self.last] += list(range(len(self.slot_epoch), len(cards)))
        owner = self.sc.t_owner
        positions = len(cards)
        for _ in range(POLISH_SWEEPS * positions):
            i = int(rng.integers(positions))
            group = groups[self.slot_epoch[i] if i < len(self.slot_epoch) else self.last]
            j = group[int(rng.integers(len(group)))]
            if cards[i] == cards[j]:
                continue
            cards[i], cards[j] = cards[j], cards[i]
            touched = {owner[x] for x in (i, j) if x < len(owner)}
            if not all(self._valid(p, cards) for p in touched):
                cards[i], cards[j] = cards[j], cards[i]


# ---- city cards and goals -------------------------------------------------------------------------------
def _sample_cities(sc: _Script, rng: np.random.Generator) -> list[int]:
    """A card for each hidden city card draw, uniform over the assignments the shown cards and the bonus
    moves allow (a count over the subsets of the pool)."""
    m = len(sc.c_owner)
    if not m:
        return []
    setup = sc.cache.get("cities")
    if setup is None:
        setup = sc.cache["cities"] = _cities_setup(sc)
    pool, bit, masks, ways = setup
    out = []
    used = 0
    for j in range(m):
        options = [(c, ways(j + 1, used | bit[c])) for c in pool if masks[j] & bit[c] and not used & bit[c]]
        weights = np.array([w for _, w in options], dtype=np.float64)
        c = options[int(rng.choice(len(options), p=weights / weights.sum()))][0]
        out.append(c)
        used |= bit[c]
    return out


def _cities_setup(sc: _Script) -> tuple[Any, ...]:
    """The pool of cards, the cards each draw may be, and the count of the assignments still possible."""
    m = len(sc.c_owner)
    pool = sc.c_pool
    bit = {c: 1 << i for i, c in enumerate(pool)}
    shown_by = {c: p for p, cards in sc.shown.items() for c in cards}
    must = sum(bit[c] for c in shown_by)

    def allowed(p: int, t: int, c: int) -> bool:
        if shown_by.get(c, p) != p:
            return False
        later = [when for when, city in sc.touches[p] if city == c and when > t]
        first = min(later) if later else None
        return first == sc.shown[p].get(c)

    masks = [sum(bit[c] for c in pool if allowed(p, t, c)) for p, t in zip(sc.c_owner, sc.c_time, strict=True)]

    @cache
    def ways(j: int, used: int) -> int:
        if j == m:
            return int(must & ~used == 0)
        free = masks[j] & ~used
        total = 0
        while free:
            low = free & -free
            total += ways(j + 1, used | low)
            free ^= low
        return total

    if not ways(0, 0):
        raise RuntimeError("resample_hidden: no redeal of the city cards meets what the seat has seen")
    return pool, bit, masks, ways


def _sample_goals(sc: _Script, rng: np.random.Generator) -> list[int]:
    """A goal for each hidden goal draw: uniform; at the end of the game, uniform among the goals that give
    every player the VP its final score shows."""
    m = len(sc.g_owner)
    if not m:
        return []
    pool = sc.g_pool
    if sc.goal_vp is None:
        return [pool[i] for i in rng.permutation(len(pool))[:m].tolist()]
    goal_vp = sc.goal_vp
    players = sorted(set(sc.g_owner))
    counts = [sc.g_owner.count(p) for p in players]

    def subsets(k: int, free: tuple[int, ...], p: int) -> list[tuple[int, ...]]:
        target, worth = goal_vp[p]
        return [c for c in combinations(free, k) if sum(worth[g] for g in c) == target]

    @cache
    def ways(i: int, free: tuple[int, ...]) -> int:
        if i == len(players):
            return 1
        return sum(ways(i + 1, tuple(g for g in free if g not in c)) for c in subsets(counts[i], free, players[i]))

    free = tuple(pool)
    if not ways(0, free):
        raise RuntimeError("resample_hidden: no redeal of the goals meets the final scores")
    hands: dict[int, list[int]] = {}
    for i, p in enumerate(players):
        options = subsets(counts[i], free, p)
        weights = np.array([ways(i + 1, tuple(g for g in free if g not in c)) for c in options], dtype=np.float64)
        chosen = options[int(rng.choice(len(options), p=weights / weights.sum()))]
        hands[p] = [chosen[k] for k in rng.permutation(len(chosen)).tolist()]
        free = tuple(g for g in free if g not in chosen)
    return [hands[p].pop() for p in sc.g_owner]


# ---- the new state --------------------------------------------------------------------------------------
def _build(
    state: CargoEmpireState, seat: int, sc: _Script, cards: list[int], cities: list[int], goals: list[int]
) -> CargoEmpireState:
    """``state`` with the redealt outcomes written into its history and its hidden fields set to what
    replaying that history from the (redealt) root gives; the tests check both agree."""
    new = state.clone()
    new._trace = None
    history = new.history
    others = [p for p in range(state.n) if p != seat]
    hands = {p: [0, 0, 0] for p in others}
    root_hands = {p: [0, 0, 0] for p in others}
    deck = list(sc.epochs[-1])
    last = len(sc.epochs) - 1
    for p, i, e, v in zip(sc.t_owner, sc.t_index, sc.t_epoch, cards, strict=True):
        hands[p][v] += 1
        if i >= 0:
            history[i] = v
        else:
            root_hands[p][v] += 1
        if e == last:
            deck[v] -= 1
    for kind, a, b in sc.events:
        if kind == PAY:
            for v in range(3):
                hands[a][v] -= b[v]
    root_cities: dict[int, list[int]] = {p: [] for p in others}
    drawn_cities: dict[int, list[int]] = {p: [] for p in others}
    for p, t, c in zip(sc.c_owner, sc.c_time, cities, strict=True):
        if t >= 0:
            history[t] = c
            drawn_cities[p].append(c)
        else:
            root_cities[p].append(c)
    root_goals: dict[int, list[int]] = {p: [] for p in others}
    drawn_goals: dict[int, list[int]] = {p: [] for p in others}
    for p, i, g in zip(sc.g_owner, sc.g_index, goals, strict=True):
        if i >= 0:
            history[i] = g
            drawn_goals[p].append(g)
        else:
            root_goals[p].append(g)
    tr = _trace(state)
    for p in others:
        new.hands[p] = hands[p]
        new.private[p] = [c for c in tr.private[p] if c in tr.revealed[p]] + root_cities[p] + drawn_cities[p]
        new.goals[p] = root_goals[p] + drawn_goals[p]
    new.deck = deck
    held = set(new.public_cards) | {c for h in new.private for c in h}
    new.city_deck = [c for c in range(D.NUM_CITIES) if c not in held]
    dealt = {g for h in new.goals for g in h}
    new.goal_deck = [g for g in range(D.NUM_GOALS) if g not in dealt]
    if state._root is not None:
        new._root = _redealt_root(state._root, seat, root_hands, root_cities, root_goals)
    return new


def _redealt_root(
    root: dict[str, Any],
    seat: int,
    cards: dict[int, list[int]],
    cities: dict[int, list[int]],
    goals: dict[int, list[int]],
) -> dict[str, Any]:
    """The root position with the other players' hands, unshown city cards and goals (and the decks) redealt."""
    pos = dict(root)
    n = root["num_players"]
    others = [p for p in range(n) if p != seat]
    hands = [list(h) for h in root["hands"]]
    deck = list(root["deck"])
    for p in others:
        for v in range(3):
            deck[v] += hands[p][v]
        hands[p] = cards.get(p, [0, 0, 0])
        for v in range(3):
            deck[v] -= hands[p][v]
    private = [list(h) for h in root["private"]]
    for p in others:
        private[p] = [c for c in private[p] if c in root["revealed"][p]] + cities.get(p, [])
    held = {c for h in private for c in h} | set(root["public_cards"])
    own_goals = [list(h) for h in root["goals"]]
    for p in others:
        own_goals[p] = goals.get(p, [])
    dealt = {g for h in own_goals for g in h}
    pos.update(
        hands=hands,
        deck=deck,
        private=private,
        city_deck=[c for c in range(D.NUM_CITIES) if c not in held],
        goals=own_goals,
        goal_deck=[g for g in range(D.NUM_GOALS) if g not in dealt],
    )
    return pos
