"""Batched env runners: one learner seat in each of N games stepped by the compiled kernels, as a gymnasium
``VectorEnv`` for RLlib's ``SingleAgentEnvRunner``.

    env = BatchedSeatVectorEnv("level_x-v0", num_envs=64, opponents="random", seed=0)
    obs, infos = env.reset()          # obs: {"observations": (64, 212) float32, "action_mask": (64, 49) float32}
    obs, rewards, terminated, truncated, infos = env.step(actions)    # actions: (64,) ints

The games are those of ``gameshelf.vector`` (ids whose ``spec(id).batched``): every ``step`` is one call of
the kernels for all the games whose learner moves, then as many calls as the opponents need to reply in the
games where it is not the learner's turn. As in SB3's ``BatchedSingleSeatVecEnv`` (``--backend batched``),
the learner plays one seat per game, drawn at random at each game's start, and the other seats are played
inside the step by ``opponents``: ``"random"`` (uniform over the legal actions, drawn in the kernel) or
``"heuristic"`` (the game's heuristic agent, in Python, on a state viewing the game's kernel row, what its
seat cannot see redealt). The learner's reward of a step is its reward over its move, chance, the
opponents' replies and the end of the game. Observations carry RLlib's key names and the learner's mask
(``gameshelf.training.rllib.env``), so the masked modules sample, play and learn legal moves only.

Gymnasium's ``NEXT_STEP`` autoreset, which RLlib's env runner expects: the step that ends a game returns the
last observation the learner acted on (the kernel has already dealt the next game), ``terminated`` (or
``truncated`` at ``max_game_length`` decisions); the next step ignores that game's action and returns the
new game's first observation with reward 0.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from gameshelf.envs.core.kernel import seed_generators
from gameshelf.envs.vector import VectorEnv
from gameshelf.training.rllib.env import MASK_KEY, OBS_KEY

OPPONENTS = ("random", "heuristic")


class BatchedSeatVectorEnv(gym.vector.VectorEnv):  # type: ignore[misc]
    """One learner seat in each of ``num_envs`` batched games; the other seats played by ``opponents``."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, env_id: str, num_envs: int, opponents: str = "random", seed: int | None = None, **options: Any) -> None:
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents={opponents!r} is not allowed; allowed values: {list(OPPONENTS)}")
        self.batch = VectorEnv(env_id, num_envs, seed, **options)
        info = self.batch.game.info
        self.env_id, self.opponents, self.num_envs = env_id, opponents, int(num_envs)
        size = int(np.prod(info.observation_shape))
        low = np.broadcast_to(np.asarray(info.observation_low, dtype=np.float32), info.observation_shape).reshape(size)
        high = np.broadcast_to(np.asarray(info.observation_high, dtype=np.float32), info.observation_shape).reshape(size)
        self.single_observation_space = spaces.Dict(
            {
                OBS_KEY: spaces.Box(low, high, (size,), np.float32),
                MASK_KEY: spaces.Box(0.0, 1.0, (info.num_actions,), np.float32),
            }
        )
        self.single_action_space = spaces.Discrete(info.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self._picker = seed_generators(None if seed is None else seed + 1, self.num_envs)
        self._seats = np.zeros(self.num_envs, dtype=np.int64)
        self._pending = np.zeros(self.num_envs, dtype=bool)
        self._rows = np.arange(self.num_envs)
        self._obs = np.zeros((self.num_envs, size), dtype=np.float32)
        self._masks = np.zeros((self.num_envs, info.num_actions), dtype=np.float32)
        self._heuristic = self.batch.opponent_agent(opponents)
        self._views: list[Any] = []

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if isinstance(seed, list | tuple):
            seed = seed[0] if seed else None
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._picker = seed_generators(seed + 1, self.num_envs)
        self.batch.reset(seed=seed)
        if self._heuristic is not None:
            self._views = self.batch.row_views()
        self._seats[:] = self._rng.integers(self.batch.num_players, size=self.num_envs)
        self._pending[:] = False
        self._play_opponents(np.zeros(self.num_envs), np.zeros(self.num_envs, dtype=bool), np.zeros(self.num_envs, dtype=bool))
        return self._observe(), {}

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        active = ~self._pending
        rewards = np.zeros(self.num_envs)
        ended = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        final_obs, final_masks = self._obs.copy(), self._masks.copy()  # what the learner acted on
        if active.any():
            out = self.batch.step(np.where(active, actions, 0), active=active)
            rewards += np.where(active, out.rewards[self._rows, self._seats], 0.0)
            self._end(out.terminated | out.truncated, out.truncated, ended, truncated)
            self._play_opponents(rewards, ended, truncated)
        self._pending[:] = ended
        obs = self._observe()
        obs[OBS_KEY][ended] = final_obs[ended]
        obs[MASK_KEY][ended] = final_masks[ended]
        return obs, rewards.astype(np.float32), ended & ~truncated, truncated, {}

    def close(self, **kwargs: Any) -> None:
        pass

    # ---- inside a step ----------------------------------------------------------------------------------------
    def _observe(self) -> dict[str, np.ndarray]:
        self._obs[:] = self.batch._flat_obs
        self._masks[:] = self.batch._masks
        return {OBS_KEY: self._obs.copy(), MASK_KEY: self._masks.copy()}

    def _end(self, done: np.ndarray, cut: np.ndarray, ended: np.ndarray, truncated: np.ndarray) -> None:
        """Games that just ended (and are already redealt): marked, with a new learner seat."""
        new = done & ~ended
        truncated |= cut & new
        ended |= new
        if new.any():
            self._seats[new] = self._rng.integers(self.batch.num_players, size=int(new.sum()))

    def _play_opponents(self, rewards: np.ndarray, ended: np.ndarray, truncated: np.ndarray) -> None:
        """Step every game whose player to move is not the learner until it is, adding the learner's rewards in
        the games that have not ended in this step (a new game's opening replies belong to its first step)."""
        while True:
            waiting = self.batch._players != self._seats
            if not waiting.any():
                return
            actions = self.batch.opponent_actions(waiting, self._views, self._heuristic, self._picker, self._rng)
            out = self.batch.step(actions, active=waiting)
            rewards += np.where(ended, 0.0, out.rewards[self._rows, self._seats])
            self._end(out.terminated | out.truncated, out.truncated, ended, truncated)


def make_batched_env(config: dict[str, Any]) -> BatchedSeatVectorEnv:
    """The environment creator registered with Ray for batched runners: RLlib's ``SingleAgentEnvRunner`` calls it
    with its ``num_envs`` (``gym_env_vectorize_mode="vector_entry_point"``); ``config`` as ``make_rllib_env``'s,
    with ``opponent``. The runner's first reset seeds the games (the run's seed and the runner's index)."""
    if "num_envs" not in config:
        raise ValueError("batched runners build a vector env: RLlib gives the creator num_envs")
    options = dict(config.get("game_options") or {})
    if config.get("players"):
        options["num_players"] = int(config["players"])
    return BatchedSeatVectorEnv(config["env_id"], int(config["num_envs"]), config.get("opponent", "random"), **options)
