"""Amoriax: a two-player race to put one of your own stones on the crown square.

| | |
|---|---|
| id | `amoriax-v0` |
| agents | `player_0` (White, moves first), `player_1` (Black) |
| action space | `Discrete(1054)` |
| observation | `Box(0, 1, (9, 9, 10), float32)` + `action_mask` `(1054,) int8` |
| import | `gameshelf.make("amoriax-v0")`; engine: `gameshelf.envs.amoriax.game.AmoriaxGame` |
| compiled rules | `envs/amoriax/kernel.py`; batched: `gameshelf.vector.make("amoriax-v0", num_envs=N)` |
| rules | `docs/rules/amoriax.md` |

A 9x9 board (rows and columns 0-8, row 0 at the top); the crown is C = (4,4), inside a marked inner area.
Each player has 12 stones; the neutral Red stone starts on C. A move takes one own stone or the Red stone to
an empty square by a corner jump (corner to the diagonally opposite corner), a knight jump (destination
outside the inner area; stones in between do not matter) or a slide (up/down/left/right as far as
possible, at least one square). Red may not be moved on two plies in a row. Ending a move with an own
stone on C wins at once; Red on C wins nothing.

## Options

| option | default | allowed | meaning |
|---|---|---|---|
| `num_players` | 2 | 2 | Amoriax is a two-player game |
| `inner_size` | 3 | 3, 5 | side of the inner area around C: rows/cols 3-5 (3) or 2-6 (5) |
| `start` | `"corners"` | `"corners"`, `"sides"` | start layout (below) |
| `red_lock` | `"ply"` | `"ply"`, `"own_turns"` | Red's lock (below) |
| `max_plies` | 300 | an int in 1..32767 | the game is a draw after this many plies (passes included) |

`red_lock`: with `ply`, Red cannot be moved on the ply right after a ply that moved it; with `own_turns`, a
player cannot move Red on two consecutive own turns (the opponent may move it in between).

Start layouts: every corner holds a triangle of 6 stones (3+2+1 squares), Red on C, White to move.
`corners` (the spec's PROPOSED diagram) gives White the (0,0) and (8,8) triangles and Black the (0,8) and
(8,0) ones; `sides` (the alternative the spec names: "White bottom two corners, Black top two") gives
White the (8,0) and (8,8) triangles and Black the (0,0) and (0,8) ones. In `to_text` an empty square of
the inner area is `:` and the empty crown `+`:

```
corners          sides
   c012345678       c012345678
r0  WWW...BBB    r0  BBB...BBB
r1  WW.....BB    r1  BB.....BB
r2  W.......B    r2  B.......B
r3  ...:::...    r3  ...:::...
r4  ...:R:...    r4  ...:R:...
r5  ...:::...    r5  ...:::...
r6  B.......W    r6  W.......W
r7  BB.....WW    r7  WW.....WW
r8  BBB...WWW    r8  WWW...WWW
```

Both layouts leave White 56 legal moves at the start (32 knight jumps and 12 slides with own stones, 8
knight jumps and 4 slides with Red); with `inner_size=5`, 36 (20 + 12 own, 0 + 4 Red: every knight jump of
Red and 12 of White's land in the larger inner area).

## Actions

`action = from_square * 13 + kind`, with `from_square = row * 9 + col` (0-80), and `1053` = pass.

| kind | move |
|---|---|
| 0 | corner jump to the diagonally opposite corner ((0,0)<->(8,8), (0,8)<->(8,0)) |
| 1-8 | knight jump by (dr, dc) = (-2,-1), (-2,+1), (-1,-2), (-1,+2), (+1,-2), (+1,+2), (+2,-1), (+2,+1) |
| 9-12 | slide up, down, left, right (to the last empty square before a stone or the edge) |

Action 1053 (pass) is legal only when the side to move has no other legal move, and then it is the only
one. The mask is exact: an action is legal when the square holds a stone of the side to move or the Red
stone (Red not frozen for the side to move) and the move lands on an empty square under the rules above.
Names (`state.action_to_string`, parsed back by `game.string_to_action`): `"W (2,0) slide right -> (2,7)"`,
`"R (4,4) knight -> (2,3)"`, `"B (8,0) corner -> (0,8)"`, `"pass"`; the letter is the stone moved.

## Observation

`state.observation(seat)`, shape `(9, 9, 10)` float32 in [0, 1], egocentric by planes (the board itself is
not turned):

{observation_table}

## Rewards

At the end only: the winner +1, the loser -1; a draw 0 each (`rank_returns`). `scores()` is all zeros (the
game has no score), so `reward="score"` equals `reward="outcome"`.

## Chance and hidden information

None: no chance nodes, everything is public.

## Readings of the spec

* Start position and inner area: the spec's PROPOSED defaults (`start="corners"`, `inner_size=3`), with the
  alternatives as options (see above).
* Knight jump: only the destination must be outside the inner area; the origin may be inside (Red starts
  there) and stones jumped over are ignored.
* Corner jump: only the opposite corner must be empty; the stones on the diagonal (and the crown) are
  jumped over.
* Slides may cross and stop inside the inner area. Only a slide can end on the crown, so a win needs a
  stone lined up with C, nothing between, and a stone (any colour) just beyond C to stop the slide
  (`state.crown_moves(seat)` lists such moves).
* Red ("cannot be moved two times in a row", latest revision): by default two consecutive plies
  (`red_lock="ply"`); `red_lock="own_turns"` is the other reading. A pass moves no Red, so it lifts the
  passer's lock.
* Win: the mover's own stone ending on C wins at once, before any draw test. Red on C never wins.
* Threefold repetition: the position is every cell, the side to move and the Red lock (under
  `own_turns` the lock of both players, since both shape what follows). The start position counts as its
  first occurrence; the third occurrence ends the game as a draw at once (no claim needed).
* No legal move: the player passes (the only legal action then); two consecutive passes end the game as a
  draw. Passes count as plies, for `max_plies` and repetition alike.
* Order of the end tests after a ply: win, two passes, repetition, `max_plies`.
* Engine extras: `game.state_from_board(rows, to_move, red_frozen)` sets up a position from an ASCII board
  (tests, puzzles); such a state cannot be replayed from the start position. `state.winner` (-1 if none),
  `state.end` (why the game ended), `state.last_move`, `state.destination(action)`.

## Position builder

``state.position()`` / ``game.state_from_position(data)`` (validated; unknown keys refused): ``board`` (9
strings of 9 cells: ``W``, ``B``, ``R``, ``.``), ``to_move``, ``red_lock`` (bit ``s``: seat ``s`` may not move
Red now), ``ply``, ``passes``, ``winner``, ``end``, ``last_move`` and ``seen`` (``[board, to_move, red_lock,
count]`` of every position so far, for repetition; it must count the current one, the final position of a
win included). The builder refuses what the rules cannot reach: a ``last_move`` onto the crown by its
player that is not a win (``end`` ``crown``; a win is a move onto the crown, so a stone set up there, as
``state_from_board`` allows, has won nothing), an ``end`` other than the first end test that holds (win, two passes,
third occurrence, ``max_plies``) or a game going on past one, a Red lock the rules never leave (under
``red_lock="ply"`` only the side to move is frozen, exactly after a Red move), a ``last_move`` that did not
move the stone on its square, and ``seen`` entries counted 0 or 3+ times (but the current one of a
repetition draw), with other stones than the board, or more of them than ``ply + 1``.
``game.state_from_board(rows, to_move=0, red_frozen=False)`` is the short form for a fresh position.

## Compiled rules

The rules are compiled kernels (numba) over one `int16` state row, written once in `envs/amoriax/kernel.py`
(layout under "State row" below); `AmoriaxState` (`game.py`) is a view over that row and keeps in Python only
what is not a rule step (text, move names, positions). Every path runs on them: the AEC environment, the engine API,
MCTS's random playouts, and the batched environment `gameshelf.vector.make("amoriax-v0", num_envs=N)` (any
options). The first use after an install or an edit compiles the kernels: about 5 CPU-seconds on the 2-core
development machine (3.7 s for the engine's kernels, 1.3 s more for the batch drivers; 24 s of wall time there
under the load of other jobs). Later processes load them from numba's disk cache (0.2 CPU-seconds).

Threefold repetition is counted from a log of the plies in the row (one move and one position hash a ply), so
a row has room for `max(max_plies, 300)` plies: every game up to 300 plies has rows of `kernel.SIZE` entries,
a longer `max_plies` gives longer rows. A row counts plies in 16 bits: `max_plies` above 32767 is refused.

## State row

The kernel's state row (`kernel.ROW`, `int16`): what `gameshelf.vector` batches and an `AmoriaxState`
views. Positions and options that do not fit a field's range are refused by the field's name; the row ends
with the `history` (the preloaded positions of a rebuilt position, then the log), as long as the game needs.

{row_table}

## Version history

* v0: first version.
"""

from gameshelf.envs.amoriax.kernel import ROW
from gameshelf.envs.amoriax.observation import LAYOUT

__doc__ = __doc__.replace("{observation_table}", LAYOUT.table()).replace("{row_table}", ROW.table())
