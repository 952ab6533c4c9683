"""Matchstick Tycoon (マッチ売りの大富豪, Unamu Hizuki, HEY! 2025): a climbing card game for 2 to 8 players
with 7-segment hexadecimal cards that can be turned upside down and completed with matchsticks.

User rules: [docs/rules/matchstick_tycoon.md](../../docs/rules/matchstick_tycoon.md). The rules are
compiled kernels, written once in ``envs/matchstick_tycoon/kernel.py`` over one ``int16`` state row (its
layout is tabled there); the engine ``envs/matchstick_tycoon/game.py`` is a view over that row (text,
move names, chance outcomes, ``resample_hidden``); glyphs: ``cards.py``; action encoding and phases:
``actions.py``; observation layout: ``observation.py``; position builder: ``position.py``; picture:
``render.py``.

| | |
|---|---|
| id | ``matchstick_tycoon-v0`` |
| agents | ``player_0`` ... ``player_{N-1}``, N = 2 ... 8 (default 4) |
| action space | ``Discrete(108)`` |
| observation | ``Dict(observation=Box(0, 1, (249,), float32), action_mask=Box(0, 1, (108,), int8))`` |
| chance / hidden information | yes (first player, deal) / yes (hands) |
| import | ``gameshelf.make("matchstick_tycoon-v0", num_players=4)`` |
| compiled rules | ``envs/matchstick_tycoon/kernel.py``; batched: ``gameshelf.vector.make("matchstick_tycoon-v0", num_envs=N)`` |

## Compiled rules

Every path (the AEC environment, the single-seat view, the engine API, search with its random playouts)
runs the same compiled kernels, and the id is batched: ``gameshelf.vector.make("matchstick_tycoon-v0",
num_envs=N, num_players=...)`` steps N games per call (every player count and option), and
``BatchedSingleSeatVecEnv`` trains on them in one process. Importing ``gameshelf`` compiles nothing; the
game's kernels compile on first use, about 20 seconds on a busy 2-core machine (11 s for the kernels a
``make()`` game needs, 9 s more for the batched drivers and the playout), and are kept in numba's disk cache,
so later processes load them in well under a second.

## Rules as implemented

**Cards.** 56 cards: 14 faces × 4 copies: ``0 1 2 3/E 4 5 6/9 7 8 A b C d F`` (the 3 read upside down is an
E, the 6 a 9). With the expansion, ``expansion_copies`` copies each of ``G`` and ``H`` are added. Values
are ``0 1 2 3 4 5 6 7 8 9 A b C d E F`` (and ``G H`` with the expansion); normal strength order
``0 < 1 < ... < F < G < H``.

**Glyphs.** Standard hexadecimal 7-segment digits (segments a top, b upper right, c lower right, d bottom,
e lower left, f upper left, g middle): 0 abcdef, 1 bc, 2 abdeg, 3 abcdg, 4 bcfg, 5 acdfg, 6 acdefg, 7 abc,
8 abcdefg, 9 abcdfg, A abcefg, b cdefg, C adef, d bcdeg, E adefg, F aefg; expansion G acdef, H bcefg.
Turning a card by 180° maps a↔d, b↔e, c↔f. A card shows value W if, upright or turned, its segments are
a subset of W's glyph; the missing segments are filled with matchsticks, which are spent. The cost is the
difference of segment counts, so it never depends on the way up. ``cards.COST[face][value]`` holds the
whole table (-1: impossible); G and H are values only with the expansion.

**Deal.** A uniformly random first player; then the cards are dealt one at a time to seats 0, 1, 2, ...
in turn: 15 cards each at 2-3 players (the other cards are not used and seen by nobody), the whole deck at
4-8 players (seats dealt first get the extra cards). Everyone starts with 1 matchstick; the supply is
unlimited.

**Turn.** Seats play clockwise (increasing index), skipping players who are out.

* No cards in hand (but matchsticks): discard one matchstick. This counts as a turn without playing.
* Empty table: lead 1 to 5 cards all showing one value.
* n cards of value V on the table: play exactly n cards all showing one value stronger than V in the
  current order, or **pass** and take one matchstick. A player who passed may play again later in the
  same trick.

**Clearing.** When every other player still in the game has taken a turn without playing since the last
play, the table is cleared and the player who made the last play leads; if he is out, the next player
still in the game clockwise from him leads.

**Revolution.** Whenever 5 cards are played at once (lead or follow), the strength order reverses (0
becomes strongest) at once, and stays reversed across tricks until the next 5-card play.

**Going out and the end.** A player with no cards and no matchsticks is out at once (after a play that
empties hand and matchsticks, or after discarding his last matchstick). When only one player is left the
game ends; places follow the order of going out, the remaining player last.

## Options

| name | default | allowed | meaning |
|---|---|---|---|
| ``num_players`` | 4 | 2 ... 8 | number of players |
| ``deal`` | ``"standard"`` | ``"standard"``, ``"all"`` | how many cards are dealt (below) |
| ``expansion_copies`` | 0 | 0, 2, 4 | copies of each expansion card G and H in the deck (0: no expansion) |

``deal="standard"`` deals 15 cards each at 2-3 players (the rest unused) and the whole deck at 4-8;
``deal="all"`` always deals the whole deck. Every option set shares one action space and one observation shape.

## Actions

A play is laid down in consecutive decisions by the same player: first its count and value, then its cards
one at a time. Every mask is exact: a count and value is offered only if the hand can lay it with the
matchsticks held, and a card only if the rest of the play can still be completed afterwards.

| action | name | meaning |
|---|---|---|
| 0 | ``pass`` | table not empty, cards in hand: pass and take one matchstick |
| 1 | ``discard a matchstick`` | no cards in hand: discard one matchstick (the only legal action then) |
| ``2 + (n-1)·18 + W`` (2-91), n = 1..5, W = 0..17 | ``play 2x9`` | announce a play of n cards showing value W (1) |
| ``92 + f`` (92-107), f = 0..15 | ``card 3/E as 9 +1`` | lay one card of face f (2) as the announced value |

(1) Values in the order ``0123456789AbCdEFGH``. (2) Faces in the order ``0 1 2 3/E 4 5 6/9 7 8 A b C d F G H``.

Names parse back with ``game.string_to_action(state, text)`` (case-insensitive) and plain numbers are
accepted. Chance outcomes: ``first player: seat s`` (outcome s, probability 1/N), then ``deal F to seat
s`` (outcome f = the face index, probability proportional to the copies of that face not dealt yet).

## Observation

One flat ``float32`` vector in [0, 1] (``observation.LAYOUT``). Per-seat pieces are egocentric (the
observing seat first, then the others in turn order) and padded to 8 seats, so every player count shares
one shape.

{observation_table}

## Rewards

Zero until the end; then ``rank_returns`` of the finishing places (first out +1, last -1, linear in
between; no ties are possible). ``scores()`` is zero throughout: the game keeps no running score, so
``reward="score"`` equals ``reward="outcome"``.

## Hidden information

Hands are private; matchstick counts, the table, every played card (by whom, as what), passes, finishing
places and hand sizes are public. ``to_text()`` is the public view, ``seat_text(seat)`` adds that seat's
hand. ``resample_hidden(seat, rng)`` keeps the seat's own hand and every public fact (hand sizes, sticks,
played cards, table, passes, a play being laid) and redeals the other hands uniformly from the cards that
seat cannot place (other hands and, at 2-3 players, the unused cards), each card counted as a distinct
card. This holds at every node: in the middle of the deal the cards already dealt to the other seats are
redealt too (and the cards left to deal follow). While another seat is laying a play, its announcement and
the cards it laid showed that its hand can finish the play with its matchsticks, so its hand is drawn
uniformly among the hands that can; it always keeps a legal move. The chance outcomes of the deal in
``history`` are rewritten to match (each other seat's cards in a random order, the seat's own deal
untouched; no decision changes), so the new state replays from its history to itself, not to the true
state. Before the first player is drawn nothing is hidden and the state is copied.

## Position builder

``state.position()`` gives a plain dict, ``game.state_from_position(dict)`` a validated state (a
``ValueError`` names the problem). Cards are written by face name (``"3/E"``, also ``"3"`` or ``"E"``),
values by their character (``"9"``, ``"b"``).

| key | meaning |
|---|---|
| ``hands`` | list of N lists of card names |
| ``matchsticks`` | list of N counts |
| ``to_move`` | seat to act (``None`` during the deal and once the game is over) |
| ``table`` | ``None`` or ``{"value": "9", "faces": ["6/9", "3/E"], "player": seat}`` (the play on the table) |
| ``reversed``, ``revolutions`` | order reversed (optional, default False); revolutions so far (its parity must match) |
| ``passed`` | seats that took a turn without playing since the play on the table |
| ``finished`` | seats out, in finishing order |
| ``played`` | ``{card name: count}`` of every card played so far (the table's included) |
| ``played_by`` | optional: list of N such maps, per seat (must add up to ``played``); exported when known (below) |
| ``pending`` | ``None`` or ``{"value": "9", "count": 2, "picked": ["6/9"]}``: a play being laid down by ``to_move`` |
| ``first_player``, ``sticks_spent`` | optional, for display |
| ``dealt`` | optional: cards dealt so far (default: all of them); fewer only during the deal (below) |

``played_by`` is exported when who played each card is known: always for a state reached by playing from
the start, never for a state built from a position given without it or with it null (its later plays do not
add up to ``played``).

Checks: known cards and values, card counts within the deck and adding up to the cards dealt (hands +
played + laid), table cards able to show the table value, a finished seat holds nothing, a seat holding
nothing is finished, passes only at a non-empty table, not by its player and not by a seat that is out
(but the player left at the end of the game may have passed), and while the game goes on exactly the
seats in game after the table's player and before the player to move (each took its turn since that play
without playing), a table everyone passed on is refused (it would have been cleared), a pending play must
beat the table and be completable.

Every node exports a position, chance nodes of the deal included: there ``to_move`` is ``None``,
``dealt`` counts the cards dealt (from seat 0 on, one at a time, so the hand sizes must follow),
``first_player`` is ``None`` before it is drawn (then ``dealt`` is 0), everyone holds 1 matchstick and
nothing is played, passed, finished or on the table.

## State row

The kernel's state row (``kernel.ROW``, ``int16``): what ``gameshelf.vector`` batches and a ``MatchstickState``
views. Positions and options that do not fit a field's range are refused by the field's name.

{row_table}

## Heuristic agent

``envs/matchstick_tycoon/heuristic.py`` (``heuristic``): a greedy shedder that follows whenever it can,
uses up whole faces, plays low and keeps its matchsticks. Over 200 seeded games against random
(``python -m gameshelf.training.evaluate matchstick_tycoon-v0 heuristic random --games 200 --players N``):
2 players 181 wins, 0 draws, 19 losses (90.5%; 92% as seat 0, 89% as seat 1); 4 players against three
random players, mean rank 1.77 ± 0.14 (random: 3.06), first out in 57% of the games.

## Readings taken

* Glyphs: the standard hexadecimal 7-segment font (it reproduces every published example: 6+1→8, 6 turned
  →9, 1 turned +2→F, 3→9, 7→3, 0+1→8, 4+3→8). Expansion glyphs G = acdef, H = bcefg and the order
  F < G < H (no source gives them). Without the expansion, G and H are not values (a 4 with a matchstick
  forming the H glyph is not a play).
* The way up of a card is not part of the action: both ways cost the same when both work (cost = segment
  count difference), so only the face and the value shown matter.
* A play's matchsticks are spent when its last card is laid; cards laid so far (``pending``) are public
  (no other player acts meanwhile). Cards of a play may be laid in any order.
* A discard by a player without cards counts as a turn without playing for clearing; it gives no
  matchstick. A discard at an empty table (e.g. that player was to lead) passes the lead on.
* When the player whose play stands went out, the next player still in the game clockwise from him leads.
* Extra cards at 4-8 players go to the lowest seats (the deal starts at seat 0); the first player is
  uniformly random (a chance node before the deal).
* A revolution persists across tricks until the next 5-card play.
* ``max_game_length`` is a true bound: at most one play per card dealt (≤ 6 decisions each), at most 2N
  turns without a play between two plays, each giving at most one matchstick to discard later. Random
  games take about 60 / 110 / 160 / 285 decisions at 2 / 3 / 4 / 8 players.

## Version history

* v0: first version.
"""

from gameshelf.envs.matchstick_tycoon.kernel import ROW
from gameshelf.envs.matchstick_tycoon.observation import LAYOUT

__doc__ = (__doc__ or "").replace("{observation_table}", LAYOUT.table()).replace("{row_table}", ROW.table())
