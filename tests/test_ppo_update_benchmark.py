"""``benchmarks/ppo_update.py`` on a tiny rollout: the lean update computes SB3's losses, and every part runs."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import numpy as np
import pytest
import torch

PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "ppo_update.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("ppo_update_benchmark", PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def global_state():
    """Building a model seeds the global generators and sets torch's threads: put them back afterwards."""
    threads, states = torch.get_num_threads(), (random.getstate(), np.random.get_state(), torch.get_rng_state())
    yield
    torch.set_num_threads(threads)
    random.setstate(states[0])
    np.random.set_state(states[1])
    torch.set_rng_state(states[2])


@pytest.fixture
def tiny(bench):
    """A Level X model on 2 games x 8 steps (minibatches of 8, one epoch), with one rollout collected."""
    model = bench.build_model("level_x-v0", n_envs=2, n_steps=8, batch_size=8, n_epochs=1)
    rollout, cpu = bench.collect(model)
    assert cpu > 0 and rollout["observations"].shape[:2] == (8, 2)
    return model, rollout


@pytest.mark.parametrize("whole", [True, False])
def test_lean_update_gives_sb3_losses_and_weights(bench, tiny, whole):
    model, rollout = tiny
    losses = bench.compare_losses(model, rollout, whole=whole)
    assert set(losses) == set(bench.STATS)
    for name, (expected, got) in losses.items():
        assert got == pytest.approx(expected, abs=1e-5), name
    assert losses["value_loss"][0] > 0 and losses["entropy_loss"][0] < 0

    # the same step from the same weights: the parameters after it agree too
    state = bench.snapshot(model)
    bench.reset(model, rollout, state, seed=3)
    bench.sb3_update(model)
    after_sb3 = [p.detach().clone() for p in model.policy.parameters()]
    bench.reset(model, rollout, state, seed=3)
    bench.run_lean(model, bench.LeanPPO(model))
    for a, b in zip(after_sb3, model.policy.parameters(), strict=True):
        assert torch.allclose(a, b, atol=1e-6)
    assert any(not torch.equal(a, w) for a, w in zip(after_sb3, state[0].values(), strict=False))


def test_lean_update_masks_illegal_actions_like_sb3(bench, tiny):
    """A mask changed after the rollout changes both updates' losses alike (the mask is read, not ignored)."""
    model, rollout = tiny
    before = bench.compare_losses(model, rollout)
    narrowed = dict(rollout)
    masks = rollout["action_masks"].copy()
    masks[:] = 0
    np.put_along_axis(masks, rollout["actions"].astype(np.int64), 1, axis=2)  # only the action taken: no entropy left
    narrowed["action_masks"] = masks
    after = bench.compare_losses(model, narrowed)
    for expected, got in after.values():
        assert got == pytest.approx(expected, abs=1e-5)
    assert after["entropy_loss"][0] == pytest.approx(0.0, abs=1e-6) != before["entropy_loss"][0]


def test_timing_profile_and_refusals(bench, tiny):
    model, rollout = tiny
    weights = [p.detach().clone() for p in model.policy.parameters()]
    times = bench.time_updates(model, rollout, rounds=1, warmup=0)
    assert set(times) == {"sb3", "lean", "floor"} and all(len(t) == 1 and t[0] >= 0 for t in times.values())
    assert "ppo_mask.py" in bench.profile_update(model, rollout, top=40)
    assert "ppo_update.py" in bench.profile_update(model, rollout, lean=True, top=40)
    for a, b in zip(weights, model.policy.parameters(), strict=True):
        assert torch.equal(a, b)  # timing and profiling leave the model as it was
    model.target_kl = 0.01
    with pytest.raises(ValueError, match="target_kl"):
        bench.LeanPPO(model)


def test_main_prints_both_rates_and_the_ratio(bench, capsys):
    bench.main(["level_x-v0", "--n-envs", "2", "--n-steps", "8", "--batch-size", "4", "--n-epochs", "2", "--rounds", "1"])
    out = capsys.readouterr().out
    assert "MaskablePPO.train()" in out and "LeanPPO.update" in out and "lean / SB3:" in out
    assert out.count("largest difference") == 2
