"""docs/benchmark.md, the page to cite, agrees with the files it quotes: the analysis table, the protocol
version and the package version (CITATION.cff and the BibTeX entry)."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "benchmark.md"


def _table(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|")]


def test_the_games_table_is_the_analysis_summary():
    summary = _table((ROOT / "docs" / "analysis" / "README.md").read_text(encoding="utf-8"))
    page = _table(PAGE.read_text(encoding="utf-8"))
    assert len(summary) == 12  # header, rule, ten games
    assert page == [line.replace("](", "](analysis/") for line in summary]


def test_the_page_names_the_current_protocol_and_package_version():
    from gameshelf.training.benchmark.protocol import PROTOCOL

    text = PAGE.read_text(encoding="utf-8")
    assert f"`{PROTOCOL}`" in text and f"Benchmark protocol {PROTOCOL}" in text
    assert re.search(r"version = \{(.+?)\}", text)[1] == version("gameshelf")  # type: ignore[index]
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r'^version: "(.+)"$', cff, re.M)[1] == version("gameshelf")  # type: ignore[index]


def test_the_readme_links_the_page_and_the_citation():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/benchmark.md)" in readme and "(CITATION.cff)" in readme
