"""Pig, a toy dice game written exactly as ``docs/adding_a_game.md`` says (the guide quotes these files, and
``tests/test_guide.py`` checks the quotes and runs the kit and the batched replay on it).

| | |
|---|---|
| id | ``toy_pig-v0`` (registered by ``tests.toy_pig.register_pig``) |
| agents | ``player_0`` ... ``player_{N-1}``, N = 2, 3 or 4 |
| action space | ``Discrete(2)``: 0 roll, 1 hold |
| chance / hidden information | yes (the die) / no |

## Rules

Seat 0 starts. On a turn the player rolls the die as often as they like, adding each face to the turn's
total; a 1 loses the turn's total and ends the turn. Holding banks the turn's total and ends the turn (only
with a total above 0). Once the score plus the turn's total reaches the target, the player must hold. The
first to reach the target wins; returns rank the scores (+1 first, -1 last).

## Options

| name | default | allowed | meaning |
|---|---|---|---|
| ``num_players`` | 2 | 2, 3, 4 | number of players |
| ``target`` | 20 | 10..100 | the score that wins |

## Observation

{observation_table}

## State row

{row_table}
"""

from tests.toy_pig.kernel import ROW
from tests.toy_pig.observation import LAYOUT

__doc__ = __doc__.replace("{observation_table}", LAYOUT.table()).replace("{row_table}", ROW.table())

PIG = "toy_pig-v0"


def register_pig() -> str:
    """Register ``toy_pig-v0`` (idempotent); returns the id."""
    from gameshelf import envs

    if PIG not in envs.registered_ids():
        envs.register(PIG, "tests.toy_pig.game:PigGame", description="Pig: push your luck with one die")
    return PIG
