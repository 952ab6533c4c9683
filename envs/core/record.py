"""Game records: the environment id, its options and the full action history (chance included).

Any state can be rebuilt from its record, so a record is also the way to save, share and replay games.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gameshelf.envs.core.game import State

FORMAT = "gameshelf-record/1"


@dataclass
class GameRecord:
    env_id: str
    options: dict[str, Any]
    actions: list[int] = field(default_factory=list)

    @classmethod
    def from_state(cls, env_id: str, state: State) -> GameRecord:
        return cls(env_id, dict(state.game.options), list(state.history))

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "env_id": self.env_id, "options": self.options, "actions": self.actions})

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"not a game record (invalid JSON: {err})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a game record: expected format {FORMAT!r}")
        actions = data.get("actions")
        if not isinstance(actions, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in actions):
            raise ValueError("game record: 'actions' must be a list of integers")
        return cls(str(data["env_id"]), dict(data.get("options", {})), actions)

    def replay(self) -> State:
        """Rebuild the final state (every action is validated on the way)."""
        from gameshelf.envs.registration import make_game

        return make_game(self.env_id, **self.options).state_from_history(self.actions)

    def states(self) -> list[State]:
        """Every state of the game, from the initial one to the last (for step-by-step viewing)."""
        from gameshelf.envs.registration import make_game

        state = make_game(self.env_id, **self.options).new_initial_state()
        out = [state.clone()]
        for action in self.actions:
            state.apply_action(action)
            out.append(state.clone())
        return out


def save_record(record: GameRecord, path: str | Path) -> None:
    Path(path).write_text(record.to_json() + "\n", encoding="utf-8")


def load_record(path: str | Path) -> GameRecord:
    return GameRecord.from_json(Path(path).read_text(encoding="utf-8"))
