"""Example paths under ``runs/`` in docs/*.md and README.md name what the commands write.

The folders the commands make without ``--out`` come from the code itself (the clock stopped at ``{time}``);
a documented path must fit one of them (a file inside it, or a placeholder such as ``<time>``, ``*``, ``x``
or ``...`` in it), or lie in a folder that the same page passes to ``--out``."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from gameshelf import demo as demo_module
from gameshelf import envs
from gameshelf.training import evaluate as evaluate_module
from gameshelf.training.benchmark import analysis, leaderboard
from gameshelf.training.benchmark import ladder as bm

train_module = pytest.importorskip("gameshelf.training.train")

ROOT = Path(__file__).resolve().parents[1]
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
ENV, SEED, AGENT = "level_x-v0", 7, "mcts:200:reference"

RUNS_PATH = re.compile(r"(?<![\w./-])runs/[^\s`'\"()|,;\]]*")
OUT_OPTION = re.compile(r"--out[ =]([^\s`'\"]+)")
PLACEHOLDER = r"(?:<[^/>]+>|\*)"
SPAN = ("x", "...")
"""Segments of a documented path that stand for one or more segments of a real one."""
PAST_RUNS = {"results.md": ["runs/koplus-v0/outcome-reward-s0", "runs/koplus-v0/results-s0"]}
"""Names of past runs in a table of results, not examples to follow (their --out is not on the page)."""


class Made(Exception):
    """Carries the folder a command was about to create."""


def made_folders(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The folder each command makes without ``--out``, as the code builds it, with its values in braces."""
    monkeypatch.setattr(time, "strftime", lambda fmt, *args: "{time}")

    def stop(path: object, *args: object, **kwargs: object) -> None:
        raise Made(str(kwargs.get("out", path)))

    made: dict[str, str] = {}
    monkeypatch.setattr(train_module, "check_new_run_dir", stop)
    for backend in ("sb3", "batched", "rllib", "expert"):
        with pytest.raises(Made) as caught:
            train_module.train(ENV, backend=backend, seed=SEED)
        made[f"train --backend {backend}"] = str(caught.value)
    monkeypatch.setattr(train_module, "train", stop)
    with pytest.raises(Made) as caught:
        demo_module.demo(ENV, progress=False)
    made["demo"] = str(caught.value)
    made["benchmark"] = str(bm.default_out(AGENT)).replace(bm.slug(AGENT), "{agent}")
    made["leaderboard"] = str(leaderboard.default_out())
    made["analyze"] = str(analysis.default_out())
    made["evaluate"] = str(evaluate_module.default_plot_path(ENV, 3)).replace("-3p-", "-{players}p-")
    return {name: path.replace(ENV, "{env}").replace(f"-s{SEED}", "-s{seed}") for name, path in made.items()}


def segment_pattern(segment: str) -> re.Pattern[str]:
    ids = "|".join(map(re.escape, envs.registered_ids()))
    values = {"{env}": ids, "{time}": r"[\d-]+", "{seed}": r"\d+", "{agent}": r"[A-Za-z0-9._-]+", "{players}": r"\d+"}
    parts = re.split(r"(\{\w+\})", segment)
    body = "".join(f"(?:{PLACEHOLDER}|{values[p]})" if p in values else re.escape(p) for p in parts)
    return re.compile(f"{PLACEHOLDER}|{body}")


def fits(doc: list[str], made: list[str]) -> bool:
    """Whether documented segments ``doc`` name the folder ``made`` or something inside it (or a folder above it)."""
    if not doc or not made:
        return True
    if doc[0] in SPAN:
        return any(fits(doc[1:], made[k:]) for k in range(1, len(made) + 1))
    return bool(segment_pattern(made[0]).fullmatch(doc[0])) and fits(doc[1:], made[1:])


def misnamed(page: Path, made: dict[str, str]) -> list[str]:
    text = page.read_text(encoding="utf-8")
    chosen = [m.rstrip("/.") for m in OUT_OPTION.findall(text)] + PAST_RUNS.get(page.name, [])
    wrong = []
    for found in RUNS_PATH.findall(text):
        path = found.rstrip(".:")
        if any(path == c or path.startswith(c + "/") for c in chosen):
            continue
        segments = [s for s in path.split("/") if s]
        if not any(fits(segments, folder.split("/")) for folder in made.values()):
            wrong.append(f"{page.name}: {path}")
    return wrong


@pytest.fixture(scope="module")
def made() -> dict[str, str]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        return made_folders(monkeypatch)


def test_the_folders_the_commands_make_are_known(made):
    assert made["demo"] == "runs/demo/{env}-{time}"
    assert made["train --backend expert"] == "runs/{env}/{time}-s{seed}-expert"
    assert made["leaderboard"] == "runs/leaderboard/{time}/leaderboard.md"
    assert made["analyze"] == "runs/analysis/{time}"
    assert made["benchmark"] == "runs/benchmark/{agent}"
    assert made["evaluate"] == "runs/eval/{env}-{players}p-{time}.png"


def test_the_checker_refuses_a_path_no_command_writes(made, tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "gameshelf serve --model a=runs/level_x-v0/demo/final_model.zip\n"  # no command writes this
        "gameshelf benchmark model:runs/demo/level_x-v0-20260101-120000/final_model.zip\n"
        "gameshelf train level_x-v0 --out runs/mine\ngameshelf evaluate level_x-v0 model:runs/mine/final_model.zip\n"
        "runs/<env_id>/<time>-s<seed>-rllib, runs/benchmark/*/result.json, runs/x/final_model.zip\n"
    )
    assert misnamed(page, made) == ["page.md: runs/level_x-v0/demo/final_model.zip"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_documented_run_paths_are_what_the_commands_write(page, made):
    assert misnamed(page, made) == []
