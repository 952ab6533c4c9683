"""Paikō: every rule and every worked example of the game's specification, each option both ways.

Positions are built with the position builder (``game.state_from_position``); moves are played by name.
Coordinates are ``(x, y)``; the diagram in ``to_text`` has y growing downwards.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gameshelf import envs
from gameshelf.envs.core.game import TERMINAL, IllegalActionError
from gameshelf.envs.paiko import actions as A
from gameshelf.envs.paiko import board as B
from gameshelf.envs.paiko.game import PaikoGame, PaikoState
from gameshelf.envs.paiko.observation import LAYOUT

TYPES = B.TYPE_NAMES


def game(**options) -> PaikoGame:
    return envs.make_game("paiko-v0", **options)  # type: ignore[return-value]


def counts(names: list[str]) -> list[int]:
    out = [0] * 8
    for n in names:
        out[TYPES.index(n)] += 1
    return out


def build(tiles, to_move=0, hand=((), ()), reserve=None, phase="start", g=None, **extra) -> PaikoState:
    """A position: tiles ``[(x, y, owner, type, facing)]``; reserves default to everything else."""
    hands = [counts(list(hand[0])), counts(list(hand[1]))]
    if reserve is None:
        reserve = []
        for p in range(2):
            used = counts([t[3] for t in tiles if t[2] == p])
            reserve.append([3 - used[k] - hands[p][k] for k in range(8)])
    position = {"phase": phase, "to_move": to_move, "tiles": [list(t) for t in tiles], "reserve": reserve, "hand": hands}
    position.update(extra)
    return (g or game()).state_from_position(position)


def names(state: PaikoState) -> dict[str, int]:
    return {state.action_to_string(a): a for a in state.legal_actions()}


def play(state: PaikoState, *moves: str) -> PaikoState:
    for m in moves:
        state.apply_action(state.game.string_to_action(state, m))
    return state


def sq(x: int, y: int) -> int:
    return B.INDEX[(x, y)]


def T(state: PaikoState, p: int, x: int, y: int) -> int:
    return state.threat(p, sq(x, y))


def C(state: PaikoState, p: int, x: int, y: int) -> int:
    return state.covered(p, sq(x, y))


# ---- board ---------------------------------------------------------------------------------------


def test_board_geometry():
    assert B.NUM_SQUARES == 112
    rows = {}
    for x, y in B.SQUARES:
        rows.setdefault(y, []).append(x)
    assert rows[0] == [6, 7] and rows[13] == [6, 7]
    assert rows[6] == list(range(14)) and rows[7] == list(range(14))
    assert rows[10] == list(range(3, 11))
    assert sum(B.IS_BLACK) == 4 and {B.SQUARES[i] for i in range(112) if B.IS_BLACK[i]} == {(5, 5), (8, 8), (7, 6), (6, 7)}
    zones = [B.ZONE.count(z) for z in (0, 1, -1)]
    assert zones == [28, 28, 56]
    assert B.ZONE[sq(3, 9)] == 0 and B.ZONE[sq(9, 4)] == 1 and B.ZONE[sq(4, 5)] == -1 and B.ZONE[sq(9, 9)] == -1
    # one black square in each quarter
    assert sorted(B.zone_of(x, y) for x, y in B.BLACK_SQUARES) == [-1, -1, 0, 1]


@pytest.mark.parametrize(
    "facing, expected",
    [(0, [(1, 2), (3, 4)]), (1, [(-2, 1), (-4, 3)]), (2, [(-1, -2), (-3, -4)]), (3, [(2, -1), (4, -3)])],
)
def test_rotation_formula(facing, expected):
    assert [B.rotate(o, facing) for o in ((1, 2), (3, 4))] == expected


def test_patterns_at_facing_zero():
    def offs(table, kind, x=6, y=6):
        s = sq(x, y)
        return sorted((B.SQUARES[t][0] - x, B.SQUARES[t][1] - y) for t in table[kind][0][s])

    assert offs(B.THREAT, B.SAI) == [(0, -1)]
    assert offs(B.COVER, B.SAI) == [(-1, 0), (1, 0)]
    assert len(offs(B.THREAT, B.SWORD)) == 8
    assert offs(B.THREAT, B.BOW) == [(0, -4), (0, -3), (0, -2)]
    assert offs(B.THREAT, B.LOTUS) == [] and len(offs(B.COVER, B.LOTUS)) == 9 and (0, 0) in offs(B.COVER, B.LOTUS)
    assert sorted(map(lambda o: (abs(o[0]), abs(o[1])), offs(B.THREAT, B.AIR))) == sorted([(1, 2)] * 4 + [(2, 1)] * 4)
    fire = offs(B.THREAT, B.FIRE, 6, 7)
    assert fire == sorted([(dx, -2) for dx in range(-2, 3)] + [(dx, -1) for dx in range(-1, 2)] + [(0, 0)])
    assert offs(B.THREAT, B.EARTH) == sorted([(0, 1), (0, 2), (0, -1), (0, -2), (1, 0), (2, 0), (-1, 0), (-2, 0)])
    assert offs(B.THREAT, B.WATER) == [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    assert offs(B.COVER, B.WATER) == [(-1, 0), (0, -1), (0, 1), (1, 0)]
    assert B.RANGE == (2, 2, 2, 0, 0, 2, 1, 2)


# ---- spec worked examples ------------------------------------------------------------------------


def test_example_1_score():
    s = build(
        [(3, 9, 0, "Sword", 0), (4, 5, 0, "Bow", 0), (9, 3, 0, "Earth", 0), (5, 6, 0, "Lotus", 0), (8, 2, 1, "Water", 0)],
    )
    assert s.score == [3, 0]
    assert s.scores().tolist() == [3.0, 0.0]


def simple_capture(with_water: bool) -> PaikoState:
    tiles = [(4, 4, 0, "Sword", 0), (7, 4, 0, "Sword", 0), (5, 4, 1, "Bow", 0)]
    if with_water:
        tiles.append((5, 3, 1, "Water", 0))
    return build(tiles)


def test_example_2_simple_capture_and_the_gift_decision():
    s = simple_capture(False)
    assert s.score == [2 + 1, 1]
    assert not s.capturable(sq(5, 4))
    play(s, "move Sword (7,4)", "Sword to (6,4)", "face N")
    assert T(s, 0, 5, 4) == 2  # computed on the board after the move (the Bow is gone now)
    assert s.board[sq(5, 4)] == B.EMPTY
    assert s.score == [1 + 1, 0] and s.lost == [0, 1]
    # Black, the captured owner, decides now, in the middle of White's turn
    assert s.current_player() == 1 and s.mover == 0
    gifts = names(s)
    assert set(gifts) == {f"give {t}" for t in TYPES}  # White's reserve still holds one of each type
    hand_before = list(s.hand[0])
    play(s, "give Fire")
    assert s.hand[0][B.FIRE] == hand_before[B.FIRE] + 1 and s.reserve[0][B.FIRE] == 2
    assert s.current_player() == 1 and s.mover == 1 and s.phase == 1  # Black's own turn begins


def test_example_3_chain_capture_through_lost_cover():
    s = simple_capture(True)
    assert C(s, 1, 5, 4) == 1 and T(s, 0, 5, 4) == 1
    play(s, "move Sword (7,4)", "Sword to (6,4)", "face N")
    assert s.board[sq(5, 3)] == B.EMPTY and s.board[sq(5, 4)] == B.EMPTY
    assert s.lost == [0, 2] and s.score[1] == 0
    assert [B.code_type(code) for _, code in s.last_captured] == [B.WATER, B.BOW]  # the Water first
    assert s.current_player() == 1 and s.gifts == 2
    play(s, "give Fire", "give Fire")
    assert s.hand[0][B.FIRE] == 2 and s.current_player() == 1 and s.mover == 1


def test_example_3_the_water_cover_saves_the_bow_while_the_water_stands():
    # the same Bow and Water, the Water itself kept safe by a Black Lotus on (5,2): nothing is capturable
    s = build([(4, 4, 0, "Sword", 0), (6, 4, 0, "Sword", 0), (5, 4, 1, "Bow", 0), (5, 3, 1, "Water", 0), (5, 2, 1, "Lotus", 0)])
    assert T(s, 0, 5, 4) == 2 and C(s, 1, 5, 4) == 1 and not s.capturable(sq(5, 4))
    assert T(s, 0, 5, 3) == 2 and C(s, 1, 5, 3) == 1 and not s.capturable(sq(5, 3))


def test_example_4_homeground_cover():
    s = build([(9, 4, 1, "Bow", 0), (8, 3, 0, "Sword", 0), (10, 3, 0, "Sword", 0)])
    assert T(s, 0, 9, 4) == 2 and C(s, 1, 9, 4) == 1
    assert not s.capturable(sq(9, 4))
    play(s, "draw Air", "stop drawing")
    assert s.board[sq(9, 4)] >= 0 and s.lost == [0, 0]


@pytest.mark.parametrize(
    "facing, threatened",
    [
        (0, [(6, 8), (6, 7), (6, 6)]),
        (1, [(8, 10), (9, 10), (10, 10)]),
        (2, [(6, 12), (6, 13)]),  # (6,14) is off the board
        (3, [(4, 10), (3, 10)]),  # (2,10) is off the board: row 10 runs from x 3 to 10
    ],
)
def test_example_5_rotation(facing, threatened):
    s = build([(6, 10, 0, "Bow", facing)])
    got = sorted(B.SQUARES[i] for i in range(112) if s.threat(0, i))
    assert got == sorted(threatened)


def test_example_5_fire_threatens_itself_and_both_sides():
    s = build([(3, 9, 0, "Fire", 0)])
    assert T(s, 0, 3, 9) == 1 and T(s, 1, 3, 9) == 1
    for x, y in [(1, 7), (5, 7), (2, 8), (4, 8)]:
        assert T(s, 0, x, y) == 1 and T(s, 1, x, y) == 1


def test_example_6_deploy():
    s = build([(4, 7, 0, "Sword", 0)], hand=(["Bow"], []))
    play(s, "deploy Bow")
    squares = set(names(s))
    assert "Bow at (4,6)" in squares
    assert "Bow at (2,5)" not in squares
    assert "Bow at (0,7)" in squares  # anywhere free in the own homeground
    play(s, "Bow at (4,6)", "face N")
    assert s.score == [1, 0]


# ---- the draft and the draw ----------------------------------------------------------------------


def test_draft_is_7_9_1_then_white_starts():
    s = game().new_initial_state()
    seq = []
    while s.phase == 0:
        seq.append(s.current_player())
        legal = names(s)
        assert set(legal) == {f"draft {t}" for t in TYPES if s.reserve[s.mover][TYPES.index(t)]}
        s.apply_action(s.legal_actions()[0])
    assert seq == [0] * 7 + [1] * 9 + [0]
    assert [sum(h) for h in s.hand] == [8, 9]
    assert s.current_player() == 0 and s.phase == 1 and s.turn == 0
    # the draft takes what the player chooses: all three Sai first, then the Swords
    assert s.hand[0][B.SAI] == 3 and s.hand[0][B.SWORD] == 3


@pytest.mark.parametrize("n", [1, 2, 3])
def test_draw_one_to_three(n):
    s = build([], hand=(["Sword"], []))
    moves = ["draw Fire", "draw Fire", "draw Water"][:n]
    play(s, *moves)
    if n < 3:
        assert s.current_player() == 0 and "stop drawing" in names(s)
        play(s, "stop drawing")
    assert s.current_player() == 1
    assert sum(s.hand[0]) == 1 + n


def test_draw_ends_when_the_reserve_runs_out():
    reserve = [[0, 0, 0, 0, 0, 1, 0, 0], [3] * 8]
    hand = [[3, 3, 3, 3, 3, 2, 3, 3], [0] * 8]
    s = game().state_from_position({"phase": "start", "to_move": 0, "tiles": [], "reserve": reserve, "hand": hand})
    play(s, "draw Fire")
    assert s.current_player() == 1 and s.hand[0][B.FIRE] == 3


def test_no_stop_before_the_first_pick():
    s = build([], hand=(["Sword"], []))
    assert "stop drawing" not in names(s)


# ---- deploy --------------------------------------------------------------------------------------


def test_deploy_needs_no_opponent_threat_and_own_threat_or_homeground():
    s = build([(4, 7, 0, "Sword", 0), (5, 4, 1, "Sword", 0)], hand=(["Earth"], []))
    play(s, "deploy Earth")
    legal = set(names(s))
    assert "Earth at (4,6)" in legal  # threatened by the White Sword only
    assert "Earth at (5,6)" in legal
    assert "Earth at (6,6)" not in legal  # middleground, not threatened by White
    assert "Earth at (6,8)" in legal  # own homeground
    s2 = build([(4, 7, 0, "Sword", 0), (4, 4, 1, "Sword", 0)], hand=(["Earth"], []))
    play(s2, "deploy Earth")
    assert "Earth at (4,6)" in names(s2)
    assert "Earth at (3,5)" not in names(s2)  # Black's Sword threatens it
    assert "Earth at (5,5)" not in names(s2)  # black square


def test_deploy_refused_in_any_fire_zone_even_own():
    s = build([(3, 9, 0, "Fire", 0)], hand=(["Sword"], []))
    play(s, "deploy Sword")
    legal = set(names(s))
    assert "Sword at (3,8)" not in legal and "Sword at (3,9)" not in legal and "Sword at (1,7)" not in legal
    assert "Sword at (3,10)" in legal


def test_lotus_deploys_anywhere_empty_incl_black_with_opponent_threat_at_most_2():
    s = build([(4, 4, 1, "Sword", 0), (6, 4, 1, "Sword", 0), (5, 7, 1, "Sword", 0)], hand=(["Lotus"], []))
    # (5,5): black, threatened by the Black Swords on (4,4) and (6,4): 2 threats, allowed for a Lotus
    play(s, "deploy Lotus")
    legal = set(names(s))
    assert "Lotus at (5,5)" in legal
    assert "Lotus at (12,6)" in legal  # far away in the opponent's homeground
    s2 = build([(4, 4, 1, "Sword", 0), (6, 4, 1, "Sword", 0), (5, 6, 1, "Sword", 0)], hand=(["Lotus"], []))
    play(s2, "deploy Lotus")
    assert "Lotus at (5,5)" not in names(s2)  # threat 3
    play(s2, "Lotus at (4,5)", "face N")
    assert s2.score == [0, 3]  # a Lotus never scores (Black's Swords: 1 + 1 + 1)


def test_lotus_and_air_never_move():
    s = build([(5, 5, 0, "Lotus", 0), (3, 9, 0, "Air", 0), (4, 9, 0, "Sword", 0)])
    legal = names(s)
    assert "move Sword (4,9)" in legal
    assert not any(n.startswith("move Lotus") or n.startswith("move Air") for n in legal)


def test_fire_deploy_facing_excluded_when_it_makes_an_own_tile_capturable():
    # White Sword at (6,5) (middleground, no cover) threatened once by a Black Sword at (7,4).
    s = build([(6, 5, 0, "Sword", 0), (7, 4, 1, "Sword", 0), (4, 7, 0, "Earth", 0)], hand=(["Fire"], []))
    assert T(s, 1, 6, 5) == 1
    play(s, "deploy Fire")
    # (4,6) is threatened by the Earth on (4,7) (and by the Sword? no). A Fire there facing E reaches (6,5):
    # offsets (dx,-2)->(2,dx) at E: (6,5) = (4+2, 6-1) -> own Sword threatened twice, uncovered: illegal.
    play(s, "Fire at (4,6)")
    faces = set(names(s))
    assert "face E" not in faces and "face N" in faces


# ---- Sai -----------------------------------------------------------------------------------------


def test_sai_may_shift_right_after_deploy_then_captures():
    # White deploys a Sai on (5,6) (threatened by the Sword on (4,7)), shifts it at once to (6,5) facing N:
    # with the Sword on (7,4) the Black Bow on (6,4) is threatened twice and captured after the shift.
    s = build([(4, 7, 0, "Sword", 0), (6, 4, 1, "Bow", 0), (7, 4, 0, "Sword", 0)], hand=(["Sai"], []))
    play(s, "deploy Sai", "Sai at (5,6)", "face E")
    assert s.phase == 5 and s.current_player() == 0 and s.lost == [0, 0]  # no capture before the shift
    legal = names(s)
    assert "Sai stays" in legal and "Sai to (6,5)" in legal and "Sai to (5,5)" not in legal  # (5,5) is black
    play(s, "Sai to (6,5)", "face N")
    assert s.board[sq(6, 4)] == B.EMPTY and s.lost == [0, 1]
    assert s.rep_sq[0] == sq(6, 5) and s.rep_count[0] == 1  # the deploy reset the count, the shift set it to 1
    assert s.score == [1 + 2, 0]
    assert s.current_player() == 1 and s.phase == 9  # Black chooses White's gift


def test_sai_stay_resets_the_repeat_counter():
    s = build([(4, 7, 0, "Sword", 0)], hand=(["Sai"], []), repeat=[[4, 7, 2], None])
    play(s, "deploy Sai", "Sai at (4,6)", "face E", "Sai stays")
    assert s.rep_sq[0] == -1 and s.rep_count[0] == 0 and s.current_player() == 1


def test_sai_zero_step_shift_must_change_facing():
    s = build([(4, 7, 0, "Sword", 0)], hand=(["Sai"], []))
    play(s, "deploy Sai", "Sai at (4,6)", "face E", "Sai to (4,6)")
    assert "face E" not in names(s) and "face N" in names(s)


# ---- shift and redeploy --------------------------------------------------------------------------


def test_shift_range_and_paths():
    s = build([(3, 9, 0, "Earth", 0), (5, 9, 0, "Sword", 0)])
    play(s, "move Earth (3,9)")
    dest = {n.split(" to ")[1] for n in names(s)}
    assert dest == {"(3,9)", "(2,9)", "(4,9)", "(3,8)", "(3,10)"}  # range 1 (origin: rotate only)
    s = build([(3, 9, 0, "Earth", 0), (5, 9, 0, "Sword", 0)])
    play(s, "move Sword (5,9)")
    dest = {n.split(" to ")[1] for n in names(s)}
    # range 2 through empty squares; (4,9) -> (3,9) is occupied; (6,7) is black
    assert "(5,7)" in dest and "(7,9)" in dest and "(4,10)" in dest and "(3,9)" not in dest and "(6,7)" not in dest
    assert "(4,8)" in dest  # two steps with a turn
    assert len(dest) == 12


def test_shift_cannot_stop_on_a_square_where_it_would_be_captured():
    # Black Swords on (6,5) and (4,5) threaten (5,6) twice; it is a middleground square, uncovered
    s = build([(6, 5, 1, "Sword", 0), (4, 5, 1, "Sword", 0), (5, 8, 0, "Bow", 0), (2, 6, 0, "Lotus", 0)])
    play(s, "move Bow (5,8)")
    dest = {n.split(" to ")[1] for n in names(s)}
    assert "(5,7)" in dest  # White's homeground, not threatened
    assert "(5,6)" not in dest
    assert "(5,5)" not in dest  # black


def test_path_blocked_by_danger_not_by_distance():
    # (5,6) is threatened twice by Black Swords and uncovered: a Bow on (5,7) cannot pass it to reach (6,6),
    # although (6,6) itself is safe; (4,6) is reached through (4,7) (own homeground, covered)
    s = build([(6, 5, 1, "Sword", 0), (4, 5, 1, "Sword", 0), (5, 7, 0, "Bow", 0)])
    assert T(s, 1, 5, 6) == 2 and T(s, 1, 6, 6) == 1
    play(s, "move Bow (5,7)")
    dest = {n.split(" to ")[1] for n in names(s)}
    assert "(6,6)" not in dest and "(5,6)" not in dest
    assert "(4,6)" in dest and "(4,7)" in dest


def test_zero_step_shift_must_change_facing():
    s = build([(3, 9, 0, "Sword", 1)])
    play(s, "move Sword (3,9)", "Sword to (3,9)")
    assert set(names(s)) == {"face N", "face S", "face W"}
    play(s, "face N")
    assert B.code_facing(s.board[sq(3, 9)]) == 0


def test_water_redeploy_reaches_far_squares():
    s = build([(3, 9, 0, "Water", 0), (10, 7, 0, "Sword", 0)])
    play(s, "move Water (3,9)")
    dest = {n.split(" to ")[1] for n in names(s)}
    assert "(6,13)" in dest  # anywhere in the own homeground
    assert "(11,6)" in dest  # threatened by the Sword on (10,7): Black's homeground
    assert "(8,3)" not in dest
    play(s, "Water to (11,6)", "face N")
    assert s.score == [2 + 1, 0]
    assert s.rep_sq[0] == sq(11, 6) and s.rep_count[0] == 1


def test_water_redeploy_counts_its_own_threat_from_its_origin():
    # White Water on (6,6); (7,5) (Black's homeground) is threatened only by the Water itself. A shift cannot
    # get there: (6,5) holds a White Bow and (7,6) is black. The redeploy can.
    s = build([(6, 6, 0, "Water", 0), (6, 5, 0, "Bow", 0)])
    assert T(s, 0, 7, 5) == 1
    assert sq(7, 5) not in s.shift_squares(sq(6, 6))
    play(s, "move Water (6,6)")
    legal = names(s)
    assert "Water to (7,5)" in legal
    assert "Water to (8,4)" not in legal  # not threatened by White, not White's homeground
    assert "Water to (4,11)" in legal  # anywhere free in the own homeground


# ---- self-capture ban ----------------------------------------------------------------------------


def test_moving_a_sai_may_not_uncover_an_own_tile():
    # White Bow on (5,4) (middleground) threatened twice by Black Waters, covered by the White Sai on (4,4)
    s = build([(5, 4, 0, "Bow", 0), (4, 4, 0, "Sai", 0), (6, 3, 1, "Water", 0), (6, 5, 1, "Water", 0)])
    assert T(s, 1, 5, 4) == 2 and C(s, 0, 5, 4) == 1 and not s.capturable(sq(5, 4))
    play(s, "move Sai (4,4)")
    # only squares from which a Sai can still cover (5,4): (4,4) itself and (5,3) (reached via (4,3))
    assert set(names(s)) == {"Sai to (4,4)", "Sai to (5,3)"}
    t = play(s.clone(), "Sai to (5,3)")
    assert set(names(t)) == {"face E", "face W"}  # facing E/W covers (5,2) and (5,4)
    play(s, "Sai to (4,4)")
    assert set(names(s)) == {"face S"}  # turned E/W it would cover (4,3)/(4,5) instead


def test_self_capture_check_comes_before_captures():
    # White Bow (5,4) covered by a White Lotus (4,3), threatened by Black Waters (6,3) and (6,5): safe.
    # A White Fire moved to (4,4) facing E would threaten Black's Water (6,3) (with the Sword on (7,2): captured)
    # but also the own Bow (3 threats - 1 cover = 2): illegal, although after the capture the Bow would be safe.
    s = build(
        [
            (5, 4, 0, "Bow", 0),
            (4, 3, 0, "Lotus", 0),
            (7, 2, 0, "Sword", 0),
            (4, 6, 0, "Fire", 2),
            (6, 3, 1, "Water", 0),
            (6, 5, 1, "Water", 0),
        ]
    )
    play(s, "move Fire (4,6)", "Fire to (4,4)")
    faces = set(names(s))
    assert "face E" not in faces and "face N" in faces


# ---- repetition limit ----------------------------------------------------------------------------


def test_same_tile_may_not_move_on_four_consecutive_own_turns():
    s = build([(3, 9, 0, "Sword", 0), (4, 9, 0, "Bow", 0), (10, 4, 1, "Sword", 0), (9, 4, 1, "Bow", 0)])
    for k in range(3):
        play(s, f"move Sword {'(3,9)' if k % 2 == 0 else '(3,10)'}", f"Sword to {'(3,10)' if k % 2 == 0 else '(3,9)'}", "face N")
        assert s.rep_count[0] == k + 1
        play(s, f"draw {['Sai', 'Air', 'Earth'][k]}", "stop drawing")  # Black
    assert "move Sword (3,10)" not in names(s)  # a fourth time in a row: no
    assert "move Bow (4,9)" in names(s)
    play(s, "move Bow (4,9)", "Bow to (4,10)", "face N")
    assert s.rep_sq[0] == sq(4, 10) and s.rep_count[0] == 1
    play(s, "draw Water", "stop drawing")
    assert "move Sword (3,10)" in names(s)


def test_draw_resets_the_repeat_counter():
    s = build([(3, 9, 0, "Sword", 0)], repeat=[[3, 9, 3], None])
    assert "move Sword (3,9)" not in names(s)
    play(s, "draw Fire", "stop drawing", "draw Fire", "stop drawing")
    assert "move Sword (3,9)" in names(s)


# ---- captures ------------------------------------------------------------------------------------


def test_fire_is_captured_last():
    # Black Fire (5,2) facing N, Black Bow (5,4); a White Sword moving to (6,3) makes both capturable
    # (the Fire counts its own threat): the Bow goes first, the Fire last.
    s = build([(4, 4, 0, "Sword", 0), (7, 4, 0, "Sword", 0), (5, 4, 1, "Bow", 0), (5, 2, 1, "Fire", 0)])
    assert T(s, 0, 5, 2) == 1  # the Fire's own threat counts for White
    play(s, "move Sword (7,4)", "Sword to (6,3)", "face N")
    assert [B.code_type(c) for _, c in s.last_captured] == [B.BOW, B.FIRE]
    assert s.lost == [0, 2] and s.score[1] == 0 and s.gifts == 2


def test_a_tile_captured_with_help_of_its_own_fire_is_removed_with_the_fire():
    # Black Sword (6,1) is threatened by its own Fire (5,2); a White Sword moving to (6,2) adds the second
    # threat on both. The Sword is in the set, so it is removed even though the Fire goes too.
    s = build([(6, 4, 0, "Sword", 0), (6, 1, 1, "Sword", 0), (5, 2, 1, "Fire", 0)])
    assert T(s, 0, 6, 1) == 1
    play(s, "move Sword (6,4)", "Sword to (6,2)", "face N")
    assert sorted(B.code_type(c) for _, c in s.last_captured) == [B.SWORD, B.FIRE]
    assert B.code_type(s.last_captured[-1][1]) == B.FIRE
    assert s.board[sq(6, 1)] == B.EMPTY and s.board[sq(5, 2)] == B.EMPTY


def test_owner_may_not_pick_when_the_capturer_reserve_is_empty():
    tiles = [(4, 4, 0, "Sword", 0), (7, 4, 0, "Sword", 0), (5, 4, 1, "Bow", 0)]
    hand0 = [3, 1, 3, 3, 3, 3, 3, 3]
    reserve = [[0] * 8, [3, 3, 2, 3, 3, 3, 3, 3]]
    s = game().state_from_position({"phase": "start", "to_move": 0, "tiles": tiles, "reserve": reserve, "hand": [hand0, [0] * 8]})
    play(s, "move Sword (7,4)", "Sword to (6,4)", "face N")
    assert s.lost[1] == 1 and s.current_player() == 1 and s.mover == 1 and s.phase == 1


def test_gift_choices_stop_when_the_reserve_empties():
    tiles = [(4, 4, 0, "Sword", 0), (7, 4, 0, "Sword", 0), (5, 4, 1, "Bow", 0), (5, 3, 1, "Water", 0)]
    reserve = [[0, 0, 0, 0, 0, 1, 0, 0], [3, 3, 2, 3, 3, 3, 3, 2]]
    hand0 = [3, 1, 3, 3, 3, 2, 3, 3]
    s = game().state_from_position({"phase": "start", "to_move": 0, "tiles": tiles, "reserve": reserve, "hand": [hand0, [0] * 8]})
    play(s, "move Sword (7,4)", "Sword to (6,4)", "face N")
    assert s.lost[1] == 2 and s.current_player() == 1 and s.phase == 9
    assert set(names(s)) == {"give Fire"}
    play(s, "give Fire")
    assert s.mover == 1 and s.phase == 1


def test_gifts_owed_are_capped_by_the_capturer_reserve():
    """Two tiles captured, one tile in the capturer's reserve: one gift is owed (the second is skipped)."""
    tiles = [(4, 4, 0, "Sword", 0), (7, 4, 0, "Sword", 0), (5, 4, 1, "Bow", 0), (5, 3, 1, "Water", 0)]
    reserve = [[0, 0, 0, 0, 0, 1, 0, 0], [3, 3, 2, 3, 3, 3, 3, 2]]
    hand0 = [3, 1, 3, 3, 3, 2, 3, 3]
    s = game().state_from_position({"phase": "start", "to_move": 0, "tiles": tiles, "reserve": reserve, "hand": [hand0, [0] * 8]})
    play(s, "move Sword (7,4)", "Sword to (6,4)", "face N")
    assert s.lost[1] == 2 and s.phase == 9
    assert s.gifts == 1 and s.position()["gifts"] == 1
    counters = LAYOUT["counters"].start
    for seat in range(2):
        assert s.observation(seat)[0, 0, counters + 4] == pytest.approx(1 / 8)  # gifts owed / 8
    assert "1 gift(s) owed" in s.to_text()
    assert fingerprint(game().state_from_position(s.position())) == fingerprint(s)
    with pytest.raises(ValueError, match="reserve holds 1"):
        game().state_from_position({**s.position(), "gifts": 2})


def test_gifts_owed_are_capped_by_the_tiles_captured():
    s = simple_capture(False)
    play(s, "move Sword (7,4)", "Sword to (6,4)", "face N")
    assert s.gifts == 1 and s.lost[1] == 1
    with pytest.raises(ValueError, match="lost 1"):
        game().state_from_position({**s.position(), "gifts": 2})


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_gifts_owed_never_exceed_the_capturer_reserve(seed):
    g = game(max_turns=80)
    rng = np.random.default_rng(seed)
    s = g.new_initial_state()
    while not s.is_terminal():
        if s.phase == 9:
            assert 1 <= s.gifts <= sum(s.reserve[s.mover])
            assert any(s.legal_action_mask())
        legal = s.legal_actions()
        s.apply_action(legal[rng.integers(len(legal))])


def test_aec_agent_selection_follows_the_gift_decision():
    env = envs.make("paiko-v0")
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(30):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            state = env.game_state
            if state.phase == 9:  # a gift: the captured owner decides during the capturer's turn
                seen += 1
                assert agent == f"player_{1 - state.mover}" and obs["action_mask"].any()
            else:
                assert agent == f"player_{state.mover}"
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if seen:
            break
    assert seen


# ---- end of the game -----------------------------------------------------------------------------


def test_reaching_ten_points_ends_the_game():
    tiles = [(8, 3, 0, "Sword", 0), (9, 3, 0, "Sword", 0), (10, 3, 0, "Sword", 0), (9, 2, 0, "Earth", 0), (6, 4, 0, "Water", 0)]
    s = build(tiles)
    play(s, "move Water (6,4)", "Water to (7,3)", "face N")
    assert s.score[0] == 10 and s.is_terminal() and s.current_player() == TERMINAL
    assert s.winner == 0 and s.returns().tolist() == [1.0, -1.0] and s.end == "points"


def exhaustion_position() -> dict:
    """White has lost 21 tiles, Black 12; White is about to capture a 13th Black tile (5 points or fewer each)."""
    tiles = [(4, 4, 0, "Sword", 0), (7, 4, 0, "Sword", 0), (5, 4, 1, "Bow", 0)]
    hand = [[0, 1, 0, 0, 0, 0, 0, 0], [0] * 8]
    # White: 2 Swords on board, 1 in hand -> 21 lost; Black: the Bow, 3 Sai, 3 Swords, 2 Bows, 3 Lotus -> 12 lost
    reserve = [[0] * 8, [3, 3, 2, 3, 0, 0, 0, 0]]
    return {"phase": "start", "to_move": 0, "tiles": tiles, "reserve": reserve, "hand": hand, "lost": [21, 12]}


def test_exhaustion_draw_after_13_lost_each():
    s = game().state_from_position(exhaustion_position())
    play(s, "move Sword (7,4)", "Sword to (6,4)", "face N")
    assert s.lost == [21, 13] and s.is_terminal() and s.end == "exhaustion" and s.winner == -1
    assert s.returns().tolist() == [0.0, 0.0]


def test_no_exhaustion_draw_with_more_than_5_points():
    tiles = [(4, 4, 0, "Sword", 0), (7, 4, 0, "Sword", 0), (5, 4, 1, "Bow", 0), (8, 3, 0, "Earth", 0), (9, 3, 0, "Earth", 0)]
    hand = [[0, 1, 0, 0, 0, 0, 0, 0], [0] * 8]
    reserve = [[0] * 8, [0, 3, 2, 0, 0, 0, 0, 0]]
    pos = {"phase": "start", "to_move": 0, "tiles": tiles, "reserve": reserve, "hand": hand, "lost": [19, 18]}
    s = game().state_from_position(pos)
    play(s, "move Sword (7,4)", "Sword to (6,4)", "face N")
    assert s.score[0] == 1 + 1 + 2 + 2 and not s.is_terminal()


def test_pass_only_when_nothing_is_legal_and_two_passes_draw():
    reserve = [[0] * 8, [0] * 8]
    hand = [[0] * 8, [0] * 8]
    tiles = [(5, 5, 0, "Lotus", 0), (8, 8, 1, "Lotus", 0)]
    # every other tile is lost
    pos = {"phase": "start", "to_move": 0, "tiles": tiles, "reserve": reserve, "hand": hand, "lost": [23, 23]}
    g = game()
    # both players lost 13+ tiles with 5 points or fewer: the game ended after the turn that got there
    with pytest.raises(ValueError, match="13\\+ tiles"):
        g.state_from_position(pos)
    tiles2 = [(5, 5, 0, "Lotus", 0), (8, 8, 1, "Lotus", 0), (10, 3, 0, "Air", 0), (9, 2, 0, "Air", 0), (11, 4, 0, "Air", 0)]
    pos2 = {"phase": "start", "to_move": 0, "tiles": tiles2, "reserve": reserve, "hand": hand, "lost": [20, 23]}
    s = g.state_from_position(pos2)
    assert s.score == [6, 0]
    play(s, "pass")
    assert not s.is_terminal() and s.current_player() == 1
    play(s, "pass")
    assert s.is_terminal() and s.end == "passes" and s.returns().tolist() == [0.0, 0.0]


@pytest.mark.parametrize("max_turns", [1, 300])
def test_max_turns_option(max_turns):
    g = game(max_turns=max_turns)
    assert g.info.max_game_length == 17 + 5 * max_turns + 48
    s = build([(3, 9, 0, "Sword", 0)], g=g)
    play(s, "draw Fire", "stop drawing")
    if max_turns == 1:
        assert s.is_terminal() and s.end == "max_turns" and s.returns().tolist() == [0.0, 0.0]
    else:
        assert not s.is_terminal()


def test_options_and_info():
    g = game()
    assert g.options == {"num_players": 2, "max_turns": 300}
    assert g.info.num_actions == 143 and g.info.observation_shape == (14, 14, LAYOUT.size)
    assert not g.info.has_chance and not g.info.has_hidden_info
    for bad in ({"num_players": 3}, {"max_turns": 0}, {"max_turns": True}, {"max_turns": 2.5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            game(**bad)


# ---- position builder ----------------------------------------------------------------------------


def fingerprint(state: PaikoState):
    return (
        state.current_player(),
        state.legal_action_mask().tobytes(),
        tuple(state.observation(p).tobytes() for p in range(2)),
        state.returns().tobytes(),
        state.scores().tobytes(),
        state.to_text(),
    )


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_position_round_trip_along_random_games(seed):
    g = game(max_turns=40)
    rng = np.random.default_rng(seed)
    for _ in range(1):
        s = g.new_initial_state()
        while not s.is_terminal():
            pos = s.position()
            json.dumps(pos)
            assert fingerprint(g.state_from_position(pos)) == fingerprint(s)
            legal = s.legal_actions()
            s.apply_action(legal[rng.integers(len(legal))])
        assert fingerprint(g.state_from_position(s.position())) == fingerprint(s)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"phase": "bogus"}, "unknown phase"),
        ({"tiles": [[5, 5, 0, "Sword", 0]]}, "black square"),
        ({"tiles": [[0, 0, 0, "Sword", 0]]}, "not a square"),
        ({"tiles": [[3, 9, 0, "Dragon", 0]]}, "unknown tile type"),
        ({"tiles": [[3, 9, 0, "Sword", 0], [3, 9, 1, "Sword", 0]]}, "two tiles"),
        ({"reserve": [[3] * 8, [4] * 8]}, "out of range"),
        ({"hand": [[3] * 8, [0] * 8]}, "at most 3"),
        ({"lost": [1, 0]}, "lost says"),
        ({"score": [5, 0]}, "does not match"),
        ({"bogus": 1}, "unknown position key"),
        ({"to_move": 2}, "to_move"),
        ({"phase": "gift", "gifts": 0}, "gift"),
        ({"phase": "move_destination"}, "selected_square"),
    ],
)
def test_position_validation(change, message):
    pos = {"phase": "start", "to_move": 0, "tiles": [], "reserve": [[3] * 8, [3] * 8], "hand": [[0] * 8, [0] * 8]}
    pos.update(change)
    with pytest.raises(ValueError, match=message):
        game().state_from_position(pos)


def ten_points_mid_turn() -> PaikoState:
    """White deploys a Sai worth 2 at 8 points (10 now, mid-turn): the win is tested after the turn."""
    tiles = [(8, 3, 0, "Sword", 0), (9, 3, 0, "Sword", 0), (10, 3, 0, "Sword", 0), (9, 2, 0, "Earth", 0)]
    s = build(tiles, hand=(["Sai"], []))
    play(s, "deploy Sai", "Sai at (8,2)", "face N")
    assert s.score[0] == 10 and s.phase == 5 and not s.is_terminal()
    return s


def test_position_refuses_a_game_going_on_after_a_win():
    """10 points at a turn start is a won game: the builder refuses it (a position cannot skip the win test)."""
    tiles = [(8, 3, 0, "Sword", 0), (9, 3, 0, "Sword", 0), (10, 3, 0, "Sword", 0), (9, 2, 0, "Earth", 0), (7, 3, 0, "Water", 0)]
    for to_move in (0, 1):
        with pytest.raises(ValueError, match="10 points"):
            build(tiles, to_move=to_move)
    with pytest.raises(ValueError, match="10 points"):
        build(tiles, to_move=1, phase="deploy_square", hand=((), ["Sword"]), selected_type="Sword")
    # mid-turn the mover may hold 10 points: after a Sai deploy, before the turn's win test
    s = ten_points_mid_turn()
    assert fingerprint(game().state_from_position(s.position())) == fingerprint(s)
    with pytest.raises(ValueError, match="10 points"):  # but never the other player
        game().state_from_position({**s.position(), "to_move": 1})
    play(s, "Sai stays")
    assert s.is_terminal() and s.winner == 0 and s.end == "points"
    assert fingerprint(game().state_from_position(s.position())) == fingerprint(s)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"end": "exhaustion", "winner": -1}, "10\\+ points"),
        ({"winner": 1}, "winner"),
        ({"turn": 0}, "turn"),
        ({"gifts": 1}, "gifts"),
    ],
)
def test_position_refuses_an_end_the_rules_do_not_give(change, message):
    s = ten_points_mid_turn()
    play(s, "Sai stays")
    with pytest.raises(ValueError, match=message):
        game().state_from_position({**s.position(), **change})


def test_position_refuses_a_game_going_on_past_its_end_tests():
    start = {"phase": "start", "to_move": 0, "tiles": [], "reserve": [[3] * 8, [3] * 8], "hand": [[0] * 8, [0] * 8]}
    with pytest.raises(ValueError, match="two passes"):
        game().state_from_position({**start, "passes": 2})
    with pytest.raises(ValueError, match="max_turns"):
        game(max_turns=5).state_from_position({**start, "turn": 5})
    assert game(max_turns=5).state_from_position({**start, "turn": 4}).turn == 4
    with pytest.raises(ValueError, match="turn 0"):
        game().state_from_position({**start, "phase": "draft", "turn": 3})
    lost = {**start, "reserve": [[0] * 8, [0] * 8], "tiles": [[5, 5, 0, "Lotus", 0], [8, 8, 1, "Lotus", 0]], "lost": [23, 23]}
    with pytest.raises(ValueError, match="13\\+ tiles"):
        game().state_from_position(lost)


def test_finished_positions_round_trip_for_every_end():
    """Terminal states of every end reason rebuild (two passes included: passes is 2 then)."""
    ended = []
    tiles = [(8, 3, 0, "Sword", 0), (9, 3, 0, "Sword", 0), (10, 3, 0, "Sword", 0), (9, 2, 0, "Earth", 0), (6, 4, 0, "Water", 0)]
    ended.append(play(build(tiles), "move Water (6,4)", "Water to (7,3)", "face N"))
    ended.append(play(game().state_from_position(exhaustion_position()), "move Sword (7,4)", "Sword to (6,4)", "face N"))
    air = [(5, 5, 0, "Lotus", 0), (8, 8, 1, "Lotus", 0), (10, 3, 0, "Air", 0), (9, 2, 0, "Air", 0), (11, 4, 0, "Air", 0)]
    pos = {"phase": "start", "to_move": 0, "tiles": air, "reserve": [[0] * 8] * 2, "hand": [[0] * 8] * 2, "lost": [20, 23]}
    ended.append(play(game().state_from_position(pos), "pass", "pass"))
    g = game(max_turns=1)
    ended.append(play(build([(3, 9, 0, "Sword", 0)], g=g), "draw Fire", "stop drawing"))
    assert [s.end for s in ended] == ["points", "exhaustion", "passes", "max_turns"]
    for s in ended:
        assert s.is_terminal()
        assert fingerprint(s.game.state_from_position(s.position())) == fingerprint(s)
        assert s.game.state_from_position(s.position()).position() == s.position()


def test_position_refuses_a_capturable_tile_between_turns():
    with pytest.raises(ValueError, match="capturable"):
        build([(4, 4, 0, "Sword", 0), (6, 4, 0, "Sword", 0), (5, 4, 1, "Bow", 0)])


# ---- properties ----------------------------------------------------------------------------------


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_no_action_leaves_own_tiles_capturable_and_turns_start_clean(seed):
    g = game(max_turns=50)
    rng = np.random.default_rng(seed)
    s = g.new_initial_state()
    while not s.is_terminal():
        if s.phase == 1:
            assert not s.capturable_tiles(0) and not s.capturable_tiles(1)
        mover = s.mover
        legal = s.legal_actions()
        assert legal
        s.apply_action(legal[rng.integers(len(legal))])
        if s.phase in (1, 9, 10):  # an action just completed (captures resolved)
            assert not s.capturable_tiles(mover)
            assert not s.capturable_tiles(1 - mover)
        # incremental threat/cover bookkeeping matches a fresh build
        if s.phase != 10:
            fresh = g.state_from_position(s.position())
            assert fresh.thr == s.thr and fresh.cov == s.cov and fresh.score == s.score


def test_illegal_action_refused_and_names_parse():
    s = build([(3, 9, 0, "Sword", 0)])
    with pytest.raises(IllegalActionError):
        s.apply_action(A.PASS)
    for name, action in names(s).items():
        assert s.game.string_to_action(s, name) == action


def test_text_and_observation_show_the_position():
    s = build([(3, 9, 0, "Sword", 1), (9, 4, 1, "Bow", 2)], hand=(["Fire"], ["Air"]))
    text = s.to_text()
    assert "S>" in text and "bv" in text and "White: score 0" in text
    obs = s.observation(0)
    own = LAYOUT.view(obs, "own_tiles")
    assert own[9, 3, B.SWORD * 4 + 1] == 1 and own.sum() == 1
    opp = LAYOUT.view(s.observation(1), "own_tiles")
    assert opp[4, 9, B.BOW * 4 + 2] == 1
    assert LAYOUT.view(obs, "own_hand")[0, 0, B.FIRE] == pytest.approx(1 / 3)
    assert LAYOUT.view(obs, "opp_hand")[0, 0, B.AIR] == pytest.approx(1 / 3)
    assert LAYOUT.view(obs, "own_home")[9, 3, 0] == 1 and LAYOUT.view(obs, "opp_home")[4, 9, 0] == 1
    img = s.render_image()
    assert img.ndim == 3 and img.dtype == np.uint8


def legal_moves_reference(state: PaikoState) -> set[tuple[int, int, int]]:
    """Every (origin, destination, facing) of the mover's tiles, by the plain definition: destination by the
    path rule (or the deploy rule for Water), then apply on a copy and refuse it if any own tile is capturable."""
    p = state.mover
    out = set()
    for s in sorted(state.tiles[p]):
        code = state.board[s]
        kind, facing = B.code_type(code), B.code_facing(code)
        if B.RANGE[kind] == 0 or (state.rep_sq[p] == s and state.rep_count[p] >= 3):
            continue
        dests = set(state.shift_squares(s))
        if kind == B.WATER:
            dests |= set(state.deploy_squares(p, B.WATER))
        for d in dests:
            for f in range(4):
                if d == s and f == facing:
                    continue
                c = state.clone()
                c._lift(s)
                c._place(d, B.tile_code(p, kind, f))
                if not c.capturable_tiles(p):
                    out.add((s, d, f))
    return out


def legal_moves_engine(state: PaikoState) -> set[tuple[int, int, int]]:
    out = set()
    for a in state.legal_actions():
        if A.SQUARE <= a < A.FACE:
            t = state.clone()
            t.apply_action(a)
            for d in t.legal_actions():
                u = t.clone()
                u.apply_action(d)
                for f in u.legal_actions():
                    out.add((a - A.SQUARE, d - A.SQUARE, f - A.FACE))
    return out


def test_move_generation_matches_the_plain_definition():
    g = game(max_turns=120)
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(2):
        s = g.new_initial_state()
        while not s.is_terminal():
            if s.phase == 1 and rng.random() < 0.3:
                assert legal_moves_engine(s) == legal_moves_reference(s)
                checked += 1
            legal = s.legal_actions()
            s.apply_action(legal[rng.integers(len(legal))])
    assert checked > 20


def test_fire_deploy_facings_match_the_plain_definition():
    g = game(max_turns=120)
    rng = np.random.default_rng(12)
    for _ in range(2):
        s = g.new_initial_state()
        while not s.is_terminal():
            p = s.mover
            if s.phase == 1 and s.hand[p][B.FIRE]:
                t = s.clone()
                t.apply_action(A.DEPLOY + B.FIRE) if A.DEPLOY + B.FIRE in t.legal_actions() else None
                expected = set()
                for sq_ in s.deploy_squares(p, B.FIRE):
                    for f in range(4):
                        c = s.clone()
                        c._place(sq_, B.tile_code(p, B.FIRE, f))
                        if not c.capturable_tiles(p):
                            expected.add((sq_, f))
                got = set()
                if t.phase == 3:
                    for a in t.legal_actions():
                        u = t.clone()
                        u.apply_action(a)
                        got |= {(a - A.SQUARE, f - A.FACE) for f in u.legal_actions()}
                assert got == expected
            legal = s.legal_actions()
            s.apply_action(legal[rng.integers(len(legal))])


def test_heuristic_beats_random_in_both_seats():
    from gameshelf.training.agents import make_agent

    heuristic, rnd = make_agent("heuristic", "paiko-v0"), make_agent("random", "paiko-v0")
    g = game()
    for seat in (0, 1):
        rng = np.random.default_rng(seat)
        s = g.new_initial_state()
        while not s.is_terminal():
            p = s.current_player()
            agent = heuristic if p == seat else rnd
            action = agent.act(s, p, rng)
            assert action in s.legal_actions()
            s.apply_action(action)
        assert s.winner == seat


GAMES_CHECKED = 200
"""Random games of the slow check below (about 2 minutes on one core)."""


@pytest.mark.slow
def test_many_random_games_keep_every_invariant():
    """Long random games (the default 300-turn limit), every decision checked against the plain definitions.

    At each turn start nothing is capturable, the incremental threat/cover/score bookkeeping equals a fresh build
    of the position, and every player's 24 tiles are on the board, in reserve, in hand or lost; at one
    turn start in four (drawn at random) the fast move generation equals the plain "apply and look at
    every own tile" definition.
    """
    g = game()
    rng = np.random.default_rng(2024)
    ends, turns, compared = set(), 0, 0
    for _ in range(GAMES_CHECKED):
        s = g.new_initial_state()
        while not s.is_terminal():
            if s.phase == 1:
                assert not s.capturable_tiles(0) and not s.capturable_tiles(1)
                if rng.random() < 0.25:
                    assert legal_moves_engine(s) == legal_moves_reference(s)
                    compared += 1
                fresh = g.state_from_position(s.position())
                assert (fresh.thr, fresh.cov, fresh.score) == (s.thr, s.cov, s.score)
                for p in range(2):
                    kept = len(s.tiles[p]) + sum(s.reserve[p]) + sum(s.hand[p])
                    assert kept + s.lost[p] == 24
                turns += 1
            legal = s.legal_actions()
            s.apply_action(legal[rng.integers(len(legal))])
        assert s.end in ("points", "exhaustion", "passes", "max_turns")
        assert (s.winner >= 0) == (s.end == "points") and s.returns().sum() == 0
        ends.add(s.end)
    assert compared > 20 * GAMES_CHECKED and "points" in ends
