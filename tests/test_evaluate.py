"""The evaluation runner: labels, the two-player table, progress output and the command-line errors."""

from __future__ import annotations

import io
import sys

import pytest

from gameshelf.training.cli_util import run, show_progress
from gameshelf.training.evaluate import agent_labels, build_agents, evaluate
from gameshelf.training.evaluate import main as evaluate_main
from tests.toy_nim import NIM, register_nim, unregister_nim


@pytest.fixture(autouse=True)
def nim_registered():
    register_nim()
    yield
    unregister_nim()


def exit_code(main, argv, capsys):
    with pytest.raises(SystemExit) as info:
        run(main, argv)
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


class SavedModel:
    """Stands in for a learned agent loaded from ``path`` (named after the file, as ``LearnedAgent`` is)."""

    def __init__(self, path: str) -> None:
        from pathlib import Path

        self.path = path
        self.name = f"model:{Path(path).stem}"

    def act(self, state, seat, rng):
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])


# ---- labels ---------------------------------------------------------------------------------------------


def test_models_with_the_same_file_name_get_distinct_labels(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def models(*paths: str) -> list:
        return [SavedModel(p) if p.startswith(("a/", "b/", "x/", "y/", "/")) else p for p in paths]

    agents = build_agents(models("a/final_model.zip", "b/final_model.zip", "random"), NIM)
    assert agent_labels(agents) == ["model:a/final_model", "model:b/final_model", "random"]
    agents = build_agents(models("x/run/m.zip", "y/run/m", "x/run/m.zip", "random", "random"), NIM)
    assert agent_labels(agents) == ["model:x/run/m", "model:y/run/m", "model:x/run/m#2", "random", "random#2"]
    # the same file by two spellings is the same model
    same = build_agents(models("a/final_model.zip", f"{tmp_path}/a/final_model.zip"), NIM)
    assert agent_labels(same) == ["model:final_model", "model:final_model#2"]


def test_table_and_plot_tell_same_named_models_apart(tmp_path):
    result = evaluate(NIM, [SavedModel("runs/a/final_model.zip"), SavedModel("runs/b/final_model.zip")], games=4)
    assert result.agents == ["model:a/final_model", "model:b/final_model"]
    table = result.table()
    assert "model:a/final_model" in table and "model:b/final_model" in table and "#2" not in table
    fig = result.plot(tmp_path / "eval.png")
    ticks = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
    assert "model:a/final_model vs model:b/final_model" in ticks
    assert {"model:a/final_model", "model:b/final_model"} <= set(ticks)


# ---- progress output -------------------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal_and_never_with_quiet(monkeypatch):
    assert not show_progress()  # under pytest the output is captured
    monkeypatch.setattr(sys, "stdout", Terminal())
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert show_progress() and not show_progress(quiet=True)
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # piped into a file or a CI log
    assert not show_progress()


def test_evaluate_command_draws_no_bar_into_a_log(capsys):
    code, out, err = exit_code(evaluate_main, [NIM, "random", "random", "--games", "6", "--no-plot"], capsys)
    assert code == 0 and "ratings" in out
    assert err == ""


def test_evaluate_command_draws_a_bar_on_a_terminal_unless_quiet(monkeypatch):
    for quiet in (False, True):
        out, err = Terminal(), Terminal()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        with pytest.raises(SystemExit) as info:
            run(evaluate_main, [NIM, "random", "random", "--games", "6", "--no-plot", *(["--quiet"] if quiet else [])])
        assert info.value.code == 0
        assert ("game" in err.getvalue()) is not quiet, err.getvalue()


def test_demo_passes_the_progress_setting_on(monkeypatch, tmp_path, capsys):
    from types import SimpleNamespace

    import gameshelf.training.evaluate as evaluate_module
    import gameshelf.training.train as train_module
    from gameshelf import demo

    seen: list[tuple[str, bool]] = []

    def fake_train(env_id, timesteps, seed, out, progress):
        seen.append(("train", progress))
        return SimpleNamespace(model_path=tmp_path / "model.zip", wall_s=0.0)

    def fake_evaluate(env_id, agents, games, seed, progress):
        seen.append(("evaluate", progress))
        return SimpleNamespace(plot=lambda path: None, table=lambda: "table")

    monkeypatch.setattr(train_module, "train", fake_train)
    monkeypatch.setattr(train_module, "heuristic_available", lambda env_id: False)
    monkeypatch.setattr(evaluate_module, "evaluate", fake_evaluate)
    argv = ["--env", NIM, "--out", str(tmp_path / "run")]
    assert exit_code(demo.main, argv, capsys)[0] == 0
    assert seen == [("train", False), ("evaluate", False)]
    seen.clear()
    monkeypatch.setattr(sys, "stdout", Terminal())
    monkeypatch.setattr(sys, "stderr", Terminal())
    with pytest.raises(SystemExit):
        run(demo.main, argv)
    with pytest.raises(SystemExit):
        run(demo.main, [*argv, "--quiet"])
    assert seen == [("train", True), ("evaluate", True), ("train", False), ("evaluate", False)]


# ---- the two-player table and the command line -------------------------------------------------------------


def test_two_player_table_shows_win_draw_loss_by_seat(capsys):
    from tests.toy_nim import PerfectNim

    result = evaluate(NIM, [PerfectNim(), "random"], games=20, seed=3)
    pair, mirror = result.pair("perfect", "random"), result.pair("random", "perfect")
    assert set(pair.by_seat) == {0, 1}
    assert pair.by_seat[0] == (10, 0, 0)  # from 7 stones the first player wins with perfect play
    assert tuple(map(sum, zip(*pair.by_seat.values(), strict=True))) == (pair.wins, pair.draws, pair.losses)
    for seat, (w, d, lo) in pair.by_seat.items():
        assert mirror.by_seat[1 - seat] == (lo, d, w)
        assert pair.win_rate_by_seat[seat] == w / (w + d + lo)
    row = next(line for line in result.table().splitlines() if line.startswith("perfect"))
    w1, d1, l1 = pair.by_seat[1]
    assert row.endswith(f"s0 10/0/0  s1 {w1}/{d1}/{l1}")
    assert "by seat" in result.table()
    code, out, _ = exit_code(evaluate_main, [NIM, "random", "random", "--games", "4", "--no-plot"], capsys)
    assert code == 0 and "s0 " in out and "s1 " in out


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "required"),
        ([NIM, "random"], "at least two agents"),
        ([NIM, "random", "random", "--games", "0"], "--games"),
        ([NIM, "random", "random", "--games", "many"], "invalid int value"),
        ([NIM, "random", "random", "--seed", "-1"], "--seed"),
        ([NIM, "random", "random", "--players", "9"], "players"),
        ([NIM, "random", "random", "--plot", "results.txt"], "image format"),
        ([NIM, "random", "random", "--plot", "e.png", "--no-plot"], "not allowed with"),
        ([NIM, "random", "random", "--frobnicate"], "unrecognized arguments"),
        ([NIM, "random", "heuristic"], "no heuristic"),
        (["nope-v0", "random", "random"], "unknown environment id"),
    ],
)
def test_evaluate_command_errors_are_one_line_and_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = exit_code(evaluate_main, argv, capsys)
    assert code == 2 and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "usage:" not in err
    assert out == "" and not (tmp_path / "runs").exists()  # nothing played, nothing created


@pytest.mark.parametrize("command", ["evaluate", "bench", "demo", "play"])
def test_every_command_reports_argument_errors_in_one_line(command, capsys):
    from gameshelf.cli import main as cli

    assert cli([command, "--no-such-option"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gameshelf {command}: error: ") and len(err.strip().splitlines()) == 1


# ---- a base install (no train extra) ------------------------------------------------------------------------


def without(monkeypatch, *packages: str) -> None:
    """Make ``packages`` (and their submodules) unimportable, as on an install without the train extra."""
    for name in [m for m in sys.modules if m.split(".")[0] in packages]:
        monkeypatch.setitem(sys.modules, name, None)
    for name in packages:
        monkeypatch.setitem(sys.modules, name, None)  # importing it now raises ModuleNotFoundError


def test_evaluate_works_without_the_train_extra(monkeypatch, capsys, tmp_path):
    """Plots, progress bars and OpenSkill ratings come with the train extra; without it the command plays,
    prints the table and says in one line what it left out (nothing written under runs/)."""
    monkeypatch.chdir(tmp_path)
    without(monkeypatch, "matplotlib", "tqdm", "openskill", "rich", "torch")
    monkeypatch.setattr(sys, "stdout", Terminal())  # a terminal, so a progress bar would be drawn with tqdm
    monkeypatch.setattr(sys, "stderr", Terminal())
    with pytest.raises(SystemExit) as info:
        run(evaluate_main, [NIM, "random", "random", "--games", "4"])
    out = sys.stdout.getvalue()
    assert info.value.code == 0, sys.stderr.getvalue()
    assert "ratings: Elo" in out and sys.stderr.getvalue() == ""
    notes = [line for line in out.splitlines() if "matplotlib is not installed" in line]
    assert len(notes) == 1 and notes[0].startswith("plot: none") and 'pip install "gameshelf[train]"' in notes[0]
    assert not (tmp_path / "runs").exists()
    monkeypatch.undo()
    # more players: no OpenSkill, so no ratings, and a note instead
    monkeypatch.chdir(tmp_path)
    without(monkeypatch, "matplotlib", "tqdm", "openskill")
    code, out, err = exit_code(evaluate_main, [NIM, "random", "random", "--players", "3", "--games", "3"], capsys)
    assert code == 0 and err == ""
    assert not any(line.startswith("ratings:") for line in out.splitlines()) and "mean rank" in out
    assert "note: no ratings: OpenSkill is not installed" in out and "plot: none" in out


def test_an_explicit_plot_without_matplotlib_is_refused_with_the_hint(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    without(monkeypatch, "matplotlib")
    code, out, err = exit_code(evaluate_main, [NIM, "random", "random", "--games", "2", "--plot", "e.png"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "'train' extra (matplotlib is not installed)" in err


def test_one_player_is_not_players(capsys):
    result = evaluate(NIM, ["random", "random"], games=2, num_players=2)
    assert ", 2 players," in result.table()
    result.num_players = 1  # the header and the plot's title of a solitaire run
    assert ", 1 player," in result.table().splitlines()[0]


def test_demo_reports_a_full_disk_in_one_line(monkeypatch, tmp_path, capsys):

    import gameshelf.training.train as train_module
    from gameshelf import demo

    def full_disk(*args, **kwargs):
        raise train_module.RunWriteError("training stopped: cannot write the run's files (No space left on device)")

    monkeypatch.setattr(train_module, "train", full_disk)
    assert demo.main(["--env", NIM, "--out", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gameshelf demo: error: ") and len(err.strip().splitlines()) == 1
