"""RLlib modules that never pick an illegal action: PPO's default network with the logits masked.

``MaskedPPOModule`` is RLlib's ``DefaultPPOTorchRLModule`` (its default encoder, policy and value heads) over
the ``"observations"`` part of the observation; the ``"action_mask"`` part pushes the logits of illegal
actions to the lowest float, so sampling, the greedy action and the PPO loss only ever see legal ones.
``MaskedRandomModule`` plays uniformly among legal actions (the ``random`` opponents of the league).
``module_spec`` builds the spec of a saved policy's modules from its ``gameshelf.json`` alone.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from gameshelf.training.model_io import PolicyInfo
from gameshelf.training.rllib.env import MASK_KEY, OBS_KEY


def split_observation(batch: dict[str, Any]) -> tuple[torch.Tensor, dict[str, Any]]:
    """``(mask, batch)`` where the batch's observation is the vector alone (the input batch is unchanged)."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict) or OBS_KEY not in obs or MASK_KEY not in obs:
        got = sorted(obs) if isinstance(obs, dict) else type(obs).__name__
        raise ValueError(f"a masked module needs observations {{{OBS_KEY!r}, {MASK_KEY!r}}}; got {got}")
    return obs[MASK_KEY], {**batch, Columns.OBS: obs[OBS_KEY]}


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` where ``mask`` is 1, the lowest float where it is 0."""
    return logits + torch.clamp(torch.log(mask.to(logits.dtype)), min=FLOAT_MIN)


class MaskedPPOModule(DefaultPPOTorchRLModule):  # type: ignore[misc]
    """PPO's default torch module with action masking (observation space ``{observations, action_mask}``)."""

    def __init__(self, *, observation_space: Any = None, action_space: Any = None, **kwargs: Any) -> None:
        if observation_space is None or OBS_KEY not in getattr(observation_space, "spaces", {}):
            raise ValueError(f"MaskedPPOModule needs a Dict observation space with {OBS_KEY!r} and {MASK_KEY!r}")
        self.masked_observation_space = observation_space
        # the network is built for the observation vector alone
        super().__init__(observation_space=observation_space[OBS_KEY], action_space=action_space, **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.masked_observation_space

    def _masked(self, forward: Any, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = split_observation(batch)
        out = forward(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = mask_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return dict(out)

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._masked(super()._forward_inference, batch, **kwargs)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._masked(super()._forward_exploration, batch, **kwargs)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._masked(super()._forward_train, batch, **kwargs)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if isinstance(batch[Columns.OBS], dict):
            _, batch = split_observation(batch)
        return super().compute_values(batch, embeddings)


class MaskedRandomModule(TorchRLModule):  # type: ignore[misc]
    """Uniformly random legal actions: equal logits, masked. It has no weights and is never trained."""

    def setup(self) -> None:
        self.dummy = torch.nn.Parameter(torch.zeros(1), requires_grad=False)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, _ = split_observation(batch)
        return {Columns.ACTION_DIST_INPUTS: mask_logits(torch.zeros_like(mask, dtype=torch.float32), mask)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("the random module is not trained")


def module_spec(info: PolicyInfo) -> Any:
    """The ``RLModuleSpec`` of the policy's modules (all seats share one architecture)."""
    space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-np.inf, np.inf, (info.observation_size,), np.float32),
            MASK_KEY: gym.spaces.Box(0.0, 1.0, (info.num_actions,), np.float32),
        }
    )
    return RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=space,
        action_space=gym.spaces.Discrete(info.num_actions),
        model_config=DefaultModelConfig(fcnet_hiddens=list(info.hidden), fcnet_activation=info.activation),
    )
