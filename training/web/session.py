"""Games and replays held by the web app, independent of the web framework (so they test without a server).

A ``Session`` is one game: an ``Episode`` with a person or an agent in each seat. What it hands out for a
seat (``view(seat)``) holds only what that seat may know: its own text (``seat_text``), its own picture
(``render_seat_image``), its legal moves on its turn, and a move log in which another seat's move, or a
chance outcome, is named only when the seat can tell it apart from every other move that would have been
named differently (the seat's observation and text after it differ); otherwise it reads ``(hidden)``.
Agents see ``observed_state`` (hidden information redealt), as in evaluation and terminal play.

Every change bumps ``version``; a move, undo or step names the version it was chosen at, and a stale one
is refused (``Conflict``), so a second tab or a double click cannot play into a position it did not see.
"""

from __future__ import annotations

import base64
import io
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from gameshelf import envs
from gameshelf.envs.core.episode import Episode, observed_state
from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, IllegalActionError, State
from gameshelf.envs.core.record import GameRecord, RecordError
from gameshelf.envs.core.rendering import render_seat_image
from gameshelf.training.agents import Agent, make_agent

HUMAN = "human"
AGENT_FORMS = ("human", "random", "heuristic", "mcts:N", "mcts:N:heuristic", "mcts:Ts", "model:PATH")
MAX_SESSIONS = 256
MAX_REPLAYS = 64
CHECKPOINT_EVERY = 32


class WebError(Exception):
    """A bad request: ``status`` is the HTTP status, the message names the problem. Nothing was changed."""

    status = 400


class NotFound(WebError):
    status = 404


class Conflict(WebError):
    status = 409


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
                "heuristic": spec.heuristic is not None,
                "options": options,
            }
        )
    return out


def png_data_url(image: np.ndarray) -> str:
    buf = io.BytesIO()
    Image.fromarray(np.asarray(image, dtype=np.uint8)).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def make_game(env_id: Any, num_players: Any, options: Any) -> Game:
    """The game for a setup request; unknown ids, player counts and options raise ``WebError``."""
    if not isinstance(env_id, str) or env_id not in envs.registered_ids():
        raise NotFound(f"unknown game {env_id!r}; known games: {', '.join(envs.registered_ids())}")
    counts = envs.spec(env_id).player_counts
    if num_players is None:
        num_players = counts[0]
    if not isinstance(num_players, int) or isinstance(num_players, bool) or num_players not in counts:
        raise WebError(f"{env_id} is played by {', '.join(map(str, counts))} players, not {num_players!r}")
    if not isinstance(options, dict):
        raise WebError("options must be an object of option values")
    if "num_players" in options:
        raise WebError("give the player count as num_players, not as an option")
    try:
        return envs.make_game(env_id, num_players=num_players, **options)
    except (ValueError, TypeError) as err:
        raise WebError(f"{env_id}: {err}") from None


def build_agent(name: Any, env_id: str, trust_model: bool) -> Agent:
    if not isinstance(name, str) or not name.strip():
        raise WebError(f"a seat needs a player: one of {', '.join(AGENT_FORMS)}")
    name = name.strip()
    uses_model = name.startswith("model:") or (name.startswith("mcts:") and ":model:" in name)
    try:
        return make_agent(name, env_id, **({"trust_model": True} if trust_model and uses_model else {}))
    except (ValueError, FileNotFoundError, OSError) as err:
        raise WebError(f"player {name!r}: {err}") from None
    except ModuleNotFoundError as err:
        raise WebError(f"player {name!r} needs the 'train' extra ({err.name} is not installed)") from None


# ---- the move log -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class LogEntry:
    index: int
    """Position of the action in the state's history."""
    player: int
    """The seat that moved, or ``CHANCE``."""
    name: str
    seen: tuple[bool, ...]
    """Per seat: whether that seat can tell this action apart from every differently named one."""

    def text_for(self, seat: int | None) -> str | None:
        """The entry as ``seat`` (None: a spectator, who sees what every seat sees) may read it; None to leave out."""
        visible = all(self.seen) if seat is None else self.seen[seat]
        who = "chance" if self.player == CHANCE else f"player_{self.player}"
        if visible:
            return f"{who}: {self.name}"
        return None if self.player == CHANCE else f"{who}: (hidden)"


def _alternatives(state: State) -> list[int]:
    if state.current_player() == CHANCE:
        return [outcome for outcome, _ in state.chance_outcomes()]
    return state.legal_actions()


def log_entry(state: State, action: int, samples: int = 4) -> LogEntry:
    """The log entry of ``action`` played at ``state`` (before it is applied), with who may read its name.

    A seat reads the name unless some position it cannot tell from ``state`` (``state`` itself and
    ``samples`` redeals by ``resample_hidden``) has a differently named move or outcome after which the
    seat's observation and text are the same as after ``action``. So a card dealt to another seat and a
    secret choice read ``(hidden)``. A chance outcome that was the only one possible is hidden from every
    seat (during a deal the undealt cards are not redealt by ``resample_hidden``, so the last card dealt
    would otherwise name what the rest of the deck held).
    """
    n = state.game.info.num_players
    player = state.current_player()
    name = state.action_to_string(action)
    if not state.game.info.has_hidden_info:
        return LogEntry(len(state.history), player, name, (True,) * n)
    if player == CHANCE and all(state.action_to_string(a) == name for a in _alternatives(state)):
        return LogEntry(len(state.history), player, name, (False,) * n)
    after = state.clone()
    after.apply_action(action)
    rng = np.random.default_rng(len(state.history))
    seen = [seat == player or not _confusable(state, action, name, after, seat, samples, rng) for seat in range(n)]
    return LogEntry(len(state.history), player, name, tuple(seen))


def _confusable(state: State, action: int, name: str, after: State, seat: int, samples: int, rng: np.random.Generator) -> bool:
    """Whether ``seat`` could see the same after some differently named move in a position it cannot tell apart."""
    obs = after.observation(seat)
    text: str | None = None
    worlds = [state] + [state.resample_hidden(seat, rng) for _ in range(samples)]
    for world in worlds:
        for alt in _alternatives(world):
            if (world is state and alt == action) or world.action_to_string(alt) == name:
                continue
            other = world.clone()
            other.apply_action(alt)
            if np.array_equal(obs, other.observation(seat)):
                text = after.seat_text(seat) if text is None else text
                if text == other.seat_text(seat):
                    return True
    return False


# ---- one game -----------------------------------------------------------------------------------------
class Session:
    """One game in the browser: ``seats[i]`` is ``"human"`` or an agent name."""

    def __init__(
        self,
        env_id: str,
        game: Game,
        seats: list[str],
        seed: int | None = None,
        trust_model: bool = False,
    ) -> None:
        n = game.info.num_players
        if not isinstance(seats, list) or len(seats) != n:
            raise WebError(f"{env_id} with {n} players needs {n} seats, got {seats!r}")
        self.env_id = env_id
        self.game = game
        self.seats = [s.strip() if isinstance(s, str) else s for s in seats]
        self.trust_model = trust_model
        self.agents: dict[int, Agent] = {
            seat: build_agent(name, env_id, trust_model) for seat, name in enumerate(self.seats) if name != HUMAN
        }
        self.humans = [seat for seat, name in enumerate(self.seats) if name == HUMAN]
        self.episode = Episode(game, env_id=env_id)
        self.episode.reset(np.random.default_rng(seed))
        self.lock = threading.Lock()
        self.version = 0
        self.undo_points: dict[int, list[int]] = {seat: [] for seat in self.humans}
        self.log: list[LogEntry] = []
        self._shadow = game.new_initial_state()
        self._hint_agents: dict[str, Agent] = {}
        self._image_cache: dict[tuple[int, int | None], str] = {}
        self._sync_log()
        if self.humans:
            self._run_agents()

    @property
    def state(self) -> State:
        return self.episode.require_state()

    # ---- moves ----------------------------------------------------------------------------------------
    def _check_version(self, version: Any) -> None:
        if version != self.version:
            raise Conflict(
                f"the position changed since this page loaded it (version {version!r}, now {self.version}); "
                "the page has been refreshed, choose again"
            )

    def _run_agents(self) -> None:
        """Let the agents move until a person is to move or the game is over."""
        while not self.episode.done and self.state.current_player() not in self.humans:
            self._agent_move()

    def _agent_move(self) -> None:
        seat = self.state.current_player()
        agent = self.agents[seat]
        action = agent.act(observed_state(self.state, seat, self.episode.rng), seat, self.episode.rng)
        self.episode.step(action)
        self._sync_log()

    def move(self, seat: int, action: Any, version: Any) -> None:
        """``seat`` (a person) plays ``action``; then the agents play until a person is to move."""
        with self.lock:
            self._check_version(version)
            if self.episode.done:
                raise WebError("the game is over")
            if self.state.current_player() != seat:
                raise WebError(f"it is not your turn (player_{self.state.current_player()} is to move)")
            if not isinstance(action, int) or isinstance(action, bool):
                raise WebError(f"a move is an action number, got {action!r}")
            if not 0 <= action < self.game.info.num_actions or not self.episode.legal_mask()[action]:
                raise WebError(f"action {action} is not a legal move here; choose one of the buttons")
            before = len(self.state.history)
            try:
                self.episode.step(action)
            except IllegalActionError as err:
                raise WebError(str(err)) from None
            self.undo_points[seat].append(before)
            self._sync_log()
            self._run_agents()
            self._changed()

    def step(self, version: Any) -> None:
        """One agent move (a game with no person in it is watched move by move)."""
        with self.lock:
            self._check_version(version)
            if self.episode.done:
                raise WebError("the game is over")
            if self.state.current_player() in self.humans:
                raise WebError("a person is to move; agents step only in their own turns")
            self._agent_move()
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
            self._changed()

    def hint(self, seat: int, agent_name: Any) -> dict[str, Any]:
        """The move ``agent_name`` would choose for ``seat`` here (from the seat's own view)."""
        with self.lock:
            if self.episode.done or self.state.current_player() != seat:
                raise WebError("a hint is given on your turn only")
            name = agent_name.strip() if isinstance(agent_name, str) else agent_name
            if name == HUMAN:
                raise WebError("choose an agent for the hint, not 'human'")
            if name not in self._hint_agents:
                self._hint_agents[name] = build_agent(name, self.env_id, self.trust_model)
            rng = np.random.default_rng(secrets.randbits(64))
            action = self._hint_agents[name].act(observed_state(self.state, seat, rng), seat, rng)
            return {"action": int(action), "name": self.state.action_to_string(action), "agent": name}

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
            your_turn = seat is not None and to_move == seat
            key = (self.version, seat)
            if key not in self._image_cache:
                image = state.render_image() if seat is None else render_seat_image(state, seat)
                self._image_cache[key] = png_data_url(image)
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
                "image": self._image_cache[key],
                "text": state.to_text() if seat is None else state.seat_text(seat),
                "moves": [{"action": a, "name": state.action_to_string(a)} for a in state.legal_actions()] if your_turn else [],
                "log": log,
                "over": episode.done,
                "can_undo": seat is not None and bool(self.undo_points.get(seat)),
                "can_step": seat is None and not episode.done and to_move not in self.humans,
                "result": self._result() if episode.done else None,
            }
            return view

    def _result(self) -> dict[str, Any]:
        returns = [float(r) for r in self.state.returns()]
        best = max(returns)
        winners = [s for s, r in enumerate(returns) if r == best]
        if self.episode.truncated:
            summary = f"stopped after {self.episode.num_moves} moves (the limit of {self.game.info.max_game_length})"
        elif len(winners) == len(returns):
            summary = "a draw"
        else:
            summary = " and ".join(f"player_{s}" for s in winners) + (" win" if len(winners) > 1 else " wins")
        return {"returns": returns, "scores": [float(s) for s in self.state.scores()], "summary": summary}


def _plain_options(options: dict[str, Any]) -> dict[str, Any]:
    return {k: _plain(v) for k, v in options.items()}


# ---- replays ----------------------------------------------------------------------------------------
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
        try:
            return cls(GameRecord.from_json(text))
        except RecordError as err:
            raise WebError(str(err)) from None

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
            raise WebError(f"step must be an integer in 0..{self.length}, got {step!r}")
        n = self.game.info.num_players
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n):
            raise WebError(f"seat must be one of 0..{n - 1} or absent (the public view), got {seat!r}")
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


# ---- the store ----------------------------------------------------------------------------------------
class Store:
    """Sessions and replays by unguessable token; each human seat and the spectator view has its own token.

    At most ``MAX_SESSIONS`` games and ``MAX_REPLAYS`` replays are kept; the least recently used go first.
    """

    def __init__(self, trust_model: bool = False) -> None:
        self.trust_model = trust_model
        self.lock = threading.Lock()
        self.tokens: OrderedDict[str, tuple[Session, int | None]] = OrderedDict()
        self.replays: OrderedDict[str, Replay] = OrderedDict()

    def create(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict):
            raise WebError("expected a JSON object with env_id, num_players, options, seats and seed")
        unknown = sorted(set(request) - {"env_id", "num_players", "options", "seats", "seed"})
        if unknown:
            raise WebError(f"unknown field(s) {unknown}; fields: env_id, num_players, options, seats, seed")
        game = make_game(request.get("env_id"), request.get("num_players"), request.get("options") or {})
        seed = request.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise WebError(f"seed must be a non-negative integer or absent, got {seed!r}")
        seats = request.get("seats")
        if seats is None:
            seats = [HUMAN] + ["heuristic"] * (game.info.num_players - 1)
        session = Session(request["env_id"], game, seats, seed, self.trust_model)
        tokens = {str(seat): self._add(session, seat) for seat in session.humans}
        return {"seats": tokens, "watch": self._add(session, None)}

    def _add(self, session: Session, seat: int | None) -> str:
        token = secrets.token_urlsafe(16)
        with self.lock:
            self.tokens[token] = (session, seat)
            while len(self.tokens) > MAX_SESSIONS * 2:
                self.tokens.popitem(last=False)
        return token

    def get(self, token: str) -> tuple[Session, int | None]:
        with self.lock:
            if token not in self.tokens:
                raise NotFound("no such game (the link is wrong, or the server was restarted); start a new game")
            self.tokens.move_to_end(token)
            return self.tokens[token]

    def add_replay(self, text: str | bytes) -> str:
        replay = Replay.from_text(text)
        token = secrets.token_urlsafe(16)
        with self.lock:
            self.replays[token] = replay
            while len(self.replays) > MAX_REPLAYS:
                self.replays.popitem(last=False)
        return token

    def replay(self, token: str) -> Replay:
        with self.lock:
            if token not in self.replays:
                raise NotFound("no such replay (the link is wrong, or the server was restarted); open the record again")
            self.replays.move_to_end(token)
            return self.replays[token]
