"""What the server holds for its clients (games and replays, by token) and the workers agents move on.

**Holding.** A ``Shelf`` keeps things by unguessable tokens: a game has one token per human seat and one to
watch, a replay one. It evicts whole things, never a single token, least recently used first, and only
*idle* ones: a thing used (any request on any of its tokens) within ``ACTIVE_SECONDS`` is never dropped to
make room. When every thing on the shelf is in use, a new one is refused (503); when one client (one
address) holds ``per_client`` things already, its own least recently used idle one makes room, or the new
one is refused (429). Nothing idle for ``EXPIRE_SECONDS`` is kept. So no client can make the server forget
a game someone is playing by starting many others.

**Workers.** Agent moves that search, hints from searching agents, and record replays run on small thread
pools with a bounded queue (``Workers``), never on the threads that answer requests, so a slow move delays
no other game's page; when the queue is full a new job is refused (503) before anything changes. The
workers take clients in turn, and each client's games in turn, one agent move (or hint) at a time, and a
game has at most one hint waiting: no client or game delays another game's agent by more than about one
search.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from gameshelf.web.errors import Busy, NotFound, TooMany, WebError
from gameshelf.web.seats import Players
from gameshelf.web.session import Replay, Session, make_game

MAX_GAMES = 256
"""Games held at once (each with all its seat links)."""
GAMES_PER_CLIENT = 64
"""Games one client address may hold at once."""
MAX_REPLAYS = 64
REPLAYS_PER_CLIENT = 16
ACTIVE_SECONDS = 30 * 60
"""A game or replay used within this time is in use: never dropped to make room for another."""
EXPIRE_SECONDS = 6 * 3600
"""A game or replay not used for this long is dropped."""
AGENT_THREADS = 1
"""Threads for searching agents. Python code holds the interpreter lock, so a second searching thread adds
no speed, and two such threads starve the thread that answers requests (measured: a page view took a
median 71 ms with two, 2 ms with one, while ten 5-second searches waited)."""
MAX_JOBS = 64
"""Agent jobs queued or running at once; more are refused with 503."""


# ---- workers -----------------------------------------------------------------------------------------
@dataclass(eq=False)
class Job:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    future: Future[Any] = field(default_factory=Future)


class Workers:
    """A small thread pool with a bounded number of jobs queued or running, taken in turns.

    Each job names its ``owner``: (client, game). Jobs wait in one queue per game, games in one queue per
    client, and the workers take the clients in turn and each client's games in turn. So a client with many
    jobs queued (many games, or many moves in one) delays another client's job by at most one of its own.
    """

    def __init__(self, threads: int = AGENT_THREADS, max_jobs: int = MAX_JOBS, name: str = "gameshelf-agent") -> None:
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)
        self.max_jobs = max_jobs
        self._lock = threading.Lock()
        self.pending = 0
        self._queues: OrderedDict[Hashable, OrderedDict[Hashable, deque[Job]]] = OrderedDict()
        """client -> game -> its jobs; the next client and game to take are first."""

    def check_room(self) -> None:
        """Raise ``Busy`` (503) when the queue is full (call before changing anything)."""
        with self._lock:
            if self.pending >= self.max_jobs:
                raise Busy(f"the server is busy: {self.pending} agent moves are waiting; try again in a moment")

    def submit(self, fn: Callable[..., Any], *args: Any, owner: tuple[Hashable, Hashable] = ("", None)) -> Future[Any]:
        """Queue ``fn(*args)`` behind ``owner``'s (client, game) earlier jobs; its future."""
        job = Job(fn, args)
        client, game = owner
        with self._lock:
            self.pending += 1
            self._queues.setdefault(client, OrderedDict()).setdefault(game, deque()).append(job)
        try:
            self._pool.submit(self._run_next)  # one run per job: each takes the next job in turn
        except RuntimeError:  # shut down
            self._cancel_queued()
            raise Busy("the server is stopping") from None
        return job.future

    def _take(self) -> Job | None:
        """Under the lock: the first job of the first game of the first client, which then go last."""
        if not self._queues:
            return None
        client, games = next(iter(self._queues.items()))
        game, jobs = next(iter(games.items()))
        job = jobs.popleft()
        if jobs:
            games.move_to_end(game)
        else:
            del games[game]
        if games:
            self._queues.move_to_end(client)
        else:
            del self._queues[client]
        return job

    def _run_next(self) -> None:
        with self._lock:
            job = self._take()
        if job is None or not job.future.set_running_or_notify_cancel():
            return
        try:
            result = job.fn(*job.args)
        except BaseException as err:
            self._done()
            job.future.set_exception(err)
        else:
            self._done()
            job.future.set_result(result)

    def _done(self) -> None:
        with self._lock:
            self.pending -= 1

    def _cancel_queued(self) -> None:
        with self._lock:
            jobs = [job for games in self._queues.values() for queue in games.values() for job in queue]
            self._queues.clear()
            self.pending -= len(jobs)
        for job in jobs:
            job.future.cancel()

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._cancel_queued()


# ---- the shelf ---------------------------------------------------------------------------------------
@dataclass(eq=False)
class Held:
    """One thing on a shelf: its value, the client that made it, its tokens (token -> key) and last use."""

    value: Any
    client: str
    used: float
    tokens: dict[str, Hashable] = field(default_factory=dict)


class Shelf:
    """Things held by token for clients; see the module docstring for what is dropped and when."""

    def __init__(
        self,
        what: str,
        capacity: int,
        per_client: int,
        active_seconds: float = ACTIVE_SECONDS,
        expire_seconds: float = EXPIRE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.what = what
        self.capacity = capacity
        self.per_client = per_client
        self.active_seconds = active_seconds
        self.expire_seconds = expire_seconds
        self.clock = clock
        self.lock = threading.Lock()
        self.held: OrderedDict[int, Held] = OrderedDict()  # least recently used first
        self.tokens: dict[str, tuple[Held, Hashable]] = {}

    def __len__(self) -> int:
        return len(self.held)

    def make_room(self, client: str) -> None:
        """Drop what must go so that ``client`` may add one more thing; ``TooMany``/``Busy`` if nothing may."""
        with self.lock:
            now = self.clock()
            self._expire(now)
            mine = [h for h in self.held.values() if h.client == client]
            if len(mine) >= self.per_client:
                idle = self._idle(mine, now)
                if idle is None:
                    minutes = self.active_seconds / 60
                    raise TooMany(
                        f"you hold {len(mine)} {self.what} used in the last {minutes:g} minutes, the most one client may; "
                        f"finish or leave one (after {minutes:g} minutes unused it makes room)"
                    )
                self._drop(idle)
            if len(self.held) >= self.capacity:
                idle = self._idle(self.held.values(), now)
                if idle is None:
                    raise Busy(f"the server holds {len(self.held)} {self.what} in use, all it can; try again later")
                self._drop(idle)

    def add(self, value: Any, client: str, keys: Sequence[Hashable]) -> dict[Hashable, str]:
        """Hold ``value`` with one new token per key; call ``make_room`` first."""
        held = Held(value, client, self.clock())
        with self.lock:
            for key in keys:
                token = secrets.token_urlsafe(16)
                held.tokens[token] = key
                self.tokens[token] = (held, key)
            self.held[id(held)] = held
            return {key: token for token, key in held.tokens.items()}

    def get(self, token: str) -> tuple[Any, Hashable]:
        """The value and key of ``token`` (and it is used now); ``NotFound`` for an unknown or expired one."""
        with self.lock:
            now = self.clock()
            found = self.tokens.get(token)
            if found is not None and now - found[0].used > self.expire_seconds:
                self._drop(found[0])
                found = None
            if found is None:
                raise NotFound(
                    f"no such {self.what[:-1]} (the link is wrong, it was unused for {self.expire_seconds / 3600:g} hours, "
                    "or the server was restarted)"
                )
            held, key = found
            held.used = now
            self.held.move_to_end(id(held))
            return held.value, key

    def _idle(self, candidates: Any, now: float) -> Held | None:
        for held in candidates:  # least recently used first
            if now - held.used >= self.active_seconds:
                return held
        return None

    def _expire(self, now: float) -> None:
        while self.held:
            held = next(iter(self.held.values()))
            if now - held.used <= self.expire_seconds:
                break
            self._drop(held)

    def _drop(self, held: Held) -> None:
        self.held.pop(id(held), None)
        for token in held.tokens:
            self.tokens.pop(token, None)
        close = getattr(held.value, "close", None)
        if close is not None:
            close()


# ---- the store ---------------------------------------------------------------------------------------
class Store:
    """The games and replays of one server, its players (models, trust) and its agent workers."""

    def __init__(
        self,
        players: Players | None = None,
        workers: Workers | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_games: int = MAX_GAMES,
        games_per_client: int = GAMES_PER_CLIENT,
    ) -> None:
        self.players = players or Players()
        self.workers = workers
        self.games = Shelf("games", max_games, games_per_client, clock=clock)
        self.replays = Shelf("replays", MAX_REPLAYS, REPLAYS_PER_CLIENT, clock=clock)

    def create(self, request: Any, client: str = "local") -> dict[str, Any]:
        if not isinstance(request, dict):
            raise WebError("expected a JSON object with env_id, num_players, options, seats and seed")
        unknown = sorted(str(k)[:40] for k in set(request) - {"env_id", "num_players", "options", "seats", "seed"})
        if unknown:
            raise WebError(f"unknown field(s) {unknown[:10]}; fields: env_id, num_players, options, seats, seed")
        game = make_game(request.get("env_id"), request.get("num_players"), request.get("options") or {})
        seats = request.get("seats")
        if seats is None:
            seats = [self._default(request["env_id"], 0)] + [self._default(request["env_id"], 1)] * (game.info.num_players - 1)
        self.games.make_room(client)
        session = Session(request["env_id"], game, seats, request.get("seed"), self.players, self.workers, client)
        keys: list[int | None] = [*session.humans, None]
        tokens = self.games.add(session, client, keys)
        return {"seats": {str(seat): tokens[seat] for seat in session.humans}, "watch": tokens[None]}

    @staticmethod
    def _default(env_id: str, seat: int) -> str:
        from gameshelf import envs

        return "human" if seat == 0 else ("heuristic" if envs.spec(env_id).load_heuristic() is not None else "random")

    def get(self, token: str) -> tuple[Session, int | None]:
        session, seat = self.games.get(token)
        return session, seat  # type: ignore[return-value]

    def add_replay(self, text: str | bytes, client: str = "local") -> str:
        replay = Replay.from_text(text)
        self.replays.make_room(client)
        return self.replays.add(replay, client, [None])[None]

    def replay(self, token: str) -> Replay:
        replay, _ = self.replays.get(token)
        return replay  # type: ignore[no-any-return]

    def close(self) -> None:
        if self.workers is not None:
            self.workers.shutdown()
