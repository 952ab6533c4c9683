"""Two checkouts of gameshelf side by side in one run: ``gameshelf bench`` in each, interleaved, medians compared.

    git worktree add /tmp/before <commit>
    python benchmarks/compare_revisions.py /tmp/before . --rounds 3 -- --seconds 1 --batch-sizes 1024

Each round runs the bench once in each checkout, alternating which goes first, so both see the same machine
load; each checkout imports its own code (the command runs from its folder with the same interpreter). For
every table row (AEC ``make()`` and engine steps/s, each relative to PettingZoo's ``connect_four_v3`` in the same
run, and batched decisions per CPU-second) it prints the median over the rounds of each checkout and their ratio
(after / before).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROW = re.compile(r"^(\S.*?)\s{2,}([\d,]+)\s+[\d.]+x\s+[\d,.]+\s+([\d,]+|-)(\s|$)")
BATCHED = re.compile(r"^([a-z0-9_]+-v\d+)((?:\s{2,}[\d,]+)+)\s*$")
SIZES = re.compile(r"N=(\d+)")


def figures(output: str) -> dict[str, float]:
    """``{"row (what)": value}`` for every figure of one bench output. Steps per second of the AEC and engine
    rows are divided by the same run's ``connect_four_v3`` steps per second (measured in the same process
    moments apart), so a busy machine slows both sides of the ratio alike; batched figures are per CPU-second."""
    found: dict[str, float] = {}
    reference = None
    sizes: list[str] = []
    for line in output.splitlines():
        if line.startswith("batched:"):
            sizes = SIZES.findall(line)  # the batched table's columns, N = ...
        if m := ROW.match(line):
            name, steps = m[1].strip(), float(m[2].replace(",", ""))
            if reference is None:
                reference = steps  # the first row: PettingZoo's connect_four_v3
                continue
            found[f"{name} AEC steps / connect_four's"] = steps / reference
            if m[3] != "-":
                found[f"{name} engine steps / connect_four's"] = float(m[3].replace(",", "")) / reference
        elif m := BATCHED.match(line):
            for n, value in zip(sizes, m[2].split(), strict=True):
                found[f"{m[1]} batched N={n} decisions/CPU-s"] = float(value.replace(",", ""))
    return found


def bench(folder: Path, args: list[str]) -> dict[str, float]:
    command = [sys.executable, "-m", "gameshelf", "bench", "--quiet", *args]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=True)
    return figures(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    argv = sys.argv[1:] if argv is None else argv
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    extra = argv[cut + 1 :]  # after --: the arguments of gameshelf bench
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for r in range(args.rounds):
        order = ("before", "after") if r % 2 == 0 else ("after", "before")
        for which in order:
            runs[which].append(bench(getattr(args, which), extra))
            print(f"round {r + 1}/{args.rounds}: {which} done", file=sys.stderr)
    keys = [k for k in runs["after"][0] if all(k in run for side in runs.values() for run in side)]
    print(f"median of {args.rounds} interleaved rounds; bench arguments: {' '.join(extra) or '(defaults)'}")
    print(f"| {'figure':<58} | {'before':>12} | {'after':>12} | after/before |")
    print(f"|{'-' * 60}|{'-' * 14}:|{'-' * 14}:|-------------:|")
    for key in keys:
        before = statistics.median(run[key] for run in runs["before"])
        after = statistics.median(run[key] for run in runs["after"])
        shown = ",.0f" if before > 100 else ".2f"
        print(f"| {key:<58} | {before:>12{shown}} | {after:>12{shown}} | {after / before:>12.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
