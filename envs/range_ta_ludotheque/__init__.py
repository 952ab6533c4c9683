"""Range Ta Ludothèque ("organise your game collection"): roll and write for 1 to 8 players. Three shared
dice each round give a game box (shape, category, mechanism) that every player draws in the Kallax shelf
of their own sheet; after 12 rounds, groups (Classic) or per-game bonuses (Expert) score, empty squares
cost a point each.

Rules for users: `docs/rules/range_ta_ludotheque.md`. The rules are compiled kernels,
`envs/range_ta_ludotheque/kernel.py` (placement, masks, the turn, the odds of the dice, scoring, returns,
observation, over one `int16` state row per game, declared once: see "State row"); `game.py` is the
engine's API over that row (options, text, names, positions, the redeal of hidden choices); tables and
geometry: `board.py`; action encoding: `actions.py`; scoring as pure functions (calling the kernels):
`scoring.py`; observation layout: `observation.py`; picture: `render.py`.

| | |
|---|---|
| id | `range_ta_ludotheque-v0` |
| agents | `player_0` ... `player_{N-1}`, N = 1 to 8 (default 2) |
| action space | `Discrete(7·S + 1)`, S = squares of the sheet (default 36: `Discrete(253)`) |
| observation | `Dict(observation=Box(0, 1, (6, 6, 169), float32), action_mask=Box(0, 1, (253,), int8))` (default sheet) |
| chance / hidden information | yes (three dice each round) / yes with 2+ players (this round's choices until the round ends) |
| import | `gameshelf.make("range_ta_ludotheque-v0", num_players=4)` |
| compiled rules | `envs/range_ta_ludotheque/kernel.py`; batched: `gameshelf.vector.make("range_ta_ludotheque-v0", num_envs=N)` |

The kernels compile on first use, not on import: 10 to 12 CPU-seconds on the 2-core development machine
(35 to 50 s of wall time there under load), AEC environment, engine and batched drivers together; numba
caches them on disk (`gameshelf.envs.core.kernel.cache_dir()`), so later processes load them in under a
second (0.8 s).
Every player count (1 to 8) and every option runs on the same compiled kernels: the options and the sheet
geometry are in the row.
Batched, a solo game's observation is updated in place where it changes (`kernel.observation_update`); with
2+ players each decision observes another seat, and the observation is written whole.

## Rules as implemented

The sheet is a Kallax of `comp_rows × comp_cols` compartments of `comp_h × comp_w` squares (default 2×2
compartments of 3×3: a 6×6 grid, rows 0-5 top to bottom, columns 0-5). The bottom row of each compartment
is its floor. Each of the 12 rounds: three dice are rolled (one chance node, shared by all), then every
player in seat order chooses, for their own sheet only:

* a **box**: one die gives the size/shape (1: 1×2 vertical, 2: 2×1 horizontal, 3: 1×3 vertical, 4: 3×1
  horizontal, 5: 2×3 vertical, 6: 3×2 horizontal, width × height), one the category (1 T Puzzle, 2 A
  Dexterity, 3 C Card game, 4 P Board game, 5 F Miniatures, 6 R Roleplaying), one the mechanism (1
  Bluffing, 2 Deduction, 3 Deckbuilding, 4 Programming, 5 Memory, 6 Secret Roles), in any assignment. The
  box lies inside one compartment, on empty squares, with its bottom row on the compartment floor or with
  every square under its bottom row filled (box or playmat);
* a **playmat**: one square, same placement rules; not a game. With `playmat_only_if_no_box=True` it is
  allowed only when no assignment of the dice gives a legal box;
* **pass**, only when the sheet is full.

Players never interact: a choice changes nothing for the others. After round 12:

* **Classic**: for each of the 6 categories and each of the 6 mechanisms, the largest group of games with
  it connected by shared edges scores 1 per game if it has at least 2 games; −1 per empty square.
* **Expert**: per game, a category bonus (T: +1 per game of its compartment if no two games there share
  a category or a mechanism; A: +2 if its bottom row is not the floor; C: +1 per card game in its
  compartment; P: +1 if horizontal; F: +1 if 6 squares; R: +1 if vertical) plus a mechanism bonus
  (Bluffing: +1 per adjacent game sharing its category or mechanism; Deduction: +1 if 2 squares;
  Deckbuilding: +1 per other game of its compartment that is not Deckbuilding; Programming: +1 per
  adjacent Programming game; Memory: +min(3, Memory games on the sheet); Secret Roles: +5 if it is the
  only one); +2 per game in each completely filled compartment; −1 per empty square.

Highest score wins; tie-break fewest empty squares; then shared.

## Options

| name | default | allowed | meaning |
|---|---|---|---|
| `num_players` | 2 | 1-8 | number of players (1 = solitaire) |
| `scoring` | `"classic"` | `"classic"`, `"expert"` | scoring mode |
| `playmat_only_if_no_box` | True | True, False | a playmat only when no box fits (False: any time) |
| `walls_block_adjacency` | False | False, True | games on either side of a compartment wall are not adjacent |
| `comp_rows`, `comp_cols` | 2, 2 | 1-4 | compartments of the Kallax, top to bottom / left to right |
| `comp_h`, `comp_w` | 3, 3 | 3-6 | squares of a compartment, top to bottom / left to right |

The geometry options change the action space and the observation's height and width.

## Actions

S = squares of the sheet (`rows × cols`), a square's index is `row · cols + col`. The dice are kept sorted
ascending, `d0 ≤ d1 ≤ d2`, and the six assignments are numbered by the permutations of (0, 1, 2) in
lexicographic order: `p = 0: (0,1,2), 1: (0,2,1), 2: (1,0,2), 3: (1,2,0), 4: (2,0,1), 5: (2,1,0)`,
`(i, j, k)` meaning size `d_i`, category `d_j`, mechanism `d_k`.

| action | meaning | name |
|---|---|---|
| `p · S + sq`, p = 0..5 | box of assignment `p`, top-left square `sq` | `box 6 P Deduction r4c0` |
| `6 · S + sq` | playmat on `sq` | `playmat r0c2` |
| `7 · S` | pass (full sheet only) | `pass` |

The mask is exact: a box action is legal iff the box fits there, and, when two assignments give the same
box (equal dice), only the lowest permutation is legal, so that every legal action is a different move.
Chance outcome `i` (0..55) is the sorted roll `board.ROLLS[i]` with probability (arrangements)/216
(`roll 3,3,6`). `game.string_to_action` reads the names (case-insensitive) and action numbers.

## Observation

Board planes `(rows, cols, 169)`, float32 in [0, 1]; whole-sheet facts (dice, round, seats, options) are
constant planes. Seats are egocentric: slot 0 is the observing seat, then the following seats in turn
order; slots of absent seats (N < 8) are zero. Another seat's sheet shows only the placements of finished
rounds: what it chose this round appears when the round ends (the `chosen` piece says who has chosen).

{observation_table}

## Rewards

* 2+ players: `returns()` is zeros until the end, then `rank_returns` of (score, −empty squares): +1
  first, −1 last, linear in between, full ties shared.
* Solo: `returns()` is zeros until the end, then the final score scaled linearly into [−1, 1]:
  `−1 + 2 (score − low) / (high − low)`, with the bounds of `scoring.score_bounds` (default sheet: Classic
  low −24, high 24; Expert low −24, high 204). Low: every round fills at least one square. High: at most
  `G = min(12, S/2)` games; Classic ≤ 2G (each game is in at most one category and one mechanism group);
  Expert ≤ G × (max(2, g) + max(5, G − 1, g − 1) + 2), g = games a compartment can hold.
* `scores()` (used by `reward="score"`): the score as it grows, from the public sheets: points (groups or
  bonuses) − empty squares × rounds finished / 12. It is 0 at the start and exactly the final score
  after round 12; this round's choices count when the round ends.

## Hidden information

With 2+ players, the choices made this round by the seats before the player to choose are hidden from
the other seats until the round ends. `resample_hidden(seat, rng)` redraws each such choice of another
seat, independently and uniformly among that seat's legal moves with this round's dice, and keeps
everything else (finished rounds, the dice, the seat's own choice). Since these hidden facts are choices,
the resampled `history` differs from the true one exactly at those choices: they are rewritten there, so
the result replays from its history.

## Position builder

`state.position()` / `game.state_from_position(position)` use three keys:

| key | value |
|---|---|
| `round` | current round 1..12, or 13 when the game is over |
| `dice` | this round's three dice (any order), or `null` before the roll (and at the end) |
| `sheets` | one list of moves per seat, in order, named as above (`"box 6 P Deduction r4c0"`, `"playmat r0c2"`, `"pass"`) |

Each seat has `round − 1` moves, plus this round's move for the seats that already chose (seats 0..k−1,
k < N; this needs `dice`).

Every move is replayed and checked (on the sheet, one compartment, empty squares, supported; pass only on
a full sheet); this round's moves are checked against the dice and the playmat option too. Earlier
rounds' dice are not part of a position, so an earlier playmat is not checked against them. Errors raise
`ValueError` naming the seat and the move.

## Readings of the spec

* The sheet geometry is not in the available text: 2×2 compartments of 3×3 squares by default, each with
  its own floor (its bottom row); other shapes by option (compartments at least 3×3 so every box fits).
* "Rests completely on top of previously drawn boxes/playmats": every square directly below the box's
  bottom row is filled; a box on the floor needs nothing. So filled squares always stack up from each
  compartment floor, and a playmat fits while any square is empty.
* Playmat: the heading says "if you cannot place a box", the text "instead of placing a box": default
  `playmat_only_if_no_box=True` (the heading), option False for the other reading.
* A full sheet: the player passes (the only legal action).
* Choices are simultaneous in the real game; here seats choose in seat order, each seeing only the
  finished rounds of the others (they cannot interact anyway).
* Adjacency: two games are adjacent if they share an edge of squares; through compartment walls by
  default (`walls_block_adjacency=False`).
* Expert: T counts the games of its compartment itself included and scores 0 if any two games there
  share a category or a mechanism (so two Puzzles in one compartment score 0); A "does not touch the
  bottom shelf" = its bottom row is not its compartment's floor; C and Memory count themselves;
  Bluffing, Deckbuilding and Programming count the other games; "shares at least one thing in common"
  = same category or same mechanism.
* Ties: fewest empty squares, then shared. Players 1-8.

## State row

The kernel's state row (``kernel.ROW``, ``int16``): what ``gameshelf.vector`` batches and a
``RangeTaLudothequeState`` views. Positions and options that do not fit a field's range are refused by the
field's name.

{row_table}

## Version history

* v0: first version.
"""

from gameshelf.envs.range_ta_ludotheque.kernel import ROW
from gameshelf.envs.range_ta_ludotheque.observation import LAYOUT

__doc__ = (__doc__ or "").replace("{observation_table}", LAYOUT.table()).replace("{row_table}", ROW.table())
