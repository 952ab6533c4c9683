"""Matchstick Tycoon positions (found by the core): ``export_position(state)`` -> plain dict,
``build_state(game, dict)`` -> validated state. The keys are listed in the environment card."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gameshelf.envs.core.position import show
from gameshelf.envs.matchstick_tycoon import kernel as K
from gameshelf.envs.matchstick_tycoon.actions import CHOOSE_FIRST, DEAL, MAX_PLAY, OVER, PLAY
from gameshelf.envs.matchstick_tycoon.cards import COST, FACE_NAMES, NUM_FACES, VALUE_NAMES, face_index, value_index
from gameshelf.envs.matchstick_tycoon.game import MatchstickGame, MatchstickState

MAX_COUNT = K.COUNT_LIMIT
"""Bound of the matchstick counts, ``sticks_spent`` and ``revolutions`` a position may give: the state row
holds 16-bit integers, and play adds at most a few thousand to them (``max_game_length``; the row's bounds)."""


def export_position(state: MatchstickState) -> dict[str, Any]:
    """``state.position()``: the position as plain data (keys: see the environment card)."""
    hands = [[FACE_NAMES[f] for f in range(NUM_FACES) for _ in range(h[f])] for h in state.hands]
    if state.phase in (CHOOSE_FIRST, DEAL):
        return {
            "hands": hands,
            "matchsticks": list(state.sticks),
            "to_move": None,
            "first_player": None if state.phase == CHOOSE_FIRST else state.first_player,
            "dealt": state.dealt,
        }
    # who played which card is known from a deal on, not for a position given without ``played_by``
    attributed = [sum(pb[f] for pb in state.played_by) for f in range(NUM_FACES)] == state.played
    return {
        "hands": hands,
        "matchsticks": list(state.sticks),
        "to_move": state.turn if state.phase == PLAY else None,
        "first_player": state.first_player,
        "table": None
        if not state.table_count
        else {
            "value": VALUE_NAMES[state.table_value],
            "faces": [FACE_NAMES[f] for f in state.table_faces],
            "player": state.last_player,
        },
        "reversed": state.reversed,
        "revolutions": state.revolutions,
        "passed": [s for s in range(state.game.num_players) if state.passed[s]],
        "finished": list(state.out_order),
        "played": {FACE_NAMES[f]: state.played[f] for f in range(NUM_FACES) if state.played[f]},
        **(
            {"played_by": [{FACE_NAMES[f]: pb[f] for f in range(NUM_FACES) if pb[f]} for pb in state.played_by]}
            if attributed
            else {}
        ),
        "pending": None
        if not state.pending_count
        else {
            "value": VALUE_NAMES[state.pending_value],
            "count": state.pending_count,
            "picked": [FACE_NAMES[f] for f in state.picks],
        },
        "sticks_spent": state.sticks_spent,
    }


def _faces(items: Any, what: str) -> list[int]:
    if not isinstance(items, (list, tuple)):
        raise ValueError(f"{what} must be a list of card names, got {show(items)}")
    out = []
    for name in items:
        if not isinstance(name, str):
            raise ValueError(f"{what}: card {show(name)} is not a card name")
        try:
            out.append(face_index(name))
        except ValueError as err:
            raise ValueError(f"{what}: {err}") from None
    return out


def _face_counts(data: Any, what: str) -> list[int]:
    counts = [0] * NUM_FACES
    if not isinstance(data, Mapping):
        raise ValueError(f"{what} must map card names to counts, got {show(data)}")
    for name, c in data.items():
        try:
            f = face_index(str(name))
        except ValueError as err:
            raise ValueError(f"{what}: {err}") from None
        if not isinstance(c, int) or isinstance(c, bool) or c < 0:
            raise ValueError(f"{what}: count of {name} must be a non-negative integer, got {show(c)}")
        if c > MAX_COUNT:
            raise ValueError(f"{what}: count of {name} must be at most {MAX_COUNT}, got {show(c)}")
        counts[f] += c
    return counts


def _seat(value: Any, n: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < n:
        raise ValueError(f"{what} must be a seat 0..{n - 1}, got {show(value)}")
    return value


KNOWN_KEYS = {
    "hands", "matchsticks", "to_move", "first_player", "table", "reversed", "revolutions", "passed",
    "finished", "played", "played_by", "pending", "sticks_spent", "dealt",
}  # fmt: skip
"""The keys a position may give (the environment card describes them)."""


def build_state(game: MatchstickGame, pos: Mapping[str, Any]) -> MatchstickState:
    """``game.state_from_position(pos)``: a validated state from a position dict (keys: see the environment card)."""
    _check_keys(pos)
    dealt = _read_dealt(game, pos)
    if dealt < game.cards_dealt:
        return _deal_position(game, pos, dealt)
    st = MatchstickState(game)
    st.phase = PLAY
    st.dealt = game.cards_dealt
    _read_hands(st, pos["hands"])
    _read_matchsticks(st, pos["matchsticks"])
    _read_played(st, pos.get("played", {}), pos.get("played_by"))
    _read_pending(st, pos.get("pending"))
    _check_card_counts(st)
    _read_table(st, pos.get("table"))
    _read_reversal(st, pos)
    st.sticks_spent = _count(pos.get("sticks_spent", 0), "sticks_spent")
    fp = pos.get("first_player", -1)
    st.first_player = -1 if type(fp) is int and fp == -1 else _seat(fp, game.num_players, "first_player (or -1: not known)")
    over = _read_finished(st, pos.get("finished", []))
    passed = _read_passed(st, pos.get("passed", []), over)
    if over:
        return _game_over(st, pos["to_move"])
    _read_turn(st, pos["to_move"], passed)
    _check_pending_play(st)
    if not st.legal_action_mask().any():
        raise ValueError("the player to move would have no legal action (the pending play cannot be completed)")
    return st


def _check_keys(pos: Mapping[str, Any]) -> None:
    """No key the position format does not know, and the three keys every position gives."""
    unknown = sorted(set(pos) - KNOWN_KEYS)
    if unknown:
        raise ValueError(f"unknown position key(s) {unknown}; known keys: {sorted(KNOWN_KEYS)}")
    for key in ("hands", "matchsticks", "to_move"):
        if key not in pos:
            raise ValueError(f"position needs the key {show(key)}")


def _read_dealt(game: MatchstickGame, pos: Mapping[str, Any]) -> int:
    """The cards dealt so far (all of them unless the position is a chance node of the deal)."""
    dealt = pos.get("dealt", game.cards_dealt)
    if not isinstance(dealt, int) or isinstance(dealt, bool) or not 0 <= dealt <= game.cards_dealt:
        raise ValueError(f"dealt must be 0..{game.cards_dealt} (the cards dealt so far), got {show(dealt)}")
    return dealt


def _count(value: Any, what: str) -> int:
    """A count the state row holds: a non-negative 16-bit integer."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer, got {show(value)}")
    if value > MAX_COUNT:
        raise ValueError(f"{what} must be at most {MAX_COUNT} (the state row holds 16-bit counts), got {show(value)}")
    return value


def _read_hands(st: MatchstickState, hands: Any) -> None:
    """The seats' hands (lists of card names) and their sizes."""
    n = st.game.num_players
    if not isinstance(hands, (list, tuple)) or len(hands) != n:
        raise ValueError(f"hands must list {n} hands, got {show(hands)}")
    for s in range(n):
        for f in _faces(hands[s], f"hands[{s}]"):
            st.hands[s][f] += 1
        st.hand_sizes[s] = sum(st.hands[s])


def _read_matchsticks(st: MatchstickState, sticks: Any) -> None:
    """The seats' matchstick counts."""
    n = st.game.num_players
    if not isinstance(sticks, (list, tuple)) or len(sticks) != n:
        raise ValueError(f"matchsticks must list {n} counts, got {show(sticks)}")
    st.sticks = [_count(k, f"matchsticks[{s}]") for s, k in enumerate(sticks)]


def _read_played(st: MatchstickState, played: Any, played_by: Any) -> None:
    """The cards played so far, and who played them when the position says (``played_by``)."""
    n = st.game.num_players
    st.played = _face_counts(played, "played")
    if played_by is None:  # null or left out: who played which card is not known
        return
    if not isinstance(played_by, (list, tuple)) or len(played_by) != n:
        raise ValueError(f"played_by must list {n} maps, got {show(played_by)}")
    st.played_by = [_face_counts(pb, f"played_by[{s}]") for s, pb in enumerate(played_by)]
    totals = [sum(pb[f] for pb in st.played_by) for f in range(NUM_FACES)]
    if totals != st.played:
        raise ValueError("played_by does not add up to played")


def _read_pending(st: MatchstickState, pending: Any) -> None:
    """The play being laid card by card: its value, its size and the cards picked so far."""
    if pending is None:
        return
    if not isinstance(pending, Mapping) or set(pending) - {"value", "count", "picked"}:
        raise ValueError(f"pending must be a map with value, count, picked; got {show(pending)}")
    try:
        st.pending_value = value_index(str(pending.get("value")))
    except ValueError as err:
        raise ValueError(f"pending: {err}") from None
    count = pending.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_PLAY:
        raise ValueError(f"pending count must be 1..{MAX_PLAY}, got {show(count)}")
    st.pending_count = count
    picks = _faces(pending.get("picked", []), "pending picked")
    if len(picks) >= count:
        raise ValueError("pending: a play with all its cards laid is complete, not pending")
    st.picks = picks
    for f in st.picks:
        if COST[f][st.pending_value] < 0:
            raise ValueError(f"pending: card {FACE_NAMES[f]} cannot show {VALUE_NAMES[st.pending_value]}")
    st.pending_cost = sum(COST[f][st.pending_value] for f in st.picks)


def _check_card_counts(st: MatchstickState) -> None:
    """Hands, played and picked cards: no more of a card than the deck has, and every dealt card once."""
    game = st.game
    picks = st.pick_counts()
    used = [sum(h[f] for h in st.hands) + st.played[f] + picks[f] for f in range(NUM_FACES)]
    for f in range(NUM_FACES):
        if used[f] > game.deck[f]:
            raise ValueError(f"{used[f]} cards {FACE_NAMES[f]} in the position, the deck has {game.deck[f]}")
    if sum(used) != game.cards_dealt:
        raise ValueError(f"hands, played and laid cards hold {sum(used)} cards; {game.cards_dealt} are dealt in this game")


def _read_table(st: MatchstickState, table: Any) -> None:
    """The play on the table: its value, its cards (among the played ones) and the seat that made it."""
    if table is None:
        return
    if not isinstance(table, Mapping) or set(table) != {"value", "faces", "player"}:
        raise ValueError(f"table must be a map with value, faces, player; got {show(table)}")
    try:
        st.table_value = value_index(str(table["value"]))
    except ValueError as err:
        raise ValueError(f"table: {err}") from None
    if st.table_value >= st.game.num_values:
        raise ValueError(f"table: value {VALUE_NAMES[st.table_value]} exists only with the expansion")
    faces = _faces(table["faces"], "table faces")
    if not 1 <= len(faces) <= MAX_PLAY:
        raise ValueError(f"table holds {len(faces)} cards; a play is 1..{MAX_PLAY} cards")
    st.table_faces = faces
    st.table_count = len(faces)
    for f in st.table_faces:
        if COST[f][st.table_value] < 0:
            raise ValueError(f"table: card {FACE_NAMES[f]} cannot show {VALUE_NAMES[st.table_value]}")
        if st.table_faces.count(f) > st.played[f]:
            raise ValueError(f"table: card {FACE_NAMES[f]} on the table is missing from played")
    st.last_player = _seat(table["player"], st.game.num_players, "table player")


def _read_reversal(st: MatchstickState, pos: Mapping[str, Any]) -> None:
    """Whether the order of values is reversed, and the revolutions so far (their parity agrees)."""
    reversed_ = pos.get("reversed", False)
    if not isinstance(reversed_, bool):
        raise ValueError(f"reversed must be true or false, got {show(reversed_)}")
    st.reversed = reversed_
    rev = pos.get("revolutions", int(st.reversed))
    if not isinstance(rev, int) or isinstance(rev, bool) or rev < 0 or rev % 2 != int(st.reversed):
        raise ValueError(f"revolutions {show(rev)} does not agree with reversed={st.reversed}")
    if rev > MAX_COUNT:
        raise ValueError(f"revolutions must be at most {MAX_COUNT} (the state row holds 16-bit counts), got {show(rev)}")
    st.revolutions = rev


def _read_finished(st: MatchstickState, finished: Any) -> bool:
    """The finishing order (seats out of cards and matchsticks); true when it says the game is over."""
    n = st.game.num_players
    if not isinstance(finished, (list, tuple)):
        raise ValueError(f"finished must list distinct seats, got {show(finished)}")
    for s in finished:
        _seat(s, n, "finished seat")
    if len(set(finished)) != len(finished):
        raise ValueError(f"finished must list distinct seats, got {show(finished)}")
    for i, s in enumerate(finished):
        if i < n - 1 and (st.hand_sizes[s] or st.sticks[s]):
            raise ValueError(f"seat {s} is listed as finished but still holds cards or matchsticks")
        st.place[s] = i
        st.in_game[s] = False
    st.out_order = list(finished)
    for s in range(n):
        if st.in_game[s] and not st.hand_sizes[s] and not st.sticks[s]:
            raise ValueError(f"seat {s} has no cards and no matchsticks but is not listed as finished")
    if len(finished) == n - 1:
        raise ValueError(f"finished lists {n - 1} seats: the game is over, list the seat left last too")
    return len(finished) >= n - 1


def _read_passed(st: MatchstickState, passed: Any, over: bool) -> Any:
    """The seats that passed since the play on the table (checked against the table); returned as given."""
    n = st.game.num_players
    if not isinstance(passed, (list, tuple)):
        raise ValueError(f"passed must list seats, got {show(passed)}")
    if len(set(map(show, passed))) != len(passed):
        raise ValueError(f"passed must list each seat once, got {show(passed)}")
    for s in passed:
        _seat(s, n, "passed seat")
        # the game ends when the last but one player goes out: the player left may have passed before
        if not st.in_game[s] and not (over and s == st.out_order[-1]):
            raise ValueError(f"seat {s} is out and cannot have passed")
        if s == st.last_player:
            raise ValueError(f"seat {s} made the play on the table and cannot have passed since")
        st.passed[s] = True
    if not st.table_count and any(st.passed):
        raise ValueError("passes are recorded only while cards are on the table")
    if not over and st.table_count and all(st.passed[s] for s in range(n) if st.in_game[s] and s != st.last_player):
        raise ValueError("every other player has passed: the table would have been cleared")
    return passed


def _game_over(st: MatchstickState, to_move: Any) -> MatchstickState:
    """The finished game: nobody to move and no play pending."""
    if to_move is not None:
        raise ValueError("the game is over: to_move must be None")
    if st.pending_count:
        raise ValueError("the game is over: no play can be pending")
    st.phase = OVER
    st.turn = -1
    return st


def _read_turn(st: MatchstickState, to_move: Any, passed: Any) -> None:
    """The seat to move: in the game, and the passes since the table's play lead up to it."""
    n = st.game.num_players
    st.turn = _seat(to_move, n, "to_move")
    if not st.in_game[st.turn]:
        raise ValueError(f"seat {st.turn} is out and cannot be to move")
    if st.table_count:  # since the play on the table, every seat in game took a turn in order: all passed
        between = [(st.last_player + k) % n for k in range(1, (st.turn - st.last_player) % n or n)]
        expected = sorted(q for q in between if st.in_game[q])
        if st.turn == st.last_player or sorted(passed) != expected:
            raise ValueError(
                f"passed must list the seats in game after the table's player {st.last_player} and before "
                f"seat {st.turn} to move: {expected}"
            )


def _check_pending_play(st: MatchstickState) -> None:
    """A pending play of the seat to move: a value of this game that beats the table, and affordable."""
    if not st.pending_count:
        return
    if st.pending_value >= st.game.num_values:
        raise ValueError(f"pending: value {VALUE_NAMES[st.pending_value]} exists only with the expansion")
    if st.table_count and (
        st.pending_count != st.table_count
        or not (st.pending_value < st.table_value if st.reversed else st.pending_value > st.table_value)
    ):
        raise ValueError("pending play does not beat the table")
    if st.pending_cost > st.sticks[st.turn]:
        raise ValueError("pending play costs more matchsticks than the player holds")


def _deal_position(game: MatchstickGame, pos: Mapping[str, Any], dealt: int) -> MatchstickState:
    """A chance node of the deal: ``dealt`` cards dealt one at a time from seat 0 on, nothing played yet."""
    n = game.num_players

    def empty(value: Any) -> bool:
        if isinstance(value, Mapping):
            return not any(value.values())
        if isinstance(value, (list, tuple)):
            return all(empty(v) for v in value)
        return value is None

    for key in ("table", "passed", "finished", "played", "played_by", "pending"):
        if not empty(pos.get(key)):
            raise ValueError(f"{key} must be empty while the cards are dealt ({dealt} of {game.cards_dealt} so far)")
    for key in ("reversed", "revolutions", "sticks_spent"):
        if pos.get(key, 0):
            raise ValueError(f"{key} must be 0 while the cards are dealt")
    if pos["to_move"] is not None:
        raise ValueError("nobody is to move while the cards are dealt: to_move must be None")
    st = MatchstickState(game)
    fp = pos.get("first_player")
    if fp is None or fp == -1:
        if dealt:
            raise ValueError("the first player is drawn before the deal: give first_player")
    else:
        st.first_player = _seat(fp, n, "first_player")
        st.phase = DEAL
        st.dealt = dealt
    hands = pos["hands"]
    if not isinstance(hands, (list, tuple)) or len(hands) != n:
        raise ValueError(f"hands must list {n} hands, got {show(hands)}")
    for s in range(n):
        for f in _faces(hands[s], f"hands[{s}]"):
            st.hands[s][f] += 1
        st.hand_sizes[s] = sum(st.hands[s])
        expected = len(range(s, dealt, n))
        if st.hand_sizes[s] != expected:
            raise ValueError(
                f"hands[{s}] has {st.hand_sizes[s]} cards; after {dealt} cards dealt from seat 0 on it has {expected}"
            )
    for f in range(NUM_FACES):
        held = sum(h[f] for h in st.hands)
        if held > game.deck[f]:
            raise ValueError(f"{held} cards {FACE_NAMES[f]} in the hands, the deck has {game.deck[f]}")
        st.undealt[f] -= held
    if not isinstance(pos["matchsticks"], (list, tuple)) or list(pos["matchsticks"]) != [1] * n:
        raise ValueError("everyone holds 1 matchstick while the cards are dealt")
    return st
