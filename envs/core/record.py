"""Game records: the environment id, every resolved option, every action (chance included) and the ending.

A record replays to the same final state, rewards and flags. Records are plain JSON, validated on load:
a bad file raises one ``RecordError`` naming the problem, never an internal ``KeyError``/``TypeError``,
and never yields a half-valid game. Loading a record runs no code from the file.

    {"format": "gameshelf-record", "version": 2, "env_id": "level_x-v0",
     "options": {"num_players": 2, ...every option...}, "reward": "outcome",
     "actions": [3, 17, ...], "ending": {"kind": "terminal"}, "final_digest": "9f2c..."}

``ending.kind`` is ``"terminal"``, ``"truncated"`` (cut at ``max_game_length``), ``"illegal_action"``
(with ``offender`` and ``action``: a penalized illegal action ended the game) or absent (unfinished).
``final_digest`` is a SHA-256 of every seat's final observation and the returns, so an edited option or
action that still replays cannot pass for the recorded game.

The core knows records, not environment ids: a record replays with a ``Game``, the one it was made or loaded
with (``record.game()``) or one handed to ``replay(game)``. Reading a record file and resolving its id to a
game is ``gameshelf.envs.records`` (``load_record``, ``read_record``), above the registry.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np

from gameshelf.envs.core.game import TERMINAL, IllegalActionError, State

if TYPE_CHECKING:
    from gameshelf.envs.core.game import Game

FORMAT = "gameshelf-record"
VERSION = 2
MAX_BYTES = 64 * 1024 * 1024
MAX_ACTIONS = 10_000_000
MAX_ACTION_VALUE = 2**31 - 1
ENDING_KINDS = ("terminal", "truncated", "illegal_action")


class RecordError(ValueError):
    """A game record that cannot be read or does not replay; the message names the problem."""


@dataclass(frozen=True)
class Ending:
    """How a game ended: ``kind`` in ``ENDING_KINDS``; for an illegal action, who and which action."""

    kind: str
    offender: int | None = None
    action: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.kind == "illegal_action":
            data.update(offender=self.offender, action=self.action)
        return data


@dataclass
class GameRecord:
    env_id: str
    options: dict[str, Any]
    actions: list[int] = field(default_factory=list)
    ending: Ending | None = None
    reward: str = "outcome"
    final_digest: str | None = None
    """``state_digest`` of the final state; computed by replaying when not given."""
    _game: Game | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def from_state(cls, env_id: str, state: State) -> GameRecord:
        ending = Ending("terminal") if state.current_player() == TERMINAL else None
        record = cls(env_id, dict(state.game.options), list(state.history), ending, final_digest=state_digest(state))
        return record.bind(state.game)

    # ---- its game ------------------------------------------------------------------------------------
    def bind(self, game: Game) -> GameRecord:
        """Replay this record with ``game`` from now on (returns the record); its options must be the record's."""
        differ = sorted(k for k, v in self.options.items() if k not in game.options or _plain(game.options[k]) != _plain(v))
        if differ:
            raise RecordError(f"game record: the options {differ} of {game!r} are not the record's")
        self._game = game
        return self

    def game(self) -> Game:
        """The game this record replays with: the one it was made with, or the one it was loaded or bound with."""
        if self._game is None:
            raise RecordError(
                f"game record of {self.env_id or 'a game'}: no game to replay it with; pass one (replay(game)), bind one, "
                "or read it with gameshelf.envs.records (load_record, read_record), which finds the game of its id"
            )
        return self._game

    def _game_for(self, game: Game | None) -> Game:
        return self.game() if game is None else game

    # ---- JSON ------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "env_id": self.env_id,
            "options": _plain(self.options),
            "reward": self.reward,
            "actions": [int(a) for a in self.actions],
        }
        if self.ending is not None:
            data["ending"] = self.ending.to_dict()
        data["final_digest"] = self.final_digest or state_digest(self.replay())
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    # ---- replay ----------------------------------------------------------------------------------------
    def replay(self, game: Game | None = None) -> State:
        """Rebuild the final state with ``game`` (default ``self.game()``); every action is validated on the way."""
        state = self._game_for(game).new_initial_state()
        for k, action in enumerate(self.actions):
            try:
                state.apply_action(int(action))
            except IllegalActionError as err:
                raise RecordError(f"game record: action #{k} ({action}) is not legal at its point of the game: {err}") from None
        return state

    def states(self, game: Game | None = None) -> list[State]:
        """Every state of the game, from the initial one to the last (for step-by-step viewing)."""
        state = self._game_for(game).new_initial_state()
        out = [state.clone()]
        for action in self.actions:
            state.apply_action(action)
            out.append(state.clone())
        return out


def state_digest(state: State) -> str:
    """SHA-256 of every seat's observation and the returns: what a replay must reproduce."""
    h = hashlib.sha256()
    for seat in range(state.game.info.num_players):
        h.update(np.ascontiguousarray(state.observation(seat)).tobytes())
    h.update(np.asarray(state.returns(), dtype=np.float64).tobytes())
    h.update(str(state.current_player()).encode())
    return h.hexdigest()


def _plain(value: Any) -> Any:
    """Options as plain JSON values (numpy scalars become Python numbers)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def decode_record(text: str | bytes) -> tuple[GameRecord, int]:
    """A record read from its JSON and checked as data (format, version, fields, sizes): ``(record, version)``.

    Nothing is replayed and no game is looked up (``gameshelf.envs.records.read_record`` does both): the
    record's ``final_digest`` is the one the text claims (None if it claims none), not yet compared.
    """
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise RecordError(f"not a game record: {len(text)} bytes is more than the {MAX_BYTES} allowed")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise RecordError(f"not a game record: the file is not UTF-8 text ({err.reason} at byte {err.start})") from None
    if len(text) > MAX_BYTES:
        raise RecordError(f"not a game record: more than {MAX_BYTES} characters")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordError(f"not a game record: invalid or truncated JSON ({err.msg} at line {err.lineno})") from None
    except ValueError as err:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise RecordError(f"not a game record: a number in it is too long ({str(err).split(';')[0]})") from None
    except RecursionError:
        raise RecordError("not a game record: the JSON is nested too deeply") from None
    return _parse(data)


def _parse(data: Any) -> tuple[GameRecord, int]:
    if not isinstance(data, dict) or data.get("format") not in (FORMAT, "gameshelf-record/1"):
        raise RecordError(f"not a game record: expected a JSON object with format {FORMAT!r}")
    version = 1 if data["format"] == "gameshelf-record/1" else data.get("version")
    if not _is_int(version) or version < 1:
        raise RecordError("game record: 'version' must be a positive integer")
    if version > VERSION:
        raise RecordError(
            f"game record: format version {version} is newer than this gameshelf reads ({VERSION}); upgrade gameshelf"
        )
    env_id = data.get("env_id")
    if not isinstance(env_id, str) or not env_id:
        raise RecordError("game record: 'env_id' must be a non-empty string")
    options = data.get("options")
    if not isinstance(options, dict):
        raise RecordError("game record: 'options' must be an object of option values")
    for key, value in options.items():
        items = value if isinstance(value, list) else [value]
        if not all(isinstance(v, (str, int, float, bool)) or v is None for v in items):
            raise RecordError(f"game record: option {key!r} must be a plain value or a list of them, got {value!r}")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise RecordError("game record: 'actions' must be a list of integers")
    if len(actions) > MAX_ACTIONS:
        raise RecordError(f"game record: {len(actions)} actions is more than the {MAX_ACTIONS} allowed")
    for k, action in enumerate(actions):
        if not _is_int(action) or not 0 <= action <= MAX_ACTION_VALUE:
            raise RecordError(f"game record: action #{k} must be an integer in 0..{MAX_ACTION_VALUE}, got {action!r}")
    reward = data.get("reward", "outcome")
    if reward not in ("outcome", "score"):
        raise RecordError(f"game record: 'reward' must be 'outcome' or 'score', got {reward!r}")
    ending = _parse_ending(data.get("ending"))
    digest = data.get("final_digest")
    if digest is not None and not isinstance(digest, str):
        raise RecordError("game record: 'final_digest' must be a string")
    return GameRecord(env_id, dict(options), list(actions), ending, reward, digest), version


def _parse_ending(raw: Any) -> Ending | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or raw.get("kind") not in ENDING_KINDS:
        raise RecordError(f"game record: 'ending' must be an object whose 'kind' is one of {list(ENDING_KINDS)}")
    if raw["kind"] != "illegal_action":
        return Ending(raw["kind"])
    offender, action = raw.get("offender"), raw.get("action")
    if not _is_int(offender) or not _is_int(action) or offender < 0:
        raise RecordError("game record: an 'illegal_action' ending needs integer 'offender' and 'action'")
    return Ending("illegal_action", offender, action)


def save_record(record: GameRecord, path: str | Path) -> None:
    """Write ``record`` as JSON, atomically (a temporary file renamed over ``path``)."""
    atomic_write_text(Path(path), record.to_json() + "\n")


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves either the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_record_file(path: str | Path) -> bytes:
    """The bytes of a record file; ``RecordError`` names the problem.

    Only a regular file is read (a FIFO, device or directory is refused without being opened for a
    blocking read), and never more than ``MAX_BYTES`` plus one byte of it.
    """
    p = Path(path)
    try:
        return _read_regular_file(p, MAX_BYTES)
    except OSError as err:
        raise RecordError(f"cannot read game record {str(p)!r}: {err.strerror or err}") from None


def _read_regular_file(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes of a regular file; ``RecordError`` for anything else or anything larger."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise RecordError(f"cannot read game record {str(path)!r}: not a regular file")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)  # non-blocking: a FIFO put in its place since the check cannot hang the open
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise RecordError(f"cannot read game record {str(path)!r}: not a regular file")
        if info.st_size > limit:
            raise RecordError(f"not a game record: {info.st_size} bytes is more than the {limit} allowed")
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise RecordError(f"not a game record: more than the {limit} bytes allowed")
    return raw
