"""The torch mirror of ``NetPolicy`` (``gameshelf.training.numpy_net``) and its training step, for the ``expert`` backend.

``TorchNet`` computes exactly what ``NetPolicy.forward`` computes (optional per-cell linear map of 3-D
observations, ReLU MLP, policy logits, ``tanh`` value) so that ``to_net``/``load_net`` move weights between the
two without loss (float32). ``train_epochs`` fits it to search targets: soft cross-entropy of the masked
logits against the root visit distribution plus the mean squared error of the value (in ``tanh`` units)
against the mover's final return, with Adam.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from gameshelf.training.numpy_net import FORMAT, NetPolicy

NEG = -1.0e9
"""The logit given to illegal actions before the softmax."""


class TorchNet(nn.Module):
    """``NetPolicy``'s layers in torch: ``forward(x) -> (logits, tanh value in [-1, 1])``."""

    def __init__(self, observation_shape: tuple[int, ...], num_actions: int, hidden: list[int], cell_features: int) -> None:
        super().__init__()
        self.observation_shape = tuple(observation_shape)
        self.cell_features = cell_features if len(observation_shape) == 3 else 0
        self.cell: nn.Linear | None = None
        if self.cell_features:
            height, width, planes = observation_shape
            self.cell = nn.Linear(planes, self.cell_features)
            width_in = height * width * self.cell_features
        else:
            width_in = int(np.prod(observation_shape))
        layers = []
        for size in hidden:
            layers.append(nn.Linear(width_in, size))
            width_in = size
        self.dense = nn.ModuleList(layers)
        self.policy = nn.Linear(width_in, num_actions)
        self.value = nn.Linear(width_in, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.cell is not None:
            x = torch.relu(self.cell(x))
        x = x.reshape(x.shape[0], -1)
        for layer in self.dense:
            x = torch.relu(layer(x))
        return self.policy(x), torch.tanh(self.value(x))[:, 0]


def build(observation_shape: tuple[int, ...], num_actions: int, hidden: list[int], cell_features: int, seed: int) -> TorchNet:
    torch.manual_seed(seed)
    return TorchNet(observation_shape, num_actions, hidden, cell_features)


def to_net(model: TorchNet, meta: dict[str, Any]) -> NetPolicy:
    """The ``NetPolicy`` of ``model`` (float32 arrays); ``meta`` gives the game's facts and ``trained``."""
    weights: dict[str, np.ndarray] = {}

    def put(name: str, layer: nn.Linear) -> None:
        weights[f"{name}.w"] = layer.weight.detach().cpu().numpy().T.astype(np.float32).copy()
        weights[f"{name}.b"] = layer.bias.detach().cpu().numpy().astype(np.float32).copy()

    if model.cell is not None:
        put("cell", model.cell)
    for i, layer in enumerate(model.dense):
        assert isinstance(layer, nn.Linear)
        put(f"dense{i}", layer)
    put("policy", model.policy)
    put("value", model.value)
    full = {
        "format": FORMAT,
        **meta,
        "observation_shape": list(model.observation_shape),
        "cell_features": model.cell_features,
        "hidden": [int(layer.out_features) for layer in model.dense if isinstance(layer, nn.Linear)],
    }
    return NetPolicy(full, weights)


def load_net(model: TorchNet, net: NetPolicy) -> None:
    """Copy a ``NetPolicy``'s weights into ``model`` (same shapes; ``ValueError`` otherwise)."""
    w = net.weights

    def get(name: str, layer: nn.Linear) -> None:
        weight = torch.from_numpy(np.asarray(w[f"{name}.w"], dtype=np.float32).T.copy())
        bias = torch.from_numpy(np.asarray(w[f"{name}.b"], dtype=np.float32).copy())
        if weight.shape != layer.weight.shape or bias.shape != layer.bias.shape:
            raise ValueError(f"{name}: shape {tuple(weight.shape)}, the model has {tuple(layer.weight.shape)}")
        with torch.no_grad():
            layer.weight.copy_(weight)
            layer.bias.copy_(bias)

    if model.cell is not None:
        get("cell", model.cell)
    for i, layer in enumerate(model.dense):
        assert isinstance(layer, nn.Linear)
        get(f"dense{i}", layer)
    get("policy", model.policy)
    get("value", model.value)


def train_epochs(
    model: TorchNet,
    optimizer: torch.optim.Optimizer,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    seed: int,
) -> tuple[float, float]:
    """``epochs`` passes over ``data`` (``obs``, ``mask``, ``policy``, ``value`` in tanh units) in shuffled
    minibatches; the mean policy and value losses of the last pass."""
    n = len(data["value"])
    order_rng = np.random.default_rng(seed)
    policy_loss = value_loss = 0.0
    model.train()
    for _ in range(epochs):
        order = order_rng.permutation(n)
        totals = [0.0, 0.0]
        for start in range(0, n, batch_size):
            idx = np.sort(order[start : start + batch_size])
            x = torch.from_numpy(data["obs"][idx].astype(np.float32))
            mask = torch.from_numpy(data["mask"][idx])
            target = torch.from_numpy(data["policy"][idx])
            z = torch.from_numpy(data["value"][idx])
            logits, value = model(x)
            logp = torch.log_softmax(logits.masked_fill(~mask, NEG), dim=1)
            p_loss = -(target * logp).sum(dim=1).mean()
            v_loss = torch.mean((value - z) ** 2)
            optimizer.zero_grad()
            (p_loss + v_loss).backward()
            optimizer.step()
            totals[0] += p_loss.item() * len(idx)
            totals[1] += v_loss.item() * len(idx)
        policy_loss, value_loss = totals[0] / max(1, n), totals[1] / max(1, n)
    model.eval()
    return policy_loss, value_loss
