"""The project's own checks: ruff (lint and format) over the tree, mypy over envs/ and wrappers/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_lint_and_format():
    pytest.importorskip("ruff")
    lint = run_tool("ruff", "check", ".")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = run_tool("ruff", "format", "--check", ".")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy_envs_and_wrappers():
    pytest.importorskip("mypy")
    result = run_tool("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
