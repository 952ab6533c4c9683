"""Pig's ``Game`` and ``State``: the rules are the kernel's; here only what is not a rule step."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from gameshelf.envs.core.game import CHANCE, GameFacts, Option, int_option
from gameshelf.envs.core.kernel import KernelGame, KernelState
from gameshelf.envs.core.position import PositionReader, position_builder
from tests.toy_pig import kernel as K
from tests.toy_pig.observation import LAYOUT

ACTION_NAMES = ("roll", "hold")


class PigGame(KernelGame):
    """Pig for 2 to 4 players."""

    name = "toy_pig"
    kernel = K
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(2, choices=(2, 3, 4), doc="number of players"),
        "target": int_option(20, 10, K.MAX_TARGET, doc="the score that wins"),
    }
    LAYOUT = LAYOUT

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.initial = K.initial_state(self.options["num_players"], self.options["target"])

    def _facts(self) -> GameFacts:
        return GameFacts(num_actions=K.NUM_ACTS, max_game_length=1000, has_chance=True, has_hidden_info=False)

    def new_initial_state(self) -> PigState:
        return PigState(self)

    @position_builder
    def state_from_position(self, position: Mapping[str, Any]) -> PigState:
        """A position from plain data (``state.position()`` gives one), validated."""
        read = PositionReader(position, self.name)
        state = PigState(self)
        n, target = self.num_players, self.options["target"]
        state.score = read.int_list("scores", 0, target + 5, n)
        state.turn_total = read.integer("turn_total", 0, target + 5)
        state.current = read.integer("to_move", 0, n - 1)
        state.last_die = read.integer("last_die", 0, 6)
        state.rolling = read.flag("rolling")
        state.over = read.flag("over")
        state.decisions = read.integer("decisions", 0, 1000)
        read.done()
        return state


class PigState(KernelState):
    """A Pig position: a view over one kernel row; its fields are the row's (``kernel.ROW``)."""

    game: PigGame
    score = K.ROW.field("score")
    turn_total = K.ROW.field("turn_total")
    current = K.ROW.field("current")
    last_die = K.ROW.field("last_die")
    rolling = K.ROW.field("rolling")
    over = K.ROW.field("over")
    decisions = K.ROW.field("decisions")

    def action_to_string(self, action: int) -> str:
        if self.current_player() == CHANCE:
            return f"die {action + 1}"
        return ACTION_NAMES[action]

    def scores(self) -> np.ndarray:
        return np.array(self.score.tolist(), dtype=np.float64)

    def to_text(self) -> str:
        scores = " ".join(map(str, self.score))
        return f"scores {scores}; seat {self.current} to move, turn total {self.turn_total}, last die {self.last_die}"

    def position(self) -> dict[str, Any]:
        return {
            "scores": self.score.tolist(),
            "turn_total": self.turn_total,
            "to_move": self.current,
            "last_die": self.last_die,
            "rolling": self.rolling,
            "over": self.over,
            "decisions": self.decisions,
        }
