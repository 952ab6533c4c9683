"""The ``gameshelf`` command line: one entry point, a subcommand per job.

    gameshelf list                                       # the games, player counts and options
    gameshelf play level_x-v0 --opponents heuristic     # play in the terminal
    gameshelf evaluate level_x-v0 heuristic random      # agents against each other, every seat
    gameshelf train level_x-v0 --timesteps 100000       # MaskablePPO self-play (needs the train extra)
    gameshelf train level_x-v0 --backend rllib          # the same on Ray RLlib (needs the rllib extra)
    gameshelf bench                                      # throughput beside PettingZoo's classics
    gameshelf demo                                       # train on Level X, then evaluate
    gameshelf serve                                      # play and watch in the browser (needs the web extra)
    gameshelf replay game.json --gif game.gif            # a game record as an animated GIF

Each subcommand is also a module that runs on its own: ``python -m gameshelf.training.train`` and
``python -m gameshelf.training.evaluate`` (training and evaluation), ``python -m gameshelf.play``,
``gameshelf.replay``, ``gameshelf.demo``, ``gameshelf.bench`` and ``gameshelf.web.app`` (the front ends);
``gameshelf <command> --help`` lists its arguments.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("gameshelf.cli:list_games", "print every environment id with its player counts and options"),
    "play": ("gameshelf.play:main", "play a game in the terminal against agents"),
    "evaluate": ("gameshelf.training.evaluate:main", "play agents against each other (every seat) and rate them"),
    "train": ("gameshelf.training.train:main", "train a MaskablePPO agent (needs the train extra)"),
    "bench": ("gameshelf.bench.throughput:main", "measure steps per second beside PettingZoo's classic environments"),
    "demo": ("gameshelf.demo:main", "train on Level X, then evaluate (about 4.5 minutes on a 2-core CPU)"),
    "serve": ("gameshelf.web.app:main", "play and watch every game in the browser (needs the web extra)"),
    "replay": ("gameshelf.replay:main", "show a game record move by move, or write it as an animated GIF"),
    "benchmark": (
        "gameshelf.training.benchmark.ladder:main",
        "rate an agent under the benchmark protocol against the baseline ladder",
    ),
    "leaderboard": (
        "gameshelf.training.benchmark.leaderboard:main",
        "write a leaderboard (markdown) from benchmark result files",
    ),
    "analyze": (
        "gameshelf.training.benchmark.analysis:main",
        "describe a game: length, branching, seat advantage, how decisive skill is",
    ),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: gameshelf COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<{width}}  {doc}" for name, (_, doc) in COMMANDS.items()]
    lines += ["", "`gameshelf COMMAND --help` lists a command's arguments."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch ``argv`` (default ``sys.argv[1:]``) to a subcommand; returns its exit status."""
    from gameshelf.training.cli_util import interrupted, run

    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else 2
    if args[0] in ("-V", "--version"):
        from gameshelf import __version__

        print(f"gameshelf {__version__}")
        return 0
    name = args[0]
    if name not in COMMANDS:
        print(f"gameshelf: error: unknown command {name!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    try:
        try:
            command = load_command(name)
        except KeyboardInterrupt:  # Ctrl-C while the command's modules load (torch takes seconds)
            interrupted()
        run(command, args[1:], prog=f"gameshelf {name}")
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return 0


def load_command(name: str) -> Callable[[Sequence[str] | None], int]:
    from gameshelf.training.cli_util import missing_extra_hint

    module_name, _, attr = COMMANDS[name][0].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        hint = missing_extra_hint(err)
        if hint is None:
            raise
        from gameshelf.training.cli_util import fail

        fail(f"gameshelf {name}", hint)
    return getattr(module, attr)  # type: ignore[no-any-return]


def list_games(argv: Sequence[str] | None = None) -> int:
    """``gameshelf list``: every registered id, its player counts and its options."""
    from gameshelf import envs
    from gameshelf.training.cli_util import ArgumentParser

    parser = ArgumentParser(prog="gameshelf list", description="Print every environment id with its options.")
    parser.add_argument("--ids", action="store_true", help="print only the ids, one per line")
    args = parser.parse_args(argv)
    for env_id in envs.registered_ids():
        if args.ids:
            print(env_id)
            continue
        env_spec = envs.spec(env_id)
        game_cls = env_spec.load_game_class()
        print(f"{env_id}  ({player_counts_text(env_spec.player_counts)})  {env_spec.description}")
        for opt_name, opt in game_cls.OPTIONS.items():
            if opt_name == "num_players":
                continue
            allowed = opt.allowed or (", ".join(map(repr, opt.choices)) if opt.choices is not None else "")
            print(f"    {opt_name}={opt.default!r}  allowed: {allowed}" + (f"  ({opt.doc})" if opt.doc else ""))
    return 0


def player_counts_text(counts: Sequence[int]) -> str:
    """``(2, 1, 3, 4, 5)`` (the default first, as registered) as ``"1–5 players, default 2"``: ascending, a run
    of consecutive counts as a range, the default named when there is a choice."""
    ordered = sorted(set(counts))
    if len(ordered) == 1:
        return f"{ordered[0]} player{'s' if ordered[0] != 1 else ''}"
    if len(ordered) > 2 and ordered[-1] - ordered[0] == len(ordered) - 1:
        shown = f"{ordered[0]}–{ordered[-1]}"
    else:
        shown = ", ".join(map(str, ordered))
    return f"{shown} players, default {counts[0]}"


if __name__ == "__main__":
    raise SystemExit(main())
