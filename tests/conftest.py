"""Shared test fixtures: every (environment id, player count) case of the registry."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from gameshelf import envs


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--regen-golden", action="store_true", help="rewrite the golden playthrough files")


def env_cases() -> list[tuple[str, int]]:
    """Every registered id with each of its supported player counts."""
    return [(env_id, n) for env_id in envs.registered_ids() for n in envs.spec(env_id).player_counts]


def case_id(case: tuple[str, int]) -> str:
    return f"{case[0]}-{case[1]}p"


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--regen-golden"))


GUARDED_PACKAGES = ("gameshelf", "torch", "numba", "numpy")
"""Packages whose modules no test may remove, replace or leave re-imported (a second copy of a module keeps
whatever a test had patched into it, and later tests on the same worker would meet it)."""


def _package_modules() -> dict[str, ModuleType]:
    return {name: module for name, module in sys.modules.items() if name.split(".")[0] in GUARDED_PACKAGES}


def _stale_attributes() -> set[str]:
    """gameshelf modules whose parent package names, under the module's name, another module object."""
    stale = set()
    for name, module in list(sys.modules.items()):
        parent_name, _, child = name.rpartition(".")
        if not name.startswith("gameshelf.") or parent_name not in sys.modules:
            continue
        attribute = getattr(sys.modules[parent_name], child, None)
        if isinstance(attribute, ModuleType) and attribute is not module:
            stale.add(name)
    return stale


@pytest.fixture(autouse=True)
def no_module_left_replaced() -> Iterator[None]:
    """Fail the test that removes or replaces an imported module, or leaves a package attribute naming a module
    that is not the one in ``sys.modules`` (checked after every other fixture has undone its patches)."""
    before, stale_before = _package_modules(), _stale_attributes()
    yield
    after = _package_modules()
    changed = [name for name, module in before.items() if after.get(name) is not module]
    changed += sorted(_stale_attributes() - stale_before)
    if changed:
        pytest.fail(f"this test left modules removed or replaced: {sorted(changed)[:10]}", pytrace=False)
