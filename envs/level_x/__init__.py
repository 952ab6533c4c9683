"""Level X (Stefan Risthaus, Schmidt Spiele 2010): group four dice into sums 5 to 10 to move pawns up six
rows; a pawn that reaches or stands on its row's X square takes one of the row's score tokens.

Rules as implemented: ``docs/rules/level_x.md``. Engine: ``envs/level_x/game.py`` over the compiled rules
kernels of ``kernel.py`` (also batched: ``gameshelf.vector.make("level_x-v0", num_envs=N)``); tables: ``actions.py``;
observation layout: ``observation.py``; picture: ``render.py``.

| | |
|---|---|
| id | ``level_x-v0`` |
| agents | ``player_0`` ... ``player_{N-1}``, N = 2, 3 or 4 |
| action space | ``Discrete(49)`` |
| observation | ``Dict(observation=Box(0, 1, (212,), float32), action_mask=Box(0, 1, (49,), int8))`` |
| chance / hidden information | yes (first player, dice) / no |
| import | ``gameshelf.make("level_x-v0", num_players=3)`` |

## Options

| name | default | allowed | meaning |
|---|---|---|---|
| ``num_players`` | 2 | 2, 3, 4 | number of players |
| ``remove_one_per_stack_if_lt4`` | False | False, True | with < 4 players, one token fewer per stack |
| ``displaced_to`` | ``"supply"`` | ``"supply"``, ``"square1"`` | where a pawn pushed off an X square goes |

* ``remove_one_per_stack_if_lt4``: True is the physical Schmidt rule (11/10/9/8/7/6 tokens with 2 or 3
  players); False follows the supplied text (12/11/10/9/8/7 always).
* ``displaced_to``: ``"supply"`` is the physical rule (the pawn goes back to its owner's supply and
  re-enters on square 1 with its next step); ``"square1"`` puts it on square 1 of the row.

## The board

Rows 5 to 10 have 4, 4, 3, 3, 2, 2 squares; the last square of each row is its X square. Token stacks
(default) 12×5, 11×6, 10×7, 9×8, 8×9, 7×10; bonus stack 15, 12, 9, 6 (15 on top).

## Actions

Each turn the four dice are rolled (a chance node), then the player to move chooses a grouping of them:
each die in at most one group, dice may stay unused, a group may be a single die; every group whose sum
``s`` is 5..10 gives one step in row ``s``. Only the multiset of stepped rows matters (spec 1.5: steps in
different rows are independent, steps in one row are identical), so an **action is that multiset**, the
class of all groupings with the same effect. The 49 multisets that some roll can produce are numbered by
size, then lexicographically:

| action | rows stepped |
|---|---|
| 0 | none: **pass** (all dice unused; always legal, the only move on 1,1,1,1) |
| 1-6 | 5, 6, 7, 8, 9, 10 |
| 7-27 | two steps: 5+5, 5+6, ... 5+10, 6+6, ... 6+10, 7+7, ... 9+10, 10+10 (all 21 pairs) |
| 28-33 | three steps: 5+5+5, 5+5+6, 5+5+7, 5+5+8, 5+5+9, 5+5+10 |
| 34-38 | three steps: 5+6+6, 5+6+7, 5+6+8, 5+6+9, 5+6+10 |
| 39-43 | three steps: 6+6+6, 6+6+7, 6+6+8, 6+6+9, 6+6+10 |
| 44-48 | four steps: 5+5+5+5, 5+5+5+6, 5+5+6+6, 5+6+6+6, 6+6+6+6 |

(``actions.EFFECTS[a]`` is the sorted tuple of rows of action ``a``.) The mask is exact: an action is legal
iff some grouping of the current dice has that effect (``actions.ROLL_MASKS``). Every subset of a legal
effect is legal too (leave those groups' dice unused).

Names: ``action_to_string`` writes a representative grouping, the one using the fewest dice (ties:
lexicographic), groups ordered by sum, each group's dice ascending, only the groups that act:
``"group {3,4}=7 {3,6}=9"``, ``"group {3,3}=6 {6}=6"``, or ``"pass"``. Names are unique among the legal
actions since effects differ. ``game.string_to_action`` reads those names, the action number, and any
grouping of the current dice in any order, sums optional, ineffective groups allowed:
``"group {4,3}=7 {6,3}=9"``, ``"group {3,3} {4} {6}"``.

## Observation

Egocentric: slot 0 is the observing seat, slots 1-3 the following seats in turn order (seat + k mod N);
slots of absent players (N < 4) are zero. float32, every entry in [0, 1], length 212:

{observation_table}

``observation.LAYOUT`` names these pieces (``LAYOUT["dice"]`` is its slice). There is no hidden
information: all seats see the same facts.

## Rewards

``returns()``: zeros until the end, then ``rank_returns`` of the key (score, bonus tiles held, tokens
held): +1 first, -1 last, linear in between, ties on the whole key shared. ``scores()``: running score
(token values + bonus tiles), used by ``reward="score"``.

## Chance and hidden information

* Start: one chance node chooses the first player, seat 0..N-1 with probability 1/N each (``"first
  player: seat 2"``). Play then goes round in increasing seat order from that seat.
* Each turn starts with a chance node: outcome ``i`` is the roll ``actions.ROLLS[i]``, one of the 126
  sorted multisets of four dice, with its multinomial probability (permutations / 1296)
  (``"roll 3,3,4,6"``). ``sample_chance`` draws with the same probabilities.

## Readings of the spec

* Token counts 12...7 by default; the physical "fewer than 4 players" reduction is the option above.
* A displaced pawn returns to its owner's supply by default (option ``displaced_to``).
* A step from the supply enters square 1 (never an X square: rows are at least 2 long). A step of a pawn
  on X does not move it but takes a token if the row has one. Arriving on X pushes off the other pawn
  there, then takes a token if the row has one (an empty row can still be used to push someone off).
* Bonuses: after the turn's steps, while the player holds more than b tokens of every value (b = bonus
  tiles held) and the stack is not empty, the top tile is taken (two at once are possible).
* End: checked at the end of each turn (bonus stack empty, or at least 3 token stacks empty); the round
  is then completed so that every player has had as many turns as the first player, i.e. the game ends
  after the turn of the seat before the first player.
* Tie-break (PROPOSED): more bonus tiles, then more tokens (count), then shared.
* ``max_game_length`` = 2000 decisions is only a safety net for truncation: a player may always leave the
  dice unused, so the rules alone bound no game length. Under random play games take 74 / 91 / 104
  decisions on average for 2 / 3 / 4 players (at most 108 / 126 / 140 in 300 games each).

## Position builder

``state.position()`` / ``game.state_from_position(data)`` (validated; unknown keys refused): ``pawns`` (per
seat, the square of its pawn in rows 5..10, 0 = supply), ``tokens_left`` (per row), ``tokens_held`` (per
seat and row; with ``tokens_left`` they must add up to the stacks), ``bonus_stack`` (top first, in the order
15, 12, 9, 6), ``bonuses`` (per seat), ``first`` and ``to_move`` (-1 before the first player is drawn),
``dice`` (``[]`` before the roll, else four values), ``turns``, ``end_triggered``, ``over``.

## State row

The kernel's state row (``kernel.ROW``, ``int16``): what ``gameshelf.vector`` batches and a ``LevelXState``
views. Positions and options that do not fit a field's range are refused by the field's name.

{row_table}

## Version history

* v0: first version.
"""

from gameshelf.envs.level_x.kernel import ROW
from gameshelf.envs.level_x.observation import LAYOUT

__doc__ = __doc__.replace("{observation_table}", LAYOUT.table()).replace("{row_table}", ROW.table())
