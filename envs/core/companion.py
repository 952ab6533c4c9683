"""A game's companion modules, found by convention beside its ``Game`` class: ``position.py``, ``render.py``,
``heuristic.py``. The game module never imports them (they import it), so the core looks them up by name."""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType


@cache
def companion(game_module: str, role: str) -> ModuleType | None:
    """The module ``role`` (``"position"``, ``"render"``, ``"heuristic"``) of the package of ``game_module`` (the
    module of a ``Game`` class), or None when the package has none; an import error inside it propagates."""
    package = game_module.rpartition(".")[0] or game_module
    try:
        return importlib.import_module(f"{package}.{role}")
    except ModuleNotFoundError as err:
        if err.name != f"{package}.{role}":
            raise
        return None
