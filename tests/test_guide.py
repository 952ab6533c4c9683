"""The guide cannot rot: ``docs/adding_a_game.md`` walks Pig (``tests/toy_pig``) and quotes its files; here
every quote is checked against the file it names, and Pig passes what the guide promises (the kit at each
player count, the environment checks, the batched replay, compiled and interpreted kernels alike)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.envs import testing
from tests.toy_pig import PIG, register_pig

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "adding_a_game.md"
QUOTE = re.compile(r"```python\n# (tests/toy_pig/\S+)\n(.*?)\n```", re.S)


@pytest.fixture
def pig():
    registered = PIG in envs.registered_ids()
    register_pig()
    yield PIG
    if not registered:
        envs.unregister(PIG)


def test_every_quote_of_the_guide_stands_in_the_file_it_names():
    quotes = QUOTE.findall(GUIDE.read_text(encoding="utf-8"))
    assert {path for path, _ in quotes} >= {
        "tests/toy_pig/kernel.py",
        "tests/toy_pig/game.py",
        "tests/toy_pig/observation.py",
        "tests/toy_pig/__init__.py",
    }
    for path, code in quotes:
        assert code in (ROOT / path).read_text(encoding="utf-8"), f"the guide quotes {path} as it no longer is"


def test_the_guide_names_every_function_the_kernel_interface_asks_for():
    from gameshelf.envs.core.kernel import KERNEL_INTERFACE

    guide = GUIDE.read_text(encoding="utf-8")
    for name in KERNEL_INTERFACE:
        assert f"`{name}" in guide, f"the guide does not explain {name}"


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_pig_passes_the_kit(pig, num_players):
    testing.check_game(envs.make_game(pig, num_players=num_players))


def test_pig_passes_the_environment_checks_and_the_batched_replay(pig):
    testing.check_env(pig, num_players=3)
    assert testing.check_batched(pig, num_envs=4, steps=200, seed=1, num_players=3) > 0


def test_pig_refuses_an_option_or_position_outside_its_row_by_name(pig):
    game = envs.make_game(pig)
    with pytest.raises(ValueError, match="target"):
        envs.make_game(pig, target=101)
    position = game.new_initial_state().position()
    with pytest.raises(ValueError, match="turn_total"):
        game.state_from_position({**position, "turn_total": 40000})


PLAIN = """
import numpy as np
from gameshelf import envs, vector
from gameshelf.envs.core.kernel import seed_generators
from tests.toy_pig import register_pig
pig = register_pig()
env = vector.make(pig, num_envs=3, seed=5, num_players=3)
env.reset()
rngs = seed_generators(1, 3)
total = 0.0
for _ in range(150):
    out = env.step(env.random_actions(rngs))
    total += float(out.observation.sum()) + 10 * float(out.rewards.sum() ** 2) + int(out.terminated.sum())
state = envs.make_game(pig, num_players=3).new_initial_state()
played = state.random_playout(np.random.default_rng(7))
print(repr(total), env.states.tolist(), played, state.returns().tolist())
"""


def test_pigs_kernels_run_alike_compiled_and_as_plain_python():
    outputs = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        done = subprocess.run([sys.executable, "-c", PLAIN], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and np.isfinite(float(outputs[0].split()[0]))
