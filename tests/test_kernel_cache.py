"""The kernels' disk cache follows every source of their game folder, not only the file that defines them.

A kernel compiles in the values of the globals it reads; a table in another module of the game folder that
changes must recompile it (and the game's drivers, which compile the kernels into themselves). Each check runs
a toy game package from a temporary folder in fresh processes sharing one ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gameshelf

TABLES = "VALUE = {value}\n"

KERNEL = """
import numpy as np

from gameshelf.envs.core.kernel import jit
from gameshelf.envs.core.row import RowLayout
from toy_cache_game.tables import VALUE

ROW = RowLayout("toy_cache_game")
SPARE = ROW.add("spare", 1, "unused", (0, 0))
DECISIONS = ROW.add("decisions", 1, "decisions so far", (0, 32767))
SIZE = ROW.size
NUM_ACTS = 1
NUM_CHANCE = 0


def initial_state():
    return ROW.new_row()


@jit
def current_player(S, i):
    return 0


@jit
def chance_weights(S, i, out):
    pass


@jit
def is_chance_outcome(S, i, outcome):
    return False


@jit
def sample_chance(S, i, rngs):
    return 0


@jit
def is_legal(S, i, action):
    return action == 0


@jit
def legal_mask(S, i, out):
    out[i, 0] = True


@jit
def apply(S, i, action):
    S[i, DECISIONS] += 1


@jit
def returns(S, i, out):
    out[0] = 0.0


@jit
def observation(S, i, seat, out):
    out[i, 0] = VALUE


@jit
def value(x):
    return x + VALUE
"""

RUN = """
import json
import numpy as np
from gameshelf.envs.core.kernel import kernel_drivers, seed_generators
from toy_cache_game import kernel as K

value = int(K.value(1))
drivers = kernel_drivers(K)
obs = np.zeros((1, 1), dtype=np.float32)
masks = np.zeros((1, 1), dtype=np.bool_)
S = np.zeros((1, K.SIZE), dtype=np.int16)
players = np.zeros(1, dtype=np.int64)
drivers.batch_reset(S, seed_generators(0, 1), K.initial_state(), players, obs, masks)
hits = sum(K.value.stats.cache_hits.values()), sum(drivers.batch_reset.stats.cache_hits.values())
print(json.dumps({"value": value, "observed": float(obs[0, 0]), "hits": hits}))
"""


def _run(package: Path, cache: Path) -> dict:
    """Run the toy game in a fresh process with ``cache`` as numba's cache folder."""
    env = {key: val for key, val in os.environ.items() if key != "NUMBA_DISABLE_JIT"}
    env["NUMBA_CACHE_DIR"] = str(cache)
    root = Path(gameshelf.__file__).parent.parent
    env["PYTHONPATH"] = os.pathsep.join([str(package.parent), str(root)])
    done = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture
def toy_game(tmp_path: Path) -> Path:
    package = tmp_path / "src" / "toy_cache_game"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "tables.py").write_text(TABLES.format(value=7))
    (package / "kernel.py").write_text(KERNEL)
    return package


def test_edit_of_a_table_in_another_module_recompiles_kernels_and_drivers(toy_game: Path, tmp_path: Path) -> None:
    cache = tmp_path / "numba"
    first = _run(toy_game, cache)
    assert first == {"value": 8, "observed": 7.0, "hits": [0, 0]}  # compiled
    again = _run(toy_game, cache)
    assert again == {"value": 8, "observed": 7.0, "hits": [1, 1]}  # loaded from the cache
    (toy_game / "tables.py").write_text(TABLES.format(value=9))
    edited = _run(toy_game, cache)
    assert edited == {"value": 10, "observed": 9.0, "hits": [0, 0]}  # recompiled with the new table
    assert _run(toy_game, cache)["hits"] == [1, 1]  # and cached again


def test_unwritable_cache_folder_compiles_on_every_run(toy_game: Path, tmp_path: Path) -> None:
    cache = tmp_path / "a file"
    cache.write_text("not a folder")
    for _ in range(2):
        assert _run(toy_game, cache) == {"value": 8, "observed": 7.0, "hits": [0, 0]}


def test_kernels_cache_in_cache_dir() -> None:
    from gameshelf.envs.core import kernel
    from gameshelf.envs.level_x import kernel as level_x

    if not hasattr(level_x.apply, "stats"):
        pytest.skip("numba's JIT is disabled")
    assert Path(level_x.apply.stats.cache_path).parent == kernel.cache_dir()


def test_sources_digest_covers_every_python_file_of_the_folder(tmp_path: Path) -> None:
    from gameshelf.envs.core.kernel import _sources_digest

    (tmp_path / "kernel.py").write_text("A = 1\n")
    (tmp_path / "notes.txt").write_text("not a source")
    digest = _sources_digest.__wrapped__(tmp_path)
    (tmp_path / "notes.txt").write_text("still not a source")
    assert _sources_digest.__wrapped__(tmp_path) == digest
    (tmp_path / "tables.py").write_text("B = 2\n")
    with_tables = _sources_digest.__wrapped__(tmp_path)
    assert with_tables != digest
    (tmp_path / "tables.py").write_text("B = 3\n")
    assert _sources_digest.__wrapped__(tmp_path) not in (digest, with_tables)
    core = Path(gameshelf.__file__).parent / "envs" / "core"
    assert _sources_digest(core) is _sources_digest(core)  # once per process and folder


def _gameshelf_imports(path: Path) -> set[str]:
    """The ``gameshelf`` names a source file imports (``from a import b`` gives ``a`` and ``a.b``)."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {name for name in names if name.split(".")[0] == "gameshelf"}


def _reads_outside(kernel: Path, root: Path) -> list[str]:
    """What a game's ``kernel.py`` (under ``root``, the folder holding ``gameshelf``) imports, directly or through
    its game's modules, from outside its game folder and the core."""
    own = f"gameshelf.envs.{kernel.parent.name}"
    seen: set[str] = set()
    outside = []
    todo = [kernel]
    while todo:
        for name in sorted(_gameshelf_imports(todo.pop()) - seen):
            seen.add(name)
            if not name.startswith((own, "gameshelf.envs.core")):
                outside.append(name)
            module = root / (name.replace(".", "/") + ".py")
            if name.startswith(own) and module.exists():
                todo.append(module)
    return outside


def test_kernels_read_only_their_game_folder_and_the_core(tmp_path: Path) -> None:
    """The cache watches a kernel's game folder and ``envs/core``: what a game's kernels import (and what its
    modules import in turn) must live there, or an edit of it would leave a stale compiled kernel."""
    root = Path(gameshelf.__file__).parent.parent
    kernels = sorted((root / "gameshelf" / "envs").glob("*/kernel.py"))
    assert len(kernels) >= 10
    assert {str(kernel): _reads_outside(kernel, root) for kernel in kernels} == {str(kernel): [] for kernel in kernels}
    game = tmp_path / "gameshelf" / "envs" / "toy"  # the check itself sees a table read from another game
    game.mkdir(parents=True)
    (game / "kernel.py").write_text("from gameshelf.envs.toy import board\n")
    (game / "board.py").write_text("from gameshelf.envs.paiko.board import SQUARES\n")
    assert _reads_outside(game / "kernel.py", tmp_path) == ["gameshelf.envs.paiko.board", "gameshelf.envs.paiko.board.SQUARES"]
