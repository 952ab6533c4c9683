"""The import graph: no circle at run time, and each layer imports only from the layers above it.

The graph is read from the source with ``ast``, never by importing: every module of the ``gameshelf`` package
(its linked ``envs``, ``wrappers`` and ``training`` folders included). An edge is an import that can run, at
import time or inside a function: a function-level import still runs before its module is complete when
a caller gets there during import, and it hides a circle from readers and tools. Imports under
``if TYPE_CHECKING:`` never run and are left out; ``importlib.import_module`` and ``__import__`` with a
constant name count. ``from a.b import c`` is an edge to ``a.b.c`` when that is a module, else to ``a.b``
(its ``__init__``). A parent package's ``__init__``, which Python runs first, is not an edge of its own.

The layers (DESIGN.md, "The layers"): ``envs/core`` imports nothing of gameshelf outside the core (not the
registry in any form, nor ``gameshelf.envs`` or ``gameshelf``, whose ``__init__`` holds it); a game folder
imports the core and itself; nothing under ``envs`` imports ``wrappers`` or ``training``, nothing under
``wrappers`` imports ``training``. Above them, in order: ``envs``, ``wrappers``, ``training``, then the front
ends (``FRONT_ENDS``): no layer imports a layer below it (the front ends may import one another), and
``training`` holds training and evaluation only, no front end.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gameshelf"
FRONT_ENDS = ("gameshelf.cli", "gameshelf.play", "gameshelf.replay", "gameshelf.web", "gameshelf.demo", "gameshelf.bench")
LAYERS = ("gameshelf.envs", "gameshelf.wrappers", "gameshelf.training", *FRONT_ENDS)
"""The layers from the bottom up; every front end is one layer (the last)."""
TRAINING_CIRCLES_ALLOWED: frozenset[frozenset[str]] = frozenset()
"""Circles under ``training`` tolerated for now: none, by design (a circle there is fixed, not listed)."""


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool


@cache
def modules() -> dict[str, Module]:
    """Every module of the package, by dotted name (folders with an ``__init__.py``, links followed)."""
    found: dict[str, Module] = {}

    def walk(folder: Path, prefix: str) -> None:
        for path in sorted(folder.iterdir()):
            if path.is_dir() and (path / "__init__.py").is_file():
                walk(path, f"{prefix}.{path.name}")
            elif path.suffix == ".py":
                is_package = path.name == "__init__.py"
                name = prefix if is_package else f"{prefix}.{path.stem}"
                found[name] = Module(name, path, is_package)

    walk(PACKAGE, "gameshelf")
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_names(module: Module) -> Iterator[str]:
    """The dotted names a module's run-time imports name (``from a import b`` gives ``a.b``, then ``a``)."""
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    tree = ast.parse(module.path.read_text(encoding="utf-8"), filename=str(module.path))

    def visit(node: ast.AST) -> Iterator[str]:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:  # the else branch does run
                yield from visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            for alias in node.names:
                yield f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules() else source
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            dynamic = (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
                isinstance(func, ast.Name) and func.id in ("import_module", "__import__")
            )
            if dynamic and isinstance(node.args[0].value, str):
                yield node.args[0].value
        for child in ast.iter_child_nodes(node):
            yield from visit(child)

    yield from visit(tree)


@cache
def graph() -> dict[str, frozenset[str]]:
    """Module -> the package's modules it imports at run time."""
    known = modules()
    return {
        name: frozenset(target for target in _imported_names(module) if target in known and target != name)
        for name, module in known.items()
    }


def circles(edges: dict[str, frozenset[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return sorted(found, key=sorted)


def describe(component: frozenset[str]) -> str:
    edges = graph()
    inside = [f"{a} -> {b}" for a in sorted(component) for b in sorted(edges[a] & component)]
    return "{" + ", ".join(sorted(component)) + "}: " + "; ".join(inside)


def in_layer(name: str, *layers: str) -> bool:
    return any(name == layer or name.startswith(f"{layer}.") for layer in layers)


# ---- the walk itself ---------------------------------------------------------------------------------
def test_the_walk_reads_the_whole_package_through_its_links():
    assert len(GAMES) == 10
    names = set(modules())
    for expected in (
        "gameshelf",
        "gameshelf.envs",
        "gameshelf.envs.core.game",
        "gameshelf.envs.registration",
        "gameshelf.envs.records",
        "gameshelf.envs.paiko.game",
        "gameshelf.envs.paiko.heuristic",
        "gameshelf.envs.core.agent",
        "gameshelf.wrappers",
        "gameshelf.training",
    ):
        assert expected in names
    assert sum(in_layer(n, "gameshelf.training") for n in names) > 10
    edges = graph()
    assert "gameshelf.envs.core.env" in edges["gameshelf.envs.registration"]  # imported inside make(): counted
    assert "gameshelf.envs.core.game" not in edges["gameshelf.envs.core.rendering"]  # only under TYPE_CHECKING


def test_the_walk_counts_function_level_imports_and_skips_type_checking(tmp_path):
    code = (
        "from typing import TYPE_CHECKING\n"
        "import importlib\n"
        "if TYPE_CHECKING:\n    from gameshelf.envs.registration import make\n"
        "else:\n    import gameshelf.envs.core.game\n"
        "def f():\n    from gameshelf.envs import records\n    importlib.import_module('gameshelf.wrappers')\n"
    )
    (tmp_path / "probe.py").write_text(code)
    found = set(_imported_names(Module("gameshelf.envs.core.probe", tmp_path / "probe.py", False)))
    assert {"gameshelf.envs.core.game", "gameshelf.envs.records", "gameshelf.wrappers"} <= found
    assert "gameshelf.envs.registration" not in found


def test_circles_are_found():
    edges = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"a"})}
    assert circles(edges) == [frozenset({"a", "b", "c"})]
    assert circles({"a": frozenset({"b"}), "b": frozenset()}) == []


# ---- circles -----------------------------------------------------------------------------------------
def test_no_import_circle_in_envs_and_wrappers():
    strict = [c for c in circles(graph()) if any(in_layer(m, "gameshelf.envs", "gameshelf.wrappers") for m in c)]
    assert not strict, "import circles at run time:\n" + "\n".join(map(describe, strict))


def test_no_import_circle_in_training_and_the_front_ends():
    rest = [c for c in circles(graph()) if not any(in_layer(m, "gameshelf.envs", "gameshelf.wrappers") for m in c)]
    new = [c for c in rest if c not in TRAINING_CIRCLES_ALLOWED]
    assert not new, "import circles at run time:\n" + "\n".join(map(describe, new))


# ---- layers ------------------------------------------------------------------------------------------
def _crossings(source: str, allowed: tuple[str, ...]) -> list[str]:
    edges = graph()
    return sorted(f"{a} -> {b}" for a in edges if in_layer(a, source) for b in edges[a] if not in_layer(b, *allowed))


def test_the_core_imports_nothing_above_it():
    """Not the registry in any form: ``registration``, ``records``, ``gameshelf.envs`` or ``gameshelf``."""
    assert _crossings("gameshelf.envs.core", ("gameshelf.envs.core",)) == []


GAMES = sorted({name.split(".")[2] for name in modules() if in_layer(name, "gameshelf.envs") and name.count(".") >= 3} - {"core"})
"""The game folders under ``envs``."""


@pytest.mark.parametrize("game", GAMES)
def test_a_game_folder_imports_the_core_and_itself(game):
    assert _crossings(f"gameshelf.envs.{game}", ("gameshelf.envs.core", f"gameshelf.envs.{game}")) == []


def test_envs_import_neither_wrappers_nor_training():
    assert _crossings("gameshelf.envs", ("gameshelf.envs",)) == []


def test_wrappers_do_not_import_training():
    assert _crossings("gameshelf.wrappers", ("gameshelf.envs", "gameshelf.wrappers")) == []


def layer(name: str) -> int | None:
    """0 envs, 1 wrappers, 2 training, 3 a front end; None for the rest (``gameshelf`` itself, its other modules)."""
    for k, prefix in enumerate(LAYERS):
        if in_layer(name, prefix):
            return min(k, 3)
    return None


def test_no_layer_imports_a_layer_below_it():
    """Training (nor envs, nor wrappers) imports no front end; the front ends may import one another."""
    edges = graph()
    below = sorted(
        f"{a} -> {b}"
        for a in edges
        for b in edges[a]
        if (upper := layer(b)) is not None and (lower := layer(a)) is not None and upper > lower
    )
    assert not below, below


def test_each_game_keeps_its_heuristic_beside_it_and_training_none():
    """A game's heuristic agent is its ``envs/<game>/heuristic.py`` (found by convention); ``training`` holds
    the agents that learn or search, no game's own."""
    for game in GAMES:
        assert f"gameshelf.envs.{game}.heuristic" in modules(), f"envs/{game}/heuristic.py is missing"
    in_training = [n for n in modules() if in_layer(n, "gameshelf.training") and n.rpartition(".")[2] in GAMES]
    assert not in_training, in_training


def test_training_holds_training_and_evaluation_only():
    front = ("web", "play", "replay", "bench", "demo", "serve", "app", "static")
    found = [p.relative_to(ROOT).as_posix() for p in (ROOT / "training").rglob("*") if p.stem in front]
    assert not found, found
