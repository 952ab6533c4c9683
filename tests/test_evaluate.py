"""The evaluation runner: labels, the two-player table, progress output and the command-line errors."""

from __future__ import annotations

import pytest

from gameshelf.training.cli_util import run
from gameshelf.training.evaluate import agent_labels, build_agents, evaluate
from tests.toy_nim import NIM, register_nim, unregister_nim


@pytest.fixture(autouse=True)
def nim_registered():
    register_nim()
    yield
    unregister_nim()


def exit_code(main, argv, capsys):
    with pytest.raises(SystemExit) as info:
        run(main, argv)
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


class SavedModel:
    """Stands in for a learned agent loaded from ``path`` (named after the file, as ``LearnedAgent`` is)."""

    def __init__(self, path: str) -> None:
        from pathlib import Path

        self.path = path
        self.name = f"model:{Path(path).stem}"

    def act(self, state, seat, rng):
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])


# ---- labels ---------------------------------------------------------------------------------------------


def test_models_with_the_same_file_name_get_distinct_labels(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for path in ("a/final_model.zip", "b/final_model.zip", "x/run/m.zip", "y/run/m.zip"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(b"")
    agents = build_agents(["model:a/final_model.zip", "model:b/final_model.zip", "random"], NIM)
    assert agent_labels(agents) == ["model:a/final_model", "model:b/final_model", "random"]
    agents = build_agents(["model:x/run/m.zip", "model:y/run/m", "model:x/run/m.zip", "random", "random"], NIM)
    assert agent_labels(agents) == ["model:x/run/m", "model:y/run/m", "model:x/run/m#2", "random", "random#2"]
    # the same file by two spellings is the same model
    same = build_agents(["model:a/final_model.zip", f"model:{tmp_path}/a/final_model.zip"], NIM)
    assert agent_labels(same) == ["model:final_model", "model:final_model#2"]


def test_table_and_plot_tell_same_named_models_apart(tmp_path):
    result = evaluate(NIM, [SavedModel("runs/a/final_model.zip"), SavedModel("runs/b/final_model.zip")], games=4)
    assert result.agents == ["model:a/final_model", "model:b/final_model"]
    table = result.table()
    assert "model:a/final_model" in table and "model:b/final_model" in table and "#2" not in table
    fig = result.plot(tmp_path / "eval.png")
    ticks = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
    assert "model:a/final_model vs model:b/final_model" in ticks
    assert {"model:a/final_model", "model:b/final_model"} <= set(ticks)
