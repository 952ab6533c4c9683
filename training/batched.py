"""The ``batched`` backend: ``MaskablePPO`` on one seat of batched games (compiled kernels, one process).

    gameshelf train level_x-v0 --backend batched --opponent random --timesteps 150000

The learner, its settings, the run folder, evaluation, checkpoints and ``--resume`` are those of the ``sb3``
backend (``gameshelf.training.sb3``), with ``SETTINGS`` laid over the game's file; only the environments
differ: ``n_envs`` games stepped together by the compiled kernels of ``gameshelf.vector`` in a
``BatchedSingleSeatVecEnv``, with the opponents played inside the batch. So only ids with compiled kernels
(``spec(id).batched``), fixed opponents (``random`` or ``heuristic``, no self-play), the ``outcome`` reward
and the flat observation layout. The model is saved as ``final_model.zip`` with its ``gameshelf.json``, like
every other (a ``model:PATH`` agent).
"""

from __future__ import annotations

from typing import Any

from gameshelf.training.checkpoints import Plan
from gameshelf.training.cli_util import UserError
from gameshelf.training.config import TrainConfig

OPPONENTS = ("random", "heuristic")
SETTINGS: dict[str, Any] = {"n_envs": 64, "ppo": {"n_steps": 64, "batch_size": 1024}}
"""The batched backend's own settings, over the game's file (a config dict and the command line still win):
more games per step and larger minibatches, measured at 2.2-2.3 times the env steps per CPU-second of the
games' files (8 games, 256 steps, minibatches of 512) at the same win rates after the same steps on Level X
and Olenon; docs/training.md, "Tuning the batched backend"."""


def check(plan: Plan) -> None:
    """Refuse, before anything is created, the settings the batched environments cannot honour."""
    config = plan.config
    from gameshelf.envs import batched_ids, spec

    if not spec(config.env_id).batched:
        raise UserError(f"{config.env_id} has no compiled kernel; batched ids: {batched_ids()}")
    if config.opponent not in OPPONENTS:
        raise UserError(
            f"opponent={config.opponent} is not available with --backend batched (the opponents play inside the "
            f"compiled batch); use --opponent {' or '.join(OPPONENTS)}"
        )
    unsupported = {"reward": "outcome", "reward_scale": 1.0, "observation": "flat", "policy": "default"}
    for name, allowed in unsupported.items():
        if getattr(config, name) != allowed:
            raise UserError(f"{name}={getattr(config, name)} is not available with --backend batched (only {allowed})")


def make_vec_env(config: TrainConfig) -> Any:
    """``config.n_envs`` batched games with the learner on one seat, seeded with the run's seed."""
    from gameshelf.wrappers.batched import BatchedSingleSeatVecEnv

    options = {"num_players": config.players, **config.game_options}
    return BatchedSingleSeatVecEnv(config.env_id, config.n_envs, opponents=config.opponent, seed=config.seed, **options)
