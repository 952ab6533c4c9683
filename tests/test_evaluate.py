"""The evaluation runner: labels, the two-player table, progress output and the command-line errors."""

from __future__ import annotations

import io
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from gameshelf.training.agents.base import PolicyAgent
from gameshelf.training.cli_util import run, show_progress
from gameshelf.training.evaluate import MODES, agent_labels, build_agents, evaluate
from gameshelf.training.evaluate import main as evaluate_main
from tests.toy_nets import write_net
from tests.toy_nim import NIM, PerfectNim, register_nim, unregister_nim


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


# ---- learned policies: short labels, both modes ----------------------------------------------------------------


class MostlyTakeOne(PolicyAgent):
    """Stands in for a saved learned policy: "take 1" with probability 0.7, "take 2" with 0.3."""

    name = "model:toy"
    path = "runs/toy/final_model.zip"
    deterministic = True

    def action_probabilities(self, state, seat):
        probs = np.where(state.legal_action_mask(), [0.7, 0.3, 0.0], 0.0)
        return probs / probs.sum()


def test_learned_policies_play_both_modes_on_the_same_deals():
    both = evaluate(NIM, [MostlyTakeOne(), "random"], games=20, seed=5, modes="both")
    assert both.agents == ["model:toy", "model:toy~sampled", "random"]
    assert all({0, 1} - set(g.lineup) for g in both.games)  # a policy never plays its own twin
    seeds = {name: [g.seed for g in both.games if both.agents.index(name) in g.lineup] for name in both.agents[:2]}
    assert seeds["model:toy"] == seeds["model:toy~sampled"]  # paired deals across the two modes
    alone = {modes: evaluate(NIM, [MostlyTakeOne(), "random"], games=20, seed=5, modes=modes) for modes in MODES[:2]}
    assert alone["deterministic"].agents == ["model:toy", "random"]
    assert alone["sampled"].agents == ["model:toy~sampled", "random"]
    for result in alone.values():  # each mode alone plays exactly the games it plays next to the other
        mine = result.pairs[0]
        theirs = both.pair(mine.agent, "random")
        assert (mine.wins, mine.draws, mine.losses, mine.by_seat) == (theirs.wins, theirs.draws, theirs.losses, theirs.by_seat)
    played = {agent: [g.length for g in both.games if both.agents.index(agent) in g.lineup] for agent in both.agents[:2]}
    assert played["model:toy"] != played["model:toy~sampled"]  # the modes do play differently here
    table = both.table()
    assert "NAME~sampled draws its move from the policy (sampled)" in table
    assert table.count("runs/toy/final_model.zip") == 1  # the file listed once for both modes
    modes = {k: v["mode"] for k, v in both.to_dict()["policies"].items()}
    assert modes == {"model:toy": "deterministic", "model:toy~sampled": "sampled"}
    with pytest.raises(ValueError, match="modes='greedy' is not allowed"):
        evaluate(NIM, [MostlyTakeOne(), "random"], games=2, modes="greedy")


def test_a_sampled_agent_is_labelled_so_whoever_made_it(tmp_path):
    sampling = MostlyTakeOne()
    sampling.deterministic = False
    assert agent_labels([sampling, MostlyTakeOne()]) == ["model:toy~sampled", "model:toy"]
    net = write_net(tmp_path / "net.npz", NIM, num_players=2)
    agent = build_agents([f"model:{net}~sampled"], NIM)[0]
    assert agent.name == "model:net~sampled" and not agent.deterministic


def test_network_files_are_labelled_by_their_file_name(tmp_path, capsys):
    deep = tmp_path / "runs" / "toy_nim-v0" / "2026-12-07-a-long-experiment-name-s0" / "checkpoints"
    deep.mkdir(parents=True)
    (tmp_path / "other").mkdir()
    net = write_net(deep / "net.npz", NIM, num_players=2)
    code, out, err = exit_code(evaluate_main, [NIM, f"model:{net}", "random", "--games", "2", "--no-plot"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[2].startswith("model:net ") and lines[3].startswith("model:net~sampled ")
    assert out.count(str(net)) == 1  # the full path once, below the table, and nowhere else
    assert max(len(line) for line in lines if str(net) not in line) < 130
    other = write_net(tmp_path / "other" / "net.npz", NIM, num_players=2, seed=1)
    argv = [NIM, f"model:{net}", f"model:{other}", "--games", "2", "--no-plot", "--policy-mode", "deterministic"]
    code, out, err = exit_code(evaluate_main, argv, capsys)
    assert code == 0 and err == ""
    assert out.splitlines()[2].startswith("model:checkpoints/net  model:other/net ")
    assert out.count(str(net)) == out.count(str(other)) == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["random~sampled", "random"], "only a learned policy (model:PATH, rllib:PATH, reference) can end in ~sampled"),
        (["random", "random", "--policy-mode", "greedy"], "invalid choice: 'greedy'"),
        (["random", "random", "--policy-mode", "both", "--stochastic"], "not allowed with"),
    ],
)
def test_policy_mode_errors_are_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = exit_code(evaluate_main, [NIM, *argv], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and out == ""


# ---- the plot ----------------------------------------------------------------------------------------------------


def test_plot_fits_long_names_without_a_layout_warning(tmp_path):
    class Named(PerfectNim):
        def __init__(self, name: str) -> None:
            self.name = name

    for length in (10, 40, 120):
        result = evaluate(NIM, [Named("a" * length), Named("b" * length), "random"], games=2)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # matplotlib's "Tight layout not applied" would raise here
            fig = result.plot(tmp_path / "eval.png")
        assert fig.get_size_inches()[0] >= 11


def test_every_run_writes_a_plot_of_its_own(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    plots = []
    for _ in range(2):
        code, out, err = exit_code(evaluate_main, [NIM, "random", "random", "--games", "2"], capsys)
        assert code == 0 and err == ""
        plots += [line.removeprefix("plot: ") for line in out.splitlines() if line.startswith("plot: ")]
    assert len(plots) == 2 and plots[0] != plots[1]
    assert all(Path(p).parent == Path("runs/eval") and Path(p).name.startswith(f"{NIM}-2p-") for p in plots)
    assert sorted(p.name for p in (tmp_path / "runs" / "eval").iterdir()) == sorted(Path(p).name for p in plots)
    said = []
    for _ in range(2):  # a path given twice is replaced, and the second run says so
        code, out, _ = exit_code(evaluate_main, [NIM, "random", "random", "--games", "2", "--plot", "mine.png"], capsys)
        said += [line for line in out.splitlines() if line.startswith("plot: ")]
    assert said == ["plot: mine.png", "plot: mine.png (replaced the file that was there)"]
