"""The benchmark command: quiet in logs, and a clear table without PettingZoo's classic environments."""

from __future__ import annotations

import io
import sys

import pytest

from gameshelf.training.bench import main
from gameshelf.training.cli_util import run
from tests.toy_nim import NIM, register_nim, unregister_nim

QUICK = ["--seconds", "0.02", "--rounds", "2", "--ids", NIM]


@pytest.fixture(autouse=True)
def nim_registered():
    register_nim()
    yield
    unregister_nim()


def bench(argv, capsys):
    with pytest.raises(SystemExit) as info:
        run(main, argv)
    out = capsys.readouterr()
    assert info.value.code == 0, out.err
    return out.out, out.err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_progress_bar_into_a_log(capsys):
    out, err = bench(QUICK, capsys)
    assert f"{NIM} (2p)" in out
    assert "rounds" not in err


def test_progress_bar_on_a_terminal_unless_quiet(monkeypatch):
    for quiet in (False, True):
        err = Terminal()
        monkeypatch.setattr(sys, "stdout", Terminal())
        monkeypatch.setattr(sys, "stderr", err)
        with pytest.raises(SystemExit):
            run(main, [*QUICK, *(["--quiet"] if quiet else [])])
        assert ("rounds" in err.getvalue()) is not quiet
