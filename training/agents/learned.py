"""``LearnedAgent``: a saved ``MaskablePPO`` policy behind the agent interface.

    agent = LearnedAgent("runs/level_x-v0/demo/final_model.zip", "level_x-v0")
    action = agent.act(state, seat, rng)

It reads only ``state.observation(seat)`` and the legal-action mask, laid out as the policy was trained
(as-is, flattened or channels-first). Deterministic (most likely legal action) by default; with
``deterministic=False`` it samples from the policy with the caller's ``rng``.

Loading is safe by default: the policy is rebuilt from our own code and gets the file's weights read with
``torch.load(weights_only=True)`` (``gameshelf.training.model_io``); nothing in the file is unpickled.
``trust_model=True`` does a full ``MaskablePPO.load`` instead, for models not saved by gameshelf (only
for files you trust: unpickling runs code). At load time the policy is checked against the game: a model
trained on another game (observation or action shape differs) fails with a message naming both.

The policy is loaded when the agent is made (so a bad file fails there) and cached per process; pickling
keeps only the path (so ``SubprocVecEnv`` workers load it themselves, on first use).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf.envs.core.game import State
from gameshelf.training.agents.base import PolicyAgent, load_cached, masked_probabilities
from gameshelf.training.model_io import LoadedPolicy, check_fits, load_policy

_CACHE: dict[tuple[Any, ...], LoadedPolicy] = {}


def model_path(path: str | os.PathLike[str]) -> Path:
    """The saved model file of ``path`` (``.zip`` added when missing); ``FileNotFoundError`` if there is none."""
    p = Path(path)
    for candidate in (p, p.with_name(p.name + ".zip")):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no saved model at {str(path)!r}")


def load_model(path: str | os.PathLike[str], trust_model: bool = False) -> LoadedPolicy:
    """The policy of a saved model on the CPU (cached per process by path, size and modification time).

    Weights only unless ``trust_model`` (see the module's docstring); raises ``ModelLoadError`` (a
    ``ValueError``) with a clear message when the file cannot be loaded safely.
    """
    p = model_path(path).resolve()
    return load_cached(_CACHE, p, lambda: load_policy(p, trust_model=trust_model), trust_model)


class LearnedAgent(PolicyAgent):
    """A trained ``MaskablePPO`` policy playing any seat of ``env_id``."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        env_id: str,
        deterministic: bool = True,
        name: str | None = None,
        trust_model: bool = False,
    ) -> None:
        self.path = str(model_path(path))
        self.env_id = env_id
        self.deterministic = deterministic
        self.trust_model = trust_model
        self.name = name or f"model:{Path(self.path).stem}"
        self._model: Any = None
        _ = self.model  # load and check now: a bad file or a model of another game fails here, not mid-run

    @classmethod
    def from_model(cls, model: Any, env_id: str, name: str = "learner", deterministic: bool = True) -> LearnedAgent:
        """Wrap a model held in memory (e.g. the one being trained); such an agent does not pickle its model."""
        agent = cls.__new__(cls)
        agent.path, agent.env_id, agent.deterministic, agent.name = "", env_id, deterministic, name
        agent.trust_model = False
        agent._model = model
        return agent

    @property
    def model(self) -> Any:
        """The policy (with ``.policy`` and ``.observation_space``), loaded and checked against the game."""
        if self._model is None:
            loaded = load_model(self.path, trust_model=self.trust_model)
            check_fits(loaded, self.env_id, self.path)
            self._model = loaded
        return self._model

    def action_probabilities(self, state: State, seat: int) -> np.ndarray:
        """The policy's distribution over actions (zero on illegal ones) for ``seat`` in ``state``."""
        import torch

        from gameshelf.wrappers import to_policy_input

        model = self.model
        obs = to_policy_input(state.observation(seat), model.observation_space.shape)
        mask = np.asarray(state.legal_action_mask(), dtype=bool)
        with torch.no_grad():
            obs_tensor, _ = model.policy.obs_to_tensor(obs)
            dist = model.policy.get_distribution(obs_tensor, action_masks=mask[None])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        return masked_probabilities(probs, mask)

    def __getstate__(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["_model"] = None
        return data

    def __repr__(self) -> str:
        return f"LearnedAgent({self.path!r}, {self.env_id!r}, deterministic={self.deterministic})"
