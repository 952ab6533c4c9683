"""Train a ``MaskablePPO`` agent on one seat of a gameshelf game.

    python -m gameshelf.training.train level_x-v0
    python -m gameshelf.training.train amoriax-v0 --timesteps 300000 --n-envs 8 --opponent self --seed 1
    python -m gameshelf.training.train koplus-v0 --players 3 --config my_koplus.yaml --out runs/koplus-3p
    python -m gameshelf.training.train level_x-v0 --resume runs/level_x-v0/20260101-120000-s0

Defaults per game come from ``training/configs/<game>.yaml``; command-line options override them. The
learner plays a random seat of a ``SingleSeatEnv`` each episode against ``random``, ``heuristic`` or
``self`` (a pool of frozen snapshots of itself mixed with heuristic and random opponents). A run directory
(default ``runs/<env_id>/<time>-s<seed>``) receives:

* ``config.yaml`` (the resolved configuration), ``tb/`` (TensorBoard logs: ``tensorboard --logdir runs``),
* ``eval.csv`` and ``learning_curve.png``: periodic evaluation against random and heuristic, every seat,
* ``checkpoints/`` (for ``--resume``), ``pool/`` (self-play snapshots), ``final_model.zip``.

User errors (unknown id, bad option, unwritable output) print one line and exit with status 2.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.monitor import Monitor

from gameshelf.training.cli_util import UserError, check_env_id, check_writable_dir, run

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
OPPONENTS = ("random", "heuristic", "self")

DEFAULTS: dict[str, Any] = {
    "players": None,
    "timesteps": 200_000,
    "n_envs": 8,
    "vec_env": "dummy",
    "reward": "outcome",
    "reward_scale": 1.0,
    "observation": "flat",
    "policy": "default",
    "opponent": "self",
    "torch_threads": 1,
    "selfplay": {"snapshot_every": 25_000, "pool_size": 5, "mix": {"snapshots": 0.5, "heuristic": 0.25, "random": 0.25}},
    "ppo": {
        "learning_rate": 3.0e-4,
        "n_steps": 256,
        "batch_size": 512,
        "n_epochs": 4,
        "gamma": 0.99,
        "gae_lambda": 0.95,
        "ent_coef": 0.01,
        "clip_range": 0.2,
        "vf_coef": 0.5,
        "net_arch": [128, 128],
        "features_dim": 256,
    },
    "eval": {"every": 25_000, "games": 100, "opponents": ["random", "heuristic"]},
    "checkpoint_every": 50_000,
    "game_options": {},
}


# ---- configuration ---------------------------------------------------------------------------------
def _merge(base: dict[str, Any], override: dict[str, Any], where: str) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if key not in base:
            raise UserError(f"{where}: unknown setting {key!r}; known: {', '.join(sorted(base))}")
        if isinstance(base[key], dict) and key not in ("game_options", "mix"):
            if not isinstance(value, dict):
                raise UserError(f"{where}: setting {key!r} must be a mapping")
            out[key] = _merge(base[key], value, f"{where}: {key}")
        else:
            out[key] = copy.deepcopy(value)
    return out


def game_name(env_id: str) -> str:
    return env_id.rsplit("-v", 1)[0]


def load_config(env_id: str, path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Defaults, then ``training/configs/<game>.yaml`` (or ``path``)."""
    import yaml

    config = copy.deepcopy(DEFAULTS)
    file = Path(path) if path is not None else CONFIG_DIR / f"{game_name(env_id)}.yaml"
    if path is None and not file.exists():
        return config
    try:
        data = yaml.safe_load(file.read_text()) or {}
    except OSError as err:
        raise UserError(f"cannot read config {str(file)!r}: {err.strerror or err}") from None
    except yaml.YAMLError as err:
        raise UserError(f"config {str(file)!r} is not valid YAML: {err}") from None
    if not isinstance(data, dict):
        raise UserError(f"config {str(file)!r} must be a mapping of settings")
    data.pop("env_id", None)
    return _merge(config, data, str(file))


def validate_config(config: dict[str, Any]) -> None:
    def positive_int(value: Any, name: str) -> None:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise UserError(f"{name} must be a positive integer, got {value!r}")

    positive_int(config["timesteps"], "timesteps")
    scale = config["reward_scale"]
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
        raise UserError(f"reward_scale must be a positive number, got {scale!r}")
    positive_int(config["n_envs"], "n_envs")
    for key in ("snapshot_every", "pool_size"):
        positive_int(config["selfplay"][key], f"selfplay.{key}")
    positive_int(config["eval"]["every"], "eval.every")
    positive_int(config["eval"]["games"], "eval.games")
    positive_int(config["checkpoint_every"], "checkpoint_every")
    positive_int(config["ppo"]["n_steps"], "ppo.n_steps")
    positive_int(config["ppo"]["batch_size"], "ppo.batch_size")
    choices = {
        "opponent": OPPONENTS,
        "vec_env": ("dummy", "subproc"),
        "reward": ("outcome", "score"),
        "observation": ("flat", "planes"),
        "policy": ("default", "fully_conv"),
    }
    for key, allowed in choices.items():
        if config[key] not in allowed:
            raise UserError(f"{key}={config[key]!r} is not allowed; allowed values: {', '.join(allowed)}")


# ---- environments ----------------------------------------------------------------------------------
def make_env_fn(env_id: str, config: dict[str, Any], opponents: Any) -> Any:
    """A picklable constructor of one wrapped ``SingleSeatEnv`` (for ``DummyVecEnv``/``SubprocVecEnv``)."""
    return _EnvFactory(
        env_id,
        config["players"],
        config["reward"],
        config["observation"],
        config["game_options"],
        opponents,
        float(config["reward_scale"]),
    )


@dataclass
class _EnvFactory:
    env_id: str
    players: int
    reward: str
    observation: str
    game_options: dict[str, Any]
    opponents: Any
    reward_scale: float = 1.0

    def __call__(self) -> Any:
        from gameshelf.training.agents import make_agent
        from gameshelf.wrappers import ChannelsFirstObservation, FlattenObservation, SingleSeatEnv

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
        env = _MaskedMonitor(env)
        return env if self.reward_scale == 1.0 else _ScaledReward(env, self.reward_scale)


class _MaskedMonitor(Monitor):  # type: ignore[misc]
    """SB3's ``Monitor`` (episode statistics) that forwards ``action_masks``."""

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.get_wrapper_attr("action_masks")(), dtype=bool)


class _ScaledReward(gym.RewardWrapper):  # type: ignore[misc]
    """Rewards multiplied by a constant (for ``reward: score`` shaping); forwards ``action_masks``."""

    def __init__(self, env: Any, scale: float) -> None:
        super().__init__(env)
        self.scale = scale

    def reward(self, reward: Any) -> float:
        return float(reward) * self.scale

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.get_wrapper_attr("action_masks")(), dtype=bool)


# ---- the run -------------------------------------------------------------------------------------------
@dataclass
class TrainResult:
    run_dir: Path
    model_path: Path
    evaluations: list[dict[str, Any]] = field(default_factory=list)
    wall_s: float = 0.0
    timesteps: int = 0


def _initial_opponents(config: dict[str, Any]) -> Any:
    kind = config["opponent"]
    if kind in ("random", "heuristic"):
        return [kind]
    return ["random"]  # replaced by the pool right after the first snapshot


def heuristic_available(env_id: str) -> bool:
    from gameshelf.training.agents import make_agent

    try:
        make_agent("heuristic", env_id)
    except (ValueError, ImportError):
        return False
    return True


def train(
    env_id: str,
    *,
    players: int | None = None,
    timesteps: int | None = None,
    n_envs: int | None = None,
    opponent: str | None = None,
    seed: int = 0,
    config: str | os.PathLike[str] | dict[str, Any] | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: str | os.PathLike[str] | None = None,
    progress: bool = True,
    verbose: int = 0,
) -> TrainResult:
    """Train (or resume) a run; returns where the model and the evaluations are. Raises ``UserError``.

    ``config``: a YAML path replacing the game's config file, or a dict of settings overriding it.
    """
    import torch
    import yaml
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from gameshelf.training.callbacks import TrainingCallback
    from gameshelf.training.policies import policy_kwargs
    from gameshelf.training.selfplay import OpponentPool

    start = time.perf_counter()
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / "config.yaml").is_file():
            raise UserError(f"{str(run_dir)!r} is not a run directory (no config.yaml)")
        saved = yaml.safe_load((run_dir / "config.yaml").read_text())
        env_id = saved.pop("env_id")
        seed = saved.pop("seed", seed)
        cfg = _merge(DEFAULTS, saved, str(run_dir / "config.yaml"))
        if timesteps is not None:
            cfg["timesteps"] = timesteps
    else:
        cfg = _merge(load_config(env_id), config, "config") if isinstance(config, dict) else load_config(env_id, config)
        check_env_id(env_id)
        for key, value in (("players", players), ("timesteps", timesteps), ("n_envs", n_envs), ("opponent", opponent)):
            if value is not None:
                cfg[key] = value
    cfg["players"] = check_env_id(env_id, cfg["players"])
    validate_config(cfg)
    mix_heuristic = cfg["selfplay"]["mix"].get("heuristic", 0) > 0
    wants_heuristic = cfg["opponent"] == "heuristic" or (cfg["opponent"] == "self" and mix_heuristic)
    if wants_heuristic and not heuristic_available(env_id):
        if cfg["opponent"] == "heuristic":
            raise UserError(f"no heuristic agent is available for {env_id}")
        cfg["selfplay"]["mix"].pop("heuristic", None)
    if resume is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = Path(out) if out is not None else Path("runs") / env_id / f"{stamp}-s{seed}"
        if run_dir.exists() and any(run_dir.iterdir()):
            raise UserError(f"{str(run_dir)!r} already holds a run; use --resume {run_dir} or another --out")
    check_writable_dir(run_dir)
    for sub in ("checkpoints", "pool", "tb"):
        (run_dir / sub).mkdir(exist_ok=True)
    if resume is None:
        (run_dir / "config.yaml").write_text(yaml.safe_dump({"env_id": env_id, "seed": seed, **cfg}, sort_keys=False))

    torch.set_num_threads(int(cfg["torch_threads"]))
    factories = [make_env_fn(env_id, cfg, _initial_opponents(cfg)) for _ in range(cfg["n_envs"])]
    vec = SubprocVecEnv(factories) if cfg["vec_env"] == "subproc" else DummyVecEnv(factories)
    vec.seed(seed)
    try:
        pool = None
        state_file = run_dir / "state.json"
        saved_state = json.loads(state_file.read_text()) if resume is not None and state_file.exists() else {}
        if cfg["opponent"] == "self":
            sp = cfg["selfplay"]
            pool = OpponentPool(env_id, sp["mix"], sp["pool_size"], saved_state.get("snapshots"))
        ppo = dict(cfg["ppo"])
        kwargs = policy_kwargs(cfg["observation"], ppo.pop("net_arch"), ppo.pop("features_dim"))
        ppo["batch_size"] = min(ppo["batch_size"], ppo["n_steps"] * cfg["n_envs"])
        checkpoint = _latest_checkpoint(run_dir) if resume is not None else None
        if resume is not None and checkpoint is None:
            raise UserError(f"{str(run_dir)!r} has no checkpoint to resume from")
        if checkpoint is not None:
            model = MaskablePPO.load(str(checkpoint), env=vec, device="cpu", tensorboard_log=str(run_dir / "tb"))
        else:
            if cfg["policy"] == "fully_conv":
                from gameshelf.training.policies import FullyConvPolicy

                policy: Any = FullyConvPolicy
                kwargs = {"net_arch": {}, "features_extractor_class": FlattenExtractor}
            else:
                policy = "MlpPolicy"
            model = MaskablePPO(
                policy,
                vec,
                policy_kwargs=kwargs,
                tensorboard_log=str(run_dir / "tb"),
                seed=seed,
                device="cpu",
                verbose=verbose,
                **ppo,
            )
        callback = TrainingCallback(
            env_id, cfg, run_dir, pool, progress=progress, seed=seed, wall_offset=saved_state.get("wall_s", 0.0)
        )
        remaining = cfg["timesteps"] - model.num_timesteps
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=callback,
                reset_num_timesteps=checkpoint is None,
                tb_log_name="ppo",
            )
        final = run_dir / "final_model.zip"
        model.save(str(final))
        callback.finish(model)
    finally:
        vec.close()
    wall = time.perf_counter() - start + float(saved_state.get("wall_s", 0.0))
    callback.write_curve()
    _write_state(run_dir, pool, model.num_timesteps, wall)
    return TrainResult(run_dir, final, callback.rows, wall, int(model.num_timesteps))


def _latest_checkpoint(run_dir: Path) -> Path | None:
    files = sorted((run_dir / "checkpoints").glob("model_*.zip"), key=lambda p: int(p.stem.split("_")[1]))
    return files[-1] if files else None


def _write_state(run_dir: Path, pool: Any, timesteps: int, wall_s: float) -> None:
    data = {"timesteps": int(timesteps), "wall_s": wall_s, "snapshots": pool.snapshots if pool is not None else []}
    (run_dir / "state.json").write_text(json.dumps(data, indent=1))


def read_evaluations(run_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    path = Path(run_dir) / "eval.csv"
    if not path.exists():
        return []
    with path.open() as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


# ---- command line -------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gameshelf train",
        description="Train a MaskablePPO agent on one seat of a gameshelf game (self-play by default).",
    )
    parser.add_argument("env_id", nargs="?", help="environment id, e.g. level_x-v0 (not needed with --resume)")
    parser.add_argument("--players", type=int, default=None, help="number of players (default: the config's or the id's first)")
    parser.add_argument("--timesteps", type=int, default=None, help="total learner steps (default: the game's config)")
    parser.add_argument("--n-envs", type=int, default=None, help="parallel environments (default: the game's config)")
    parser.add_argument(
        "--opponent", choices=OPPONENTS, default=None, help="opponents (default: the game's config, usually self)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--config", default=None, help="YAML config (default training/configs/<game>.yaml)")
    parser.add_argument("--out", default=None, help="run directory (default runs/<env_id>/<time>-s<seed>)")
    parser.add_argument("--resume", default=None, metavar="RUN_DIR", help="continue a run from its latest checkpoint")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--verbose", type=int, default=0, help="SB3 verbosity (0, 1, 2)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.resume is None and args.env_id is None:
        parser.error("give an environment id (or --resume RUN_DIR)")
    for name in ("timesteps", "n_envs", "players"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    result = train(
        args.env_id or "",
        players=args.players,
        timesteps=args.timesteps,
        n_envs=args.n_envs,
        opponent=args.opponent,
        seed=args.seed,
        config=args.config,
        out=args.out,
        resume=args.resume,
        progress=not args.quiet,
        verbose=args.verbose,
    )
    print(f"trained {result.timesteps} steps in {result.wall_s:.0f} s")
    if result.evaluations:
        last = result.evaluations[-1]
        print("last evaluation: " + ", ".join(f"{k}={v:.3g}" for k, v in last.items() if k != "timesteps"))
    print(f"model: {result.model_path}")
    print(f"learning curve: {result.run_dir / 'learning_curve.png'}")
    return 0


if __name__ == "__main__":
    run(main, prog="gameshelf train")
