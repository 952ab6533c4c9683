"""KoPlus (コプラス): place コ and ＋ pentomino NETs on a board of 4x4 sections to catch aliens.

Rules as implemented: ``docs/rules/koplus.md``.

| | |
|---|---|
| Id | `koplus-v0` |
| Import | `gameshelf.make("koplus-v0", num_players=2, board_mode="random")` |
| Engine | `gameshelf.envs.koplus.game:KoPlusGame`, a view over the compiled rules |
| Compiled rules | `envs/koplus/kernel.py`; batched: `gameshelf.vector.make("koplus-v0", num_envs=N)` |
| Agents | `player_0` … `player_{N-1}`, N = 2, 3, 4 |
| Action space | `Discrete(1024)`: orientation × anchor cell on a 16×16 grid |
| Observation | `Box(0, 1, (16, 16, 36), float32)`, egocentric, padded to 4 players and a 16×16 board |
| Action mask | exact at every turn (`int8`, 1024) |
| Chance | random boards only: section and rotation of each board position |
| Hidden information | none |
| Max decisions | 12 × N (every decision places a tile) |

The rules are compiled kernels (numba) over one `int16` state row per game (`envs/koplus/kernel.py`, its
layout tabled below): the AEC environment, the single-seat view, the engine API, MCTS's random playouts and
the batched environment (`gameshelf.vector.make("koplus-v0", num_envs=N, num_players=..., board_mode=...)`,
every player count and option) all run the same kernels. Importing `gameshelf` compiles nothing; the first
use of the game compiles its kernels, about 9 CPU-seconds on a 2-core machine (5 s for what `make()` needs,
4 s more for the batched drivers and the compiled playout; much longer in wall time on a loaded machine), and
caches them on disk (`gameshelf.envs.core.kernel.cache_dir()`): later processes load them in well under a
second.

## Options

| name | default | allowed | meaning |
|---|---|---|---|
| `num_players` | `2` | 2, 3, 4 | players; board of 3×3 / 3×4 (rows × cols) / 4×4 sections = 12×12 / 12×16 / 16×16 cells |
| `board_mode` | `"random"` | `"random"`, `"standard"` | see below |

`board_mode="random"` (PROPOSED default, for training): the required number of distinct sections drawn from
the 16 and laid row-major, each turned by a random multiple of 90° (chance nodes, resolved by the
environment's generator). `board_mode="standard"`: S00, S01, … row-major, unrotated (the spec's test board).

Environment options (all games): `reward` (`"outcome"`, `"score"`), `illegal_action` (`"raise"`, `"penalize"`),
`render_mode` (`"ansi"`, `"rgb_array"`, `"human"`).

## Actions

A player never chooses a shape: it always places the top tile of its fixed stack (seats 0 and 2:
コ,＋,コ,…; seats 1 and 3: ＋,コ,＋,…). Action `a = orientation * 256 + row * 16 + col`: the anchor cell
`(row, col)` on the fixed 16×16 grid (a smaller board occupies its top-left corner) and an orientation.

| orientation | コ (opening faces …) | cells of a コ anchored at (r, c) | ＋ |
|---|---|---|---|
| 0 `up` | up | (r,c) (r,c+1) (r,c+2) (r-1,c) (r-1,c+2) | centre (r,c): (r,c) (r-1,c) (r+1,c) (r,c-1) (r,c+1) |
| 1 `right` | right | (r,c) (r+1,c) (r+2,c) (r,c+1) (r+2,c+1) | never legal |
| 2 `down` | down | (r,c) (r,c-1) (r,c-2) (r+1,c) (r+1,c-2) | never legal |
| 3 `left` | left | (r,c) (r-1,c) (r-2,c) (r,c-1) (r-2,c-1) | never legal |

The コ anchor is the base-left cell of the upward-opening tile; each orientation is the previous one turned
90° clockwise about the anchor, so the anchor is always an end cell of the base. Names:
`"place コ up at r7c5"`, `"place ＋ at r5c6"` (`string_to_action` also reads `ko`/`u` and `+`/`plus`).
Chance outcomes (random boards; not agent actions): the section drawn for the next board position
(0–15, uniform over the sections not used yet; positions row-major), then its clockwise rotation (0–3 ×
90°, uniform). Legality is computed bit-parallel over the 16 anchor columns of each orientation and anchor
row (covered and next-to-a-tile cells as bit rows); which placements lie on the board and catch at most 9 is
computed once per board, the interior placements once per player count.

## Observation

Planes `(16, 16, 36)`, float32 in [0, 1]. "Slot k" is seat `(observer + k) % N`; slots ≥ N are zero
(except where noted). Per-player scalars are broadcast over the whole plane.
In `gameshelf.vector` a step updates each game's observation in place (the kernel's `observation_update`):
the per-seat planes on every cell, and a cell's own planes only where they changed; the values are those
of a full write, bit for bit.

{observation_table}

## Rewards

`reward="outcome"` (default): 0 until the end, then by final ranking (total score, then tiles left in the
stack; still tied: shared, values averaged): 2 players +1/−1, N players +1 … −1 linearly.
`reward="score"`: in addition, the change of the player's running score (placement points as they are
made, the final group scoring at the end). `state.scores()` is that running score; `state.totals()` the
same as ints.

## Chance and hidden information

Random boards are built by 2 chance nodes per board position (section, then rotation) before seat 0's
first turn; standard boards have no chance node. The engine draws no random numbers. Everything is public.

## Readings of the spec

* Passing is automatic: a seat whose top tile has no legal placement (or whose stack is empty) is skipped;
  there is no pass action. A skipped seat is asked again on its next turn (new tiles create new adjacent
  cells). The game ends when no seat can place; if seat 0 cannot place its first tile the next seat that
  can starts (with the interior rule).
* Bonus turn (PROPOSED details of the spec): checked after every placement, bonus placements and
  0-point placements included, whenever the score is exactly 20, 40 or 60 and an allowance is left; if
  the player's new top tile has no legal placement the bonus turn is neither taken nor consumed.
* Final scoring: tile groups are connected components of a player's tiles (orthogonal cell adjacency
  between tiles); isolated tile −5; +5 to every player whose largest group (≥ 2 tiles) is not smaller than
  any other player's; −3 per tile in a group of 2 or more smaller than its owner's largest group. A player
  with only isolated tiles has no group and gets no +5.
* 3-player board: 3 rows × 4 columns of sections (12×16 cells), interior rows 4–7 × cols 4–11 (PROPOSED).
* Section layouts: the spec's PROPOSED table S00–S15, exactly as written.
* Seating is not modelled: seat 0 always plays first.

## Position builder

``state.position()`` / ``game.state_from_position(data)`` (validated; unknown keys refused): ``layout`` (the
``[section, rotation]`` of each board position; the standard layout in ``board_mode="standard"``),
``pending_section``, ``tiles`` (``[seat, action]`` in the order placed, each checked against the placement
rules), ``points`` (optional: the running placement points, else those of the tiles), ``bonus_left``,
``bonus_turn``, ``skipped``, ``to_move`` (a seat that can place, -1 while the board is drawn, -4 when nobody
can place: the game is over, with its final scoring), and ``aliens`` (a made-up board, for puzzles: one
string per row of alien values 1..5, ``.`` or ``0`` for none; ``position()`` writes it whenever the board
is not the one its layout gives). ``skipped`` seats cannot place (nothing was placed since they were passed
over) and a ``bonus_turn`` belongs to the seat that placed the last tile, at 20, 40 or 60 points, with one
of its bonus turns used.

## State row

The kernel's state row (``kernel.ROW``, ``int16``): what ``gameshelf.vector`` batches and a ``KoPlusState``
views. Positions and options that do not fit a field's range are refused by the field's name.

{row_table}

## Version history

* v0: first version (spec revision of 2026-06-05 21:20).
"""

from gameshelf.envs.koplus.kernel import ROW
from gameshelf.envs.koplus.observation import LAYOUT

__doc__ = __doc__.replace("{observation_table}", LAYOUT.table()).replace("{row_table}", ROW.table())
