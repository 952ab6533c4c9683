"""Observation views for policies: a flat ``float32`` vector (MLP) or channels-first planes (small CNN).

Both keep ``action_masks()`` reachable on the wrapper itself, so ``MaskablePPO`` finds it however the
vectorized environment looks attributes up.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces


def _box(env: gym.Env) -> spaces.Box:  # type: ignore[type-arg]
    space = env.observation_space
    if not isinstance(space, spaces.Box):
        raise TypeError(f"expected a Box observation space, got {space!r}")
    return space


class FlattenObservation(gym.ObservationWrapper):  # type: ignore[type-arg]
    """Observation flattened to a 1-D ``float32`` vector (bounds kept), for MLP policies."""

    def __init__(self, env: gym.Env) -> None:  # type: ignore[type-arg]
        super().__init__(env)
        box = _box(env)
        self.observation_space = spaces.Box(
            box.low.astype(np.float32).reshape(-1), box.high.astype(np.float32).reshape(-1), dtype=np.float32
        )

    def observation(self, observation: Any) -> np.ndarray:
        return np.asarray(observation, dtype=np.float32).reshape(-1)

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.get_wrapper_attr("action_masks")(), dtype=bool)


class ChannelsFirstObservation(gym.ObservationWrapper):  # type: ignore[type-arg]
    """Planes ``(H, W, C)`` moved to ``(C, H, W)`` as ``float32`` (PyTorch's convolution layout).

    A flat observation ``(N,)`` becomes ``(1, 1, N)``; two axes ``(H, W)`` become ``(1, H, W)``.
    """

    def __init__(self, env: gym.Env) -> None:  # type: ignore[type-arg]
        super().__init__(env)
        box = _box(env)
        low = self._convert(box.low)
        high = self._convert(box.high)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)

    @staticmethod
    def _convert(array: Any) -> np.ndarray:
        a = np.asarray(array, dtype=np.float32)
        if a.ndim == 1:
            return a.reshape(1, 1, -1)
        if a.ndim == 2:
            return a[None]
        if a.ndim == 3:
            return np.ascontiguousarray(np.moveaxis(a, -1, 0))
        raise ValueError(f"cannot lay out an observation of shape {a.shape} as planes")

    def observation(self, observation: Any) -> np.ndarray:
        return self._convert(observation)

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.get_wrapper_attr("action_masks")(), dtype=bool)


def to_policy_input(observation: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Turn a raw game observation into a policy's input of ``shape`` (as-is, flattened or channels-first)."""
    obs = np.asarray(observation)
    if obs.shape == tuple(shape):
        return obs
    if len(shape) == 1 and obs.size == shape[0]:
        return obs.astype(np.float32).reshape(-1)
    converted = ChannelsFirstObservation._convert(obs)
    if converted.shape == tuple(shape):
        return converted
    raise ValueError(f"an observation of shape {obs.shape} does not fit a policy input of shape {tuple(shape)}")
