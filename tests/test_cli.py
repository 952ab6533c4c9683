"""The one `gameshelf` command line, used from outside the repository as an installed package is."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gameshelf.cli import main
from gameshelf.training.cli_util import missing_extra_hint


def run_cli(*args: str, cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gameshelf", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_list_and_evaluate_from_another_directory(tmp_path):
    listing = run_cli("list", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert "level_x-v0  (2–4 players, default 2)" in listing.stdout and "board_mode='random'" in listing.stdout
    evaluation = run_cli("evaluate", "level_x-v0", "heuristic", "random", "--games", "4", "--no-plot", "--quiet", cwd=tmp_path)
    assert evaluation.returncode == 0, evaluation.stderr
    assert "heuristic" in evaluation.stdout and "random" in evaluation.stdout


def test_gymnasium_and_pettingzoo_strings_from_another_directory(tmp_path):
    code = (
        "import gymnasium, pettingzoo\n"
        "env = gymnasium.make('gameshelf:gameshelf/level_x-v0', opponents='heuristic')\n"
        "obs, info = env.reset(seed=0)\n"
        "assert info['action_mask'].any()\n"
        "aec = pettingzoo.make('aec', 'gameshelf/koplus-v0')\n"
        "aec.reset(seed=0)\n"
        "print('ok', type(aec).__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok gameshelf.envs.core.env")


def test_unknown_command_and_help(capsys):
    assert main(["conquer"]) == 2
    assert "unknown command" in capsys.readouterr().err
    assert main(["--help"]) == 0
    assert "evaluate" in capsys.readouterr().out


def test_missing_extra_gives_a_one_line_hint():
    err = ModuleNotFoundError("No module named 'stable_baselines3'", name="stable_baselines3")
    assert missing_extra_hint(err) == (
        "this command needs the 'train' extra (stable_baselines3 is not installed): pip install \"gameshelf[train]\""
    )
    assert missing_extra_hint(ModuleNotFoundError("x", name="numpyy")) is None


def test_missing_extra_through_the_command(tmp_path):
    """Without torch, `gameshelf train` says which extra to install, in one line. It runs in a fresh interpreter:
    hiding torch in this one would mean re-importing the training modules, which must never leak into other tests."""
    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # importing torch now raises ModuleNotFoundError, as without the train extra\n"
        "from gameshelf.cli import main\n"
        "sys.exit(main(['train', 'level_x-v0', '--timesteps', '10']))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 2, out.stderr
    assert 'pip install "gameshelf[train]"' in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_closed_output_pipe_ends_quietly(capfd):
    """`gameshelf list | head -1`: when the reader goes away the command stops without a traceback."""
    from gameshelf.training.cli_util import run

    def main(argv):
        raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(SystemExit) as info:
        run(main, [], prog="gameshelf list")
    assert info.value.code == 141 and capfd.readouterr().err == ""


def test_list_shows_player_counts_ascending_with_the_default(capsys):
    from gameshelf.cli import player_counts_text

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "level_x-v0  (2–4 players, default 2)" in out
    assert "cargo_empire-v0  (1–5 players, default 2)" in out and "amoriax-v0  (2 players)" in out
    assert player_counts_text((4, 2, 8)) == "2, 4, 8 players, default 4"
    assert player_counts_text((1,)) == "1 player"


def test_train_argument_errors_are_one_line(capsys):
    for argv, message in [
        (["level_x-v0", "--timesteps", "0"], "--timesteps must be at least 1"),
        (["level_x-v0", "--no-such-option"], "unrecognized arguments"),
        (["level_x-v0", "--num-cpus", "2"], "only apply with --backend rllib"),
    ]:
        assert main(["train", *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("gameshelf train: error: ") and message in err
        assert len(err.strip().splitlines()) == 1 and "usage:" not in err and "gameshelf train --help" in err


def test_the_rllib_hint_says_what_the_readme_says():
    """One story everywhere: Ray pins Gymnasium 1.2.2, which gameshelf supports, so the rllib extra goes into the
    environment at hand or one of its own (scripts/setup_rllib.sh); CI's RLlib step runs tests with that Gymnasium."""
    from pathlib import Path

    from gameshelf.training.cli_util import RLLIB_GYMNASIUM, RLLIB_INSTALL

    root = Path(__file__).parents[1]
    hint = missing_extra_hint(ModuleNotFoundError("No module named 'ray'", name="ray"))
    assert hint is not None and RLLIB_INSTALL in hint
    assert RLLIB_GYMNASIUM in RLLIB_INSTALL and "scripts/setup_rllib.sh" in RLLIB_INSTALL
    assert 'pip install "gameshelf[rllib]"' in RLLIB_INSTALL
    readme = " ".join((root / "README.md").read_text().split())
    assert RLLIB_GYMNASIUM in readme and "scripts/setup_rllib.sh` makes `.venv-rllib`" in readme
    scaling = (root / "docs" / "scaling.md").read_text()
    install = " ".join(scaling.split("## Install", 1)[1].split("\n## ", 1)[0].split())
    assert RLLIB_GYMNASIUM in install and "bash scripts/setup_rllib.sh" in install
    assert 'pip install "gameshelf[rllib]"' in install
    for text in (readme, install, RLLIB_INSTALL, (root / "docs" / "training.md").read_text()):
        assert "never into" not in text and "virtualenv of its own" not in text, "the extra may go into any environment"
    # what the docs claim is run: CI's RLlib step sets up .venv-rllib (every extra, Gymnasium 1.2.2) and runs the RLlib
    # tests, slow ones included, and more of the suite there
    ci = (root / ".ci" / "run").read_text()
    step = ci[ci.index("bash scripts/setup_rllib.sh") :]
    assert 'tests/test_rllib.py -m "slow or not slow"' in step and "tests/test_tooling.py" in step
    assert "rllib,dev,web,bench,notebooks" in (root / "scripts" / "setup_rllib.sh").read_text()
    try:
        from gameshelf.training.rllib.agent import require_ray

        require_ray("rllib:PATH")
    except ImportError as err:
        assert RLLIB_INSTALL in str(err)


def test_replay_gif_into_a_missing_folder_is_refused(tmp_path, capsys):
    from gameshelf import make
    from gameshelf.envs.core import save_record

    env = make("amoriax-v0")
    env.reset(seed=0)
    for _ in range(4):
        env.step(int(env.last()[0]["action_mask"].argmax()))
    save_record(env.record(), tmp_path / "game.json")
    assert main(["replay", str(tmp_path / "game.json"), "--gif", str(tmp_path / "no" / "such" / "game.gif")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "does not exist" in err
    assert not (tmp_path / "no").exists()


def test_the_readme_example_plays_the_same_game_every_run(tmp_path):
    """The README's AEC loop is seeded: two runs print the same final position."""
    import os
    import re
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    snippet = next(block for block in re.findall(r"```python\n(.*?)```", readme, re.S) if "agent_iter" in block)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    runs = [
        subprocess.run([sys.executable, "-c", snippet], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
        for _ in range(2)
    ]
    for done in runs:
        assert done.returncode == 0, done.stderr
    assert runs[0].stdout.strip() and runs[0].stdout == runs[1].stdout


# ---- numba's cache and Ctrl-C -------------------------------------------------------------------------------


def test_compiled_kernels_are_cached_in_the_user_cache_not_the_source_tree(tmp_path):
    """With no NUMBA_CACHE_DIR, importing gameshelf and compiling a kernel writes under ~/.cache/gameshelf/numba
    (here HOME is a temporary folder) and nothing into the package's own folders."""
    import os
    from pathlib import Path

    import gameshelf

    source = Path(gameshelf.__file__).resolve().parents[1]

    def cache_files() -> dict[str, float]:
        return {str(p): p.stat().st_mtime for pattern in ("*.nbi", "*.nbc") for p in source.rglob(pattern)}

    before = cache_files()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env["HOME"] = str(tmp_path)
    code = (
        "import gameshelf\n"
        "from gameshelf.envs.core.kernel import below, cache_dir, seed_generators\n"
        "assert 0 <= below(seed_generators(0, 1), 0, 6) < 6\n"
        "print(cache_dir())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == tmp_path / ".cache" / "gameshelf" / "numba"
    assert list((tmp_path / ".cache" / "gameshelf" / "numba").rglob("kernel.below-*.nbi"))
    assert cache_files() == before


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    import numba

    from gameshelf.envs.core.kernel import cache_dir

    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "gameshelf" / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))  # the user's own choice wins
    assert cache_dir() == tmp_path / "mine"


def test_ctrl_c_stops_with_one_line_even_when_numba_swallows_it(monkeypatch, capfd):
    """A Ctrl-C inside numba's compiler can come back as another error (numba caught the KeyboardInterrupt and
    failed later): after SIGINT the command still stops with "interrupted" and exit status 130."""
    import contextlib
    import signal

    from gameshelf.training.cli_util import run

    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # run() silences it on the way out
    monkeypatch.setattr(signal, "getsignal", lambda _sig: signal.default_int_handler)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    def compiling(argv):
        with contextlib.suppress(KeyboardInterrupt):  # as numba does somewhere in its compiler
            signal.raise_signal(signal.SIGINT)
        raise RuntimeError("no compiled object yet for <Library 'is_legal'>")

    try:
        for command in (compiling, lambda argv: signal.raise_signal(signal.SIGINT)):
            with pytest.raises(SystemExit) as info:
                run(command, [], prog="gameshelf evaluate")
            assert info.value.code == 130 and capfd.readouterr().err == "interrupted\n"
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_while_a_command_loads_is_one_line(monkeypatch, capfd):
    import gameshelf.cli as cli

    def slow_import(name):
        raise KeyboardInterrupt

    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    monkeypatch.setattr(cli, "load_command", slow_import)
    assert main(["train", "level_x-v0"]) == 130
    assert capfd.readouterr().err == "interrupted\n"
