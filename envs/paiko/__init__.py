"""Paikō: a two-player abstract game of deploying and shifting tiles, capturing by threat, racing to 10 points.

| | |
|---|---|
| id | `paiko-v1` (compact observation), `paiko-v0` (the same game, planes of 137 channels) |
| agents | `player_0` (White, drafts first and takes the first turn), `player_1` (Black) |
| action space | `Discrete(143)` |
| observation | `Dict(observation=Box(0, 1, (4375,), float32), action_mask=Box(0, 1, (143,), int8))` (v0: `(14, 14, 137)`) |
| import | `gameshelf.make("paiko-v1")`; engine `gameshelf.envs.paiko.game.PaikoGameV1` (v0: `PaikoGame`) |
| compiled rules | `envs/paiko/kernel.py` (v1: `kernel_v1.py`); batched: `gameshelf.vector.make("paiko-v1", num_envs=N)` |
| rules | `docs/rules/paiko.md` |

The rules are compiled kernels (numba) over one `int16` state row (`envs/paiko/kernel.py`, its layout under
"State row" below); `PaikoState` is a view over that row and keeps in Python only text, move names and
positions. The first use after an install or an edit compiles them: about 20 s of CPU time (76 s of wall
time on a 2-core machine under a load of 8); later processes load numba's cache in about a second.

## Rules as implemented

**Board.** Squares `(x, y)`, x, y in 0..13; row y holds x = 6-w .. 7+w with w = y (y <= 6) or 13-y
(y >= 7): 112 squares in a diamond. Black squares (only a Lotus may stand there): (5,5), (8,8), (7,6),
(6,7). White's homeground is {x <= 6, y >= 7}, Black's {x >= 7, y <= 6}; the two other quarters are
middlegrounds (28 squares each quarter).

**Tiles.** Each player has 24 tiles, 3 of each of 8 types, in four zones: reserve (public), hand, board,
removed. A board tile faces N, E, S or W (facing f = 0..3, forward vector (0,-1), (1,0), (0,1), (-1,0));
patterns below are for N and turn with the tile ((dx, dy) becomes (-dy, dx) at E, (-dx, -dy) at S,
(dy, -dx) at W).

| type | threat (facing N) | cover | shift range | special |
|---|---|---|---|---|
| Sai | (0,-1) | (-1,0), (1,0) | 2 | after being deployed may shift at once, before captures |
| Sword | the 8 neighbours | - | 2 | |
| Bow | (0,-2), (0,-3), (0,-4) (not blocked) | - | 2 | |
| Lotus | - | its 3x3 block (own square too) | 0 | deploys on any empty square (black too) if opponent threat <= 2; never scores |
| Air | the 8 knight jumps | - | 0 | |
| Fire | (-2..2,-2), (-1..1,-1), (0,0) | - | 2 | its threat counts against both players' tiles, itself included |
| Earth | (0,+-1), (0,+-2), (+-1,0), (+-2,0) | - | 1 | |
| Water | the 4 diagonal neighbours | the 4 orthogonal neighbours | 2 | may redeploy instead of shifting |

**Threat, cover, capture.** T_p(s) = number of p's non-Fire tiles threatening s plus the number of Fire
tiles of either player threatening s. C_p(s) = 1 if s is in p's homeground or covered by any of p's
tiles, else 0 (cover is not cumulative). A tile of p on s is capturable when T_opp(s) - C_p(s) >= 2.

**Draft.** White takes 7 tiles of his choice from his reserve into his hand, then Black 9, then White 1.

**Turn.** One action, then captures:

1. *Draw*: 1 to 3 tiles of your choice from your reserve into your hand.
2. *Deploy*: a hand tile onto an empty square with any facing. Non-Lotus: not black, T_opp = 0 (raw),
   and in your homeground or T_own >= 1. Lotus: any empty square, black ones included, T_opp <= 2. A
   deployed Sai may then shift at once (or stay).
3. *Shift*: one of your board tiles (Sai, Sword, Bow, Fire, Water: up to 2 orthogonal steps; Earth 1;
   Lotus and Air never) through empty, non-black squares each safe for it (T_opp + [it is Fire] - C_own < 2,
   computed without it on its origin), then any facing; staying put must change the facing. A Water may
   instead be redeployed by the deploy rule (its own threat from where it stands counts).
4. No action may leave one of your own tiles capturable (checked right after the action, before
   captures). A player may not move (shift or redeploy) the same tile on 4 consecutive own turns.
5. *Captures*: the opponent's capturable tiles are removed, non-Fire ones first one by one (after each one
   that had cover, Sai/Water/Lotus, the capturable set is recomputed), the capturable Fire tiles last. For
   each captured tile its owner loses its points, his lost-tile count grows by 1, and he chooses one tile
   of the capturer's reserve that goes to the capturer's hand (none while that reserve is empty).

**Score.** Each non-Lotus tile on the board gives its owner 0 (own homeground), 1 (middleground) or 2
(opponent's homeground). **End** (checked after each complete turn, gifts included): a player with >= 10
points wins; otherwise, if both players have lost >= 13 tiles and both have <= 5 points, the game is a draw.

## Options

| option | default | allowed | meaning |
|---|---|---|---|
| `num_players` | 2 | 2 | Paikō is a two-player game |
| `max_turns` | 300 | an int in 1..1073741823 (2**30 - 1) | complete turns (both players, draft not counted), then a draw |

## Actions

A move is a short sequence of decisions by the same player; every mask is exact (a choice is offered only
if it can be completed into a legal action).

| id | name | when |
|---|---|---|
| 0-7 | `draft T` / `draw T` | a draft pick; a pick of a draw (T in the order Sai, Sword, Bow, Lotus, Air, Fire, Earth, Water) |
| 8 | `stop drawing` | after 1 or 2 drawn tiles (a draw ends by itself after 3, or when the reserve is empty) |
| 9-16 | `deploy T` | turn start: deploy a hand tile of type T; then a square, then a facing |
| 17-24 | `give T` | the captured owner, once per captured tile: a T from the capturer's reserve to the capturer's hand |
| 25-136 | `move T (x,y)`, `T at (x,y)`, `T to (x,y)` | square i (row by row): tile to move, deploy target, destination |
| 137-140 | `face N` / `face E` / `face S` / `face W` | the facing of a deployed or moved tile |
| 141 | `Sai stays` | the just-deployed Sai does not shift |
| 142 | `pass` | only when nothing else is legal (empty reserve, nothing to deploy or move) |

A deploy is `deploy T`, `T at (x,y)`, `face F` (and for a Sai, `Sai stays` or `Sai to (x,y)`, `face F`).
A shift or a Water redeploy is `move T (x,y)`, `T to (x,y)`, `face F`. A draw is `draw T` up to three
times, or fewer then `stop drawing`. The gift decision belongs to the captured owner and is taken in the
middle of the capturer's turn: `current_player()` and the AEC `agent_selection` switch to him.

## Observation

Everything in Paikō is public (the hands too: every draw is made from a public reserve and announced). Both
ids observe the same values, float32 in [0, 1], "own" being the observing seat (the board itself is not
turned); they differ in the layout only (`tests/test_paiko_v1.py` rebuilds v0's observation from v1's on
every node of random games).

**`paiko-v1`**: one vector of 4,375 entries (17.5 KB): 14x14 planes one after the other, each indexed
`[y, x]` (so the first 4,312 entries are `(22, 14, 14)` planes, channels first), holding only what is about
one square (zero off the 112 squares), then the 63 values that are about no square, once each. A tile is
three ones on its square: its type, its owner (own or opponent) and its facing (v0's own tile channel
`type*4 + facing` is `tiles[type] * owner[0] * facing[facing]`). Beside v0 it leaves out the four planes that never
change (the squares, the black squares, the two homegrounds: see "Rules as implemented"; `observer` says
which homeground is own) and gives the other whole-plane values once instead of on all 196 cells. The
batched environments update it where it changed (`kernel_v1.observation_update`), the own and opponent's
planes trading places when the seat to move changes. A convolutional policy reads
`obs[:4312].reshape(22, 14, 14)` (PyTorch's layout) beside `obs[4312:]`. It is one `Box`, not a `Dict` of
board and vector, because every id's observation is one `Box` (`GameInfo` has one shape and dtype, which the
AEC environment, `gameshelf.vector`'s buffer, the single-seat and SB3 wrappers and saved models read); and
`float32` in [0, 1] because some values are fractions (turn / max_turns) and v0's entries are kept exactly.

{observation_table_v1}

**`paiko-v0`**: 14x14 planes indexed `[y, x, channel]` (107 KB); the values that are not about a square
fill a whole plane.

{observation_table}

## Rewards

At the end only: the winner +1, the loser -1, a draw 0 each (`rank_returns`). `scores()` is the current
score of each seat (`reward="score"` adds its changes).

## Chance and hidden information

None.

## Position builder

`state.position()` gives a JSON-able dict; `game.state_from_position(d)` rebuilds and validates it
(`ValueError` naming the problem). Keys: `phase` (`draft`, `start`, `draw_more`, `deploy_square`,
`deploy_facing`, `sai_shift`, `sai_facing`, `move_destination`, `move_facing`, `gift`, `over`),
`to_move` (the seat whose turn it is; in a gift phase the captured owner decides), `tiles` (list of
`[x, y, owner, type name, facing]`), `reserve`, `hand` (two lists of 8 counts in type order), `lost`
(two ints; must equal the tiles missing from board, reserve and hand), `score` (optional, checked),
`turn`, `passes` (1 if the previous turn was a pass, 2 once two passes ended the game), `repeat` (per seat
`null` or `[x, y, count]`: the tile moved on that seat's last turn and on how many consecutive own turns),
`draft_step`, `draft_left` (draft only: outside it, left out or their neutral values 3 and 0), `picks`
(tiles drawn this turn, phase `draw_more`),
`selected_type`, `selected_square`, `destination` (`[x, y]` or null, as the phase needs), `gifts` (gifts
still owed: at most the tiles in the capturer's reserve), `winner`, `end` (phase `over` only: before it,
left out or -1 and ""). The built state has an empty
history. Positions the rules cannot reach are refused:

* a tile capturable between turns, during the gifts or at the end (after a Sai deploy only the
  opponent's tiles may be, their capture comes after the Sai's shift);
* a game that goes on although an end test already held after a turn: a player with 10+ points, both
  players with 13+ lost tiles and 5 points or fewer, two passes in a row, `turn` at `max_turns`. The
  tests run after the complete turn, gifts included, so only the mover may hold 10+ points (and the
  lost-tiles draw may hold) mid-turn: in phases `sai_shift` and `sai_facing` (the deployed Sai already
  scores) or `gift`;
* a finished game whose `end` is not the first end test that holds (points, lost tiles, passes,
  turns), or whose winner is not the last mover with 10+ points.

## Readings of the spec

* The captured owner's gift is his own decision (agent selection follows it). All captures of the turn
  are removed first, then he makes one gift decision per captured tile; a gift is skipped when the
  capturer's reserve is empty, so he owes min(captured tiles, tiles in that reserve) gifts (the number
  `gifts`, shown in the observation and the position). (The result is the same as interleaving removal
  and gift.)
* A shift and a Water redeploy to the same square with the same facing end in the same position: they
  are one action (`Water to (x,y)`), offered when either rule allows it.
* Shift paths: a path may turn, and may come back through the origin (empty while the tile moves); the
  origin itself is reached with 0 steps and then only a change of facing is allowed. The safety test of a
  path square is the one stated (own cover subtracted once).
* A Sai's shift right after its deploy: the deploy resets the repetition count, the shift sets it to 1 for
  that Sai; the shift may be a rotation in place (facing must change). A Sai that stays: the count is 0.
* Repetition: tracked by the square of the tile moved last; a draw, a deploy (the Sai case above), a pass
  or moving another tile resets it. The fourth consecutive own-turn move of the same tile is not offered.
* Capture order: non-Fire tiles in square order (row by row), each one that had cover triggering a
  recomputation (newly capturable tiles, Fire included, join the set); Fire tiles last; a tile once in the
  set is always removed (also one that was capturable only through its owner's own Fire).
* No legal action (empty reserve, nothing deployable or movable): the player passes (PROPOSED); two
  passes in a row end the game as a draw (nothing can change any more).
* `max_turns` (default 300 complete turns, both players counted) ends the game as a draw: a truncation
  safety net of ours; the rules have no limit.
* The win test looks at both players after the turn (only the mover can reach 10); the win is tested
  before the 13-lost-tiles draw.

## State row

The kernel's state row (`kernel.ROW`, `int16`): what `gameshelf.vector` batches and a `PaikoState`
views. Positions that do not fit a field's range are refused by the field's name.

{row_table}

## Version history

* v1: the compact observation above (the same rules, actions and rewards).
* v0: first version.
"""

from gameshelf.envs.paiko.kernel import ROW
from gameshelf.envs.paiko.observation import LAYOUT, LAYOUT_V1

__doc__ = (
    (__doc__ or "")
    .replace("{observation_table_v1}", LAYOUT_V1.table())
    .replace("{observation_table}", LAYOUT.table())
    .replace("{row_table}", ROW.table())
)
