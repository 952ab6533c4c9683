"""Every component of Cargo Empire in one place: map, city tiles, decks, tracks, goals, counts.

The published game's map, tiles, decks, branching development tracks and goal cards are not described
in any public text; the values below are our proposed component set (see ``docs/rules/cargo_empire.md``,
"Readings taken"). A later correction of a component is a change to this module only: the engine, the
route module, the observation and the renderer read everything from here.
"""

from __future__ import annotations

# ---- map ---------------------------------------------------------------------------------------------
CITIES: tuple[str, ...] = (
    "Lisbon",
    "Madrid",
    "Marseille",
    "Paris",
    "London",
    "Amsterdam",
    "Hamburg",
    "Copenhagen",
    "Berlin",
    "Warsaw",
    "Vienna",
    "Rome",
)
NUM_CITIES = len(CITIES)
PORTS: frozenset[int] = frozenset({0, 2, 4, 6, 7, 11})
"""Lisbon, Marseille, London, Hamburg, Copenhagen, Rome: a ship moves between any two of them."""

RAILROADS: tuple[tuple[int, int], ...] = (
    (0, 1),  # Lisbon-Madrid
    (1, 2),  # Madrid-Marseille
    (1, 3),  # Madrid-Paris
    (2, 3),  # Marseille-Paris
    (2, 11),  # Marseille-Rome
    (3, 4),  # Paris-London
    (3, 5),  # Paris-Amsterdam
    (3, 10),  # Paris-Vienna
    (5, 6),  # Amsterdam-Hamburg
    (5, 8),  # Amsterdam-Berlin
    (6, 7),  # Hamburg-Copenhagen
    (6, 8),  # Hamburg-Berlin
    (8, 9),  # Berlin-Warsaw
    (8, 10),  # Berlin-Vienna
    (9, 10),  # Warsaw-Vienna
    (10, 11),  # Vienna-Rome
)
"""Undirected railroad tracks between adjacent cities."""

MAP_XY: tuple[tuple[float, float], ...] = (
    (0.00, 0.92),  # Lisbon
    (0.20, 0.74),  # Madrid
    (0.42, 0.78),  # Marseille
    (0.30, 0.50),  # Paris
    (0.08, 0.30),  # London
    (0.42, 0.28),  # Amsterdam
    (0.64, 0.12),  # Hamburg
    (0.86, 0.00),  # Copenhagen
    (0.78, 0.34),  # Berlin
    (1.00, 0.24),  # Warsaw
    (0.72, 0.60),  # Vienna
    (0.62, 0.94),  # Rome
)
"""Where each city is drawn (fractions of the map's width and height); used by the renderer only."""

# ---- cargo -------------------------------------------------------------------------------------------
COLOURS: tuple[str, ...] = ("Brown", "White", "Grey", "Orange")
NUM_COLOURS = len(COLOURS)
CUBE_SUPPLY = 15
"""Cubes of each colour in the supply (never runs out: at most 12 refills of 3 happen in a game)."""

# ---- city tiles --------------------------------------------------------------------------------------
LV1_CUBES = 2
LV2_CUBES = 3
MAX_CUBES = LV2_CUBES


def _tiles() -> tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]:
    out = []
    for colour in range(NUM_COLOURS):
        others = [c for c in range(NUM_COLOURS) if c != colour]
        for skip in reversed(others):  # pairs of the other three colours
            pair = tuple(c for c in others if c != skip)
            out.append((colour, pair, tuple(others)))
    return tuple(out)


TILES: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...] = _tiles()
"""12 two-sided city tiles: (production colour, LV1 demand colours, LV2 demand colours). For each colour X
three tiles whose LV1 side demands one of the three pairs of the other colours; the LV2 side demands
each of the other three colours once. LV1 starts with 2 cubes of X; flipping to LV2 refills to 3."""
NUM_TILES = len(TILES)
MAX_DEMANDS = max(len(t[2]) for t in TILES)

# ---- trading posts -----------------------------------------------------------------------------------
START_POSTS = 2
"""Starting posts per player, placed in the side areas of two distinct random cities."""


def board_posts(num_players: int) -> int:
    """Posts on each player's board: one per turn of the game (12, or 9 with 5 players)."""
    return ROUNDS * turns_per_round(num_players)


# ---- structure ---------------------------------------------------------------------------------------
ROUNDS = 3


def turns_per_round(num_players: int) -> int:
    return 3 if num_players >= 5 else 4


# ---- transport cards ---------------------------------------------------------------------------------
VEHICLES: tuple[str, ...] = ("Truck", "Train", "Ship")
TRUCK, TRAIN, SHIP = 0, 1, 2
TRANSPORT_DECK: tuple[int, int, int] = (24, 16, 8)
"""Copies of Truck, Train, Ship in the transport deck (48 cards)."""
DECK_SIZE = sum(TRANSPORT_DECK)
START_HAND = 5
ROUND_END_DRAW = 3
"""Transport cards every player draws after rounds 1 and 2."""
PASS_DRAW = 2
"""Transport cards a passing player draws (and one post of his board goes back to the box)."""
MOVES_PER_CARD: tuple[int, int, int] = (1, 1, 2)
"""Development moves of each card used: Truck +1 on the Truck track, Train +1, Ship +2."""

# ---- city cards --------------------------------------------------------------------------------------
NUM_PUBLIC_CARDS = 4
"""One city card per city; 4 are dealt face up (public), the rest form the city deck (private draws)."""

# ---- development tracks ------------------------------------------------------------------------------
TRACK_MAX = 12
DRAW_TRANSPORT, DRAW_CITY, DRAW_GOAL = "transport", "city", "goal"
TRACK_REWARDS: dict[int, tuple[str, ...]] = {
    2: (DRAW_TRANSPORT,),
    4: (DRAW_CITY,),
    6: (DRAW_TRANSPORT, DRAW_TRANSPORT),
    8: (DRAW_GOAL,),
    10: (DRAW_CITY,),
}
"""Reward of each space, taken once per player and track when the marker enters (or passes) it."""
TRACK_VP: tuple[int, ...] = (0, 0, 0, 0, 2, 2, 2, 5, 5, 5, 8, 8, 12)
"""End-game VP of a marker by its final space 0..12."""

# ---- scoring -----------------------------------------------------------------------------------------
VP_PER_LV3_POST = 3
VP_PER_PRIVATE_CARD = 5

# ---- goal cards --------------------------------------------------------------------------------------
# kinds: ("ports", n), ("lv3", n), ("cities", n), ("track", vehicle, space), ("pair", a, b), ("perfect", n)
GOALS: tuple[tuple[str, tuple[object, ...], int, str], ...] = (
    ("G1", ("ports", 3), 5, "posts in at least 3 different port cities"),
    ("G2", ("lv3", 2), 6, "posts in at least 2 LV3 cities"),
    ("G3", ("cities", 8), 6, "posts in at least 8 different cities"),
    ("G4", ("track", TRUCK, 8), 4, "Truck marker on 8 or more"),
    ("G5", ("track", TRAIN, 8), 4, "Train marker on 8 or more"),
    ("G6", ("track", SHIP, 8), 4, "Ship marker on 8 or more"),
    ("G7", ("pair", 0, 7), 5, "posts in Lisbon and Copenhagen"),
    ("G8", ("pair", 4, 9), 5, "posts in London and Warsaw"),
    ("G9", ("pair", 11, 6), 5, "posts in Rome and Hamburg"),
    ("G10", ("perfect", 2), 6, "caused at least 2 Perfect Upgrades"),
)
"""Goal cards: (name, condition, VP, text). Hidden, scored at the end if fulfilled."""
NUM_GOALS = len(GOALS)
START_GOALS = 1

MAX_PLAYERS = 5
