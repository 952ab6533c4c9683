"""Cargo Empire (Alexander Bogdanovsky & Pini Shekhter, Moaideas 2024): deliver cargo cubes between 12
European cities by truck, train and ship, spread trading posts, upgrade cities and climb three
development tracks. 1 to 5 players.

| | |
|---|---|
| id | `cargo_empire-v0` |
| agents | `player_0` ... `player_{N-1}`, N = 1 (solo) to 5 |
| action space | `Discrete(46)` |
| observation | `Dict(observation=Box(0, 1, (661,), float32), action_mask=Box(0, 1, (46,), int8))` |
| chance / hidden information | yes (every shuffle and draw) / yes with 2+ players (hands, private city cards, goals) |
| import | `gameshelf.make("cargo_empire-v0", num_players=3)`; engine `gameshelf.envs.cargo_empire.game.CargoEmpireGame` |
| compiled rules | `envs/cargo_empire/kernel.py`; batched: `gameshelf.vector.make("cargo_empire-v0", num_envs=N, num_players=3)` |
| rules | `docs/rules/cargo_empire.md` |

Modules: `data` (every component: map, tiles, decks, tracks, goals, counts), `routes` (pure route and
payment enumeration), `kernel` (the rules as compiled kernels over one `int16` state row: legal moves,
actions, chance odds and draws, scoring, returns, observation), `scoring` (the kernel's scoring as pure
functions of one player's board), `game` (the game and its state, a view over that row: text, move names,
positions), `hidden` (the redeal of hidden information), `actions`, `observation` (its layout), `position`
(position validation), `render`.

The rules run as numba kernels on every path (the AEC environment, the single-seat view, the engine API,
MCTS with compiled random playouts) and batched: `gameshelf.vector.make("cargo_empire-v0", num_envs=N)`
steps N games per call, at every player count. Importing `gameshelf` compiles nothing; the first use of the
game compiles its kernels (40 to 65 s measured on a busy 2-core machine) and caches them on disk (numba's cache,
in the user's cache folder), so later processes load them in about 2 s.

## Rules as implemented

Components (all in `data`, our proposed set where the published one is not known): 12 cities, 6 of them
ports (Lisbon, Marseille, London, Hamburg, Copenhagen, Rome), 16 railroad tracks; cubes in 4 colours
(Brown, White, Grey, Orange); 12 two-sided city tiles (production colour X; LV1 side: 2 cubes, demands a
pair of the other colours; LV2 side: 3 cubes, demands each other colour once); a transport deck of 24
Truck, 16 Train, 8 Ship; 12 city cards (one per city); 10 goal cards; three development tracks 0..12.

Setup: tiles shuffled onto the cities (LV1 side, 2 cubes); 4 city cards public, 8 in the city deck; each
player draws 5 transport cards and 1 goal; then each player gets 2 starting posts in the side areas of
distinct random cities. Each player's board holds 12 posts (9 with 5 players).

Play: 3 rounds; in each round the seats take turns 0, 1, ..., N-1, 0, ... for 4 turns each (3 with 5
players). After rounds 1 and 2 every player draws 3 transport cards. On a turn the player **passes**
(draws 2 transport cards, one post of his board goes back to the box) or makes a **delivery**:

1. start city S with an own post (demand space or side area) and at least one cube (colour X);
2. destination D != S with an empty demand space of colour X;
3. a payment over an allowed route (`routes`): a shortest route of G' (railroads plus a ship jump between
   any two ports), or a land-only route of the shortest land length; one Ship card per ship jump, each
   land segment split into legs of 1 edge (Truck or Train) or 2 edges (Train); the payment must be
   minimal (no proper sub-multiset pays the same route);
4. the cards are discarded, the cube leaves the game, an own post goes on D's demand space of colour X;
5. if that filled D's last demand space, D upgrades (Perfect Upgrade iff D has no cube left): every post
   on the tile moves to D's side area; LV1 flips to LV2 with 3 cubes, LV2 is removed (D is LV3: no cubes,
   no demands, never a start or destination again);
6. development: Truck +1 per Truck card, Train +1 per Train card, Ship +2 per Ship card; bonus moves:
   +1 if S's city card is public or one of the player's private cards, +1 likewise for D, +1 for a
   Perfect Upgrade; each bonus move goes to a vehicle paid with in this delivery. Markers stop at 12.
   Each space a marker enters (passing through counts) gives its reward once: 2 draw 1 transport card,
   4 draw a private city card, 6 draw 2 transport cards, 8 draw a goal, 10 draw a private city card.

End: after round 3 (every player is out of posts). Score: marker VP (0-3: 0, 4-6: 2, 7-9: 5, 10-11: 8,
12: 12) per track + 3 per own post at an LV3 city + 5 per private city card + the VP of each fulfilled
goal. Most VP wins; tie: more posts on the map; still tied: shared.

Goals: G1 posts in >= 3 port cities (5), G2 posts in >= 2 LV3 cities (6), G3 posts in >= 8 cities (6),
G4/G5/G6 Truck/Train/Ship marker >= 8 (4 each), G7 Lisbon + Copenhagen (5), G8 London + Warsaw (5),
G9 Rome + Hamburg (5), G10 caused >= 2 Perfect Upgrades (6).

## Options

| option | default | allowed | meaning |
|---|---|---|---|
| `num_players` | 2 | 1, 2, 3, 4, 5 | number of players (1 = solo) |

The specification declares no other option: every proposed component is data (`data`), not an option.

## Actions

| id | name | meaning |
|---|---|---|
| 0-11 | `start <city>` | begin a delivery from this city (Lisbon 0 ... Rome 11, order of `data.CITIES`) |
| 12 | `pass` | pass the turn |
| 13-24 | `to <city>` | destination of the delivery |
| 25-42 | `pay <cards>` | the payment, e.g. `pay 1 Truck + 1 Ship` (order of `routes.ALL_PAYMENTS`) |
| 43-45 | `bonus Truck`, `bonus Train`, `bonus Ship` | vehicle of the next bonus move |

Payments 25-42: 1 Ship, 1 Train, 1 Train + 1 Ship, 2 Train, 2 Train + 1 Ship, 3 Train, 1 Truck,
1 Truck + 1 Ship, 1 Truck + 1 Train, 1 Truck + 1 Train + 1 Ship, 1 Truck + 2 Train, 2 Truck,
2 Truck + 1 Ship, 2 Truck + 1 Train, 3 Truck, 3 Truck + 1 Train, 4 Truck, 5 Truck.

A delivery is a sequence of decisions by the same player, each with an exact mask: a start city is legal
only if some destination can be paid from the hand, a destination only if some legal payment is in the
hand, a payment only if it is legal for (S, D) and in the hand. Bonus moves are asked one at a time only
when the payment used two or three vehicles; with a single vehicle they all go to it without a decision.
`pass` is always legal at the start of a turn. Names parse back with `game.string_to_action`.

Chance outcomes (the environment resolves them): `tile t (...) to <city>` (uniform over the tiles left),
`public city card <city>`, `seat s draws city card <city>`, `seat s draws goal Gk` (uniform over the
deck), `seat s draws Truck|Train|Ship` (weighted by the copies in the deck; an empty deck is first
refilled with the discards), `seat s starts in <city>` (uniform over the cities without a starting post).

## Observation

One flat `float32` vector in [0, 1] (`gameshelf.envs.cargo_empire.observation.LAYOUT`). "Ego seat" k is
the k-th seat in turn order starting from the observer; pieces are padded to five players.

{observation_table}

## Rewards

`returns()` is zero until the end. Two or more players: `rank_returns` of (final VP, posts on the map):
+1 first, -1 last, linear in between, full ties shared. Solo: the final VP scaled linearly into the
declared return range [-1, 1]: `2 * VP / 168 - 1`, where 168 (`scoring.MAX_VP`) bounds any final score
(3 x 12 marker VP + 3 x 14 posts + 5 x 8 private cards + all ten goals). `scores()` is each seat's VP as
far as public (markers, LV3 posts, private cards); goal VP is added when the game ends, so
`reward="score"` gives VP as it grows and the final VP in total.

## Chance and hidden information

Chance outcomes are listed under Actions; the engine draws no random numbers.


Transport hands, private city cards and goals are private; hand sizes and card counts, the discards
and the whole board are public. A private city card that gives a bonus move is shown (and stays public).
`resample_hidden(seat, rng)` draws again the outcomes of the other players' draws (transport cards,
private city cards, goals; for a state built by `state_from_position`, also their hands, unshown city
cards and goals in that position, with the decks) and replays the history with them: the new state's
`history` replays to it (never to the true state), its position rebuilds it, and its legal moves are the
rules' moves for its own hands. The redeal is uniform (each draw weighted as the deck deals it) among the
ones consistent with what the seat has seen: its own cards; the make-up of every deck formed by a
reshuffle (the discards were public, so after a reshuffle only the seat has drawn from, it knows the
deck); every payment another player made (the cards were in its hand); a delivery in progress can be
completed (its start has a payable destination, its destination a payment in the hand); the shown cards
and the bonus moves (a shown card was drawn before it was shown and shown at the next delivery from or to
its city; a card is not in a hand that delivered from or to its city after drawing it without showing it);
at the end, every player's final VP (so what its goals give). City cards and goals are drawn exactly;
transport cards by rejection from the deck's odds (exact) or, when many payments condition them (long
games with 4 or 5 players), by a guided draw polished by a chain of swaps (close to uniform, not exact).
The players' choices are not modelled (a card is as likely whatever the player did with it). With one
player nothing is hidden from the only seat (`has_hidden_info` is False).
`to_text()` is the public view; `seat_text(seat)` adds the seat's hand, private cards and goals (with
which are fulfilled now). `render_image()` draws the map, the cards and the players' boards.

## Position builder

`state.position()` gives a plain dict; `game.state_from_position(d)` validates it and builds the state.
Keys: `num_players`; `round` (0-2); `turn` (turns taken this round, all players; the player to move is
`turn % N`); `phase` (`"start"`, `"dest"`, `"pay"`, `"bonus"`); `sel_start`, `sel_dest` (cities, -1);
`sel_payment` (index in `routes.ALL_PAYMENTS`, -1), `bonus_left` (bonus moves still to allocate); `over`;
`queue` (pending chance draws `[kind, who]`, kinds `tile` (city), `public` (-1), `start_post`,
`transport`, `city`, `goal` (seat)); `rewards` (track rewards of the delivery in progress); per city
`tile` (tile index, -1), `level` (0 no tile yet, 1, 2, 3), `cubes`, `demand` (owner of each demand
space, -1 empty, in the order of the tile's colours), `side` (posts per seat in the side area);
`public_cards`, `city_deck`, `private` (per seat), `revealed` (shown private cards per seat);
`goal_deck`, `goals` (per seat, goal indices 0-9 = G1-G10); `deck`, `discard` (Truck, Train, Ship
counts), `hands` (per seat); `tracks` (per seat: Truck, Train, Ship spaces); `posts_left`; `perfect`
(Perfect Upgrades caused). Checked: card totals (48 transport cards, each city card and goal exactly
once), tile uniqueness, levels, cube and demand counts, a full tile that should have upgraded, phase
consistency of the delivery fields, draw kinds.

## Readings taken

* All component material (map, tiles, decks, track rewards and VP, goals, post counts, hand sizes, draws
  after rounds and on passing) is the spec's proposed set, kept in `data`.
* Seat order: seats are the random seat order; seat 0 starts every round.
* Pass is always allowed, even when a delivery is possible.
* A start city may be any city with an own post; a player may deliver to a city where he already has posts.
* A route may use a ship jump between two ports that are also joined by a railroad (both are one step).
* A Train card may pay a 1-edge leg (the spec's legs: 1 edge Truck or Train), e.g. Madrid -> Hamburg
  `1 Train + 1 Ship` is legal besides `1 Truck + 1 Ship`.
* Card bonuses are judged when the payment is made (a city card drawn as a reward of this same delivery
  does not count); a private card used for a bonus is shown to all.
* Track rewards are drawn after the whole delivery (bonus moves included); passing through a reward space
  takes it; moves beyond 12 are lost. Bonus moves with a single paid vehicle are applied without asking.
* An empty transport deck is refilled from the discards when a card is drawn; if both are empty the draw
  is lost; so are draws from an empty city or goal deck.
* `scores()` leaves the hidden goals out until the end.
* Starting posts lie in the side areas: they never count as demand spaces.

## State row

The kernel's state row (`kernel.ROW`, `int16`): what `gameshelf.vector` batches and a
`CargoEmpireState` views. Positions that do not fit a field's range are refused by the field's name.

{row_table}

## Version history

* v0: first version.
"""

from gameshelf.envs.cargo_empire.kernel import ROW
from gameshelf.envs.cargo_empire.observation import LAYOUT

__doc__ = (__doc__ or "").replace("{observation_table}", LAYOUT.table()).replace("{row_table}", ROW.table())
