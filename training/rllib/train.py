"""Train on Ray RLlib (PPO, new API stack): ``gameshelf train <id> --backend rllib``.

    gameshelf train level_x-v0 --backend rllib --num-env-runners 2
    gameshelf train koplus-v0 --backend rllib --players 3 --policies per_seat
    gameshelf train level_x-v0 --backend rllib --address auto        # on a running Ray cluster

The settings are those of SB3 training (``training/configs/<game>.yaml``, ``--config``, the command line),
read the same way: ``players``, ``timesteps`` (here: every seat's moves, RLlib's environment steps),
``reward``, ``game_options``, ``selfplay`` (the league of snapshots, ``gameshelf.training.rllib.league``),
``ppo`` (``n_steps * n_envs`` moves per training batch, ``batch_size`` per minibatch, ``n_epochs``,
``learning_rate``, ``gamma``, ``gae_lambda``, ``ent_coef``, ``clip_range``, ``vf_coef``, ``net_arch``),
``eval`` and ``checkpoint_every``. RLlib's own settings are ``RLlibSettings``.

A run folder (default ``runs/<env_id>/<time>-s<seed>-rllib``) receives ``config.yaml``, ``progress.csv``
(a row per training iteration: moves, seconds, moves per second), ``eval.csv`` and
``learning_curve.png`` (the learner against ``eval.opponents`` on every seat, through the same
``evaluate`` as SB3 runs), ``checkpoints/iter_N/`` (the last ``keep_checkpoints``) and ``final_policy/``
(policies saved as plain JSON and weights, loaded as the agent ``rllib:PATH``), and ``algorithm/``, RLlib's
own checkpoint of the whole algorithm at the end (for continuing in Ray; it holds pickles, so only restore
one you made yourself, see docs/security.md).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gameshelf.training.cli_util import UserError
from gameshelf.training.config import TrainConfig, resolve_config
from gameshelf.training.rllib.league import POLICIES, RLLIB_OPPONENTS, League

ENV_NAME = "gameshelf_rllib"


@dataclass(frozen=True)
class RLlibSettings:
    """How RLlib runs (not what it learns).

    ``num_env_runners``: sampling processes (0: sample in the driver process). ``envs_per_runner``: games
    each runner steps. ``address``: a running Ray cluster (``auto``, ``ray://host:10001``, ...); None starts
    Ray on this machine with ``num_cpus`` (default: all cores). ``policies``: ``shared`` or ``per_seat``.
    """

    num_env_runners: int = 1
    envs_per_runner: int = 1
    address: str | None = None
    num_cpus: int | None = None
    policies: str = "shared"

    def check(self) -> RLlibSettings:
        if self.num_env_runners < 0:
            raise UserError(f"--num-env-runners must be 0 or more, not {self.num_env_runners}")
        if self.envs_per_runner < 1:
            raise UserError(f"--envs-per-runner must be at least 1, not {self.envs_per_runner}")
        if self.num_cpus is not None and self.num_cpus < 1:
            raise UserError(f"--num-cpus must be at least 1, not {self.num_cpus}")
        if self.policies not in POLICIES:
            raise UserError(f"--policies must be one of {', '.join(POLICIES)}, not {self.policies!r}")
        return self


def make_league(cfg: TrainConfig, settings: RLlibSettings) -> League:
    if cfg.opponent not in RLLIB_OPPONENTS:
        raise UserError(
            f"opponent={cfg.opponent} is not available with --backend rllib (RLlib modules see observations, not "
            f"the game state a heuristic needs); use --opponent {' or '.join(RLLIB_OPPONENTS)}"
        )
    if settings.policies == "per_seat" and cfg.opponent != "self":
        raise UserError("--policies per_seat trains every seat against the others: use it with --opponent self")
    return League(cfg.players, settings.policies, cfg.opponent, cfg.selfplay.mix, cfg.selfplay.pool_size)


def env_config(cfg: TrainConfig) -> dict[str, Any]:
    return {"env_id": cfg.env_id, "players": cfg.players, "reward": cfg.reward, "game_options": dict(cfg.game_options)}


def algorithm_config(cfg: TrainConfig, settings: RLlibSettings, league: League) -> Any:
    """RLlib's ``PPOConfig`` for a run: our environment, masked modules, the league's mapping, PPO settings."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from gameshelf.training.rllib.module import MaskedRandomModule
    from gameshelf.training.rllib.policy_io import module_spec

    info = policy_info(cfg, league)
    masked = module_spec(info)
    specs = {m: masked for m in league.trained + league.snapshots}
    if "random" in league.frozen:
        specs["random"] = RLModuleSpec(module_class=MaskedRandomModule)
    batch = cfg.ppo.n_steps * cfg.n_envs
    ppo = cfg.ppo
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config(cfg), disable_env_checking=True)
        .env_runners(
            num_env_runners=settings.num_env_runners,
            num_envs_per_env_runner=settings.envs_per_runner,
            rollout_fragment_length="auto",
        )
        .multi_agent(policies=set(specs), policy_mapping_fn=league, policies_to_train=league.trained)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=min(ppo.batch_size, batch),
            num_epochs=ppo.n_epochs,
            lr=ppo.learning_rate,
            gamma=ppo.gamma,
            lambda_=ppo.gae_lambda,
            entropy_coeff=ppo.ent_coef,
            clip_param=ppo.clip_range,
            vf_loss_coeff=ppo.vf_coef,
        )
        .debugging(seed=cfg.seed, log_level="ERROR")
    )


def policy_info(cfg: TrainConfig, league: League, env_steps: int = 0, iteration: int = 0) -> Any:
    """The ``PolicyInfo`` (shapes, seats) of the policy a run trains."""
    import numpy as np

    from gameshelf import envs
    from gameshelf.training.rllib.policy_io import PolicyInfo

    game = envs.make_game(cfg.env_id, num_players=cfg.players, **cfg.game_options)
    return PolicyInfo(
        env_id=cfg.env_id,
        num_players=cfg.players,
        observation_size=int(np.prod(game.info.observation_shape)),
        num_actions=int(game.info.num_actions),
        hidden=list(cfg.ppo.net_arch),
        activation="tanh",
        seats=league.seats(),
        env_steps=int(env_steps),
        iteration=int(iteration),
        game_options=dict(cfg.game_options),
    )


# ---- the run --------------------------------------------------------------------------------------------
def start_ray(settings: RLlibSettings) -> bool:
    """Connect to ``settings.address`` or start Ray here; False when Ray was already running in this process."""
    import ray

    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if settings.address:
        try:
            ray.init(address=settings.address, **kwargs)
        except ConnectionError as err:
            raise UserError(
                f"cannot connect to the Ray cluster at {settings.address!r} ({str(err).strip()[:160]}); is it started "
                "(ray status)? If it uses token authentication, export RAY_AUTH_MODE=token and give this machine the "
                "cluster's ~/.ray/auth_token (see docs/scaling.md)"
            ) from None
    else:
        cpus = settings.num_cpus or max(os.cpu_count() or 1, settings.num_env_runners)
        ray.init(address="local", num_cpus=cpus, **kwargs)  # a new local Ray, never a stale cluster found in /tmp/ray
    return True


class Run:
    """One RLlib training run: the algorithm, its run folder and the periodic jobs (snapshots, evaluation, checkpoints)."""

    def __init__(self, cfg: TrainConfig, settings: RLlibSettings, root: Path, say: Any = print) -> None:
        from ray.tune.registry import register_env

        from gameshelf.training.rllib.env import make_rllib_env
        from gameshelf.training.rllib.league import Snapshots

        self.cfg, self.settings, self.root, self.say = cfg, settings, root, say
        self.league = make_league(cfg, settings)
        register_env(ENV_NAME, make_rllib_env)
        self.algo = algorithm_config(cfg, settings, self.league).build_algo()
        self.snapshots = Snapshots(self.league)
        self.snapshots.push(self.algo)  # every snapshot starts as the initial policy
        self.steps = self.iteration = 0
        self.start = time.perf_counter()
        self.progress: list[dict[str, Any]] = []
        self.evaluations: list[dict[str, Any]] = []
        self.next = {"snapshot": cfg.selfplay.snapshot_every, "eval": cfg.eval.every, "checkpoint": cfg.checkpoint_every}

    def clock(self) -> float:
        return time.perf_counter() - self.start

    def train_iteration(self) -> dict[str, Any]:
        """One RLlib iteration (sample, learn), then whichever periodic jobs are due."""
        from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

        began = time.perf_counter()
        result = self.algo.train()
        seconds = time.perf_counter() - began
        before = self.steps
        self.steps = int(result[ENV_RUNNER_RESULTS].get(NUM_ENV_STEPS_SAMPLED_LIFETIME, before))
        self.iteration += 1
        returns = result[ENV_RUNNER_RESULTS].get("module_episode_returns_mean", {})
        row = {
            "iteration": self.iteration,
            "env_steps": self.steps,
            "wall_s": round(self.clock(), 2),
            "iteration_s": round(seconds, 3),
            "env_steps_per_s": round((self.steps - before) / seconds, 1) if seconds > 0 else 0.0,
            **{f"return_{m}": round(float(v), 4) for m, v in sorted(returns.items())},
        }
        self.progress.append(row)
        write_csv(self.root / "progress.csv", self.progress)
        if self._due("snapshot"):
            self.snapshots.push(self.algo)
        if self._due("eval"):
            self.evaluate()
        if self._due("checkpoint"):
            self.save_policy(self.root / "checkpoints" / f"iter_{self.iteration:06d}")
            prune(self.root / "checkpoints", self.cfg.keep_checkpoints)
        return row

    def _due(self, job: str) -> bool:
        every = {
            "snapshot": self.cfg.selfplay.snapshot_every,
            "eval": self.cfg.eval.every,
            "checkpoint": self.cfg.checkpoint_every,
        }[job]
        if self.steps < self.next[job]:
            return False
        self.next[job] = (self.steps // every + 1) * every
        return True

    def modules(self) -> tuple[Any, dict[str, Any]]:
        """``(info, {module: weights})`` of the trained modules as the learner holds them now."""
        from gameshelf.training.rllib.league import learner_module_states

        info = policy_info(self.cfg, self.league, self.steps, self.iteration)
        return info, learner_module_states(self.algo, self.league.trained)

    def save_policy(self, folder: Path) -> Path:
        from gameshelf.training.rllib.policy_io import save_policy

        info, weights = self.modules()
        tmp = folder.with_name(folder.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        save_policy(tmp, info, weights)
        shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)
        return folder

    def learner_agent(self) -> Any:
        """The trained policy as an agent (a copy of the weights, for evaluation)."""
        import torch

        from gameshelf.training.rllib.agent import RLlibAgent
        from gameshelf.training.rllib.policy_io import module_spec

        info, weights = self.modules()
        spec = module_spec(info)
        modules = {}
        for module_id, state in weights.items():
            module = spec.build()
            module.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()}, strict=True)
            module.eval()
            modules[module_id] = module
        return RLlibAgent.from_modules(info, modules, self.cfg.env_id, name="learner")

    def evaluate(self) -> None:
        """The learner against each of ``eval.opponents`` (every seat); a row in ``eval.csv``, the curve redrawn."""
        from gameshelf.training.callbacks import _has_heuristic, plot_learning_curve
        from gameshelf.training.evaluate import evaluate

        cfg = self.cfg
        opponents = [o for o in cfg.eval.opponents if o != "heuristic" or _has_heuristic(cfg.env_id)]
        if not opponents:
            return
        result = evaluate(
            cfg.env_id,
            [self.learner_agent(), *opponents],
            games=cfg.eval.games,
            seed=cfg.seed + 1000,
            num_players=cfg.players,
            options=cfg.game_options or None,
            first_only=True,
        )
        row: dict[str, Any] = {"timesteps": self.steps, "wall_s": round(self.clock(), 1)}
        for name in result.agents[1:]:
            pair = result.pair("learner", name)
            row[f"win_{name}"] = round(pair.win_rate, 4)
            row[f"draw_{name}"] = round(pair.draws / pair.games, 4)
            row[f"rank_{name}"] = round(pair.mean_rank, 4)
            row[f"return_{name}"] = round(pair.mean_return, 4)
        self.evaluations.append(row)
        write_csv(self.root / "eval.csv", self.evaluations)
        plot_learning_curve(self.evaluations, self.root / "learning_curve.png", f"{cfg.env_id}, {cfg.players} players (RLlib)")
        self.say(
            f"[{row['timesteps']} moves, {row['wall_s']:.0f} s] "
            + ", ".join(f"vs {n}: win {100 * row[f'win_{n}']:.0f}% rank {row[f'rank_{n}']:.2f}" for n in result.agents[1:])
        )

    def finish(self) -> Path:
        """The last evaluation, ``final_policy/`` and RLlib's checkpoint of the algorithm."""
        if not self.evaluations or self.evaluations[-1]["timesteps"] != self.steps:
            self.evaluate()
        final = self.save_policy(self.root / "final_policy")
        self.algo.save_to_path(str((self.root / "algorithm").resolve()))
        return final

    def stop(self) -> None:
        self.algo.stop()


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    from gameshelf.training.model_io import atomic_write_text

    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=keys)
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, text.getvalue())


def prune(folder: Path, keep: int) -> None:
    """Delete all but the newest ``keep`` ``iter_N`` folders."""
    done = sorted(p for p in folder.glob("iter_*") if p.is_dir() and not p.name.endswith(".tmp"))
    for old in done[: max(0, len(done) - keep)]:
        shutil.rmtree(old, ignore_errors=True)


def train_rllib(
    env_id: str,
    *,
    settings: RLlibSettings | None = None,
    players: int | None = None,
    timesteps: int | None = None,
    n_envs: int | None = None,
    opponent: str | None = None,
    seed: int = 0,
    config: str | os.PathLike[str] | dict[str, Any] | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: bool = False,
    quiet: bool = False,
) -> Any:
    """Train a run on RLlib; returns a ``TrainResult`` (``model_path`` is ``final_policy/``). Raises ``UserError``."""
    import yaml

    from gameshelf.training.callbacks import StopOnSignal
    from gameshelf.training.checkpoints import check_new_run_dir
    from gameshelf.training.cli_util import check_writable_dir
    from gameshelf.training.model_io import atomic_write_text
    from gameshelf.training.rllib.agent import require_ray
    from gameshelf.training.train import TrainResult

    settings = (settings or RLlibSettings()).check()
    overrides = {"players": players, "timesteps": timesteps, "n_envs": n_envs, "opponent": opponent}
    cfg = resolve_config(env_id, config, seed=seed, overrides=overrides)
    make_league(cfg, settings)  # every setting checked before anything is created
    try:
        require_ray("--backend rllib")
    except ImportError as err:
        raise UserError(str(err)) from None
    root = Path(out) if out is not None else Path("runs") / env_id / f"{time.strftime('%Y%m%d-%H%M%S')}-s{seed}-rllib"
    check_new_run_dir(root)
    check_writable_dir(root)
    root.mkdir(parents=True, exist_ok=True)
    (root / "checkpoints").mkdir(exist_ok=True)
    data = {"env_id": cfg.env_id, "backend": "rllib", **cfg.to_dict(), "rllib": dataclasses.asdict(settings)}
    atomic_write_text(root / "config.yaml", yaml.safe_dump(data, sort_keys=False))

    def say(message: str) -> None:
        if not quiet:
            print(message, flush=True)

    started = start_ray(settings)
    run = None
    bar = None
    try:
        run = Run(cfg, settings, root, say)
        if progress and not quiet:
            from tqdm.auto import tqdm

            bar = tqdm(total=cfg.timesteps, desc=f"train {cfg.env_id} (rllib)", unit="move")
        with StopOnSignal() as stop:
            while run.steps < cfg.timesteps and stop.received is None:
                run.train_iteration()
                if bar is not None:
                    bar.update(min(run.steps, cfg.timesteps) - bar.n)
        if bar is not None:
            bar.close()
        final = run.finish()
        if stop.received is not None:
            message = f"{stop.signal_name}: stopped after {run.steps} moves; saved {final} (an RLlib run cannot be resumed)"
            return TrainResult(root, final, run.evaluations, run.clock(), run.steps, "interrupted", message, stop.signal_name)
        message = f"trained {run.steps} moves ({run.iteration} iterations) in {run.clock():.0f} s on RLlib"
        return TrainResult(root, final, run.evaluations, run.clock(), run.steps, "finished", message)
    finally:
        if run is not None:
            run.stop()
        if started:
            import ray

            ray.shutdown()
