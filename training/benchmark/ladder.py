"""``gameshelf benchmark``: an agent through the protocol against the baseline ladder, rated on one scale.

    gameshelf benchmark heuristic --ids level_x-v0 olenon-v0 --games 40
    gameshelf benchmark model:runs/demo/level_x-v0-<time>/final_model.zip --ids level_x-v0 --workers 2
    gameshelf benchmark mypackage.agents:make_agent --out runs/benchmark/mine      # your own agent
    gameshelf benchmark heuristic --address auto     # the games as Ray tasks on a running Ray cluster (cluster.py)
    gameshelf benchmark llm:qwen2.5-7b-instruct@http://127.0.0.1:8080/v1 --ids koplus-v0   # a language model
    gameshelf benchmark --full-ladder --ids level_x-v0 --estimate   # the full ladder's cost (first deals)
    gameshelf benchmark --full-ladder --ids level_x-v0 --deals-for-slow 50   # every rung, one scale (full_ladder)

For every id (default: all ten games) the agent and the ladder of ``training.benchmark.protocol`` (random, the
heuristic, ``mcts:50/200/1000`` where the engine is fast enough, a ``--model`` when given) play a round
robin under the protocol (``training/benchmark/protocol.py``: fixed deals, every seat assignment, paired chance).
Every game is appended to ``OUT/games.jsonl`` as it ends; an interrupted run (Ctrl-C, SIGTERM, or SIGHUP
when its terminal closes) keeps them, prints how to resume and exits (128 + the signal), and the
same command again resumes, playing only the games not yet recorded for this protocol version, these
agent specs and this code (a saved game whose code digests, ``protocol.play_digest``, differ from the run's
is played again, and a line on standard error says so). The result is ``OUT/result.json`` and
``OUT/result.md``:

* **score** of a pairing: the focal agent's mean score of rank against the other agent (1 win, 1/2 tie, 0
  loss against each other seat), over every game; per deal, the mean over the deal's seat assignments.
* **rating**: a Bradley–Terry fit (``training.benchmark.ratings.elo_ratings``) of the per-deal scores of every
  pairing, in Elo points with random = 0; pairwise outcomes from final rankings put every player count on
  one scale.
* **normalized score**: ``(S(x) - S(random)) / (S(heuristic) - S(random))`` where ``S(a)`` is the mean of
  a's scores against random and against the heuristic (an agent scores 1/2 against itself): 0 is random,
  1 is the heuristic; averaged over the ids run.
* **text play**: per agent that plays through text (``llm:``, ``callable:``), its calls, tokens, tokens per
  decision, invalid-reply and fallback rates, summed from the games' ``text_stats`` (``text_play``).
* **intervals**: 95% percentile intervals of a bootstrap over deals (the same resampled deals for every
  pairing of an id, so the correlation the shared deals create is kept; ``--bootstrap`` replicates, seeded).

Numbers in ``result.json`` depend only on the protocol, the agents, the ids, ``--games`` and
``--bootstrap``: not on ``--workers``, ``--address``, the order games ran in, or an interruption. What made
them is recorded (``software``: versions and git commit; ``code``: the digests of the code that decided
play). CPU times, each agent's CPU time per decision and the games played and reused are kept apart
(``cost``). Every mistake in the command line (unknown id or agent, a time budget, a bad number) is one
line on standard error and exit status 2, before any game is played.
"""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing as mp
import queue
import re
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf import envs
from gameshelf.envs.core.episode import observed_state
from gameshelf.training.benchmark import protocol
from gameshelf.training.benchmark.protocol import PROTOCOL, GameTask, is_finite_number, reproduce_command
from gameshelf.training.benchmark.ratings import elo_ratings
from gameshelf.training.cli_util import ArgumentParser, UserError, check_env_id, check_writable_dir, run, show_progress
from gameshelf.training.evaluate import outcome

DEFAULT_BOOTSTRAP = 500
RATING_SCALE = "Bradley–Terry fit of per-deal pairwise scores (from final ranks), Elo points, random = 0"
NORMALIZED_SCALE = "(S(x) - S(random)) / (S(heuristic) - S(random)), S = mean score against random and the heuristic"


# ---- the games file ---------------------------------------------------------------------------------
def parse_record(line: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """A line of a games file: ``(record, None)``, ``(None, None)`` for a record of another protocol version,
    or ``(None, what is wrong)``."""
    try:
        record = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except json.JSONDecodeError as err:
        return None, f"not JSON (column {err.colno}: {err.msg})"
    except RecursionError:
        return None, "JSON nested too deep"
    except ValueError:  # not a JSONDecodeError: an integer of more digits than Python converts
        return None, "a number with too many digits"
    if isinstance(record, dict) and isinstance(record.get("protocol"), str) and record["protocol"] != PROTOCOL:
        return None, None  # another protocol version's record: not this run's
    problem = protocol.record_problem(record)
    return (None, problem) if problem else (record, None)


class GameStore:
    """Game records by key: those of ``path`` (a JSONL file, appended to as games end) and of ``reuse``
    files (read only). Records of another protocol version are not loaded. A damaged line (cut short by an
    interruption, not JSON, a record whose fields do not check out) is reported on standard error by file
    and line and skipped: its game is played again. The files are never rewritten. ``select`` keeps only
    the records made by the code of the run.

    ``report=False``: skip damaged lines silently."""

    def __init__(self, path: str | Path | None = None, reuse: Iterable[str | Path] = (), report: bool = True) -> None:
        self.records: dict[str, dict[str, Any]] = {}
        self.saved: dict[str, list[tuple[Path, dict[str, Any]]]] = {}
        """Every loaded record by key, in the order read, with its file."""
        self.other_versions: dict[Path, dict[str, str]] = {}
        """Per file, the keys (as this version writes them) of its records of another protocol version."""
        self.path = Path(path) if path is not None else None
        self.report = report
        for extra in reuse:
            self._load(Path(extra))
        if self.path is not None and self.path.exists():
            self._load(self.path)
            with self.path.open("rb") as f:
                f.seek(0, 2)
                if f.tell() > 0:
                    f.seek(-1, 2)
                    if f.read(1) != b"\n":  # an interrupted write: start the next record on a line of its own
                        with self.path.open("a") as out:
                            out.write("\n")

    def _load(self, path: Path) -> None:
        try:
            data = path.read_bytes()
        except OSError as err:
            raise UserError(f"cannot read games file {str(path)!r}: {err.strerror or err}") from None
        for number, line in enumerate(data.split(b"\n"), 1):
            if not line.strip():
                continue
            record, problem = parse_record(line)
            if problem is not None:
                if self.report:
                    print(f"warning: {path}:{number}: {problem}; its game is played again", file=sys.stderr)
                continue
            if record is not None:
                self.records[record["key"]] = record
                self.saved.setdefault(record["key"], []).append((path, record))
            else:
                self._other_version(path, line)

    def _other_version(self, path: Path, line: bytes) -> None:
        record = json.loads(line)  # parse_record read it: a record of another protocol version
        key = record.get("key")
        if isinstance(key, str) and key.startswith(record["protocol"] + "|"):
            keys = self.other_versions.setdefault(path, {})
            keys[PROTOCOL + key.removeprefix(record["protocol"])] = record["protocol"]

    def select(self, tasks: Sequence[GameTask], code: Callable[[GameTask], dict[str, Any]]) -> int:
        """Keep, of the saved games of ``tasks``, those whose record names ``code(task)`` (the last such line),
        and drop the others: they are played again. Says on standard error, per file, how many saved games
        were made by other code (and which) or by another protocol version. Returns the games kept."""
        other: dict[Path, tuple[int, set[str]]] = {}
        for task in tasks:
            candidates = self.saved.get(task.key, [])
            current = code(task)
            match = [record for _, record in candidates if record["code"] == current]
            if match:
                self.records[task.key] = match[-1]
                continue
            self.records.pop(task.key, None)
            if candidates:
                path, record = candidates[-1]
                count, parts = other.get(path, (0, set()))
                other[path] = (count + 1, parts | set(protocol.code_differences(record["code"], current)))
        if self.report:
            for path, (count, parts) in other.items():
                what = ", ".join(sorted(parts, key=lambda p: (p not in ("game", "core"), p)))
                print(f"{count} saved games of {path} were made by other code ({what}); playing them again", file=sys.stderr)
            for path, keys in self.other_versions.items():
                versions = [keys[t.key] for t in tasks if t.key in keys and t.key not in self.records]
                if versions:
                    print(
                        f"{len(versions)} saved games of {path} are of {', '.join(sorted(set(versions)))}, not {PROTOCOL} "
                        "(no code digests); playing them again",
                        file=sys.stderr,
                    )
        return sum(t.key in self.records for t in tasks)

    def __contains__(self, key: str) -> bool:
        return key in self.records

    def __len__(self) -> int:
        return len(self.records)

    def get(self, key: str) -> dict[str, Any] | None:
        return self.records.get(key)

    def add(self, record: dict[str, Any]) -> None:
        self.records[record["key"]] = record
        if self.path is not None:
            with self.path.open("a") as f:
                f.write(json.dumps(record, separators=(",", ":")) + "\n")


# ---- progress ---------------------------------------------------------------------------------------------
class Progress:
    """A progress bar: tqdm when installed, else one plain line rewritten in place; nothing when off."""

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self.total, self.count, self.desc, self.bar = total, 0, desc, None
        self.enabled = enabled and total > 0
        if self.enabled:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=total, desc=desc, unit="game")
            except ImportError:
                self._plain()

    def _plain(self) -> None:
        print(f"\r{self.desc}: {self.count}/{self.total} games", end="", file=sys.stderr, flush=True)

    def update(self, desc: str | None = None) -> None:
        self.count += 1
        if not self.enabled:
            return
        if self.bar is not None:
            if desc is not None:
                self.bar.set_description(desc, refresh=False)
            self.bar.update()
        else:
            self.desc = desc or self.desc
            self._plain()

    def close(self) -> None:
        with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
            if self.bar is not None:
                self.bar.close()
            elif self.enabled:
                print(file=sys.stderr)


# ---- running games ---------------------------------------------------------------------------------------
class GameFailed(RuntimeError):
    """A game could not be played (an agent raised or chose an illegal action)."""


def _script(task: GameTask, store: GameStore) -> list[int] | None:
    if not task.paired or task.assignment == 0:
        return None
    first = store.get(task.first.key)
    return None if first is None else list(first["chance"])


def _worker_signals() -> None:
    """In a worker: Ctrl-C and a closed terminal are the parent's to handle (it stops the pool, by SIGTERM)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where Ctrl-C raises ``KeyboardInterrupt`` (``stop_on_signals``)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """While in the block, SIGTERM (a scheduler stops the job) and SIGHUP (the terminal closed) raise
    ``Stopped``, so a run keeps its games and says how to resume as on Ctrl-C. A signal already ignored
    (``nohup``) stays ignored; off the main thread nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise Stopped(signum)

    previous: dict[int, Any] = {}
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)  # no SIGHUP on Windows
        if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:
            previous[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


class RunCode:
    """The code of one run: ``play_digest`` of every id and agent, computed once (files read once per run)."""

    def __init__(self) -> None:
        self.digests: dict[tuple[str, str], dict[str, str]] = {}

    def digest(self, env_id: str, spec: str) -> dict[str, str]:
        if (env_id, spec) not in self.digests:
            self.digests[(env_id, spec)] = protocol.play_digest(env_id, spec)
        return self.digests[(env_id, spec)]

    def __call__(self, task: GameTask) -> dict[str, Any]:
        """The ``code`` a record of ``task`` made by this run has."""
        return protocol.game_code(task, self.digest)

    def of_id(self, env_id: str, agents: Sequence[str]) -> dict[str, Any]:
        """The digests of an id's game and core, and of each of ``agents`` on it."""
        digests = {a: self.digest(env_id, a) for a in agents}
        first = digests[agents[0]]
        return {"game": first["game"], "core": first["core"], "agents": {a: d["agent"] for a, d in digests.items()}}

    def files(self, env_ids: Sequence[str], agents: Sequence[str]) -> list[Path]:
        """Every file behind the digests (for ``protocol.checkout_commit``)."""
        out = protocol.core_files() + [f for env_id in env_ids for f in protocol.game_files(env_id)]
        return list(dict.fromkeys(out + [f for e in env_ids for a in agents for f in protocol.agent_files(a, e)]))


def run_games(tasks: Sequence[GameTask], store: GameStore, workers: int = 1, progress: bool = False,
              code: RunCode | None = None, address: str | None = None) -> int:  # fmt: skip
    """Play every task whose game ``store`` does not hold yet, adding each record as its game ends;
    returns the number of games played. Saved games made by other code than ``code`` (default: the code
    found now) are played again (``GameStore.select``). A paired game waits for its deal's first game
    (whose chance outcomes it replays). ``workers > 1``: games run in that many processes, in any order.
    ``address``: games run as Ray tasks on the cluster there (``cluster.ClusterGames``), in any order."""
    code = code if code is not None else RunCode()
    store.select(tasks, code)
    todo = [t for t in tasks if t.key not in store]
    bar = Progress(len(todo), "benchmark", progress)
    try:
        if not todo:
            return 0
        if address is not None:
            from gameshelf.training.benchmark.cluster import ClusterGames

            with ClusterGames(address) as games:
                return play_all(todo, store, bar, lambda t: games.start(t, _script(t, store), code(t)), games.finish,
                                games.window)  # fmt: skip
        if workers <= 1:
            done: list[tuple[bool, Any]] = []

            def play_here(task: GameTask) -> None:
                try:
                    done.append((True, protocol.play_task(task, _script(task, store), code(task))))
                except RuntimeError as err:
                    done.append((False, err))

            return play_all(todo, store, bar, play_here, done.pop, 1)  # the plan lists a deal's first game first
        methods = mp.get_all_start_methods()
        ctx = mp.get_context("fork" if "fork" in methods else "spawn")
        results: queue.Queue[tuple[bool, Any]] = queue.Queue()
        pool = ctx.Pool(workers, initializer=_worker_signals)

        def submit(task: GameTask) -> None:
            pool.apply_async(
                protocol.play_task,
                (task, _script(task, store), code(task)),
                callback=lambda record: results.put((True, record)),
                error_callback=lambda err: results.put((False, err)),
            )

        def next_result() -> tuple[bool, Any]:
            while True:
                with contextlib.suppress(queue.Empty):
                    return results.get(timeout=0.2)

        try:
            return play_all(todo, store, bar, submit, next_result, len(todo))
        finally:
            pool.terminate()
            pool.join()
    finally:
        bar.close()


def play_all(todo: Sequence[GameTask], store: GameStore, bar: Progress, start: Callable[[GameTask], None],
             finish: Callable[[], tuple[bool, Any]], window: int) -> int:  # fmt: skip
    """Play ``todo`` through ``start`` (begin a game) and ``finish`` (the next game to end: ``(True, record)``,
    or ``(False, error)``, a ``GameFailed``), at most ``window`` games at a time, in the order of ``todo``; a
    paired game starts once its deal's first game is in ``store`` (before the games not started yet). Each record
    is added to ``store`` as it comes; returns the games played."""
    ready: deque[GameTask] = deque()
    waiting: dict[str, list[GameTask]] = {}
    for task in todo:
        if task.paired and task.assignment > 0 and task.first.key not in store:
            waiting.setdefault(task.first.key, []).append(task)
        else:
            ready.append(task)
    running = played = 0
    while ready or running:
        while ready and running < window:
            start(ready.popleft())
            running += 1
        ok, value = finish()
        running -= 1
        if not ok:
            raise GameFailed(str(value))
        store.add(value)
        played += 1
        bar.update(value["env_id"])
        ready.extendleft(reversed(waiting.pop(value["key"], [])))  # the deal's other games next
    return played


# ---- statistics ----------------------------------------------------------------------------------------
@dataclass
class Pairing:
    """The games of one (focal, other) pairing: per-deal focal scores and the focal agent's w/d/l."""

    focal: str
    other: str
    deal_scores: list[float]
    wins: int = 0
    draws: int = 0
    losses: int = 0
    games: int = 0
    game_scores: list[list[float]] = field(default_factory=list)
    """The focal agent's score in every game, per deal, in seat-assignment order."""


def collect(tasks: Sequence[GameTask], store: GameStore) -> dict[tuple[str, str], Pairing]:
    """The pairings of ``tasks`` from their records (every task must have one)."""
    per: dict[tuple[str, str], dict[int, list[float]]] = {}
    out: dict[tuple[str, str], Pairing] = {}
    for task in tasks:
        record = store.get(task.key)
        if record is None:
            raise KeyError(f"no record of {task.key}")
        pair = (task.focal, task.other)
        per.setdefault(pair, {}).setdefault(task.deal, []).append(record["focal_score"])
        p = out.setdefault(pair, Pairing(task.focal, task.other, []))
        focal_seat = task.seats.index(0)
        result = outcome(np.asarray(record["returns"]), focal_seat)
        p.wins += result == "win"
        p.draws += result == "draw"
        p.losses += result == "loss"
        p.games += 1
    for pair, deals in per.items():
        out[pair].deal_scores = [float(np.mean(deals[d])) for d in sorted(deals)]
        out[pair].game_scores = [deals[d] for d in sorted(deals)]
    return out


def pairing_gain(game_scores: Sequence[Sequence[float]]) -> float | None:
    """How much the games of a deal hedge each other: the standard deviation of the per-deal mean score
    divided by what it would be if the deal's games were independent (the same games, their correlation
    within a deal removed). Below 1: a deal's seatings cancel luck (what paired deals aim at); about 1 for
    unpaired games. None when it is not defined (fewer than two deals, or no spread)."""
    rows = [list(r) for r in game_scores]
    width = min((len(r) for r in rows), default=0)
    if len(rows) < 2 or width < 1:
        return None
    a = np.asarray([r[:width] for r in rows], dtype=np.float64)
    independent = float(a.var(axis=0, ddof=1).mean()) / width
    if independent <= 0:
        return None
    return math.sqrt(float(a.mean(axis=1).var(ddof=1)) / independent)


Weights = dict[int, np.ndarray]
"""Bootstrap weights of the deals by deal count: a pairing of ``D`` deals counts deal ``k`` ``weights[D][k]`` times."""


def _weighted_mean(values: Sequence[float], weights: Weights | None) -> float:
    a = np.asarray(values, dtype=np.float64)
    if weights is None:
        return float(a.mean())
    w = weights[a.size]
    return float((w * a).sum() / w.sum()) if w.sum() > 0 else float(a.mean())


def pair_means(pairs: dict[tuple[str, str], list[float]], weights: Weights | None = None) -> dict[tuple[str, str], float]:
    return {pair: _weighted_mean(scores, weights) for pair, scores in pairs.items()}


def score_of(a: str, b: str, means: dict[tuple[str, str], float], num_players: int) -> float:
    """Mean score of ``a`` against ``b`` (1/2 against itself; two players: from either order); nan if unplayed."""
    if a == b:
        return 0.5
    if (a, b) in means:
        return means[(a, b)]
    if num_players == 2 and (b, a) in means:
        return 1.0 - means[(b, a)]
    return float("nan")


def normalized_scores(agents: Sequence[str], means: dict[tuple[str, str], float], num_players: int) -> dict[str, float]:
    """0 = random, 1 = heuristic (see the module docstring); nan without both or when they score alike."""

    def strength(a: str) -> float:
        return 0.5 * (score_of(a, "random", means, num_players) + score_of(a, "heuristic", means, num_players))

    low, high = strength("random"), strength("heuristic")
    span = high - low
    if not math.isfinite(span) or abs(span) < 1e-9:
        return {a: float("nan") for a in agents}
    return {a: (strength(a) - low) / span for a in agents}


def rating_fit(
    agents: Sequence[str], pairs: dict[tuple[str, str], list[float]], weights: Weights | None = None
) -> dict[str, float]:
    """Bradley–Terry ratings (Elo points, random = 0) of per-deal scores, each deal of a pairing of ``D`` deals
    counted ``weights[D][k]`` times."""
    index = {a: k for k, a in enumerate(agents)}
    duels: list[tuple[int, int, float]] = []
    for (a, b), scores in pairs.items():
        for k, s in enumerate(scores):
            repeat = 1 if weights is None else int(weights[len(scores)][k])
            duels.extend([(index[a], index[b], float(s))] * repeat)
    fitted = elo_ratings(list(agents), duels, anchor="random", anchor_value=0.0)
    return {a: r.value for a, r in fitted.items()}


def interval(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return (float("nan"), float("nan"))
    lo, hi = np.percentile(finite, [2.5, 97.5])
    return (float(lo), float(hi))


BOOTSTRAP_DEAL = 2**32 - 1
"""The bootstrap of an id is seeded with the seed of this (never played) deal number."""


def bootstrap_seed(env_id: str, num_players: int) -> int:
    return protocol.deal_seed(env_id, num_players, BOOTSTRAP_DEAL)


@dataclass
class Summary:
    """Ratings, normalized scores and pair scores of one id, each with its bootstrap replicates."""

    agents: list[str]
    num_players: int
    pairs: dict[tuple[str, str], list[float]]
    ratings: dict[str, float]
    normalized: dict[str, float]
    means: dict[tuple[str, str], float]
    boot_ratings: dict[str, np.ndarray]
    boot_normalized: dict[str, np.ndarray]
    boot_means: dict[tuple[str, str], np.ndarray]

    def cell(self, what: str, key: Any) -> dict[str, float]:
        if what == "rating":
            point, boot = self.ratings[key], self.boot_ratings[key]
        elif what == "normalized":
            point, boot = self.normalized[key], self.boot_normalized[key]
        else:
            point, boot = self.means[key], self.boot_means[key]
        lo, hi = interval(boot)
        return {"value": point, "lo": lo, "hi": hi}

    def versus(self, a: str, b: str) -> dict[str, float] | None:
        """``a``'s score against ``b`` with its interval (two players: from either order)."""
        if (a, b) in self.means:
            return self.cell("pair", (a, b))
        if self.num_players == 2 and (b, a) in self.means:
            c = self.cell("pair", (b, a))
            return {"value": 1 - c["value"], "lo": 1 - c["hi"], "hi": 1 - c["lo"]}
        return None


def summarize(agents: Sequence[str], num_players: int, pairs: dict[tuple[str, str], list[float]],
              bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> Summary:  # fmt: skip
    """Point estimates on every deal and ``bootstrap`` replicates resampling the deals (seeded by ``seed``).

    The pairings of a run share their deals, and one draw of deals serves them all (keeping the correlation
    the shared deals give). Merged results can have pairings of fewer deals (``D``) than others: each deal
    count draws its own resample of its ``D`` deals from a generator seeded by ``seed``, the draw a run of
    ``D`` deals makes, so a pairing's interval is the one its own result reports."""
    agents = list(agents)
    means = pair_means(pairs)
    ratings = rating_fit(agents, pairs)
    normalized = normalized_scores(agents, means, num_players)
    rngs = {d: np.random.default_rng(seed) for d in sorted({len(s) for s in pairs.values()})}
    boot_r = {a: np.empty(bootstrap) for a in agents}
    boot_n = {a: np.empty(bootstrap) for a in agents}
    boot_m = {p: np.empty(bootstrap) for p in pairs}
    for b in range(bootstrap):
        weights = {d: rng.multinomial(d, np.full(d, 1.0 / d)) if d else np.zeros(0) for d, rng in rngs.items()}
        m = pair_means(pairs, weights)
        for p, v in m.items():
            boot_m[p][b] = v
        for a, v in rating_fit(agents, pairs, weights).items():
            boot_r[a][b] = v
        for a, v in normalized_scores(agents, m, num_players).items():
            boot_n[a][b] = v
    return Summary(agents, num_players, dict(pairs), ratings, normalized, means, boot_r, boot_n, boot_m)


# ---- one benchmark --------------------------------------------------------------------------------------
@dataclass
class Plan:
    env_id: str
    num_players: int
    agents: list[str]
    left_out: dict[str, str]
    tasks: list[GameTask]


def make_plan(agent: str, env_id: str, games: int, num_players: int | None = None, ladder: Sequence[str] | None = None,
              model: str | None = None, paired: bool = True) -> Plan:  # fmt: skip
    """The agents (ladder rungs, then ``agent`` unless it is one) and every game of their round robin."""
    n = protocol.players_for(env_id, num_players)
    if ladder is None:
        rungs, left_out = protocol.ladder(env_id, model)
    else:
        rungs, left_out = list(ladder), {}
    agents = rungs + ([agent] if agent not in rungs else [])
    return Plan(env_id, n, agents, left_out, protocol.plan(env_id, agents, games, n, paired=paired))


TEXT_COUNTS = ("moves", "calls", "prompt_tokens", "completion_tokens", "total_tokens", "retries", "invalid", "fallbacks")


def text_play(records: Iterable[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    """Per agent that plays through text, its statistics summed over ``records`` (``text_stats`` of each
    seat it sat in) with tokens per decision, the invalid-reply rate (invalid replies over replies) and the
    fallback rate (fallbacks over decisions); and apart, the seconds it waited for replies."""
    sums: dict[str, dict[str, Any]] = {}
    waited: dict[str, float] = {}
    for record in records:
        for spec, entry in zip(record["lineup"], record.get("text_stats") or [], strict=False):
            if entry is None:
                continue
            total = sums.setdefault(spec, {"games": 0, **dict.fromkeys(TEXT_COUNTS, 0)})
            total["games"] += 1
            for k in TEXT_COUNTS:
                total[k] += entry[k]
            waited[spec] = waited.get(spec, 0.0) + entry["latency_s"]
    for total in sums.values():
        moves, replies = total["moves"], total["invalid"] + total["moves"] - total["fallbacks"]
        total["replies"] = replies
        total["tokens_per_decision"] = total["total_tokens"] / moves if moves else None
        total["prompt_tokens_per_decision"] = total["prompt_tokens"] / moves if moves else None
        total["completion_tokens_per_decision"] = total["completion_tokens"] / moves if moves else None
        total["invalid_rate"] = total["invalid"] / replies if replies else None
        total["fallback_rate"] = total["fallbacks"] / moves if moves else None
    return sums, {spec: round(s, 2) for spec, s in waited.items()}


def act_cpu(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per agent, its CPU seconds inside ``act`` and its decisions summed over ``records`` (every seat it
    sat in), and the milliseconds per decision (None without a decision)."""
    sums: dict[str, dict[str, Any]] = {}
    for record in records:
        for spec, cpu, decisions in zip(record["lineup"], record["act_cpu_s"], record["act_decisions"], strict=True):
            total = sums.setdefault(spec, {"cpu_s": 0.0, "decisions": 0})
            total["cpu_s"] += cpu
            total["decisions"] += decisions
    for total in sums.values():
        total["ms_per_decision"] = 1000 * total["cpu_s"] / total["decisions"] if total["decisions"] else None
        total["cpu_s"] = round(total["cpu_s"], 4)
    return sums


def cpu_cell(result: dict[str, Any], env_id: str, agent: str) -> str:
    """An agent's CPU milliseconds per decision on ``env_id`` in ``result``; ``-`` when the result has none
    (version 1, or no decision)."""
    ms: Any = result
    for key in ("cost", "cpu_per_decision", env_id, agent, "ms_per_decision"):
        ms = ms.get(key) if isinstance(ms, dict) else None
    if not is_finite_number(ms) or ms < 0:
        return "-"
    digits = 0 if ms >= 100 else min(4, 2 - math.floor(math.log10(ms))) if ms > 0 else 0
    return f"{ms:.{digits}f}"


def id_result(plan: Plan, store: GameStore, bootstrap: int, agent: str) -> tuple[dict[str, Any], np.ndarray]:
    """The JSON section of one id, and the bootstrap replicates of the agent's normalized score."""
    pairings = collect(plan.tasks, store)
    pairs = {p: v.deal_scores for p, v in pairings.items()}
    summary = summarize(plan.agents, plan.num_players, pairs, bootstrap, bootstrap_seed(plan.env_id, plan.num_players))
    records = [store.records[t.key] for t in plan.tasks]
    replays = [r for r in records if r["paired"] and r["assignment"] > 0]
    with_chance = [r for r in replays if r["chance"]]
    deals = protocol.deals_for(1, plan.num_players) if not plan.tasks else max(t.deal for t in plan.tasks) + 1
    section = {
        "num_players": plan.num_players,
        "deals": deals,
        "games_per_pairing": deals * len(protocol.seat_assignments(plan.num_players)),
        "deal_seeds": [protocol.deal_seed(plan.env_id, plan.num_players, k) for k in range(deals)],
        "agents": plan.agents,
        "left_out": plan.left_out,
        "ratings": {a: summary.cell("rating", a) for a in plan.agents},
        "normalized": {a: summary.cell("normalized", a) for a in plan.agents},
        "versus": {
            a: {opp: summary.versus(a, opp) for opp in ("random", "heuristic") if opp in plan.agents and opp != a}
            for a in plan.agents
        },
        "pairs": [
            {
                "focal": p.focal,
                "other": p.other,
                "games": p.games,
                "wins": p.wins,
                "draws": p.draws,
                "losses": p.losses,
                "score": summary.cell("pair", key),
                "deal_scores": p.deal_scores,
                "game_scores": p.game_scores,
                "pairing_gain": pairing_gain(p.game_scores),
            }
            for key, p in pairings.items()
        ],
        "chance": {
            "replays": len(replays),
            "followed_to_end": sum(r["diverged_at"] is None for r in replays),
            "impossible": sum(r["divergence"] == "impossible" for r in replays),
            "ran_out": sum(r["divergence"] == "ran_out" for r in replays),
            "replayed_fraction": float(np.mean([r["replayed"] / len(r["chance"]) for r in with_chance])) if with_chance else None,
        },
        "truncated": sum(bool(r["truncated"]) for r in records),
        "text_play": text_play(records)[0],
        "sweeps": sweeps(plan.agents, pairs),
    }
    return section, summary.boot_normalized.get(agent, np.full(bootstrap, np.nan))


def sweeps(agents: Sequence[str], pairs: dict[tuple[str, str], list[float]]) -> dict[str, list[str]]:
    """For each agent but random (the anchor), the agents it won or lost every deal against: there the
    Bradley–Terry gap is only bounded (by the virtual draw), not measured."""
    out: dict[str, list[str]] = {}
    for (a, b), scores in pairs.items():
        if scores and (all(x == 1.0 for x in scores) or all(x == 0.0 for x in scores)):
            for x, y in ((a, b), (b, a)):
                if x != "random" and x in agents:
                    out.setdefault(x, []).append(y)
    return out


SWEEP_NOTE = (
    "\\* won or lost every deal against an agent (listed in result.json, `sweeps`): Bradley–Terry only bounds "
    "that gap, through the one virtual draw per pair (between two agents a sweep of D deals counts as "
    "400 log10(2D + 1) Elo), so the rating grows with the game count; compare such agents by their scores and "
    "normalized scores."
)


def rating_cell(section: dict[str, Any], agent: str) -> str:
    text = fmt(section["ratings"][agent], 0)
    if agent in section.get("sweeps", {}) and text != "-":
        value, _, rest = text.partition(" ")
        return f"{value}\\* {rest}"
    return text


def mean_normalized(sections: dict[str, dict[str, Any]], boots: dict[str, np.ndarray], agent: str) -> dict[str, Any]:
    """The agent's normalized score averaged over the ids where it is defined, with a bootstrap interval."""
    ids = [i for i, s in sections.items() if math.isfinite(s["normalized"][agent]["value"])]
    if not ids:
        return {"value": float("nan"), "lo": float("nan"), "hi": float("nan"), "ids": []}
    value = float(np.mean([sections[i]["normalized"][agent]["value"] for i in ids]))
    lo, hi = interval(np.mean([boots[i] for i in ids], axis=0))
    return {"value": value, "lo": lo, "hi": hi, "ids": ids}


def benchmark(agent: str, ids: Sequence[str], games: int = protocol.DEFAULT_GAMES, out: str | Path | None = None,
              workers: int = 1, num_players: int | None = None, ladder: Sequence[str] | None = None,
              model: str | None = None, paired: bool = True, bootstrap: int = DEFAULT_BOOTSTRAP,
              reuse: Sequence[str | Path] = (), progress: bool = False, command: str = "",
              address: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Run (or resume) the protocol for ``agent`` on ``ids``; returns the result (also written under ``out``).
    ``address``: play the games on the Ray cluster there (``run_games``), with the same result."""
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    store = GameStore(out_dir / "games.jsonl" if out_dir is not None else None, reuse)
    plans = [make_plan(agent, env_id, games, num_players, ladder, model, paired) for env_id in ids]
    start = time.perf_counter()
    code = RunCode()
    tasks = [t for p in plans for t in p.tasks]
    played = run_games(tasks, store, workers, progress, code, address)
    sections: dict[str, dict[str, Any]] = {}
    boots: dict[str, np.ndarray] = {}
    cost: dict[str, float] = {}
    per_decision: dict[str, dict[str, dict[str, Any]]] = {}
    waited: dict[str, dict[str, float]] = {}
    for p in plans:
        sections[p.env_id], boots[p.env_id] = id_result(p, store, bootstrap, agent)
        cost[p.env_id] = round(sum(store.records[t.key]["cpu_s"] for t in p.tasks), 2)
        per_decision[p.env_id] = act_cpu(store.records[t.key] for t in p.tasks)
        wait = text_play(store.records[t.key] for t in p.tasks)[1]
        if wait:
            waited[p.env_id] = wait
    versions = protocol.software(code.files(ids, list(dict.fromkeys(a for p in plans for a in p.agents))))

    result = {
        "protocol": PROTOCOL,
        "agent": agent,
        "agent_identity": protocol.spec_identity(agent),
        "command": command,
        "gameshelf": versions["gameshelf"],
        "software": versions,
        "code": {p.env_id: code.of_id(p.env_id, p.agents) for p in plans},
        "games_per_pairing": games,
        "paired": paired,
        "bootstrap": bootstrap,
        "rating_scale": RATING_SCALE,
        "normalized_scale": NORMALIZED_SCALE,
        "ids": sections,
        "mean_normalized": mean_normalized(sections, boots, agent),
        "cost": {
            "cpu_s_of_games": cost,
            "cpu_per_decision": per_decision,
            "games_played": played,
            "games_reused": len(tasks) - played,
            "wall_s_this_run": round(time.perf_counter() - start, 1),
            **({"text_wait_s_of_games": waited} if waited else {}),
        },
    }
    if out_dir is not None:
        (out_dir / "result.json").write_text(json.dumps(result, indent=1) + "\n")
        (out_dir / "result.md").write_text(result_markdown(result))
    return result


# ---- the full ladder ------------------------------------------------------------------------------------
Pair = tuple[str, str]


def pairing_tasks(env_id: str, num_players: int, deals: dict[Pair, int], paired: bool = True) -> list[GameTask]:
    """Every game of each (focal, other) pairing of ``deals`` at its number of deals, deal by deal."""
    count = len(protocol.seat_assignments(num_players))
    return [
        GameTask(env_id, num_players, a, b, deal, k, paired)
        for (a, b), d in deals.items()
        for deal in range(d)
        for k in range(count)
    ]


@dataclass
class LadderPlan:
    """One id's full ladder: its rungs, its pairings (``protocol.ladder_pairings``) and, once the first deal
    of each is played, each pairing's CPU seconds per game and its number of deals."""

    env_id: str
    num_players: int
    rungs: list[str]
    pairs: list[Pair]
    cost: dict[Pair, float] = field(default_factory=dict)
    deals: dict[Pair, int] = field(default_factory=dict)
    reduced: set[Pair] = field(default_factory=set)
    """The pairings played with fewer deals for their cost (``--deals-for-slow``)."""

    def first_deals(self, paired: bool) -> list[GameTask]:
        return pairing_tasks(self.env_id, self.num_players, dict.fromkeys(self.pairs, 1), paired)

    def rows(self) -> list[dict[str, Any]]:
        """Per pairing: its first deal's CPU seconds per game, its deals and games, and the CPU hours they cost."""
        count = len(protocol.seat_assignments(self.num_players))
        return [
            {
                "focal": a,
                "other": b,
                "cpu_s_per_game": round(self.cost[(a, b)], 3),
                "deals": self.deals[(a, b)],
                "games": self.deals[(a, b)] * count,
                "cpu_h": self.cost[(a, b)] * self.deals[(a, b)] * count / 3600,
                "reduced": (a, b) in self.reduced,
            }
            for a, b in self.pairs
        ]


def ladder_plan(env_id: str, num_players: int | None = None, rungs: Sequence[str] | None = None) -> LadderPlan:
    """The full ladder of ``env_id`` (``protocol.full_ladder``, or ``rungs``) and its pairings."""
    n = protocol.players_for(env_id, num_players)
    chosen = list(rungs) if rungs is not None else protocol.full_ladder(env_id)
    return LadderPlan(env_id, n, chosen, protocol.ladder_pairings(chosen, n))


def warm_up(env_id: str, num_players: int, rungs: Sequence[str]) -> None:
    """Compile what the rungs play through (Numba kernels, the search) before a game is timed, so that a
    pairing's measured cost leaves out one-time compilation: a game of random players, then one decision of
    each rung at its first position. Nothing is recorded."""
    protocol.play_game(GameTask(env_id, num_players, "random", "random", 0, 0))
    rng = np.random.default_rng(0)
    episode = protocol.PairedEpisode(envs.make_game(env_id, num_players=num_players), rng, env_id=env_id)
    episode.reset(rng)
    state = episode.require_state()
    seat = state.current_player()
    for spec in rungs:
        protocol.build_agent(spec, env_id).act(observed_state(state, seat, rng), seat, rng)


def full_ladder(ids: Sequence[str], deals: int = protocol.FULL_LADDER_DEALS, out: str | Path | None = None,
                workers: int = 1, num_players: int | None = None, rungs: Sequence[str] | None = None,
                deals_for_slow: int | None = None, paired: bool = True, bootstrap: int = DEFAULT_BOOTSTRAP,
                reuse: Sequence[str | Path] = (), progress: bool = False, command: str = "",
                address: str | None = None, estimate: bool = False) -> dict[str, Any]:  # fmt: skip
    """Run (or resume) the full ladder of each id (``rungs``: these rungs instead); returns the result, also
    written under ``out``. First the first deal of every pairing is played (after ``warm_up``) and its CPU
    seconds per game measured; with ``deals_for_slow``, a pairing over ``protocol.SLOW_GAME_CPU_S`` plays
    that many deals instead of ``deals``. ``estimate``: stop there and return the estimate
    (``estimate_markdown``), writing no result; its games stay in ``games.jsonl`` for the full run."""
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    store = GameStore(out_dir / "games.jsonl" if out_dir is not None else None, reuse)
    plans = [ladder_plan(env_id, num_players, rungs) for env_id in ids]
    start = time.perf_counter()
    code = RunCode()
    first = [t for p in plans for t in p.first_deals(paired)]
    for p in plans:
        if any(t.key not in store for t in p.first_deals(paired)):
            warm_up(p.env_id, p.num_players, p.rungs)
    played = run_games(first, store, workers, progress, code, address)
    for p in plans:
        for pair in p.pairs:
            games = [store.records[t.key]["cpu_s"] for t in first if (t.env_id, t.focal, t.other) == (p.env_id, *pair)]
            p.cost[pair] = float(np.mean(games))
            if deals_for_slow is not None and deals_for_slow < deals and p.cost[pair] > protocol.SLOW_GAME_CPU_S:
                p.reduced.add(pair)
            p.deals[pair] = deals_for_slow if pair in p.reduced and deals_for_slow is not None else deals
    if estimate:
        rows = {p.env_id: p.rows() for p in plans}
        return {
            "protocol": PROTOCOL,
            "estimate": rows,
            "total_cpu_h": sum(r["cpu_h"] for id_rows in rows.values() for r in id_rows),
            "games_played": played,
            "games_reused": len(first) - played,
        }
    tasks = {p.env_id: pairing_tasks(p.env_id, p.num_players, p.deals, paired) for p in plans}
    every = [t for p in plans for t in tasks[p.env_id]]
    firsts = {t.key for t in first}
    played += run_games([t for t in every if t.key not in firsts], store, workers, progress, code, address)
    sections: dict[str, dict[str, Any]] = {}
    for p in plans:
        sections[p.env_id] = id_result(Plan(p.env_id, p.num_players, p.rungs, {}, tasks[p.env_id]), store, bootstrap, "random")[0]
        sections[p.env_id]["pairing_cost"] = p.rows()
    versions = protocol.software(code.files(ids, list(dict.fromkeys(r for p in plans for r in p.rungs))))
    result = {
        "protocol": PROTOCOL,
        "full_ladder": True,
        "command": command,
        "gameshelf": versions["gameshelf"],
        "software": versions,
        "code": {p.env_id: code.of_id(p.env_id, p.rungs) for p in plans},
        "deals_per_pairing": deals,
        "deals_for_slow": deals_for_slow,
        "slow_game_cpu_s": protocol.SLOW_GAME_CPU_S,
        "paired": paired,
        "bootstrap": bootstrap,
        "rating_scale": RATING_SCALE,
        "normalized_scale": NORMALIZED_SCALE,
        "ids": sections,
        "cost": {
            "cpu_s_of_games": {p.env_id: round(sum(store.records[t.key]["cpu_s"] for t in tasks[p.env_id]), 2) for p in plans},
            "cpu_per_decision": {p.env_id: act_cpu(store.records[t.key] for t in tasks[p.env_id]) for p in plans},
            "games_played": played,
            "games_reused": len(every) - played,
            "wall_s_this_run": round(time.perf_counter() - start, 1),
        },
    }
    if out_dir is not None:
        (out_dir / "result.json").write_text(json.dumps(result, indent=1) + "\n")
        (out_dir / "result.md").write_text(full_ladder_markdown(result))
    return result


def pairing_cost_rows(rows: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The table of each pairing's CPU seconds per game (its first deal), games and CPU hours, with the total;
    a pairing played with fewer deals for its cost says so."""
    lines = [
        "| game | pairing | CPU s per game | games planned | CPU hours (est.) |",
        "|---|---|---:|---:|---:|",
    ]
    for env_id, id_rows in rows.items():
        for r in id_rows:
            mark = f" ({r['deals']} deals: over {protocol.SLOW_GAME_CPU_S:g} CPU s a game)" if r["reduced"] else ""
            pairing = f"`{r['focal']}` vs `{r['other']}`{mark}"
            lines.append(f"| `{env_id}` | {pairing} | {r['cpu_s_per_game']:.2f} | {r['games']} | {r['cpu_h']:.2f} |")
    total = sum(r["cpu_h"] for id_rows in rows.values() for r in id_rows)
    games = sum(r["games"] for id_rows in rows.values() for r in id_rows)
    lines.append(f"| total | | | {games} | {total:.2f} |")
    return lines


def estimate_markdown(estimate: dict[str, Any]) -> str:
    """The table of ``full_ladder(..., estimate=True)``."""
    head = (
        f"Estimate of the full ladder (protocol `{estimate['protocol']}`): CPU seconds per game of each pairing's "
        f"first deal ({estimate['games_played']} games played now, {estimate['games_reused']} reused; the full run "
        "reuses them)."
    )
    return "\n".join([head, "", *pairing_cost_rows(estimate["estimate"])]) + "\n"


def full_ladder_markdown(result: dict[str, Any]) -> str:
    """``result.md`` of a full ladder: per id, its rungs rated on one scale, and each pairing's cost."""
    slow = result["deals_for_slow"]
    rule = (
        f"Pairings whose first deal cost over {result['slow_game_cpu_s']:g} CPU seconds a game play {slow} deals "
        f"(`--deals-for-slow {slow}`), marked below."
        if slow is not None
        else "Every pairing plays every deal (no `--deals-for-slow`)."
    )
    lines = [
        "# Full ladder",
        "",
        f"Protocol `{result['protocol']}` ({'paired deals' if result['paired'] else 'UNPAIRED games, for comparison only'}): "
        f"each rung against random, the heuristic and the rung below it, {result['deals_per_pairing']} deals per pairing. "
        f"{rule} Intervals from {result['bootstrap']} bootstrap replicates over deals. Reproduce: `{result['command']}`.",
        "",
        f"Ratings: {result['rating_scale']}. Normalized score: {result['normalized_scale']}.",
        "",
        *code_lines(result),
    ]
    for env_id, s in result["ids"].items():
        lines += [
            "",
            f"## `{env_id}`, {s['num_players']} players",
            "",
            *ladder_rows(s, None, {a: cpu_cell(result, env_id, a) for a in s["agents"]}),
            "",
            chance_line(s),
            "",
            "Pairings (CPU s per game measured on the first deal):",
            "",
            *pairing_cost_rows({env_id: s["pairing_cost"]}),
        ]
        if s.get("sweeps"):
            lines += ["", SWEEP_NOTE]
    return "\n".join(lines) + "\n"


# ---- markdown -------------------------------------------------------------------------------------------
def fmt(cell: dict[str, float] | None, digits: int = 2, scale: float = 1.0) -> str:
    """``value [lo, hi]``, or a dash when there is none."""
    if cell is None or not math.isfinite(cell.get("value", float("nan"))):
        return "-"
    v, lo, hi = (scale * cell[k] for k in ("value", "lo", "hi"))
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def ladder_rows(section: dict[str, Any], highlight: str | None = None, cpu: dict[str, str] | None = None) -> list[str]:
    """The table of an id's agents; ``cpu``: each agent's CPU ms per decision (``cpu_cell``)."""
    rows = [
        "| agent | rating (Elo, random = 0) [95%] | normalized [95%] | score vs random [95%] | score vs heuristic [95%] "
        "| CPU ms/decision |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    order = sorted(section["agents"], key=lambda a: -section["ratings"][a]["value"])
    for a in order:
        name = f"**{a}**" if a == highlight else a
        versus = section["versus"].get(a, {})
        rows.append(
            f"| {name} | {rating_cell(section, a)} | {fmt(section['normalized'][a])} | "
            f"{fmt(versus.get('random'))} | {fmt(versus.get('heuristic'))} | {(cpu or {}).get(a, '-')} |"
        )
    return rows


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def text_play_rows(section: dict[str, Any]) -> list[str]:
    """The table of the agents that play through text: their score beside what their replies cost and how
    often they were invalid."""
    rows = [
        "Text play (invalid rate: invalid replies over replies, re-asks included; fallback rate: random moves "
        "played after the last re-ask, over decisions):",
        "",
        "| agent | rating [95%] | normalized [95%] | decisions | calls | tokens in / out | tokens per decision | invalid "
        "| invalid rate | fallbacks | fallback rate |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for agent, t in section["text_play"].items():
        score = f"{rating_cell(section, agent)} | {fmt(section['normalized'].get(agent))}"
        tokens = "-" if t["tokens_per_decision"] is None else f"{t['tokens_per_decision']:.1f}"
        rows.append(
            f"| {agent} | {score} | {t['moves']} | {t['calls']} | {t['prompt_tokens']} / {t['completion_tokens']} | "
            f"{tokens} | {t['invalid']} | {_rate(t['invalid_rate'])} | "
            f"{t['fallbacks']} | {_rate(t['fallback_rate'])} |"
        )
    return rows


def chance_line(section: dict[str, Any]) -> str:
    c = section["chance"]
    if not c["replays"]:
        return "Paired deals: no replays (unpaired run)."
    if c["replayed_fraction"] is None:
        return "Paired deals: the games had no chance events; a deal differs only by the agents' generators."
    return (
        f"Paired deals: of {c['replays']} replayed games, {c['followed_to_end']} followed the recorded chance to the end, "
        f"{c['ran_out']} ran past its end and {c['impossible']} met an outcome not possible any more; on average "
        f"{100 * (c['replayed_fraction'] or 0):.0f}% of a replay's chance outcomes came from the record."
    )


def code_lines(result: dict[str, Any]) -> list[str]:
    """What made a result (version 2): the software, and how many games were played and reused."""
    versions, cost = result.get("software"), result.get("cost", {})
    if not versions:
        return ["Made before protocol version 2: no record of the code, no CPU time per decision."]
    commit = f" at commit `{versions['commit']}`" if versions.get("commit") else ""
    return [
        f"Made by gameshelf {versions['gameshelf']}{commit}, Python {versions['python']}, NumPy {versions['numpy']}, "
        f"Numba {versions['numba'] or '-'}; the digests of the code that decided play are in result.json (`code`). "
        f"Games: {cost.get('games_played', 0)} played by this run, {cost.get('games_reused', 0)} reused from earlier runs "
        "made by the same code. CPU ms/decision: CPU time inside the agent's `act` over its decisions "
        "(the machine's, not part of the numbers).",
    ]


def result_markdown(result: dict[str, Any]) -> str:
    agent = result["agent"]
    mean = result["mean_normalized"]
    lines = [
        f"# Benchmark of `{agent}`",
        "",
        f"Protocol `{result['protocol']}` ({'paired deals' if result['paired'] else 'UNPAIRED games, for comparison only'}), "
        f"{result['games_per_pairing']} games per pairing asked (rounded up to whole deals), intervals from "
        f"{result['bootstrap']} bootstrap replicates over deals. Reproduce: `{result['command']}`.",
        "",
        f"Ratings: {result['rating_scale']}. Normalized score: {result['normalized_scale']}.",
        "",
        f"**Mean normalized score of `{agent}`** over {len(mean['ids'])} game(s): {fmt(mean)}.",
        "",
        *code_lines(result),
        "",
        "| game | players | games per pairing | rating [95%] | normalized [95%] | vs random | vs heuristic | CPU ms/decision |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for env_id, s in result["ids"].items():
        v = s["versus"].get(agent, {})
        lines.append(
            f"| `{env_id}` | {s['num_players']} | {s['games_per_pairing']} | {rating_cell(s, agent)} | "
            f"{fmt(s['normalized'][agent])} | {fmt(v.get('random'))} | {fmt(v.get('heuristic'))} | "
            f"{cpu_cell(result, env_id, agent)} |"
        )
    for env_id, s in result["ids"].items():
        seeds = s["deal_seeds"]
        digests = result.get("code", {}).get(env_id)
        lines += [
            "",
            f"## `{env_id}`, {s['num_players']} players",
            "",
            f"{s['deals']} deals (seeds {seeds[0]}, {seeds[1] if len(seeds) > 1 else ''}... in result.json), "
            f"{s['games_per_pairing']} games per pairing, {s['truncated']} games cut off at the length limit."
            + (f" Code digests: game `{digests['game']}`, core `{digests['core']}`." if digests else ""),
            "",
            *ladder_rows(s, agent, {a: cpu_cell(result, env_id, a) for a in s["agents"]}),
            "",
            chance_line(s),
        ]
        if s.get("text_play"):
            lines += ["", *text_play_rows(s)]
        if s.get("sweeps"):
            lines += ["", SWEEP_NOTE]
        if s["left_out"]:
            lines += ["", "Left out of the ladder: " + "; ".join(f"`{k}`: {v}" for k, v in s["left_out"].items())]
    return "\n".join(lines) + "\n"


# ---- command line ---------------------------------------------------------------------------------------
def slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec).strip("_") or "agent"


def default_out(agent: str) -> Path:
    """Where ``gameshelf benchmark AGENT`` writes without ``--out``: ``runs/benchmark/<agent>``."""
    return Path("runs") / "benchmark" / slug(agent)


def run_folder(command: str) -> Path:
    """A new folder of ``runs/`` for one run of ``command`` (leaderboard, analysis): ``runs/<command>/<time>``."""
    return Path("runs") / command / time.strftime("%Y%m%d-%H%M%S")


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="gameshelf benchmark",
        description="Run an agent through the benchmark protocol against the baseline ladder (docs/protocol.md).",
    )
    parser.add_argument("agent", nargs="?", help=f"the agent: {protocol.AGENT_FORMS}")
    parser.add_argument(
        "--full-ladder",
        action="store_true",
        help="play each id's full ladder (protocol.full_ladder; --ladder: these rungs) instead of an agent: each rung "
        "against random, the heuristic and the rung below it",
    )
    parser.add_argument(
        "--deals",
        type=int,
        default=None,
        help=f"with --full-ladder: deals per pairing (default {protocol.FULL_LADDER_DEALS})",
    )
    parser.add_argument(
        "--deals-for-slow",
        type=int,
        default=None,
        help=f"with --full-ladder: pairings whose first deal cost over {protocol.SLOW_GAME_CPU_S:g} CPU seconds a game "
        "play this many deals (recorded in the result); default: every pairing plays every deal",
    )
    parser.add_argument(
        "--estimate",
        action="store_true",
        help="with --full-ladder: play the first deal of every pairing and print its CPU seconds per game and the "
        "estimated CPU hours of the full run, writing no result (the games are kept and reused)",
    )
    parser.add_argument("--ids", nargs="+", default=None, help="environment ids (default: every registered game)")
    parser.add_argument(
        "--games", type=int, default=None, help=f"games per pairing (default {protocol.DEFAULT_GAMES}; not with --full-ladder)"
    )
    parser.add_argument("--players", type=int, default=None, help="player count (default: the protocol's count of each id)")
    parser.add_argument(
        "--workers", type=int, default=None, help="games played in parallel processes on this machine (default 1)"
    )
    parser.add_argument(
        "--address",
        default=None,
        help="play the games as Ray tasks on the Ray cluster at ADDRESS (HOST:PORT, ray://HOST:10001, or auto: the "
        "cluster RAY_ADDRESS names, else this machine's), one CPU each, instead of on this machine; the same games "
        "and numbers as a local run. Needs the rllib extra (docs/scaling.md)",
    )
    parser.add_argument("--out", default=None, help="output folder (default runs/benchmark/<agent>, runs/benchmark/full-ladder)")
    parser.add_argument(
        "--model", default=None, help="a saved model or network file (PATH, PATH.npz) to add to the ladder as model:PATH"
    )
    parser.add_argument("--ladder", nargs="+", default=None, help="replace the ladder by these agents (studies, tests)")
    parser.add_argument(
        "--unpaired", action="store_true", help="independent chance in every game (to measure what pairing gains)"
    )
    parser.add_argument(
        "--bootstrap", type=int, default=DEFAULT_BOOTSTRAP, help=f"bootstrap replicates (default {DEFAULT_BOOTSTRAP})"
    )
    parser.add_argument(
        "--reuse",
        nargs="+",
        default=(),
        help="games.jsonl files of earlier runs whose games to reuse (those made by the same code; others are played again)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar (there is none unless the output is a terminal)")
    return parser


def check_full_ladder_options(args: Any) -> None:
    """``UserError`` for options that do not go with ``--full-ladder`` or need it; fills in ``--deals``."""
    if not args.full_ladder:
        for name in ("deals", "deals_for_slow", "estimate"):
            if getattr(args, name) not in (None, False):
                raise UserError(f"--{name.replace('_', '-')} is an option of --full-ladder")
        return
    if args.agent is not None:
        raise UserError(f"--full-ladder plays the ladder's rungs against each other: give no agent (not {args.agent!r})")
    for name in ("games", "model"):
        if getattr(args, name) is not None:
            raise UserError(f"--{name} is not an option of --full-ladder (use --deals, or --ladder for other rungs)")
    args.deals = protocol.FULL_LADDER_DEALS if args.deals is None else args.deals
    if args.deals < 1:
        raise UserError(f"--deals must be at least 1, not {args.deals}")
    if args.deals_for_slow is not None and not 1 <= args.deals_for_slow < args.deals:
        raise UserError(f"--deals-for-slow must be at least 1 and below --deals ({args.deals}), not {args.deals_for_slow}")


def check_agent(spec: str, env_id: str) -> None:
    try:
        protocol.build_agent(spec, env_id)
    except (ValueError, FileNotFoundError, ImportError) as err:
        raise UserError(f"agent {spec!r}: {err}") from None


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(args_list)
    check_full_ladder_options(args)
    if args.agent is None and not args.full_ladder:
        raise UserError("give the agent to benchmark, or --full-ladder (gameshelf leaderboard RESULT... writes the leaderboard)")
    if args.address is not None and args.workers is not None:
        raise UserError("--workers is for this machine; with --address every CPU of the cluster plays games")
    if args.address is not None:
        from gameshelf.training.benchmark.cluster import require_ray

        require_ray()
    args.workers = 1 if args.workers is None else args.workers
    args.games = protocol.DEFAULT_GAMES if args.games is None else args.games
    for name in ("games", "workers", "bootstrap"):
        if getattr(args, name) < 1:
            raise UserError(f"--{name} must be at least 1, not {getattr(args, name)}")
    ids = args.ids or envs.registered_ids()
    for env_id in ids:
        check_env_id(env_id, args.players)
        n = protocol.players_for(env_id, args.players)
        if n < 2:
            raise UserError(f"{env_id}: the protocol needs at least 2 players (give --players)")
    model = f"model:{args.model}" if args.model else None
    for env_id in ids:
        if args.full_ladder:
            try:
                specs = ladder_plan(env_id, args.players, args.ladder).rungs
            except ValueError as err:
                raise UserError(str(err)) from None
        else:
            specs = [args.agent, *(args.ladder or protocol.ladder(env_id, model)[0])]
        for spec in dict.fromkeys(specs):
            check_agent(spec, env_id)
    out = check_writable_dir(
        args.out or (Path("runs") / "benchmark" / "full-ladder" if args.full_ladder else default_out(args.agent))
    )
    command = reproduce_command("gameshelf benchmark", args_list)
    progress = show_progress(args.quiet)
    try:
        with stop_on_signals():
            if args.full_ladder:
                result = full_ladder(
                    ids, args.deals, out, args.workers, args.players, args.ladder, args.deals_for_slow,
                    not args.unpaired, args.bootstrap, args.reuse, progress, command, args.address, args.estimate,
                )  # fmt: skip
            else:
                result = benchmark(
                    args.agent, ids, args.games, out, args.workers, args.players, args.ladder, model,
                    not args.unpaired, args.bootstrap, args.reuse, progress, command, args.address,
                )  # fmt: skip
    except KeyboardInterrupt as err:  # Ctrl-C, or Stopped: SIGTERM, SIGHUP
        signum = err.signum if isinstance(err, Stopped) else signal.SIGINT
        kept = GameStore(out / "games.jsonl", report=False)
        with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
            print(
                f"\ninterrupted ({signal.Signals(signum).name}): {len(kept)} games kept in {out / 'games.jsonl'}; "
                "run the same command again to resume",
                file=sys.stderr,
            )
        raise SystemExit(128 + signum) from None
    except GameFailed as err:
        print(f"gameshelf benchmark: a game failed: {err}", file=sys.stderr)
        raise SystemExit(1) from None
    if args.estimate:
        print(estimate_markdown(result))
        print(f"games: {out / 'games.jsonl'} (run the same command without --estimate to play the rest)")
        return 0
    if args.full_ladder:
        print(full_ladder_markdown(result))
        print(f"results: {out / 'result.json'}, {out / 'result.md'}, games: {out / 'games.jsonl'}")
        return 0
    print(result_markdown(result))
    for env_id, wait in result["cost"].get("text_wait_s_of_games", {}).items():
        for spec, seconds in wait.items():
            calls = result["ids"][env_id]["text_play"][spec]["calls"]
            print(f"{env_id}: {spec} waited {seconds:.1f} s for {calls} replies")
    print(f"results: {out / 'result.json'}, {out / 'result.md'}, games: {out / 'games.jsonl'}")
    return 0


if __name__ == "__main__":
    run(main, prog="gameshelf benchmark")
