"""Game records by environment id: read a record, find the game of its id, check that it replays.

    from gameshelf.envs.records import load_record
    record = load_record("game.json")      # checked: every action replayed, its ending and digest compared
    record.replay()                         # its final state, with the game of its id and options
    Episode.from_record(record)             # the episode at its end: flags and summed rewards too

The record format and replaying a record with a ``Game`` are the core's (``gameshelf.envs.core.record``);
this module sits above the registry and turns a record's ``env_id`` and options into that game. Loading
runs no code from the file: a bad one raises one ``RecordError`` naming the problem.
"""

from __future__ import annotations

from pathlib import Path

from gameshelf.envs.core.episode import Episode
from gameshelf.envs.core.game import TERMINAL, Game, IllegalActionError
from gameshelf.envs.core.record import GameRecord, RecordError, decode_record, read_record_file, state_digest
from gameshelf.envs.registration import make_game, registered_ids, spec


def record_game(record: GameRecord) -> Game:
    """The game a record names: its registered id with its options (``RecordError`` for an unknown id or bad options)."""
    _check_known(record.env_id)
    try:
        return make_game(record.env_id, **record.options)
    except ValueError as err:
        raise RecordError(f"game record: bad options for {record.env_id}: {err}") from None


def read_record(text: str | bytes, game: Game | None = None) -> GameRecord:
    """Parse and check a record (every action replayed, its ending and final digest compared); the record is
    bound to ``game``, by default the game of its id (``record_game``). ``RecordError`` names any problem."""
    record, version = decode_record(text)
    if game is None:
        _check_known(record.env_id)
        options = spec(record.env_id).load_game_class().OPTIONS
    else:
        options = type(game).OPTIONS
    if version >= 2:  # a record names every option: replay must never depend on the defaults of the day
        missing = sorted(set(options) - set(record.options))
        if missing:
            raise RecordError(f"game record: options {missing} are missing; a record names every option of {record.env_id}")
    record.bind(record_game(record) if game is None else game)
    record.final_digest = _check_replay(record)
    return record


def load_record(path: str | Path, game: Game | None = None) -> GameRecord:
    """Read and check a record file (``read_record``); only a regular file is read, never more than the core's
    ``MAX_BYTES`` plus one byte of it. ``RecordError`` names the problem."""
    return read_record(read_record_file(path), game)


def _check_known(env_id: str) -> None:
    if env_id not in registered_ids():
        raise RecordError(f"game record: unknown environment id {env_id!r}; known ids: {', '.join(registered_ids())}")


def _check_replay(record: GameRecord) -> str:
    """Replay a bound record once, check its ending and its claimed digest; returns the final state's digest."""
    game = record.game()
    ending = record.ending
    if ending is not None and ending.kind == "illegal_action":
        seats = game.info.num_players
        if ending.offender is None or not 0 <= ending.offender < seats:
            raise RecordError(f"game record: the offender {ending.offender} is not a seat (0..{seats - 1})")
    try:
        episode = Episode.from_record(record)
    except IllegalActionError as err:
        raise RecordError(f"game record: an action is not legal at its point of the game: {err}") from None
    state = episode.require_state()
    kind = None if ending is None else ending.kind
    if kind == "terminal" and state.current_player() != TERMINAL:
        raise RecordError("game record: the ending says the game is over, but its actions stop before the end")
    if kind != "terminal" and state.current_player() == TERMINAL:
        raise RecordError(f"game record: the actions reach the end of the game, but the ending says {kind or 'unfinished'!r}")
    if kind == "truncated" and episode.num_moves < episode.max_moves:
        raise RecordError(f"game record: truncated after {episode.num_moves} moves, before the limit of {episode.max_moves}")
    if ending is not None and ending.kind == "illegal_action":
        if ending.offender != state.current_player():
            raise RecordError(f"game record: the offender {ending.offender} was not the player to move")
        act = ending.action
        if act is not None and 0 <= act < game.info.num_actions and state.legal_action_mask()[act]:
            raise RecordError(f"game record: the penalized action {act} is legal at that point")
    final = state_digest(state)
    if record.final_digest is not None and record.final_digest != final:
        raise RecordError("game record: the final position does not match the recorded one (an option or action was changed)")
    return final
