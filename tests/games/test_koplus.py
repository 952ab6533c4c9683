"""KoPlus: every rule and every worked example of the rules (``docs/rules/koplus.md``), each option both ways.

Legality is checked against a from-scratch reference written from the spec's wording (explicit cell lists,
literal board sizes and interior regions), not against the engine's precomputed tables.
"""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs.core.game import CHANCE, TERMINAL, IllegalActionError, random_playout
from gameshelf.envs.koplus.actions import GRID, NUM_ACTIONS
from gameshelf.envs.koplus.board import KO, PLUS, SECTIONS, section_values
from gameshelf.envs.koplus.game import NUM_PLANES, KoPlusGame, KoPlusState
from gameshelf.envs.koplus.heuristic import KoPlusHeuristic
from gameshelf.envs.koplus.scoring import final_adjustments, final_scores, tile_groups
from gameshelf.training.agents.base import RandomAgent
from gameshelf.training.evaluate import play as play_game

# ---- the spec's data, copied as written ------------------------------------------------------------

SPEC_SECTIONS = """
S00 0430 5000 0000 0121 | S08 2040 5010 0000 0310
S01 4000 0310 0100 0205 | S09 0001 0030 1040 0502
S02 0104 1000 5230 0000 | S10 0012 1005 0430 0000
S03 0100 3001 2050 4000 | S11 0100 1500 0304 0200
S04 1004 0300 0200 0051 | S12 0014 5000 0003 1200
S05 2010 0430 0000 0150 | S13 0040 0001 0020 0351
S06 5012 1040 0000 0030 | S14 1001 5300 0020 0040
S07 2041 0003 5001 0000 | S15 0020 1031 0050 0040
"""

SPEC_2P_BOARD = """
r0  043040000104
r1  500003101000
r2  000001005230
r3  012102050000
r4  010010042010
r5  300103000430
r6  205002000000
r7  400000510150
r8  501220412040
r9  104000035010
r10 000050010000
r11 003000000310
"""

BOARD_CELLS = {2: (12, 12), 3: (12, 16), 4: (16, 16)}
INTERIOR = {2: ((4, 7), (4, 7)), 3: ((4, 7), (4, 11)), 4: ((4, 11), (4, 11))}
BONUS = {2: [2, 3], 3: [1, 2, 2], 4: [1, 1, 2, 2]}


def spec_sections() -> dict[int, list[str]]:
    out = {}
    for line in SPEC_SECTIONS.strip().splitlines():
        for half in line.split("|"):
            name, *rows = half.split()
            out[int(name[1:])] = rows
    return out


# ---- reference rules -----------------------------------------------------------------------------


def ref_cells(shape: int, orientation: int, r: int, c: int) -> list[tuple[int, int]] | None:
    """The spec's cell lists (コ up anchored at its base-left cell, rotations clockwise; ＋ centred)."""
    if shape == PLUS:
        return [(r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)] if orientation == 0 else None
    return [
        [(r, c), (r, c + 1), (r, c + 2), (r - 1, c), (r - 1, c + 2)],
        [(r, c), (r + 1, c), (r + 2, c), (r, c + 1), (r + 2, c + 1)],
        [(r, c), (r, c - 1), (r, c - 2), (r + 1, c), (r + 1, c - 2)],
        [(r, c), (r - 1, c), (r - 2, c), (r, c - 1), (r - 2, c - 1)],
    ][orientation]


def ref_top(state: KoPlusState, seat: int) -> int | None:
    stack = "KPKPKPKPKPKP" if seat % 2 == 0 else "PKPKPKPKPKPK"
    i = state.placed[seat]
    return None if i >= 12 else (KO if stack[i] == "K" else PLUS)


def ref_legal(state: KoPlusState, seat: int, cap: int = 9) -> np.ndarray:
    """Legality of every action for ``seat``'s top tile, straight from the rules."""
    n = state.num_players
    rows, cols = BOARD_CELLS[n]
    (ir0, ir1), (ic0, ic1) = INTERIOR[n]
    owner = state.owner.reshape(GRID, GRID)
    aliens = state.aliens.reshape(GRID, GRID)
    first = not (owner >= 0).any()
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    shape = ref_top(state, seat)
    if shape is None:
        return mask
    for action in range(NUM_ACTIONS):
        orientation, cell = divmod(action, GRID * GRID)
        cells = ref_cells(shape, orientation, cell // GRID, cell % GRID)
        if cells is None or not all(0 <= r < rows and 0 <= c < cols for r, c in cells):
            continue
        if any(owner[r, c] >= 0 for r, c in cells):
            continue
        if sum(int(aliens[r, c]) for r, c in cells) > cap:
            continue
        if first:
            ok = all(ir0 <= r <= ir1 and ic0 <= c <= ic1 for r, c in cells)
        else:
            ok = any(
                0 <= r + dr < rows and 0 <= c + dc < cols and owner[r + dr, c + dc] >= 0
                for r, c in cells
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            )
        mask[action] = ok
    return mask


def ref_groups(state: KoPlusState, seat: int) -> list[int]:
    """Group sizes in tiles: flood fill over the seat's cells (tiles are connected pentominoes)."""
    owner = state.owner.reshape(GRID, GRID)
    tile_at = state.tile_at.reshape(GRID, GRID)
    seen: set[tuple[int, int]] = set()
    sizes = []
    for r in range(GRID):
        for c in range(GRID):
            if owner[r, c] != seat or (r, c) in seen:
                continue
            stack, tiles = [(r, c)], set()
            seen.add((r, c))
            while stack:
                cr, cc = stack.pop()
                tiles.add(int(tile_at[cr, cc]))
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    nr, nc = cr + dr, cc + dc
                    if 0 <= nr < GRID and 0 <= nc < GRID and owner[nr, nc] == seat and (nr, nc) not in seen:
                        seen.add((nr, nc))
                        stack.append((nr, nc))
            sizes.append(len(tiles))
    return sorted(sizes)


# ---- helpers -------------------------------------------------------------------------------------


def standard(n: int = 2) -> KoPlusState:
    return KoPlusGame(num_players=n, board_mode="standard").new_initial_state()


def play(state: KoPlusState, text: str) -> int:
    action = state.game.string_to_action(state, text)
    state.apply_action(action)
    return action


def at(state: KoPlusState, **changes) -> KoPlusState:
    """The same position with some of its position keys changed, built by the validated position builder."""
    return state.game.state_from_position({**state.position(), **changes})


def with_points(state: KoPlusState, seat: int, points: int) -> KoPlusState:
    return at(state, points=[points if s == seat else p for s, p in enumerate(state.points)])


def legal_worth(state: KoPlusState, points: int) -> int:
    """A legal action of the player to move that captures exactly ``points``."""
    for action in state.legal_actions():
        if state.placement_points(action) == points:
            return action
    raise AssertionError(f"no legal placement worth {points}")


def random_games(n: int, mode: str, seed: int, games: int):
    """Yield (state before, action) along random games, then the terminal state with action None."""
    game = KoPlusGame(num_players=n, board_mode=mode)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
                continue
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
            yield state, action
            state.apply_action(action)
        yield state, None


def run_to_end(state: KoPlusState, rng: np.random.Generator) -> KoPlusState:
    random_playout(state, rng)
    return state


# ---- components and tables -----------------------------------------------------------------------


def test_sections_are_the_spec_table_exactly():
    table = spec_sections()
    assert sorted(table) == list(range(16))
    assert [list(rows) for rows in SECTIONS] == [table[i] for i in range(16)]
    for rows in SECTIONS:
        assert sorted(int(ch) for row in rows for ch in row if ch != "0") == [1, 1, 2, 3, 4, 5]


def test_section_rotation_is_clockwise():
    assert section_values(0, 0) == ((0, 4, 3, 0), (5, 0, 0, 0), (0, 0, 0, 0), (0, 1, 2, 1))
    assert section_values(0, 1) == ((0, 0, 5, 0), (1, 0, 0, 4), (2, 0, 0, 3), (1, 0, 0, 0))
    assert section_values(0, 2) == ((1, 2, 1, 0), (0, 0, 0, 0), (0, 0, 0, 5), (0, 3, 4, 0))

    def turn(grid):  # 90° clockwise: new[i][j] = old[3 - j][i]
        return tuple(tuple(grid[3 - j][i] for j in range(4)) for i in range(4))

    for s in range(16):
        for k in range(4):
            assert section_values(s, k + 1) == turn(section_values(s, k))
        assert section_values(s, 4) == section_values(s, 0)


def test_standard_two_player_board_is_the_printed_one():
    state = standard(2)
    printed = [line.split()[1] for line in SPEC_2P_BOARD.strip().splitlines()]
    board = state.aliens.reshape(GRID, GRID)
    assert ["".join(str(v) for v in board[r, :12]) for r in range(12)] == printed
    assert not board[12:, :].any() and not board[:, 12:].any()
    assert state.layout == [(i, 0) for i in range(9)]


@pytest.mark.parametrize("n", [3, 4])
def test_standard_three_and_four_player_boards_row_major(n):
    state = standard(n)
    rows, cols = BOARD_CELLS[n]
    table = spec_sections()
    board = state.aliens.reshape(GRID, GRID)
    per_row = cols // 4
    for i in range(rows // 4 * per_row):
        r0, c0 = (i // per_row) * 4, (i % per_row) * 4
        assert ["".join(str(v) for v in board[r0 + k, c0 : c0 + 4]) for k in range(4)] == table[i]
    on_board = state.geo.on_board.reshape(GRID, GRID)
    assert on_board[:rows, :cols].all() and on_board.sum() == rows * cols


@pytest.mark.parametrize("n", [2, 3, 4])
def test_interior_region(n):
    (r0, r1), (c0, c1) = INTERIOR[n]
    interior = standard(n).geo.interior.reshape(GRID, GRID)
    expected = np.zeros((GRID, GRID), dtype=bool)
    expected[r0 : r1 + 1, c0 : c1 + 1] = True
    assert (interior == expected).all()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_stacks_and_bonus_allowances(n):
    state = standard(n)
    assert state.bonus_left == BONUS[n]
    for seat in range(n):
        assert state.tiles_left(seat) == 12
        assert state.top_tile(seat) == (KO if seat in (0, 2) else PLUS)


def test_stack_alternates_as_tiles_are_played():
    state = standard(2)
    rng = np.random.default_rng(0)
    seen = {0: [], 1: []}
    while not state.is_terminal():
        seat = state.current_player()
        seen[seat].append(state.top_tile(seat))
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
    for seat, shapes in seen.items():
        first = KO if seat == 0 else PLUS
        assert shapes == [first if i % 2 == 0 else 1 - first for i in range(len(shapes))]
        assert [t[1] for t in state.tiles if t[0] == seat] == shapes


def test_placement_cells_match_the_card():
    geo = standard(4).geo
    for shape in (KO, PLUS):
        for action, cells in geo.cells_of[shape].items():
            orientation, cell = divmod(action, GRID * GRID)
            expected = ref_cells(shape, orientation, cell // GRID, cell % GRID)
            assert expected is not None
            assert sorted(cells) == sorted(r * GRID + c for r, c in expected)
    # every on-board placement is in the table: コ 4 orientations, ＋ one
    assert len(geo.cells_of[PLUS]) == 14 * 14
    assert len(geo.cells_of[KO]) == 4 * 14 * 15


# ---- options -------------------------------------------------------------------------------------


def test_options_defaults_and_validation():
    game = KoPlusGame()
    assert game.options == {"num_players": 2, "board_mode": "random"}
    assert game.info.has_chance and not game.info.has_hidden_info
    assert not KoPlusGame(board_mode="standard").info.has_chance
    assert game.info.num_actions == 1024
    for n in (2, 3, 4):
        info = KoPlusGame(num_players=n).info
        assert info.observation_shape == (16, 16, NUM_PLANES) and info.max_game_length == 12 * n
    with pytest.raises(ValueError, match="num_players"):
        KoPlusGame(num_players=5)
    with pytest.raises(ValueError, match="board_mode"):
        KoPlusGame(board_mode="fixed")


def test_standard_mode_starts_with_seat_zero_and_random_mode_with_chance():
    assert standard(2).current_player() == 0
    state = KoPlusGame().new_initial_state()
    assert state.current_player() == CHANCE
    assert not state.legal_action_mask().any()


# ---- random boards -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_board_chance_nodes(n):
    game = KoPlusGame(num_players=n)
    state = game.new_initial_state()
    positions = {2: 9, 3: 12, 4: 16}[n]
    script = [(s, s % 4) for s in (15, 3, 8, 0, 12, 5, 9, 1, 14, 2, 7, 11, 4, 10, 6, 13)[:positions]]
    for position, (section, rotation) in enumerate(script):
        outcomes = state.chance_outcomes()
        used = {s for s, _ in script[:position]}
        assert [o for o, _ in outcomes] == [s for s in range(16) if s not in used]
        assert all(p == pytest.approx(1 / (16 - position)) for _, p in outcomes)
        assert state.action_to_string(section).startswith(f"section S{section:02d} at position {position}")
        state.apply_action(section)
        assert state.chance_outcomes() == [(0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)]
        assert state.action_to_string(rotation) == f"rotate S{section:02d} by {90 * rotation}°"
        state.apply_action(rotation)
        if position + 1 < positions:
            with pytest.raises(IllegalActionError):
                state.apply_action(section)  # already used
    assert state.current_player() == 0
    assert state.layout == script
    cols = BOARD_CELLS[n][1] // 4
    board = state.aliens.reshape(GRID, GRID)
    for position, (section, rotation) in enumerate(script):
        r0, c0 = (position // cols) * 4, (position % cols) * 4
        assert tuple(tuple(int(v) for v in board[r0 + k, c0 : c0 + 4]) for k in range(4)) == section_values(section, rotation)
    # legality on the drawn board follows the rules
    assert (state.legal_action_mask() == ref_legal(state, 0)).all()


def test_random_boards_distinct_sections_and_all_rotations():
    game = KoPlusGame(num_players=4)
    rng = np.random.default_rng(42)
    rotations, layouts = set(), set()
    for _ in range(30):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        sections = [s for s, _ in state.layout]
        assert sorted(sections) == list(range(16))
        rotations |= {r for _, r in state.layout}
        layouts.add(tuple(state.layout))
    assert rotations == {0, 1, 2, 3}
    assert len(layouts) == 30
    two = KoPlusGame(num_players=2)
    used = set()
    for _ in range(20):
        state = two.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        assert len({s for s, _ in state.layout}) == 9
        used |= {s for s, _ in state.layout}
    assert used == set(range(16))


def test_env_seeds_random_boards():
    env = envs.make("koplus-v0")
    env.reset(seed=7)
    first = list(env.game_state.layout)
    env.reset(seed=7)
    assert env.game_state.layout == first
    env.reset(seed=8)
    assert env.game_state.layout != first
    env = envs.make("koplus-v0", board_mode="standard")
    env.reset(seed=8)
    assert env.game_state.layout == [(i, 0) for i in range(9)]


# ---- placement rules and the worked examples -----------------------------------------------------


def test_example_1_first_tile():
    state = standard(2)
    legal = state.legal_action_mask()
    assert (legal == ref_legal(state, 0)).all()
    geo = state.geo
    for action in np.flatnonzero(legal):
        cells = geo.cells_of[KO][int(action)]
        assert all(4 <= c // GRID <= 7 and 4 <= c % GRID <= 7 for c in cells)
    play(state, "place コ up at r7c5")
    assert state.points == [8, 0]
    assert state.scores().tolist() == [8.0, 0.0]
    covered = {(int(c) // GRID, int(c) % GRID) for c in np.flatnonzero(state.owner == 0)}
    assert covered == {(7, 5), (7, 6), (7, 7), (6, 5), (6, 7)}
    assert state.current_player() == 1


@pytest.mark.parametrize(
    "text", ["place コ up at r7c3", "place コ up at r8c5", "place コ right at r2c2", "place コ left at r4c4"]
)
def test_example_1_first_tile_outside_interior_is_illegal(text):
    state = standard(2)
    with pytest.raises(IllegalActionError):
        play(state, text)


def test_example_2_second_tile():
    state = standard(2)
    play(state, "place コ up at r7c5")
    assert state.top_tile(1) == PLUS
    legal = state.legal_action_mask()
    assert (legal == ref_legal(state, 1)).all()
    plus = lambda r, c: r * GRID + c  # noqa: E731
    assert legal[plus(5, 6)]
    assert not legal[plus(9, 7)]  # 3+1+1+0+5 = 10 > 9, though adjacent to (7,7)
    assert state.placement_points(plus(9, 7)) == 10
    assert not legal[plus(8, 6)]  # overlaps (7,6)
    assert not legal[plus(1, 1)]  # touches no tile
    assert not legal[plus(4, 4)]  # its cell (5,4) touches (6,5) only diagonally
    assert legal[plus(5, 4)]  # its cell (6,4) touches (6,5)
    assert not any(legal[o * 256 + plus(5, 6)] for o in (1, 2, 3))  # ＋ has one orientation
    play(state, "place ＋ at r5c6")
    assert state.points == [8, 3]
    assert state.current_player() == 0


def test_nine_points_is_allowed_ten_is_not():
    """The cap is inclusive: with it lifted exactly the placements worth 10 or more become legal."""
    nine = capped = 0
    for state, _ in random_games(2, "standard", seed=3, games=4):
        if state.is_terminal():
            continue
        seat = state.current_player()
        mask = state.legal_action_mask()
        uncapped = ref_legal(state, seat, cap=99)
        for action in np.flatnonzero(uncapped):
            points = state.placement_points(int(action))
            assert mask[action] == (points <= 9)
            nine += points == 9
            capped += points > 9
    assert nine and capped


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("mode", ["standard", "random"])
def test_mask_is_exact_along_random_games(n, mode):
    for state, _ in random_games(n, mode, seed=10 + n, games=2):
        if state.is_terminal():
            assert not state.legal_action_mask().any()
            continue
        assert (state.legal_action_mask() == ref_legal(state, state.current_player())).all()


# ---- turn order, passing, bonus turns, end -------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("mode", ["standard", "random"])
def test_turn_order_passing_bonus_and_end_follow_the_rules(n, mode):
    """After every placement: bonus turn if exactly 20/40/60 with an allowance left and the next tile
    placeable; otherwise the first seat clockwise that can place; no such seat: the game is over."""
    bonuses = passes = 0
    for state, action in random_games(n, mode, seed=100 + n, games=6):
        if action is None:
            assert state.current_player() == TERMINAL
            assert all(not ref_legal(state, s).any() for s in range(n))
            continue
        seat = state.current_player()
        gained = state.placement_points(action)
        score, allowance = state.points[seat], state.bonus_left[seat]
        after = state.clone()
        after.apply_action(action)
        assert after.points[seat] == score + gained
        can = [ref_legal(after, s).any() for s in range(n)]
        if score + gained in (20, 40, 60) and allowance > 0 and can[seat]:
            assert after.current_player() == seat and after.bonus_turn
            assert after.bonus_left[seat] == allowance - 1
            bonuses += 1
            continue
        assert after.bonus_left[seat] == allowance
        order = [(seat + k) % n for k in range(1, n + 1)]
        able = [s for s in order if can[s]]
        expected = able[0] if able else TERMINAL
        assert after.current_player() == expected
        if able and able[0] != order[0]:
            passes += 1
            assert after.skipped == order[: order.index(able[0])]
    assert bonuses > 0 and passes > 0


def test_example_4_bonus_turns():
    state = standard(2)
    play(state, "place コ up at r7c5")
    assert state.current_player() == 1
    state = with_points(state, 1, 15)  # seat 1 (3 bonus turns) at 15 points
    state.apply_action(legal_worth(state, 5))
    assert state.points[1] == 20
    assert state.current_player() == 1 and state.bonus_turn
    assert state.bonus_left[1] == 2
    assert "bonus turn" in state.to_text()
    assert state.top_tile(1) == KO  # the next tile of the stack
    state.apply_action(legal_worth(state, 0))
    assert state.points[1] == 20
    assert state.current_player() == 1 and state.bonus_left[1] == 1
    state.apply_action(legal_worth(state, 1))
    assert state.points[1] == 21
    assert state.current_player() == 0 and state.bonus_left[1] == 1 and not state.bonus_turn


@pytest.mark.parametrize("target", [20, 40, 60])
def test_bonus_at_each_threshold(target):
    state = standard(2)
    play(state, "place コ up at r7c5")
    state = with_points(state, 1, target - 3)
    state.apply_action(legal_worth(state, 3))
    assert state.current_player() == 1 and state.bonus_left[1] == 2


@pytest.mark.parametrize("total", [19, 21, 30, 80])
def test_no_bonus_off_threshold(total):
    state = standard(2)
    play(state, "place コ up at r7c5")
    state = with_points(state, 1, total - 3)
    state.apply_action(legal_worth(state, 3))
    assert state.current_player() == 0 and state.bonus_left[1] == 3


def test_no_bonus_once_the_allowance_is_used():
    state = standard(2)
    play(state, "place コ up at r7c5")
    state = with_points(state, 1, 17)
    state = at(state, bonus_left=[state.bonus_left[0], 0])
    state.apply_action(legal_worth(state, 3))
    assert state.points[1] == 20 and state.current_player() == 0


def test_zero_point_placement_at_threshold_triggers_bonus():
    state = standard(2)
    play(state, "place コ up at r7c5")
    state = with_points(state, 1, 40)
    state.apply_action(legal_worth(state, 0))
    assert state.current_player() == 1 and state.bonus_left[1] == 2


def test_bonus_not_taken_nor_consumed_when_next_tile_cannot_be_placed():
    """Found by search: a placement landing exactly on 20 while the player's next tile has no legal spot."""
    found = 0
    for state, _ in random_games(2, "standard", seed=5, games=40):
        if state.is_terminal() or state.bonus_turn or state.placed[state.current_player()] > 10:
            continue  # (a bonus turn is taken at 20/40/60 points: other points would not fit it)
        seat = state.current_player()
        for action in state.legal_actions():
            trial = state.clone()
            trial = with_points(trial, seat, 20 - trial.placement_points(action))
            trial.apply_action(action)
            if ref_legal(trial, seat).any():
                continue
            assert trial.bonus_left[seat] == state.bonus_left[seat]
            assert trial.current_player() != seat and not trial.bonus_turn
            found += 1
            break
        if found >= 3:
            break
    assert found


def test_passed_player_may_place_later():
    """A pass is not final: new tiles create new adjacent cells. On a made-up 3-player board (every cell
    worth 5 except the '.' cells) no ＋ can touch the first tile; a コ opens two ＋ spots further out."""
    state = standard(3)
    made_up = """
        5555555555555555
        555.555555555555
        55...55555555555
        5.5.555555555555
        ....5.5555555555
        5.5...5555555555
        55555.5.55555555
        55555...55555555
        5555555555555555
        5555555555555555
        5555555555555555
        5555555555555555"""
    state = at(state, aliens=made_up.split())
    assert (state.legal_action_mask() == ref_legal(state, 0)).all()
    play(state, "place コ up at r7c5")
    assert state.current_player() == 2 and state.skipped == [1]  # P1's ＋ has no spot: passed
    assert not ref_legal(state, 1).any()
    play(state, "place コ up at r5c3")  # P2 opens two ＋ spots
    assert state.current_player() == 0
    play(state, "place ＋ at r2c3")
    assert state.current_player() == 1 and not state.skipped  # P1 plays again
    assert state.legal_actions() == [4 * GRID + 1]
    play(state, "place ＋ at r4c1")
    assert state.placed == [2, 1, 1]


def test_end_when_nobody_can_place_and_empty_stacks_pass():
    for state, action in random_games(4, "standard", seed=9, games=4):
        if action is None:
            assert state.is_terminal()
            assert not state.legal_action_mask().any()
            assert state.legal_actions() == []
            with pytest.raises(IllegalActionError):
                state.apply_action(0)
            continue
        for seat in range(4):
            if state.tiles_left(seat) == 0:
                assert state.top_tile(seat) is None and not state.can_place(seat)
                assert state.current_player() != seat


def test_first_player_without_first_tile_is_skipped():
    """If seat 0's コ had no legal spot in the interior, the first seat that can place starts."""
    game = KoPlusGame(num_players=2, board_mode="standard")
    state = game.new_initial_state()
    state.points_of = (np.full_like(game.standard_points[0], 99), game.standard_points[1])  # no コ fits
    state._legal = [None, None]
    state._start()
    assert state.current_player() == 1 and state.skipped == [0]


# ---- final scoring -------------------------------------------------------------------------------


def test_example_3_final_scoring_three_players():
    assert final_adjustments([[5, 2, 1], [5, 5], [3, 1, 1]]) == [-6, 5, -10]
    p0, p1, p2 = final_scores([[5, 2, 1], [5, 5], [3, 1, 1]])
    assert (p0.largest_group, p0.bonus, p0.isolated, p0.small) == (5, 5, 1, 2)
    assert (p1.largest_group, p1.bonus, p1.isolated, p1.small) == (5, 5, 0, 0)
    assert (p2.largest_group, p2.bonus, p2.isolated, p2.small) == (3, 0, 2, 0)


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ([[3, 3, 2], [2]], [5 - 6, 0]),  # "3,3,2: the 2-group is penalised"; both 3-groups maximal
        ([[1, 1], [1]], [-10, -5]),  # no group at all: no +5 for anyone
        ([[4], [4], [2, 2]], [5, 5, 0]),  # ties share the +5
        ([[], [2]], [0, 5]),  # no tile placed
        ([[6, 4, 2, 1], [6]], [5 - 18 - 5, 5]),
    ],
)
def test_final_scoring_cases(sizes, expected):
    assert final_adjustments(sizes) == expected


@pytest.mark.parametrize("n", [2, 3, 4])
def test_groups_and_final_totals_on_real_boards(n):
    for state, action in random_games(n, "random", seed=30 + n, games=3):
        if action is not None:
            continue
        groups = tile_groups(state.tiles, state.tile_at, state.geo.border_of, n)
        assert [sorted(len(g) for g in seat_groups) for seat_groups in groups] == [ref_groups(state, s) for s in range(n)]
        adjust = final_adjustments([ref_groups(state, s) for s in range(n)])
        assert state.totals() == [state.points[s] + adjust[s] for s in range(n)]
        assert state.scores().tolist() == [float(t) for t in state.totals()]


def test_returns_rank_by_score_then_tiles_left_then_shared():
    rng = np.random.default_rng(4)
    state = run_to_end(standard(3), rng)
    adjust = [f.total for f in state.final]
    # equal totals: more tiles left wins
    state.points = [40 - adjust[0], 40 - adjust[1], 30 - adjust[2]]
    state.placed = [10, 9, 12]
    assert state.totals() == [40, 40, 30]
    assert state.returns().tolist() == [0.0, 1.0, -1.0]
    # equal totals and tiles left: shared
    state.placed = [9, 9, 12]
    assert state.returns().tolist() == [0.5, 0.5, -1.0]
    # a higher total beats more tiles left
    state.points[2] = 50 - adjust[2]
    assert state.returns()[2] == 1.0


def test_returns_zero_until_the_end():
    state = standard(2)
    play(state, "place コ up at r7c5")
    assert state.returns().tolist() == [0.0, 0.0]


# ---- rewards through the environment -------------------------------------------------------------


@pytest.mark.parametrize("reward", ["outcome", "score"])
def test_env_rewards(reward):
    env = envs.make("koplus-v0", num_players=3, board_mode="standard", reward=reward)
    env.reset(seed=3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(1)
    first_step = True
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        points = env.game_state.placement_points(action)
        env.step(action)
        if first_step:
            assert env.rewards[agent] == (points if reward == "score" else 0.0)
            first_step = False
        for a, r in env.rewards.items():
            totals[a] += r
    state = env.game_state
    expected = state.returns() + (state.scores() if reward == "score" else 0.0)
    assert np.allclose([totals[a] for a in env.possible_agents], expected)


# ---- names, observation, text, image -------------------------------------------------------------


def test_action_names_and_parsing():
    state = standard(2)
    game = state.game
    assert state.action_to_string(117) == "place コ up at r7c5"
    assert game.string_to_action(state, "place コ up at r7c5") == 117
    assert game.string_to_action(state, "ko up r7c5") == 117
    assert game.string_to_action(state, "117") == 117
    with pytest.raises(IllegalActionError, match="＋"):
        game.string_to_action(state, "place ＋ at r5c6")
    with pytest.raises(IllegalActionError, match="orientation"):
        game.string_to_action(state, "place コ at r7c5")
    with pytest.raises(IllegalActionError, match="legal moves"):
        game.string_to_action(state, "place コ up at r0c0")
    play(state, "place コ up at r7c5")
    assert state.action_to_string(5 * 16 + 6) == "place ＋ at r5c6"
    for text in ("place ＋ at r5c6", "place + at r5c6", "plus r5c6"):
        assert game.string_to_action(state, text) == 5 * 16 + 6
    for action in state.legal_actions():
        assert game.string_to_action(state, state.action_to_string(action)) == action


def test_observation_layout():
    state = standard(3)
    play(state, "place コ up at r7c5")  # seat 0
    points = state.points[0]
    assert points > 0
    obs1 = state.observation(1)
    obs0 = state.observation(0)
    assert obs0.shape == (16, 16, NUM_PLANES) and obs0.dtype == np.float32
    assert obs0.min() >= 0.0 and obs0.max() <= 1.0
    assert obs0[0, 1, 0] == pytest.approx(4 / 5)  # alien value scaled
    assert obs0[7, 6, 1] == 1.0 and obs0[7, 6, 2] == 0.0  # own tile in plane 1 for seat 0
    assert obs1[7, 6, 1] == 0.0 and obs1[7, 6, 3] == 1.0  # seat 0 is slot 2 for seat 1 (3 players)
    assert obs0[7, 6, 5] == 0.0 and obs0[0, 0, 5] == 1.0 and obs0[12, 0, 5] == 0.0  # empty, on board only
    assert obs0[:12, :16, 6].all() and not obs0[12:, :, 6].any()
    assert obs0[4:8, 4:12, 7].all() and obs0[:, :, 7].sum() == 32
    assert obs0[0, 0, 12] == 1.0 and obs0[0, 0, 8] == 0.0  # seat 0's next tile is ＋
    assert obs1[0, 0, 12] == 1.0 and obs1[0, 0, 9] == 1.0 and obs1[0, 0, 8 + 2] == 0.0 and obs1[0, 0, 12 + 2] == 1.0
    assert obs0[3, 3, 16] == pytest.approx(11 / 12) and obs0[3, 3, 17] == 1.0
    assert obs0[0, 0, 20] == pytest.approx(1 / 3) and obs0[0, 0, 21] == pytest.approx(2 / 3)
    assert obs0[0, 0, 24] == pytest.approx((points + 60) / 180) and obs0[0, 0, 25] == pytest.approx(60 / 180)
    assert obs1[0, 0, 28] == 1.0 and obs0[0, 0, 29] == 1.0  # seat 1 to move
    assert obs0[0, 0, 32:35].tolist() == [1.0, 1.0, 1.0] and obs0[0, 0, 35] == 0.0
    assert not obs0[:, :, [4, 11, 15, 19, 23, 27, 31]].any()  # padded fourth slot


def test_text_and_image():
    state = standard(2)
    play(state, "place コ up at r7c5")
    text = state.to_text()
    assert "KoPlus, 2 players, standard board" in text
    assert "to move: P1 places ＋" in text
    assert "P0 (A): score   8" in text
    assert "r7 " in text and "A" in text.splitlines()[10]
    image = state.render_image()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    state = run_to_end(state, np.random.default_rng(0))
    assert "game over" in state.to_text() and "largest group" in state.to_text()
    assert state.render_image().shape[2] == 3
    chance = KoPlusGame(num_players=4).new_initial_state()
    assert "not drawn yet" in chance.to_text()
    assert chance.render_image().shape[2] == 3


def test_clone_is_independent_and_replay_reproduces():
    rng = np.random.default_rng(6)
    state = KoPlusGame(num_players=3).new_initial_state()
    while state.is_chance_node() or len(state.tiles) < 5:
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else state.legal_actions()[0])
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[-1])
    assert len(state.tiles) == 5 and len(copy.tiles) == 6
    assert (state.owner >= 0).sum() == 25
    replay = state.game.state_from_history(state.history)
    assert replay.to_text() == state.to_text()
    assert (replay.observation(1) == state.observation(1)).all()
    half = KoPlusGame(num_players=2).new_initial_state()
    half.apply_action(3)
    half.apply_action(1)
    other = half.clone()
    other.apply_action(4)
    other.apply_action(2)
    assert half.layout == [(3, 1)] and other.layout == [(3, 1), (4, 2)]
    assert not half.aliens.reshape(GRID, GRID)[0:4, 4:8].any() and other.aliens.reshape(GRID, GRID)[0:4, 4:8].any()


# ---- position builder ----------------------------------------------------------------------------


def assert_rebuilds(state: KoPlusState) -> KoPlusState:
    """``state_from_position(state.position())`` rebuilds everything every seat can see or do."""
    rebuilt = state.game.state_from_position(state.position())
    assert rebuilt.current_player() == state.current_player()
    assert (rebuilt.legal_action_mask() == state.legal_action_mask()).all()
    assert rebuilt.returns().tolist() == state.returns().tolist()
    assert rebuilt.scores().tolist() == state.scores().tolist()
    assert rebuilt.to_text() == state.to_text()
    assert rebuilt.chance_outcomes() == state.chance_outcomes()
    for seat in range(state.num_players):
        assert rebuilt.observation(seat).tobytes() == state.observation(seat).tobytes()
    assert rebuilt.position() == state.position()
    return rebuilt


MADE_UP = [
    "1.2.3.4.5.1.",
    ".1.2.3.4.5.1",
    "2.3.4.5.1.2.",
    ".2.3.4.5.1.2",
    "3.4.5.1.2.3.",
    ".3.4.5.1.2.3",
    "4.5.1.2.3.4.",
    ".4.5.1.2.3.4",
    "5.1.2.3.4.5.",
    ".5.1.2.3.4.5",
    "1.2.3.4.5.1.",
    ".1.2.3.4.5.1",
]


@pytest.mark.parametrize("mode", ["standard", "random"])
def test_a_made_up_board_is_exported_and_rebuilt(mode):
    """``position()`` writes the aliens of a made-up board (its layout alone rebuilt the layout's board)."""
    g = KoPlusGame(num_players=2, board_mode=mode)
    state = g.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
    assert "aliens" not in state.position()  # the layout's own board: the layout says it all
    state = at(state, aliens=MADE_UP)
    total = sum(int(ch) for row in MADE_UP for ch in row if ch != ".")
    assert int(state.aliens.sum()) == total != 144  # 9 sections of 16 points
    assert state.position()["aliens"] == MADE_UP
    rebuilt = assert_rebuilds(state)
    assert int(rebuilt.aliens.sum()) == total
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
        assert int(assert_rebuilds(state).aliens.sum()) == total


def test_a_game_over_before_the_first_tile_keeps_its_final_scoring():
    """On a board where every tile catches more than 9, nobody can place: the game is over at once."""
    state = at(standard(2), aliens=["555555555555"] * 12, to_move=TERMINAL)
    assert state.is_terminal() and state.final is not None
    assert [f.total for f in state.final] == [0, 0]
    assert "largest group 0" in state.to_text()
    played = standard(2)
    played._set_aliens(None, ["555555555555"] * 12)  # type: ignore[arg-type]
    played._start()
    assert played.is_terminal()
    assert state.to_text() == played.to_text() and state.returns().tolist() == played.returns().tolist()
    assert_rebuilds(played)


def test_a_finished_game_rebuilds_its_final_scoring():
    for state, action in random_games(3, "standard", seed=2, games=1):
        if action is None:
            rebuilt = assert_rebuilds(state)
            assert rebuilt.final == state.final and rebuilt.totals() == state.totals()


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("mode", ["standard", "random"])
def test_positions_round_trip_at_every_node_of_random_games(n, mode):
    game = KoPlusGame(num_players=n, board_mode=mode)
    rng = np.random.default_rng(n)
    for _ in range(2):
        state = game.new_initial_state()
        while True:
            assert_rebuilds(state)
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])


def test_position_builder_refuses_what_the_rules_cannot_reach():
    state = standard(3)
    play(state, "place コ up at r7c5")
    with pytest.raises(ValueError, match="aliens"):
        at(state, aliens=[row.replace("5", "7") for row in MADE_UP[:4]] + ["." * 16] * 8)
    with pytest.raises(ValueError, match="skipped"):
        at(state, skipped=[2])  # seat 2 can place
    with pytest.raises(ValueError, match="skipped"):
        at(state, skipped=[1])  # the seat to move
    with pytest.raises(ValueError, match="bonus_turn"):
        at(state, bonus_turn=True)  # seat 1 has not placed a tile to reach 20
    with pytest.raises(ValueError, match="bonus_turn"):
        at(state, bonus_turn=True, to_move=0, points=[20, 0, 0])  # seat 0 has its allowance left


# ---- the heuristic agent -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_heuristic_beats_random(n):
    game = KoPlusGame(num_players=n)
    rng = np.random.default_rng(n)
    wins = 0
    games = 12 if n == 2 else 8
    for i in range(games):
        seat = i % n
        agents = [KoPlusHeuristic() if s == seat else RandomAgent() for s in range(n)]
        returns = play_game(game, agents, rng)[0]
        wins += returns[seat] == returns.max()
    assert wins >= games - 1


def test_heuristic_takes_a_bonus_landing():
    state = standard(2)
    play(state, "place コ up at r7c5")
    state = with_points(state, 1, 15)
    action = KoPlusHeuristic().act(state, 1, np.random.default_rng(0))
    assert state.placement_points(action) == 5


@pytest.mark.parametrize("n", [2, 3])
def test_tiles_keep_the_shapes_on_the_board_when_placed_is_written(n):
    """``placed`` is writable (the next tile's shape, tiles left); ``tiles`` still gives every tile the shape
    whose cells it covers."""
    rng = np.random.default_rng(n)
    state = standard(n)
    for step in range(4 * n):
        if step == n:
            state.placed = [p + 1 for p in state.placed]  # every stack's top moves on: the shapes to come flip
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert len(state.tiles) > n
    for index, (seat, shape, action) in enumerate(state.tiles):
        covered = np.flatnonzero(state.tile_at == index).tolist()
        assert sorted(state.geo.cells_of[shape][action]) == covered, (index, seat, shape, action)
        assert state.owner[covered].tolist() == [seat] * 5
