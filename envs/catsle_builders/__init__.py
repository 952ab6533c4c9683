"""CATsle Builders: trick taking to fill the columns of a castle blueprint without passing their limits.

| | |
|---|---|
| id | `catsle_builders-v0` |
| agents | `player_0` ... `player_{n-1}`, n = 3, 4 (default) or 5 |
| action space | `Discrete(125)` |
| observation | `Dict(observation=Box(0, 1, (829,), float32), action_mask=Box(0, 1, (125,), int8))` |
| import | `gameshelf.make("catsle_builders-v0", num_players=4)` |
| engine | `gameshelf.envs.catsle_builders.game.CatsleGame` |
| compiled rules | `envs/catsle_builders/kernel.py`; batched: `gameshelf.vector.make("catsle_builders-v0", num_envs=N)` |
| rules | `docs/rules/catsle_builders.md` |

The rules are compiled kernels (numba) over one `int16` state row, written once in
`envs/catsle_builders/kernel.py` (the row's layout is tabled there); `CatsleState` is a view over that row
and keeps in Python only chance outcomes, text, move names, positions and `resample_hidden`. The same
kernels step N games at once in `gameshelf.vector.make("catsle_builders-v0", num_envs=N, num_players=n)`
and play MCTS's random rollouts. Importing `gameshelf` compiles nothing: the first use of the game
compiles its kernels and the first batched step or rollout the drivers (measured with an empty cache on
a 2-core machine: 6 CPU-seconds for the kernels, 4 more for the drivers; 25 s and 17 s of wall time
there under heavy load). numba caches them on disk (`gameshelf.envs.core.kernel.cache_dir()`), so later
processes load them in under a second.

## Rules as implemented

60 cards: 5 suits (Walls, Gables, Gates, Bridges, Moats) × values 1-12; at 3 players the 12 Moats are
removed (48 cards). Every player has a board of columns with limits 1, 2, 3, 4 (option `column_limits`);
with 4-5 players a fifth column of limit 0 is added. Three rounds; each round all cards are shuffled and
11 (3 players), 14 (4 players) or 12 (5 players) are dealt to each player; the others are out of the round.
Round 1's first leader is drawn at random; round r+1 is led first by the seat after round r's first leader.

A trick: the leader plays any card, then the others in seat order; a player must play a card of the led
suit if he has one, else any card. Rating: cards of the led suit rank above all others, by value; the
other cards rank below them by value, and of two such cards of equal value the one played later ranks
higher. Then, in rating order, the 1st takes 1 card and the 2nd takes 2 (3-4 players), or 1st 1, 2nd 1,
3rd 2 (5 players), each choosing freely among the cards still in the trick (his own included). Each
taken card goes at once to a column of the taker's board: the column already holding its suit, else any
empty column (the limit-0 column included). Cards left in the trick are discarded (1 per trick at 4 and 5
players, none at 3). The player who took 2 cards leads the next trick. The round ends when the hands are
empty.

Round score of a board: each column with limit L and n cards scores n when n <= L, else -(n - L) (the
cards beyond the limit lie "sideways"); a column is perfect when n = L > 0; the perfect bonus for 0/1/2/3/4
perfect columns is 0/0/1/2/4; the sum is floored at 0. Boards are cleared after each round. After round
3 the highest total wins; ties go to the most perfect columns in round 3's scoring; a tie on both is
shared.

## Options

| option | default | allowed | meaning |
|---|---|---|---|
| `num_players` | 4 | 4, 3, 5 | number of players |
| `column_limits` | `(1, 2, 3, 4)` | 4 integers 0..12 | limits of the 4 ordinary columns (4-5 players: a 5th of limit 0 follows) |

## Actions

| id | name | meaning |
|---|---|---|
| `c` = suit × 12 + value − 1 (0-59) | `play Walls 5` | play card `c` (suits: 0 Walls, 1 Gables, 2 Gates, 3 Bridges, 4 Moats) |
| 60 + `c` (60-119) | `take Walls 5` | take card `c` from the trick |
| 120 + k (120-124) | `place in column k+1 (limit L)` | put the taken card in column k (column 5 is the limit-0 column) |

Masks are exact. A take decision is asked only when the taker has a choice: when he must take every card
left in the trick (the 2nd player at 3 players) the cards are taken for him (lowest card first). A place
decision is asked only when more than one column is legal (a suit already on the board, or a single empty
column, is placed without a decision). Card plays are always asked, even when one card is legal.
Chance outcomes: `first leader: seat s` (s = 0..n−1, 1/n each) and `deal <card> to seat s` (outcome =
the card id, uniform over the cards not dealt yet); the k-th card of a deal goes to seat k mod n.
`game.string_to_action(state, text)` accepts the names above (case free) and plain action numbers.

## Observation

One flat `float32` vector in [0, 1] (`gameshelf.envs.catsle_builders.observation.LAYOUT`). "Ego" seats: the
observer first, then the others in seat order, padded to 5 seats.

{observation_table}

## Rewards

Zero until the game ends, then `rank_returns` over the keys (total score, perfect columns in round 3):
+1 for the winner, −1 for the last, linear in between, ties averaged. `scores()`: each seat's total of
the finished rounds (so `reward="score"` adds each round score as it is scored).

## Chance and hidden information

Hands are private; the trick, the boards, the discards and who showed a void (did not follow suit) are
public; the cards out of the round are seen by nobody. `resample_hidden(seat, rng)` keeps the seat's own
hand and everything public and redeals every other card (the other hands, and the cards out of the round
or still to deal) so that each hand keeps its size and holds no card of a suit its player showed he lacks.
Every consistent deal is equally likely: it first shuffles and deals uniformly and keeps the first of up
to 20 deals that respects the voids; if all 20 fail it deals card by card, each card to a hand with
probability proportional to the number of consistent deals of the remaining cards after it (counted
exactly). The round's deal in `history` is rewritten to match, so the result replays from its history.
`to_text()` is the public view; `seat_text(seat)` also shows that seat's hand. `render_image()` draws the
public view (`envs/catsle_builders/render.py`).

## Position builder

`state.position()` gives a JSON-able dict; `game.state_from_position(dict)` rebuilds a validated state
(with an empty `history`; `ValueError` names the problem). Cards are written by name (`"Walls 5"`).

| key | meaning |
|---|---|
| `num_players`, `column_limits` | must equal the game's options |
| `phase` | `"first"` (round 1 leader to draw), `"deal"`, `"play"`, `"take"`, `"place"` or `"over"` |
| `round` | 1..3 |
| `round_first` | the round's first leader (−1 in phase `"first"`) |
| `totals` | total score per seat (the sums of `round_scores`) |
| `round_scores` | one list of per-seat scores per finished round |
| `last_perfect` | perfect columns per seat in the latest round scoring (zeros before the first) |
| `hands` | per seat, its cards |
| `boards` | per seat, per column (limits order), the cards in the order they were placed |
| `discards` | cards discarded this round |
| `leader` | the seat that leads (led) the current trick |
| `trick` | the cards of the current trick in play order, the leader's first (taken ones included while it is taken) |
| `trick_left` | phases take/place: the cards not yet taken; else `null` |
| `pending` | phase place: the taken card to place (by the player to act); else `null` |
| `voids` | per seat, the suits it showed it lacks this round |

Checks include: every card at most once and in the deck of the player count; hand sizes fit the tricks
played (and the deal order in phase deal); discards and board cards fit the finished tricks; a column
holds one suit, a suit one column; an off-suit play in the trick needs a void in the led suit, and a void
seat holds no card of that suit; take/place positions name a decision that is really asked.

## State row

The kernel's state row (``kernel.ROW``, ``int16``): what ``gameshelf.vector`` batches and a ``CatsleState``
views. Positions and options that do not fit a field's range are refused by the field's name.

{row_table}

## Readings taken

* Column limits 1, 2, 3, 4 (the rules text gives none) plus the limit-0 column at 4-5 players; the same
  for every player.
* The latest text: an over-limit column scores minus its sideways cards (older texts said plus).
* Takers choose freely among the cards still in the trick, their own included; cards not taken are
  discarded; undealt cards are out of the round.
* A new suit may go into any empty column, the limit-0 column included. There are never more suits than
  columns, so a card always has a place.
* A tie on total and perfect columns in round 3 is shared (returns averaged).
* Forced take and place steps are applied by the engine (see Actions); plays are always decisions.
* After the game the last round's boards stay in place for display; between rounds they are cleared.

## Version history

* v0: first version.
"""

from gameshelf.envs.catsle_builders.kernel import ROW
from gameshelf.envs.catsle_builders.observation import LAYOUT

__doc__ = (__doc__ or "").replace("{observation_table}", LAYOUT.table()).replace("{row_table}", ROW.table())
