"""Policy pieces for ``MaskablePPO``: a small CNN features extractor for board planes ``(C, H, W)``, the fully
convolutional policy, and the optimizer every policy is built with (``EagerAdam``, from ``training.optim``)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from gameshelf.training.optim import EagerAdam


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


def optimizer_kwargs() -> dict[str, Any]:
    """The policies' optimizer: SB3's default (Adam with ``eps=1e-5``) as ``EagerAdam``."""
    return {"optimizer_class": EagerAdam, "optimizer_kwargs": {"eps": 1e-5}}


def policy_kwargs(observation: str, net_arch: list[int], features_dim: int = 256) -> dict[str, Any]:
    """``policy_kwargs`` for ``MaskablePPO("MlpPolicy", ...)`` by observation layout (``flat`` or ``planes``)."""
    kwargs: dict[str, Any] = {"net_arch": list(net_arch)}
    if observation == "planes":
        kwargs["features_extractor_class"] = SmallCNN
        kwargs["features_extractor_kwargs"] = {"features_dim": features_dim}
    return kwargs


def policy_spec(policy: str, observation: str, net_arch: list[int], features_dim: int = 256) -> tuple[type, dict[str, Any]]:
    """The policy class and its keyword arguments for a policy kind (``default`` or ``fully_conv``).

    Training builds its model from this, and loading a saved policy rebuilds it from the same call, so a
    saved model never needs to carry (pickled) classes.
    """
    if policy == "fully_conv":
        from stable_baselines3.common.torch_layers import FlattenExtractor

        return FullyConvPolicy, {"net_arch": {}, "features_extractor_class": FlattenExtractor, **optimizer_kwargs()}
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    return MaskableActorCriticPolicy, {**policy_kwargs(observation, net_arch, features_dim), **optimizer_kwargs()}


class _ConvHeads(nn.Module):
    """Shared 3x3 convolutions; actor: a 1x1 convolution giving one logit per (plane, row, col); critic: pooled MLP."""

    def __init__(self, shape: tuple[int, int, int], action_planes: int, channels: int = 32, layers: int = 2) -> None:
        super().__init__()
        c, h, w = shape
        self.shape = shape
        trunk: list[nn.Module] = []
        for k in range(layers):
            trunk += [nn.Conv2d(c if k == 0 else channels, channels, 3, padding=1), nn.ReLU()]
        self.trunk = nn.Sequential(*trunk)
        self.actor = nn.Conv2d(channels, action_planes, 1)
        self.critic = nn.Sequential(nn.Linear(2 * channels, 64), nn.ReLU())
        self.latent_dim_pi = action_planes * h * w
        self.latent_dim_vf = 64

    def _trunk(self, features: torch.Tensor) -> torch.Tensor:
        return self.trunk(features.reshape(-1, *self.shape))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self._trunk(features)
        return self._actor(x), self._critic(x)

    def _actor(self, x: torch.Tensor) -> torch.Tensor:
        return self.actor(x).flatten(1)

    def _critic(self, x: torch.Tensor) -> torch.Tensor:
        pooled = torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1)
        return self.critic(pooled)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self._actor(self._trunk(features))

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self._critic(self._trunk(features))


def _conv_policy_class() -> type:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    class FullyConvPolicy(MaskableActorCriticPolicy):  # type: ignore[misc,valid-type]
        """For board games whose actions are ``plane * H * W + row * W + col`` over the observation's grid.

        Observations are channels-first planes ``(C, H, W)``; the logits come straight from a 1x1
        convolution, so a move is scored from the cells around it (no dense layer over the board).
        """

        def _build_mlp_extractor(self) -> None:
            c, h, w = (int(n) for n in self.observation_space.shape or ())
            n = int(getattr(self.action_space, "n", 0))
            planes = n // (h * w)
            if planes * h * w != n:
                raise ValueError(f"{n} actions do not tile a {h}x{w} grid")
            layout: dict[str, Any] = self.net_arch if isinstance(self.net_arch, dict) else {}
            self.mlp_extractor: Any = _ConvHeads((c, h, w), planes, **layout)

        def _build(self, lr_schedule: Any) -> None:
            super()._build(lr_schedule)
            self.action_net = nn.Identity()
            optimizer_class: Any = self.optimizer_class
            self.optimizer = optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    return FullyConvPolicy


FullyConvPolicy = _conv_policy_class()
