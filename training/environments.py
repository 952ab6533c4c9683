"""Environment building: the vectorized single-seat environments a run learns on."""

from __future__ import annotations

import functools
import multiprocessing
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.monitor import Monitor


@functools.cache
def heuristic_available(env_id: str) -> bool:
    """Whether ``env_id`` has a heuristic agent (asked once per id and process)."""
    from gameshelf.training.agents import make_agent

    try:
        make_agent("heuristic", env_id)
    except (ValueError, ImportError):
        return False
    return True


def initial_opponents(config: Any) -> list[Any]:
    """The opponents before the first self-play snapshot (then the pool takes over)."""
    return [config.opponent] if config.opponent != "self" else ["random"]


def make_env_fn(config: Any, opponents: Any) -> EnvFactory:
    """A picklable constructor of one wrapped ``SingleSeatEnv`` (for ``DummyVecEnv``/``SubprocVecEnv``)."""
    return EnvFactory(
        config.env_id,
        config.players,
        config.reward,
        config.observation,
        dict(config.game_options),
        opponents,
        float(config.reward_scale),
        worker=config.vec_env == "subproc",
    )


def make_vec_env(config: Any) -> Any:
    """``config.n_envs`` environments in a ``DummyVecEnv`` or ``SubprocVecEnv``, seeded with the run's seed."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factories: list[Callable[[], Any]] = [make_env_fn(config, initial_opponents(config)) for _ in range(config.n_envs)]
    vec = SubprocVecEnv(factories) if config.vec_env == "subproc" else DummyVecEnv(factories)
    vec.seed(config.seed)
    return vec


@dataclass
class EnvFactory:
    env_id: str
    players: int
    reward: str
    observation: str
    game_options: dict[str, Any]
    opponents: Any
    reward_scale: float = 1.0
    worker: bool = False
    """Built inside a ``SubprocVecEnv`` worker process."""

    def __call__(self) -> Any:
        from gameshelf.training.agents import make_agent
        from gameshelf.wrappers import ChannelsFirstObservation, FlattenObservation, SingleSeatEnv

        if self.worker and multiprocessing.parent_process() is not None:
            # Ctrl-C reaches the whole process group; the main process saves the run and closes the workers
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            import torch

            torch.set_num_threads(1)
        except ImportError:
            pass
        env: Any = SingleSeatEnv(
            self.env_id,
            opponents=self.opponents,
            agent_factory=make_agent,
            reward=self.reward,
            num_players=self.players,
            **self.game_options,
        )
        env = ChannelsFirstObservation(env) if self.observation == "planes" else FlattenObservation(env)
        env = MaskedMonitor(env)
        return env if self.reward_scale == 1.0 else ScaledReward(env, self.reward_scale)


class MaskedMonitor(Monitor):  # type: ignore[misc]
    """SB3's ``Monitor`` (episode statistics) that forwards ``action_masks``."""

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.get_wrapper_attr("action_masks")(), dtype=bool)


class ScaledReward(gym.RewardWrapper):  # type: ignore[misc]
    """Rewards multiplied by a constant (for ``reward: score`` shaping); forwards ``action_masks``."""

    def __init__(self, env: Any, scale: float) -> None:
        super().__init__(env)
        self.scale = scale

    def reward(self, reward: Any) -> float:
        return float(reward) * self.scale

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.get_wrapper_attr("action_masks")(), dtype=bool)
