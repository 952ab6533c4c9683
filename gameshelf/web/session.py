"""Games and replays held by the web app, independent of the web framework (so they test without a server).

A ``Session`` is one game: an ``Episode`` with a person or an agent in each seat. What it hands out for a
seat (``view(seat)``) holds only what that seat may know: its own text (``seat_text``), its own picture
(``render_seat_image``) with the boxes the last move changed in it (``changed_boxes``: its own pictures
before and after that move), its legal moves on its turn, and a move log in which another seat's move, or a
chance outcome, is named only when the seat can tell it apart from every other move that would have been
named differently (the seat's observation and text after it differ); otherwise it reads ``(hidden)``.
Agents see ``observed_state`` (hidden information redealt), as in evaluation and terminal play.

Every change bumps ``version``; a move, undo or step names the version it was chosen at, and a stale one
is refused (``Conflict``), so a second tab or a double click cannot play into a position it did not see.

Agents that search (``mcts:...``) move on the server's agent workers (``store.Workers``: one move a job,
games taking turns), never in a request: while they do, ``thinking`` is true, the session lock is held
only to read the position and to apply a move (never during a search), and views of the game answer at
once. Other agents (random,
heuristic, a model: a few milliseconds a move) reply within the request. Without workers (tests, scripts)
every agent moves within the call.

Limits: a game may last at most ``MAX_GAME_LENGTH`` moves (options that lengthen a game are refused
beyond it), a record replayed here at most ``MAX_RECORD_ACTIONS`` actions.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import secrets
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from gameshelf import envs
from gameshelf.envs.core.episode import Episode, observed_state
from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, IllegalActionError, State
from gameshelf.envs.core.record import GameRecord, RecordError
from gameshelf.envs.core.rendering import click_targets, render_seat_image
from gameshelf.envs.records import read_record
from gameshelf.training.agents.base import Agent
from gameshelf.training.agents.network_agent import has_reference
from gameshelf.web.errors import Conflict, NotFound, TooMany, WebError
from gameshelf.web.seats import HUMAN, Players, Seat
from gameshelf.wrappers.text import LogEntry, log_entry

if TYPE_CHECKING:
    from gameshelf.web.store import Workers

logger = logging.getLogger("gameshelf.web")

MAX_GAME_LENGTH = 20_000
"""The longest game (``info.max_game_length``, decisions) the server plays: the longest default of any game."""
MAX_RECORD_ACTIONS = 20_000
"""The most actions (chance included) in a record replayed by the server."""
MAX_SEED = 2**63 - 1
CHECKPOINT_EVERY = 32


# ---- games on offer -----------------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def game_catalogue() -> list[dict[str, Any]]:
    """Every registered id with its player counts and options (for the setup form)."""
    out = []
    for env_id in envs.registered_ids():
        spec = envs.spec(env_id)
        options = []
        for name, opt in spec.load_game_class().OPTIONS.items():
            if name == "num_players":
                continue
            options.append(
                {
                    "name": name,
                    "default": _plain(spec.kwargs.get(name, opt.default)),
                    "choices": None if opt.choices is None else _plain(list(opt.choices)),
                    "allowed": opt.allowed,
                    "doc": opt.doc,
                }
            )
        out.append(
            {
                "id": env_id,
                "description": spec.description,
                "player_counts": list(spec.player_counts),
                "heuristic": spec.load_heuristic() is not None,
                "reference": has_reference(env_id),
                "options": options,
            }
        )
    return out


def _picture(state: State, seat: int | None) -> np.ndarray:
    """What ``seat`` sees of ``state`` (None: the public picture)."""
    return state.render_image() if seat is None else render_seat_image(state, seat)


CHANGE_CELL = 12
"""Pictures are compared in squares of this many pixels."""
MAX_CHANGES = 24
"""More changed regions than this (a new round, a new deal) are not pointed at."""


def changed_boxes(before: np.ndarray, after: np.ndarray) -> list[list[int]]:
    """The regions ``[x0, y0, x1, y1]`` where picture ``after`` differs from ``before``: squares of
    ``CHANGE_CELL`` pixels holding a changed pixel, joined where they touch. None for pictures of different
    sizes, more than ``MAX_CHANGES`` regions, or a quarter of the picture changed."""
    if before.shape != after.shape:
        return []
    height, width = after.shape[:2]
    diff = np.abs(before[..., :3].astype(np.int16) - after[..., :3].astype(np.int16)).sum(axis=2) > 60
    rows, cols = -(-height // CHANGE_CELL), -(-width // CHANGE_CELL)
    padded = np.zeros((rows * CHANGE_CELL, cols * CHANGE_CELL), dtype=bool)
    padded[:height, :width] = diff
    cells = np.asarray(padded.reshape(rows, CHANGE_CELL, cols, CHANGE_CELL).any(axis=(1, 3)))
    if cells.sum() > cells.size / 4:  # most of the picture changed: nothing to point at
        return []
    boxes: list[list[int]] = []
    for r, c in zip(*np.nonzero(cells), strict=True):  # each group of touching cells, one box
        if not cells[r, c]:
            continue
        box, stack = [c, r, c, r], [(r, c)]
        cells[r, c] = False
        while stack:
            y, x = stack.pop()
            box = [min(box[0], x), min(box[1], y), max(box[2], x), max(box[3], y)]
            for ny in range(max(y - 1, 0), min(y + 2, rows)):
                for nx in range(max(x - 1, 0), min(x + 2, cols)):
                    if cells[ny, nx]:
                        cells[ny, nx] = False
                        stack.append((ny, nx))
        boxes.append(box)
        if len(boxes) > MAX_CHANGES:
            return []
    return [
        [
            int(x0) * CHANGE_CELL,
            int(y0) * CHANGE_CELL,
            min((int(x1) + 1) * CHANGE_CELL, width),
            min((int(y1) + 1) * CHANGE_CELL, height),
        ]
        for x0, y0, x1, y1 in _merged(boxes)
    ]


def _merged(boxes: list[list[int]]) -> list[list[int]]:
    """Boxes (inclusive cell ranges) that overlap joined into one, until none do."""
    out: list[list[int]] = []
    for box in boxes:
        while True:
            hit = next((o for o in out if box[0] <= o[2] and o[0] <= box[2] and box[1] <= o[3] and o[1] <= box[3]), None)
            if hit is None:
                break
            out.remove(hit)
            box = [min(box[0], hit[0]), min(box[1], hit[1]), max(box[2], hit[2]), max(box[3], hit[3])]
        out.append(box)
    return out


def png_data_url(image: np.ndarray) -> str:
    buf = io.BytesIO()
    Image.fromarray(np.asarray(image, dtype=np.uint8)).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def make_game(env_id: Any, num_players: Any, options: Any) -> Game:
    """The game for a setup request; unknown ids, player counts and options raise ``WebError``.

    Options that would let a game last more than ``MAX_GAME_LENGTH`` moves are refused.
    """
    if not isinstance(env_id, str):
        raise WebError(f"env_id must be the id of a game (a string), got {shown(env_id)}")
    if env_id not in envs.registered_ids():
        raise NotFound(f"unknown game {shown(env_id)}; known games: {', '.join(envs.registered_ids())}")
    counts = envs.spec(env_id).player_counts
    if num_players is None:
        num_players = counts[0]
    if not isinstance(num_players, int) or isinstance(num_players, bool) or num_players not in counts:
        raise WebError(f"{env_id} is played by {', '.join(map(str, counts))} players, not {shown(num_players)}")
    if not isinstance(options, dict):
        raise WebError("options must be an object of option values")
    if "num_players" in options:
        raise WebError("give the player count as num_players, not as an option")
    try:
        game = envs.make_game(env_id, num_players=num_players, **options)
    except (ValueError, TypeError) as err:
        raise WebError(f"{env_id}: {_short(str(err))}") from None
    check_length(game, env_id, options)
    return game


def check_length(game: Game, env_id: str, options: dict[str, Any]) -> None:
    """Refuse a game that may last more than ``MAX_GAME_LENGTH`` moves, naming the options that lengthen it."""
    length = game.info.max_game_length
    if length > MAX_GAME_LENGTH:
        known = type(game).OPTIONS
        names = [k for k in options if k in known and known[k].choices is None and k != "num_players"]
        which = f" (lower {', '.join(names)})" if names else ""
        raise WebError(
            f"{env_id}: with these options a game may last {shown(length)} moves; this server plays games of at most "
            f"{MAX_GAME_LENGTH}{which}"
        )


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def shown(value: Any) -> str:
    """A short ``repr`` of a value from a request, for an error message (long ones are cut, not echoed)."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return repr(value) if abs(value) < 10**15 else f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, (float, str)):
        return _short(repr(value), 60)
    return f"a JSON {'list' if isinstance(value, list) else 'object' if isinstance(value, dict) else type(value).__name__}"


# ---- one game -----------------------------------------------------------------------------------------
class Session:
    """One game in the browser: ``seats[i]`` is ``"human"`` or an agent name (``seats.Players`` reads it)."""

    def __init__(
        self,
        env_id: str,
        game: Game,
        seats: list[str],
        seed: int | None = None,
        players: Players | None = None,
        workers: Workers | None = None,
        client: str = "local",
    ) -> None:
        n = game.info.num_players
        if not isinstance(seats, list) or len(seats) != n:
            got = f"{len(seats)}" if isinstance(seats, list) else shown(seats)
            raise WebError(f"{env_id} with {n} players needs {n} seats, got {got}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED):
            raise WebError(f"seed must be a non-negative integer below 2**63 or absent, got {shown(seed)}")
        self.players = players or Players()
        parsed: list[Seat] = [self.players.parse(name) for name in seats]
        self.env_id = env_id
        self.game = game
        self.seats = [s.name for s in parsed]
        self.agents: dict[int, Agent] = {i: self.players.build(s, env_id) for i, s in enumerate(parsed) if s.kind != HUMAN}
        self.hurry_event = threading.Event()
        """Set by ``hurry``: the searching agent plays its best move so far now."""
        for agent in self.agents.values():
            if hasattr(agent, "hurry"):
                agent.hurry = self.hurry_event
        self.humans = [i for i, s in enumerate(parsed) if s.kind == HUMAN]
        self.slow = any(s.slow for s in parsed)
        self.workers = workers if self.slow else None
        self.owner = (client, self)
        """Its jobs' place on the workers: the client that started the game, and the game."""
        self.hint_job: Future[dict[str, Any]] | None = None
        self.episode = Episode(game, env_id=env_id)
        self.episode.reset(np.random.default_rng(seed))
        self.lock = threading.Lock()
        self.version = 0
        self.thinking = False
        """Agents are moving on the workers (or queued to); moves, undos and steps wait until they are done."""
        self.job: Future[None] | None = None
        self.failure: str | None = None
        self.closed = False
        self.undo_points: dict[int, list[int]] = {seat: [] for seat in self.humans}
        self.log: list[LogEntry] = []
        self._shadow = game.new_initial_state()
        self._image_cache: dict[tuple[int, int | None], tuple[str, list[int], list[list[int]]]] = {}
        self._before: State | None = None
        """The position before the last move (a person's or an agent's; None at the start and after an undo)."""
        self._sync_log()
        self._start()

    def _start(self) -> None:
        """Let the agents play up to the first person's turn (a game with no person waits for ``step``);
        with a full queue of agent jobs the game is not made (``Busy``)."""
        with self.lock:
            if self.humans and self._agent_to_move():
                if self.workers is not None:
                    self.workers.check_room()
                self._agents_move(None)

    def close(self) -> None:
        """The game was dropped from the store: a running agent job stops after its current move."""
        self.closed = True

    @property
    def state(self) -> State:
        return self.episode.require_state()

    # ---- moves ----------------------------------------------------------------------------------------
    def _check_version(self, version: Any) -> None:
        if self.thinking:
            raise Conflict("the agents are still moving; wait for them (the page shows each of their moves)")
        if version != self.version:
            raise Conflict(
                f"the position changed since this page loaded it (version {shown(version)}, now {self.version}); "
                "the page has been refreshed, choose again"
            )

    def _agent_to_move(self) -> bool:
        return not self.episode.done and self.state.current_player() not in self.humans

    def _agents_move(self, limit: int | None) -> None:
        """Under the lock: agents move until a person is to move, the game is over or ``limit`` moves are made.

        Searching agents run as a job on the workers (``thinking`` until it ends); others move right here.
        """
        if self.workers is None:
            moved = 0
            while self._agent_to_move() and (limit is None or moved < limit):
                seat = self.state.current_player()
                action = self.agents[seat].act(observed_state(self.state, seat, self.episode.rng), seat, self.episode.rng)
                self._before = self.state.clone()
                self.episode.step(action)
                self._sync_log()
                moved += 1
            return
        self.thinking = True
        self.job = self.workers.submit(self._agent_job, limit, owner=self.owner)

    def _agent_job(self, limit: int | None) -> None:
        """One agent move on a worker: the lock is held to read the position and to apply, never to search.
        While more agent moves are due (``limit``: at most that many) the next is queued as a new job, so
        other games take their turns on the workers between this game's moves."""
        seat = -1
        try:
            with self.lock:
                if self.closed or not self._agent_to_move() or limit == 0:
                    self.thinking = False
                    self._changed()
                    return
                seat = self.state.current_player()
                agent, rng = self.agents[seat], self.episode.rng
                seen = observed_state(self.state, seat, rng)
            action = agent.act(seen, seat, rng)  # the search: the game's views answer meanwhile
            self.hurry_event.clear()
            with self.lock:
                if self.closed:
                    self.thinking = False
                    return
                self._before = self.state.clone()
                self.episode.step(action)
                self._sync_log()
                left = None if limit is None else limit - 1
                if not self._agent_to_move() or left == 0:
                    self.thinking = False
                else:
                    assert self.workers is not None
                    self.job = self.workers.submit(self._agent_job, left, owner=self.owner)
                self._changed()
        except Exception as err:  # an agent that fails stops the game with a message, not a dead thread
            logger.exception("%s: player_%d (%s) failed", self.env_id, seat, self.seats[seat] if seat >= 0 else "?")
            with self.lock:
                self.failure = f"player_{seat} ({self.seats[seat]}) could not move: {type(err).__name__}"
                self.thinking = False
                self._changed()

    def move(self, seat: int, action: Any, version: Any) -> None:
        """``seat`` (a person) plays ``action``; then the agents play until a person is to move."""
        with self.lock:
            self._check_version(version)
            if self.episode.done:
                raise WebError("the game is over")
            if self.state.current_player() != seat:
                raise WebError(f"it is not your turn (player_{self.state.current_player()} is to move)")
            if not isinstance(action, int) or isinstance(action, bool):
                raise WebError(f"a move is an action number, got {shown(action)}")
            if not 0 <= action < self.game.info.num_actions or not self.episode.legal_mask()[action]:
                raise WebError(f"action {shown(action)} is not a legal move here; choose one of the buttons")
            if self.workers is not None:
                self.workers.check_room()  # before anything changes: a full queue refuses the move
            before, position = len(self.state.history), self.state.clone()
            try:
                self.episode.step(action)
            except IllegalActionError as err:
                raise WebError(str(err)) from None
            self._before = position
            self.undo_points[seat].append(before)
            self._sync_log()
            if self._agent_to_move():
                self._agents_move(None)
            self._changed()

    def hurry(self) -> None:
        """The agent searching now plays its best move so far (the page's "Move now")."""
        with self.lock:
            if not self.thinking:
                raise Conflict("no agent is thinking now")
            self.hurry_event.set()

    def step(self, version: Any) -> None:
        """One agent move (a game with no person in it is watched move by move)."""
        with self.lock:
            self._check_version(version)
            if self.episode.done:
                raise WebError("the game is over")
            if self.state.current_player() in self.humans:
                raise WebError("a person is to move; agents step only in their own turns")
            if self.workers is not None:
                self.workers.check_room()
            self._agents_move(1)
            self._changed()

    def undo(self, seat: int, version: Any) -> None:
        """Take back ``seat``'s last move (and every move played after it)."""
        with self.lock:
            self._check_version(version)
            points = self.undo_points.get(seat) or []
            if not points:
                raise WebError("you have no move to undo")
            point = points[-1]
            later = [s for s in self.humans if s != seat and any(p > point for p in self.undo_points[s])]
            if later:
                raise WebError(f"player_{later[0]} has moved since your last move; it cannot be undone from here")
            points.pop()
            history = list(self.state.history)
            self.episode.replay(history[:point])
            self.log = [e for e in self.log if e.index < point]
            self._shadow = self.game.state_from_history(history[:point])
            self._before = None
            self.failure = None
            self._changed()

    def hint(self, seat: int, agent_name: Any) -> dict[str, Any]:
        """The move ``agent_name`` would choose for ``seat`` here (from the seat's own view).

        The position is read under the lock; the agent thinks without it (a fresh agent each time).
        """
        spec = self.players.parse(agent_name, human=False)
        agent = self.players.build(spec, self.env_id)
        rng = np.random.default_rng(secrets.randbits(64))
        with self.lock:
            if self.episode.done or self.state.current_player() != seat or self.thinking:
                raise WebError("a hint is given on your turn only")
            seen, version = observed_state(self.state, seat, rng), self.version
        action = int(agent.act(seen, seat, rng))
        return {"action": action, "name": seen.action_to_string(action), "agent": spec.name, "version": version}

    def queue_hint(self, seat: int, agent_name: Any, workers: Workers) -> Future[dict[str, Any]]:
        """``hint`` as a job on ``workers`` (a searching agent): one at a time per game, a second is ``TooMany``."""
        with self.lock:
            if self.hint_job is not None and not self.hint_job.done():
                raise TooMany("a hint for this game is being worked out already; wait for it before asking for another")
            workers.check_room()
            self.hint_job = workers.submit(self.hint, seat, agent_name, owner=self.owner)
            return self.hint_job

    def record_json(self) -> str:
        """The finished game as a record (every action, chance included): only once the game is over."""
        with self.lock:
            if not self.episode.done:
                raise WebError("the record holds every hand and draw: it is available once the game is over")
            return self.episode.record().to_json()

    def _changed(self) -> None:
        self.version += 1
        self._image_cache.clear()

    def _sync_log(self) -> None:
        history = self.state.history
        while len(self._shadow.history) < len(history):
            action = history[len(self._shadow.history)]
            self.log.append(log_entry(self._shadow, action))
            self._shadow.apply_action(action)

    # ---- what a seat sees -------------------------------------------------------------------------------
    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything the page shows to ``seat`` (None: a spectator, public information only)."""
        with self.lock:
            state, episode = self.state, self.episode
            to_move = episode.current_player
            your_turn = seat is not None and to_move == seat and not self.thinking
            key = (self.version, seat)
            if key not in self._image_cache:
                image = _picture(state, seat)
                changes = [] if self._before is None else changed_boxes(_picture(self._before, seat), image)
                self._image_cache[key] = (png_data_url(image), [int(image.shape[1]), int(image.shape[0])], changes)
            picture, size, changes = self._image_cache[key]
            moves = state.legal_actions() if your_turn else []
            names = {a: state.action_to_string(a) for a in moves}
            log = [t for t in (e.text_for(seat) for e in self.log) if t is not None]
            view: dict[str, Any] = {
                "kind": "game",
                "env_id": self.env_id,
                "version": self.version,
                "seat": seat,
                "seats": self.seats,
                "options": _plain_options(self.game.options),
                "to_move": None if to_move == TERMINAL else to_move,
                "your_turn": your_turn,
                "thinking": self.thinking,
                "failure": self.failure,
                "image": picture,
                "image_size": size,
                "changes": changes,
                "text": state.to_text() if seat is None else state.seat_text(seat),
                "moves": [{"action": a, "name": names[a]} for a in moves],
                "targets": [
                    {"action": a, "name": names[a], "clicks": [list(box) for box in boxes]}
                    for a, boxes in (click_targets(state, seat) if your_turn and seat is not None else [])
                ],
                "log": log,
                "over": episode.done,
                "can_undo": seat is not None and bool(self.undo_points.get(seat)) and not self.thinking,
                "can_step": seat is None and not episode.done and to_move not in self.humans and not self.thinking,
                "result": self._result(seat) if episode.done else None,
            }
            return view

    def _result(self, seat: int | None) -> dict[str, Any]:
        """The outcome: returns, scores, a summary, and ``words`` for ``seat`` ("You win 2-1", "You are 3rd of 4")."""
        returns = [float(r) for r in self.state.returns()]
        best = max(returns)
        winners = [s for s, r in enumerate(returns) if r == best]
        if self.episode.truncated:
            summary = f"stopped after {self.episode.num_moves} moves (the limit of {self.game.info.max_game_length})"
        elif len(winners) == len(returns):
            summary = "a draw"
        else:
            summary = " and ".join(f"player_{s}" for s in winners) + (" win" if len(winners) > 1 else " wins")
        scores = [float(s) for s in self.state.scores()]
        if seat is None or self.episode.truncated:
            words = summary[0].upper() + summary[1:]
        else:
            words = _result_words(returns, scores, seat)
        return {"returns": returns, "scores": scores, "summary": summary, "words": words}


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _number(x: float) -> str:
    return f"{x:g}"


def _result_words(returns: list[float], scores: list[float], seat: int) -> str:
    """The result as ``seat`` reads it: "You win 2-1", "You lose 9-12", "A draw", "You are 3rd of 4 (...)"."""
    mine = returns[seat]
    place = 1 + sum(r > mine for r in returns)
    shared = sum(r == mine for r in returns) > 1
    if len(returns) == 2:
        other = scores[1 - seat]
        score = f" {_number(scores[seat])}\u2013{_number(other)}" if scores[seat] or other else ""
        if shared:
            return "A draw" + score
        return ("You win" if place == 1 else "You lose") + score
    best = max(scores)
    detail = f" (your score {_number(scores[seat])}, best {_number(best)})" if any(scores) else ""
    if len(returns) == 1:
        return f"Your score: {_number(scores[seat])}" + (" - you win" if mine > 0 else "")
    return f"You are {'joint ' if shared else ''}{_ordinal(place)} of {len(returns)}" + detail


def _plain_options(options: dict[str, Any]) -> dict[str, Any]:
    return {k: _plain(v) for k, v in options.items()}


# ---- replays ----------------------------------------------------------------------------------------
def parse_json(body: str | bytes, what: str) -> Any:
    """JSON from a request body; any malformed text (not UTF-8, bad syntax, nesting too deep, an integer
    too long for Python to read) is one ``WebError`` starting with ``what``."""
    if isinstance(body, bytes):
        try:
            body = body.decode("utf-8")
        except UnicodeDecodeError as err:
            raise WebError(f"{what}: the text is not UTF-8 ({err.reason} at byte {err.start})") from None
    try:
        return json.loads(body)
    except RecursionError:
        raise WebError(f"{what}: the JSON is nested too deeply") from None
    except json.JSONDecodeError as err:
        raise WebError(f"{what}: invalid or truncated JSON ({err.msg} at line {err.lineno})") from None
    except ValueError as err:  # e.g. an integer of more digits than int() reads
        raise WebError(f"{what}: JSON this server does not read ({_short(str(err), 120)})") from None


def check_record_limits(data: Any) -> None:
    """Refuse, before any replay, a record longer than ``MAX_RECORD_ACTIONS`` or ``MAX_GAME_LENGTH``, or
    whose ending names a seat the game does not have. Anything else is left to ``read_record``."""
    if not isinstance(data, dict):
        return
    actions = data.get("actions")
    if isinstance(actions, list) and len(actions) > MAX_RECORD_ACTIONS:
        raise WebError(f"game record: {len(actions)} actions; this server replays records of at most {MAX_RECORD_ACTIONS}")
    env_id, options = data.get("env_id"), data.get("options")
    if not isinstance(env_id, str) or env_id not in envs.registered_ids() or not isinstance(options, dict):
        return
    try:
        game = envs.make_game(env_id, **options)
    except (ValueError, TypeError):
        return  # read_record names the bad option
    check_length(game, env_id, options)
    ending = data.get("ending")
    if isinstance(ending, dict) and ending.get("kind") == "illegal_action":
        offender = ending.get("offender")
        if isinstance(offender, int) and not isinstance(offender, bool) and not 0 <= offender < game.info.num_players:
            seats = game.info.num_players
            raise WebError(f"game record: the ending names player {shown(offender)}, and {env_id} has {seats} seats")


class Replay:
    """A saved game record stepped through: the position after ``step`` actions (chance included)."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record
        self.game = record.game()
        self.names: list[str] = []
        self.players: list[int] = []
        self._checkpoints: list[State] = []
        state = self.game.new_initial_state()
        for k, action in enumerate(record.actions):
            if k % CHECKPOINT_EVERY == 0:
                self._checkpoints.append(state.clone())
            self.players.append(state.current_player())
            self.names.append(state.action_to_string(action))
            state.apply_action(action)
        if len(record.actions) % CHECKPOINT_EVERY == 0:
            self._checkpoints.append(state.clone())
        self.lock = threading.Lock()

    @classmethod
    def from_text(cls, text: str | bytes) -> Replay:
        """Read, bound and replay a record; every way it can be bad is a ``WebError`` (400)."""
        check_record_limits(parse_json(text, "not a game record"))
        try:
            return cls(read_record(text))
        except RecordError as err:
            raise WebError(_short(str(err))) from None
        except (ValueError, TypeError, KeyError, IndexError, IllegalActionError) as err:
            # a record is data from anywhere: one that the loader does not catch is still just a bad record
            logger.warning("a record upload was refused: %s: %s", type(err).__name__, _short(str(err), 200))
            raise WebError(f"not a game record: it does not replay ({type(err).__name__})") from None

    @property
    def length(self) -> int:
        return len(self.record.actions)

    def state_at(self, step: int) -> State:
        state = self._checkpoints[step // CHECKPOINT_EVERY].clone()
        for action in self.record.actions[step - step % CHECKPOINT_EVERY : step]:
            state.apply_action(action)
        return state

    def view(self, step: Any, seat: Any = None) -> dict[str, Any]:
        """The replay at ``step`` (0..length), drawn as ``seat`` sees it or, by default, its public picture."""
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step <= self.length:
            raise WebError(f"step must be an integer in 0..{self.length}, got {shown(step)}")
        n = self.game.info.num_players
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n):
            raise WebError(f"seat must be one of 0..{n - 1} or absent (the public view), got {shown(seat)}")
        with self.lock:
            state = self.state_at(step)
        image = state.render_image() if seat is None else render_seat_image(state, seat)
        log = [
            f"{k + 1}. " + ("chance" if p == CHANCE else f"player_{p}") + f": {name}"
            for k, (p, name) in enumerate(zip(self.players[:step], self.names[:step], strict=True))
        ]
        over = state.current_player() == TERMINAL
        return {
            "kind": "replay",
            "env_id": self.record.env_id,
            "options": _plain_options(self.game.options),
            "step": step,
            "length": self.length,
            "seat": seat,
            "num_players": n,
            "image": png_data_url(image),
            "text": state.to_text() if seat is None else state.seat_text(seat),
            "log": log,
            "over": over,
            "returns": [float(r) for r in state.returns()] if over else None,
        }
