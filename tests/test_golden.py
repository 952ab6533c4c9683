"""Golden playthroughs: one seeded random game per (id, player count), written as text and compared.

Regenerate after an intended rules or rendering change with ``pytest tests/test_golden.py --regen-golden``
(and bump the id's version if rules, observations or rewards changed).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from gameshelf import envs
from tests.conftest import case_id, env_cases

GOLDEN = Path(__file__).parent / "golden"
CASES = env_cases()


def playthrough(env_id: str, num_players: int, seed: int = 2024, full_text_every: int = 10) -> str:
    """A seeded random game as text: every action by name, the full position every few decisions."""
    game = envs.make_game(env_id, num_players=num_players)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    lines = [f"# {env_id}, {num_players} players, options {game.options}, seed {seed}", "", state.to_text(), ""]
    decisions = 0
    while not state.is_terminal():
        player = state.current_player()
        if state.is_chance_node():
            action = state.sample_chance(rng)
            lines.append(f"chance: {state.action_to_string(action)} [{action}]")
        else:
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
            lines.append(f"player_{player}: {state.action_to_string(action)} [{action}] ({len(legal)} legal)")
            decisions += 1
        state.apply_action(action)
        if decisions and decisions % full_text_every == 0 and not state.is_chance_node() and player >= 0:
            lines += ["", state.to_text(), ""]
    lines += ["", "final position:", state.to_text(), "", f"returns: {state.returns().round(4).tolist()}"]
    lines.append(f"scores: {state.scores().round(4).tolist()}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_golden_playthrough(case, regen_golden):
    path = GOLDEN / f"{case_id(case)}.txt"
    text = playthrough(*case)
    if regen_golden or not path.exists():
        if not regen_golden and os.environ.get("CI"):
            pytest.fail(f"{path.name} is missing; generate it with --regen-golden and commit it")
        path.write_text(text, encoding="utf-8")
        pytest.skip(f"wrote {path.name}")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs: rerun with --regen-golden if intended"
