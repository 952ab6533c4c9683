"""The AEC environments as RLlib sees them: RLlib's own ``PettingZooEnv`` over a key-mapping wrapper.

RLlib's action-masking modules expect each observation as ``{"observations": ..., "action_mask": ...}``
with float arrays; gameshelf's AEC environments give ``{"observation": ..., "action_mask": int8}``.
``RLlibObservations`` maps ours to RLlib's names (flattening the observation to one vector, as the
``flat`` layout of SB3 training does) without changing the environment underneath; RLlib's
``PettingZooEnv`` then turns the turn-based AEC game into its ``MultiAgentEnv``: after each move the
next seat to act gets its observation and the rewards it collected since its own last move, and at the
end of the game every seat gets its final observation and reward (the loser's too, on the winner's move).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

OBS_KEY = "observations"
"""RLlib's key for the observation proper (ours is ``"observation"``)."""
MASK_KEY = "action_mask"


def rllib_observation_space(space: spaces.Dict) -> spaces.Dict:
    """RLlib's view of one of our observation spaces: a flat float vector and a float mask."""
    obs, mask = space["observation"], space["action_mask"]
    if not isinstance(obs, spaces.Box) or not isinstance(mask, spaces.Box):
        raise TypeError(f"expected Box observation and mask spaces, got {type(obs).__name__} and {type(mask).__name__}")
    size = int(np.prod(obs.shape))
    low = np.broadcast_to(np.asarray(obs.low, dtype=np.float32), obs.shape).reshape(size)
    high = np.broadcast_to(np.asarray(obs.high, dtype=np.float32), obs.shape).reshape(size)
    return spaces.Dict(
        {
            OBS_KEY: spaces.Box(low, high, (size,), np.float32),
            MASK_KEY: spaces.Box(0.0, 1.0, (int(mask.shape[0]),), np.float32),
        }
    )


def rllib_observation(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One of our observations under RLlib's key names: a flat float32 vector and a float32 mask."""
    return {
        OBS_KEY: np.asarray(observation["observation"], dtype=np.float32).reshape(-1),
        MASK_KEY: np.asarray(observation["action_mask"], dtype=np.float32),
    }


class RLlibObservations(BaseWrapper):  # type: ignore[misc]
    """An AEC environment whose observations use RLlib's key names (``rllib_observation``)."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self._spaces = {a: rllib_observation_space(env.observation_space(a)) for a in env.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return rllib_observation(self.env.observe(agent))


def make_rllib_env(config: dict[str, Any]) -> Any:
    """RLlib's ``PettingZooEnv`` over ``gameshelf.make(config["env_id"], ...)`` with RLlib's key names.

    ``config``: ``env_id``, and optionally ``players``, ``reward`` (``"outcome"`` or ``"score"``) and
    ``game_options`` (a dict). This is the environment creator registered with Ray for AEC runners (batched
    runners: ``gameshelf.training.rllib.batched_env.make_batched_env``).
    """
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from gameshelf import envs

    options = dict(config.get("game_options") or {})
    if config.get("players"):
        options["num_players"] = int(config["players"])
    aec = envs.make(config["env_id"], reward=config.get("reward", "outcome"), **options)
    return PettingZooEnv(RLlibObservations(aec))
