"""Throughput of random legal play: every registered id, beside PettingZoo's classic environments.

    gameshelf bench                                  # all ids, median of 3 interleaved rounds of 2 s
    gameshelf bench --seconds 5 --rounds 5 --ids level_x-v0

For each environment it prints agent-steps/s and games/s through ``envs.make()`` (the PettingZoo AEC loop:
``last()`` then ``step()``) and through the bare engine (``legal_actions`` / ``apply_action``, chance
sampled inline). PettingZoo's ``connect_four_v3`` and ``tictactoe_v3`` (``pip install
"gameshelf[bench]"``, which adds pygame) are measured in the same run with the same loop.

    gameshelf bench --mcts                           # the search path instead: every id, its default players

For each id with compiled kernels (``spec(id).batched``) it also prints the batched path:
decisions per CPU-second (of this process: one core, whatever else the machine runs) of
``gameshelf.vector.make(id, num_envs=N)`` stepped with random legal actions, the mask and the observation
written for every game at every step, at N = 1, 64, 1024, 8192 (``--batch-sizes``; ``--no-batched``
leaves the table out), beside pgx's ``connect_four`` and ``othello`` batched on the CPU when pgx is
installed (``pip install "gameshelf[pgx]"``, which brings JAX; optional). pgx runs as it is meant to: a
compiled loop of the same number of steps per call as the gameshelf rows (``jax.lax.scan`` over random
legal actions and the same auto-reset), waited for once per call.

``--mcts`` measures what tree search costs instead, beside the engine's steps/s (random play at the default
player count): search-path operations per second (``clone`` + ``legal_actions`` + ``apply_checked_action``
of a random legal action, from positions met along random games) and the ``mcts:N`` agent's simulations
per second and time per move (``--simulations``, default 50) from the same positions (hidden information
redealt per simulation, as the agent does). ``benchmarks/search_path.py`` splits the search path per
operation and profiles it.

Every table gives the median of ``--rounds`` rounds that interleave its rows, so a change of load on the
machine hits every row alike. Every measurement starts with a warm-up that the clock does not see: one
game (or one batch of steps, one search) first, so compiling a kernel or loading it from numba's cache,
and pgx's compile, are not counted.
"""

from __future__ import annotations

import functools
import math
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gameshelf import envs
from gameshelf.envs.core import random_playout
from gameshelf.training.cli_util import ArgumentParser, UserError, check_env_id, run, show_progress


def bench_aec(
    make_env: Callable[[], Any], seconds: float, seed: int = 0, clock: Callable[[], float] | None = None
) -> tuple[float, float]:
    """Agent-steps/s and games/s of random legal play through an AEC environment (after one untimed game); per
    second of ``clock`` (wall time unless given; ``time.process_time`` for per CPU-second figures)."""
    clock = clock or time.perf_counter
    env = make_env()
    rng = np.random.default_rng(seed)
    play_aec(env, rng)  # warm-up: kernels compiled or loaded from the cache, first-call costs paid
    steps = games = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        steps += play_aec(env, rng)
        games += 1
    elapsed = clock() - start
    return steps / elapsed, games / elapsed


def play_aec(env: Any, rng: np.random.Generator) -> int:
    """One game of random legal moves through an AEC environment; returns the number of moves."""
    env.reset(seed=int(rng.integers(1 << 31)))
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps


def bench_engine(
    env_id: str, num_players: int, seconds: float, seed: int = 0, clock: Callable[[], float] | None = None
) -> tuple[float, float]:
    """Agent-steps/s and games/s of random legal play on the bare engine (after one untimed game), per second of
    ``clock`` (wall time unless given)."""
    clock = clock or time.perf_counter
    game = envs.make_game(env_id, num_players=num_players)
    rng = np.random.default_rng(seed)
    random_playout(game.new_initial_state(), rng)  # warm-up
    steps = games = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        steps += random_playout(game.new_initial_state(), rng)
        games += 1
    elapsed = clock() - start
    return steps / elapsed, games / elapsed


BATCH_SIZES = (1, 64, 1024, 8192)
STEPS_PER_CALL = 4096
"""Decisions per timed call of the batched rows: ``max(1, 4096 // N)`` steps of ``N`` games."""


def bench_batched(env_id: str, num_envs: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Decisions and games per CPU-second of ``gameshelf.vector`` (random legal actions; mask and observation
    every step). CPU time of this process, not wall time: the figure of one core, whatever else the machine runs."""
    from gameshelf.envs.core.kernel import seed_generators
    from gameshelf.envs.vector import make as make_batch

    env = make_batch(env_id, num_envs=num_envs, seed=seed)
    env.reset()
    picker = seed_generators(seed + 1, num_envs)
    per_call = max(1, STEPS_PER_CALL // num_envs)
    for _ in range(per_call):  # warm-up: compiled (or loaded from the cache) before the clock starts
        env.step(env.random_actions(picker))
    steps = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(per_call):
            out = env.step(env.random_actions(picker))
            games += int(out.terminated.sum())
        steps += per_call * num_envs
    elapsed = time.process_time() - start
    return steps / elapsed, games / elapsed


def pgx_references() -> tuple[dict[str, Callable[[int, float], tuple[float, float]]], str | None]:
    """pgx's batched games to measure beside the batched path, and why there are none when pgx is missing."""
    try:
        import jax
        import pgx
    except Exception as err:
        return (
            {},
            f'pgx is not installed ({type(err).__name__}), so there are no pgx rows; optional: pip install "gameshelf[pgx]"',
        )

    compiled: dict[tuple[str, int], Any] = {}  # one compile per game and N, whatever the rounds

    def run(name: str, num_envs: int, seconds: float) -> tuple[float, float]:
        if (name, num_envs) not in compiled:
            compiled[name, num_envs] = pgx_loop(jax, pgx.make(name), num_envs, max(1, STEPS_PER_CALL // num_envs))
        play, state, key = compiled[name, num_envs]
        state, key, finished = play(state, key)  # warm-up: the compile, the first time
        finished.block_until_ready()
        steps = games = 0
        start = time.process_time()  # all of JAX's threads: per CPU-second, as the gameshelf rows
        while time.process_time() - start < seconds:
            state, key, finished = play(state, key)
            games += int(finished)  # waits for the call: one wait per call, not per step
            steps += max(1, STEPS_PER_CALL // num_envs) * num_envs
        elapsed = time.process_time() - start
        return steps / elapsed, games / elapsed

    return {f"pgx {name}": functools.partial(run, name) for name in ("connect_four", "othello")}, None


def pgx_loop(jax: Any, env: Any, num_envs: int, steps: int) -> tuple[Callable[[Any, Any], tuple[Any, Any, Any]], Any, Any]:
    """A compiled call that plays ``steps`` random legal moves in each of ``num_envs`` games of the pgx
    environment ``env``, restarting finished games (as ``gameshelf.vector`` does), and its first state and key.

    The whole loop is one ``jax.jit`` of a ``jax.lax.scan``: keys are split and finished games counted inside
    it, so nothing leaves the compiled code between steps. ``play(state, key) -> (state, key, finished)``,
    ``finished`` the number of games that ended in the call."""
    jnp = jax.numpy
    init, step = jax.vmap(env.init), jax.vmap(env.step)

    def one(carry: tuple[Any, Any], _: Any) -> tuple[tuple[Any, Any], Any]:
        state, key = carry
        key, act_key, reset_key = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(act_key, logits, axis=-1)  # one random legal action per game
        state = step(state, action)
        done = state.terminated | state.truncated
        fresh = init(jax.random.split(reset_key, num_envs))

        def restart(old: Any, new: Any) -> Any:
            return jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), new, old)

        return (jax.tree_util.tree_map(restart, state, fresh), key), done.sum()

    @jax.jit
    def play(state: Any, key: Any) -> tuple[Any, Any, Any]:
        (state, key), finished = jax.lax.scan(one, (state, key), None, length=steps)
        return state, key, finished.sum()

    key, first = jax.random.split(jax.random.PRNGKey(0))
    return play, jax.jit(init)(jax.random.split(first, num_envs)), key


def batched_table(ids: Sequence[str], seconds: float, rounds: int, sizes: Sequence[int]) -> list[str]:
    """The batched table's lines: per row and N, the median of ``rounds`` rounds that interleave the rows."""
    rows: dict[str, Callable[[int, float], tuple[float, float]]] = {
        env_id: functools.partial(bench_batched, env_id) for env_id in ids if envs.spec(env_id).batched
    }
    if not rows:
        return []
    references, missing = pgx_references()
    rows.update(references)
    header = f"{'batched: decisions per CPU-s (mask + obs.)':<44}" + "".join(f"{f'N={n}':>14}" for n in sizes)
    lines = [header, "-" * len(header)]
    runs: dict[str, list[list[float]]] = {name: [[] for _ in sizes] for name in rows}
    for _ in range(rounds):
        for name, fn in rows.items():
            for k, n in enumerate(sizes):
                runs[name][k].append(fn(n, seconds)[0])
    for name in rows:
        lines.append(f"{name:<44}" + "".join(f"{statistics.median(r):>14,.0f}" for r in runs[name]))
    if missing:
        lines.append(f"note: {missing}")
    return lines


def search_positions(env_id: str, count: int = 40, seed: int = 0) -> list[Any]:
    """``count`` decision positions met along random games of ``env_id`` (default options), spread over whole games."""
    game = envs.make_game(env_id)
    rng = np.random.default_rng(seed)
    out: list[Any] = []
    while len(out) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(out) < count:
            if state.is_chance_node():
                state.apply_checked_action(state.sample_chance(rng))
                continue
            if rng.random() < 0.1:
                out.append(state.clone())
            legal = state.legal_actions()
            state.apply_checked_action(legal[rng.integers(len(legal))])
    return out


def bench_search_path(env_id: str, seconds: float, seed: int = 0) -> float:
    """Search-path operations per second: ``clone`` + ``legal_actions`` + ``apply_checked_action`` from real positions."""
    positions = search_positions(env_id, seed=seed)
    rng = np.random.default_rng(seed)
    for state in positions:  # warm-up
        state.clone().legal_actions()
    ops = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for state in positions:
            copy = state.clone()
            legal = copy.legal_actions()
            copy.apply_checked_action(legal[rng.integers(len(legal))])
        ops += len(positions)
    return ops / (time.perf_counter() - start)


def bench_mcts(env_id: str, seconds: float, simulations: int = 50, seed: int = 0) -> tuple[float, float]:
    """The ``mcts:N`` agent from real positions: simulations per second and seconds per move."""
    from gameshelf.envs.core.episode import observed_state
    from gameshelf.training.agents.mcts import MCTSAgent

    positions = search_positions(env_id, seed=seed)
    rng = np.random.default_rng(seed)
    warm = positions[0]
    MCTSAgent(simulations, reuse=False).act(observed_state(warm, warm.current_player(), rng), warm.current_player(), rng)
    sims = moves = 0
    spent = 0.0
    while spent < seconds:
        for state in positions:
            seat = state.current_player()
            agent = MCTSAgent(simulations, reuse=False)
            shown = observed_state(state, seat, rng)
            t0 = time.perf_counter()
            agent.act(shown, seat, rng)
            spent += time.perf_counter() - t0
            sims += agent.last_simulations
            moves += 1
            if spent >= seconds:
                break
    return sims / spent, spent / moves


def search_table(ids: Sequence[str], seconds: float, simulations: int, rounds: int = 1) -> list[str]:
    """The ``--mcts`` table's lines: per id the engine's steps/s (random play, default players), the search
    path's operations/s and the agent's simulations/s and s/move, each the median of ``rounds`` interleaved rounds."""
    header = f"{'environment':<30}{'engine steps/s':>16}{'clone+mask+apply/s':>20}{f'mcts:{simulations} sims/s':>20}{'s/move':>9}"
    lines = [header, "-" * len(header)]
    runs: dict[str, list[tuple[float, float, float, float]]] = {env_id: [] for env_id in ids}
    for _ in range(rounds):  # rounds interleave the ids, so load changes on the machine hit all of them alike
        for env_id in ids:
            steps, _ = bench_engine(env_id, envs.make_game(env_id).num_players, seconds)
            ops = bench_search_path(env_id, seconds)
            sims, per_move = bench_mcts(env_id, seconds, simulations)
            runs[env_id].append((steps, ops, sims, per_move))
    for env_id in ids:
        steps, ops, sims, per_move = (statistics.median(column) for column in zip(*runs[env_id], strict=True))
        lines.append(f"{env_id:<30}{steps:>16,.0f}{ops:>20,.0f}{sims:>20,.0f}{per_move:>9.3f}")
    return lines


REFERENCE = "pettingzoo connect_four_v3"
"""The row the ``vs c4`` column divides by."""


def pettingzoo_references() -> tuple[dict[str, Callable[[], Any]], str | None]:
    """PettingZoo's classic environments to measure beside ours, and why there are none when they are missing."""
    try:
        from pettingzoo.classic import connect_four_v3, tictactoe_v3
    except Exception as err:  # ImportError, or PettingZoo's DependencyNotInstalled for a partial install
        return {}, (
            f"PettingZoo's classic environments are not available ({type(err).__name__}: {err}), so there is no "
            'comparison with connect_four_v3; install them with: pip install "gameshelf[bench]"'
        )
    return {REFERENCE: connect_four_v3.env, "pettingzoo tictactoe_v3": tictactoe_v3.env}, None


Row = tuple[Callable[[], Any], Callable[[], tuple[float, float]] | None]


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="gameshelf bench", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the median is reported")
    parser.add_argument("--ids", nargs="*", default=None, help="environment ids (default: all registered)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (there is none unless the output is a terminal)")
    parser.add_argument("--mcts", action="store_true", help="measure the search path and the MCTS agent instead (see above)")
    parser.add_argument("--simulations", type=int, default=50, help="with --mcts: simulations per move of the measured agent")
    batched = parser.add_mutually_exclusive_group()
    batched.add_argument(
        "--batch-sizes",
        type=int,
        nargs="+",
        metavar="N",
        default=list(BATCH_SIZES),
        help=f"games stepped at once in the batched table (default {' '.join(map(str, BATCH_SIZES))})",
    )
    batched.add_argument("--no-batched", action="store_true", help="leave the batched table out")
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="the make() and engine rows per CPU-second of this process instead of per second of wall time "
        "(steadier on a shared machine; the batched table is always per CPU-second)",
    )
    args = parser.parse_args(argv)
    if not args.seconds > 0 or not math.isfinite(args.seconds):
        raise UserError(f"--seconds must be a positive number of seconds, not {args.seconds:g}")
    if args.rounds < 1:
        raise UserError(f"--rounds must be at least 1, not {args.rounds}")
    if any(n < 1 for n in args.batch_sizes):
        raise UserError(f"--batch-sizes must be positive integers, not {args.batch_sizes}")
    ids = args.ids or envs.registered_ids()
    for env_id in ids:
        check_env_id(env_id)
    if args.mcts:
        if args.simulations < 1:
            raise UserError(f"--simulations must be at least 1, not {args.simulations}")
        versions = f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}"
        print(f"{versions}; median of {args.rounds} rounds of {args.seconds:g} s per measurement")
        for line in search_table(ids, args.seconds, args.simulations, args.rounds):
            print(line, flush=True)
        return 0
    references, missing = pettingzoo_references()
    rows: dict[str, Row] = {name: (fn, None) for name, fn in references.items()}
    clock = time.process_time if args.cpu_time else None
    for env_id in ids:
        for n in envs.spec(env_id).player_counts:
            rows[f"{env_id} ({n}p)"] = (
                functools.partial(envs.make, env_id, num_players=n),
                functools.partial(bench_engine, env_id, n, args.seconds, clock=clock),
            )
    results: dict[str, list[tuple[float, float, float | None, float | None]]] = {name: [] for name in rows}
    # rounds interleave every environment, so load changes on the machine hit all of them alike
    for _ in tqdm_or_plain(range(args.rounds), "rounds", show_progress(args.quiet)):
        for name, (make_env, engine) in rows.items():
            aec = bench_aec(make_env, args.seconds, clock=clock)
            eng = engine() if engine else (None, None)
            results[name].append((*aec, *eng))
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; "
        f"median of {args.rounds} rounds of {args.seconds:g} {'CPU-' if args.cpu_time else ''}s"
        + ("; steps and games per CPU-second of this process" if args.cpu_time else "")
    )
    for line in format_table(results):
        print(line, flush=True)
    if missing:
        print(f"note: {missing}")
    for line in [] if args.no_batched else batched_table(ids, args.seconds, args.rounds, args.batch_sizes):
        print(line, flush=True)
    return 0


def format_table(results: dict[str, list[tuple[float, float, float | None, float | None]]]) -> list[str]:
    """The table's lines: medians per row; ``vs c4`` only when PettingZoo's connect_four_v3 was measured,
    engine columns ``-`` for rows without an engine of ours."""

    def median(runs: list[tuple[float, float, float | None, float | None]], i: int) -> float | None:
        values = [float(v) for r in runs if (v := r[i]) is not None]
        return statistics.median(values) if values else None

    reference = median(results[REFERENCE], 0) if results.get(REFERENCE) else None
    if reference is not None and reference <= 0:
        reference = None
    header = f"{'environment':<30}{'make() steps/s':>16}" + (f"{'vs c4':>7}" if reference else "")
    header += f"{'games/s':>10}{'engine steps/s':>16}{'games/s':>10}"
    lines = [header, "-" * len(header)]
    for name, runs in results.items():
        steps, games, engine_steps, engine_games = (median(runs, i) for i in range(4))
        cells = [f"{steps:>16,.0f}"]
        if reference is not None and steps is not None:
            cells.append(f"{steps / reference:>6.2f}x")
        cells.append(f"{games:>10,.1f}")
        if engine_steps is not None and engine_games is not None:
            cells += [f"{engine_steps:>16,.0f}", f"{engine_games:>10,.1f}"]
        else:
            cells += [f"{'-':>16}", f"{'-':>10}"]
        lines.append(f"{name:<30}{''.join(cells)}")
    return lines


def tqdm_or_plain(items: Any, desc: str, progress: bool = True) -> Any:
    """``items`` behind a progress bar when ``progress`` and tqdm is installed, else as they are."""
    if not progress:
        return items
    try:
        from tqdm import tqdm
    except ImportError:
        return items
    return tqdm(items, desc=desc, leave=False)


if __name__ == "__main__":
    run(main, prog="gameshelf bench")
