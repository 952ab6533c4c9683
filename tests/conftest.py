"""Shared test fixtures: every (environment id, player count) case of the registry."""

from __future__ import annotations

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
