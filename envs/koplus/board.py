"""KoPlus static tables: board sections, board geometry, tile shapes, stacks and the placement table.

Everything here is computed once (per player count) and shared by every state; the compiled rules
(``kernel.py``) freeze what they need of it as constant tables, the Python ``State`` (text, rendering, move
names, positions) and the heuristic agent read it directly. Cells are indexed
``row * GRID + col`` on a fixed ``GRID x GRID`` (16 x 16) grid, the grid of the action encoding (``actions``);
a smaller board occupies its top-left corner.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from gameshelf.envs.koplus.actions import GRID, NUM_CELLS, encode_action

SECTION = 4
"""Side of a board section in cells."""
MAX_PLAYERS = 4
TILES_PER_PLAYER = 12
MAX_TILE_POINTS = 9
"""A placement may cover aliens worth at most this much."""
BONUS_SCORES = (20, 40, 60)
"""A placement that leaves its player's score at exactly one of these triggers a bonus turn."""

# The 16 section layouts S00..S15 of the spec's table (PROPOSED there), rows top to bottom, 0 = no alien.
SECTIONS: tuple[tuple[str, str, str, str], ...] = (
    ("0430", "5000", "0000", "0121"),  # S00
    ("4000", "0310", "0100", "0205"),  # S01
    ("0104", "1000", "5230", "0000"),  # S02
    ("0100", "3001", "2050", "4000"),  # S03
    ("1004", "0300", "0200", "0051"),  # S04
    ("2010", "0430", "0000", "0150"),  # S05
    ("5012", "1040", "0000", "0030"),  # S06
    ("2041", "0003", "5001", "0000"),  # S07
    ("2040", "5010", "0000", "0310"),  # S08
    ("0001", "0030", "1040", "0502"),  # S09
    ("0012", "1005", "0430", "0000"),  # S10
    ("0100", "1500", "0304", "0200"),  # S11
    ("0014", "5000", "0003", "1200"),  # S12
    ("0040", "0001", "0020", "0351"),  # S13
    ("1001", "5300", "0020", "0040"),  # S14
    ("0020", "1031", "0050", "0040"),  # S15
)
NUM_SECTIONS = len(SECTIONS)

SECTION_GRID = {2: (3, 3), 3: (3, 4), 4: (4, 4)}
"""Board size in sections (rows, columns) per player count; 3 players: 3 rows x 4 columns (PROPOSED)."""
BONUS_TURNS = {2: (2, 3), 3: (1, 2, 2), 4: (1, 1, 2, 2)}
"""Bonus-turn allowance per seat (TEXT)."""

KO, PLUS = 0, 1
SHAPE_NAMES = ("コ", "＋")


def _rotate_cw(offsets: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    return tuple((dc, -dr) for dr, dc in offsets)


_KO_UP = ((0, 0), (0, 1), (0, 2), (-1, 0), (-1, 2))
"""コ opening up, anchored at its base-left cell: base (r,c)..(r,c+2), arms (r-1,c) and (r-1,c+2)."""
_PLUS = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))
"""＋ anchored at its centre."""

SHAPE_OFFSETS: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = (
    # コ: each orientation is the previous one turned 90° clockwise about the anchor cell.
    (_KO_UP, _rotate_cw(_KO_UP), _rotate_cw(_rotate_cw(_KO_UP)), _rotate_cw(_rotate_cw(_rotate_cw(_KO_UP)))),
    (_PLUS,),
)
"""``SHAPE_OFFSETS[shape][orientation]``: the (row, col) offsets of the 5 cells from the anchor."""


def stack_order(seat: int) -> tuple[int, ...]:
    """The fixed stack of a seat, top first: seats 0 and 2 start with コ, seats 1 and 3 with ＋."""
    first = KO if seat % 2 == 0 else PLUS
    return tuple(first if i % 2 == 0 else 1 - first for i in range(TILES_PER_PLAYER))


STACKS = (stack_order(0), stack_order(1))
"""``STACKS[seat % 2][i]``: the shape of a seat's i-th tile."""


@cache
def section_values(section: int, rotation: int = 0) -> tuple[tuple[int, ...], ...]:
    """The 4 x 4 alien values of a section turned ``rotation`` x 90° clockwise."""
    grid = tuple(tuple(int(ch) for ch in row) for row in SECTIONS[section])
    for _ in range(rotation % 4):
        grid = tuple(tuple(grid[SECTION - 1 - j][i] for j in range(SECTION)) for i in range(SECTION))
    return grid


@dataclass(frozen=True, eq=False)
class Geometry:
    """Board shape and placement table of one player count."""

    num_players: int
    rows: int
    cols: int
    section_rows: int
    section_cols: int
    on_board: np.ndarray
    """bool[NUM_CELLS]: cell is on the board."""
    interior: np.ndarray
    """bool[NUM_CELLS]: cell lies in a section that does not touch the board edge (first-tile region)."""
    cell_neighbours: tuple[tuple[int, ...], ...]
    """On-board orthogonal neighbours of every cell (empty for off-board cells)."""
    actions: tuple[np.ndarray, np.ndarray]
    """Per shape: the action number of every on-board placement."""
    cells: tuple[np.ndarray, np.ndarray]
    """Per shape: int[P, 5], the cells of every placement (aligned with ``actions``)."""
    inside: tuple[np.ndarray, np.ndarray]
    """Per shape: bool[P], every cell of the placement lies in the interior region."""
    cells_of: tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, ...]]]
    """Per shape: action -> its 5 cells."""
    border_of: tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, ...]]]
    """Per shape: action -> the on-board cells orthogonally adjacent to the placement (outside it)."""
    cells_t: tuple[np.ndarray, np.ndarray]
    """Per shape: int[5, P], ``cells`` transposed and contiguous (five row-wise gathers are fast)."""

    @property
    def num_sections(self) -> int:
        return self.section_rows * self.section_cols

    def section_origin(self, position: int) -> tuple[int, int]:
        """Top-left cell (row, col) of the board position ``position`` (row-major over sections)."""
        return (position // self.section_cols) * SECTION, (position % self.section_cols) * SECTION


@cache
def geometry(num_players: int) -> Geometry:
    section_rows, section_cols = SECTION_GRID[num_players]
    rows, cols = section_rows * SECTION, section_cols * SECTION
    on_board = np.zeros(NUM_CELLS, dtype=bool)
    interior = np.zeros(NUM_CELLS, dtype=bool)
    for r in range(rows):
        for c in range(cols):
            on_board[r * GRID + c] = True
            interior[r * GRID + c] = SECTION <= r < rows - SECTION and SECTION <= c < cols - SECTION
    neighbours = []
    for idx in range(NUM_CELLS):
        r, c = divmod(idx, GRID)
        near = [
            (r + dr) * GRID + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)) if 0 <= r + dr < rows and 0 <= c + dc < cols
        ]
        neighbours.append(tuple(near) if on_board[idx] else ())

    actions, cells, inside, cells_of, border_of = [], [], [], [], []
    for shape_offsets in SHAPE_OFFSETS:
        acts: list[int] = []
        table: dict[int, tuple[int, ...]] = {}
        border: dict[int, tuple[int, ...]] = {}
        for orientation, offsets in enumerate(shape_offsets):
            for r in range(GRID):
                for c in range(GRID):
                    placed = [(r + dr, c + dc) for dr, dc in offsets]
                    if not all(0 <= pr < rows and 0 <= pc < cols for pr, pc in placed):
                        continue
                    action = encode_action(orientation, r, c)
                    tile = tuple(pr * GRID + pc for pr, pc in placed)
                    acts.append(action)
                    table[action] = tile
                    border[action] = tuple(sorted({n for cell in tile for n in neighbours[cell]} - set(tile)))
        cell_array = np.array([table[a] for a in acts], dtype=np.intp)
        actions.append(np.array(acts, dtype=np.intp))
        cells.append(cell_array)
        inside.append(np.asarray(interior[cell_array].all(axis=1)))
        cells_of.append(table)
        border_of.append(border)
    transposed = [np.ascontiguousarray(c.T) for c in cells]
    for array in (on_board, interior, *actions, *cells, *inside, *transposed):
        array.setflags(write=False)
    return Geometry(
        num_players,
        rows,
        cols,
        section_rows,
        section_cols,
        on_board,
        interior,
        tuple(neighbours),
        (actions[0], actions[1]),
        (cells[0], cells[1]),
        (inside[0], inside[1]),
        (cells_of[0], cells_of[1]),
        (border_of[0], border_of[1]),
        (transposed[0], transposed[1]),
    )


def write_section(aliens: np.ndarray, geo: Geometry, position: int, section: int, rotation: int) -> None:
    """Write a (rotated) section's alien values into ``aliens`` at a board position."""
    r0, c0 = geo.section_origin(position)
    for i, row in enumerate(section_values(section, rotation)):
        aliens[(r0 + i) * GRID + c0 : (r0 + i) * GRID + c0 + SECTION] = row


def standard_layout(num_players: int) -> tuple[tuple[int, int], ...]:
    """``board_mode="standard"``: sections S00, S01, ... row-major, unrotated."""
    return tuple((i, 0) for i in range(geometry(num_players).num_sections))


def aliens_of_layout(geo: Geometry, layout: tuple[tuple[int, int], ...]) -> np.ndarray:
    """int8[NUM_CELLS] alien values of a complete board given as (section, rotation) per position."""
    aliens = np.zeros(NUM_CELLS, dtype=np.int8)
    for position, (section, rotation) in enumerate(layout):
        write_section(aliens, geo, position, section, rotation)
    return aliens


def placement_points(geo: Geometry, aliens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per shape: int[P], the alien value each placement would capture on this board."""
    values = aliens.astype(np.int64)
    return values[geo.cells[KO]].sum(axis=1), values[geo.cells[PLUS]].sum(axis=1)
