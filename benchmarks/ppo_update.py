"""Samples per CPU-second of MaskablePPO's update (``train()``) against a lean torch update on the same rollout.

    python benchmarks/ppo_update.py level_x-v0 olenon-v0 --rounds 5 --profile 15

For each id: builds the model and the batched games as ``gameshelf train ID --backend batched`` does (the
game's net_arch, the backend's 64 games x 64 steps, minibatches of 1024, 4 epochs, ``EagerAdam``), collects
one rollout, then times SB3's ``MaskablePPO.train()`` and ``LeanPPO.update`` on that same rollout from the
same weights, interleaved, one warm-up round excluded, median of ``--rounds`` (``time.process_time``, one
torch thread as training uses). ``LeanPPO`` is the same computation (network, clipped policy loss, value
loss, entropy bonus over the masked logits, advantage normalization per minibatch, gradient clipping, Adam)
without distribution objects or per-minibatch numpy conversions; before timing, both run from the same
weights on the whole rollout as one minibatch, then with the real minibatches and epochs (drawn from the
same numpy seed), and must give the same losses (to ``--tolerance``). The
rollout's collection is timed too, to show what each update makes of ``learn()`` end to end, and so is the
network alone (forward and backward on the same minibatches), the floor of any torch update of it. ``--profile
N`` prints cProfile's top N functions of each update (docs/training.md, "How fast could the update be").
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import io
import pstats
import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

BUFFER_ARRAYS = ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks")
"""The rollout buffer's arrays that ``train()`` reads (and flattens in place on its first pass)."""
STATS = ("policy_gradient_loss", "value_loss", "entropy_loss", "approx_kl", "clip_fraction", "loss")
"""The losses both updates report, under the names of SB3's ``train/`` log entries."""


def build_model(
    env_id: str, *, n_envs: int = 64, n_steps: int = 64, batch_size: int = 1024, n_epochs: int = 4, seed: int = 0
) -> Any:
    """A ``MaskablePPO`` on batched games as ``gameshelf train ID --backend batched`` builds it, random opponents."""
    from stable_baselines3.common.logger import configure

    from gameshelf.training import batched
    from gameshelf.training.config import resolve_config
    from gameshelf.training.sb3 import build_model as build

    ppo = {"n_steps": n_steps, "batch_size": batch_size, "n_epochs": n_epochs}
    settings = {"opponent": "random", "n_envs": n_envs, "ppo": ppo}
    cfg = resolve_config(env_id, settings, seed=seed, backend_settings=batched.SETTINGS)
    torch.set_num_threads(cfg.torch_threads)
    model = build(cfg, batched.make_vec_env(cfg), None)
    model.set_logger(configure(None, []))
    return model


def collect(model: Any) -> tuple[dict[str, np.ndarray], float]:
    """Fill the model's rollout buffer once; a copy of its arrays and the CPU seconds the collection took."""
    from stable_baselines3.common.callbacks import CallbackList

    if model._last_obs is None:
        model._setup_learn(model.n_steps * model.n_envs, None)
    callback = CallbackList([])
    callback.init_callback(model)
    cpu = time.process_time()
    model.collect_rollouts(model.env, callback, model.rollout_buffer, n_rollout_steps=model.n_steps)
    cpu = time.process_time() - cpu
    return {name: getattr(model.rollout_buffer, name).copy() for name in BUFFER_ARRAYS}, cpu


def restore(model: Any, rollout: dict[str, np.ndarray]) -> None:
    """Put a collected rollout back into the model's buffer, as ``collect_rollouts`` left it."""
    buffer = model.rollout_buffer
    for name, array in rollout.items():
        setattr(buffer, name, array.copy())
    buffer.generator_ready = False
    buffer.full = True


def sb3_update(model: Any) -> dict[str, float]:
    """SB3's ``MaskablePPO.train()`` on the model's buffer; the losses it logged."""
    model.train()
    values = model.logger.name_to_value
    return {name: float(values[f"train/{name}"]) for name in STATS}


class LeanPPO:
    """MaskablePPO's update in plain torch, on the model's own policy, optimizer and settings.

    ``prepare`` turns a rollout into tensors once (rows ordered as SB3's buffer orders them, the mask as
    bools); ``update`` runs the epochs: minibatches drawn with ``np.random.permutation`` as SB3 draws them,
    gathered into preallocated tensors, logits masked with -1e8 (as ``MaskableCategorical``), one
    ``log_softmax`` giving both the actions' log-probabilities and the entropy, the same losses, gradient
    clipping and optimizer step. Flat observations only (those of the batched backend), no value clipping,
    no ``target_kl``.
    """

    def __init__(self, model: Any) -> None:
        from gymnasium import spaces

        if model.clip_range_vf is not None or model.target_kl is not None:
            raise ValueError("LeanPPO does not clip the value function nor stop early on target_kl")
        if not isinstance(model.action_space, spaces.Discrete) or len(model.observation_space.shape) != 1:
            raise ValueError(f"LeanPPO needs Discrete actions and flat observations, not {model.observation_space}")
        self.model = model
        self.policy = model.policy
        self.params = list(self.policy.parameters())
        self.batch_size = int(model.batch_size)
        obs_dim, n_actions = int(model.observation_space.shape[0]), int(model.action_space.n)
        self.obs = torch.empty(self.batch_size, obs_dim)
        self.mask = torch.empty(self.batch_size, n_actions, dtype=torch.bool)
        self.actions = torch.empty(self.batch_size, dtype=torch.long)
        self.scalars = torch.empty(self.batch_size, 3)
        self.huge_neg = torch.tensor(-1e8)
        self.zero = torch.tensor(0.0)

    def prepare(self, buffer: Any) -> dict[str, torch.Tensor]:
        """The rollout of ``buffer`` (as ``collect_rollouts`` leaves it) as flat tensors, once per rollout."""

        def flat(name: str) -> torch.Tensor:
            array = torch.from_numpy(getattr(buffer, name))
            return array.transpose(0, 1).reshape(array.shape[0] * array.shape[1], *array.shape[2:])

        columns = ("log_probs", "advantages", "returns")  # the old values only serve value clipping
        return {
            "observations": flat("observations"),
            "actions": flat("actions").view(-1).long(),
            "mask": flat("action_masks").bool(),
            "scalars": torch.stack([flat(name) for name in columns], dim=1),
        }

    def update(self, data: dict[str, torch.Tensor]) -> dict[str, float]:
        """``n_epochs`` passes over ``data`` in minibatches; the losses under SB3's names (its means)."""
        model, policy = self.model, self.policy
        policy.set_training_mode(True)
        model._update_learning_rate(policy.optimizer)
        clip = float(model.clip_range(model._current_progress_remaining))
        n = data["actions"].shape[0]
        rows: list[torch.Tensor] = []
        for _ in range(model.n_epochs):
            order = torch.from_numpy(np.random.permutation(n))
            for start in range(0, n, self.batch_size):
                index = order[start : start + self.batch_size]
                rows.append(self._step(data, index, clip))
            model._n_updates += 1
        stats = torch.stack(rows)
        last_epoch = stats[-(len(rows) // model.n_epochs) :]  # SB3 logs approx_kl of the last epoch only
        means = stats.mean(0).tolist()
        return {
            "policy_gradient_loss": means[0],
            "value_loss": means[1],
            "entropy_loss": means[2],
            "approx_kl": float(last_epoch[:, 3].mean()),
            "clip_fraction": means[4],
            "loss": float(stats[-1, 5]),
        }

    def _step(self, data: dict[str, torch.Tensor], index: torch.Tensor, clip: float) -> torch.Tensor:
        m = index.shape[0]
        obs, mask, actions, scalars = self.obs[:m], self.mask[:m], self.actions[:m], self.scalars[:m]
        torch.index_select(data["observations"], 0, index, out=obs)
        torch.index_select(data["mask"], 0, index, out=mask)
        torch.index_select(data["actions"], 0, index, out=actions)
        torch.index_select(data["scalars"], 0, index, out=scalars)
        old_log_prob, advantages, returns = scalars.unbind(1)

        policy = self.policy
        latent_pi, latent_vf = policy.mlp_extractor(policy.features_extractor(obs))
        values = policy.value_net(latent_vf).view(-1)
        log_p = torch.log_softmax(torch.where(mask, policy.action_net(latent_pi), self.huge_neg), dim=1)
        log_prob = log_p.gather(1, actions.unsqueeze(1)).view(-1)
        entropy = -torch.where(mask, log_p.exp() * log_p, self.zero).sum(1)

        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        log_ratio = log_prob - old_log_prob
        ratio = log_ratio.exp()
        policy_loss = -torch.min(advantages * ratio, advantages * ratio.clamp(1 - clip, 1 + clip)).mean()
        value_loss = F.mse_loss(returns, values)
        entropy_loss = -entropy.mean()
        loss = policy_loss + self.model.ent_coef * entropy_loss + self.model.vf_coef * value_loss

        policy.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.params, self.model.max_grad_norm)
        policy.optimizer.step()
        with torch.no_grad():
            approx_kl = (ratio - 1 - log_ratio).mean()
            clipped = ((ratio - 1).abs() > clip).float().mean()
            return torch.stack([policy_loss, value_loss, entropy_loss, approx_kl, clipped, loss])


def network_floor(model: Any, lean: LeanPPO) -> None:
    """The network alone on the update's minibatches: forward and backward, no loss terms, no optimizer step.

    A lower bound for any torch update of this network (not an update: the gradients are dropped)."""
    data = lean.prepare(model.rollout_buffer)
    policy, n = model.policy, data["actions"].shape[0]
    for _ in range(model.n_epochs):
        order = torch.from_numpy(np.random.permutation(n))
        for start in range(0, n, lean.batch_size):
            index = order[start : start + lean.batch_size]
            obs = lean.obs[: index.shape[0]]
            torch.index_select(data["observations"], 0, index, out=obs)
            latent_pi, latent_vf = policy.mlp_extractor(obs)
            (policy.action_net(latent_pi).sum() + policy.value_net(latent_vf).sum()).backward()
            policy.optimizer.zero_grad()


def snapshot(model: Any) -> tuple[dict[str, Any], dict[str, Any], int]:
    """The policy's weights, the optimizer's state and the update count, to start each update from."""
    return copy.deepcopy(model.policy.state_dict()), copy.deepcopy(model.policy.optimizer.state_dict()), model._n_updates


def reset(model: Any, rollout: dict[str, np.ndarray], state: tuple[dict[str, Any], dict[str, Any], int], seed: int) -> None:
    """The model back at ``state`` with ``rollout`` in its buffer and numpy's generator at ``seed``."""
    weights, optimizer, updates = state
    model.policy.load_state_dict(weights)
    model.policy.optimizer.load_state_dict(optimizer)
    model._n_updates = updates
    restore(model, rollout)
    np.random.seed(seed)


def run_lean(model: Any, lean: LeanPPO) -> dict[str, float]:
    """The lean update on the model's buffer, its conversion to tensors included."""
    return lean.update(lean.prepare(model.rollout_buffer))


def compare_losses(
    model: Any, rollout: dict[str, np.ndarray], *, whole: bool = True, seed: int = 0
) -> dict[str, tuple[float, float]]:
    """Both updates from the same weights on the same rollout: ``{loss name: (SB3's, lean)}``.

    ``whole``: the whole rollout as one minibatch, one epoch (the losses of the same weights on the same
    samples); otherwise the model's own minibatches and epochs, drawn from the same ``seed``. The model is
    left as it was.
    """
    state = snapshot(model)
    batch_size, n_epochs = model.batch_size, model.n_epochs
    if whole:
        model.batch_size, model.n_epochs = model.n_steps * model.n_envs, 1
    try:
        reset(model, rollout, state, seed)
        expected = sb3_update(model)
        reset(model, rollout, state, seed)
        got = run_lean(model, LeanPPO(model))
    finally:
        model.batch_size, model.n_epochs = batch_size, n_epochs
        reset(model, rollout, state, seed)
    return {name: (expected[name], got[name]) for name in STATS}


def time_updates(
    model: Any, rollout: dict[str, np.ndarray], *, rounds: int = 5, warmup: int = 1, seed: int = 0
) -> dict[str, list[float]]:
    """CPU seconds of each update (``sb3``, ``lean``, and ``floor``: ``network_floor``) on ``rollout`` from the
    same weights, rounds interleaved."""
    state, lean = snapshot(model), LeanPPO(model)
    updates = {
        "sb3": lambda: sb3_update(model),
        "lean": lambda: run_lean(model, lean),
        "floor": lambda: network_floor(model, lean),
    }
    times: dict[str, list[float]] = {name: [] for name in updates}
    for k in range(warmup + rounds):
        for name, update in updates.items():
            reset(model, rollout, state, seed)
            cpu = time.process_time()
            update()
            cpu = time.process_time() - cpu
            if k >= warmup:
                times[name].append(cpu)
    reset(model, rollout, state, seed)
    return times


def profile_update(model: Any, rollout: dict[str, np.ndarray], *, lean: bool = False, top: int = 15, seed: int = 0) -> str:
    """cProfile's ``top`` functions by own time of one ``train()`` (or lean update) on ``rollout`` (the model
    left as it was)."""
    state = snapshot(model)
    reset(model, rollout, state, seed)
    profiler = cProfile.Profile()
    profiler.runcall((lambda: run_lean(model, LeanPPO(model))) if lean else model.train)
    reset(model, rollout, state, seed)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_ids", nargs="+")
    parser.add_argument("--n-envs", type=int, default=64)
    parser.add_argument("--n-steps", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--n-epochs", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds after one warm-up (default 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tolerance", type=float, default=1e-5, help="largest loss difference allowed (default 1e-5)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print cProfile's top N entries of each update")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    for env_id in args.env_ids:
        model = build_model(
            env_id, n_envs=args.n_envs, n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs, seed=args.seed
        )
        collect(model)  # warm-up: the kernels' and the policy's first calls
        rollout, _ = collect(model)
        collect_cpu = statistics.median(collect(model)[1] for _ in range(3))
        samples = args.n_envs * args.n_steps
        for whole in (True, False):
            losses = compare_losses(model, rollout, whole=whole, seed=args.seed)
            worst = max(abs(a - b) for a, b in losses.values())
            what = "one minibatch of the whole rollout" if whole else f"{args.n_epochs} epochs of {args.batch_size}"
            print(
                f"{env_id}: losses, {what}: largest difference {worst:.1e} "
                + ", ".join(f"{k} {a:.6g}" for k, (a, _) in losses.items())
            )
            if worst > args.tolerance:
                raise SystemExit(f"{env_id}: the lean update's losses differ from SB3's by {worst:.1e}: {losses}")
        times = time_updates(model, rollout, rounds=args.rounds, seed=args.seed)
        cpu = {name: statistics.median(t) for name, t in times.items()}
        print(
            f"{env_id}: {samples} samples ({args.n_envs} x {args.n_steps}), minibatches of {args.batch_size}, "
            f"{args.n_epochs} epochs, net_arch {model.policy.net_arch}, {torch.get_num_threads()} torch thread(s), "
            f"median of {args.rounds} rounds, CPU-s per update"
        )
        for name, label in (("sb3", "MaskablePPO.train()"), ("lean", "LeanPPO.update"), ("floor", "network alone")):
            end_to_end = samples / (collect_cpu + cpu[name])
            print(
                f"  {label:20} {cpu[name]:.3f} CPU-s ({min(times[name]):.3f} to {max(times[name]):.3f}): "
                f"{samples / cpu[name]:,.0f} samples per CPU-second; with the rollout ({collect_cpu:.3f} CPU-s): "
                f"{end_to_end:,.0f} env steps per CPU-second"
            )
        print(f"  lean / SB3: {cpu['sb3'] / cpu['lean']:.2f}x the samples per CPU-second")
        if args.profile:
            for lean in (False, True):
                print(f"{env_id}: cProfile of {'LeanPPO.update' if lean else 'MaskablePPO.train()'}")
                print(profile_update(model, rollout, lean=lean, top=args.profile, seed=args.seed))


if __name__ == "__main__":
    main()
