"""The ``rllib`` backend: PPO on Ray RLlib (new API stack), driven by ``gameshelf train <id> --backend rllib``.

    gameshelf train level_x-v0 --backend rllib --num-env-runners 2
    gameshelf train level_x-v0 --backend rllib --opponent random --envs-per-runner 64   # batched runners
    gameshelf train koplus-v0 --backend rllib --players 3 --policies per_seat
    gameshelf train level_x-v0 --backend rllib --address auto        # on a running Ray cluster
    gameshelf train --resume runs/level_x-v0/20260101-120000-s0-rllib  # continue a run (Ctrl-C says how)

The settings are those of SB3 training (``training/configs/<game>.yaml``, ``--config``, the command line),
read the same way: ``players``, ``timesteps`` (here: every seat's moves, RLlib's environment steps),
``reward``, ``game_options``, ``selfplay`` (the league of snapshots, ``gameshelf.training.rllib.league``),
``ppo`` (``n_steps * n_envs`` moves per training batch, ``batch_size`` per minibatch, ``n_epochs``,
``learning_rate``, ``gamma``, ``gae_lambda``, ``ent_coef``, ``clip_range``, ``vf_coef``, ``net_arch``),
``eval`` and ``checkpoint_every``. RLlib's own settings are ``RLlibSettings``.

The run folder is the one every backend writes (``gameshelf.training.checkpoints``; default
``runs/<env_id>/<time>-s<seed>-rllib``): ``config.yaml`` (with ``backend: rllib`` and ``RLlibSettings``),
``state.json``, ``env_runners.json`` (where the env runners run), ``eval.csv`` and ``learning_curve.png``
(the learner against ``eval.opponents`` on every seat, through the same evaluation as SB3 runs),
``checkpoints/iter_N/`` (the last ``keep_checkpoints``) and
``final_policy/`` (policies saved as ``gameshelf.json`` and weights by ``gameshelf.training.model_io``,
loaded as the agent ``rllib:PATH``), and ``progress.csv`` (a row per training iteration: moves, seconds,
moves per second). Every checkpoint folder (``iter_N/`` and ``final_policy/``) also holds what resuming
needs: ``algorithm/``, RLlib's own state of the whole algorithm (weights, optimizers, counters; written by
``Algorithm.save_to_path``, it holds pickles, see docs/security.md), and ``league/snap_K.pt``, the
league's frozen snapshots as weights.

``gameshelf train --resume RUN`` continues an RLlib run from its checkpoint with the most steps: the
algorithm's state, the snapshots, the step and iteration counts, ``progress.csv`` and ``eval.csv`` up to
it; RLlib's options other than ``--policies`` may change (e.g. more env runners, or ``--address``).
SIGINT, SIGTERM or SIGHUP stops the run after the current iteration, saves ``checkpoints/iter_N/`` and
``state.json``, prints the resume command and exits with 130 (143, 129), as SB3 runs do.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gameshelf.training.checkpoints import Plan, RunDir, RunState, TrainResult, read_rows, reporter, write_rows
from gameshelf.training.cli_util import UserError
from gameshelf.training.config import TrainConfig
from gameshelf.training.model_io import PolicyInfo
from gameshelf.training.rllib.league import POLICIES, RLLIB_OPPONENTS, League

ENV_NAME = "gameshelf_rllib"
BATCHED_ENV_NAME = "gameshelf_rllib_batched"
ALGORITHM = "algorithm"
"""In every checkpoint folder: RLlib's own state of the whole algorithm (weights, optimizers, counters)."""
LEAGUE = "league"
"""In every checkpoint folder: the league's frozen snapshots, ``snap_K.pt`` (weights only)."""


@dataclass(frozen=True)
class RLlibSettings:
    """How RLlib runs (not what it learns).

    ``num_env_runners``: sampling processes (0: sample in the driver process). ``envs_per_runner``: games
    each runner steps. ``address``: a running Ray cluster (``auto``, ``ray://host:10001``, ...); None starts
    Ray on this machine with ``num_cpus`` (default: all cores). ``policies``: ``shared`` or ``per_seat``.
    ``runner_resources``: custom Ray resources each env runner asks for besides its CPU (``{"worker": 1}``
    places the runners on the nodes started with ``--resources '{"worker": N}'``), None for none.
    ``runner_env``: ``batched`` (each runner steps its ``envs_per_runner`` games on compiled kernels in one
    call, the learner on one seat and fixed opponents inside the batch: ``BatchedSeatVectorEnv``), ``aec``
    (each game a PettingZoo AEC environment through RLlib's ``PettingZooEnv``, every seat an RLlib agent: the
    league of snapshots, ``per_seat``), or ``auto``: ``batched`` when the game has kernels and the run can
    use them (``batched_reason``), else ``aec``. A planned run records which one it resolved to.
    """

    num_env_runners: int = 1
    envs_per_runner: int = 1
    address: str | None = None
    num_cpus: int | None = None
    policies: str = "shared"
    runner_resources: dict[str, float] | None = None
    runner_env: str = "auto"

    def check(self) -> RLlibSettings:
        if self.num_env_runners < 0:
            raise UserError(f"--num-env-runners must be 0 or more, not {self.num_env_runners}")
        if self.envs_per_runner < 1:
            raise UserError(f"--envs-per-runner must be at least 1, not {self.envs_per_runner}")
        if self.num_cpus is not None and self.num_cpus < 1:
            raise UserError(f"--num-cpus must be at least 1, not {self.num_cpus}")
        if self.policies not in POLICIES:
            raise UserError(f"--policies must be one of {', '.join(POLICIES)}, not {self.policies!r}")
        if self.runner_env not in RUNNER_ENVS:
            raise UserError(f"--runner-env must be one of {', '.join(RUNNER_ENVS)}, not {self.runner_env!r}")
        if self.runner_resources:
            if self.num_env_runners == 0:
                raise UserError("--runner-resources places env runners: give --num-env-runners 1 or more")
            return dataclasses.replace(self, runner_resources=check_resources(self.runner_resources))
        return self


RUNNER_ENVS = ("auto", "batched", "aec")
BATCHED_OPPONENTS = ("random", "heuristic")


def batched_reason(cfg: TrainConfig, settings: RLlibSettings) -> str | None:
    """Why the run cannot use batched runners, or None when it can."""
    from gameshelf.envs import batched_ids, spec

    if not spec(cfg.env_id).batched:
        return f"{cfg.env_id} has no compiled kernels (batched ids: {', '.join(batched_ids())})"
    if cfg.opponent not in BATCHED_OPPONENTS:
        return (
            f"batched runners play fixed opponents inside the batch (--opponent {' or '.join(BATCHED_OPPONENTS)}), "
            f"not opponent={cfg.opponent} (the league of snapshots runs on --runner-env aec)"
        )
    if settings.policies != "shared":
        return "batched runners train one shared policy on one seat per game, not --policies per_seat"
    if cfg.reward != "outcome":
        return f"batched runners give the outcome reward only, not reward={cfg.reward}"
    return None


def resolve_runner_env(cfg: TrainConfig, settings: RLlibSettings) -> RLlibSettings:
    """``settings`` with ``runner_env`` ``batched`` or ``aec`` (``auto`` resolved); ``UserError`` when ``batched``
    was asked for and the run cannot use it."""
    reason = batched_reason(cfg, settings)
    if settings.runner_env == "batched" and reason is not None:
        raise UserError(f"--runner-env batched is not available: {reason}")
    if settings.runner_env == "auto":
        return dataclasses.replace(settings, runner_env="aec" if reason else "batched")
    return settings


RESERVED_RESOURCES = ("CPU", "GPU", "memory", "object_store_memory")


def check_resources(resources: Any) -> dict[str, float]:
    """``resources`` (a dict of custom Ray resource names and amounts) checked; amounts as floats."""
    if not isinstance(resources, dict):
        raise UserError(f"--runner-resources must map resource names to amounts, not {resources!r}")
    out = {}
    for name, amount in resources.items():
        if not isinstance(name, str) or not name.strip():
            raise UserError(f"--runner-resources: {name!r} is not a resource name")
        if name in RESERVED_RESOURCES:
            raise UserError(
                f"--runner-resources: {name!r} is one of Ray's own resources; name a custom resource the chosen nodes "
                "were started with (ray start --resources '{\"worker\": 4}')"
            )
        try:
            value = float(amount)
        except (TypeError, ValueError):
            raise UserError(f"--runner-resources: the amount of {name!r} must be a number, not {amount!r}") from None
        if not value > 0 or value != value or value == float("inf"):
            raise UserError(f"--runner-resources: the amount of {name!r} must be above 0, not {amount!r}")
        out[name] = value
    return out


def parse_resources(text: str) -> dict[str, float]:
    """``"worker=1,ssd=0.5"`` as ``{"worker": 1.0, "ssd": 0.5}`` (``--runner-resources``)."""
    out: dict[str, Any] = {}
    for part in text.split(","):
        name, sep, amount = part.partition("=")
        if not sep or not name.strip():
            raise UserError(f"--runner-resources takes NAME=AMOUNT[,NAME=AMOUNT...], not {text!r}")
        out[name.strip()] = amount.strip()
    return check_resources(out)


def make_league(cfg: TrainConfig, settings: RLlibSettings) -> League:
    if settings.runner_env == "batched":  # one learner, the opponents inside the batch: nothing to map
        return League(cfg.players, "shared", "random", {}, 0)
    if cfg.opponent not in RLLIB_OPPONENTS:
        raise UserError(
            f"opponent={cfg.opponent} is not available with --backend rllib on AEC runners (RLlib modules see "
            f"observations, not the game state a heuristic needs); use --opponent {' or '.join(RLLIB_OPPONENTS)}, or "
            "batched runners (a game with compiled kernels, --runner-env batched), where the heuristic plays inside "
            "the batch"
        )
    if settings.policies == "per_seat" and cfg.opponent != "self":
        raise UserError("--policies per_seat trains every seat against the others: use it with --opponent self")
    return League(cfg.players, settings.policies, cfg.opponent, cfg.selfplay.mix, cfg.selfplay.pool_size)


def env_name(settings: RLlibSettings) -> str:
    return BATCHED_ENV_NAME if settings.runner_env == "batched" else ENV_NAME


def env_config(cfg: TrainConfig, settings: RLlibSettings | None = None) -> dict[str, Any]:
    out = {"env_id": cfg.env_id, "players": cfg.players, "reward": cfg.reward, "game_options": dict(cfg.game_options)}
    if settings is not None and settings.runner_env == "batched":
        out["opponent"] = cfg.opponent
    return out


def algorithm_config(cfg: TrainConfig, settings: RLlibSettings, league: League) -> Any:
    """RLlib's ``PPOConfig`` for a run: our environment, masked modules, the league's mapping, PPO settings."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from gameshelf.training.rllib.module import MaskedRandomModule, module_spec

    info = policy_info(cfg, league)
    masked = module_spec(info)
    batch = cfg.ppo.n_steps * cfg.n_envs
    ppo = cfg.ppo
    config = (
        PPOConfig()
        .environment(env_name(settings), env_config=env_config(cfg, settings), disable_env_checking=True)
        .env_runners(
            num_env_runners=settings.num_env_runners,
            num_envs_per_env_runner=settings.envs_per_runner,
            custom_resources_per_env_runner=dict(settings.runner_resources or {}),
            rollout_fragment_length="auto",
        )
    )
    if settings.runner_env == "batched":  # one module (RLlib's default_policy): RLlib's single-agent path
        config = config.env_runners(gym_env_vectorize_mode="vector_entry_point").rl_module(rl_module_spec=masked)
    else:
        specs = {m: masked for m in league.trained + league.snapshots}
        if "random" in league.frozen:
            specs["random"] = RLModuleSpec(module_class=MaskedRandomModule)
        config = config.multi_agent(policies=set(specs), policy_mapping_fn=league, policies_to_train=league.trained)
        config = config.rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
    return config.training(
        train_batch_size_per_learner=batch,
        minibatch_size=min(ppo.batch_size, batch),
        num_epochs=ppo.n_epochs,
        lr=ppo.learning_rate,
        gamma=ppo.gamma,
        lambda_=ppo.gae_lambda,
        entropy_coeff=ppo.ent_coef,
        clip_param=ppo.clip_range,
        vf_loss_coeff=ppo.vf_coef,
    ).debugging(seed=cfg.seed, log_level="ERROR")


def policy_info(cfg: TrainConfig, league: League, env_steps: int = 0, iteration: int = 0) -> PolicyInfo:
    """The ``PolicyInfo`` (shapes, seats) of the policy a run trains."""
    import numpy as np

    from gameshelf import envs

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


# ---- where the games are played ----------------------------------------------------------------------------
PLACEMENT = "env_runners.json"
"""In the run folder: where the env runners of the run's latest start play (node, address, host, process)."""


def where_runner_is(runner: Any) -> dict[str, Any]:
    """Asked of each env runner, in its own process: where it runs and how many games it steps."""
    import socket

    import ray

    return {
        "runner": int(getattr(runner, "worker_index", 0)),
        "node_id": ray.get_runtime_context().get_node_id(),
        "node_ip": ray.util.get_node_ip_address(),
        "hostname": socket.gethostname(),
        "pid": os.getpid(),
        "games": int(getattr(runner, "num_envs", 0) or 0),
    }


def runner_placement(algo: Any, num_env_runners: int) -> dict[str, Any]:
    """Where the driver (learning, evaluation, the run folder) and each env runner (sampling) run, as the runners
    report it."""
    import ray

    runners = algo.env_runner_group.foreach_env_runner(where_runner_is, local_env_runner=num_env_runners == 0)
    return {
        "driver": {"node_id": ray.get_runtime_context().get_node_id(), "node_ip": ray.util.get_node_ip_address()},
        "env_runners": sorted(runners, key=lambda r: r["runner"]),
    }


def write_placement(path: Path, placement: dict[str, Any]) -> None:
    import json

    from gameshelf.training.model_io import atomic_write_bytes

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, (json.dumps(placement, indent=1) + "\n").encode())


def placement_line(placement: dict[str, Any]) -> str:
    """``env runners: 2 on 1 node: 10.0.0.5 (this node)`` (the nodes' addresses), or ``env runners: none,
    sampling in this process``."""
    runners = placement["env_runners"]
    if all(r["runner"] == 0 for r in runners):
        return "env runners: none, sampling in this process"
    nodes = {r["node_id"] for r in runners}  # several nodes may share an address (e.g. on one machine)
    addresses = ", ".join(sorted({r["node_ip"] for r in runners}))
    here = " (this node)" if nodes == {placement["driver"]["node_id"]} else ""
    return f"env runners: {len(runners)} on {len(nodes)} node{'s' * (len(nodes) > 1)}: {addresses}{here}"


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

    def __init__(
        self,
        cfg: TrainConfig,
        settings: RLlibSettings,
        root: Path,
        say: Any = print,
        checkpoint: Path | None = None,
        wall_s: float = 0.0,
    ) -> None:
        """A new run, or (``checkpoint``: a policy folder with ``algorithm/`` and ``league/``) one resumed from it,
        ``wall_s`` seconds already spent."""
        from ray.tune.registry import register_env

        from gameshelf.training.rllib.batched_env import make_batched_env
        from gameshelf.training.rllib.env import make_rllib_env
        from gameshelf.training.rllib.league import Snapshots

        settings = resolve_runner_env(cfg, settings)
        self.cfg, self.settings, self.root, self.say = cfg, settings, root, say
        self.run = RunDir(root)
        self.league = make_league(cfg, settings)
        register_env(ENV_NAME, make_rllib_env)
        register_env(BATCHED_ENV_NAME, make_batched_env)
        self.algo = algorithm_config(cfg, settings, self.league).build_algo()
        self.placement = runner_placement(self.algo, settings.num_env_runners)
        write_placement(root / PLACEMENT, self.placement)
        kind = "batched on compiled kernels" if settings.runner_env == "batched" else "PettingZoo AEC"
        say(f"{placement_line(self.placement)}; {settings.envs_per_runner} game(s) per runner, {kind}")
        self.snapshots = Snapshots(self.league)
        self.steps = self.iteration = 0
        self.start = time.perf_counter() - wall_s
        self.progress: list[dict[str, Any]] = []
        self.evaluations: list[dict[str, Any]] = []
        if checkpoint is None:
            self.snapshots.push(self.algo)  # every snapshot starts as the initial policy
        else:
            self.restore(checkpoint)
        self.next = {job: (self.steps // every + 1) * every for job, every in self.every.items()}

    @property
    def every(self) -> dict[str, int]:
        cfg = self.cfg
        return {"snapshot": cfg.selfplay.snapshot_every, "eval": cfg.eval.every, "checkpoint": cfg.checkpoint_every}

    def restore(self, folder: Path) -> None:
        """Continue from the checkpoint ``folder``: RLlib's state of the algorithm, the league's snapshots (read as
        weights only), the step and iteration counts, and the rows of ``progress.csv`` and ``eval.csv`` up to it."""
        from gameshelf.training.model_io import ModelLoadError, read_info, read_weights

        info = read_info(folder, "rllib")
        try:
            self.algo.restore_from_path(str((folder / ALGORITHM).resolve()))
        except Exception as err:  # a damaged or foreign algorithm/: one line, not Ray's traceback
            first = str(err).strip().splitlines()[0][:160] if str(err).strip() else ""
            raise UserError(
                f"cannot resume from {self.run.relative(folder)}: RLlib cannot restore its {ALGORITHM}/ "
                f"({type(err).__name__}: {first}); it still plays as rllib:PATH"
            ) from None
        snapshots = {}
        for snap in self.league.snapshots:
            file = folder / LEAGUE / f"{snap}.pt"
            try:
                if not file.is_file():
                    raise ModelLoadError(f"{str(file)!r} is missing")
                snapshots[snap] = read_weights(file, repr(str(file)))
            except ModelLoadError as err:
                raise UserError(f"cannot resume from {self.run.relative(folder)}: {err}") from None
        self.snapshots.load(self.algo, snapshots)
        self.steps, self.iteration = int(info.env_steps), int(info.iteration)
        for row in read_rows(self.root / "progress.csv"):
            if row.get("env_steps", 0) <= self.steps:
                self.progress.append({k: int(v) if k in ("iteration", "env_steps") else v for k, v in row.items()})
        self.evaluations = [
            {**r, "timesteps": int(r["timesteps"])} for r in self.run.read_evaluations() if r["timesteps"] <= self.steps
        ]

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
        runners = result[ENV_RUNNER_RESULTS]  # Ray 2.60 logs module_episode_return_mean, not its constant's name
        returns = dict(runners.get("module_episode_return_mean") or runners.get("module_episode_returns_mean") or {})
        if self.settings.runner_env == "batched":  # the one module is RLlib's default_policy, "main" here
            from ray.rllib.core import DEFAULT_MODULE_ID

            returns = {"main": returns[DEFAULT_MODULE_ID]} if DEFAULT_MODULE_ID in returns else {}
        row = {
            "iteration": self.iteration,
            "env_steps": self.steps,
            "wall_s": round(self.clock(), 2),
            "iteration_s": round(seconds, 3),
            "env_steps_per_s": round((self.steps - before) / seconds, 1) if seconds > 0 else 0.0,
            **{f"return_{m}": round(float(v), 4) for m, v in sorted(returns.items())},
        }
        self.progress.append(row)
        write_rows(self.root / "progress.csv", self.progress)
        if self._due("snapshot"):
            self.snapshots.push(self.algo)
        if self._due("eval"):
            self.evaluate()
        if self._due("checkpoint"):
            self.checkpoint(self.run.checkpoints / f"iter_{self.iteration:06d}", finished=False)
        return row

    def _due(self, job: str) -> bool:
        every = self.every[job]
        if self.steps < self.next[job]:
            return False
        self.next[job] = (self.steps // every + 1) * every
        return True

    def checkpoint(self, folder: Path, finished: bool) -> Path:
        """The policy saved as ``folder`` with what resuming needs (``algorithm/``, ``league/``), then ``state.json``
        naming it; older checkpoints pruned."""
        self.save_policy(folder, resumable=True)
        state = RunState(self.steps, self.clock(), finished, checkpoint=self.run.relative(folder))
        self.run.write_state(state)
        self.run.prune_checkpoints(self.cfg.keep_checkpoints, protect=folder)
        return folder

    def save_state(self, folder: Path) -> None:
        """RLlib's state of the algorithm as ``folder/algorithm/``, the league's snapshots as ``folder/league/``."""
        import io

        import torch

        from gameshelf.training.model_io import atomic_write_bytes
        from gameshelf.training.rllib.league import learner_module_states

        self.algo.save_to_path(str((folder / ALGORITHM).resolve()))
        (folder / LEAGUE).mkdir(exist_ok=True)
        for snap, weights in learner_module_states(self.algo, self.league.snapshots).items():
            buffer = io.BytesIO()
            torch.save({k: torch.as_tensor(v).detach().cpu().clone() for k, v in weights.items()}, buffer)
            atomic_write_bytes(folder / LEAGUE / f"{snap}.pt", buffer.getvalue())

    def modules(self) -> tuple[Any, dict[str, Any]]:
        """``(info, {module: weights})`` of the trained modules as the learner holds them now."""
        from gameshelf.training.rllib.league import learner_module_states

        info = policy_info(self.cfg, self.league, self.steps, self.iteration)
        if self.settings.runner_env == "batched":  # RLlib's one module of a single-agent run is "main" here
            from ray.rllib.core import DEFAULT_MODULE_ID

            return info, {"main": learner_module_states(self.algo, [DEFAULT_MODULE_ID])[DEFAULT_MODULE_ID]}
        return info, learner_module_states(self.algo, self.league.trained)

    def save_policy(self, folder: Path, resumable: bool = False) -> Path:
        """The trained modules as the policy folder ``folder`` (``resumable``: with ``save_state``'s files)."""
        from gameshelf.training.model_io import save_policy

        info, weights = self.modules()
        return save_policy(folder, info, weights, extra=self.save_state if resumable else None)

    def learner_agent(self) -> Any:
        """The trained policy as an agent (a copy of the weights, for evaluation)."""
        import torch

        from gameshelf.training.rllib.agent import RLlibAgent
        from gameshelf.training.rllib.module import module_spec

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
        """The learner against each of ``eval.opponents`` (every seat); a row in ``eval.csv`` (the curve is drawn
        once, when the run finishes or stops: ``draw_curve``)."""
        from gameshelf.training.callbacks import evaluate_learner, evaluation_line

        cfg = self.cfg
        done = evaluate_learner(cfg, self.learner_agent(), self.steps, self.clock())
        if done is None:
            return
        row, result = done
        self.evaluations.append(row)
        self.run.write_evaluations(self.evaluations)
        self.say(evaluation_line(row, result, "moves"))

    def draw_curve(self) -> None:
        """``learning_curve.png`` from every evaluation so far (once per run: drawing costs about a CPU-second)."""
        from gameshelf.training.callbacks import plot_learning_curve

        if self.evaluations:
            cfg = self.cfg
            plot_learning_curve(self.evaluations, self.run.learning_curve, f"{cfg.env_id}, {cfg.players} players (RLlib)")

    def finish(self) -> Path:
        """The last evaluation and the curve, then ``final_policy/`` (resumable, to train further) and the run state
        naming it."""
        if not self.evaluations or self.evaluations[-1]["timesteps"] != self.steps:
            self.evaluate()
        self.draw_curve()
        return self.checkpoint(self.run.final_policy, finished=self.steps >= self.cfg.timesteps)

    def interrupted(self) -> Path:
        """The curve so far and a checkpoint of where the run stopped (``checkpoints/iter_N/``), to resume from."""
        self.draw_curve()
        return self.checkpoint(self.run.checkpoints / f"iter_{self.iteration:06d}", finished=False)

    def stop(self) -> None:
        self.algo.stop()


def check(plan: Plan) -> Plan:
    """Every RLlib setting checked, and Ray present, before anything is created; the plan with its settings."""
    from gameshelf.training.rllib.agent import require_ray

    settings = resolve_runner_env(plan.config, (plan.rllib or RLlibSettings()).check())
    make_league(plan.config, settings)
    try:
        require_ray("--backend rllib")
    except ImportError as err:
        raise UserError(str(err)) from None
    return dataclasses.replace(plan, rllib=settings)


def learn(plan: Plan, *, progress: bool = False, quiet: bool = False) -> TrainResult:
    """Train the planned run on RLlib (its folder already holds ``config.yaml``), from ``plan.checkpoint`` when
    resuming; ``model_path`` is ``final_policy/``, or the checkpoint written when a signal stopped the run.

    SIGINT, SIGTERM and SIGHUP are caught from the building of the algorithm on: training stops after the current
    iteration, a checkpoint and the run state are saved and the resume command printed.
    """
    from gameshelf.training.callbacks import StopOnSignal

    cfg, settings, root = plan.config, plan.rllib, plan.run.root
    checkpoint = plan.checkpoint[0] if plan.checkpoint is not None else None

    say = reporter(quiet, False)  # RLlib shows no progress bar

    import torch

    torch.set_num_threads(cfg.torch_threads)  # the learner, in this process (as SB3's); each env runner has one CPU
    started = start_ray(settings)
    run = None
    bar = None
    try:
        with StopOnSignal() as stop:
            run = Run(cfg, settings, root, say, checkpoint=checkpoint, wall_s=plan.state.wall_s)
            if progress and not quiet:
                from tqdm.auto import tqdm

                initial = min(run.steps, cfg.timesteps)
                bar = tqdm(total=cfg.timesteps, initial=initial, desc=f"train {cfg.env_id} (rllib)", unit="move")
            while run.steps < cfg.timesteps and stop.received is None:
                run.train_iteration()
                if bar is not None:
                    bar.update(min(run.steps, cfg.timesteps) - bar.n)
        if bar is not None:
            bar.close()
        if stop.received is not None and run.steps < cfg.timesteps:
            path = run.interrupted()
            message = (
                f"{stop.signal_name}: stopped at {run.steps} moves; saved {plan.run.relative(path)} and state.json in "
                f"{str(root)!r}. Resume with: gameshelf train --resume {root}"
            )
            print(message, file=sys.stderr, flush=True)
            return TrainResult(root, path, run.evaluations, run.clock(), run.steps, "interrupted", message, stop.signal_name)
        final = run.finish()
        message = f"trained {run.steps} moves ({run.iteration} iterations) in {run.clock():.0f} s on RLlib"
        return TrainResult(root, final, run.evaluations, run.clock(), run.steps, "finished", message)
    finally:
        if run is not None:
            run.stop()
        if started:
            import ray

            ray.shutdown()
