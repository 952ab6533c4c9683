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
    assert "level_x-v0  (2, 3, 4 players)" in listing.stdout and "board_mode='random'" in listing.stdout
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


def test_missing_extra_through_the_command(monkeypatch, capsys):
    import builtins

    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    for module in [m for m in sys.modules if m.startswith(("gameshelf.training.train", "torch"))]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setattr(builtins, "__import__", no_torch)
    code = main(["train", "level_x-v0", "--timesteps", "10"])
    assert code == 2
    err = capsys.readouterr().err
    assert 'pip install "gameshelf[train]"' in err and "Traceback" not in err


def test_a_closed_output_pipe_ends_quietly(capfd):
    """`gameshelf list | head -1`: when the reader goes away the command stops without a traceback."""
    from gameshelf.training.cli_util import run

    def main(argv):
        raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(SystemExit) as info:
        run(main, [], prog="gameshelf list")
    assert info.value.code == 141 and capfd.readouterr().err == ""
