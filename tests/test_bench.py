"""The benchmark command: quiet in logs, and a clear table without PettingZoo's classic environments."""

from __future__ import annotations

import io
import sys

import pytest

from gameshelf.bench.throughput import main
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


def test_without_pettingzoo_classic_a_note_not_nan(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pettingzoo.classic", None)  # importing it now raises ImportError
    out, _ = bench(QUICK, capsys)
    assert "nan" not in out.lower()
    assert "vs c4" not in out and "connect_four_v3" not in out.splitlines()[1]
    note = [line for line in out.splitlines() if line.startswith("note:")]
    assert len(note) == 1 and "PettingZoo's classic environments are not available" in note[0]
    assert 'pip install "gameshelf[bench]"' in note[0]
    row = next(line for line in out.splitlines() if line.startswith(f"{NIM} (2p)"))
    assert len(row.split()) == 2 + 4  # name, "(2p)", then four numbers


def test_with_the_references_a_ratio_column(monkeypatch, capsys):
    import types

    from gameshelf import envs

    # stand-ins for connect_four_v3 and tictactoe_v3 (the real ones need pygame), measured by the same loop
    classic = types.ModuleType("pettingzoo.classic")
    classic.connect_four_v3 = types.SimpleNamespace(env=lambda: envs.make(NIM))  # type: ignore[attr-defined]
    classic.tictactoe_v3 = types.SimpleNamespace(env=lambda: envs.make(NIM))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pettingzoo.classic", classic)
    out, _ = bench(QUICK, capsys)
    lines = out.splitlines()
    assert "vs c4" in lines[1] and "note:" not in out and "nan" not in out.lower()
    reference = next(line for line in lines if line.startswith("pettingzoo connect_four_v3"))
    assert "1.00x" in reference and reference.split()[-2:] == ["-", "-"]


def test_bad_settings_are_one_line_errors(capsys):
    for argv, message in [(["--rounds", "0"], "--rounds"), (["--seconds", "0"], "--seconds"), (["--ids", "nope-v0"], "nope-v0")]:
        with pytest.raises(SystemExit) as info:
            run(main, argv)
        err = capsys.readouterr().err
        assert info.value.code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_search_table(capsys):
    out, _ = bench(["--mcts", "--seconds", "0.02", "--rounds", "2", "--simulations", "3", "--ids", NIM], capsys)
    assert "median of 2 rounds" in out.splitlines()[0]
    header, _, row = out.splitlines()[1:4]
    assert "engine steps/s" in header and "clone+mask+apply/s" in header and "mcts:3 sims/s" in header
    cells = row.split()
    assert cells[0] == NIM and len(cells) == 5 and all(float(c.replace(",", "")) > 0 for c in cells[1:4])


def test_batched_rows_for_ids_with_kernels(capsys):
    out, _ = bench(["--seconds", "0.05", "--rounds", "1", "--ids", "level_x-v0", "--batch-sizes", "1", "64"], capsys)
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("batched"))  # per CPU-second
    assert "N=1" in header and "N=64" in header
    row = next(line for line in lines if line.startswith("level_x-v0 ") and "p)" not in line)
    assert len(row.split()) == 3 and all(float(v.replace(",", "")) > 0 for v in row.split()[1:])


def test_no_batched_table_without_kernels_and_bad_sizes_refused(capsys):
    out, _ = bench(QUICK, capsys)
    assert "batched" not in out
    for sizes in (["0"], []):  # no N at all is a mistake too, not an empty table
        with pytest.raises(SystemExit) as info:
            run(main, [*QUICK, "--batch-sizes", *sizes])
        err = capsys.readouterr().err
        assert info.value.code == 2 and "--batch-sizes" in err and len(err.strip().splitlines()) == 1
    out, _ = bench(["--seconds", "0.02", "--rounds", "1", "--ids", "level_x-v0", "--no-batched"], capsys)
    assert "batched" not in out and "level_x-v0 (2p)" in out


def test_every_row_is_warmed_up_before_the_clock(monkeypatch):
    """The first game of a row (numba loading its cache, first calls) is played before timing starts."""
    from gameshelf.bench import throughput as bench_module

    clock_started: list[bool] = []
    played_before: list[int] = []
    real_clock = bench_module.time.perf_counter

    def clock() -> float:
        clock_started.append(True)
        return real_clock()

    real_play = bench_module.play_aec

    def play(env, rng):
        played_before.append(len(clock_started))
        return real_play(env, rng)

    monkeypatch.setattr(bench_module.time, "perf_counter", clock)
    monkeypatch.setattr(bench_module, "play_aec", play)
    register_nim()
    from gameshelf import envs

    steps, games = bench_module.bench_aec(lambda: envs.make(NIM), 0.02)
    assert steps > 0 and games > 0
    assert played_before[0] == 0 and all(n > 0 for n in played_before[1:])  # one untimed game first


def test_cpu_time_measures_the_rows_per_cpu_second(monkeypatch, capsys):
    """``--cpu-time``: the make() and engine rows are timed by this process's CPU clock, not the wall clock."""
    from gameshelf.bench import throughput as bench_module

    calls = {"cpu": 0, "wall": 0}
    real_cpu, real_wall = bench_module.time.process_time, bench_module.time.perf_counter

    def cpu() -> float:
        calls["cpu"] += 1
        return real_cpu()

    def wall() -> float:
        calls["wall"] += 1
        return real_wall()

    monkeypatch.setattr(bench_module.time, "process_time", cpu)
    monkeypatch.setattr(bench_module.time, "perf_counter", wall)
    out, _ = bench([*QUICK, "--no-batched", "--cpu-time"], capsys)
    assert "per CPU-second" in out.splitlines()[0] and f"{NIM} (2p)" in out
    assert calls["cpu"] > 0 and calls["wall"] == 0
    out, _ = bench([*QUICK, "--no-batched"], capsys)
    assert "per CPU-second" not in out.splitlines()[0] and calls["wall"] > 0


def test_rows_are_medians_of_rounds(monkeypatch):
    """A round that ran on a busy (or an idle) moment moves no figure: every table takes the median."""
    from gameshelf.bench import throughput as bench_module

    rates = iter([100.0, 900.0, 300.0])
    monkeypatch.setattr(bench_module, "bench_batched", lambda env_id, n, seconds: (next(rates), 1.0))
    monkeypatch.setattr(bench_module, "pgx_references", lambda: ({}, None))
    lines = bench_module.batched_table(["level_x-v0"], 0.01, 3, [64])
    assert lines[-1].split() == ["level_x-v0", "300"]
    rows = iter([(10.0, 5.0, 1.0, 0.5), (30.0, 1.0, 3.0, 0.1), (20.0, 3.0, 2.0, 0.3)])
    current: list[tuple[float, float, float, float]] = []

    def engine(*args, **kwargs):
        current[:] = [next(rows)]
        return current[0][0], 0.0

    monkeypatch.setattr(bench_module, "bench_engine", engine)
    monkeypatch.setattr(bench_module, "bench_search_path", lambda *a, **k: current[0][1])
    monkeypatch.setattr(bench_module, "bench_mcts", lambda *a, **k: (current[0][2], current[0][3]))
    row = bench_module.search_table([NIM], 0.01, 5, rounds=3)[-1].split()
    assert row == [NIM, "20", "3", "2", "0.300"]


def test_pgx_rows_run_a_compiled_loop():
    """pgx (optional) is timed as a jitted loop of many steps with one wait per call; skipped without pgx."""
    pytest.importorskip("pgx")
    import jax
    import pgx

    from gameshelf.bench.throughput import pgx_loop, pgx_references

    play, state, key = pgx_loop(jax, pgx.make("connect_four"), num_envs=8, steps=64)
    state, key, finished = play(state, key)
    assert int(finished) > 0  # 64 random moves in 8 games of connect four: games end and restart
    assert bool(state.legal_action_mask.any(axis=-1).all())  # restarted games are live
    rows, missing = pgx_references()
    assert missing is None and set(rows) == {"pgx connect_four", "pgx othello"}
    steps, games = rows["pgx connect_four"](64, 0.05)
    assert steps > 0 and games > 0


def test_without_pgx_a_note(monkeypatch):
    from gameshelf.bench.throughput import pgx_references

    monkeypatch.setitem(sys.modules, "pgx", None)
    rows, missing = pgx_references()
    assert rows == {} and missing is not None and 'pip install "gameshelf[pgx]"' in missing


def test_compare_revisions_reads_every_row_and_every_batch_size():
    """``benchmarks/compare_revisions.py`` parses a bench output: the make() and engine rows relative to
    connect_four, and one batched figure per id and N (a table of several sizes included)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "compare_revisions.py"
    spec = importlib.util.spec_from_file_location("compare_revisions", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    output = "\n".join(
        [
            "python 3.11.7, numpy 2.4.6, x86_64; median of 3 rounds of 1 s",
            "environment                     make() steps/s  vs c4   games/s  engine steps/s   games/s",
            "pettingzoo connect_four_v3              10,000  1.00x     500.0               -         -",
            "level_x-v0 (2p)                         40,000  4.00x     700.0         150,000   2,000.0",
            "batched: decisions per CPU-s (mask + obs.)            N=64        N=1024",
            "----------------------------------------------------------------------",
            "level_x-v0                                     3,000,000     6,400,000",
            "koplus-v0                                        412,000       293,000",
        ]
    )
    assert module.figures(output) == {
        "level_x-v0 (2p) AEC steps / connect_four's": 4.0,
        "level_x-v0 (2p) engine steps / connect_four's": 15.0,
        "level_x-v0 batched N=64 decisions/CPU-s": 3_000_000.0,
        "level_x-v0 batched N=1024 decisions/CPU-s": 6_400_000.0,
        "koplus-v0 batched N=64 decisions/CPU-s": 412_000.0,
        "koplus-v0 batched N=1024 decisions/CPU-s": 293_000.0,
    }


def test_chance_draw_prints_a_cost_per_chance_node_and_leaves_games_without_chance_out(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "chance_draw.py"
    spec = importlib.util.spec_from_file_location("chance_draw", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["level_x-v0", "amoriax-v0", "--nodes", "3", "--draws", "20", "--rounds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("level_x-v0") and len(lines[0].split()) == 1 + 3 + 6  # id, 3 costs, words
