"""CATsle Builders positions (found by the core): ``export_position(state)`` -> dict, ``build_state(game, dict)`` -> state.

The keys are listed in the environment card. Cards are written by name (``"Walls 5"``). A built
state has an empty ``history``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gameshelf.envs.catsle_builders import kernel as K
from gameshelf.envs.catsle_builders.actions import DEAL, FIRST, OVER, PHASE_NAMES, PLACE, PLAY, TAKE
from gameshelf.envs.catsle_builders.cards import (
    NUM_ROUNDS,
    NUM_SUITS,
    NUM_VALUES,
    SUIT_MASK,
    SUITS,
    card_name,
    cards_of,
    parse_card,
    rating,
)
from gameshelf.envs.catsle_builders.game import CatsleGame, CatsleState
from gameshelf.envs.core.position import show

KEYS = (
    "num_players",
    "column_limits",
    "phase",
    "round",
    "round_first",
    "totals",
    "round_scores",
    "last_perfect",
    "hands",
    "boards",
    "discards",
    "leader",
    "trick",
    "trick_left",
    "pending",
    "voids",
)


def export_position(state: CatsleState) -> dict[str, Any]:
    game = state.game
    n = game.num_players
    return {
        "num_players": n,
        "column_limits": list(game.options["column_limits"]),
        "phase": PHASE_NAMES[state.phase],
        "round": state.round_index + 1,
        "round_first": state.round_first,
        "totals": list(state.totals),
        "round_scores": [list(r) for r in state.round_scores],
        "last_perfect": list(state.last_perfect),
        "hands": [[card_name(c) for c in cards_of(state.hands[s])] for s in range(n)],
        "boards": [[[card_name(c) for c in col] for col in state.cols[s]] for s in range(n)],
        "discards": [card_name(c) for c in cards_of(state.discards)],
        "leader": state.leader,
        "trick": [card_name(c) for c in state.trick],
        "trick_left": [card_name(c) for c in cards_of(state.trick_left)] if state.queue else None,
        "pending": card_name(state.pending) if state.pending >= 0 else None,
        "voids": [[SUITS[v] for v in range(NUM_SUITS) if state.voids[s] >> v & 1] for s in range(n)],
    }


MAX_POINTS = K.POINTS_LIMIT
"""Bound of ``totals`` and ``round_scores``: the ``int16`` state row holds 32767, and three rounds add far less
than the rest (the row's bounds)."""


def _int(position: Mapping[str, Any], key: str, low: int, high: int) -> int:
    value = position[key]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"position[{show(key)}] = {show(value)} must be an integer in {low}..{high}")
    return value


def _int_list(position: Mapping[str, Any], key: str, n: int, low: int, high: int) -> list[int]:
    value = position[key]
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise ValueError(f"position[{show(key)}] must be a list of {n} integers, got {show(value)}")
    for v in value:
        if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
            raise ValueError(f"position[{show(key)}] holds {show(v)}, not an integer in {low}..{high}")
    return list(value)


def _cards(value: Any, where: str, deck: int) -> list[int]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{where} must be a list of card names, got {show(value)}")
    out = []
    for text in value:
        try:
            c = parse_card(text)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        if not deck >> c & 1:
            raise ValueError(f"{where}: {card_name(c)} is not in the deck of this player count")
        out.append(c)
    return out


class _Draft:
    """A position being read: the fields of a ``CatsleState`` as plain ints and lists, checked before they are
    written into a state's row (``CatsleState.load``)."""

    def __init__(self, game: CatsleGame) -> None:
        n = game.num_players
        self.game = game
        self.phase = FIRST
        self.round_index = 0
        self.round_first = -1
        self.totals = [0] * n
        self.round_scores: list[list[int]] = []
        self.last_perfect = [0] * n
        self.turn = -1
        self.hands = [0] * n
        self.hand_sizes = [0] * n
        self.undealt = game.deck
        self.dealt = 0
        self.leader = -1
        self.trick: list[int] = []
        self.trick_left = 0
        self.queue: list[int] = []
        self.take_pos = 0
        self.pending = -1
        self.col_suit = [[-1] * game.num_columns for _ in range(n)]
        self.cols: list[list[list[int]]] = [[[] for _ in range(game.num_columns)] for _ in range(n)]
        self.discards = 0
        self.played = 0
        self.voids = [0] * n
        self.seen = 0  # the cards claimed so far by hands, boards, discards and trick

    def claim(self, cards: list[int], where: str, allowed: int = 0) -> int:
        """Mark ``cards`` as seen (each once, but for those in ``allowed``); their mask."""
        m = 0
        for c in cards:
            if ((self.seen & ~allowed) | m) >> c & 1:
                raise ValueError(f"{where}: {card_name(c)} appears twice in the position")
            m |= 1 << c
        self.seen |= m
        return m

    def board_mask(self) -> int:
        """The cards on the seats' boards."""
        mask = 0
        for columns in self.cols:
            for col in columns:
                for c in col:
                    mask |= 1 << c
        return mask

    def board_count(self) -> int:
        """How many cards are on the seats' boards."""
        return sum(len(col) for columns in self.cols for col in columns)

    def trick_seat(self, i: int) -> int:
        return (self.leader + i) % self.game.num_players

    def trick_rating(self) -> list[int]:
        return [self.trick_seat(i) for i in rating(self.trick)]

    def columns_for(self, seat: int, c: int) -> list[int]:
        suits = self.col_suit[seat]
        suit = c // NUM_VALUES
        if suit in suits:
            return [suits.index(suit)]
        return [k for k, s in enumerate(suits) if s < 0]


def build_state(game: CatsleGame, position: Mapping[str, Any]) -> CatsleState:
    """A validated state from a position dict (see ``KEYS``); ``ValueError`` names the problem."""
    draft = _read(game, position)
    state = CatsleState(game)
    state.load(
        phase=draft.phase,
        round_index=draft.round_index,
        round_first=draft.round_first,
        totals=draft.totals,
        round_scores=draft.round_scores,
        last_perfect=draft.last_perfect,
        hands=draft.hands,
        cols=draft.cols,
        discards=draft.discards,
        trick=draft.trick,
        voids=draft.voids,
        leader=draft.leader,
        dealt=draft.dealt,
        turn=draft.turn,
        trick_left=draft.trick_left,
        queue=draft.queue,
        take_pos=draft.take_pos,
        pending=draft.pending,
    )
    return state


def _read(game: CatsleGame, position: Mapping[str, Any]) -> _Draft:
    """The checked fields of a position dict (see ``build_state``), checked in the order below."""
    _check_keys(position)
    phase = _read_phase(game, position)
    draft = _Draft(game)
    _read_scores(draft, position, phase)
    _read_hands(draft, position)
    _read_boards(draft, position)
    draft.discards = draft.claim(_cards(position["discards"], "discards", game.deck), "discards")
    trick_mask = _read_trick(draft, position, phase)
    _read_voids(draft, position)
    draft.phase = phase
    draft.leader = _int(position, "leader", -1, game.num_players - 1)
    if phase in (FIRST, DEAL):
        _check_deal(draft, position)
        return draft
    _start_play(draft, position, trick_mask)
    tricks_done = _count_tricks(draft)
    if phase == PLAY:
        _check_play(draft, position, tricks_done)
    elif phase == OVER:
        _check_over(draft, tricks_done)
    else:  # TAKE / PLACE: a complete trick is being taken
        _read_take(draft, position, trick_mask, tricks_done)
    return draft


def _check_keys(position: Mapping[str, Any]) -> None:
    """The position is a dict with exactly the keys ``KEYS``."""
    if not isinstance(position, Mapping):
        raise ValueError("a position is a dict")
    missing = [k for k in KEYS if k not in position]
    unknown = sorted(set(position) - set(KEYS))
    if missing or unknown:
        raise ValueError(f"position keys: missing {missing}, unknown {unknown}")


def _read_phase(game: CatsleGame, position: Mapping[str, Any]) -> int:
    """The phase, once the player count and column limits are checked to be the game's."""
    n = game.num_players
    if type(position["num_players"]) is not int or position["num_players"] != n:
        raise ValueError(f"position is for {show(position['num_players'])} players, the game has {n}")
    limits = position["column_limits"]
    if not isinstance(limits, list) or limits != list(game.options["column_limits"]) or any(type(v) is not int for v in limits):
        raise ValueError(f"position column_limits {show(limits)} differ from the game's {list(game.options['column_limits'])}")
    if position["phase"] not in PHASE_NAMES:
        raise ValueError(f"unknown phase {show(position['phase'])}; phases: {list(PHASE_NAMES)}")
    return PHASE_NAMES.index(position["phase"])


def _read_scores(draft: _Draft, position: Mapping[str, Any], phase: int) -> None:
    """The round, its first leader, the totals, the scores of the finished rounds and ``last_perfect``."""
    n = draft.game.num_players
    rnd = _int(position, "round", 1, NUM_ROUNDS)
    draft.round_index = rnd - 1
    draft.round_first = _int(position, "round_first", -1, n - 1)
    if (draft.round_first < 0) != (phase == FIRST):
        raise ValueError("round_first is -1 exactly while the first leader is still to be chosen")
    if phase == FIRST and rnd != 1:
        raise ValueError("the first leader is chosen by chance in round 1 only")
    draft.totals = _int_list(position, "totals", n, 0, MAX_POINTS)
    rs = position["round_scores"]
    done = rnd - 1 if phase != OVER else NUM_ROUNDS
    if phase == OVER and rnd != NUM_ROUNDS:
        raise ValueError("a finished game is in round 3")
    if not isinstance(rs, (list, tuple)) or len(rs) != done:
        raise ValueError(f"round_scores must list the {done} finished round(s), got {show(rs)}")
    draft.round_scores = [_int_list({"round_scores": r}, "round_scores", n, 0, MAX_POINTS) for r in rs]
    sums = [sum(r[s] for r in draft.round_scores) for s in range(n)]
    if sums != draft.totals:
        raise ValueError(f"totals {draft.totals} are not the sums of round_scores {sums}")
    draft.last_perfect = _int_list(position, "last_perfect", n, 0, 4)
    if done == 0 and any(draft.last_perfect):
        raise ValueError("last_perfect must be zeros before the first round scoring")


def _read_hands(draft: _Draft, position: Mapping[str, Any]) -> None:
    """The seats' hands (each card claimed once) and their sizes."""
    n = draft.game.num_players
    hands_raw = position["hands"]
    if not isinstance(hands_raw, (list, tuple)) or len(hands_raw) != n:
        raise ValueError(f"hands must be a list of {n} card lists")
    draft.hands = [draft.claim(_cards(h, f"hands[{s}]", draft.game.deck), f"hands[{s}]") for s, h in enumerate(hands_raw)]
    draft.hand_sizes = [bin(h).count("1") for h in draft.hands]


def _read_boards(draft: _Draft, position: Mapping[str, Any]) -> None:
    """The seats' boards: columns of one suit each, no suit in two columns of a board."""
    game = draft.game
    boards_raw = position["boards"]
    if not isinstance(boards_raw, (list, tuple)) or len(boards_raw) != game.num_players:
        raise ValueError(f"boards must be a list of {game.num_players} boards")
    for s, board in enumerate(boards_raw):
        if not isinstance(board, (list, tuple)) or len(board) != game.num_columns:
            raise ValueError(f"boards[{s}] must have {game.num_columns} columns (card lists)")
        for k, col in enumerate(board):
            cards = _cards(col, f"boards[{s}][{k}]", game.deck)
            draft.claim(cards, f"boards[{s}][{k}]")
            suits = {c // NUM_VALUES for c in cards}
            if len(suits) > 1:
                raise ValueError(f"boards[{s}][{k}] mixes suits")
            if cards:
                suit = cards[0] // NUM_VALUES
                if suit in draft.col_suit[s]:
                    raise ValueError(f"boards[{s}] holds {SUITS[suit]} in two columns")
                draft.col_suit[s][k] = suit
            draft.cols[s][k] = cards


def _read_trick(draft: _Draft, position: Mapping[str, Any], phase: int) -> int:
    """The trick on the table; its mask."""
    trick = _cards(position["trick"], "trick", draft.game.deck)
    # while a trick is being taken, its taken cards are both in the trick and on boards
    trick_mask = draft.claim(trick, "trick", draft.board_mask() if phase in (TAKE, PLACE) else 0)
    draft.trick = trick
    return trick_mask


def _read_voids(draft: _Draft, position: Mapping[str, Any]) -> None:
    """The suits each seat has shown to be void in (none of them in its hand)."""
    n = draft.game.num_players
    voids_raw = position["voids"]
    if not isinstance(voids_raw, (list, tuple)) or len(voids_raw) != n:
        raise ValueError(f"voids must be a list of {n} suit lists")
    for s, vs in enumerate(voids_raw):
        if not isinstance(vs, list) or len(set(map(show, vs))) != len(vs):
            raise ValueError(f"voids[{s}] must be a list of distinct suit names, got {show(vs)}")
        for name in vs:
            if name not in SUITS:
                raise ValueError(f"voids[{s}]: unknown suit {show(name)}; suits: {list(SUITS)}")
            v = SUITS.index(name)
            if draft.game.deck & SUIT_MASK[v] == 0:
                raise ValueError(f"voids[{s}]: {name} are not in the deck of this player count")
            if draft.hands[s] & SUIT_MASK[v]:
                raise ValueError(f"voids[{s}]: seat {s} is void in {name} but holds {name} cards")
            draft.voids[s] |= 1 << v


def _check_deal(draft: _Draft, position: Mapping[str, Any]) -> None:
    """Before play (choosing the first leader, dealing): only hands, dealt card by card from seat 0."""
    n = draft.game.num_players
    if draft.board_count() or draft.discards or draft.trick or any(draft.voids):
        raise ValueError("before play starts, boards, discards, trick and voids are empty")
    dealt = sum(draft.hand_sizes)
    if draft.phase == FIRST and dealt:
        raise ValueError("no card is dealt before the first leader is chosen")
    expect = [len(range(s, dealt, n)) for s in range(n)]
    if draft.hand_sizes != expect:
        raise ValueError(f"hand sizes {draft.hand_sizes} do not fit dealing card by card from seat 0 (expected {expect})")
    if dealt >= n * draft.game.hand_size:
        raise ValueError(f"a deal of {dealt} cards is complete: the phase is play")
    if draft.leader != draft.round_first:
        raise ValueError("before play the leader is the round's first leader")
    draft.dealt = dealt
    draft.undealt = draft.game.deck & ~draft.seen
    draft.turn = -1
    _check_none(position, "trick_left", "pending")


def _start_play(draft: _Draft, position: Mapping[str, Any], trick_mask: int) -> None:
    """Once play has started: a leader, the whole deal, the played cards, empty hands and trick at the end, the
    trick following suit."""
    if draft.leader < 0:
        raise ValueError("leader must be a seat once play has started")
    draft.dealt = draft.game.num_players * draft.game.hand_size
    draft.undealt = draft.game.deck & ~draft.seen
    draft.played = draft.discards | trick_mask | draft.board_mask()
    trick = draft.trick
    if draft.phase == OVER:
        if any(draft.hand_sizes) or trick:
            raise ValueError("at the end of the game hands and trick are empty")
        _check_none(position, "trick_left", "pending")
    if trick:
        led = trick[0] // NUM_VALUES
        for i, c in enumerate(trick):
            s = draft.trick_seat(i)
            if c // NUM_VALUES != led and not draft.voids[s] >> led & 1:
                raise ValueError(f"seat {s} played {card_name(c)} on a {SUITS[led]} lead without being void in {SUITS[led]}")


def _count_tricks(draft: _Draft) -> int:
    """The finished tricks of the round, checked against the hand sizes and the discards."""
    n, hand_size = draft.game.num_players, draft.game.hand_size
    trick = draft.trick
    played_now = len(trick) if len(trick) < n else n
    completed = (n * hand_size - sum(draft.hand_sizes) - played_now) if draft.phase != OVER else n * hand_size
    if completed % n or completed < 0:
        raise ValueError(f"hand sizes {draft.hand_sizes} do not fit whole tricks")
    tricks_done = completed // n
    for s in range(n):
        has_played = any(draft.trick_seat(i) == s for i in range(len(trick)))
        want = hand_size - tricks_done - (1 if has_played else 0)
        if draft.phase != OVER and draft.hand_sizes[s] != want:
            raise ValueError(f"seat {s} holds {draft.hand_sizes[s]} cards; after {tricks_done} trick(s) it holds {want}")
    discards = tricks_done * (n - sum(draft.game.takes))
    if bin(draft.discards).count("1") != discards:
        raise ValueError(f"{tricks_done} finished trick(s) leave {discards} discards, not {bin(draft.discards).count('1')}")
    return tricks_done


def _check_play(draft: _Draft, position: Mapping[str, Any], tricks_done: int) -> None:
    """The play phase: a trick not yet complete, the boards of the finished tricks, and a seat with a card to play."""
    if len(draft.trick) >= draft.game.num_players:
        raise ValueError("a complete trick is being taken: the phase is take or place")
    on_boards = tricks_done * sum(draft.game.takes)
    if draft.board_count() != on_boards:
        raise ValueError(f"{tricks_done} finished trick(s) put {on_boards} cards on boards, not {draft.board_count()}")
    _check_none(position, "trick_left", "pending")
    draft.turn = draft.trick_seat(len(draft.trick))
    if draft.hand_sizes[draft.turn] == 0:
        raise ValueError("the player to act has no card")


def _check_over(draft: _Draft, tricks_done: int) -> None:
    """The end of the game: the boards hold the cards taken in the last round."""
    on_boards = tricks_done * sum(draft.game.takes)
    if draft.board_count() != on_boards:
        raise ValueError(f"the finished round put {on_boards} cards on boards, not {draft.board_count()}")
    draft.turn = -1


def _read_take(draft: _Draft, position: Mapping[str, Any], trick_mask: int, tricks_done: int) -> None:
    """The take and place phases: the cards left in the complete trick, the card being placed, whose turn."""
    taken, gone = _read_trick_left(draft, position, trick_mask)
    _check_taken_on_boards(draft, trick_mask, gone, tricks_done)
    pend = draft.pending
    if pend >= 0:
        draft.played |= 1 << pend
        draft.turn = draft.queue[taken - 1]
        if len(draft.columns_for(draft.turn, pend)) < 2:
            raise ValueError(f"{card_name(pend)} has only one possible column: it is placed without a decision")
        draft.phase = PLACE
        return
    draft.turn = draft.queue[taken]
    rest = draft.queue[taken:]
    if bin(draft.trick_left).count("1") == len(rest) and all(s == draft.turn for s in rest):
        raise ValueError("the taker takes every card left: there is no decision to make")
    draft.phase = TAKE


def _read_trick_left(draft: _Draft, position: Mapping[str, Any], trick_mask: int) -> tuple[int, int]:
    """``trick_left``, ``pending`` and the queue of takers; the number of cards taken so far and the mask of
    those not held by the taker (on a board)."""
    n, deck = draft.game.num_players, draft.game.deck
    if len(draft.trick) != n:
        raise ValueError("taking needs a complete trick")
    left = _cards(position["trick_left"], "trick_left", deck) if position["trick_left"] is not None else None
    if left is None or any(not trick_mask >> c & 1 for c in left) or len(set(left)) != len(left):
        raise ValueError("trick_left must list the cards of the trick not taken yet")
    pending = position["pending"]
    pend = _cards([pending], "pending", deck)[0] if pending is not None else -1
    if (pend >= 0) != (draft.phase == PLACE):
        raise ValueError("pending names the card to place exactly in the place phase")
    draft.trick_left = sum(1 << c for c in left)
    ranked = draft.trick_rating()
    draft.queue = [s for s, k in zip(ranked, draft.game.takes, strict=False) for _ in range(k)]
    taken = n - len(left)
    if not 1 <= taken + (draft.phase == TAKE) <= sum(draft.game.takes):
        raise ValueError(f"{taken} card(s) gone from the trick do not fit a take in progress")
    draft.take_pos = taken
    gone = trick_mask & ~draft.trick_left
    if pend >= 0:
        if not gone >> pend & 1:
            raise ValueError("pending must be a card of the trick no longer in trick_left")
        # the pending card is held by the taker, not on a board
        gone &= ~(1 << pend)
        draft.pending = pend
    return taken, gone


def _check_taken_on_boards(draft: _Draft, trick_mask: int, gone: int, tricks_done: int) -> None:
    """The cards taken from the trick so far (but the one being placed) are on boards, besides the finished tricks'."""
    on_boards = draft.board_mask()
    if gone & ~on_boards or trick_mask & on_boards & ~gone:
        raise ValueError("exactly the cards taken from the trick (but the one being placed) are on boards")
    expected = tricks_done * sum(draft.game.takes) + bin(gone).count("1")
    if draft.board_count() != expected or len(set(draft.trick)) != len(draft.trick):
        raise ValueError(f"boards hold {draft.board_count()} cards, expected {expected}")


def _check_none(position: Mapping[str, Any], *keys: str) -> None:
    for k in keys:
        if position[k] is not None:
            raise ValueError(f"position[{show(k)}] must be null in phase {show(position['phase'])}")
