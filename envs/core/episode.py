"""``Episode``: the one driver of a game from reset to its end.

Every way of playing a game is a thin view over an ``Episode``: the PettingZoo AEC environment, the
single-seat Gymnasium environment, the evaluation runner and human play. The episode owns what they
would otherwise each write again:

* reset with a generator, and chance resolved with that generator right after reset and after every move,
  so players never see a chance node;
* the moves counted against ``max_game_length`` (truncation, a safety net);
* the rewards: changes of ``returns()`` (plus ``scores()`` with ``reward="score"``);
* illegal actions: ``"raise"`` (``IllegalActionError``, nothing changed) or ``"penalize"`` (-1 for the
  offender, the game ends: PettingZoo's ``TerminateIllegalWrapper``);
* the game record, including how the game ended.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, IllegalActionError, State
from gameshelf.envs.core.record import Ending, GameRecord, state_digest

REWARD_MODES = ("outcome", "score")
ILLEGAL_ACTION_MODES = ("raise", "penalize")


class Player(Protocol):
    """Anything that picks a legal action for a seat from what that seat may see."""

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int: ...


def check_choice(name: str, value: Any, allowed: Sequence[Any], none_ok: bool = False) -> None:
    """``ValueError`` naming the setting and its allowed values unless ``value`` is one of them."""
    if (value is None and none_ok) or (isinstance(value, (str, type(None))) and value in allowed):
        return
    extra = " or None" if none_ok else ""
    raise ValueError(f"{name}={value!r} is not allowed; allowed values: {list(allowed)}{extra}")


def check_action(action: Any, num_actions: int) -> int:
    """An action as a plain int in range: ``TypeError`` for floats, bools, strings...; ``ValueError`` if out of range."""
    if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action is an int in [0, {num_actions}), got {type(action).__name__} {action!r}")
    action = int(action)
    if not 0 <= action < num_actions:
        raise ValueError(f"action {action} is out of range [0, {num_actions})")
    return action


def check_chance_outcomes(outcomes: Any) -> list[int]:
    """``reset``'s ``chance_outcomes`` as a list of ints: ``TypeError`` unless a sequence of integers (no bools,
    no floats such as 1.7, no string); whether each outcome is possible is checked when it is used."""
    if outcomes is None:
        return []
    if isinstance(outcomes, np.ndarray) and outcomes.ndim == 1:
        outcomes = outcomes.tolist()
    if isinstance(outcomes, (str, bytes)) or not isinstance(outcomes, Sequence):
        raise TypeError(f"chance_outcomes must be a list of integers, got {type(outcomes).__name__}")
    out = []
    for k, outcome in enumerate(outcomes):
        if isinstance(outcome, (bool, np.bool_)) or not isinstance(outcome, (int, np.integer)):
            raise TypeError(f"chance_outcomes[{k}] must be an integer, got {type(outcome).__name__} {outcome!r:.40}")
        out.append(int(outcome))
    return out


def resolve_chance(state: State, rng: np.random.Generator) -> None:
    """Draw chance outcomes with ``rng`` until a player (or the end) is to move."""
    while state.current_player() == CHANCE:
        state.apply_checked_action(state.sample_chance(rng))


def reward_values(state: State, mode: str) -> np.ndarray:
    """The per-seat values whose changes are the rewards: ``returns()``, plus ``scores()`` for ``"score"``."""
    values = np.asarray(state.returns(), dtype=np.float64)
    if mode == "score":
        values = values + state.scores()
    return values


def observed_state(state: State, seat: int, rng: np.random.Generator) -> State:
    """What a player at ``seat`` may be shown: hidden information redealt, otherwise a copy."""
    if state.game.info.has_hidden_info:
        return state.resample_hidden(seat, rng)
    return state.clone()


class Episode:
    """One game of ``game`` played from ``reset(rng)`` to its end.

    ``step(action)`` applies the current player's action and returns every seat's reward for it;
    ``play(players, until=seat)`` lets player objects move (what the single-seat env's opponents and the
    evaluation runner do). ``done`` is True once the game ended, was truncated or was ended by a
    penalized illegal action.
    """

    def __init__(self, game: Game, *, reward: str = "outcome", illegal_action: str = "raise", env_id: str | None = None):
        check_choice("reward", reward, REWARD_MODES)
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.game = game
        self.env_id = env_id
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.state: State | None = None
        self.rng: np.random.Generator = np.random.default_rng()
        self.num_moves = 0
        self.offender: int | None = None
        """Seat whose illegal action ended the game (``illegal_action="penalize"``)."""
        self.illegal: int | None = None
        self._values = np.zeros(game.info.num_players)
        self.totals = np.zeros(game.info.num_players)
        """Every seat's reward summed since ``reset`` (the penalty included)."""
        self._mask: np.ndarray | None = None
        self._mask_at = -1
        self._script: Any = iter(())

    # ---- lifecycle ----------------------------------------------------------------------------------
    def reset(self, rng: np.random.Generator, chance_outcomes: Sequence[int] | None = None) -> None:
        """Start a new game; chance is drawn from ``rng`` (also handed to players by ``play``).

        ``chance_outcomes``: outcomes to use, in order, for the game's chance nodes instead of drawing them
        (each validated), e.g. to replay a recorded deal; once they run out, ``rng`` draws again.

        A reset that fails (a bad or impossible outcome) changes nothing: the running game, its generator
        (``rng`` is put back as it was) and its pending outcomes stay as they were.
        """
        script = iter(check_chance_outcomes(chance_outcomes))
        before = rng.bit_generator.state
        state = self.game.new_initial_state()
        try:
            self._resolve_chance(state, script, rng)
        except BaseException:
            rng.bit_generator.state = before
            raise
        self.rng, self._script = rng, script
        self.state = state
        self.num_moves = 0
        self.offender = self.illegal = None
        self._mask_at = -1
        self._values = reward_values(state, self.reward_mode)
        self.totals = np.zeros(self.game.info.num_players)

    def replay(self, actions: Sequence[int], ending: Ending | None = None) -> None:
        """Put the episode at the end of a recorded line of play (every action validated; chance included).

        An ``illegal_action`` ending whose ``offender`` is not a seat raises ``ValueError``, before anything changes.
        """
        seats = self.game.info.num_players
        if ending is not None and ending.kind == "illegal_action":
            offender = ending.offender
            if isinstance(offender, bool) or not isinstance(offender, (int, np.integer)) or not 0 <= offender < seats:
                raise ValueError(f"the offender {offender!r} of an illegal_action ending is not a seat (0..{seats - 1})")
        state = self.game.new_initial_state()
        start = reward_values(state, self.reward_mode)
        moves = 0
        for k, action in enumerate(actions):
            player = state.current_player()
            try:
                state.apply_action(int(action))
            except IllegalActionError as err:
                raise IllegalActionError(f"action #{k} ({action}): {err}") from None
            moves += player >= 0
        self.state, self.num_moves, self._mask_at = state, moves, -1
        self.offender = self.illegal = None
        self._values = reward_values(state, self.reward_mode)
        self.totals = self._values - start
        if ending is not None and ending.kind == "illegal_action":
            self.offender, self.illegal = ending.offender, ending.action
            self.totals[int(ending.offender or 0)] -= 1.0

    @classmethod
    def from_record(cls, record: GameRecord, game: Game | None = None) -> Episode:
        """An episode at the end of ``record``, replayed with ``game`` (default ``record.game()``): the same state,
        flags and summed rewards as when it was recorded. Every action is validated (``IllegalActionError``)."""
        episode = cls(record.game() if game is None else game, reward=record.reward, env_id=record.env_id)
        episode.replay(record.actions, record.ending)
        return episode

    @property
    def max_moves(self) -> int:
        """Moves after which the game is truncated (the game's ``max_game_length``)."""
        return self.game.info.max_game_length

    def require_state(self) -> State:
        if self.state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state

    # ---- status ---------------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        """The seat to move, or ``TERMINAL`` once the episode is done (ended, truncated or penalized)."""
        return self.status()[0]

    @property
    def terminated(self) -> bool:
        """The game reached its end, or was ended by a penalized illegal action."""
        return self.status()[1]

    @property
    def truncated(self) -> bool:
        """Cut off at ``max_game_length`` moves before its end."""
        return self.status()[2]

    @property
    def done(self) -> bool:
        return self.status()[0] == TERMINAL

    def status(self) -> tuple[int, bool, bool]:
        """``(player to move or TERMINAL, terminated, truncated)`` in one look (the drivers' hot path)."""
        player = (self.state if self.state is not None else self.require_state()).current_player()
        terminated = self.offender is not None or player == TERMINAL
        truncated = not terminated and self.num_moves >= self.game.info.max_game_length
        return (TERMINAL if terminated or truncated else player), terminated, truncated

    def legal_mask(self) -> np.ndarray:
        """Boolean mask of the current player's legal actions, computed once per position (read-only)."""
        state = self.state if self.state is not None else self.require_state()
        if self._mask is None or self._mask_at != len(state.history):
            mask = np.asarray(state.legal_action_mask(), dtype=bool)
            mask.setflags(write=False)
            self._mask, self._mask_at = mask, len(state.history)
        return self._mask

    # ---- moves ---------------------------------------------------------------------------------------
    def check(self, action: Any) -> int:
        """``action`` as an int for the player to move: type, range and legality checked; nothing changes.

        An illegal action raises ``IllegalActionError`` (``"raise"``) or returns -1 (``"penalize"``).
        """
        state = self.state if self.state is not None else self.require_state()
        if self.status()[0] == TERMINAL:
            raise RuntimeError("the episode is over; call reset()")
        action = check_action(action, self.game.info.num_actions)
        if not self.legal_mask()[action]:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"action {action} ({state.action_to_string(action)}) is not legal for player_{state.current_player()}; "
                    f"legal actions: {state.legal_actions()}"
                )
            return -1
        return action

    def step(self, action: Any) -> np.ndarray:
        """Apply the current player's ``action``; returns each seat's reward for this step.

        Under ``"penalize"`` an illegal action ends the game with -1 for the offender and 0 for the others.
        """
        checked = self.check(action)
        if checked < 0:
            return self._penalize(int(action))
        return self.apply_checked(checked)

    def apply_checked(self, action: int) -> np.ndarray:
        """Apply an action already known to be legal (from the mask); returns the rewards of the step."""
        state = self.state if self.state is not None else self.require_state()
        state.apply_checked_action(action)
        self._resolve_chance(state, self._script, self.rng)
        self.num_moves += 1
        values = reward_values(state, self.reward_mode)
        rewards = values - self._values
        self._values = values
        self.totals += rewards
        return rewards

    @staticmethod
    def _resolve_chance(state: State, script: Iterator[int], rng: np.random.Generator) -> None:
        while state.current_player() == CHANCE:
            scripted = next(script, None)
            if scripted is None:
                resolve_chance(state, rng)
                return
            state.apply_action(scripted)

    def _penalize(self, action: int) -> np.ndarray:
        state = self.require_state()
        self.offender = state.current_player()
        self.illegal = action
        rewards = np.zeros(self.game.info.num_players)
        rewards[self.offender] = -1.0
        self.totals += rewards
        return rewards

    def play(self, players: Mapping[int, Player] | Sequence[Player], until: int | None = None) -> np.ndarray:
        """Let ``players[seat]`` move, each seeing only its seat's view, until it is ``until``'s turn or the end.

        Returns the rewards summed over those moves. A player's illegal action raises (or is penalized).
        """
        total = np.zeros(self.game.info.num_players)
        while not self.done:
            seat = self.require_state().current_player()
            if seat == until:
                break
            action = players[seat].act(observed_state(self.require_state(), seat, self.rng), seat, self.rng)
            total += self.step(action)
        return total

    # ---- records ---------------------------------------------------------------------------------------
    def ending(self) -> Ending | None:
        """How the game ended (None while it is running)."""
        if self.offender is not None:
            return Ending("illegal_action", offender=self.offender, action=self.illegal)
        if self.require_state().current_player() == TERMINAL:
            return Ending("terminal")
        if self.truncated:
            return Ending("truncated")
        return None

    def record(self) -> GameRecord:
        """The game so far: id, every resolved option, every action (chance included) and its ending."""
        state = self.require_state()
        record = GameRecord(
            self.env_id or "", dict(self.game.options), list(state.history), self.ending(), self.reward_mode, state_digest(state)
        )
        return record.bind(self.game)
