"""Policy pieces for ``MaskablePPO``: a small CNN features extractor for board planes ``(C, H, W)``."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class SmallCNN(BaseFeaturesExtractor):
    """Two 3x3 convolutions (the second with stride 2 on boards larger than 10x10) and a linear layer."""

    def __init__(self, observation_space: gym.spaces.Box, features_dim: int = 256, channels: tuple[int, int] = (32, 64)) -> None:
        super().__init__(observation_space, features_dim)
        c, h, w = observation_space.shape
        stride = 2 if min(h, w) > 10 else 1
        self.cnn = nn.Sequential(
            nn.Conv2d(c, channels[0], 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels[0], channels[1], 3, stride=stride, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            n_flat = self.cnn(torch.zeros(1, c, h, w)).shape[1]
        self.linear = nn.Sequential(nn.Linear(n_flat, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.cnn(observations))


def policy_kwargs(observation: str, net_arch: list[int], features_dim: int = 256) -> dict[str, Any]:
    """``policy_kwargs`` for ``MaskablePPO("MlpPolicy", ...)`` by observation layout (``flat`` or ``planes``)."""
    kwargs: dict[str, Any] = {"net_arch": list(net_arch)}
    if observation == "planes":
        kwargs["features_extractor_class"] = SmallCNN
        kwargs["features_extractor_kwargs"] = {"features_dim": features_dim}
    return kwargs
