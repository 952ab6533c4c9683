"""scripts/mcts_results.py (the per-game MCTS table of docs/results.md) on a tiny plan."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "mcts_results.py"


def load_script():
    spec = importlib.util.spec_from_file_location("mcts_results", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_plan_covers_every_id_with_two_budgets():
    from gameshelf import envs

    script = load_script()
    assert set(script.PLAN) == set(envs.registered_ids())
    assert all(len(budgets) == 2 and all(b.startswith("mcts:") for b in budgets) for budgets, _ in script.PLAN.values())


def test_tiny_run_and_table(tmp_path):
    script = load_script()
    summary = script.run_game("koplus-v0", ("mcts:2",), games=2)
    pairs = {(r["agent"], r["opponent"]) for r in summary["rows"]}
    assert pairs == {("mcts:2", "heuristic"), ("mcts:2", "random"), ("heuristic", "random")}
    assert all(r["games"] == 2 and r["wins"] + r["draws"] + r["losses"] == 2 for r in summary["rows"])
    assert set(summary["ratings"]) == {"mcts:2", "heuristic", "random"} and summary["ratings"]["random"][0] == 1000
    assert summary["timing"]["mcts:2"]["moves"] > 0 and summary["timing"]["mcts:2"]["seconds_per_move"] > 0
    (tmp_path / "koplus-v0.json").write_text(json.dumps(summary))
    lines = script.table(tmp_path)
    assert len(lines) == 4 and lines[2].startswith("| `koplus-v0` (2p) | mcts:2 |") and "of 2" in lines[2]
