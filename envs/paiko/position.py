"""Paikō position builder: ``export_position(state)`` and ``build_state(game, position)`` (validated; found by the core).

Keys (all JSON-able; the package docstring documents them):

``phase`` (a name of ``PHASE_NAMES``), ``to_move`` (the seat whose turn it is; in the draft the seat
drafting), ``tiles`` (list of ``[x, y, owner, type name, facing]``), ``reserve`` / ``hand`` (two lists of 8
counts in type order), ``lost`` (two ints), ``score`` (optional, checked against the board), ``turn``,
``passes`` (passes in a row: 1 if the previous turn was a pass, 2 once two passes ended the game),
``repeat`` (per seat ``null`` or ``[x, y, count]``), ``draft_step`` / ``draft_left`` (draft only),
``picks``, ``selected_type`` (type name or ``null``), ``selected_square`` / ``destination`` (``[x, y]`` or
``null``), ``gifts``, ``winner``, ``end``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gameshelf.envs.core.position import show
from gameshelf.envs.paiko.actions import (
    DEPLOY_FACING,
    DEPLOY_SQUARE,
    DRAFT,
    DRAW_MORE,
    GIFT,
    MOVE_DEST,
    MOVE_FACING,
    OVER,
    PHASE_NAMES,
    SAI_FACING,
    SAI_SHIFT,
    START,
)
from gameshelf.envs.paiko.board import (
    COPIES,
    EMPTY,
    INDEX,
    IS_BLACK,
    LOTUS,
    NUM_TYPES,
    POINTS,
    SAI,
    SQUARES,
    TYPE_NAMES,
    code_facing,
    code_owner,
    code_type,
    tile_code,
)
from gameshelf.envs.paiko.game import DRAFT_SCHEDULE, DRAW_LOST, DRAW_POINTS, END_REASONS, WIN_POINTS, PaikoGame, PaikoState

KEYS = (
    "phase",
    "to_move",
    "tiles",
    "reserve",
    "hand",
    "lost",
    "score",
    "turn",
    "passes",
    "repeat",
    "draft_step",
    "draft_left",
    "picks",
    "selected_type",
    "selected_square",
    "destination",
    "gifts",
    "winner",
    "end",
)


def _xy(sq: int) -> list[int] | None:
    return None if sq < 0 else list(SQUARES[sq])


def export_position(state: PaikoState) -> dict[str, Any]:
    tiles = []
    for sq, code in enumerate(state.board):
        if code >= 0:
            x, y = SQUARES[sq]
            tiles.append([x, y, code_owner(code), TYPE_NAMES[code_type(code)], code_facing(code)])
    return {
        "phase": PHASE_NAMES[state.phase],
        "to_move": state.mover,
        "tiles": tiles,
        "reserve": [list(r) for r in state.reserve],
        "hand": [list(h) for h in state.hand],
        "lost": list(state.lost),
        "score": list(state.score),
        "turn": state.turn,
        "passes": state.passes,
        "repeat": [None if state.rep_sq[p] < 0 else [*SQUARES[state.rep_sq[p]], state.rep_count[p]] for p in range(2)],
        "draft_step": state.draft_step,
        "draft_left": state.draft_left,
        "picks": state.picks,
        "selected_type": None if state.sel_type < 0 else TYPE_NAMES[state.sel_type],
        "selected_square": _xy(state.sel_sq),
        "destination": _xy(state.sel_dest),
        "gifts": state.gifts,
        "winner": state.winner,
        "end": state.end,
    }


def _int(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int, got {show(value)}")
    if not low <= value <= high:
        raise ValueError(f"{name}={value} is out of range {low}..{high}")
    return value


def _square(value: Any, name: str) -> int:
    if value is None:
        return -1
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"{name} must be [x, y] or null, got {show(value)}")
    x, y = (_int(v, name, 0, 13) for v in value)
    if (x, y) not in INDEX:
        raise ValueError(f"{name}: ({x},{y}) is not a square of the board")
    return INDEX[(x, y)]


def _counts(value: Any, name: str) -> list[list[int]]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"{name} must be two lists of {NUM_TYPES} counts")
    out = []
    for p, row in enumerate(value):
        if not isinstance(row, (list, tuple)) or len(row) != NUM_TYPES:
            raise ValueError(f"{name}[{p}] must list {NUM_TYPES} counts (types {', '.join(TYPE_NAMES)})")
        out.append([_int(v, f"{name}[{p}][{TYPE_NAMES[t]}]", 0, COPIES) for t, v in enumerate(row)])
    return out


def _neutral(position: Mapping[str, Any], key: str, neutral: Any, where: str) -> None:
    """A key that does not apply (``where``) may be left out or hold its neutral value, nothing else."""
    if key in position and not (type(position[key]) is type(neutral) and position[key] == neutral):
        raise ValueError(f"{key} must be {show(neutral)} (or left out) in {where}, got {show(position[key])}")


def build_state(game: PaikoGame, position: Mapping[str, Any]) -> PaikoState:
    """A validated state from ``position`` (``ValueError`` naming the first problem)."""
    _check_keys(position)
    phase = _read_phase(position)
    state = PaikoState(game)
    state.phase = phase
    state.mover = _int(position["to_move"], "to_move", 0, 1)
    state.reserve = _counts(position["reserve"], "reserve")
    state.hand = _counts(position["hand"], "hand")
    state.lost = _read_lost(position)
    on_board = _place_tiles(state, position["tiles"])
    _check_tile_counts(state, on_board)
    _read_score(state, position)
    state.turn = _int(position.get("turn", 0), "turn", 0, game.max_turns)
    state.passes = _int(position.get("passes", 0), "passes", 0, 2)
    _read_repeat(state, position)
    _read_turn_choices(state, position)
    if phase == DRAFT:
        _read_draft(state, position)
    else:  # outside the draft its keys may only hold their neutral values (what the export gives)
        state.draft_step, state.draft_left = len(DRAFT_SCHEDULE), 0
        _neutral(position, "draft_step", state.draft_step, PHASE_NAMES[phase])
        _neutral(position, "draft_left", state.draft_left, PHASE_NAMES[phase])
    if phase == OVER:
        _read_finished_game(state, position)
        return state
    _neutral(position, "end", "", "a game that goes on")
    _neutral(position, "winner", -1, "a game that goes on")
    _check_game_goes_on(state, phase)
    _check_draw_picks(state, phase)
    # between turns and once captures are resolved (gifts) nothing is capturable; after a Sai deploy the
    # opponent's tiles may be (captures come after the Sai's shift)
    _check_nothing_capturable(state, (state.mover,) if phase in (SAI_SHIFT, SAI_FACING) else (0, 1))
    _check_selection(state, phase)
    _check_gifts(state, phase)
    _check_some_decision(state, phase)
    return state


def _check_keys(position: Any) -> None:
    """The position is a mapping with known keys only and the required ones present."""
    if not isinstance(position, Mapping):
        raise ValueError(f"a position is a mapping, got {type(position).__name__}")
    unknown = sorted(set(position) - set(KEYS))
    if unknown:
        raise ValueError(f"unknown position key(s) {unknown}; known keys: {list(KEYS)}")
    for key in ("phase", "to_move", "tiles", "reserve", "hand"):
        if key not in position:
            raise ValueError(f"position needs the key {show(key)}")


def _read_phase(position: Mapping[str, Any]) -> int:
    """The phase's index from its name."""
    if position["phase"] not in PHASE_NAMES:
        raise ValueError(f"unknown phase {show(position['phase'])}; phases: {list(PHASE_NAMES)}")
    return PHASE_NAMES.index(position["phase"])


def _read_lost(position: Mapping[str, Any]) -> list[int]:
    """The tiles each player has lost (default none)."""
    lost = position.get("lost", [0, 0])
    if not isinstance(lost, (list, tuple)) or len(lost) != 2:
        raise ValueError("lost must be two ints")
    return [_int(v, "lost", 0, NUM_TYPES * COPIES) for v in lost]


def _place_tiles(state: PaikoState, tiles: Any) -> list[list[int]]:
    """Place the ``tiles`` entries on the board; returns each player's count of tiles on board per type."""
    if not isinstance(tiles, (list, tuple)):
        raise ValueError("tiles must be a list of [x, y, owner, type, facing]")
    on_board = [[0] * NUM_TYPES, [0] * NUM_TYPES]
    for entry in tiles:
        if not isinstance(entry, (list, tuple)) or len(entry) != 5:
            raise ValueError(f"a tile is [x, y, owner, type, facing], got {show(entry)}")
        sq = _square(entry[:2], "tile square")
        owner = _int(entry[2], "tile owner", 0, 1)
        if entry[3] not in TYPE_NAMES:
            raise ValueError(f"unknown tile type {show(entry[3])}; types: {list(TYPE_NAMES)}")
        kind = TYPE_NAMES.index(entry[3])
        facing = _int(entry[4], "tile facing", 0, 3)
        if state.board[sq] != EMPTY:
            raise ValueError(f"two tiles on ({entry[0]},{entry[1]})")
        if IS_BLACK[sq] and kind != LOTUS:
            raise ValueError(f"a {entry[3]} on the black square ({entry[0]},{entry[1]}): only a Lotus may stand there")
        state._place(sq, tile_code(owner, kind, facing))
        on_board[owner][kind] += 1
    return on_board


def _check_tile_counts(state: PaikoState, on_board: list[list[int]]) -> None:
    """Per player: at most ``COPIES`` of each type on board, in reserve and in hand, the rest counted as lost."""
    for p in range(2):
        removed = 0
        for t in range(NUM_TYPES):
            used = on_board[p][t] + state.reserve[p][t] + state.hand[p][t]
            if used > COPIES:
                raise ValueError(
                    f"player {p} has {used} {TYPE_NAMES[t]} tiles on board, in reserve and in hand (at most {COPIES})"
                )
            removed += COPIES - used
        if removed != state.lost[p]:
            raise ValueError(
                f"player {p}: {removed} tiles are missing from board, reserve and hand but lost says {state.lost[p]}"
            )


def _read_score(state: PaikoState, position: Mapping[str, Any]) -> None:
    """The score the board gives; a given ``score`` must match it."""
    for p in range(2):
        state.score[p] = sum(POINTS[p][sq] for sq in state.tiles[p] if code_type(state.board[sq]) != LOTUS)
    board_score = list(state.score)
    score = position.get("score", board_score)
    if not isinstance(score, list) or score != board_score or any(type(v) is not int for v in score):
        raise ValueError(f"score {show(score)} does not match the board (which gives {board_score})")


def _read_repeat(state: PaikoState, position: Mapping[str, Any]) -> None:
    """Each player's repeated square and count (``null`` for none)."""
    repeat = position.get("repeat", [None, None])
    if not isinstance(repeat, (list, tuple)) or len(repeat) != 2:
        raise ValueError("repeat must be two entries, each null or [x, y, count]")
    for p, rep in enumerate(repeat):
        if rep is None:
            continue
        if not isinstance(rep, (list, tuple)) or len(rep) != 3:
            raise ValueError(f"repeat[{p}] must be null or [x, y, count]")
        sq = _square(rep[:2], f"repeat[{p}]")
        count = _int(rep[2], f"repeat[{p}] count", 1, 3)
        code = state.board[sq]
        if code >= 0 and code_owner(code) != p:
            raise ValueError(f"repeat[{p}]: the square holds the other player's tile")
        state.rep_sq[p], state.rep_count[p] = sq, count


def _read_turn_choices(state: PaikoState, position: Mapping[str, Any]) -> None:
    """The turn's pending sub-decision: picks, selected type, square and destination, gifts owed."""
    state.picks = _int(position.get("picks", 0), "picks", 0, 2)
    sel_type = position.get("selected_type")
    if sel_type is not None and sel_type not in TYPE_NAMES:
        raise ValueError(f"unknown selected_type {show(sel_type)}")
    state.sel_type = -1 if sel_type is None else TYPE_NAMES.index(sel_type)
    state.sel_sq = _square(position.get("selected_square"), "selected_square")
    state.sel_dest = _square(position.get("destination"), "destination")
    state.gifts = _int(position.get("gifts", 0), "gifts", 0, NUM_TYPES * COPIES)


def _read_draft(state: PaikoState, position: Mapping[str, Any]) -> None:
    """The draft's step and picks left, checked against the schedule, the empty board and the hands."""
    p = state.mover
    if state.turn or state.passes or state.rep_sq != [-1, -1]:
        raise ValueError("the draft comes before the first turn: turn 0, passes 0, no repeat")
    step = _int(position.get("draft_step", 0), "draft_step", 0, len(DRAFT_SCHEDULE) - 1)
    seat, count = DRAFT_SCHEDULE[step]
    left = _int(position.get("draft_left", count), "draft_left", 1, count)
    if seat != p:
        raise ValueError(f"draft step {step} is player {seat}'s, not {p}'s")
    if position["tiles"] or any(state.lost):
        raise ValueError("the board is empty and nothing is lost during the draft")
    taken = [sum(c for s, c in DRAFT_SCHEDULE[:step] if s == q) for q in range(2)]
    taken[p] += count - left
    for q in range(2):
        if sum(state.hand[q]) != taken[q] or sum(state.reserve[q]) != NUM_TYPES * COPIES - taken[q]:
            raise ValueError(
                f"draft step {step} with {left} left: player {q} must hold {taken[q]} tiles in hand, the rest in reserve"
            )
    state.draft_step, state.draft_left = step, left


def _read_finished_game(state: PaikoState, position: Mapping[str, Any]) -> None:
    """A finished game's end reason and winner, checked against the board and the turn."""
    end = position.get("end", "")
    if not isinstance(end, str) or end not in END_REASONS:
        raise ValueError(f"a finished game needs end in {list(END_REASONS)}, got {show(end)}")
    winner = _int(position.get("winner", -1), "winner", -1, 1)
    if state.picks or state.gifts or max(state.sel_type, state.sel_sq, state.sel_dest) >= 0:
        raise ValueError("a finished game has no picks, gifts or selection")
    _check_nothing_capturable(state, (0, 1))
    _check_end(state, end, winner)
    state.end, state.winner = end, winner


def _check_draw_picks(state: PaikoState, phase: int) -> None:
    """Picks count the tiles drawn this turn: phase draw_more has 1 or 2 and a reserve to draw from."""
    if state.picks and phase not in (START, DRAW_MORE):
        raise ValueError("picks counts the tiles drawn this turn: only in phase draw_more")
    if phase == 2 and not 1 <= state.picks <= 2:
        raise ValueError("phase draw_more needs picks 1 or 2")
    if phase == 2 and not any(state.reserve[state.mover]):
        raise ValueError("phase draw_more with an empty reserve")


def _check_selection(state: PaikoState, phase: int) -> None:
    """The selected type, square and destination are given exactly where the phase needs them, and fit."""
    p = state.mover
    needs_type = phase in (DEPLOY_SQUARE, DEPLOY_FACING)
    needs_sq = phase in (DEPLOY_FACING, SAI_SHIFT, SAI_FACING, MOVE_DEST, MOVE_FACING)
    needs_dest = phase in (SAI_FACING, MOVE_FACING)
    for flag, value, name in (
        (needs_type, state.sel_type, "selected_type"),
        (needs_sq, state.sel_sq, "selected_square"),
        (needs_dest, state.sel_dest, "destination"),
    ):
        if flag != (value >= 0):
            raise ValueError(f"{name} is {'needed' if flag else 'not allowed'} in phase {PHASE_NAMES[phase]}")
    if needs_type and state.hand[p][state.sel_type] == 0:
        raise ValueError(f"no {TYPE_NAMES[state.sel_type]} in player {p}'s hand to deploy")
    if phase in (SAI_SHIFT, SAI_FACING):
        code = state.board[state.sel_sq]
        if code < 0 or code_owner(code) != p or code_type(code) != SAI:
            raise ValueError("selected_square must hold the mover's just-deployed Sai")
    if phase in (MOVE_DEST, MOVE_FACING):
        code = state.board[state.sel_sq]
        if code < 0 or code_owner(code) != p:
            raise ValueError("selected_square must hold a tile of the mover")


def _check_gifts(state: PaikoState, phase: int) -> None:
    """Gifts are owed only in phase gift: one per captured tile, no more than the capturer's reserve holds."""
    p = state.mover
    if phase == GIFT:
        if state.gifts < 1 or not any(state.reserve[p]):
            raise ValueError("phase gift needs gifts >= 1 and a non-empty reserve of the mover (the capturer)")
        if state.gifts > sum(state.reserve[p]):
            raise ValueError(
                f"gifts={state.gifts} but the capturer's reserve holds {sum(state.reserve[p])}: "
                "a gift is skipped when that reserve is empty, so no more are owed than it holds"
            )
        if state.gifts > state.lost[1 - p]:
            raise ValueError(f"gifts={state.gifts}: one is owed per captured tile, but player {1 - p} lost {state.lost[1 - p]}")
    elif state.gifts:
        raise ValueError("gifts are only owed in phase gift")


def _check_some_decision(state: PaikoState, phase: int) -> None:
    """The mover has at least one legal decision."""
    try:
        legal = state.legal_actions()
    except KeyError:
        legal = []
    if not legal:
        raise ValueError(f"no legal decision in phase {PHASE_NAMES[phase]} with this selection")


def _check_nothing_capturable(state: PaikoState, players: tuple[int, ...]) -> None:
    for q in players:
        if state.capturable_tiles(q):
            raise ValueError(f"player {q}'s tile on {SQUARES[state.capturable_tiles(q)[0]]} is capturable: not possible here")


def _exhausted(state: PaikoState) -> bool:
    return min(state.lost) >= DRAW_LOST and max(state.score) <= DRAW_POINTS


def _check_game_goes_on(state: PaikoState, phase: int) -> None:
    """A game that goes on: no end test has held after a complete turn.

    The end tests run after each complete turn, gifts included, so the mover may already hold 10 points
    (or both players meet the lost-tiles draw) only between his action and the end of his turn: after a
    Sai deploy (phases ``sai_shift``, ``sai_facing``) or during the gifts. The other player can never.
    """
    p = state.mover
    mid_turn = phase in (SAI_SHIFT, SAI_FACING, GIFT)
    for q in (0, 1):
        if state.score[q] >= WIN_POINTS and (q != p or not mid_turn):
            raise ValueError(
                f"player {q} has {state.score[q]} points: a player with {WIN_POINTS} or more has won (phase 'over', "
                f"end 'points'); only the mover may hold them mid-turn, before the win test (not in phase {PHASE_NAMES[phase]})"
            )
    if _exhausted(state) and phase != GIFT:
        raise ValueError("both players lost 13+ tiles with 5 points or fewer: the game is over (end 'exhaustion')")
    if state.passes > 1:
        raise ValueError("two passes in a row end the game (end 'passes')")
    if state.turn >= state.game.max_turns:
        raise ValueError(f"turn {state.turn} reaches max_turns={state.game.max_turns}: the game is over (end 'max_turns')")


def _check_end(state: PaikoState, end: str, winner: int) -> None:
    """A finished game: ``end`` is the first end test that holds after the last turn (points, lost tiles, passes, turns)."""
    if state.turn < 1:
        raise ValueError("a game ends after a complete turn: turn must be at least 1")
    reached = [q for q in (0, 1) if state.score[q] >= WIN_POINTS]
    if end == "points":
        if reached != [winner] or winner != state.mover or state.passes:
            raise ValueError(
                f"a game won on points has the last mover (player {state.mover}, who did not pass) as its winner, "
                f"the only one with {WIN_POINTS}+"
            )
        return
    if winner >= 0:
        raise ValueError("a game ends with a winner exactly when someone reached 10 points")
    if reached:
        raise ValueError(f"player {reached[0]} has {WIN_POINTS}+ points: the game ended on points with him the winner")
    if end == "exhaustion":
        if not _exhausted(state):
            raise ValueError("end 'exhaustion' needs both players with 13+ lost tiles and 5 points or fewer")
        return
    if _exhausted(state):
        raise ValueError("both players lost 13+ tiles with 5 points or fewer: end must be 'exhaustion'")
    if (end == "passes") != (state.passes == 2):
        raise ValueError("end is 'passes' exactly when the last two turns were passes (passes 2)")
    if end == "max_turns" and state.turn != state.game.max_turns:
        raise ValueError(f"end 'max_turns' needs turn == max_turns ({state.game.max_turns})")


__all__ = ["KEYS", "build_state", "export_position"]
