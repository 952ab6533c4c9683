"""``RLlibAgent``: a policy trained with ``gameshelf train --backend rllib`` behind the agent interface.

    agent = RLlibAgent("runs/level_x-v0/20260101-120000-s0-rllib", "level_x-v0")   # or .../final_policy
    action = agent.act(state, seat, rng)

``make_agent("rllib:PATH", env_id)`` builds one, so ``gameshelf evaluate`` and ``gameshelf play`` take
``rllib:PATH``. PATH is a policy folder (``final_policy/``, ``checkpoints/iter_N/``) or a run folder. It
is loaded as weights only (``load_policy_modules``: ``gameshelf.json`` and the weights read by
``gameshelf.training.model_io``, the modules rebuilt from our own code): nothing in it is unpickled. It
reads ``state.observation(seat)`` and the legal-action mask exactly as training did, plays seat ``i``
with the module trained for it (one shared module, or one per seat) and is checked against the game
when made: a policy of another game, or of a different player count when each seat has its own
module, fails there with a message naming both.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf.envs.core.game import State
from gameshelf.training.agents.base import PolicyAgent, masked_probabilities
from gameshelf.training.model_io import METADATA, ModelLoadError, PolicyInfo, policy_folder, read_info, read_weights


class RLlibAgent(PolicyAgent):
    """A trained RLlib policy (masked PPO modules) playing any seat of ``env_id``."""

    def __init__(self, path: str | os.PathLike[str], env_id: str, deterministic: bool = True, name: str | None = None) -> None:
        require_ray("rllib:PATH")
        folder = policy_folder(path)
        info, modules = load_policy_modules(folder)
        self.path = str(folder)
        label = folder.parent.name if folder.name == "final_policy" else folder.name
        self._setup(info, modules, env_id, deterministic, name or f"rllib:{label}")
        check_fits(info, env_id, self.path)

    @classmethod
    def from_modules(
        cls, info: Any, modules: dict[str, Any], env_id: str, name: str = "learner", deterministic: bool = True
    ) -> RLlibAgent:
        """Wrap modules held in memory (e.g. copies of the ones being trained)."""
        agent = cls.__new__(cls)
        agent.path = ""
        agent._setup(info, modules, env_id, deterministic, name)
        return agent

    def _setup(self, info: Any, modules: dict[str, Any], env_id: str, deterministic: bool, name: str) -> None:
        self.info, self.modules, self.env_id = info, modules, env_id
        self.deterministic, self.name = deterministic, name

    def module_for(self, seat: int) -> Any:
        seats = self.info.seats
        return self.modules[seats[seat] if seat < len(seats) else seats[0]]

    def action_probabilities(self, state: State, seat: int) -> np.ndarray:
        """The policy's distribution over actions (zero on illegal ones) for ``seat`` in ``state``."""
        import torch
        from ray.rllib.core.columns import Columns

        from gameshelf.training.rllib.env import rllib_observation

        mask = np.asarray(state.legal_action_mask(), dtype=bool)
        obs = rllib_observation({"observation": state.observation(seat), "action_mask": mask})
        batch = {Columns.OBS: {k: torch.from_numpy(v)[None] for k, v in obs.items()}}
        with torch.no_grad():
            logits = self.module_for(seat).forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
            probs = torch.softmax(logits.double(), dim=-1).numpy()
        return masked_probabilities(probs, mask)

    def __repr__(self) -> str:
        return f"RLlibAgent({self.path!r}, {self.env_id!r}, deterministic={self.deterministic})"


def load_policy_modules(path: str | os.PathLike[str]) -> tuple[PolicyInfo, dict[str, Any]]:
    """``(info, {module_id: module})`` of a saved policy, rebuilt from our code with weights-only loading."""
    from gameshelf.training.rllib.module import module_spec

    folder = policy_folder(path)
    info = read_info(folder, "rllib")
    spec = module_spec(info)
    modules: dict[str, Any] = {}
    for module_id in info.modules:
        file = folder / f"{module_id}.pt"
        where = repr(str(file))
        if not file.is_file():
            raise ModelLoadError(f"{where} is missing (named in {METADATA})")
        weights = read_weights(file, where)
        module = spec.build()
        try:
            module.load_state_dict(weights, strict=True)
        except (RuntimeError, TypeError, ValueError) as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ModelLoadError(f"{where}: the weights do not fit the network {METADATA} describes ({first})") from None
        module.eval()
        modules[module_id] = module
    return info, modules


def require_ray(what: str) -> None:
    """Raise an ``ImportError`` naming the extra to install when Ray RLlib is missing."""
    from gameshelf.training.cli_util import RLLIB_INSTALL

    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        raise ImportError(f"{what} needs Ray RLlib (the 'rllib' extra), which is not installed here; {RLLIB_INSTALL}") from None


def check_fits(info: Any, env_id: str, path: str | Path) -> None:
    """Raise ``ModelLoadError`` naming both sides when the policy of ``info`` cannot play ``env_id``."""
    from gameshelf import envs

    players = info.num_players if info.num_players in envs.spec(env_id).player_counts else envs.spec(env_id).player_counts[0]
    options = info.game_options if info.env_id == env_id else {}
    try:
        game = envs.make_game(env_id, num_players=players, **options)
    except ValueError:
        game = envs.make_game(env_id, num_players=players)
    size = int(np.prod(game.info.observation_shape))
    problems = []
    if size != info.observation_size:
        problems.append(f"observations of {size} numbers, the policy takes {info.observation_size}")
    if game.info.num_actions != info.num_actions:
        problems.append(f"{game.info.num_actions} actions, the policy has {info.num_actions}")
    if problems:
        raise ModelLoadError(
            f"the RLlib policy {str(path)!r} was trained on {info.env_id} ({info.num_players} players) and cannot "
            f"play {env_id}: " + "; ".join(problems)
        )
