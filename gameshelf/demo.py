"""Train an agent on Level X, evaluate it against the random and heuristic agents, print the table.

    python -m gameshelf.demo                      # about 4.5 minutes on a 2-core CPU
    python -m gameshelf.demo --timesteps 20000    # quicker, weaker

Level X is the game where a policy learns fastest on a CPU (short games, small observation): after 15,000
steps of self-play it already beats the random agent in nearly every game. Everything is written under
``runs/demo/`` (model, TensorBoard logs, learning curve, evaluation plot).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from gameshelf.training.cli_util import ArgumentParser, UserError, check_env_id, run, show_progress

DEFAULT_ENV = "level_x-v0"


def demo(
    env_id: str = DEFAULT_ENV,
    timesteps: int = 60_000,
    games: int = 200,
    seed: int = 0,
    out: str | Path | None = None,
    progress: bool = True,
) -> tuple[Path, str]:
    """Train, evaluate against random and heuristic; returns the model path and the results table."""
    from gameshelf.training.evaluate import evaluate
    from gameshelf.training.train import heuristic_available, train

    check_env_id(env_id)
    run_dir = Path(out) if out is not None else Path("runs") / "demo" / f"{env_id}-{time.strftime('%Y%m%d-%H%M%S')}"
    print(f"training a MaskablePPO agent on {env_id} for {timesteps} steps (run directory {run_dir})", flush=True)
    result = train(env_id, timesteps=timesteps, seed=seed, out=run_dir, progress=progress)
    print(f"trained in {result.wall_s:.0f} s; evaluating over {games} games per pairing, every seat", flush=True)
    agents = [f"model:{result.model_path}", "random"] + (["heuristic"] if heuristic_available(env_id) else [])
    evaluation = evaluate(env_id, agents, games=games, seed=seed + 1, progress=progress)
    evaluation.plot(run_dir / "evaluation.png")
    table = evaluation.table()
    print(table)
    print(f"model: {result.model_path}")
    print(f"learning curve: {run_dir / 'learning_curve.png'}\nevaluation plot: {run_dir / 'evaluation.png'}")
    return result.model_path, table


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="gameshelf demo", description=__doc__.split("\n")[0])
    parser.add_argument("--env", default=DEFAULT_ENV, help=f"environment id (default {DEFAULT_ENV})")
    parser.add_argument("--timesteps", type=int, default=60_000, help="training steps (default 60000)")
    parser.add_argument("--games", type=int, default=200, help="evaluation games per pairing (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="run directory (default runs/demo/<env>-<time>)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars (there are none unless the output is a terminal)")
    args = parser.parse_args(argv)
    if args.timesteps < 1 or args.games < 1:
        raise UserError("--timesteps and --games must be at least 1")
    from gameshelf.training.train import RunWriteError

    try:
        demo(args.env, args.timesteps, args.games, args.seed, args.out, progress=show_progress(args.quiet))
    except RunWriteError as err:  # a full disk: one line, the last good checkpoint named
        print(f"gameshelf demo: error: {err}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    run(main, prog="gameshelf demo")
