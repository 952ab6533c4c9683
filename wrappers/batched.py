"""``BatchedSingleSeatVecEnv``: the single-seat view of N games in one process, as a Stable-Baselines3 ``VecEnv``.

    from gameshelf.wrappers.batched import BatchedSingleSeatVecEnv
    env = BatchedSingleSeatVecEnv("level_x-v0", num_envs=64, opponents="random", seed=0)
    model = MaskablePPO("MlpPolicy", env)            # sb3_contrib; masks come from env_method("action_masks")

The games are stepped by the compiled kernels of ``gameshelf.vector`` (only ids whose ``spec(id).batched``). As in
``SingleSeatEnv``, the learner plays one seat per game, drawn at random at each game's start, and every
other seat is played inside ``step_wait`` by the opponents: ``"random"`` (uniform over the legal actions,
drawn in the kernel) or ``"heuristic"`` (the game's heuristic agent, called in Python on a state that
views the game's kernel row, what its seat cannot see redealt as ``SingleSeatEnv`` does). The learner's
reward of a step is its reward summed over its move, chance, the opponents' replies and the end of the game.
A finished game is reset at once: the step returns ``done``, the new game's first observation, and
``infos[i]["terminal_observation"]`` (SB3's convention; here the last observation the learner acted on,
since the kernel resets a game in the step that ends it: SB3 reads it only for truncated games, which
happen at ``max_game_length`` decisions).

Needs stable-baselines3 (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from gameshelf.envs.core.kernel import seed_generators
from gameshelf.envs.vector import VectorEnv

OPPONENTS = ("random", "heuristic")


class BatchedSingleSeatVecEnv(VecEnv):
    """One learner seat in each of ``num_envs`` batched games; the other seats played by ``opponents``."""

    def __init__(self, env_id: str, num_envs: int, opponents: str = "random", seed: int | None = None, **options: Any) -> None:
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents={opponents!r} is not allowed; allowed values: {list(OPPONENTS)}")
        self.batch = VectorEnv(env_id, num_envs, seed, **options)
        info = self.batch.game.info
        observation_space = spaces.Box(
            info.observation_low, info.observation_high, info.observation_shape, dtype=info.observation_dtype
        )
        self.render_mode = None
        super().__init__(num_envs, observation_space, spaces.Discrete(info.num_actions))
        self.env_id = env_id
        self.opponents = opponents
        self._rng = np.random.default_rng(seed)
        self._picker = seed_generators(None if seed is None else seed + 1, num_envs)
        self._seats = np.zeros(num_envs, dtype=np.int64)
        self._actions = np.zeros(num_envs, dtype=np.int64)
        self._last_obs = np.zeros((num_envs, *observation_space.shape), dtype=observation_space.dtype)
        self._heuristic = self.batch.opponent_agent(opponents)
        self._views: list[Any] = []

    # ---- the VecEnv interface ------------------------------------------------------------------------------
    def reset(self) -> VecEnvObs:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._picker = seed_generators(seed + 1, self.num_envs)
        out = self.batch.reset(seed=seed)
        self._reset_seeds()
        if self._heuristic is not None:
            self._views = self.batch.row_views()
        self._seats[:] = self._rng.integers(self.batch.num_players, size=self.num_envs)
        rewards = np.zeros(self.num_envs)
        self._play_opponents(rewards, np.zeros(self.num_envs, dtype=bool), [{} for _ in range(self.num_envs)])
        self._last_obs[:] = out.observation
        return self._last_obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        out = self.batch.step(self._actions)
        rewards = out.rewards[np.arange(self.num_envs), self._seats].copy()
        dones = out.terminated | out.truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._ended(dones, out.truncated, infos)
        self._play_opponents(rewards, dones, infos)
        self._last_obs[:] = out.observation
        return self._last_obs.copy(), rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, num_actions) bool``."""
        return self.batch._masks.copy()

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    # ---- inside a step ----------------------------------------------------------------------------------------
    def _ended(self, dones: np.ndarray, truncated: np.ndarray, infos: Sequence[dict[str, Any]]) -> None:
        """Games that just ended: a new learner seat; SB3's terminal entries (see the module docstring)."""
        for i in np.flatnonzero(dones).tolist():
            infos[i]["terminal_observation"] = self._last_obs[i].copy()
            infos[i]["TimeLimit.truncated"] = bool(truncated[i])
            self._seats[i] = self._rng.integers(self.batch.num_players)

    def _play_opponents(self, rewards: np.ndarray, dones: np.ndarray, infos: Sequence[dict[str, Any]]) -> None:
        """Step every game whose player to move is not the learner until it is (adding the learner's rewards
        to the unfinished games' step rewards)."""
        while True:
            waiting = self.batch._players != self._seats
            if not waiting.any():
                return
            actions = self.batch.opponent_actions(waiting, self._views, self._heuristic, self._picker, self._rng)
            out = self.batch.step(actions, active=waiting)
            gained = out.rewards[np.arange(self.num_envs), self._seats]
            rewards += np.where(dones, 0.0, gained)
            ended = (out.terminated | out.truncated) & ~dones
            self._ended(ended, out.truncated, infos)
            dones |= ended
