"""Cargo Empire's rules as compiled kernels over a flat ``int16`` state row: the one implementation of the rules.

``CargoEmpireState`` (``game.py``) is a view over one row (a one-row matrix); ``gameshelf.vector`` steps a
matrix of them. Every function takes the matrix ``S`` and the row ``i`` (see ``envs.core.kernel``, which lists
what a kernel module provides), is compiled by numba and also runs as plain Python. Seats are padded to five,
cities are 0..11 (``data.CITIES``), vehicles Truck, Train, Ship. The row is declared once, as ``ROW`` below
(fields, offsets, bounds; ``envs.core.row``):

{row_table}

A variable-length list is a length and its items in order, zeros after them (the city and goal decks keep
the order they were dealt in). A pending draw (``queue``, ``rewards``) is one code, ``queue_entry(kind, who)``
(kinds in ``actions.DRAW_KINDS`` order; ``who``: the city of a tile draw, -1 for a public card, else the
seat), read back with ``queue_kind`` and ``queue_who``. The drivers (chance resolution, random playouts, the
batch steps) are the template's, in ``envs.core.kernel``.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.cargo_empire import data as D
from gameshelf.envs.cargo_empire.actions import BONUS_BASE, DEST_BASE, NUM_ACTIONS, PASS, PAY_BASE
from gameshelf.envs.cargo_empire.observation import HAND_LEVELS, LAYOUT, POSTS_SCALE, VP_SCALE
from gameshelf.envs.cargo_empire.routes import ALL_PAYMENTS, legal_payments
from gameshelf.envs.core.game import CHANCE, TERMINAL
from gameshelf.envs.core.kernel import below, jit, jit_helper, rank_outcomes
from gameshelf.envs.core.row import RowLayout

C = D.NUM_CITIES
MP = D.MAX_PLAYERS
G = D.NUM_GOALS
NPAY = len(ALL_PAYMENTS)

NUM_ACTS = NUM_ACTIONS
START, DEST, PAY, BONUS = 0, 1, 2, 3
"""Decision steps (``PHASE``)."""
K_TILE, K_PUBLIC, K_STARTPOST, K_TRANSPORT, K_CITY, K_GOAL = 0, 1, 2, 3, 4, 5
"""Kinds of chance draws (``actions.DRAW_KINDS`` order)."""


# ---- the code of a pending draw ----------------------------------------------------------------------------
@jit_helper
def queue_entry(kind: int, who: int) -> int:
    """The code of a pending draw (``queue`` and ``rewards`` entries; 0 is an empty slot): ``who`` is -1..14."""
    return 16 * kind + who + 1


@jit_helper
def queue_kind(code: int) -> int:
    """The kind of the pending draw ``code`` (``actions.DRAW_KINDS`` order)."""
    return code // 16


@jit_helper
def queue_who(code: int) -> int:
    """Who the pending draw ``code`` is for: the city of a tile draw, -1 for a public card, else the seat."""
    return code % 16 - 1


MAX_ENTRY = queue_entry.py_func(K_GOAL, MP - 1)  # type: ignore[attr-defined]
"""The largest code a pending draw has (the plain function: importing the kernel compiles nothing)."""
TURNS_PER_ROUND = max(n * D.turns_per_round(n) for n in range(1, MP + 1))
"""The most turns a round has (all players together)."""
MAX_DECISIONS = D.ROUNDS * TURNS_PER_ROUND * 6
"""The most player decisions a game has: every turn a delivery of 6 (start, destination, payment, 3 bonus moves)."""
MAX_POSTS = D.START_POSTS + max(D.board_posts(n) for n in range(1, MP + 1))
"""The most posts a player has in all."""
MAX_CARDS = max(D.TRANSPORT_DECK)
"""The most transport cards of one vehicle."""
QMAX = 64
"""Room for pending draws: 56 at most at the start (five players), 51 at most later."""
RMAX = 36
"""Room for the rewards of a delivery (18 at most in a game: 6 per track)."""

# ---- the row -------------------------------------------------------------------------------------------
ROW = RowLayout("cargo_empire")
NP = ROW.add("num_players", 1, "number of players (an option)", (1, MP), fill=2)
ROUND = ROW.add("round", 1, "0-based round", (0, D.ROUNDS - 1))
TURN = ROW.add("turn", 1, "turns taken this round (all players); the player to move is turn % n", (0, TURNS_PER_ROUND))
PHASE = ROW.add("phase", 1, "decision step: START / DEST / PAY / BONUS (actions.PHASES order)", (START, BONUS))
SEL_START = ROW.add("sel_start", 1, "start city of the delivery in progress (-1: none)", (-1, C - 1), fill=-1)
SEL_DEST = ROW.add("sel_dest", 1, "destination of the delivery in progress (-1: none)", (-1, C - 1), fill=-1)
SEL_PAY = ROW.add("sel_payment", 1, "payment made, index in routes.ALL_PAYMENTS (-1: none)", (-1, NPAY - 1), fill=-1)
BONUS_LEFT = ROW.add("bonus_left", 1, "bonus moves still to allocate", (0, 3))
OVER = ROW.flag("over", "the game is over")
DECISIONS = ROW.add("decisions", 1, "player decisions made (the batched environment's truncation counter)", (0, MAX_DECISIONS))
QLEN = ROW.add("queue_len", 1, "pending chance draws", (0, QMAX))
QUEUE = ROW.add("queue", QMAX, "pending chance draws in order, queue_entry(kind, who)", (0, MAX_ENTRY))
RLEN = ROW.add("rewards_len", 1, "track rewards of the delivery in progress", (0, RMAX))
REWARDS = ROW.add("rewards", RMAX, "track rewards of the delivery in progress, coded like the queue", (0, MAX_ENTRY))
TILE = ROW.add("tile", C, "per city: its tile (-1: none)", (-1, D.NUM_TILES - 1), fill=-1)
LEVEL = ROW.add("level", C, "per city: 0 before its tile is placed, then 1, 2, 3 (LV3: no tile)", (0, 3))
CUBES = ROW.add("cubes", C, "per city: cubes on its tile", (0, D.MAX_CUBES))
DEMAND = ROW.add("demand", (C, 3), "per city: owner of each demand space of its side (-1: empty, none)", (-1, MP - 1), fill=-1)
SIDE = ROW.add("side", (C, MP), "per city and seat: posts in the side area", (0, MAX_POSTS))
PUB_LEN = ROW.add("public_cards_len", 1, "public city cards", (0, D.NUM_PUBLIC_CARDS))
PUB = ROW.add("public_cards", D.NUM_PUBLIC_CARDS, "public city cards, in the order dealt", (0, C - 1))
CD_LEN = ROW.add("city_deck_len", 1, "cards in the city deck", (0, C), fill=C)
CD = ROW.add("city_deck", C, "the city deck, in order", (0, C - 1))
PRIV_LEN = ROW.add("private_len", MP, "per seat: its private city cards", (0, C))
PRIV = ROW.add("private", (MP, C), "per seat: its private city cards, in the order drawn", (0, C - 1), per_seat=True)
REV_LEN = ROW.add("revealed_len", MP, "per seat: its shown private cards", (0, C))
REV = ROW.add("revealed", (MP, C), "per seat: its shown private cards, in the order shown", (0, C - 1), per_seat=True)
GD_LEN = ROW.add("goal_deck_len", 1, "cards in the goal deck", (0, G), fill=G)
GD = ROW.add("goal_deck", G, "the goal deck, in order", (0, G - 1))
GOAL_LEN = ROW.add("goals_len", MP, "per seat: its goals", (0, G))
GOALS = ROW.add("goals", (MP, G), "per seat: its goals, in the order drawn", (0, G - 1), per_seat=True)
DECK = ROW.add("deck", 3, "Truck, Train, Ship cards in the transport deck", (0, MAX_CARDS))
DISCARD = ROW.add("discard", 3, "Truck, Train, Ship cards in the discards", (0, MAX_CARDS))
HANDS = ROW.add("hands", (MP, 3), "per seat: Truck, Train, Ship cards in hand", (0, MAX_CARDS), per_seat=True)
TRACKS = ROW.add("tracks", (MP, 3), "per seat: Truck, Train, Ship development markers", (0, D.TRACK_MAX), per_seat=True)
POSTS_LEFT = ROW.add(
    "posts_left", MP, "per seat: posts on its board", (0, max(D.board_posts(n) for n in range(1, MP + 1))), per_seat=True
)
PERFECT = ROW.add("perfect", MP, "per seat: Perfect Upgrades caused (two per city at most)", (0, 2 * C), per_seat=True)
SIZE = ROW.size


# ---- tables (frozen as constants by numba) ---------------------------------------------------------------
PAYMENTS = np.array(ALL_PAYMENTS, dtype=np.int64)
"""(18, 3): the cards of each payment action."""
LEGAL_BITS = np.array(
    [[sum(1 << ALL_PAYMENTS.index(p) for p in legal_payments(s, d)) for d in range(C)] for s in range(C)], dtype=np.int64
)
"""Per start and destination: the legal payments, one bit each (``ALL_PAYMENTS`` order)."""
TILE_COLOUR = np.array([t[0] for t in D.TILES], dtype=np.int64)
DCOL = np.full((D.NUM_TILES, 3, 3), -1, dtype=np.int64)
"""Per tile and level (1, 2): the colours of its demand spaces (-1 pad)."""
NDEM = np.zeros((D.NUM_TILES, 3), dtype=np.int64)
for _t, (_c, _lv1, _lv2) in enumerate(D.TILES):
    for _lv, _cols in ((1, _lv1), (2, _lv2)):
        NDEM[_t, _lv] = len(_cols)
        DCOL[_t, _lv, : len(_cols)] = _cols
REWARD_TABLE = np.full((D.TRACK_MAX + 1, 2), -1, dtype=np.int64)
"""Per track space: the draws it gives (-1 pad)."""
_KIND_OF = {D.DRAW_TRANSPORT: K_TRANSPORT, D.DRAW_CITY: K_CITY, D.DRAW_GOAL: K_GOAL}
for _space, _rewards in D.TRACK_REWARDS.items():
    for _k, _r in enumerate(_rewards):
        REWARD_TABLE[_space, _k] = _KIND_OF[_r]
TRACK_VP = np.array(D.TRACK_VP, dtype=np.int64)
MOVES = np.array(D.MOVES_PER_CARD, dtype=np.int64)
IS_PORT = np.array([c in D.PORTS for c in range(C)], dtype=np.int64)
TRANSPORT_DECK = np.array(D.TRANSPORT_DECK, dtype=np.int64)
G_PORTS, G_LV3, G_CITIES, G_TRACK, G_PAIR, G_PERFECT = range(6)
_GOAL_KINDS = ("ports", "lv3", "cities", "track", "pair", "perfect")
GOAL_KIND = np.array([_GOAL_KINDS.index(str(g[1][0])) for g in D.GOALS], dtype=np.int64)
GOAL_A = np.array([int(g[1][1]) for g in D.GOALS], dtype=np.int64)  # type: ignore[call-overload]
GOAL_B = np.array([int(g[1][2]) if len(g[1]) > 2 else 0 for g in D.GOALS], dtype=np.int64)  # type: ignore[call-overload]
GOAL_VP = np.array([g[2] for g in D.GOALS], dtype=np.int64)
TPR = np.array([0] + [D.turns_per_round(n) for n in range(1, MP + 1)], dtype=np.int64)
"""Turns per player and round, by number of players."""
MAX_VP = (
    3 * D.TRACK_VP[D.TRACK_MAX]
    + D.VP_PER_LV3_POST * (D.START_POSTS + D.board_posts(1))
    + D.VP_PER_PRIVATE_CARD * (C - D.NUM_PUBLIC_CARDS)
    + sum(g[2] for g in D.GOALS)
)
"""An upper bound of any final score (168): the solo return is ``2 * VP / MAX_VP - 1``."""
MAX_VP_F = float(MAX_VP)

# observation offsets
O_LEVEL, O_COLOUR, O_CUBES = LAYOUT.offset("city_level"), LAYOUT.offset("city_colour"), LAYOUT.offset("city_cubes")
O_OPEN, O_FILL = LAYOUT.offset("city_demand_open"), LAYOUT.offset("city_demand_filled")
O_POSTS, O_PUBLIC = LAYOUT.offset("city_posts"), LAYOUT.offset("city_public")
O_OWN_PRIV, O_SHOWN = LAYOUT.offset("city_own_private"), LAYOUT.offset("city_shown_private")
O_HAND, O_HAND_SIZES = LAYOUT.offset("hand"), LAYOUT.offset("hand_sizes")
O_DISCARDS, O_DECKS, O_TRACKS = LAYOUT.offset("discards"), LAYOUT.offset("decks"), LAYOUT.offset("tracks")
O_POSTS_LEFT, O_PRIV_COUNTS = LAYOUT.offset("posts_left"), LAYOUT.offset("private_counts")
O_GOAL_COUNTS, O_OWN_GOALS = LAYOUT.offset("goal_counts"), LAYOUT.offset("own_goals")
O_GOALS_MET, O_PERFECT, O_VP = LAYOUT.offset("own_goals_met"), LAYOUT.offset("perfect"), LAYOUT.offset("vp")
O_PRESENT, O_TO_MOVE = LAYOUT.offset("seat_present"), LAYOUT.offset("to_move")
O_ROUND, O_TURN, O_PHASE = LAYOUT.offset("round"), LAYOUT.offset("turn"), LAYOUT.offset("phase")
O_SEL_START, O_SEL_DEST = LAYOUT.offset("sel_start"), LAYOUT.offset("sel_dest")
O_BONUS, O_OVER = LAYOUT.offset("bonus"), LAYOUT.offset("game_over")
OBS_SIZE = LAYOUT.size
TRACK_STRIDE = 3 * (D.TRACK_MAX + 1)
# the observation's scales as tables of the very quotients (and caps) the divisions give, by count
_K = np.arange(512, dtype=np.float64)
T_CUBES = _K[: D.MAX_CUBES + 1] / D.MAX_CUBES
T_POSTS = np.minimum(1.0, _K[:64] / POSTS_SCALE)
T_DISCARDS = np.array([_K[: D.DECK_SIZE + 1] / copies for copies in D.TRANSPORT_DECK])
T_DECK = _K[: D.DECK_SIZE + 1] / D.DECK_SIZE
T_CITY_DECK = _K[: C + 1] / (C - D.NUM_PUBLIC_CARDS)
T_GOALS = _K[: G + 1] / G
T_HAND = np.minimum(1.0, _K[: D.DECK_SIZE + 1] / 20.0)
T_POSTS_LEFT = _K[:64] / 12.0
T_PRIVATE = _K[: C + 1] / 8.0
T_PERFECT = np.minimum(1.0, _K[:64] / 4.0)
T_VP = np.minimum(1.0, _K / VP_SCALE)
T_BONUS = np.minimum(1.0, _K[:8] / 3.0)


def initial_state(num_players: int) -> np.ndarray:
    """The row of a new game: every setup draw pending (tiles, public cards, hands, goals, starting posts)."""
    n = num_players
    s = ROW.new_row()
    ROW.put(s, "num_players", n)
    queue = [queue_entry(K_TILE, c) for c in range(C)] + [queue_entry(K_PUBLIC, -1)] * D.NUM_PUBLIC_CARDS
    for seat in range(n):
        queue += [queue_entry(K_TRANSPORT, seat)] * D.START_HAND + [queue_entry(K_GOAL, seat)] * D.START_GOALS
    for seat in range(n):
        queue += [queue_entry(K_STARTPOST, seat)] * D.START_POSTS
    ROW.put(s, "queue_len", len(queue))
    ROW.put(s, "queue", queue + [0] * (QMAX - len(queue)))
    ROW.put(s, "city_deck", range(C))
    ROW.put(s, "goal_deck", range(G))
    ROW.put(s, "deck", D.TRANSPORT_DECK)
    ROW.put(s, "posts_left", [D.board_posts(n)] * n + [0] * (MP - n))
    return s


# ---- queries -------------------------------------------------------------------------------------------
@jit_helper
def current_player(S: np.ndarray, i: int) -> int:
    if S[i, QLEN] > 0:
        return CHANCE
    if S[i, OVER]:
        return TERMINAL
    return S[i, TURN] % S[i, NP]  # type: ignore[no-any-return]


@jit_helper
def colour(S: np.ndarray, i: int, city: int) -> int:
    """Production colour of the city's tile (-1 without a tile)."""
    t = S[i, TILE + city]
    return TILE_COLOUR[t] if t >= 0 else -1  # type: ignore[no-any-return]


@jit_helper
def has_post(S: np.ndarray, i: int, seat: int, city: int) -> bool:
    if S[i, SIDE + MP * city + seat] > 0:
        return True
    d = DEMAND + 3 * city
    return S[i, d] == seat or S[i, d + 1] == seat or S[i, d + 2] == seat  # type: ignore[no-any-return]


@jit_helper
def posts_in(S: np.ndarray, i: int, seat: int, city: int) -> int:
    d = DEMAND + 3 * city
    return S[i, SIDE + MP * city + seat] + (S[i, d] == seat) + (S[i, d + 1] == seat) + (S[i, d + 2] == seat)  # type: ignore[no-any-return]


@jit_helper
def open_demand(S: np.ndarray, i: int, city: int, col: int) -> int:
    """Index of the empty demand space of colour ``col`` in ``city``, or -1."""
    lv = S[i, LEVEL + city]
    if lv != 1 and lv != 2:
        return -1
    t = S[i, TILE + city]
    for k in range(NDEM[t, lv]):
        if DCOL[t, lv, k] == col and S[i, DEMAND + 3 * city + k] < 0:
            return k
    return -1


@jit_helper
def afford_bits(S: np.ndarray, i: int, seat: int) -> int:
    """The payments ``seat``'s hand holds, one bit each."""
    h = HANDS + 3 * seat
    a, b, c = S[i, h], S[i, h + 1], S[i, h + 2]
    bits = 0
    for p in range(NPAY):
        if PAYMENTS[p, 0] <= a and PAYMENTS[p, 1] <= b and PAYMENTS[p, 2] <= c:
            bits |= 1 << p
    return bits


@jit_helper
def _can_start(S: np.ndarray, i: int, seat: int, start: int, afford: int) -> bool:
    col = colour(S, i, start)
    if col < 0 or S[i, CUBES + start] <= 0 or not has_post(S, i, seat, start):
        return False
    for d in range(C):  # noqa: SIM110 (numba compiles no generator for any/all)
        if d != start and LEGAL_BITS[start, d] & afford and open_demand(S, i, d, col) >= 0:
            return True
    return False


@jit_helper
def _startable(S: np.ndarray, i: int, seat: int, start: int) -> bool:
    """``start`` has a tile with a cube and a post of ``seat``."""
    return colour(S, i, start) >= 0 and S[i, CUBES + start] > 0 and has_post(S, i, seat, start)


@jit
def destinations(S: np.ndarray, i: int, seat: int, start: int, out: np.ndarray) -> None:
    """``out[d]`` = 1 where a delivery of ``seat`` from ``start`` can go to ``d`` (demand space free, payable)."""
    afford = afford_bits(S, i, seat)
    col = colour(S, i, start)
    ok = _startable(S, i, seat, start)
    for d in range(C):
        out[d] = ok and d != start and (LEGAL_BITS[start, d] & afford) != 0 and open_demand(S, i, d, col) >= 0


@jit
def affordable(S: np.ndarray, i: int, seat: int, start: int, dest: int) -> int:
    """The legal payments from ``start`` to ``dest`` that ``seat``'s hand can pay, one bit each."""
    return LEGAL_BITS[start, dest] & afford_bits(S, i, seat)  # type: ignore[no-any-return]


@jit
def legal_mask(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the legal action mask (all False at chance and terminal nodes) into row ``i`` of ``out``."""
    bits = out.view(np.uint8)  # numba writes bools one by one
    for a in range(NUM_ACTS):
        bits[i, a] = 0
    if S[i, QLEN] > 0 or S[i, OVER]:
        return
    seat = S[i, TURN] % S[i, NP]
    phase = S[i, PHASE]
    if phase == START:
        bits[i, PASS] = 1
        afford = afford_bits(S, i, seat)
        if afford:
            for s in range(C):
                if _can_start(S, i, seat, s, afford):
                    bits[i, s] = 1
    elif phase == DEST:
        start = S[i, SEL_START]
        if not _startable(S, i, seat, start):
            return
        afford = afford_bits(S, i, seat)
        col = colour(S, i, start)
        for d in range(C):
            if d != start and LEGAL_BITS[start, d] & afford and open_demand(S, i, d, col) >= 0:
                bits[i, DEST_BASE + d] = 1
    elif phase == PAY:
        ok = LEGAL_BITS[S[i, SEL_START], S[i, SEL_DEST]] & afford_bits(S, i, seat)
        for p in range(NPAY):
            if (ok >> p) & 1:
                bits[i, PAY_BASE + p] = 1
    else:
        p = S[i, SEL_PAY]
        for v in range(3):
            if PAYMENTS[p, v]:
                bits[i, BONUS_BASE + v] = 1


@jit
def legal_list(S: np.ndarray, i: int, out: np.ndarray) -> int:
    """Write the legal actions, ascending, into ``out`` (a 1-D int array of ``NUM_ACTS``); returns how many."""
    count = 0
    if S[i, QLEN] > 0 or S[i, OVER]:
        return 0
    seat = S[i, TURN] % S[i, NP]
    phase = S[i, PHASE]
    if phase == START:
        afford = afford_bits(S, i, seat)
        if afford:
            for s in range(C):
                if _can_start(S, i, seat, s, afford):
                    out[count] = s
                    count += 1
        out[count] = PASS
        count += 1
    elif phase == DEST:
        start = S[i, SEL_START]
        if not _startable(S, i, seat, start):
            return 0
        afford = afford_bits(S, i, seat)
        col = colour(S, i, start)
        for d in range(C):
            if d != start and LEGAL_BITS[start, d] & afford and open_demand(S, i, d, col) >= 0:
                out[count] = DEST_BASE + d
                count += 1
    elif phase == PAY:
        ok = LEGAL_BITS[S[i, SEL_START], S[i, SEL_DEST]] & afford_bits(S, i, seat)
        for p in range(NPAY):
            if (ok >> p) & 1:
                out[count] = PAY_BASE + p
                count += 1
    else:
        p = S[i, SEL_PAY]
        for v in range(3):
            if PAYMENTS[p, v]:
                out[count] = BONUS_BASE + v
                count += 1
    return count


@jit
def is_legal(S: np.ndarray, i: int, action: int) -> bool:
    """Is ``action`` legal for the player to move (False at chance and terminal nodes)?"""
    if S[i, QLEN] > 0 or S[i, OVER] or not 0 <= action < NUM_ACTS:
        return False
    seat = S[i, TURN] % S[i, NP]
    phase = S[i, PHASE]
    if phase == START:
        if action == PASS:
            return True
        return action < PASS and _can_start(S, i, seat, action, afford_bits(S, i, seat))
    if phase == DEST:
        d = action - DEST_BASE
        start = S[i, SEL_START]
        if not 0 <= d < C or d == start or not _startable(S, i, seat, start):
            return False
        return (LEGAL_BITS[start, d] & afford_bits(S, i, seat)) != 0 and open_demand(S, i, d, colour(S, i, start)) >= 0
    if phase == PAY:
        p = action - PAY_BASE
        if not 0 <= p < NPAY:
            return False
        return ((LEGAL_BITS[S[i, SEL_START], S[i, SEL_DEST]] & afford_bits(S, i, seat)) >> p) & 1 == 1
    v = action - BONUS_BASE
    return 0 <= v < 3 and PAYMENTS[S[i, SEL_PAY], v] > 0


# ---- chance --------------------------------------------------------------------------------------------
@jit_helper
def _transport_base(S: np.ndarray, i: int) -> int:
    """Where the next transport card comes from: the deck, or the discards when the deck is empty."""
    if S[i, DECK] + S[i, DECK + 1] + S[i, DECK + 2] > 0:
        return DECK
    return DISCARD


@jit_helper
def _free_tile(S: np.ndarray, i: int, t: int) -> bool:
    for c in range(C):  # noqa: SIM110 (numba compiles no generator for any/all)
        if S[i, TILE + c] == t:
            return False
    return True


@jit_helper
def _no_start_post(S: np.ndarray, i: int, c: int) -> bool:
    for p in range(MP):  # noqa: SIM110 (numba compiles no generator for any/all)
        if S[i, SIDE + MP * c + p]:
            return False
    return True


@jit_helper
def _open_item(S: np.ndarray, i: int, kind: int, x: int) -> bool:
    """A tile not placed yet (tile draws), or a city without a starting post (starting post draws)."""
    if kind == K_TILE:
        return _free_tile(S, i, x)
    return _no_start_post(S, i, x)


@jit
def is_chance_outcome(S: np.ndarray, i: int, outcome: int) -> bool:
    """Is ``outcome`` a possible outcome of the next pending draw?"""
    if S[i, QLEN] == 0:
        return False
    kind = queue_kind(S[i, QUEUE])
    if kind == K_TRANSPORT:
        return 0 <= outcome < 3 and S[i, _transport_base(S, i) + outcome] > 0
    if kind == K_TILE:
        return 0 <= outcome < D.NUM_TILES and _free_tile(S, i, outcome)
    if kind == K_STARTPOST:
        return 0 <= outcome < C and _no_start_post(S, i, outcome)
    if kind == K_GOAL:
        for k in range(S[i, GD_LEN]):  # noqa: SIM110 (numba compiles no generator for any/all)
            if S[i, GD + k] == outcome:
                return True
        return False
    for k in range(S[i, CD_LEN]):  # noqa: SIM110 (numba compiles no generator for any/all)
        if S[i, CD + k] == outcome:
            return True
    return False


@jit
def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
    """Draw the next pending draw's outcome with generator ``i`` of ``rngs`` (the rules' distribution)."""
    kind = queue_kind(S[i, QUEUE])
    if kind == K_TRANSPORT:
        base = _transport_base(S, i)
        u = below(rngs, i, S[i, base] + S[i, base + 1] + S[i, base + 2])
        for v in range(3):
            if u < S[i, base + v]:
                return v
            u -= S[i, base + v]
        return 2
    if kind == K_PUBLIC or kind == K_CITY:  # noqa: SIM109 (plain comparisons compile best)
        return S[i, CD + below(rngs, i, S[i, CD_LEN])]  # type: ignore[no-any-return]
    if kind == K_GOAL:
        return S[i, GD + below(rngs, i, S[i, GD_LEN])]  # type: ignore[no-any-return]
    count = 0
    for x in range(C):
        if _open_item(S, i, kind, x):
            count += 1
    k = below(rngs, i, count)
    for x in range(C):
        if _open_item(S, i, kind, x):
            if k == 0:
                return x
            k -= 1
    return C - 1


NUM_CHANCE = max(D.NUM_TILES, C, G, 3)
"""Chance outcome ids are below this (``chance_weights`` writes that many weights): tiles, cities, goals, vehicles."""


@jit
def chance_weights(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Write the odds of the next pending draw into row ``i`` of ``out`` as integer weights per outcome id: a
    transport card by the copies of each vehicle in the deck (in the discards when the deck is empty), a tile,
    a city card, a goal or a starting post's city alike among those left."""
    for k in range(NUM_CHANCE):
        out[i, k] = 0
    kind = queue_kind(S[i, QUEUE])
    if kind == K_TRANSPORT:
        base = _transport_base(S, i)
        for v in range(3):
            out[i, v] = S[i, base + v]
    elif kind == K_PUBLIC or kind == K_CITY:  # noqa: SIM109 (plain comparisons compile best)
        for k in range(S[i, CD_LEN]):
            out[i, S[i, CD + k]] = 1
    elif kind == K_GOAL:
        for k in range(S[i, GD_LEN]):
            out[i, S[i, GD + k]] = 1
    elif kind == K_TILE:
        for t in range(D.NUM_TILES):
            if _free_tile(S, i, t):
                out[i, t] = 1
    else:
        for c in range(C):
            if _no_start_post(S, i, c):
                out[i, c] = 1


@jit_helper
def _remove(S: np.ndarray, i: int, length: int, start: int, item: int) -> None:
    """Remove ``item`` from the list of ``S[i, length]`` items at ``start`` (keeping the order)."""
    n = S[i, length]
    k = 0
    while k < n and S[i, start + k] != item:
        k += 1
    if k == n:
        return
    while k < n - 1:
        S[i, start + k] = S[i, start + k + 1]
        k += 1
    S[i, start + n - 1] = 0
    S[i, length] = n - 1


@jit_helper
def _append(S: np.ndarray, i: int, length: int, start: int, item: int) -> None:
    S[i, start + S[i, length]] = item
    S[i, length] += 1


@jit_helper
def _pop(S: np.ndarray, i: int) -> int:
    """Remove and return the first pending draw."""
    head = S[i, QUEUE]
    n = S[i, QLEN]
    for k in range(n - 1):
        S[i, QUEUE + k] = S[i, QUEUE + k + 1]
    S[i, QUEUE + n - 1] = 0
    S[i, QLEN] = n - 1
    return head  # type: ignore[no-any-return]


@jit_helper
def _push(S: np.ndarray, i: int, kind: int, who: int, times: int) -> None:
    for _ in range(times):
        S[i, QUEUE + S[i, QLEN]] = queue_entry(kind, who)
        S[i, QLEN] += 1


@jit_helper
def _settle(S: np.ndarray, i: int) -> None:
    """Drop pending draws that cannot happen (empty deck and discards, empty city or goal deck)."""
    while S[i, QLEN] > 0:
        kind = queue_kind(S[i, QUEUE])
        if kind == K_TRANSPORT:
            dead = S[i, DECK] + S[i, DECK + 1] + S[i, DECK + 2] + S[i, DISCARD] + S[i, DISCARD + 1] + S[i, DISCARD + 2] == 0
        elif kind == K_CITY:
            dead = S[i, CD_LEN] == 0
        elif kind == K_GOAL:
            dead = S[i, GD_LEN] == 0
        else:
            dead = False
        if not dead:
            return
        _pop(S, i)


@jit_helper
def _apply_chance(S: np.ndarray, i: int, outcome: int) -> None:
    head = _pop(S, i)
    kind, who = queue_kind(head), queue_who(head)
    if kind == K_TILE:
        S[i, TILE + who] = outcome
        S[i, LEVEL + who] = 1
        S[i, CUBES + who] = D.LV1_CUBES
        for k in range(3):
            S[i, DEMAND + 3 * who + k] = -1
    elif kind == K_PUBLIC:
        _remove(S, i, CD_LEN, CD, outcome)
        _append(S, i, PUB_LEN, PUB, outcome)
    elif kind == K_CITY:
        _remove(S, i, CD_LEN, CD, outcome)
        _append(S, i, PRIV_LEN + who, PRIV + C * who, outcome)
    elif kind == K_GOAL:
        _remove(S, i, GD_LEN, GD, outcome)
        _append(S, i, GOAL_LEN + who, GOALS + G * who, outcome)
    elif kind == K_STARTPOST:
        S[i, SIDE + MP * outcome + who] += 1
    else:
        if S[i, DECK] + S[i, DECK + 1] + S[i, DECK + 2] == 0:  # reshuffle the discards into a new deck
            for v in range(3):
                S[i, DECK + v] = S[i, DISCARD + v]
                S[i, DISCARD + v] = 0
        S[i, DECK + outcome] -= 1
        S[i, HANDS + 3 * who + outcome] += 1
    _settle(S, i)


# ---- player actions ------------------------------------------------------------------------------------
@jit_helper
def _move(S: np.ndarray, i: int, seat: int, vehicle: int, steps: int) -> None:
    """Move a development marker; the rewards of the spaces it enters wait for the end of the delivery."""
    at = TRACKS + 3 * seat + vehicle
    before = S[i, at]
    after = min(D.TRACK_MAX, before + steps)
    S[i, at] = after
    for space in range(before + 1, after + 1):
        for k in range(2):
            kind = REWARD_TABLE[space, k]
            if kind >= 0:
                S[i, REWARDS + S[i, RLEN]] = queue_entry(kind, seat)
                S[i, RLEN] += 1


@jit_helper
def _listed(S: np.ndarray, i: int, length: int, start: int, item: int) -> bool:
    for k in range(S[i, length]):  # noqa: SIM110 (numba compiles no generator for any/all)
        if S[i, start + k] == item:
            return True
    return False


@jit_helper
def _end_turn(S: np.ndarray, i: int) -> None:
    S[i, PHASE] = START
    S[i, SEL_START] = S[i, SEL_DEST] = S[i, SEL_PAY] = -1
    S[i, BONUS_LEFT] = 0
    S[i, TURN] += 1
    n = S[i, NP]
    if S[i, TURN] == n * TPR[n]:
        if S[i, ROUND] < D.ROUNDS - 1:
            S[i, ROUND] += 1
            S[i, TURN] = 0
            for seat in range(n):
                _push(S, i, K_TRANSPORT, seat, D.ROUND_END_DRAW)
        else:
            S[i, OVER] = 1
    _settle(S, i)


@jit_helper
def _end_delivery(S: np.ndarray, i: int) -> None:
    for k in range(S[i, RLEN]):
        S[i, QUEUE + S[i, QLEN]] = S[i, REWARDS + k]
        S[i, QLEN] += 1
        S[i, REWARDS + k] = 0
    S[i, RLEN] = 0
    _end_turn(S, i)


@jit_helper
def _deliver(S: np.ndarray, i: int, seat: int, p: int) -> None:
    s, d = S[i, SEL_START], S[i, SEL_DEST]
    S[i, SEL_PAY] = p
    for v in range(3):
        S[i, HANDS + 3 * seat + v] -= PAYMENTS[p, v]
        S[i, DISCARD + v] += PAYMENTS[p, v]
    col = colour(S, i, s)
    S[i, CUBES + s] -= 1
    S[i, DEMAND + 3 * d + open_demand(S, i, d, col)] = seat
    S[i, POSTS_LEFT + seat] -= 1
    perfect = False
    t = S[i, TILE + d]
    lv = S[i, LEVEL + d]
    full = True
    for k in range(NDEM[t, lv]):
        if S[i, DEMAND + 3 * d + k] < 0:
            full = False
    if full:
        perfect = S[i, CUBES + d] == 0
        for k in range(NDEM[t, lv]):
            S[i, SIDE + MP * d + S[i, DEMAND + 3 * d + k]] += 1
            S[i, DEMAND + 3 * d + k] = -1
        if lv == 1:
            S[i, LEVEL + d] = 2
            S[i, CUBES + d] = D.LV2_CUBES
        else:
            S[i, LEVEL + d] = 3
            S[i, CUBES + d] = 0
            S[i, TILE + d] = -1
        if perfect:
            S[i, PERFECT + seat] += 1
    bonus = 1 if perfect else 0
    for city in (s, d):
        public = _listed(S, i, PUB_LEN, PUB, city)
        private = _listed(S, i, PRIV_LEN + seat, PRIV + C * seat, city)
        if public or private:
            bonus += 1
            if private and not _listed(S, i, REV_LEN + seat, REV + C * seat, city):
                _append(S, i, REV_LEN + seat, REV + C * seat, city)
    paid = 0
    last = 0
    for v in range(3):
        if PAYMENTS[p, v]:
            _move(S, i, seat, v, PAYMENTS[p, v] * MOVES[v])
            paid += 1
            last = v
    if bonus and paid == 1:
        _move(S, i, seat, last, bonus)
        bonus = 0
    if bonus:
        S[i, BONUS_LEFT] = bonus
        S[i, PHASE] = BONUS
    else:
        _end_delivery(S, i)


@jit
def apply(S: np.ndarray, i: int, action: int) -> None:
    """Apply a legal action or chance outcome (unchecked)."""
    if S[i, QLEN] > 0:
        _apply_chance(S, i, action)
        return
    S[i, DECISIONS] += 1
    seat = S[i, TURN] % S[i, NP]
    phase = S[i, PHASE]
    if phase == START:
        if action == PASS:
            _push(S, i, K_TRANSPORT, seat, D.PASS_DRAW)
            S[i, POSTS_LEFT + seat] -= 1
            _end_turn(S, i)
        else:
            S[i, SEL_START] = action
            S[i, PHASE] = DEST
    elif phase == DEST:
        S[i, SEL_DEST] = action - DEST_BASE
        S[i, PHASE] = PAY
    elif phase == PAY:
        _deliver(S, i, seat, action - PAY_BASE)
    else:
        _move(S, i, seat, action - BONUS_BASE, 1)
        S[i, BONUS_LEFT] -= 1
        if S[i, BONUS_LEFT] == 0:
            _end_delivery(S, i)


# ---- results -------------------------------------------------------------------------------------------
@jit_helper
def goal_met(S: np.ndarray, i: int, seat: int, g: int) -> bool:
    """Is goal ``g`` fulfilled by ``seat`` now?"""
    kind = GOAL_KIND[g]
    a = GOAL_A[g]
    if kind == G_TRACK:
        return S[i, TRACKS + 3 * seat + a] >= GOAL_B[g]  # type: ignore[no-any-return]
    if kind == G_PERFECT:
        return S[i, PERFECT + seat] >= a  # type: ignore[no-any-return]
    if kind == G_PAIR:
        return has_post(S, i, seat, a) and has_post(S, i, seat, GOAL_B[g])
    count = 0
    for c in range(C):
        counted = kind == G_CITIES or (kind == G_PORTS and IS_PORT[c]) or (kind == G_LV3 and S[i, LEVEL + c] == 3)
        if counted and has_post(S, i, seat, c):
            count += 1
    return count >= a


@jit_helper
def vp(S: np.ndarray, i: int, seat: int, with_goals: bool) -> int:
    """Final score as far as counted: markers, LV3 posts, private cards, and (``with_goals``) fulfilled goals."""
    total = 0
    for v in range(3):
        total += TRACK_VP[S[i, TRACKS + 3 * seat + v]]
    for c in range(C):
        if S[i, LEVEL + c] == 3:
            total += D.VP_PER_LV3_POST * S[i, SIDE + MP * c + seat]
    total += D.VP_PER_PRIVATE_CARD * S[i, PRIV_LEN + seat]
    if with_goals:
        for k in range(S[i, GOAL_LEN + seat]):
            g = S[i, GOALS + G * seat + k]
            if goal_met(S, i, seat, g):
                total += GOAL_VP[g]
    return total


@jit
def seat_vp(S: np.ndarray, i: int, seat: int, with_goals: bool) -> int:
    """``vp`` called from Python."""
    return vp(S, i, seat, with_goals)


@jit
def goal_fulfilled(S: np.ndarray, i: int, seat: int, g: int) -> bool:
    """``goal_met`` called from Python."""
    return goal_met(S, i, seat, g)


@jit_helper
def posts_on_map(S: np.ndarray, i: int, seat: int) -> int:
    total = 0
    for c in range(C):
        total += posts_in(S, i, seat, c)
    return total


POSTS_TIEBREAK = 1 << 20  # posts on the map break VP ties: the low part of the ranking key


@jit
def returns(S: np.ndarray, i: int, out: np.ndarray) -> None:
    """Zero until the end; then ``rank_returns`` of (final VP, posts on the map), or the scaled solo VP."""
    n = S[i, NP]
    for p in range(n):
        out[p] = 0.0
    if S[i, QLEN] > 0 or not S[i, OVER]:
        return
    if n == 1:
        out[0] = 2.0 * vp(S, i, 0, True) / MAX_VP_F - 1.0
        return
    for p in range(n):  # VP, then posts on the map (far fewer than 2**20) as one integer
        out[p] = vp(S, i, p, True) * POSTS_TIEBREAK + posts_on_map(S, i, p)
    rank_outcomes(out, n)


# ---- observation ---------------------------------------------------------------------------------------
@jit
def observation(S: np.ndarray, i: int, seat: int, out: np.ndarray) -> None:
    """Write ``seat``'s observation (float32, layout in ``observation.py``) into row ``i`` of ``out``: the board,
    counts, and only its own hand, private cards and goals. Ego seats are ``p - seat`` wrapped (no integer
    division), scales are looked up (``T_*``: the same quotients as the divisions)."""
    for k in range(OBS_SIZE):
        out[i, k] = 0.0
    n = S[i, NP]
    for c in range(C):
        lv = S[i, LEVEL + c]
        out[i, O_LEVEL + 4 * c + lv] = 1.0
        t = S[i, TILE + c]
        if t >= 0:
            out[i, O_COLOUR + 4 * c + TILE_COLOUR[t]] = 1.0
            out[i, O_CUBES + c] = T_CUBES[S[i, CUBES + c]]
            for k in range(NDEM[t, lv]):
                base = O_FILL if S[i, DEMAND + 3 * c + k] >= 0 else O_OPEN
                out[i, base + 4 * c + DCOL[t, lv, k]] = 1.0
        posts = O_POSTS + MP * c
        for e in range(n):
            p = seat + e
            if p >= n:
                p -= n
            k = S[i, SIDE + MP * c + p]
            for x in range(3):
                k += S[i, DEMAND + 3 * c + x] == p
            out[i, posts + e] = T_POSTS[k]  # 0.0 without posts: no branch to mispredict
    for k in range(S[i, PUB_LEN]):
        out[i, O_PUBLIC + S[i, PUB + k]] = 1.0
    for k in range(S[i, PRIV_LEN + seat]):
        out[i, O_OWN_PRIV + S[i, PRIV + C * seat + k]] = 1.0
    for e in range(1, n):
        p = seat + e
        if p >= n:
            p -= n
        for k in range(S[i, REV_LEN + p]):
            out[i, O_SHOWN + C * (e - 1) + S[i, REV + C * p + k]] = 1.0
    for v in range(3):
        for j in range(min(HAND_LEVELS, S[i, HANDS + 3 * seat + v])):
            out[i, O_HAND + HAND_LEVELS * v + j] = 1.0
        out[i, O_DISCARDS + v] = T_DISCARDS[v, S[i, DISCARD + v]]
    out[i, O_DECKS] = T_DECK[S[i, DECK] + S[i, DECK + 1] + S[i, DECK + 2]]
    out[i, O_DECKS + 1] = T_CITY_DECK[S[i, CD_LEN]]
    out[i, O_DECKS + 2] = T_GOALS[S[i, GD_LEN]]
    end = S[i, QLEN] == 0 and S[i, OVER] != 0
    for e in range(n):
        p = seat + e
        if p >= n:
            p -= n
        h = HANDS + 3 * p
        out[i, O_HAND_SIZES + e] = T_HAND[S[i, h] + S[i, h + 1] + S[i, h + 2]]
        for v in range(3):
            out[i, O_TRACKS + TRACK_STRIDE * e + (D.TRACK_MAX + 1) * v + S[i, TRACKS + 3 * p + v]] = 1.0
        out[i, O_POSTS_LEFT + e] = T_POSTS_LEFT[S[i, POSTS_LEFT + p]]
        out[i, O_PRIV_COUNTS + e] = T_PRIVATE[S[i, PRIV_LEN + p]]
        out[i, O_GOAL_COUNTS + e] = T_GOALS[S[i, GOAL_LEN + p]]
        out[i, O_PERFECT + e] = T_PERFECT[S[i, PERFECT + p]]
        out[i, O_VP + e] = T_VP[vp(S, i, p, end and p == seat)]
        out[i, O_PRESENT + e] = 1.0
    for k in range(S[i, GOAL_LEN + seat]):
        g = S[i, GOALS + G * seat + k]
        out[i, O_OWN_GOALS + g] = 1.0
        if goal_met(S, i, seat, g):
            out[i, O_GOALS_MET + g] = 1.0
    if S[i, QLEN] == 0 and not S[i, OVER]:
        e = S[i, TURN] % n - seat
        if e < 0:
            e += n
        out[i, O_TO_MOVE + e] = 1.0
        out[i, O_PHASE + S[i, PHASE]] = 1.0
    out[i, O_ROUND + S[i, ROUND]] = 1.0
    out[i, O_TURN + min(3, S[i, TURN] // n)] = 1.0
    if S[i, SEL_START] >= 0:
        out[i, O_SEL_START + S[i, SEL_START]] = 1.0
    if S[i, SEL_DEST] >= 0:
        out[i, O_SEL_DEST + S[i, SEL_DEST]] = 1.0
    out[i, O_BONUS] = T_BONUS[S[i, BONUS_LEFT]]
    p = S[i, SEL_PAY]
    if p >= 0:
        for v in range(3):
            out[i, O_BONUS + 1 + v] = 1.0 if PAYMENTS[p, v] > 0 else 0.0
    out[i, O_OVER] = 1.0 if end else 0.0


__doc__ = (__doc__ or "").replace("{row_table}", ROW.table())
