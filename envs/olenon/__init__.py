"""Olenon (オレノン): team shedding card game for two teams of two.

| | |
|---|---|
| id | `olenon-v0` |
| agents | `player_0` ... `player_3`; team A = seats 0 & 2, team B = seats 1 & 3 |
| action space | `Discrete(36)` |
| observation | `Dict(observation=Box(0, 1, (120,), float32), action_mask=Box(0, 1, (36,), int8))` |
| import | `gameshelf.make("olenon-v0")`, engine `gameshelf.envs.olenon.game.OlenonGame` |
| compiled rules | `envs/olenon/kernel.py`; batched: `gameshelf.vector.make("olenon-v0", num_envs=N)` |
| rules | `docs/rules/olenon.md` |

## Rules as implemented

Deck of 32 cards: 0 x6, 1 x5, 2 x5, 3..6 x4. Each round all 32 are shuffled, 7 are dealt to each seat
and the 4 others are set aside face down, unused. Seats play clockwise (increasing index). The table
holds 0-4 cards, all of one value. On a turn the active player does exactly one thing:

* **Play**: table empty: put 1-4 cards of one value from hand; table holding n cards of value v: add
  k >= 1 cards of value v with n + k <= 4.
* **Replace**: table holding n cards of value v: put exactly n cards of one value w that beats v
  (w > v, or w = 0 when v = 6: 0 beats only 6 and is lowest otherwise); the n old cards are discarded.
* **Pass**: table not empty: take one table card and lay it face up in front of you; you are passed
  (skipped) until the trick ends. If that empties the table, the next active player must play.

The turn then goes to the next seat clockwise that is not passed. A trick ends at once when the table
holds 4 cards ("Olenon") or when both players of one team have passed: every passed player takes his
face-up card into his hand, the table cards are discarded, nobody is passed any more, and the player
who most recently played cards leads (after an Olenon: the player who played the 4th card). A player
who plays the last card of his hand wins the round for his team at once (a face-up passed card is not
in the hand); this takes precedence over an Olenon. The first team to win 2 rounds wins the game.
A player always has a legal action: a passed player is skipped, at most one player of each team is
passed mid-trick, a hand only empties by going out, and pass is always legal at a non-empty table.

## Options

| option | default | allowed | meaning |
|---|---|---|---|
| `num_players` | 4 | 4 | two teams of two |
| `first_player_rule` | `"rotate"` | `"rotate"`, `"winner"`, `"loser_team"`, `"random"` | who starts rounds 2 and 3 |
| `open_team_info` | False | False, True | True: every hand is public (observation and text show them) |

`first_player_rule`:

* `"rotate"` (spec PROPOSED): the seat after the previous round's first player, clockwise;
* `"winner"`: the player who went out (won the previous round);
* `"loser_team"`: the losing-team player seated next clockwise after the player who went out (always
  one of his opponents: this makes "a player of the losing team" well-defined);
* `"random"`: a fresh uniform chance node, like round 1.

`open_team_info=True` models what unrestricted public team talk amounts to: all hands are open.

The first player of round 1 is always a uniform chance node (rock-paper-scissors in the real game).

## Actions

| id | name | meaning |
|---|---|---|
| `(k-1)*7 + v`, k = 1..4, v = 0..6 (0-27) | `play kxv` | lead (empty table) or add k cards of value v (n + k <= 4) |
| `28 + w`, w = 0..6 (28-34) | `replace with nxw` | replace the n table cards by n cards of value w |
| 35 | `pass (take a v)` | take one table card (value v) face up and pass |

Masks are exact. `game.string_to_action(state, text)` also accepts `play 5` (one card), `replace with 6`,
`pass` and plain action numbers. Chance outcomes: `first player: seat s` (outcome s = 0..3, 1/4 each) and
`deal a v to seat s` (outcome v = 0..6, probability proportional to the copies not dealt yet); the k-th
card of a deal goes to seat `k % 4`.

## Observation

One flat `float32` vector in [0, 1] (pieces in `gameshelf.envs.olenon.observation.LAYOUT`).
"Ego" seats: the observer first, then clockwise (ego 2 is the partner).

{observation_table}

(1) Passed cards a player took back into his hand, less what he may have played since.

## Rewards

Zero until the game ends; then `rank_returns` over the two teams' round wins, shared by both partners:
+1 for each player of the winning team, -1 for each of the other. `scores()`: rounds won by the seat's
team (so `reward="score"` adds +1 to both partners each time their team wins a round).

## Chance and hidden information

The engine draws no random numbers: round-1 first player and every dealt card are chance nodes, resolved
by the environment's seeded generator. Hands are private (the set-aside cards are seen by nobody);
the table, discards, face-up passed cards, hand sizes and the passed cards a player took back into his
hand are public. `resample_hidden(seat, rng)` keeps the seat's own hand, every public fact and each other
hand's size and publicly known cards, and fills the other slots by a uniform shuffle of the cards the
seat cannot place (the leftover become the set-aside cards); it also rewrites the current round's deal in
`history` so the new state replays from its history. (This is consistent with the whole public history;
it weights deals slightly differently from the exact posterior when known cards exist.) With
`open_team_info=True` nothing is hidden (the set-aside cards follow from the visible ones): `has_hidden_info`
is False and `resample_hidden` returns a copy.

`to_text()` is the public view (hands only with `open_team_info`); `to_text(seat)` also shows that seat's
own hand. `render_image()` draws the same public view (`envs/olenon/render.py`).

Scripted positions: `game.state_from_deal(hands, first_player)` applies the chance outcomes that deal the
given 7-card hands (`OlenonGame.deal_outcomes(hands)` gives the outcome list), so such states replay
from their history like any other.

## Readings of the spec

* Newest BGA revision: both trick ends (Olenon and team pass) reset the trick fully (passed players take
  their cards back); the old revision's "Olenon: same player goes again, passes stay" is not used.
* Rounds 2-3 first player: spec PROPOSED clockwise rotation by default; alternatives as options.
  "loser_team" is made well-defined as the opponent seated right after the player who went out.
* "Higher value" for several cards: all n new cards share one value w that beats v; 0 beats only 6.
* A lead may be 4 cards (an immediate Olenon; the same player leads again).
* Public talk is not modelled (no communication channel); `open_team_info` is the full-disclosure bound.
* Termination: the rules do not guarantee that a game ends. Tricks can end with nothing discarded (every
  played card taken back by a passer), and a cycle of four such tricks can return to the same hands
  (see `test_rules_allow_endless_play`). Random games take about 90 decisions (at most ~170 in 2000
  games), so `max_game_length` = 3000 is a truncation limit (the adapter truncates there), not a bound
  forced by the rules.
* Going out takes precedence over an Olenon. At the end of the game the final position (table, hands)
  is kept for display; rounds 2-3 start from a fresh deal.

## Position builder

``state.position()`` / ``game.state_from_position(data)`` (validated; unknown keys refused): ``phase``
(``choose_first``, ``deal``, ``play``, ``over``), ``round`` (0-based), ``wins`` (teams A, B), ``round_first``,
``out_player``, ``hands`` (per seat, count of each value 0..6), ``dealt``, ``table_count``, ``table_value``,
``passed`` (the face-up card of each passed seat, -1 if not passed), ``discards``, ``known`` (cards publicly
known in each hand), ``played`` and ``picked`` (this round, per seat), ``to_move``, ``last_player``. No
value may be in play more often than the deck holds it. ``played`` and ``picked`` count up to 16384 (a
card played, taken back by a passer and played again counts each time; the rules allow endless play, the
state row holds 32767): the cards must add up too. Each seat's hand at the deal, ``hands + played - picked``, holds the cards
dealt to it (7 once the deal is complete), no value more often than the deck, and every card played and
not taken back is on the table, face up in front of a passer or discarded; ``known`` cards were taken
back. The builder also refuses a trick the rules have ended (4 cards on the table, both players of a team
passed, an empty hand in play), a passed seat to move, play before the deal is complete, a finished game
without the seat that went out, and a first player the ``first_player_rule`` does not give.
``game.state_from_deal(hands, first_player)`` starts a game from a chosen deal.

## State row

The kernel's state row (`kernel.ROW`, `int16`): what `gameshelf.vector` batches and an `OlenonState` views.
Positions and options that do not fit a field's range are refused by the field's name.

{row_table}

## Version history

* v0: first version.
"""

from gameshelf.envs.olenon.kernel import ROW
from gameshelf.envs.olenon.observation import LAYOUT

__doc__ = __doc__.replace("{observation_table}", LAYOUT.table()).replace("{row_table}", ROW.table())
