"""Amoriax: every rule, every worked example of docs/rules/amoriax.md (section 4), each option both ways."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.amoriax.actions import PASS
from gameshelf.envs.amoriax.board import NUM_KINDS, square
from gameshelf.envs.amoriax.game import AmoriaxGame, AmoriaxState
from gameshelf.envs.amoriax.heuristic import AmoriaxHeuristic
from gameshelf.envs.core.game import TERMINAL, IllegalActionError
from gameshelf.training.agents import make_agent

EMPTY_ROW = "........."


def game(**options) -> AmoriaxGame:
    return envs.make_game("amoriax-v0", **options)


def moves(state: AmoriaxState) -> dict[str, int]:
    """Legal move names -> action."""
    return {state.action_to_string(a): a for a in state.legal_actions()}


def play(state: AmoriaxState, *names: str) -> AmoriaxState:
    for name in names:
        state.apply_action(state.game.string_to_action(state, name))
    return state


def sq_of(action: int) -> tuple[int, int]:
    return divmod(action // NUM_KINDS, 9)


def kind_of(action: int) -> int:
    return action % NUM_KINDS


# ---- options and static facts --------------------------------------------------------------------


def test_defaults_and_info():
    g = game()
    assert g.options == {"num_players": 2, "inner_size": 3, "start": "corners", "red_lock": "ply", "max_plies": 300}
    info = g.info
    assert info.num_players == 2 and info.num_actions == 1054 == PASS + 1
    assert info.observation_shape == (9, 9, 10) and info.observation_dtype == np.float32
    assert info.max_game_length == 300
    assert not info.has_chance and not info.has_hidden_info
    assert game(max_plies=17).info.max_game_length == 17


@pytest.mark.parametrize(
    "option, value",
    [
        ("num_players", 3),
        ("num_players", 1),
        ("inner_size", 4),
        ("inner_size", 7),
        ("start", "edges"),
        ("red_lock", "turn"),
        ("max_plies", 0),
        ("max_plies", 2.5),
        ("max_plies", True),
    ],
)
def test_bad_options_name_the_option(option, value):
    with pytest.raises(ValueError, match=option):
        game(**{option: value})


def test_observation_shape_is_the_same_for_every_option():
    shapes = {
        game(inner_size=i, start=s, red_lock=r, max_plies=m).info.observation_shape
        for i in (3, 5)
        for s in ("corners", "sides")
        for r in ("ply", "own_turns")
        for m in (1, 300)
    }
    assert shapes == {(9, 9, 10)}


# ---- start positions -----------------------------------------------------------------------------

CORNERS = """
   c012345678
r0  WWW...BBB
r1  WW.....BB
r2  W.......B
r3  ...:::...
r4  ...:R:...
r5  ...:::...
r6  B.......W
r7  BB.....WW
r8  BBB...WWW
"""

SIDES = """
   c012345678
r0  BBB...BBB
r1  BB.....BB
r2  B.......B
r3  ...:::...
r4  ...:R:...
r5  ...:::...
r6  W.......W
r7  WW.....WW
r8  WWW...WWW
"""


@pytest.mark.parametrize("start, picture", [("corners", CORNERS), ("sides", SIDES)])
def test_start_layouts(start, picture):
    state = game(start=start).new_initial_state()
    assert state.to_text().startswith(picture.strip("\n"))
    assert state.board == game().state_from_board(picture).board
    assert state.board.count(1) == 12 and state.board.count(2) == 12 and state.board.count(3) == 1
    assert state.current_player() == 0  # White first
    assert not state.red_frozen() and state.repetitions() == 1 and state.ply == 0


# ---- worked example 4.1: the move count ----------------------------------------------------------


def move_breakdown(state: AmoriaxState) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for action in state.legal_actions():
        stone = "RWB"[state.board[action // NUM_KINDS] % 3]
        kind = kind_of(action)
        name = "corner" if kind == 0 else "knight" if kind <= 8 else "slide"
        out[(stone, name)] = out.get((stone, name), 0) + 1
    return out


def test_example_1_white_has_56_moves_at_the_start():
    state = game().new_initial_state()
    assert len(state.legal_actions()) == 56
    assert move_breakdown(state) == {("W", "knight"): 32, ("W", "slide"): 12, ("R", "knight"): 8, ("R", "slide"): 4}
    own = sum(n for (stone, _), n in move_breakdown(state).items() if stone == "W")
    assert own == 44  # 44 with own stones + 12 with Red; no corner jump (all corners occupied)


@pytest.mark.parametrize(
    "options, total, breakdown",
    [
        ({"start": "sides"}, 56, {("W", "knight"): 32, ("W", "slide"): 12, ("R", "knight"): 8, ("R", "slide"): 4}),
        ({"inner_size": 5}, 36, {("W", "knight"): 20, ("W", "slide"): 12, ("R", "slide"): 4}),
    ],
)
def test_start_move_counts_of_the_other_options(options, total, breakdown):
    state = game(**options).new_initial_state()
    assert len(state.legal_actions()) == total
    assert move_breakdown(state) == breakdown


# ---- worked example 4.2: slides ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "W (2,0) slide right -> (2,7)",  # Black on (2,8) stops it
        "W (1,1) slide right -> (1,6)",
        "W (1,1) slide down -> (6,1)",
        "R (4,4) slide up -> (0,4)",
        "R (4,4) slide left -> (4,0)",
    ],
)
def test_example_2_slides_from_the_start(name):
    state = game().new_initial_state()
    assert name in moves(state)
    action = moves(state)[name]
    state.apply_action(action)
    dest = tuple(int(x) for x in name.split("-> ")[1].strip("()").split(","))
    src = sq_of(action)
    assert state.board[square(*dest)] == (3 if name[0] == "R" else 1)
    assert state.board[square(*src)] == 0
    assert state.last_move == (square(*src), square(*dest))


def test_slide_must_move_at_least_one_square():
    state = game().new_initial_state()
    names = moves(state)
    # (0,0) and (0,1) are boxed in by their own stones and the edge
    assert not any(n.startswith("W (0,0) slide") for n in names)
    assert not any(n.startswith("W (0,1) slide") for n in names)  # (0,0), (0,2), (1,1) all occupied
    assert "W (0,2) slide right -> (0,5)" in names
    assert "W (0,2) slide down -> (7,2)" in names  # (8,2) is Black


def test_slide_stops_at_the_edge_and_crosses_the_inner_area():
    state = game().state_from_board(["R........", *[EMPTY_ROW] * 3, "....W....", *[EMPTY_ROW] * 4])
    names = moves(state)
    for name in (
        "W (4,4) slide up -> (0,4)",
        "W (4,4) slide down -> (8,4)",
        "W (4,4) slide left -> (4,0)",
        "W (4,4) slide right -> (4,8)",
        "R (0,0) slide right -> (0,8)",
        "R (0,0) slide down -> (8,0)",
    ):
        assert name in names


# ---- worked example 4.3: knight jumps ------------------------------------------------------------


def test_example_3_knight_may_not_land_in_the_inner_area():
    rows = [*[EMPTY_ROW] * 2, "...W.....", *[EMPTY_ROW] * 6]
    state = game().state_from_board(rows)
    names = moves(state)
    assert "W (2,3) knight -> (4,2)" in names
    assert not any(n.endswith("-> (3,5)") or n.endswith("-> (4,4)") for n in names)
    assert {n for n in names if "knight" in n} == {
        "W (2,3) knight -> (0,2)",
        "W (2,3) knight -> (0,4)",
        "W (2,3) knight -> (1,1)",
        "W (2,3) knight -> (1,5)",
        "W (2,3) knight -> (3,1)",
        "W (2,3) knight -> (4,2)",
    }
    # with inner_size=5 (rows/cols 2-6) (4,2) is inside too; (3,1) stays outside
    names5 = moves(game(inner_size=5).state_from_board(rows))
    assert "W (2,3) knight -> (4,2)" not in names5
    assert "W (2,3) knight -> (3,1)" in names5


def test_knight_jumps_over_stones_but_needs_an_empty_destination():
    rows = [
        EMPTY_ROW,
        ".BB......",
        ".BWB.....",
        ".BBB.....",
        "B........",
        *[EMPTY_ROW] * 4,
    ]
    state = game().state_from_board(rows)
    names = moves(state)
    assert "W (2,2) knight -> (0,1)" in names  # over (1,1)/(1,2)
    assert "W (2,2) knight -> (4,1)" in names
    assert "W (2,2) knight -> (4,3)" not in names  # inner area
    assert "W (2,2) knight -> (3,4)" not in names  # inner area
    assert not any("slide" in n for n in names if n.startswith("W"))  # boxed in on all four sides
    rows[0] = ".B......."
    assert "W (2,2) knight -> (0,1)" not in moves(game().state_from_board(rows))  # destination occupied


def test_knight_may_start_inside_the_inner_area():
    state = game().new_initial_state()
    assert "R (4,4) knight -> (2,3)" in moves(state)
    inner = game().state_from_board([*[EMPTY_ROW] * 3, "...W.....", *[EMPTY_ROW] * 5])
    assert "W (3,3) knight -> (1,2)" in moves(inner)


# ---- corner jumps --------------------------------------------------------------------------------


def test_corner_jump_needs_the_opposite_corner_empty_and_ignores_the_diagonal():
    rows = [
        "W.......B",
        ".B.......",
        "..B......",
        EMPTY_ROW,
        "....R....",
        *[EMPTY_ROW] * 3,
        "B........",
    ]
    state = game().state_from_board(rows)
    names = moves(state)
    assert "W (0,0) corner -> (8,8)" in names  # over (1,1), (2,2) and Red on C
    state.apply_action(names["W (0,0) corner -> (8,8)"])
    assert state.board[square(8, 8)] == 1 and state.board[square(0, 0)] == 0
    black = moves(state)
    assert "B (0,8) corner -> (8,0)" not in black and "B (8,0) corner -> (0,8)" not in black  # both occupied
    play(state, "B (1,1) slide right -> (1,8)")
    assert "W (8,8) corner -> (0,0)" in moves(state)  # and back
    black_corner = game().state_from_board(["........B", *[EMPTY_ROW] * 8], to_move=1)
    assert "B (0,8) corner -> (8,0)" in moves(black_corner)


def test_corner_jump_starts_only_from_the_corner_square_itself():
    """With the corner empty and own stones on its triangle, no stone may corner-jump (only from the corner)."""
    triangle = [".WW......", "WW.......", "W........", *[EMPTY_ROW] * 5, "B........"]
    start = game().new_initial_state().position()

    def position(rows):
        return game().state_from_position({**start, "board": rows, "seen": [[rows, 0, 0, 1]]})

    state = position(triangle)
    assert [a for a in state.legal_actions() if a != PASS and kind_of(a) == 0] == []
    assert not [name for name in moves(state) if "corner" in name]
    filled = ["W" + triangle[0][1:], *triangle[1:]]  # the same triangle with its corner square occupied
    assert [name for name in moves(position(filled)) if "corner" in name] == ["W (0,0) corner -> (8,8)"]


def test_position_builder_round_trips_and_refuses_bad_positions():
    state = game().new_initial_state()
    play(state, "W (2,0) slide right -> (2,7)")
    rebuilt = game().state_from_position(state.position())
    assert rebuilt.to_text() == state.to_text() and rebuilt.legal_actions() == state.legal_actions()
    for bad, message in [
        ({"to_move": 2}, "to_move"),
        ({"board": ["W"] * 9}, "board"),
        ({"red_lock": 9}, "red_lock"),
        ({"seen": []}, "seen"),
        ({"colour": "white"}, "unknown key"),
    ]:
        with pytest.raises(ValueError, match=message):
            game().state_from_position({**state.position(), **bad})


def rebuilt_matches(state: AmoriaxState) -> None:
    """``state_from_position(state.position())`` rebuilds everything a seat can see or do."""
    rebuilt = state.game.state_from_position(state.position())
    assert rebuilt.current_player() == state.current_player()
    assert rebuilt.legal_action_mask().tobytes() == state.legal_action_mask().tobytes()
    assert rebuilt.returns().tolist() == state.returns().tolist()
    assert rebuilt.to_text() == state.to_text()
    for seat in range(2):
        assert rebuilt.observation(seat).tobytes() == state.observation(seat).tobytes()
    assert rebuilt.position() == state.position()


def test_a_crown_win_exports_a_position_its_builder_rebuilds():
    state = game().state_from_board(WIN_ROWS)
    play(state, "W (4,1) slide right -> (4,4)")
    assert state.end == "crown"
    rebuilt_matches(state)
    assert state.repetitions() == 1  # the final position is counted like every other one


def test_the_reported_crown_win_at_ply_186_round_trips():
    """Random legal play from ``default_rng(2001)`` ends on the crown at ply 186 (its position was refused)."""
    rng = np.random.default_rng(2001)
    state = game().new_initial_state()
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
    assert (state.end, state.ply) == ("crown", 186)
    rebuilt_matches(state)


@pytest.mark.parametrize(
    "options, end",
    [
        ({}, "crown"),
        ({"red_lock": "own_turns"}, "crown"),
        ({"inner_size": 5, "start": "sides"}, "crown"),
        ({"max_plies": 40}, "max_plies"),
    ],
    ids=["default", "own_turns", "inner5_sides", "max_plies40"],
)
def test_positions_round_trip_along_random_games(options, end):
    """Random legal play that takes a winning move half the time it has one (so games also end on the crown)."""
    g = game(**options)
    ends = set()
    for seed in range(4):
        rng = np.random.default_rng(seed)
        state = g.new_initial_state()
        while True:
            if state.ply % 4 == seed % 4 or state.is_terminal():
                rebuilt_matches(state)
            if state.is_terminal():
                break
            wins = state.crown_moves(state.current_player())
            legal = wins if wins and rng.random() < 0.5 else state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        ends.add(state.end)
    assert end in ends


def test_positions_round_trip_after_passes_and_repetition():
    state = game().state_from_board(FULL_ROWS)
    for _ in range(2):
        state.apply_action(PASS)
        rebuilt_matches(state)
    assert state.end == "passes"
    state = game().new_initial_state()
    play(state, *CYCLE, *CYCLE)
    assert state.end == "repetition"
    rebuilt_matches(state)


def test_position_builder_refuses_what_the_rules_cannot_reach():
    start = game().new_initial_state().position()
    won = game().state_from_board(WIN_ROWS)
    play(won, "W (4,1) slide right -> (4,4)")
    on_crown = won.position()
    after_red = play(game().state_from_board(RED_ROWS), "R (4,1) slide right -> (4,4)").position()
    for base, bad, message in [
        (on_crown, {"end": "", "winner": -1}, "crown"),  # a player's stone on the crown has won
        (on_crown, {"winner": 1}, "winner"),
        (start, {"winner": 0}, "winner"),
        (start, {"end": "passes", "winner": -1}, "passes"),
        (start, {"end": "repetition"}, "repetition"),
        (start, {"end": "max_plies"}, "max_plies"),
        (start, {"passes": 2}, "passes"),
        (start, {"red_lock": 2}, "red_lock"),  # red_lock='ply': only the side to move can be frozen
        (start, {"seen": [[start["board"], 0, 0, 3]], "ply": 8}, "repetition"),
        (start, {"seen": [[start["board"], 0, 0, 1], [start["board"], 1, 0, 0]]}, "seen"),
        (start, {"seen": [[start["board"], 0, 0, 2]]}, "seen"),  # two occurrences need a ply at least
        (start, {"seen": [[WIN_ROWS, 0, 0, 1], [start["board"], 0, 0, 1]], "ply": 1}, "stones"),
        (after_red, {"red_lock": 0, "seen": [[after_red["board"], 1, 0, 1]]}, "red_lock"),  # Red just moved
        (after_red, {"last_move": [square(4, 4), square(4, 1)]}, "last_move"),
    ]:
        with pytest.raises(ValueError, match=message):
            game().state_from_position({**base, **bad})
    assert game(max_plies=3).state_from_position({**start, "ply": 2, "seen": [[start["board"], 0, 0, 1]]})
    with pytest.raises(ValueError, match="max_plies"):
        game(max_plies=2).state_from_position({**start, "ply": 2})


def test_red_corner_jump():
    state = game().state_from_board([*[EMPTY_ROW] * 8, "R.......W"])
    assert "R (8,0) corner -> (0,8)" in moves(state)
    assert "W (8,8) corner -> (0,0)" in moves(state)


def test_only_own_stones_and_red_move():
    state = game().new_initial_state()
    for action in state.legal_actions():
        assert state.board[action // NUM_KINDS] in (1, 3)
    state.apply_action(moves(state)["W (2,0) slide right -> (2,7)"])
    for action in state.legal_actions():
        assert state.board[action // NUM_KINDS] in (2, 3)


# ---- worked example 4.4: the win and Red on the crown --------------------------------------------

WIN_ROWS = [*[EMPTY_ROW] * 4, ".W...R...", *[EMPTY_ROW] * 4]


def test_example_4_white_slides_onto_the_crown_and_wins():
    state = game().state_from_board(WIN_ROWS)
    assert state.crown_moves(0) == [moves(state)["W (4,1) slide right -> (4,4)"]]
    play(state, "W (4,1) slide right -> (4,4)")
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.winner == 0 and state.end == "crown"
    assert state.returns().tolist() == [1.0, -1.0]
    assert state.scores().tolist() == [0.0, 0.0]
    assert state.legal_actions() == [] and not state.legal_action_mask().any()
    assert "result: White wins" in state.to_text()
    with pytest.raises(IllegalActionError, match="over"):
        state.apply_action(0)


def test_black_wins_too():
    rows = [*[EMPTY_ROW] * 3, "....R....", *[EMPTY_ROW] * 3, "....B....", EMPTY_ROW]  # Red on (3,4) stops it
    state = game().state_from_board(rows, to_move=1)
    play(state, "B (7,4) slide up -> (4,4)")
    assert state.end == "crown" and state.winner == 1
    assert state.returns().tolist() == [-1.0, 1.0]


RED_ROWS = [*[EMPTY_ROW] * 4, ".R...B...", *[EMPTY_ROW] * 3, "W.......B"]


def test_example_4_red_on_the_crown_wins_nothing_and_is_frozen_next_ply():
    state = game().state_from_board(RED_ROWS)
    play(state, "R (4,1) slide right -> (4,4)")
    assert not state.is_terminal() and state.winner == -1
    assert state.board[square(4, 4)] == 3
    assert state.current_player() == 1 and state.red_frozen()
    assert "red: frozen" in state.to_text()
    assert not any(n.startswith("R ") for n in moves(state))
    assert state.returns().tolist() == [0.0, 0.0]
    # Black moves a stone; then White may move Red again
    play(state, "B (8,8) slide up -> (0,8)")
    assert not state.red_frozen()
    assert "R (4,4) slide left -> (4,0)" in moves(state)


def test_slide_through_the_crown_does_not_win():
    rows = [*[EMPTY_ROW] * 4, ".W.......", *[EMPTY_ROW] * 4]
    state = game().state_from_board(rows)
    assert state.crown_moves(0) == []
    play(state, "W (4,1) slide right -> (4,8)")
    assert not state.is_terminal()


def test_crown_moves_need_the_own_stone_first_in_line():
    rows = [*[EMPTY_ROW] * 4, "WB...R...", *[EMPTY_ROW] * 4]
    state = game().state_from_board(rows)
    assert state.crown_moves(0) == []
    assert state.crown_moves(1) == [moves(game().state_from_board(rows, to_move=1))["B (4,1) slide right -> (4,4)"]]


# ---- the Red lock, both readings -----------------------------------------------------------------


def red_names(state: AmoriaxState) -> set[str]:
    return {n for n in moves(state) if n.startswith("R ")}


def test_red_lock_ply():
    state = game().new_initial_state()
    play(state, "R (4,4) slide up -> (0,4)")
    assert state.red_frozen() and not red_names(state)  # Black may not move Red now
    play(state, "B (2,8) slide left -> (2,1)")
    assert not state.red_frozen() and red_names(state)  # White may move Red again
    play(state, "W (1,1) slide right -> (1,6)")
    assert red_names(state)  # Black may move Red: White did not move it


def test_red_lock_own_turns():
    state = game(red_lock="own_turns").new_initial_state()
    play(state, "R (4,4) slide up -> (0,4)")
    assert not state.red_frozen() and red_names(state)  # Black may move Red right after White did
    play(state, "B (2,8) slide left -> (2,1)")
    assert state.red_frozen() and not red_names(state)  # White moved Red on its previous own turn
    assert "red: locked for White" in state.to_text()
    play(state, "W (1,1) slide right -> (1,6)")
    assert not state.red_frozen()
    play(state, "R (0,4) slide down -> (8,4)")  # Black moves Red ...
    play(state, "R (8,4) slide up -> (0,4)")  # ... and White may answer with Red (its lock is lifted)
    assert state.red_frozen()  # Black moved Red last own turn
    assert "red: locked for White and Black" in state.to_text()


def test_red_frozen_option_of_state_from_board():
    for lock in ("ply", "own_turns"):
        state = game(red_lock=lock).state_from_board(RED_ROWS, red_frozen=True)
        assert state.red_frozen() and not red_names(state)
        assert red_names(game(red_lock=lock).state_from_board(RED_ROWS))


# ---- passing -------------------------------------------------------------------------------------

STUCK_ROWS = [
    "WB.......",
    "B.B......",
    ".B.......",
    *[EMPTY_ROW] * 1,
    "....R....",
    *[EMPTY_ROW] * 3,
    "........B",
]


def test_pass_only_without_a_legal_move():
    assert PASS not in game().new_initial_state().legal_actions()
    with pytest.raises(IllegalActionError):
        game().new_initial_state().apply_action(PASS)
    # White's only stone is boxed in and Red is frozen: White must pass
    state = game().state_from_board(STUCK_ROWS, red_frozen=True)
    assert state.legal_actions() == [PASS]
    assert np.flatnonzero(state.legal_action_mask()).tolist() == [PASS]
    assert state.action_to_string(PASS) == "pass"
    assert game().string_to_action(state, "pass") == PASS
    state.apply_action(PASS)
    assert not state.is_terminal() and state.current_player() == 1 and state.ply == 1
    assert state.last_move is None and state.passes == 1
    assert red_names(state)  # a pass moves no Red: Black may move it
    play(state, "B (8,8) slide up -> (0,8)")
    assert state.passes == 0
    # with Red free, White is not stuck
    assert game().state_from_board(STUCK_ROWS).legal_actions() != [PASS]


def test_pass_lifts_the_own_turns_lock():
    state = game(red_lock="own_turns").state_from_board(STUCK_ROWS, red_frozen=True)
    state.apply_action(PASS)
    play(state, "B (8,8) slide up -> (0,8)")
    assert not state.red_frozen() and red_names(state)


FULL_ROWS = ["WBWBWBWBW", "BWBWBWBWB", "WBWBWBWBW", "BWBWBWBWB", "WBWBRBWBW", "BWBWBWBWB", "WBWBWBWBW", "BWBWBWBWB", "WBWBWBWBW"]


def test_two_consecutive_passes_are_a_draw():
    state = game().state_from_board(FULL_ROWS)
    assert state.legal_actions() == [PASS]
    state.apply_action(PASS)
    assert not state.is_terminal() and state.legal_actions() == [PASS]
    state.apply_action(PASS)
    assert state.is_terminal() and state.end == "passes" and state.winner == -1
    assert state.returns().tolist() == [0.0, 0.0]
    assert "draw (two consecutive passes)" in state.to_text()


# ---- repetition ----------------------------------------------------------------------------------

CYCLE = ["W (2,0) knight -> (4,1)", "B (2,8) knight -> (4,7)", "W (4,1) knight -> (2,0)", "B (4,7) knight -> (2,8)"]


def test_threefold_repetition_is_a_draw():
    state = game().new_initial_state()
    play(state, *CYCLE)
    assert state.repetitions() == 2 and not state.is_terminal()
    play(state, *CYCLE[:3])
    assert not state.is_terminal()
    play(state, CYCLE[3])
    assert state.is_terminal() and state.end == "repetition" and state.ply == 8
    assert state.repetitions() == 3 and state.returns().tolist() == [0.0, 0.0]
    assert "draw (threefold repetition)" in state.to_text()


def test_repetition_position_includes_the_red_lock():
    rows = ["W.......B", *[EMPTY_ROW] * 3, "....R....", *[EMPTY_ROW] * 4]
    cycle = ["W (0,0) knight -> (2,1)", "B (0,8) knight -> (2,7)", "W (2,1) knight -> (0,0)", "B (2,7) knight -> (0,8)"]
    state = game().state_from_board(rows, red_frozen=True)
    frozen_key = state.position_key()
    play(state, *cycle)
    assert state.board == game().state_from_board(rows).board and state.current_player() == 0
    assert state.position_key() != frozen_key  # same stones and side to move, but Red is free now
    assert state.repetitions() == 1
    play(state, *cycle)
    assert not state.is_terminal()  # the start would be a third occurrence at ply 8 if the lock were ignored
    play(state, cycle[0])
    assert state.end == "repetition" and state.ply == 9  # the position after ply 1 (Red free) a third time


def test_repetition_position_includes_the_side_to_move():
    state = game().new_initial_state()
    start_key = state.position_key()
    play(state, "W (2,0) knight -> (4,1)")
    assert state.position_key() != start_key
    assert state.position_key()[:81] != start_key[:81]


# ---- max_plies -----------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 2, 7])
def test_max_plies_is_a_draw(limit):
    state = game(max_plies=limit).new_initial_state()
    rng = np.random.default_rng(limit)
    for ply in range(limit):
        assert not state.is_terminal()
        assert f"ply: {ply}/{limit}" in state.to_text()
        legal = [a for a in state.legal_actions() if a not in state.crown_moves(state.current_player())]
        state.apply_action(legal[rng.integers(len(legal))])
    assert state.is_terminal() and state.end == "max_plies" and state.ply == limit
    assert state.returns().tolist() == [0.0, 0.0]


def test_a_win_on_the_last_ply_still_wins():
    state = game(max_plies=1).state_from_board(WIN_ROWS)
    play(state, "W (4,1) slide right -> (4,4)")
    assert state.end == "crown" and state.winner == 0


def test_default_random_games_end_by_300_plies():
    rng = np.random.default_rng(0)
    state = game().new_initial_state()
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
    assert state.ply <= 300
    assert state.end in ("crown", "repetition", "max_plies", "passes")


# ---- actions: encoding, mask, names --------------------------------------------------------------


def test_action_encoding():
    state = game().new_initial_state()
    action = moves(state)["W (2,0) slide right -> (2,7)"]
    assert action == square(2, 0) * 13 + 12
    assert moves(state)["R (4,4) knight -> (2,3)"] == square(4, 4) * 13 + 1  # offset (-2,-1)
    assert moves(state)["W (1,1) slide down -> (6,1)"] == square(1, 1) * 13 + 10
    corner = game().state_from_board(["W........", *[EMPTY_ROW] * 8])
    assert moves(corner)["W (0,0) corner -> (8,8)"] == 0


def test_mask_is_exact():
    state = game().new_initial_state()
    rng = np.random.default_rng(5)
    for _ in range(40):
        if state.is_terminal():
            break
        mask = state.legal_action_mask()
        assert mask.dtype == np.bool_ and mask.shape == (1054,)
        legal = set(np.flatnonzero(mask).tolist())
        assert legal == set(state.legal_actions())
        for action in range(1054):
            dest = state.destination(action)
            stone = state.board[action // NUM_KINDS] if action < PASS else 0
            movable = stone == state.current_player() + 1 or (stone == 3 and not state.red_frozen())
            assert (action in legal) == (action < PASS and movable and dest >= 0)
        state.apply_action(int(rng.choice(sorted(legal))))


def test_illegal_actions_raise_and_change_nothing():
    state = game().new_initial_state()
    text, history = state.to_text(), list(state.history)
    for bad in (square(0, 8) * 13 + 9, square(3, 3) * 13 + 1, PASS, 0):  # Black's stone, empty square, pass, boxed corner
        with pytest.raises(IllegalActionError, match="legal actions"):
            state.apply_action(bad)
    with pytest.raises(TypeError):
        state.apply_action(1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        state.apply_action(True)
    assert state.to_text() == text and state.history == history


def test_action_names_round_trip_and_illegal_names():
    state = game().new_initial_state()
    for action in state.legal_actions():
        assert game().string_to_action(state, state.action_to_string(action)) == action
        assert game().string_to_action(state, state.action_to_string(action).upper()) == action
    assert state.action_to_string(square(4, 4) * 13 + 1) == "R (4,4) knight -> (2,3)"
    assert state.action_to_string(square(3, 3) * 13 + 9) == "- (3,3) slide up -> (0,3)"  # empty square, name only
    assert state.action_to_string(square(0, 0) * 13 + 12) == "W (0,0) slide right -> (no move)"
    with pytest.raises(IllegalActionError, match="legal moves"):
        game().string_to_action(state, "W (0,0) slide right -> (0,5)")


# ---- observation, text, image, clone -------------------------------------------------------------


def test_observation_planes():
    state = game().new_initial_state()
    white, black = state.observation(0), state.observation(1)
    assert white.shape == (9, 9, 10) and white.dtype == np.float32
    assert white.min() >= 0 and white.max() <= 1
    assert white[0, 0, 0] == 1 and white[0, 8, 1] == 1 and white[4, 4, 2] == 1
    assert np.array_equal(white[..., 0], black[..., 1]) and np.array_equal(white[..., 1], black[..., 0])
    assert white[..., 0].sum() == 12 and white[..., 2].sum() == 1
    assert white[..., 3].sum() == 9 and white[3:6, 3:6, 3].all()
    assert game(inner_size=5).new_initial_state().observation(0)[..., 3].sum() == 25
    assert white[..., 4].sum() == 1 and white[4, 4, 4] == 1
    assert white[..., 7].all() and not black[..., 7].any()
    assert not white[..., [5, 6, 8, 9]].any()
    play(state, "R (4,4) slide up -> (0,4)")
    white, black = state.observation(0), state.observation(1)
    assert black[..., 5].all() and not black[..., 6].any()  # Black may not move Red now
    assert white[..., 6].all() and not white[..., 5].any()
    assert black[..., 7].all() and np.allclose(black[..., 9], 1 / 300)


def test_observation_repetition_plane():
    state = game().new_initial_state()
    play(state, *CYCLE)
    assert np.allclose(state.observation(0)[..., 8], 0.5)
    play(state, *CYCLE)
    assert np.allclose(state.observation(1)[..., 8], 1.0)
    assert not state.observation(0)[..., 7].any()


def test_to_text():
    state = game(inner_size=5).new_initial_state()
    text = state.to_text()
    assert "r4  ..::R::.." in text
    assert "to move: White (player_0)" in text and "red: free" in text and "ply: 0/300" in text
    empty_crown = game().state_from_board(WIN_ROWS).to_text()
    assert "r4  .W.:+R..." in empty_crown


def test_render_image():
    state = game().new_initial_state()
    image = state.render_image()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    play(state, "W (2,0) slide right -> (2,7)")
    assert not np.array_equal(image, state.render_image())
    won = play(game().state_from_board(WIN_ROWS), "W (4,1) slide right -> (4,4)")
    assert won.render_image().shape == image.shape


def test_clone_is_independent():
    state = game().new_initial_state()
    play(state, CYCLE[0])
    copy = state.clone()
    play(copy, *CYCLE[1:], CYCLE[0])
    assert state.repetitions() == 1 and copy.repetitions() == 2  # the counts are not shared
    assert state.ply == 1 and len(state.history) == 1 and len(copy.history) == 5
    assert state.board == copy.board
    play(copy, CYCLE[1])
    assert state.board != copy.board
    assert game().state_from_history(copy.history).to_text() == copy.to_text()


# ---- the environment -----------------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"inner_size": 5, "start": "sides", "red_lock": "own_turns", "max_plies": 40}])
def test_pettingzoo_api(options):
    from pettingzoo.test import api_test

    api_test(envs.make("amoriax-v0", **options), num_cycles=200)


def test_env_rewards_at_the_end():
    env = envs.make("amoriax-v0", render_mode="rgb_array")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    heuristic = AmoriaxHeuristic()
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[agent]
        env.step(heuristic.act(env.game_state, seat, rng) if seat == 0 else int(rng.choice(env.game_state.legal_actions())))
        for a, r in env.rewards.items():
            total[a] += r
    assert total == {"player_0": 1.0, "player_1": -1.0}
    assert env.render().shape[2] == 3


# ---- the heuristic agent -------------------------------------------------------------------------


def test_heuristic_is_registered():
    assert isinstance(make_agent("heuristic", "amoriax-v0"), AmoriaxHeuristic)


def test_heuristic_wins_in_one():
    rows = [*[EMPTY_ROW] * 2, "....W....", *[EMPTY_ROW] * 1, ".W...R...", *[EMPTY_ROW] * 4]
    state = game().state_from_board(rows)
    action = AmoriaxHeuristic().act(state, 0, np.random.default_rng(0))
    assert state.action_to_string(action) == "W (4,1) slide right -> (4,4)"


def test_heuristic_blocks_a_win_in_one():
    # Black threatens (4,1) -> C (stopped by Red on (4,5)); White cannot win itself and must block or unblock
    rows = ["W........", *[EMPTY_ROW] * 3, ".B...R...", *[EMPTY_ROW] * 4]
    for seed in range(5):
        state = game().state_from_board(rows)
        action = AmoriaxHeuristic().act(state, 0, np.random.default_rng(seed))
        state.apply_action(action)
        assert state.crown_moves(1) == [], state.action_to_string(action)


@pytest.mark.parametrize("options", [{}, {"inner_size": 5, "start": "sides", "red_lock": "own_turns"}])
def test_heuristic_beats_random(options):
    g = game(**options)
    agents = [AmoriaxHeuristic(), make_agent("random", "amoriax-v0")]
    rng = np.random.default_rng(11)
    wins = 0
    for i in range(20):
        seat = i % 2  # the heuristic plays both colours
        players = agents if seat == 0 else agents[::-1]
        state = g.new_initial_state()
        while not state.is_terminal():
            p = state.current_player()
            state.apply_action(players[p].act(state.clone(), p, rng))
        wins += state.winner == seat
    assert wins >= 18
