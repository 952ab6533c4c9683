"""Tsukuru 10 Ten (ツクル10テン, "Make 10 Marten"): a mahjong-like race to a hand worth exactly 10.

| | |
|---|---|
| id | `tsukuru_ten_ten-v0` |
| agents | `player_0` ... `player_{n-1}`, n = 2 (default), 3 or 4 |
| action space | `Discrete(597)` |
| observation | `Dict(observation=Box(0, 1, (2467,), float32), action_mask=Box(0, 1, (597,), int8))` |
| import | `gameshelf.make("tsukuru_ten_ten-v0")`, engine `gameshelf.envs.tsukuru_ten_ten.game.TsukuruTenTenGame` |
| rules | `docs/rules/tsukuru_ten_ten.md` |
| compiled rules | `envs/tsukuru_ten_ten/kernel.py`; batched: `gameshelf.vector.make("tsukuru_ten_ten-v0", num_envs=N)` |

## Rules as implemented

**Tiles** (61): blue 1-7 ×4, red 1-7 ×4, red 0 ×1, purple ("Marten") 5, 6, 7, 8 ×1. Purple is wild in
colour: it counts as red or blue.

**Round**: the first dealer is a uniform chance node; afterwards the seat after the dealer (clockwise,
increasing index) deals the next round, after every round. The 61 tiles are shuffled and 7 are dealt
to each seat, one at a time starting with the dealer; the rest is the face-down deck. The dealer plays
first, then clockwise. On his turn a player (always 7 tiles: concealed + open sets) either

1. **draws** the top deck tile; with 8 tiles he may **finish** if they form a winning hand, otherwise
   (or if he prefers) he discards one tile (any, the drawn one included) onto his face-up pile;
2. **gets** a claimable discard: he takes it with 2 concealed tiles that form a set with it; the three
   are revealed as an open set (fixed for the rest of the round); then he discards one tile;
3. **finishes from a discard**: he takes a claimable discard and reveals a winning hand with it.

A *claimable discard* is an opponent's most recent discard while it is still on top of his pile
(`claim_from="any_opponent"`), or only the previous player's (`claim_from="previous_player"`). If the deck
is empty at the start of a turn the player may still get or finish from a discard; otherwise he ends
the round (no score). After a get he must discard (finishing needs the finish-from-discard action).

**Sets** (3 tiles of one colour, purples taking the set's colour): 3 consecutive values (blue: worth the
lowest; red: worth the highest; red 0-1-2 is worth 2; purple 8 makes blue or red 6-7-8), or 3 equal
values (worth 0). An all-purple run can be either colour; for an open one the player chooses the colour
at once (a separate decision).

**Winning hand**: the 8 tiles are worth exactly 10 = open set values + values of 0-2 disjoint sets chosen
among the concealed tiles (at most 2 sets in all) + face values of the other tiles. The engine looks
for such a configuration (the kernels; `hand.winning_configurations` lists them readably); finishing is
offered exactly when one exists.

**Basic scoring** (`scoring="basic"`): a win scores 1 point; the first to 4 points wins.

**Advanced scoring** (`scoring="advanced"`): base 3 points for the dealer, 2 otherwise, plus every bonus
below; the engine picks the configuration and the colours of free purples that score most. Purples in
sets take the set's colour. A *group* is the tiles of one colour and value; t3 / t4 = groups of exactly 3 /
at least 4 tiles. The first to 25 points wins.

| bonus | points | condition |
|---|---|---|
| Closed | 1 | no open set |
| No Ones | 1 | no tile of value 1 |
| Half Color | 1 | 4 red and 4 blue tiles |
| Seven | 1 | a tile of value 7 |
| Straight | 1 | 5 tiles of one colour with 5 consecutive values |
| Two Blues | 1 | exactly 2 blue tiles |
| Under Five | 2 | every tile ≤ 4 |
| Single Color | 2, red 3 | all 8 tiles one colour |
| Eight | 2 | the purple 8 is in the hand |
| Heaven | 3 | finished on one's first turn of the round after drawing |
| God Ten | 25 | all 8 tiles of one value |
| Double Four | 10 | t4 = 2 (size class: the first that applies of these five) |
| Multi | 5 | t4 = 1 and t3 ≥ 1 |
| Double Three | 3, +1 | t3 = 2 (+1 if both triples have the same value) |
| Single Four | 2 | t4 = 1 |
| Single Three | 1 | t3 = 1 |

**End**: `game_end="points"`: the first to reach the target (4 basic, 25 advanced) after a round wins.
`game_end="dealer_twice"`: also ends once every player has dealt two rounds (2n rounds), highest total.
Final ranking by points; equal points share their places.

## Options

| option | default | allowed | meaning |
|---|---|---|---|
| `num_players` | 2 | 2, 3, 4 | players |
| `scoring` | `"basic"` | `"basic"`, `"advanced"` | 1 point per win, to 4; or base + bonuses, to 25 |
| `claim_from` | `"any_opponent"` | `"any_opponent"`, `"previous_player"` | whose last discard may be taken |
| `game_end` | `"points"` | `"points"`, `"dealer_twice"` | also end after every player dealt twice |

## Actions

Opponents are named by their offset o from the acting seat (1 = next seat clockwise). Tile kinds k:
B1-B7 = 0-6, R0-R7 = 7-14, P5-P8 = 15-18. Pairs p enumerate kind pairs (a, b), a ≤ b, in order
(0,0), (0,1), ..., (0,18), (1,1), ... (190 pairs).

| id | name | meaning |
|---|---|---|
| 0 | `draw` | take the top deck tile |
| 1 | `end round (deck empty)` | the deck is empty: the round ends, nobody scores |
| 2 | `finish` | after a draw: reveal the 8 tiles (a winning hand) |
| 3-5 = 3 + o - 1 | `finish with R5 from seat 1` | take opponent o's claimable discard and finish |
| 6-24 = 6 + k | `discard B3` | discard one tile of kind k |
| 25, 26 | `colour blue`, `colour red` | colour of the all-purple open set just revealed |
| 27-596 = 27 + 190 (o - 1) + p | `get R5 from seat 1 with R4+R6` | take opponent o's claimable discard, open it with pair p |

Masks are exact. `game.string_to_action(state, text)` parses these names (and action numbers). Chance
outcomes: `first dealer: seat s` (1/n each), `deal B3 to seat s` and `seat s draws B3` (outcome = tile
kind, probability = its copies in the deck / deck size).

## Observation

One flat `float32` vector in [0, 1] (`gameshelf.envs.tsukuru_ten_ten.observation.LAYOUT`). "Ego" seats:
the observer first, then clockwise, padded to 4 seats (the same shape for every player count).

{observation_table}

## Rewards

Zero until the game ends; then `rank_returns` of the final points (first +1, last -1, linear between,
equal points share). `scores()`: each seat's points (so `reward="score"` also pays each win's points).

## Chance and hidden information

The engine draws no random numbers. Concealed hands and the deck are hidden; discard piles (in order),
open sets, tiles left in the deck, the scores and the dealer are public. `resample_hidden(seat, rng)`
keeps the seat's own hand and everything public (once the game is over, also the last winner's hand,
which he showed) and redeals the other concealed hands (same sizes) and the deck from a uniform shuffle
of the tiles the seat cannot see, during a deal too. `history` is rewritten to match
(`envs/tsukuru_ten_ten/resample.py`): in every round, the other seats' hands at the round's end are
redealt the same way, and their dealt and drawn tiles are replaced by tiles walked back from those hands
through the round (a tile discarded or opened is one the seat held then), so every discard and get stays
legal and the history replays to the redealt state. The seat's own dealt and drawn tiles, and the draw
a player finished with (it is named), are kept; player decisions are never changed.

## Position builder

`state.position()` gives a plain dict, `game.state_from_position(d)` a validated state
(`ValueError` naming the problem). Tiles are written `B1`..`B7`, `R0`..`R7`, `P5`..`P8`. Keys:

| key | meaning |
|---|---|
| `phase` | `first_dealer`, `deal`, `turn`, `draw` (a draw is being resolved), `discard`, `colour`, `over` |
| `dealer`, `turn` | the round's dealer; the seat to act (or drawing); -1 where none |
| `hands` | per seat, its concealed tiles |
| `open_sets` | per seat, a list of `{"tiles": [3 tiles], "colour": "blue" or "red"}` |
| `pending` | `colour` phase: the three purple tiles whose colour is being chosen; else null |
| `discards` | per seat, its pile from bottom to top |
| `claimable` | per seat, whether the top of its pile is its most recent discard |
| `deck` | the undrawn tiles (any order: draws are random) |
| `drawn` | the tile the player to act drew this turn (`discard` phase after a draw), else null |
| `scores`, `dealer_counts`, `turns_taken` | per seat: points, rounds dealt (current included), turns started this round |
| `rounds_played`, `last_round` | finished rounds; the text line about the previous round |

Checks: 61 tiles in all with the right copies, 7 tiles per seat (8 for a seat discarding or choosing a
colour), valid open sets (at most 2 per seat), deal order during a deal, a non-empty deck for a draw,
counters consistent with the phase.

## Readings of the spec

* Claimable discard: an opponent's most recent discard still on top of his pile (spec PROPOSED);
  `claim_from="previous_player"` is the stricter alternative.
* Empty deck (not in the rules): the player may still get / finish from a discard; otherwise the round
  ends with no score and the deal passes on (spec PROPOSED).
* After a get the player must discard; he cannot finish with the 8 tiles (finishing from a discard is
  its own action).
* The engine chooses the winning configuration and the colours of free purples that score most (the
  player chooses in the real game). With basic scoring any configuration scores the same.
* Size class: t3 counts groups of exactly 3, t4 groups of 4 or more (a blue or red group can reach 5 with
  a purple). "Under Five" is every tile ≤ 4 (the source prints a template glitch).
* Heaven: the finishing turn is the player's first turn of the round and he drew.
* `game_end="dealer_twice"` still ends early when a player reaches the target. The source offers it with
  advanced scoring; it is also allowed with basic scoring.
* Ties in the final points share their places. Only the winner of a round scores, so two players never
  reach the target in the same round.
* The rules do not bound the game length (rounds ending on an empty deck score nothing): random games
  take about 900-1300 decisions; `max_game_length` = 20000 is a truncation limit.
* At most two open sets per seat follows from the hand size (a get needs 2 concealed tiles).

## Compiled rules

The rules are compiled kernels over one `int16` state row (`envs/tsukuru_ten_ten/kernel.py`, layout below):
legality, masks, every step, the odds of each chance node, the scoring of a win, returns and observations.
`game.py` keeps what is not a rule step in Python over that row (text, move names, positions, and the
`last_round` line, written with `hand.score_win` from the end of the previous round that the kernels record in
the row, so a batch's row view reads the same line as a State), `resample.py` redeals hidden tiles in Python
over the row, and `hand.py` stays the readable hand evaluation (the text, the heuristic agent and the tests use
it; a property test checks that it finds the same winning hands and the same points as the kernels). The id is
batched: `gameshelf.vector.make("tsukuru_ten_ten-v0", num_envs=N, ...)` steps N games per call, every
player count and option included. Importing `gameshelf` compiles nothing: the first use of the game
compiles its kernels, about 10 CPU-seconds on a 2-core machine (once after an install or an edit of
`kernel.py`); later processes load numba's cache in about 0.2 s.

## State row

The kernel's state row (`kernel.ROW`, `int16`): what `gameshelf.vector` batches and a
`TsukuruTenTenState` views. Positions and options that do not fit a field's range are refused by the
field's name.

{row_table}

## Version history

* v0: first version.
"""

from gameshelf.envs.tsukuru_ten_ten.kernel import ROW
from gameshelf.envs.tsukuru_ten_ten.observation import LAYOUT

__doc__ = (__doc__ or "").replace("{observation_table}", LAYOUT.table()).replace("{row_table}", ROW.table())
