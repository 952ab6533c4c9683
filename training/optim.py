"""``EagerAdam``: the optimizer every trainer builds (SB3's policies, expert iteration), torch only."""

from __future__ import annotations

import inspect
from typing import Any

import torch


class EagerAdam(torch.optim.Adam):
    """``torch.optim.Adam`` with the same arithmetic, without importing ``torch._dynamo``.

    ``torch.optim`` wraps ``step``, ``zero_grad``, ``add_param_group`` and the state-dict methods in
    ``torch.compile`` guards whose first call imports ``torch._dynamo`` (about a second of CPU, a large share of
    a short run). Nothing here is compiled, so each method calls torch's own code from under its guard
    (``inspect.unwrap``); ``step`` keeps the guard's one effect, running without gradients.
    """

    _step = inspect.unwrap(torch.optim.Adam.step)
    _zero_grad = inspect.unwrap(torch.optim.Optimizer.zero_grad)
    _add_param_group = inspect.unwrap(torch.optim.Optimizer.add_param_group)
    _state_dict = inspect.unwrap(torch.optim.Optimizer.state_dict)
    _load_state_dict = inspect.unwrap(torch.optim.Optimizer.load_state_dict)

    def step(self, closure: Any = None) -> Any:  # type: ignore[override]
        with torch.set_grad_enabled(bool(self.defaults["differentiable"])):
            return EagerAdam._step(self, closure)

    def zero_grad(self, set_to_none: bool = True) -> None:
        EagerAdam._zero_grad(self, set_to_none)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        EagerAdam._add_param_group(self, param_group)

    def state_dict(self) -> Any:
        return EagerAdam._state_dict(self)

    def load_state_dict(self, state_dict: Any) -> None:
        EagerAdam._load_state_dict(self, state_dict)
