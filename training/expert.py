"""The ``expert`` backend: expert iteration (AlphaZero-style), search improves the policy, the policy guides search.

    gameshelf train level_x-v0 --backend expert
    gameshelf train olenon-v0 --backend expert --config my.yaml --out runs/olenon-expert
    gameshelf train --resume runs/level_x-v0/20260101-120000-s0-expert

The recipe (settings: the ``expert`` section of ``TrainConfig``, per game in ``training/configs/<game>.yaml``):

* **Iteration 0 (warm start)**: ``warm_games`` games of the game's heuristic against itself, a share
  ``warm_random`` of the moves played at random for variety; every decision with more than one legal
  action is a sample whose policy target is the heuristic's move (also where a random move was played)
  and whose value target is the mover's final return. The network is trained on them.
* **Iterations 1..``iterations``**: ``games`` self-play games in which every seat searches with
  ``MCTSAgent(simulations, prior=the current network)``: PUCT with the network's prior, root Dirichlet noise
  (``noise_alpha``, ``noise_fraction``), the first ``temperature_moves`` moves of a game drawn in
  proportion to the root's visits (then the most visited), leaves scored by random rollouts
  (``leaf_value=0``, the default; 1 = the network's value, between = a mix). Each searched decision (forced moves are not
  samples) records the mover's observation, the legal mask, the root's visit distribution (zero on illegal
  actions) and the mover's final return. The torch mirror of ``NetPolicy`` (``torch_net.TorchNet``) is then
  trained for ``epochs`` passes over the samples of the last ``window`` iterations (soft cross-entropy on
  the masked logits + value MSE, Adam at ``learning_rate``, minibatches of ``batch_size``) and exported.
* The run stops after ``iterations`` iterations, or earlier once ``timesteps`` decisions (all decisions of its
  games, warm start and forced moves included) were played. A run started or resumed with ``--timesteps``
  (``timesteps=``) gets ``iterations: null``: that many decisions alone decide, and they scale the phases
  (``phase_budget``), so that a small budget still runs each once: the warm start stops its games once they
  played ``WARM_SHARE`` (a quarter) of the budget, a search iteration once the run reached the budget (each
  phase at least one game, the game under way finished), and the run ends after the first search iteration
  that reaches it. ``n_envs`` is not used.

Rollouts against value leaves, measured per CPU-second: see docs/training.md (rollouts were better).

The run folder: ``config.yaml``; ``state.json`` (``iteration``, ``decisions``, ``samples``; ``timesteps`` is the
decision count); ``progress.csv`` (per iteration: samples, losses, seconds, the process's CPU seconds);
``eval.csv`` (per iteration: the network alone, argmax, against ``eval.opponents`` over ``eval_games`` games,
seats alternating);
``checkpoints/iter_K.npz`` (the network, ``gameshelf-net/1``) with ``checkpoints/iter_K.pt`` (Adam's state,
tensors only, read with ``weights_only=True``); ``replay/iter_K.npz`` (the samples of the iterations still
in the replay window, so a resumed run trains on the same data: for a fixed seed a resumed run gives the
same networks as an uninterrupted one); ``final_net.npz`` at the end.

SIGINT, SIGTERM or SIGHUP during an iteration's games abandons that iteration (its games are dropped); during its
training or evaluation, the iteration is finished. Either way the last finished iteration is saved, the
resume command printed, and the exit status is 128 + the signal's number (130, 143, 129).
"""

from __future__ import annotations

import json
import math
import sys
import time
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf import envs
from gameshelf.envs.core.episode import observed_state
from gameshelf.envs.core.game import CHANCE, TERMINAL, Game
from gameshelf.training import model_io
from gameshelf.training.checkpoints import (
    STATE_FORMAT,
    Plan,
    RunDir,
    RunState,
    TrainResult,
    read_rows,
    reporter,
    warn,
    write_rows,
)
from gameshelf.training.config import TrainConfig
from gameshelf.training.numpy_net import NetLoadError, NetPolicy, read_net

ARRAYS = ("obs", "mask", "policy", "value")


class NetArgmaxAgent:
    """The network alone: its most probable legal action."""

    def __init__(self, net: NetPolicy, name: str = "learner") -> None:
        self.net, self.name = net, name

    def act(self, state: Any, seat: int, rng: np.random.Generator) -> int:
        return int(np.argmax(self.net.action_probabilities(state, seat)))


# ---- the run's files -------------------------------------------------------------------------------------
def net_checkpoints(run: RunDir) -> list[tuple[int, Path]]:
    """``checkpoints/iter_K.npz``, oldest first."""
    return run.net_checkpoints()


def final_net(run: RunDir) -> Path:
    return run.root / "final_net.npz"


def sound_checkpoint(run: RunDir) -> tuple[Path, dict[str, Any], int] | None:
    """The newest ``iter_K.npz`` that loads, with its optimizer state: ``(path, {"iteration", "optimizer"}, decisions)``.
    Damaged newer ones are skipped with a warning each."""
    for k, path in reversed(net_checkpoints(run)):
        try:
            net = read_net(path)
            optimizer = load_optimizer(path.with_suffix(".pt"))
            trained = net.meta.get("trained", {})
            decisions = int(trained["decisions"])
        except (NetLoadError, OSError, KeyError, TypeError, ValueError) as err:
            warn(f"skipping the damaged checkpoint checkpoints/{path.name}: {_first_line(err)}")
            continue
        return path, {"iteration": k, "optimizer": optimizer, "net": net, "samples": int(trained.get("samples", 0))}, decisions
    return None


def load_optimizer(path: Path) -> dict[str, Any]:
    """Adam's state saved beside a checkpoint, read as tensors only (never unpickled); ``ValueError`` if damaged."""
    import pickle
    import warnings

    import torch

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's note on the pickle protocol of a foreign file
            state = torch.load(path, weights_only=True, map_location="cpu")
    except (pickle.UnpicklingError, EOFError, RuntimeError) as err:
        raise ValueError(f"{path.name} is not a saved optimizer state ({type(err).__name__})") from None
    if not isinstance(state, dict) or not isinstance(state.get("state"), dict) or not isinstance(state.get("param_groups"), list):
        raise ValueError(f"{path.name} is not a saved optimizer state (no 'state' and 'param_groups')")
    return state


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0][:300] if text else type(err).__name__


def read_state(run: RunDir) -> dict[str, Any]:
    try:
        data = json.loads(run.state_file.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def write_state(run: RunDir, state: RunState, iteration: int, decisions: int, samples: int) -> None:
    data = {**state.to_dict(), "format": STATE_FORMAT, "iteration": iteration, "decisions": decisions, "samples": samples}
    model_io.atomic_write_text(run.state_file, json.dumps(data, indent=1))


def save_samples(path: Path, samples: dict[str, np.ndarray]) -> None:
    import io

    buffer = io.BytesIO()
    np.savez_compressed(buffer, **samples)  # type: ignore[arg-type]
    model_io.atomic_write_bytes(path, buffer.getvalue())


def _save_tensors(state: dict[str, Any], path: Path) -> None:
    """``torch.save`` of tensors and plain values (read back with ``weights_only=True``), written atomically."""
    import io

    import torch

    buffer = io.BytesIO()
    torch.save(state, buffer)
    model_io.atomic_write_bytes(path, buffer.getvalue())


def load_samples(
    path: Path, observation_shape: tuple[int, ...] | None = None, num_actions: int | None = None
) -> dict[str, np.ndarray]:
    """The samples in a ``replay/iter_K.npz`` (arrays only, never unpickled), checked against the game's
    observation shape and action count when given; ``ValueError`` naming the file when they are not sound."""
    try:
        if not zipfile.is_zipfile(path):
            raise ValueError("not an .npz archive")
        with np.load(path, allow_pickle=False) as data:
            missing = [k for k in ARRAYS if k not in data.files]
            if missing:
                raise ValueError(f"no {missing[0]!r} array")
            samples = {k: data[k] for k in ARRAYS}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as err:
        why = "pickled (object) data, never loaded" if "pickle" in str(err) else _first_line(err)
        raise ValueError(f"{path.name}: not a replay file ({why})") from None
    n = len(samples["value"]) if samples["value"].ndim == 1 else -1
    shapes = {
        "obs": (n, *observation_shape) if observation_shape is not None else None,
        "mask": (n, num_actions) if num_actions is not None else None,
        "policy": (n, num_actions) if num_actions is not None else None,
        "value": (n,),
    }
    for name, array in samples.items():
        expected = shapes[name]
        if n < 0 or array.shape[:1] != (n,) or (expected is not None and array.shape != expected):
            raise ValueError(f"{path.name}: {name!r} has shape {array.shape}, expected {expected or (n, '...')}")
        if name == "mask" and array.dtype != np.bool_:
            raise ValueError(f"{path.name}: 'mask' must be bool, not {array.dtype}")
        if name != "mask" and (array.dtype.kind != "f" or not np.all(np.isfinite(array))):
            raise ValueError(f"{path.name}: {name!r} must hold finite floats")
    return samples


# ---- playing ---------------------------------------------------------------------------------------------
class Recorder:
    """Samples of one iteration: observation (float16), legal mask, policy target, value target (tanh units)."""

    def __init__(self, lo: float, hi: float) -> None:
        self.lo, self.hi = lo, hi
        self.rows: dict[str, list[Any]] = {k: [] for k in ARRAYS}

    def game(self, records: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]], returns: np.ndarray) -> None:
        for obs, mask, target, seat in records:
            self.rows["obs"].append(obs.astype(np.float16))
            self.rows["mask"].append(mask)
            self.rows["policy"].append(target.astype(np.float32))
            self.rows["value"].append(np.float32(2.0 * (returns[seat] - self.lo) / (self.hi - self.lo) - 1.0))

    def arrays(self, shape: tuple[int, ...], actions: int) -> dict[str, np.ndarray]:
        if not self.rows["value"]:
            empty = {"obs": (0, *shape), "mask": (0, actions), "policy": (0, actions), "value": (0,)}
            kinds = {"obs": np.float16, "mask": bool, "policy": np.float32, "value": np.float32}
            return {k: np.zeros(empty[k], dtype=kinds[k]) for k in ARRAYS}
        return {k: np.stack(v) if k != "value" else np.asarray(v, dtype=np.float32) for k, v in self.rows.items()}


def play_game(game: Game, choose: Any, rng: np.random.Generator, stop: Any) -> tuple[list[Any], np.ndarray, int] | None:
    """One game; ``choose(state, seat, move) -> (action, target or None)``. The samples, the final returns and the
    number of decisions; None when a signal arrived (the game is dropped)."""
    state = game.new_initial_state()
    records: list[Any] = []
    moves = 0
    cap = game.info.max_game_length
    while moves < cap:
        player = state.current_player()
        if player == TERMINAL:
            break
        if player == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        if stop.received is not None:
            return None
        mask = np.asarray(state.legal_action_mask(), dtype=bool)
        action, target = choose(state, player, moves)
        if target is not None and mask.sum() > 1:
            records.append((np.asarray(state.observation(player)), mask, target, player))
        state.apply_action(int(action))
        moves += 1
    return records, np.asarray(state.returns(), dtype=np.float64), moves


def warm_start_games(
    cfg: TrainConfig, game: Game, rng: np.random.Generator, stop: Any, bar: Any, budget: int | None = None
) -> tuple[Recorder, int] | None:
    from gameshelf.training.agents.base import heuristic_agent

    info = game.info
    recorder = Recorder(info.min_return, info.max_return)
    teacher = heuristic_agent(cfg.env_id)

    def choose(state: Any, seat: int, move: int) -> tuple[int, np.ndarray]:
        action = int(teacher.act(observed_state(state, seat, rng), seat, rng))
        target = np.zeros(info.num_actions, dtype=np.float32)
        target[action] = 1.0
        if rng.random() < cfg.expert.warm_random:
            legal = state.legal_actions()
            action = int(legal[int(rng.integers(len(legal)))])
        return action, target

    decisions = record_games(cfg.expert.warm_games, game, lambda: choose, recorder, rng, stop, bar, budget)
    return None if decisions is None else (recorder, decisions)


def self_play_games(
    cfg: TrainConfig, game: Game, net: NetPolicy, rng: np.random.Generator, stop: Any, bar: Any, budget: int | None = None
) -> tuple[Recorder, int] | None:
    from gameshelf.training.agents.mcts import MCTSAgent

    x = cfg.expert
    info = game.info
    recorder = Recorder(info.min_return, info.max_return)

    def new_game() -> Any:
        """A fresh searching agent per seat, and how they choose (with the visit distribution as target)."""
        agents = [
            MCTSAgent(
                simulations=x.simulations,
                prior=net,
                c_puct=x.c_puct,
                leaf_value=x.leaf_value,
                noise=(x.noise_alpha, x.noise_fraction) if x.noise_fraction > 0 else None,
            )
            for _ in range(info.num_players)
        ]

        def choose(state: Any, seat: int, move: int) -> tuple[int, np.ndarray]:
            agent = agents[seat]
            agent.temperature = 1.0 if move < x.temperature_moves else 0.0
            action = agent.act(observed_state(state, seat, rng), seat, rng)
            visits = agent.last_visits if agent.last_visits is not None else np.zeros(info.num_actions)
            total = visits.sum()
            target = (visits / total).astype(np.float32) if total > 0 else None
            return action, target  # type: ignore[return-value]

        return choose

    decisions = record_games(x.games, game, new_game, recorder, rng, stop, bar, budget)
    return None if decisions is None else (recorder, decisions)


def record_games(
    count: int,
    game: Game,
    new_game: Any,
    recorder: Any,
    rng: np.random.Generator,
    stop: Any,
    bar: Any,
    budget: int | None = None,
) -> int | None:
    """Play ``count`` games, each with the ``choose`` that ``new_game()`` returns, into ``recorder``, fewer once
    ``budget`` decisions were played (the game under way is finished; at least one game); the decisions
    played, or None when a signal arrived."""
    decisions = 0
    for _ in range(count):
        if budget is not None and decisions >= budget:
            break
        played = play_game(game, new_game(), rng, stop)
        if played is None:
            return None
        recorder.game(played[0], played[1])
        decisions += played[2]
        bar.update()
    return decisions


# ---- the loop ------------------------------------------------------------------------------------------
WARM_SHARE = 0.25
"""The share of a decision budget (``iterations: null``) the warm start may take."""


def phase_budget(cfg: TrainConfig, k: int, decisions: int) -> int | None:
    """How many decisions iteration ``k``'s games may play in a run ending on its decision budget (``iterations:
    null``): the warm start up to ``WARM_SHARE`` of the budget, a search iteration up to what is left of it
    (each at least one game, at most ``warm_games`` or ``games``); None (no cap) in a run of ``iterations``."""
    if cfg.expert.iterations is not None:
        return None
    if k == 0:
        return max(1, math.ceil(cfg.timesteps * WARM_SHARE))
    return max(1, cfg.timesteps - decisions)


def budget_spent(cfg: TrainConfig, decisions: int, done: int) -> bool:
    """Whether ``decisions`` end the run after iteration ``done``: ``timesteps`` reached, and in a run ending on
    its decision budget (``iterations: null``) one search iteration done at least, so every phase ran."""
    return decisions >= cfg.timesteps and (cfg.expert.iterations is not None or done >= 1)


def net_meta(cfg: TrainConfig, game: Game, trained: dict[str, Any]) -> dict[str, Any]:
    info = game.info
    return {
        "env_id": cfg.env_id,
        "num_players": info.num_players,
        "options": dict(cfg.game_options),
        "num_actions": info.num_actions,
        "value_range": [float(info.min_return), float(info.max_return)],
        "trained": trained,
    }


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def learn(plan: Plan, *, progress: bool, quiet: bool) -> TrainResult:
    """Run (or resume) an expert-iteration run; SIGINT, SIGTERM and SIGHUP stop it cleanly (see the module docstring)."""
    import torch

    from gameshelf.training.callbacks import Clock, StopOnSignal

    torch.set_num_threads(plan.config.torch_threads)
    stop = StopOnSignal()
    with stop:
        return _learn(plan, Clock(plan.state.wall_s), stop, progress=progress, quiet=quiet)


def _learn(plan: Plan, clock: Any, stop: Any, *, progress: bool, quiet: bool) -> TrainResult:
    import torch

    from gameshelf.training import torch_net
    from gameshelf.training.callbacks import evaluate_learner
    from gameshelf.training.optim import EagerAdam

    cfg, run = plan.config, plan.run
    x = cfg.expert
    (run.root / "replay").mkdir(parents=True, exist_ok=True)
    game = envs.make_game(cfg.env_id, num_players=cfg.players, **cfg.game_options)
    info = game.info
    model = torch_net.build(info.observation_shape, info.num_actions, x.hidden, x.cell_features, cfg.seed)
    optimizer = EagerAdam(model.parameters(), lr=x.learning_rate)  # torch's Adam without the torch._dynamo import
    start, decisions, samples = 0, 0, 0
    net: NetPolicy | None = None
    if plan.checkpoint is not None:
        path, saved, decisions = plan.checkpoint
        net = saved["net"]
        try:
            torch_net.load_net(model, net)
            optimizer.load_state_dict(saved["optimizer"])
        except (ValueError, RuntimeError, KeyError) as err:
            from gameshelf.training.cli_util import UserError

            raise UserError(f"the checkpoint {str(path)!r} does not fit the run's config.yaml ({err})") from None
        start, samples = saved["iteration"] + 1, saved["samples"]
    evals = [_ints(r) for r in run.read_evaluations() if r.get("iteration", -1) < start]
    progress_rows = [_ints(r) for r in read_rows(run.root / "progress.csv") if r.get("iteration", -1) < start]
    eval_cfg = replace(cfg, eval=replace(cfg.eval, games=max(1, x.eval_games)))

    say = reporter(quiet, progress)
    replay = resumed_window(run, start, x.window, game)

    last = start - 1
    interrupted = False
    limit = x.iterations if x.iterations is not None else sys.maxsize - 1
    for k in range(start, limit + 1):
        if budget_spent(cfg, decisions, k - 1) or stop.received is not None:
            interrupted = stop.received is not None
            break
        began, began_cpu = time.perf_counter(), time.process_time()
        rng = np.random.default_rng([cfg.seed, k])
        total = x.warm_games if k == 0 else x.games
        bar: Any = _NoBar()
        if progress and total:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, desc=f"{cfg.env_id} iteration {k}" + (" (warm start)" if k == 0 else ""), unit="game")
        try:
            budget = phase_budget(cfg, k, decisions)
            if k == 0:
                played = warm_start_games(cfg, game, rng, stop, bar, budget)
            else:
                assert net is not None
                played = self_play_games(cfg, game, net, rng, stop, bar, budget)
        finally:
            bar.close()
        if played is None:
            interrupted = True
            break
        recorder, played_decisions = played
        fresh = recorder.arrays(info.observation_shape, info.num_actions)
        play_s = time.perf_counter() - began
        save_samples(run.root / "replay" / f"iter_{k}.npz", fresh)
        window = [fresh] + [replay[j] for j in range(max(0, k - x.window + 1), k) if j in replay]
        replay = {j: samples for j, samples in replay.items() if j > k + 1 - x.window}
        replay[k] = fresh
        data = {a: np.concatenate([w[a] for w in window]) for a in ARRAYS}
        began_train = time.perf_counter()
        losses = (float("nan"), float("nan"))
        if len(data["value"]):
            torch.manual_seed(int(np.random.SeedSequence([cfg.seed, k, 1]).generate_state(1)[0]))
            losses = torch_net.train_epochs(model, optimizer, data, x.epochs, x.batch_size, seed=cfg.seed * 7919 + k)
        train_s = time.perf_counter() - began_train
        decisions += played_decisions
        samples += len(fresh["value"])
        trained = {
            "recipe": "expert iteration (gameshelf train --backend expert)",
            "iteration": k,
            "decisions": decisions,
            "samples": samples,
            "seed": cfg.seed,
            "wall_s": round(clock(), 1),
        }
        net = torch_net.to_net(model, net_meta(cfg, game, trained))
        checkpoint = run.checkpoints / f"iter_{k}.npz"
        _save_tensors(optimizer.state_dict(), run.checkpoints / f"iter_{k}.pt")
        net.save(checkpoint)
        began_eval = time.perf_counter()
        if x.eval_games:
            evaluated = evaluate_learner(eval_cfg, NetArgmaxAgent(net), decisions, clock())
            if evaluated is not None:
                row, _ = evaluated
                evals.append({"iteration": k, **row})
                run.write_evaluations(evals)
                say(f"[iteration {k}, {decisions} decisions, {row['wall_s']:.0f} s] " + _eval_text(row))
        progress_rows.append(
            {
                "iteration": k,
                "decisions": decisions,
                "samples": len(fresh["value"]),
                "window_samples": len(data["value"]),
                "policy_loss": round(losses[0], 5),
                "value_loss": round(losses[1], 5),
                "play_s": round(play_s, 2),
                "train_s": round(train_s, 2),
                "eval_s": round(time.perf_counter() - began_eval, 2),
                "wall_s": round(clock(), 1),
                "cpu_s": round(time.process_time() - began_cpu, 2),
            }
        )
        write_rows(run.root / "progress.csv", progress_rows)
        finished = k >= limit or budget_spent(cfg, decisions, k)
        if finished:
            net.save(final_net(run))
        state = RunState(timesteps=decisions, wall_s=clock(), finished=finished, checkpoint=run.relative(checkpoint))
        write_state(run, state, k, decisions, samples)
        _prune(run, cfg, k)
        last = k
    if stop.received is not None and last < limit and not budget_spent(cfg, decisions, last):
        interrupted = True
    if interrupted:
        kept = (
            f"saved checkpoints/iter_{last}.npz and state.json" if last >= 0 else "nothing was saved yet (no iteration finished)"
        )
        message = (
            f"{stop.signal_name}: stopped after iteration {last} ({decisions} decisions; the games of the iteration in "
            f"progress were dropped); {kept} in {str(run.root)!r}. Resume with: gameshelf train --resume {run.root}"
        )
        print(message, file=sys.stderr, flush=True)
        model_path = run.checkpoints / f"iter_{last}.npz"
        return TrainResult(run.root, model_path, evals, clock(), decisions, "interrupted", message, stop.signal_name)
    if net is not None and not final_net(run).is_file():
        net.save(final_net(run))  # a resumed run whose budget was already reached
        write_state(run, RunState(decisions, clock(), True, run.relative(net_checkpoints(run)[-1][1])), last, decisions, samples)
    _draw(run, cfg, evals)
    message = f"trained {last + 1} iterations ({decisions} decisions, {samples} samples) in {clock():.0f} s"
    return TrainResult(run.root, final_net(run), evals, clock(), decisions, "finished", message)


def resumed_window(run: RunDir, start: int, window: int, game: Game) -> dict[int, dict[str, np.ndarray]]:
    """The saved samples of the iterations before ``start`` still in the replay window, by iteration; a damaged
    replay file is left out with a warning (the run trains on the rest of the window)."""
    info = game.info
    replay = {}
    for j in range(max(0, start - window + 1), start):
        path = run.root / "replay" / f"iter_{j}.npz"
        if not path.is_file():
            continue
        try:
            replay[j] = load_samples(path, tuple(info.observation_shape), int(info.num_actions))
        except ValueError as err:
            warn(f"leaving out the damaged replay/{path.name}: {str(err).removeprefix(path.name + ': ')}")
    return replay


def _ints(row: dict[str, Any]) -> dict[str, Any]:
    """A row read back from a CSV file (numbers as floats) with its whole numbers as integers again."""
    return {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in row.items()}


def _eval_text(row: dict[str, Any]) -> str:
    names = [k.removeprefix("win_") for k in row if k.startswith("win_")]
    scores = ", ".join(f"vs {n}: win {100 * row[f'win_{n}']:.0f}% rank {row[f'rank_{n}']:.2f}" for n in names)
    return f"{row.get('policy_mode', 'deterministic')} {scores}"


def _prune(run: RunDir, cfg: TrainConfig, k: int) -> None:
    """Keep the newest ``keep_checkpoints`` networks (with their optimizer states) and the replay window."""
    for _, path in net_checkpoints(run)[: -cfg.keep_checkpoints]:
        path.unlink(missing_ok=True)
        path.with_suffix(".pt").unlink(missing_ok=True)
    for file in (run.root / "replay").glob("iter_*.npz"):
        j_text = file.stem.removeprefix("iter_")
        if j_text.isdigit() and int(j_text) <= k - cfg.expert.window:
            file.unlink(missing_ok=True)


def _draw(run: RunDir, cfg: TrainConfig, rows: list[dict[str, Any]]) -> None:
    """``learning_curve.png`` (when matplotlib is there), by decisions."""
    if not rows:
        return
    try:
        from gameshelf.training.callbacks import plot_learning_curve
        from gameshelf.training.evaluate import save_figure

        fig = plot_learning_curve(rows, None, f"{cfg.env_id} (expert iteration), {cfg.players} players")
        save_figure(fig, run.learning_curve)
    except ImportError:
        pass
