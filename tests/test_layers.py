"""The package's layers (docs: the README's layout): envs, wrappers, training, then the front ends.

Each layer imports only from the layers above it, training/ holds training and evaluation only, and no
import circle runs between the modules of training/ or the front ends (imports under ``TYPE_CHECKING``
aside, as they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"envs": "gameshelf.envs", "wrappers": "gameshelf.wrappers", "training": "gameshelf.training"}
FRONT_ENDS = ("gameshelf.cli", "gameshelf.play", "gameshelf.replay", "gameshelf.web", "gameshelf.demo", "gameshelf.bench")
LAYERS = ("gameshelf.envs", "gameshelf.wrappers", "gameshelf.training", *FRONT_ENDS)


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    out = {}
    for folder, package in FOLDERS.items():
        for file in (ROOT / folder).rglob("*.py"):
            parts = [p for p in file.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            out[".".join([package, *parts])] = file
    for file in (ROOT / "gameshelf").glob("**/*.py"):
        parts = file.relative_to(ROOT).with_suffix("").parts
        if parts[1] not in FOLDERS:
            out[".".join(p for p in parts if p != "__init__")] = file
    return out


def imports(name: str, file: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports when it runs (at the top or in a function)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name if known[name].name == "__init__.py" else name.rsplit(".", 1)[0]
                package = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{package}.{base}".rstrip(".")
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(file.read_text(encoding="utf-8")))
    out = set()
    for target in found:
        while target not in known and "." in target:
            target = target.rsplit(".", 1)[0]
        if target in known and target != name:
            out.add(target)
    return out


def layer(name: str) -> int:
    """0 envs, 1 wrappers, 2 training, 3 a front end; -1 for the package's own top (``gameshelf``, its names)."""
    for k, prefix in enumerate(LAYERS):
        if name == prefix or name.startswith(prefix + "."):
            return min(k, 3)
    return -1


def test_training_holds_training_and_evaluation_only():
    front = ("web", "play", "replay", "bench", "demo", "serve", "app", "static")
    found = [p.relative_to(ROOT).as_posix() for p in (ROOT / "training").rglob("*") if p.stem in front]
    assert not found, found


def test_each_layer_imports_only_from_the_layers_above_it():
    known = modules()
    upward = [
        f"{name} imports {target}"
        for name, file in known.items()
        for target in imports(name, file, known)
        if min(layer(name), layer(target)) >= 0 and layer(target) > layer(name)
    ]
    assert not upward, upward


def test_no_import_circle_among_training_modules_and_front_ends():
    known = modules()
    watched = {n for n in known if layer(n) >= 1}
    graph = {n: {t for t in imports(n, known[n], known) if t in watched} for n in watched}
    circles = []
    for start in sorted(graph):  # a path from a module back to itself
        seen: set[str] = set()
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    circles.append(" -> ".join([*path, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    assert not circles, circles[:5]
