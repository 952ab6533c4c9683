"""The notebooks run top to bottom at tiny budgets (``GAMESHELF_NB_BUDGET=tiny``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    from gameshelf import envs

    try:
        envs.make_game("level_x-v0")
    except ImportError:
        pytest.skip("level_x-v0 is not available")
    monkeypatch.setenv("GAMESHELF_NB_BUDGET", "tiny")
    monkeypatch.setenv("GAMESHELF_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    root = str(path.parents[1])
    monkeypatch.setenv("PYTHONPATH", root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    notebook = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), "outputs must be stripped"
    resources = {"metadata": {"path": str(path.parent)}}
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3", resources=resources)
    client.execute()
