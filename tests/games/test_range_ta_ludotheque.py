"""Range Ta Ludothèque: every rule, the worked examples of the rules page, every option both ways."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameshelf import envs
from gameshelf.envs import testing
from gameshelf.envs.core.game import CHANCE, TERMINAL, IllegalActionError
from gameshelf.envs.range_ta_ludotheque.board import (
    PERMS,
    ROLL_INDEX,
    ROLL_PROBS,
    ROLL_TRIPLES,
    ROLLS,
    ROUNDS,
    SHAPES,
    geometry,
)
from gameshelf.envs.range_ta_ludotheque.game import RangeTaLudothequeGame, RangeTaLudothequeState
from gameshelf.envs.range_ta_ludotheque.observation import LAYOUT, SHEET_CHANNELS
from gameshelf.envs.range_ta_ludotheque.scoring import (
    Box,
    classic_groups,
    classic_score,
    expert_bonuses,
    expert_score,
    full_compartment_bonus,
    score_bounds,
)

ID = "range_ta_ludotheque-v0"
G = geometry(2, 2, 3, 3)
T, A, C, P, F, R = 1, 2, 3, 4, 5, 6
BLUFF, DEDUC, DECK, PROG, MEMO, SECRET = 1, 2, 3, 4, 5, 6


def sq(r: int, c: int) -> int:
    return r * 6 + c


def game(**options) -> RangeTaLudothequeGame:
    return RangeTaLudothequeGame(**options)


# The rules page's example sheet after 12 rounds, in a legal placement order (G1..G9 numbered in order):
#       c0 c1 c2 | c3 c4 c5
# r0     m  m  . |  .  .  8
# r1     7  7  6 |  m  .  8
# r2     5  5  6 |  9  9  8
#        --------+---------
# r3     2  2  2 |  3  4  4
# r4     1  1  1 |  3  4  4
# r5     1  1  1 |  3  4  4
EXAMPLE = [
    "box 6 P Deduction r4c0",  # G1
    "box 4 P Bluffing r3c0",  # G2
    "box 3 C Memory r3c3",  # G3
    "box 5 F Bluffing r3c4",  # G4
    "box 2 C Deduction r2c0",  # G5
    "box 1 C Programming r1c2",  # G6
    "box 2 A Memory r1c0",  # G7
    "playmat r0c0",
    "playmat r0c1",
    "box 3 R SecretRoles r0c5",  # G8
    "box 2 T Programming r2c3",  # G9
    "playmat r1c3",
]
EXAMPLE_GRID = """
m m . . . 8
7 7 6 m . 8
5 5 6 9 9 8
2 2 2 3 4 4
1 1 1 3 4 4
1 1 1 3 4 4
"""


def example_state(**options) -> RangeTaLudothequeState:
    return game(num_players=1, **options).state_from_position({"round": 13, "dice": None, "sheets": [EXAMPLE]})


def example_sheet() -> tuple[list[Box], int]:
    state = example_state()
    return state.boxes[0], state.occ[0]


def grid_of(state: RangeTaLudothequeState, seat: int = 0) -> str:
    """The sheet as the rules page draws it (game numbers, m, .)."""
    lines = state.sheet_lines(seat, seat)[1:]
    rows = [ln.split()[1:] for ln in lines if ln.startswith("r")]
    return "\n".join(" ".join(c for c in row if c != "|") for row in rows)


def boxes_filled(*boxes: Box, mats: tuple[int, ...] = ()) -> tuple[list[Box], int]:
    filled = 0
    for b in boxes:
        filled |= G.placement_at[b.face][b.anchor].cells
    for m in mats:
        filled |= 1 << m
    return list(boxes), filled


def play_round(state: RangeTaLudothequeState, roll: tuple[int, int, int], names: list[str]) -> None:
    """Roll the dice (scripted chance), then every seat in turn plays the named move."""
    assert state.current_player() == CHANCE
    state.apply_action(ROLL_INDEX[tuple(sorted(roll))])
    g = state.game
    for name in names:
        state.apply_action(g.string_to_action(state, name))


# ---- tables -------------------------------------------------------------------------------------


def test_dice_tables_and_shapes():
    assert SHAPES == {1: (1, 2), 2: (2, 1), 3: (1, 3), 4: (3, 1), 5: (2, 3), 6: (3, 2)}
    assert len(ROLLS) == 56 and abs(sum(ROLL_PROBS) - 1) < 1e-12
    assert ROLL_PROBS[ROLL_INDEX[(1, 1, 1)]] == pytest.approx(1 / 216)
    assert ROLL_PROBS[ROLL_INDEX[(3, 3, 6)]] == pytest.approx(3 / 216)
    assert ROLL_PROBS[ROLL_INDEX[(1, 2, 3)]] == pytest.approx(6 / 216)
    assert len(PERMS) == 6


def test_geometry_default():
    assert (G.rows, G.cols, G.size, G.num_comps) == (6, 6, 36, 4)
    assert [r for r in range(6) if G.is_floor[sq(r, 0)]] == [2, 5]
    assert G.comp_of[sq(2, 2)] == 0 and G.comp_of[sq(2, 3)] == 1 and G.comp_of[sq(3, 0)] == 2 and G.comp_of[sq(5, 5)] == 3


# ---- worked example 3: placement legality --------------------------------------------------------


def test_example3_placements_on_the_example_sheet():
    g = game()
    _, occ = example_sheet()
    # a 1x2 vertical box at col 4 rows 0-1 rests on G9: legal
    legal = g.legal_actions_for(occ, ROLL_INDEX[(1, 1, 1)])
    assert legal == [0 * 36 + sq(0, 4)]
    # a 2x1 box at row 0 cols 3-4: (1,4) below is empty -> illegal; nothing else fits a 2x1 either
    legal = g.legal_actions_for(occ, ROLL_INDEX[(2, 2, 2)])
    assert 0 * 36 + sq(0, 3) not in legal
    assert all(a >= g.mat_base for a in legal)
    # a 3x1 box at row 0 cols 2-4 crosses a wall: no such placement at all
    assert sq(0, 2) not in G.placement_at[4]
    assert sq(0, 0) in G.placement_at[4] and sq(0, 3) in G.placement_at[4]


def test_example3_dice_633_give_exactly_three_assignments():
    triples = {t for _, t in ROLL_TRIPLES[ROLL_INDEX[(3, 3, 6)]]}
    assert triples == {(6, 3, 3), (3, 6, 3), (3, 3, 6)}  # size/category/mechanism
    state = game(num_players=1).new_initial_state()
    state.apply_action(ROLL_INDEX[(3, 3, 6)])
    names = {state.action_to_string(a).rsplit(" ", 1)[0] for a in state.legal_actions()}
    assert names == {"box 6 C Deckbuilding", "box 3 R Deckbuilding", "box 3 C SecretRoles"}


def test_example_sheet_with_dice_633_allows_only_playmats():
    g = game()
    _, occ = example_sheet()
    legal = g.legal_actions_for(occ, ROLL_INDEX[(3, 3, 6)])
    assert legal == [g.mat_base + sq(0, 2), g.mat_base + sq(0, 3), g.mat_base + sq(1, 4)]


def test_example_sheet_layout():
    state = example_state()
    assert grid_of(state) == EXAMPLE_GRID.strip()
    assert state.empty_squares(0) == 4


# ---- worked examples 1 and 2: scoring --------------------------------------------------------------


def test_example1_classic():
    boxes, filled = example_sheet()
    groups = classic_groups(G, boxes)
    assert {k: v for k, v in groups.items() if v} == {"c4": 2, "c3": 2, "m4": 2}
    assert classic_score(G, boxes, filled) == 2
    assert classic_score(G, boxes, filled, walls_block_adjacency=True) == 0
    assert example_state().sheet_score(0) == 2
    assert example_state(walls_block_adjacency=True).sheet_score(0) == 0


def test_example2_expert():
    boxes, filled = example_sheet()
    per_game = [c + m for c, m in expert_bonuses(G, boxes)]
    assert per_game == [1, 2, 3, 1, 3, 3, 4, 6, 3]
    assert expert_bonuses(G, boxes)[6] == (2, 2)  # G7: Dexterity off the floor, Memory x2
    assert expert_bonuses(G, boxes)[8] == (2, 1)  # G9: Puzzle with G8 sharing nothing, Programming next to G6
    assert full_compartment_bonus(G, boxes, filled) == 8
    assert expert_score(G, boxes, filled) == 30
    assert expert_score(G, boxes, filled, walls_block_adjacency=True) == 28
    assert example_state(scoring="expert").sheet_score(0) == 30
    assert example_state(scoring="expert", walls_block_adjacency=True).sheet_score(0) == 28


# ---- Expert bonuses, one by one ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("boxes", "index", "expected"),
    [
        # Puzzle: alone in its compartment -> 1; with a game sharing nothing -> 2; sharing a mechanism -> 0
        ([Box(2, T, DECK, sq(5, 0))], 0, 1),
        ([Box(2, T, DECK, sq(5, 0)), Box(2, A, DEDUC, sq(4, 0))], 0, 2),
        ([Box(2, T, DECK, sq(5, 0)), Box(2, A, DECK, sq(4, 0))], 0, 0),
        ([Box(2, T, DECK, sq(5, 0)), Box(2, T, DEDUC, sq(4, 0))], 0, 0),
        # two other games sharing between themselves (not with the Puzzle) also cancel it
        ([Box(2, T, DECK, sq(5, 0)), Box(1, A, DEDUC, sq(3, 2)), Box(2, A, MEMO, sq(4, 0))], 0, 0),
        # a game in another compartment does not matter
        ([Box(2, T, DECK, sq(5, 0)), Box(2, T, DECK, sq(5, 3))], 0, 1),
        # Dexterity: on the floor 0, off the floor 2 (also in a lower compartment)
        ([Box(2, A, DECK, sq(5, 0))], 0, 0),
        ([Box(2, A, DECK, sq(5, 0)), Box(2, A, DECK, sq(4, 0))], 1, 2),
        ([Box(1, A, DECK, sq(1, 0)), Box(3, A, DECK, sq(0, 1))], 0, 0),
        # Card game: 1 per card game in its compartment, itself included
        ([Box(2, C, DECK, sq(5, 0))], 0, 1),
        ([Box(2, C, DECK, sq(5, 0)), Box(2, C, DECK, sq(4, 0)), Box(2, C, DECK, sq(5, 3))], 0, 2),
        # Board game: horizontal 1, vertical 0
        ([Box(4, P, DECK, sq(5, 0))], 0, 1),
        ([Box(6, P, DECK, sq(4, 0))], 0, 1),
        ([Box(3, P, DECK, sq(3, 0))], 0, 0),
        # Miniatures: 6 squares 1
        ([Box(5, F, DECK, sq(3, 0))], 0, 1),
        ([Box(6, F, DECK, sq(4, 0))], 0, 1),
        ([Box(4, F, DECK, sq(5, 0))], 0, 0),
        # Roleplaying: vertical 1
        ([Box(1, R, DECK, sq(4, 0))], 0, 1),
        ([Box(5, R, DECK, sq(3, 0))], 0, 1),
        ([Box(2, R, DECK, sq(5, 0))], 0, 0),
    ],
)
def test_expert_category_bonus(boxes, index, expected):
    assert expert_bonuses(G, boxes)[index][0] == expected


@pytest.mark.parametrize(
    ("boxes", "index", "expected", "walls_block"),
    [
        # Bluffing: 1 per adjacent game sharing its category or its mechanism
        ([Box(2, T, BLUFF, sq(5, 0)), Box(1, A, BLUFF, sq(4, 2)), Box(2, T, DECK, sq(4, 0))], 0, 2, False),
        ([Box(2, T, BLUFF, sq(5, 0)), Box(2, A, DECK, sq(4, 0))], 0, 0, False),
        ([Box(2, T, BLUFF, sq(5, 0)), Box(2, T, DECK, sq(2, 0))], 0, 0, False),  # not adjacent
        ([Box(2, T, BLUFF, sq(5, 1)), Box(2, T, DECK, sq(5, 3))], 0, 1, False),  # across the wall
        ([Box(2, T, BLUFF, sq(5, 1)), Box(2, T, DECK, sq(5, 3))], 0, 0, True),
        # Deduction: exactly 2 squares
        ([Box(1, T, DEDUC, sq(4, 0))], 0, 1, False),
        ([Box(2, T, DEDUC, sq(5, 0))], 0, 1, False),
        ([Box(3, T, DEDUC, sq(3, 0))], 0, 0, False),
        ([Box(6, T, DEDUC, sq(4, 0))], 0, 0, False),
        # Deckbuilding: 1 per other game of its compartment that is not Deckbuilding
        ([Box(2, T, DECK, sq(5, 0)), Box(2, A, DECK, sq(4, 0)), Box(1, A, MEMO, sq(4, 2))], 0, 1, False),
        ([Box(2, T, DECK, sq(5, 0)), Box(2, A, MEMO, sq(5, 3))], 0, 0, False),
        # Programming: 1 per adjacent Programming game
        ([Box(2, T, PROG, sq(5, 0)), Box(2, A, PROG, sq(4, 0)), Box(1, A, PROG, sq(4, 2))], 0, 2, False),
        ([Box(2, T, PROG, sq(5, 0)), Box(2, A, PROG, sq(3, 0))], 0, 0, False),
        ([Box(2, T, PROG, sq(5, 1)), Box(2, T, PROG, sq(5, 3))], 0, 0, True),
        # Memory: 1 per Memory game in the Kallax, itself included, at most 3
        ([Box(2, T, MEMO, sq(5, 0))], 0, 1, False),
        ([Box(2, T, MEMO, sq(5, 0)), Box(2, T, MEMO, sq(2, 3))], 0, 2, False),
        ([Box(1, T, MEMO, sq(4, c)) for c in range(6)], 0, 3, False),
        # Secret Roles: 5 if it is the only one
        ([Box(2, T, SECRET, sq(5, 0)), Box(2, T, MEMO, sq(2, 3))], 0, 5, False),
        ([Box(2, T, SECRET, sq(5, 0)), Box(2, T, SECRET, sq(2, 3))], 0, 0, False),
    ],
)
def test_expert_mechanism_bonus(boxes, index, expected, walls_block):
    assert expert_bonuses(G, boxes, walls_block)[index][1] == expected


def test_expert_full_compartment_bonus_counts_games_not_playmats():
    boxes, filled = boxes_filled(Box(6, P, DECK, sq(4, 0)), Box(2, P, DECK, sq(3, 0)), mats=(sq(3, 2),))
    assert full_compartment_bonus(G, boxes, filled) == 4  # 2 games x 2 in the full bottom-left compartment
    boxes, filled = boxes_filled(Box(6, P, DECK, sq(4, 0)), Box(2, P, DECK, sq(3, 0)))
    assert full_compartment_bonus(G, boxes, filled) == 0  # (3,2) empty
    mats_only = boxes_filled(mats=tuple(sq(r, c) for r in range(3, 6) for c in range(3)))
    assert full_compartment_bonus(G, *mats_only) == 0
    assert expert_score(G, *mats_only) == -27


def test_empty_squares_cost_one_each_in_both_modes():
    assert classic_score(G, [], 0) == -36
    assert expert_score(G, [], 0) == -36
    boxes, filled = boxes_filled(Box(6, P, BLUFF, sq(4, 0)), mats=(sq(3, 0),))
    assert classic_score(G, boxes, filled) == -29


def test_classic_groups_need_two_games_and_connection():
    # three Board games in a chain -> 3; a lone Card game -> 0; mechanisms all different -> 0
    boxes, _ = boxes_filled(
        Box(4, P, BLUFF, sq(5, 0)), Box(4, P, DEDUC, sq(4, 0)), Box(4, P, DECK, sq(5, 3)), Box(2, C, PROG, sq(4, 3))
    )
    groups = classic_groups(G, boxes)
    assert groups["c4"] == 3 and groups["c3"] == 0 and sum(groups.values()) == 3
    assert classic_groups(G, boxes, walls_block_adjacency=True)["c4"] == 2  # the wall cuts the third off
    # largest group only: two separate pairs of Memory score 2, not 4
    boxes, _ = boxes_filled(
        Box(1, T, MEMO, sq(4, 0)), Box(1, A, MEMO, sq(4, 1)), Box(1, C, MEMO, sq(4, 4)), Box(1, R, MEMO, sq(4, 5))
    )
    assert classic_groups(G, boxes, walls_block_adjacency=True)["m5"] == 2
    assert classic_groups(G, boxes)["m5"] == 2  # (4,1) and (4,4) are not neighbours


def test_score_bounds():
    assert score_bounds(G, ROUNDS, "classic") == (-24, 24)
    assert score_bounds(G, ROUNDS, "expert") == (-24, 12 * (4 + 11 + 2))


# ---- round structure and chance ----------------------------------------------------------------


def test_round_flow_shared_dice_seat_order_and_twelve_rounds():
    g = game(num_players=3)
    state = g.new_initial_state()
    assert state.current_player() == CHANCE
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == list(range(56))
    for rnd in range(ROUNDS):
        assert state.current_player() == CHANCE
        state.apply_action(ROLL_INDEX[(1, 2, 3)])
        for seat in range(3):
            assert state.current_player() == seat
            assert state.dice == (1, 2, 3)
            state.apply_action(state.legal_actions()[0])
        assert state.round == rnd + 1
    assert state.current_player() == TERMINAL
    assert len(state.history) == ROUNDS * 4
    assert g.info.max_game_length == ROUNDS * 3


def test_dice_assignment_is_free_and_exact():
    state = game(num_players=1).new_initial_state()
    state.apply_action(ROLL_INDEX[(1, 2, 3)])
    kinds = {state.action_to_string(a).rsplit(" ", 1)[0] for a in state.legal_actions()}
    assert kinds == {
        "box 1 A Deckbuilding",
        "box 1 C Deduction",
        "box 2 T Deckbuilding",
        "box 2 C Bluffing",
        "box 3 T Deduction",
        "box 3 A Bluffing",
    }
    # duplicated dice: one action per distinct box (the lowest permutation), no twin actions
    state = game(num_players=1).new_initial_state()
    state.apply_action(ROLL_INDEX[(5, 5, 5)])
    legal = state.legal_actions()
    assert {a // 36 for a in legal} == {0}
    names = [state.action_to_string(a) for a in legal]
    assert len(set(names)) == len(names)


def test_empty_sheet_boxes_stand_on_floors_only():
    state = game(num_players=1).new_initial_state()
    state.apply_action(ROLL_INDEX[(1, 1, 1)])  # 1x2 vertical Puzzle Bluffing
    anchors = sorted(a % 36 for a in state.legal_actions())
    assert anchors == sorted([sq(1, c) for c in range(6)] + [sq(4, c) for c in range(6)])


def test_support_full_partial_and_floating():
    g = game(num_players=1)
    # a 3x1 board game on the bottom floor of compartment (1,0), then 2x1 boxes on it
    state = g.state_from_position({"round": 2, "dice": [2, 2, 2], "sheets": [["box 4 P Bluffing r5c0"]]})
    anchors = {a % 36 for a in state.legal_actions()}
    assert sq(4, 0) in anchors and sq(4, 1) in anchors  # fully on the 3x1 box
    assert sq(3, 0) not in anchors  # floating
    assert sq(5, 3) in anchors and sq(5, 4) in anchors  # other floor
    assert sq(5, 2) not in anchors  # crosses the wall (5,2)-(5,3)
    # partially supported: 3x1 box on top of a 1x2 vertical, one square over the void
    state = g.state_from_position({"round": 2, "dice": [4, 4, 4], "sheets": [["box 1 P Bluffing r4c0"]]})
    anchors = {a % 36 for a in state.legal_actions()}
    assert sq(3, 0) not in anchors and sq(5, 0) not in anchors
    assert anchors == {sq(2, 0), sq(2, 3), sq(5, 3)}


def test_occupied_columns_stay_stacks_from_the_floor():
    rng = np.random.default_rng(5)
    for options in ({}, {"playmat_only_if_no_box": False}, {"comp_rows": 1, "comp_cols": 3, "comp_h": 4, "comp_w": 5}):
        g = game(num_players=1, **options)
        geom = g.geom
        state = g.new_initial_state()
        while not state.is_terminal():
            state.apply_action(state.sample_chance(rng) if state.is_chance_node() else int(rng.choice(state.legal_actions())))
            occ = state.occ[0]
            for s in range(geom.size):
                if occ >> s & 1 and not geom.is_floor[s]:
                    assert occ >> (s + geom.cols) & 1, "a filled square floats"


# ---- playmats and pass ---------------------------------------------------------------------------


def test_playmat_only_if_no_box_true():
    g = game(num_players=1)
    state = g.new_initial_state()
    state.apply_action(ROLL_INDEX[(1, 2, 3)])
    assert all(a < g.mat_base for a in state.legal_actions())
    # no box fits: only playmats, on every supported empty square
    state = g.state_from_position({"round": 12, "dice": [6, 5, 6], "sheets": [EXAMPLE[:11]]})
    names = [state.action_to_string(a) for a in state.legal_actions()]
    assert names == ["playmat r0c2", "playmat r1c3", "playmat r1c4"]  # (0,3) and (0,4) would float


def test_playmat_only_if_no_box_false():
    g = game(num_players=1, playmat_only_if_no_box=False)
    state = g.new_initial_state()
    state.apply_action(ROLL_INDEX[(1, 2, 3)])
    mats = [a - g.mat_base for a in state.legal_actions() if g.mat_base <= a < g.pass_action]
    assert mats == [sq(2, c) for c in range(6)] + [sq(5, c) for c in range(6)]
    assert any(a < g.mat_base for a in state.legal_actions())


def test_full_sheet_passes():
    g = game(num_players=1, playmat_only_if_no_box=False)
    fill = [f"box 6 P Bluffing r{r}c{c}" for r in (4, 1) for c in (0, 3)] + [
        f"box 4 C Memory r{r}c{c}" for r in (3, 0) for c in (0, 3)
    ]
    state = g.state_from_position({"round": 9, "dice": [1, 1, 1], "sheets": [fill]})
    assert state.occ[0] == g.geom.full
    assert state.legal_actions() == [g.pass_action]
    assert state.action_to_string(g.pass_action) == "pass"
    state.apply_action(g.pass_action)
    assert state.moves[0][-1][0] == 2 and state.occ[0] == g.geom.full
    with pytest.raises(ValueError, match="full sheet"):
        g.state_from_position({"round": 2, "dice": None, "sheets": [["pass"]]})


# ---- simultaneous choices: hidden until the round ends -------------------------------------------


def test_choices_are_hidden_until_the_round_ends():
    g = game(num_players=3)
    state = g.new_initial_state()
    state.apply_action(ROLL_INDEX[(2, 4, 6)])
    before = [state.observation(s) for s in range(3)]
    public_before = list(state.sheet_lines(0, None))
    state.apply_action(g.string_to_action(state, "box 6 P Deduction r4c0"))
    # seats 1 and 2 see nothing of seat 0's box; seat 0 sees its own
    assert np.array_equal(state.observation(1)[..., : LAYOUT["chosen"].start], before[1][..., : LAYOUT["chosen"].start])
    assert not np.array_equal(state.observation(0), before[0])
    own = LAYOUT.view(state.observation(0), "sheets")[..., :SHEET_CHANNELS]
    assert own[..., 0].sum() == 6
    seen_by_1 = LAYOUT.view(state.observation(1), "sheets")
    assert seen_by_1[..., 2 * SHEET_CHANNELS].sum() == 0  # seat 0 is slot 2 for seat 1
    assert LAYOUT.view(state.observation(1), "chosen")[0, 0, 2] == 1  # ... and is known to have chosen
    assert "P/Deduction" not in state.to_text() and "hidden until the round ends" in state.to_text()
    assert "your choice this round: box 6 P Deduction r4c0" in state.seat_text(0)
    assert "P/Deduction" in state.seat_text(0) and "P/Deduction" not in state.seat_text(1)
    assert state.scores()[0] == 0  # public score waits for the round's end
    assert state.sheet_lines(0, None) == public_before and state.sheet_lines(0, 1) == public_before
    state.apply_action(g.string_to_action(state, "box 4 A SecretRoles r5c0"))
    state.apply_action(g.string_to_action(state, "box 2 R Programming r5c4"))
    # the round is over: everything public
    seen_by_1 = LAYOUT.view(state.observation(1), "sheets")
    assert seen_by_1[..., 2 * SHEET_CHANNELS].sum() == 6
    assert "P/Deduction" in state.to_text()


def test_choices_do_not_interact():
    g = game(num_players=2)
    state = g.new_initial_state()
    state.apply_action(ROLL_INDEX[(2, 4, 6)])
    first = state.legal_actions()
    state.apply_action(g.string_to_action(state, "box 6 P Deduction r4c0"))
    assert state.legal_actions() == first  # seat 1 has the same options on its empty sheet


def test_resample_hidden_redraws_only_unseen_choices():
    g = game(num_players=3)
    state = g.new_initial_state()
    play_round(state, (1, 2, 3), ["box 3 A Bluffing r3c0", "box 3 A Bluffing r3c0", "box 3 A Bluffing r3c0"])
    state.apply_action(ROLL_INDEX[(4, 5, 6)])
    state.apply_action(g.string_to_action(state, "box 6 P Memory r4c3"))
    state.apply_action(g.string_to_action(state, "box 6 P Memory r4c3"))
    rng = np.random.default_rng(0)
    changed = set()
    for _ in range(30):
        other = state.resample_hidden(2, rng)
        assert np.array_equal(other.observation(2), state.observation(2))
        assert other.legal_actions() == state.legal_actions()
        assert [m[:1] for m in other.moves[0][:1]] == [m[:1] for m in state.moves[0][:1]]
        assert other.moves[0][0] == state.moves[0][0]  # finished rounds are public
        changed |= {s for s in (0, 1) if other.moves[s][-1] != state.moves[s][-1]}
        # the redrawn choices are legal with these dice
        for s in (0, 1):
            check = g.state_from_position(other.position())
            assert check.moves[s] == other.moves[s]
    assert changed == {0, 1}
    own = state.resample_hidden(0, rng)
    assert own.moves[0] == state.moves[0]


def hidden_choices(state: RangeTaLudothequeState, seat: int) -> set[int]:
    """History entries of this round's choices by other seats: ``seat`` has not seen them, so a resample
    redraws them (Range Ta's hidden information is these choices themselves)."""
    if state.current_player() < 0:
        return set()
    first = len(state.history) - state.current
    return {first + s for s in range(state.current) if s != seat}


def positions_everywhere(state: RangeTaLudothequeState, seat: int, redeal: RangeTaLudothequeState) -> None:
    """``position()`` at every node, chance nodes included (the kit allows ``NotImplementedError`` there)."""
    state.position()
    redeal.position()


def round_step(state: RangeTaLudothequeState) -> str:
    """Label of a node: the roll, the k-th choice of a round, the end."""
    if state.is_terminal():
        return "terminal"
    return "roll" if state.is_chance_node() else f"choice {state.current}"


@pytest.mark.parametrize("n", range(1, 9))
def test_resample_contract_at_every_node(n):
    """The kit's redeal checks (``testing.check_redeal``) for every seat at every node of seeded random games
    with every player count; only this round's hidden choices of other seats may change; ``position()`` at
    every node."""
    checked: Counter[str] = Counter()
    variants = [{}, {"scoring": "expert", "playmat_only_if_no_box": False}]
    games = variants if n <= 4 else variants[n % 2 :][:1]  # one game each from 5 players up (time)
    for options in games:
        checked += testing.check_redeals_along(
            game(num_players=n, **options), n, label=round_step, changeable=hidden_choices, also=positions_everywhere
        )
    assert checked["terminal"] == len(games) and checked["roll"] == 12 * len(games)
    assert all(checked[f"choice {k}"] == 12 * len(games) for k in range(n))


def test_resampled_history_replays_to_the_resampled_choices():
    """The defect: the history of a resampled state replayed to the true choices of this round."""
    g = game(num_players=4)
    state = g.new_initial_state()
    rng = np.random.default_rng(0)
    differ = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
            continue
        for seat in range(4):
            other = state.resample_hidden(seat, rng)
            replayed = g.state_from_history(other.history)
            assert replayed.moves == other.moves and replayed.occ == other.occ
            assert other.history[: len(other.history) - state.current] == state.history[: len(state.history) - state.current]
            differ += other.moves != state.moves
        state.apply_action(state.legal_actions()[rng.integers(len(state.legal_actions()))])
    assert differ > 50


def test_resampled_choices_are_uniform_over_the_legal_moves():
    """Each hidden choice is redrawn uniformly among that seat's legal moves with this round's dice."""
    g = game(num_players=3)
    state = g.new_initial_state()
    play_round(state, (1, 2, 3), ["box 3 A Bluffing r3c0", "box 3 A Bluffing r3c0", "box 3 A Bluffing r3c0"])
    state.apply_action(ROLL_INDEX[(2, 4, 6)])
    state.apply_action(g.string_to_action(state, "box 6 P Deduction r4c3"))
    state.apply_action(g.string_to_action(state, "box 2 R Programming r5c1"))
    rng = np.random.default_rng(1)
    legal = {}
    for s in (0, 1):
        before = state.clone()
        before.unplace(s)
        legal[s] = g.legal_actions_for(before.occ[s], state.roll_id)
    samples = 200 * len(legal[0])
    counts: dict[int, Counter[int]] = {0: Counter(), 1: Counter()}
    for _ in range(samples):
        other = state.resample_hidden(2, rng)
        first = len(other.history) - other.current
        for s in (0, 1):
            counts[s][other.history[first + s]] += 1
    for s in (0, 1):
        assert set(counts[s]) == set(legal[s])
        expected = samples / len(legal[s])
        assert all(abs(c - expected) <= 5 * np.sqrt(expected) for c in counts[s].values()), counts[s]


# ---- results -------------------------------------------------------------------------------------


def test_returns_rank_with_empty_square_tiebreak():
    g = game(num_players=3)
    # seat 0: one 3x2 box (classic 0 - 30); seat 1: one 1x2 box (0 - 34); seat 2: 3x2 box too
    done = {"round": 13, "dice": None}
    base = ["playmat r5c3"] * 0
    s0 = (
        ["box 6 P Bluffing r4c0"]
        + [f"playmat r5c{c}" for c in (3, 4, 5)]
        + [f"playmat r4c{c}" for c in (3, 4, 5)]
        + [f"playmat r3c{c}" for c in (3, 4, 5)]
        + ["playmat r2c0", "playmat r2c1"]
    )
    s1 = (
        ["box 5 T Deduction r3c3"]
        + [f"playmat r5c{c}" for c in (0, 1, 2)]
        + [f"playmat r4c{c}" for c in (0, 1, 2)]
        + [f"playmat r3c{c}" for c in (0, 1, 2)]
        + ["playmat r2c0", "playmat r2c1"]
    )
    s2 = (
        ["box 4 P Bluffing r5c0"]
        + [f"playmat r5c{c}" for c in (3, 4, 5)]
        + [f"playmat r4c{c}" for c in (0, 1, 2, 3, 4, 5)]
        + [
            "playmat r2c0",
            "playmat r2c1",
        ]
    )
    state = g.state_from_position({**done, "sheets": [base + s0, s1, s2]})
    assert [state.sheet_score(s) for s in range(3)] == [-19, -19, -22]
    assert [state.empty_squares(s) for s in range(3)] == [19, 19, 22]
    assert state.returns().tolist() == [0.5, 0.5, -1.0]
    assert state.scores().tolist() == [-19, -19, -22]


def test_solo_return_is_the_scaled_score():
    for scoring in ("classic", "expert"):
        state = example_state(scoring=scoring)
        low, high = state.game.bounds
        score = state.sheet_score(0)
        assert state.returns()[0] == pytest.approx(-1 + 2 * (score - low) / (high - low))
        assert -1 <= state.returns()[0] <= 1
    assert example_state().returns()[0] == pytest.approx(-1 + 2 * 26 / 48)
    assert not game(num_players=1).info.has_hidden_info and game(num_players=2).info.has_hidden_info


def test_running_score_grows_to_the_final_score():
    g = game(num_players=1)
    state = g.state_from_position({"round": 7, "dice": None, "sheets": [EXAMPLE[:6]]})
    points = classic_score(G, state.boxes[0], state.occ[0]) + state.empty_squares(0)
    assert state.scores()[0] == pytest.approx(points - state.empty_squares(0) * 6 / 12)
    assert g.new_initial_state().scores().tolist() == [0.0]
    assert example_state().scores().tolist() == [2.0]


# ---- options -------------------------------------------------------------------------------------


def test_options_and_geometry():
    g = game(comp_rows=1, comp_cols=3, comp_h=4, comp_w=5)
    assert (g.geom.rows, g.geom.cols) == (4, 15)
    assert g.info.num_actions == 7 * 60 + 1
    assert g.info.observation_shape == (4, 15, LAYOUT.size)
    assert game().info.observation_shape == (6, 6, LAYOUT.size)
    for bad in ({"comp_h": 2}, {"comp_w": 7}, {"comp_rows": 0}, {"scoring": "pro"}, {"comp_cols": True}, {"num_players": 9}):
        with pytest.raises(ValueError):
            game(**bad)
    assert envs.spec(ID).player_counts == (2, 1, 3, 4, 5, 6, 7, 8)


def test_taller_compartments_have_higher_floors():
    g = game(num_players=1, comp_rows=1, comp_cols=1, comp_h=4, comp_w=3)
    state = g.new_initial_state()
    state.apply_action(ROLL_INDEX[(3, 3, 3)])
    assert sorted(a % g.geom.size for a in state.legal_actions()) == [3, 4, 5]  # rows 1-3, floor row 3


def test_option_flags_in_the_observation():
    for options, flags in (
        ({}, [0, 0, 1]),
        ({"scoring": "expert", "walls_block_adjacency": True, "playmat_only_if_no_box": False}, [1, 1, 0]),
    ):
        obs = game(**options).new_initial_state().observation(0)
        assert LAYOUT.view(obs, "options")[0, 0].tolist() == flags


# ---- observation, names, positions ---------------------------------------------------------------


def test_observation_content():
    g = game(num_players=2)
    state = g.new_initial_state()
    play_round(state, (1, 4, 6), ["box 6 T Programming r4c3", "box 1 R Programming r1c0"])
    state.apply_action(ROLL_INDEX[(2, 2, 5)])
    obs = state.observation(1)
    sheets = LAYOUT.view(obs, "sheets")
    own, other = sheets[..., :SHEET_CHANNELS], sheets[..., SHEET_CHANNELS : 2 * SHEET_CHANNELS]
    assert own[1, 0, 0] == 1 and own[1, 0, 2 + R - 1] == 1 and own[1, 0, 8 + PROG - 1] == 1 and own[1, 0, 15] == 1
    assert own[2, 0, 15] == 0
    assert other[4, 3, 0] == 1 and other[4, 3, 14] == 1 and other[4, 5, 14] == 0 and other[4, 3, 15] == 1
    assert other[:, :, 2 + T - 1].sum() == 6
    assert sheets[..., 2 * SHEET_CHANNELS :].sum() == 0  # padding up to 8 seats
    assert LAYOUT.view(obs, "present")[0, 0].tolist() == [1, 1, 0, 0, 0, 0, 0, 0]
    dice = LAYOUT.view(obs, "dice")[0, 0].reshape(3, 6)
    assert dice.argmax(axis=1).tolist() == [1, 1, 4]
    assert LAYOUT.view(obs, "round")[0, 0, 0] == pytest.approx(1 / 12)
    assert LAYOUT.view(obs, "floor")[:, 0, 0].tolist() == [0, 0, 1, 0, 0, 1]
    assert LAYOUT.view(obs, "wall_right")[0, :, 0].tolist() == [0, 0, 1, 0, 0, 0]
    sup = LAYOUT.view(obs, "supported")[..., 0]
    assert sup[0, 0] == 1 and sup[2, 0] == 0 and sup[5, 0] == 1 and sup[3, 3] == 0 and sup[5, 3] == 1


def test_action_names_parse_back():
    g = game(num_players=2)
    state = g.new_initial_state()
    state.apply_action(ROLL_INDEX[(3, 3, 6)])
    assert state.action_to_string(0 * 36 + sq(5, 3)) == "box 3 C SecretRoles r5c3"  # perm (0,1,2) of dice 3,3,6
    assert state.action_to_string(1 * 36 + sq(5, 3)) == "box 3 R Deckbuilding r5c3"  # perm (0,2,1)
    for a in state.legal_actions():
        assert g.string_to_action(state, state.action_to_string(a)) == a
    assert g.string_to_action(state, "BOX 6 c deckbuilding R4C0") == g.string_to_action(state, "box 6 C Deckbuilding r4c0")
    with pytest.raises(IllegalActionError):
        g.string_to_action(state, "box 6 C Deckbuilding r0c0")
    fresh = g.new_initial_state()
    assert fresh.action_to_string(ROLL_INDEX[(3, 3, 6)]) == "roll 3,3,6"


def test_position_round_trip_mid_round_and_json():
    g = game(num_players=4, scoring="expert")
    rng = np.random.default_rng(3)
    state = g.new_initial_state()
    for _ in range(30):
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else int(rng.choice(state.legal_actions())))
    pos = json.loads(json.dumps(state.position()))
    copy = g.state_from_position(pos)
    assert copy.current_player() == state.current_player()
    assert copy.legal_actions() == state.legal_actions()
    assert copy.to_text() == state.to_text()
    for s in range(4):
        assert np.array_equal(copy.observation(s), state.observation(s))
        assert copy.seat_text(s) == state.seat_text(s)
    assert np.array_equal(copy.returns(), state.returns()) and np.array_equal(copy.scores(), state.scores())


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ({"round": 1, "dice": None}, "keys"),
        ({"round": 0, "dice": None, "sheets": [[], []]}, "round"),
        ({"round": 1, "dice": [1, 2, 7], "sheets": [[], []]}, "dice"),
        ({"round": 1, "dice": None, "sheets": [[]]}, "2 move lists"),
        ({"round": 2, "dice": None, "sheets": [[], []]}, "must have 1 or 2"),
        ({"round": 1, "dice": [1, 2, 3], "sheets": [[], ["box 3 A Bluffing r3c0"]]}, "seat order"),
        ({"round": 1, "dice": None, "sheets": [["box 3 A Bluffing r3c0"], []]}, "dice are null"),
        ({"round": 1, "dice": [1, 2, 3], "sheets": [["box 3 A Bluffing r3c0"], ["box 3 A Bluffing r3c0"]]}, "round is over"),
        ({"round": 2, "dice": None, "sheets": [["box 3 Q Bluffing r3c0"], ["pass"]]}, "unknown category"),
        ({"round": 2, "dice": None, "sheets": [["box 3 A Sleeping r3c0"], ["pass"]]}, "unknown mechanism"),
        ({"round": 2, "dice": None, "sheets": [["box 1 A Bluffing r0c0"], ["playmat r5c0"]]}, "floats"),
        ({"round": 2, "dice": None, "sheets": [["box 4 A Bluffing r5c2"], ["playmat r5c0"]]}, "crosses a compartment wall"),
        ({"round": 2, "dice": None, "sheets": [["box 3 A Bluffing r9c0"], ["playmat r5c0"]]}, "off the"),
        ({"round": 3, "dice": None, "sheets": [["playmat r5c0", "playmat r5c0"], ["playmat r5c0", "playmat r4c0"]]}, "filled"),
        ({"round": 1, "dice": [1, 2, 3], "sheets": [["box 6 A Bluffing r4c0"], []]}, "not a legal choice"),
        ({"round": 1, "dice": [1, 2, 3], "sheets": [["playmat r5c0"], []]}, "not a legal choice"),
        ({"round": 13, "dice": [1, 2, 3], "sheets": [["pass"] * 12, ["pass"] * 12]}, "game is over"),
    ],
)
def test_bad_positions_raise_value_error(position, message):
    with pytest.raises(ValueError, match=message):
        game(num_players=2).state_from_position(position)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.sampled_from([1, 2, 5, 8]), expert=st.booleans())
def test_random_positions_round_trip_and_scores_match_pure_functions(seed, n, expert):
    g = game(num_players=n, scoring="expert" if expert else "classic")
    rng = np.random.default_rng(seed)
    state = g.new_initial_state()
    stop = int(rng.integers(0, ROUNDS * (n + 1) + 1))
    for _ in range(stop):
        if state.is_terminal():
            break
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else int(rng.choice(state.legal_actions())))
    copy = g.state_from_position(state.position())
    assert copy.position() == state.position()
    assert copy.current_player() == state.current_player() and copy.legal_actions() == state.legal_actions()
    for s in range(n):
        assert np.array_equal(copy.observation(s), state.observation(s))
        full = (expert_score if expert else classic_score)(g.geom, state.boxes[s], state.occ[s])
        assert state.sheet_score(s, s) == full
    assert np.array_equal(copy.returns(), state.returns())


def test_env_plays_through_make():
    env = envs.make(ID, num_players=8)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        del agent
    assert env.game_state.is_terminal()


def test_heuristic_and_solo_evaluation():
    from gameshelf.training.evaluate import evaluate

    result = evaluate(ID, ["heuristic", "random"], games=6, num_players=1, seed=1)
    assert result.rating_kind == "none" and "mean score" in result.table()
    heuristic = next(p for p in result.pairs if p.agent == "heuristic")
    assert heuristic.games == 6
    result = evaluate(ID, ["heuristic", "random"], games=4, seed=1, options={"scoring": "expert"})
    assert result.pairs
