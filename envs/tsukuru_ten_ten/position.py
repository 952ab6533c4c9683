"""Tsukuru 10 Ten position builder (found by the core): ``export_position(state)`` -> dict, ``build_state(game, dict)`` -> state.

Keys (tiles are written ``B1``..``B7``, ``R0``..``R7``, ``P5``..``P8``):

* ``phase``: ``first_dealer`` | ``deal`` | ``turn`` | ``draw`` | ``discard`` | ``colour`` | ``over``
* ``dealer``: seat of the round's dealer (-1 only in ``first_dealer``); ``turn``: seat to act (or drawing),
  -1 at chance deal / first dealer / over
* ``hands``: per seat, its concealed tiles; ``open_sets``: per seat, a list of
  ``{"tiles": [3 tiles], "colour": "blue" | "red"}``; ``pending``: the 3 purple tiles of an open set whose
  colour is being chosen (``colour`` phase) or null
* ``discards``: per seat, its pile bottom to top; ``claimable``: per seat, is its top tile its most recent
  discard; ``deck``: the tiles not yet drawn (any order: the deck is drawn at random)
* ``drawn``: the tile the player to act drew this turn (``discard`` phase after a draw) or null
* ``scores``, ``dealer_counts`` (rounds dealt, current included), ``turns_taken`` (turns started this round):
  per seat; ``rounds_played``: finished rounds (every count at most ``MAX_COUNT``); ``last_round``: the text
  line about the previous round
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gameshelf.envs.core.position import show
from gameshelf.envs.tsukuru_ten_ten.actions import (
    DEAL,
    DISCARDING,
    DRAWING,
    FIRST_DEALER,
    OVER,
    PHASE_NAMES,
    PICK_COLOUR,
    TURN,
)
from gameshelf.envs.tsukuru_ten_ten.game import TsukuruTenTenGame, TsukuruTenTenState
from gameshelf.envs.tsukuru_ten_ten.hand import HAND_SIZE, MAX_SETS, OpenSet
from gameshelf.envs.tsukuru_ten_ten.tiles import (
    COLOUR,
    COLOUR_NAMES,
    COPIES,
    NAMES,
    NUM_KINDS,
    PURPLE,
    counts_of,
    kinds_of,
    parse_tile,
    shapes_of,
)

KEYS = (
    "phase",
    "dealer",
    "turn",
    "hands",
    "open_sets",
    "pending",
    "discards",
    "claimable",
    "deck",
    "drawn",
    "scores",
    "dealer_counts",
    "turns_taken",
    "rounds_played",
    "last_round",
)


def export_position(state: TsukuruTenTenState) -> dict[str, Any]:
    return {
        "phase": PHASE_NAMES[state.phase],
        "dealer": state.dealer,
        "turn": state.turn,
        "hands": [[NAMES[k] for k in kinds_of(h)] for h in state.hands],
        "open_sets": [
            [{"tiles": [NAMES[k] for k in o.kinds], "colour": COLOUR_NAMES[o.colour]} for o in sets] for sets in state.open_sets
        ],
        "pending": None if state.pending is None else [NAMES[k] for k in state.pending],
        "discards": [[NAMES[k] for k in pile] for pile in state.discards],
        "claimable": list(state.claimable),
        "deck": [NAMES[k] for k in kinds_of(state.deck)],
        "drawn": NAMES[state.drawn] if state.drawn >= 0 else None,
        "scores": list(state.scores_),
        "dealer_counts": list(state.dealer_counts),
        "turns_taken": list(state.turns_taken),
        "rounds_played": state.rounds_played,
        "last_round": state.last_round,
    }


MAX_COUNT = 2**13
"""Bound of the counts (``scores``, ``dealer_counts``, ``turns_taken``, ``rounds_played``): far above any game,
and with room to play on in the ``int16`` state row (32767)."""


def _int(name: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, got {show(value)}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name}={show(value)} is out of range [{low}, {high if high is not None else 'inf'}]")
    return value


def _per_seat(name: str, value: Any, n: int) -> list[Any]:
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise ValueError(f"{name} must list one entry per seat ({n}), got {show(value)}")
    return list(value)


def _tiles(name: str, value: Any) -> list[int]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{name} must be a list of tiles, got {show(value)}")
    try:
        return [parse_tile(t) for t in value]
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None


def build_state(game: TsukuruTenTenGame, position: Mapping[str, Any]) -> TsukuruTenTenState:
    """A validated state from ``position`` (``ValueError`` naming the problem)."""
    _check_keys(position)
    n = game.num_players
    phase = _read_phase(position)
    state = TsukuruTenTenState(game)
    state.history_from_start = False
    state.phase = phase
    _read_dealer_and_turn(state, position)
    state.hands = [counts_of(_tiles(f"hands[{s}]", h)) for s, h in enumerate(_per_seat("hands", position["hands"], n))]
    state.open_sets = _read_open_sets(position["open_sets"], n)
    _read_pending(state, position["pending"])
    state.discards = [_tiles(f"discards[{s}]", p) for s, p in enumerate(_per_seat("discards", position["discards"], n))]
    _read_claimable(state, position["claimable"])
    state.deck = counts_of(_tiles("deck", position["deck"]))
    state.deck_size = sum(state.deck)
    _read_drawn(state, position["drawn"])
    _read_counts(state, position)
    if not isinstance(position["last_round"], str):
        raise ValueError("last_round must be a string")
    state.last_round = position["last_round"]
    _check_tile_conservation(state)
    _check_hand_sizes(state)
    _check_round_progress(state)
    return state


def _check_keys(position: Any) -> None:
    """The position is a mapping with exactly the keys ``KEYS``."""
    if not isinstance(position, Mapping):
        raise ValueError("a position is a mapping of keys to values")
    missing = [k for k in KEYS if k not in position]
    unknown = [k for k in position if k not in KEYS]
    if missing or unknown:
        raise ValueError(f"position keys: missing {missing}, unknown {unknown}; expected {list(KEYS)}")


def _read_phase(position: Mapping[str, Any]) -> int:
    """The phase's index from its name."""
    if position["phase"] not in PHASE_NAMES:
        raise ValueError(f"phase {show(position['phase'])} is not one of {list(PHASE_NAMES)}")
    return PHASE_NAMES.index(position["phase"])


def _read_dealer_and_turn(state: TsukuruTenTenState, position: Mapping[str, Any]) -> None:
    """The dealer's seat and the seat to act, each -1 exactly in the phases that have none."""
    n = state.game.num_players
    state.dealer = _int("dealer", position["dealer"], -1, n - 1)
    state.turn = _int("turn", position["turn"], -1, n - 1)
    if (state.dealer < 0) != (state.phase == FIRST_DEALER):
        raise ValueError("dealer is -1 exactly in the first_dealer phase")
    if (state.turn < 0) != (state.phase in (FIRST_DEALER, DEAL, OVER)):
        raise ValueError("turn names the seat to act (or drawing) and is -1 only in first_dealer, deal and over")


def _read_open_sets(value: Any, n: int) -> list[list[OpenSet]]:
    """Each seat's open sets: at most ``MAX_SETS`` of ``{"tiles": [3 tiles], "colour": ...}``."""
    open_sets: list[list[OpenSet]] = []
    for s, sets in enumerate(_per_seat("open_sets", value, n)):
        if not isinstance(sets, (list, tuple)) or len(sets) > MAX_SETS:
            raise ValueError(f"open_sets[{s}] must be a list of at most {MAX_SETS} sets")
        row = []
        for i, item in enumerate(sets):
            if not isinstance(item, Mapping) or set(item) != {"tiles", "colour"}:
                raise ValueError(f"open_sets[{s}][{i}] must be {{'tiles': [...], 'colour': 'blue'|'red'}}")
            kinds = _tiles(f"open_sets[{s}][{i}].tiles", item["tiles"])
            if item["colour"] not in ("blue", "red"):
                raise ValueError(f"open_sets[{s}][{i}].colour must be 'blue' or 'red', got {show(item['colour'])}")
            if len(kinds) != 3:
                raise ValueError(f"open_sets[{s}][{i}] must have 3 tiles")
            try:
                row.append(OpenSet(tuple(sorted(kinds)), COLOUR_NAMES.index(item["colour"])))  # type: ignore[arg-type]
            except ValueError as err:
                raise ValueError(f"open_sets[{s}][{i}]: {err}") from None
        open_sets.append(row)
    return open_sets


def _read_pending(state: TsukuruTenTenState, pending: Any) -> None:
    """The purple run whose colour is being chosen: given exactly in the colour phase, beside at most one set."""
    if pending is None:
        state.pending = None
    else:
        kinds = sorted(_tiles("pending", pending))
        if len(kinds) != 3 or any(COLOUR[k] != PURPLE for k in kinds) or len(shapes_of(kinds)) != 2:
            raise ValueError(f"pending must be three purple tiles forming a run, got {show(pending)}")
        state.pending = tuple(kinds)  # type: ignore[assignment]
    if (state.pending is not None) != (state.phase == PICK_COLOUR):
        raise ValueError("pending is given exactly in the colour phase")
    if state.phase == PICK_COLOUR and len(state.open_sets[state.turn]) >= MAX_SETS:
        raise ValueError("a seat choosing a colour holds at most one other open set")


def _read_claimable(state: TsukuruTenTenState, value: Any) -> None:
    """Per seat, whether its pile's top is claimable (only a non-empty pile's)."""
    claimable = _per_seat("claimable", value, state.game.num_players)
    if not all(isinstance(c, bool) for c in claimable):
        raise ValueError("claimable must be booleans")
    for s, c in enumerate(claimable):
        if c and not state.discards[s]:
            raise ValueError(f"seat {s}'s pile is empty, its top cannot be claimable")
    state.claimable = claimable


def _read_drawn(state: TsukuruTenTenState, drawn: Any) -> None:
    """The tile drawn this turn: only in the discard phase, and in the hand of the seat to act."""
    state.drawn = -1 if drawn is None else _tiles("drawn", [drawn])[0]
    if state.drawn >= 0:
        if state.phase != DISCARDING:
            raise ValueError("drawn is given only in the discard phase")
        if not state.hands[state.turn][state.drawn]:
            raise ValueError(f"the drawn tile {drawn} is not in seat {state.turn}'s hand")


def _read_counts(state: TsukuruTenTenState, position: Mapping[str, Any]) -> None:
    """The per-seat counts (scores, rounds dealt, turns taken) and the rounds played, each at most ``MAX_COUNT``."""
    n = state.game.num_players
    for name in ("scores", "dealer_counts", "turns_taken"):
        values = [_int(f"{name}[{s}]", v, 0, MAX_COUNT) for s, v in enumerate(_per_seat(name, position[name], n))]
        setattr(state, "scores_" if name == "scores" else name, values)
    state.rounds_played = _int("rounds_played", position["rounds_played"], 0, MAX_COUNT)


def _check_tile_conservation(state: TsukuruTenTenState) -> None:
    """Every tile is in the deck, a hand, an open set, a pile or the pending run (an empty first_dealer fills the deck)."""
    total = list(state.deck)
    for s in range(state.game.num_players):
        for k in range(NUM_KINDS):
            total[k] += state.hands[s][k]
        for o in state.open_sets[s]:
            for k in o.kinds:
                total[k] += 1
        for k in state.discards[s]:
            total[k] += 1
    for k in state.pending or ():
        total[k] += 1
    if state.phase == FIRST_DEALER and total == [0] * NUM_KINDS:
        total = list(COPIES)
        state.deck = list(COPIES)
        state.deck_size = sum(COPIES)
    for k in range(NUM_KINDS):
        if total[k] != COPIES[k]:
            raise ValueError(f"there are {COPIES[k]} {NAMES[k]} tiles in all; the position holds {total[k]}")


def _check_hand_sizes(state: TsukuruTenTenState) -> None:
    """Each seat holds the tiles its phase allows: none before the deal, dealt ones in turn, 7 (8 to act) after."""
    n, phase = state.game.num_players, state.phase
    sizes = [sum(state.hands[s]) + 3 * len(state.open_sets[s]) for s in range(n)]
    if state.turn >= 0 and state.pending is not None:
        sizes[state.turn] += 3
    if phase == FIRST_DEALER:
        if any(sizes) or any(state.discards):
            raise ValueError("before the first deal no seat holds tiles")
    elif phase == DEAL:
        dealt = sum(sizes)
        if any(state.open_sets) or any(state.discards) or dealt >= HAND_SIZE * n:
            raise ValueError("during the deal hands hold only dealt tiles (fewer than 7 each in all)")
        expected = [0] * n
        for i in range(dealt):
            expected[(state.dealer + i) % n] += 1
        if sizes != expected:
            raise ValueError(f"dealt tiles go one by one from the dealer: hand sizes should be {expected}, got {sizes}")
        state.dealt = dealt
    else:
        state.dealt = HAND_SIZE * n
        for s in range(n):
            want = HAND_SIZE + 1 if (phase in (DISCARDING, PICK_COLOUR) and s == state.turn) else HAND_SIZE
            if phase == OVER and sizes[s] == HAND_SIZE + 1:
                continue
            if sizes[s] != want:
                raise ValueError(f"seat {s} holds {sizes[s]} tiles (concealed + open sets); it should hold {want}")
        if phase == OVER and sum(1 for x in sizes if x == HAND_SIZE + 1) > 1:
            raise ValueError("at the end at most one seat (the last winner) holds 8 tiles")


def _check_round_progress(state: TsukuruTenTenState) -> None:
    """The round's counts fit the phase: the seat to act has a turn, a draw has a tile, the dealer has dealt."""
    phase = state.phase
    if phase in (TURN, DRAWING, DISCARDING, PICK_COLOUR) and state.turns_taken[state.turn] < 1:
        raise ValueError("the seat to act has started at least one turn this round")
    if phase == DRAWING and state.deck_size == 0:
        raise ValueError("a draw needs a tile in the deck")
    if phase != FIRST_DEALER and sum(state.dealer_counts) != state.rounds_played + (phase != OVER):
        raise ValueError("dealer_counts must add up to the rounds played (plus the current round)")
    if phase != FIRST_DEALER and phase != OVER and state.dealer_counts[state.dealer] < 1:
        raise ValueError("the dealer has dealt the current round")
