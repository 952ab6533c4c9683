"""The project's own checks: ruff (lint and format) over the tree, mypy over the whole package."""

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


def test_mypy_really_checks_the_package(tmp_path):
    """A deliberate type error in a scratch copy of the core is reported (mypy sees gameshelf.envs)."""
    pytest.importorskip("mypy")
    import shutil

    for name in ("envs", "wrappers", "training", "gameshelf"):
        shutil.copytree(ROOT / name, tmp_path / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "envs" / "core" / "episode.py"
    target.write_text(target.read_text() + "\n\nDELIBERATE: int = 'not an int'\n")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "-p", "gameshelf.envs.core", "--cache-dir", str(tmp_path / ".cache")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "episode.py" in result.stdout and "Incompatible types in assignment" in result.stdout


def test_no_bare_top_level_imports():
    """`import envs` from the repository root would load a second copy of the package: ruff bans it."""
    pytest.importorskip("ruff")
    scratch = ROOT / "tests" / "_bare_import_probe.py"
    scratch.write_text("import envs\nfrom training import agents\n\nprint(envs, agents)\n")
    try:
        lint = run_tool("ruff", "check", "--select", "TID251", str(scratch))
    finally:
        scratch.unlink()
    assert lint.returncode == 1 and lint.stdout.count("TID251") == 2, lint.stdout


def test_wheel_installs_only_gameshelf(tmp_path):
    """The wheel holds one top-level package, gameshelf, with its training configs and py.typed."""
    import zipfile

    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = tmp_path.glob("gameshelf-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"gameshelf"}
    needed = ("gameshelf/py.typed", "gameshelf/cli.py", "gameshelf/envs/core/episode.py", "gameshelf/wrappers/single_seat.py")
    assert set(needed) <= set(names)
    assert any(n.startswith("gameshelf/training/configs/") and n.endswith(".yaml") for n in names)
    assert not any(n.startswith("gameshelf/tests/") for n in names)


def test_no_file_refers_to_a_path_outside_the_repository():
    """Docs, cards and tests link only inside the repository (its rules live in docs/rules/)."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    outside = ("../shared", "shared/rules/", "shared/seeds", "/work/")
    offenders = []
    for name in tracked:
        path = ROOT / name
        if path.suffix not in (".py", ".md", ".yaml", ".toml", ".ipynb", ".sh", ".txt", ".cfg") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        offenders += [f"{name}: {marker}" for marker in outside if marker in text]
    assert not [o for o in offenders if not o.startswith("tests/test_tooling.py")], offenders
