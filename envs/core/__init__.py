"""The shared core: engine interface, the AEC adapter and game records (read by id in ``gameshelf.envs.records``)."""

from gameshelf.envs.core.game import (
    CHANCE,
    TERMINAL,
    Game,
    GameFacts,
    GameInfo,
    IllegalActionError,
    Option,
    State,
    random_playout,
    rank_returns,
)
from gameshelf.envs.core.record import GameRecord, RecordError, save_record

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "GameFacts",
    "GameInfo",
    "GameRecord",
    "IllegalActionError",
    "Option",
    "RecordError",
    "State",
    "random_playout",
    "rank_returns",
    "save_record",
]
