"""Routes and payments of a delivery: a pure module (no game state), computed from ``data``.

* Land graph G: the railroad tracks. Extended graph G': G plus one "ship jump" between every two ports.
* A route from S to D is allowed iff it is a path of G' with the fewest steps (s*), or a land-only path
  with the fewest edges of G (d_land): the land-route exception.
* Payment: one Ship card per ship jump; each maximal land segment is split into consecutive legs of one
  edge (Truck or Train) or two edges (Train). Every card given is a leg.
* No overpaying: a payment (a multiset of cards) is legal iff it pays an allowed route and no proper
  sub-multiset of it pays that same route.

Only the *shape* of a route matters for payment: the lengths of its land segments and its ship jumps.
A shortest path of G' has at most one ship jump (two jumps could be replaced by one), so a shape is
``(L,)`` (land only) or ``(L1, L2)`` (L1 land edges, a ship jump, L2 land edges). A payment is a triple
``(trucks, trains, ships)``.
"""

from __future__ import annotations

import functools
import itertools
from collections import deque
from collections.abc import Iterator

from gameshelf.envs.cargo_empire.data import NUM_CITIES, PORTS, RAILROADS

Payment = tuple[int, int, int]
Shape = tuple[int, ...]

NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({b for a, b in RAILROADS if a == c} | {a for a, b in RAILROADS if b == c})) for c in range(NUM_CITIES)
)


def _bfs(start: int) -> list[int]:
    dist = [-1] * NUM_CITIES
    dist[start] = 0
    queue = deque([start])
    while queue:
        c = queue.popleft()
        for n in NEIGHBOURS[c]:
            if dist[n] < 0:
                dist[n] = dist[c] + 1
                queue.append(n)
    return dist


LAND_DIST: tuple[tuple[int, ...], ...] = tuple(tuple(_bfs(c)) for c in range(NUM_CITIES))
"""Shortest number of railroad edges between two cities (every city is reachable by land)."""


def steps_distance(s: int, d: int) -> int:
    """s*: fewest steps from ``s`` to ``d`` in G' (land edges and ship jumps)."""
    best = LAND_DIST[s][d]
    for p in PORTS:
        for q in PORTS:
            if p != q:
                best = min(best, LAND_DIST[s][p] + 1 + LAND_DIST[q][d])
    return best


def route_shapes(s: int, d: int) -> frozenset[Shape]:
    """The shapes of all allowed routes from ``s`` to ``d`` (``s != d``)."""
    if s == d:
        return frozenset()
    star = steps_distance(s, d)
    shapes: set[Shape] = {(LAND_DIST[s][d],)}  # the land-route exception (also a shortest G' path if equal)
    for p in PORTS:
        for q in PORTS:
            if p != q and LAND_DIST[s][p] + 1 + LAND_DIST[q][d] == star:
                shapes.add((LAND_DIST[s][p], LAND_DIST[q][d]))
    return frozenset(shapes)


def _segment_pays(length: int, trucks: int, trains: int) -> bool:
    """Can exactly these cards be the legs of one land segment of ``length`` edges?"""
    return trucks + trains <= length <= trucks + 2 * trains


def pays(shape: Shape, payment: Payment) -> bool:
    """Does ``payment`` (every card a leg) pay a route of this shape exactly?"""
    trucks, trains, ships = payment
    if len(shape) == 1:
        return ships == 0 and _segment_pays(shape[0], trucks, trains)
    if ships != 1:
        return False
    first, second = shape
    for t1 in range(trucks + 1):
        for r1 in range(trains + 1):
            if _segment_pays(first, t1, r1) and _segment_pays(second, trucks - t1, trains - r1):
                return True
    return False


def _sub_multisets(payment: Payment) -> Iterator[Payment]:
    t, r, s = payment
    for a in range(t + 1):
        for b in range(r + 1):
            for c in range(s + 1):
                if (a, b, c) != payment:
                    yield (a, b, c)


def is_minimal(shape: Shape, payment: Payment) -> bool:
    """``payment`` pays ``shape`` and no proper sub-multiset of it does (no overpaying)."""
    return pays(shape, payment) and not any(pays(shape, sub) for sub in _sub_multisets(payment))


def minimal_payments_for_shape(shape: Shape) -> list[Payment]:
    land = sum(shape)
    ships = len(shape) - 1
    out = []
    for trucks in range(land + 1):
        for trains in range(land + 1 - trucks):
            p = (trucks, trains, ships)
            if is_minimal(shape, p):
                out.append(p)
    return out


@functools.cache
def legal_payments(s: int, d: int) -> tuple[Payment, ...]:
    """Every legal payment (before looking at a hand) of a delivery from ``s`` to ``d``, sorted."""
    found: set[Payment] = set()
    for shape in route_shapes(s, d):
        found.update(minimal_payments_for_shape(shape))
    return tuple(sorted(found))


def allowed_routes(s: int, d: int) -> list[tuple[int, ...]]:
    """Explicit allowed routes as city sequences (for tests and display); consecutive cities that are
    not rail-adjacent are joined by a ship jump (a ship jump between rail-adjacent ports is written as
    the same sequence: both routes are allowed)."""
    if s == d:
        return []
    star = steps_distance(s, d)
    land = LAND_DIST[s][d]
    out: set[tuple[int, ...]] = set()

    def extend(path: tuple[int, ...], budget: int, land_only: bool) -> None:
        c = path[-1]
        if c == d:
            out.add(path)
            return
        if budget == 0:
            return
        options = set(NEIGHBOURS[c])
        if not land_only and c in PORTS:
            options |= PORTS - {c}
        for n in options:
            if n not in path:
                extend((*path, n), budget - 1, land_only)

    extend((s,), star, False)
    extend((s,), land, True)
    # keep only paths of exactly the right length
    return sorted(p for p in out if len(p) - 1 == star or (len(p) - 1 == land and _is_land_path(p)))


def _is_land_path(path: tuple[int, ...]) -> bool:
    return all(b in NEIGHBOURS[a] for a, b in itertools.pairwise(path))


MAX_LAND = max(max(row) for row in LAND_DIST)
"""Longest shortest land distance on the map: bounds the cards of one payment."""
ALL_PAYMENTS: tuple[Payment, ...] = tuple(
    sorted({p for s in range(NUM_CITIES) for d in range(NUM_CITIES) for p in legal_payments(s, d)})
)
"""Every payment legal for some pair of cities: the payment actions, in this order."""
