"""The engine interface every game implements: ``Game`` (options, static facts) and ``State``.

Modelled on OpenSpiel's Python games. A ``State`` is a pure rules object: no RL, no I/O, no global
random generator. Chance nodes expose their outcomes; whoever drives the state (the AEC adapter, a test,
a search) chooses them.
"""

from __future__ import annotations

import abc
import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, final

import numpy as np

from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.core.position import position_builder, position_function, show

CHANCE = -1
"""``current_player()`` at a chance node."""
TERMINAL = -4
"""``current_player()`` once the game is over."""
ACTION_RANGE = (-(2**31), 2**31 - 1)
"""``apply_action`` refuses a number outside it (``IllegalActionError``) before asking the game: no action or
chance outcome is that large, and a compiled rule could not take it."""


class IllegalActionError(ValueError):
    """An action that is not legal in the current state. The state is left unchanged."""


@dataclass(frozen=True)
class Option:
    """One constructor option of a game: its default and what values are allowed.

    Either ``choices`` (a finite set), ``low`` and ``high`` (an integer range, both ends allowed; ``int_option``
    declares one: a kernel game's integer options all do, its state row holds only so much) or ``check`` (a
    predicate with a description in ``allowed``).
    """

    default: Any
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], bool] | None = None
    allowed: str = ""
    doc: str = ""
    low: int | None = None
    high: int | None = None

    def validate(self, name: str, value: Any) -> Any:
        if isinstance(value, np.generic):  # numpy scalars are stored as plain Python values
            value = value.item()
        if self.low is not None and self.high is not None:
            if not (isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high):
                raise ValueError(f"option {name}={show(value)} is not allowed; allowed values: an int in {self.low}..{self.high}")
            return value
        if self.choices is not None:
            # bool is an int: refuse True for 1 and 1 for True unless the types agree.
            for choice in self.choices:
                if value == choice and type(value) is type(choice):
                    return value
            raise ValueError(f"option {name}={show(value)} is not allowed; allowed values: {list(self.choices)}")
        if self.check is not None and not self.check(value):
            raise ValueError(f"option {name}={show(value)} is not allowed; allowed values: {self.allowed}")
        return value


def int_option(default: int, low: int, high: int, doc: str = "") -> Option:
    """An integer option in ``low..high`` (bools refused); a value outside is refused naming the range."""
    return Option(default, low=low, high=high, allowed=f"an int in {low}..{high}", doc=doc)


def int_at_least(low: int) -> Callable[[Any], bool]:
    """Predicate for an integer option (bools refused) with a lower bound."""
    return lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool) and bool(v >= low)


@dataclass(frozen=True)
class GameInfo:
    """Static facts of a game instance (after options are applied).

    Built by ``Game`` from what the game declares (``GameFacts``) and what follows from elsewhere: the name
    (``Game.name``), ``num_players`` (the ``num_players`` option; 1 without one), ``max_players`` (the largest
    allowed ``num_players``), the observation shape, dtype and bounds (``game.layout``).
    """

    name: str
    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    observation_dtype: Any
    max_game_length: int
    """Upper bound on the number of player decisions (chance nodes not counted)."""
    has_chance: bool
    has_hidden_info: bool
    min_return: float = -1.0
    max_return: float = 1.0
    observation_low: float = 0.0
    observation_high: float = 1.0
    max_players: int = 0
    """Largest player count of the game (observations are padded to it); 0 means num_players."""


@dataclass(frozen=True)
class GameFacts:
    """The static facts only a game's rules know (``Game._facts``); ``GameInfo`` adds what follows from the
    options and the observation layout."""

    num_actions: int
    max_game_length: int
    """Upper bound on the number of player decisions (chance nodes not counted)."""
    has_chance: bool
    has_hidden_info: bool
    """Whether some seat may not see everything (then the State implements ``_resample_hidden``). Declared, not
    derived from the State: in some games an option shows everything (one player, open hands)."""
    min_return: float = -1.0
    max_return: float = 1.0


class Game(abc.ABC):
    """A game with fixed options: the declarative header ``name``, ``OPTIONS`` and ``LAYOUT``, and the hooks
    ``_facts`` and ``new_initial_state``. ``info`` is built from them (``GameInfo``), once, in ``__init__``."""

    name: ClassVar[str] = ""
    OPTIONS: ClassVar[Mapping[str, Option]] = {}
    LAYOUT: ClassVar[ObservationLayout | None] = None
    """The observation layout (``LAYOUT`` of the game's ``observation.py``): the observation shape, dtype and
    bounds of ``info`` come from it. A game whose layout depends on its options overrides ``observation_layout``."""

    def __init__(self, **options: Any) -> None:
        self.options: dict[str, Any] = validate_options(self.name, self.OPTIONS, options)
        self.layout: ObservationLayout = self.observation_layout()
        """The observation layout of this game (``observation_layout()``)."""
        self.info: GameInfo = self._make_info(self._facts())

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_make_info" in cls.__dict__:
            raise TypeError(f"{cls.__name__} overrides Game._make_info; declare its GameFacts in _facts instead")

    @property
    def num_players(self) -> int:
        return self.info.num_players

    @property
    def num_actions(self) -> int:
        return self.info.num_actions

    def observation_layout(self) -> ObservationLayout:
        """The observation layout for these options: ``LAYOUT`` unless a game builds one per option set."""
        if self.LAYOUT is None:
            raise TypeError(f"{type(self).__name__} declares no observation LAYOUT (nor overrides observation_layout)")
        return self.LAYOUT

    @abc.abstractmethod
    def _facts(self) -> GameFacts:
        """Hook: the facts only the rules know; called once, after ``self.options`` and ``self.layout`` are set."""

    @final
    def _make_info(self, facts: GameFacts) -> GameInfo:
        players = self.OPTIONS.get("num_players")
        num_players = int(self.options["num_players"]) if players is not None else 1
        choices = players.choices if players is not None and players.choices else (num_players,)
        layout = self.layout
        return GameInfo(
            name=self.name,
            num_players=num_players,
            num_actions=facts.num_actions,
            observation_shape=layout.shape,
            observation_dtype=layout.dtype.type,
            max_game_length=facts.max_game_length,
            has_chance=facts.has_chance,
            has_hidden_info=facts.has_hidden_info,
            min_return=facts.min_return,
            max_return=facts.max_return,
            observation_low=layout.low,
            observation_high=layout.high,
            max_players=max(num_players, *choices),
        )

    @abc.abstractmethod
    def new_initial_state(self) -> State:
        """The state before the first action (may be a chance node)."""

    def string_to_action(self, state: State, text: str) -> int:
        """Parse a move name as written by ``state.action_to_string``, or a plain action number."""
        text = text.strip()
        legal = state.legal_actions()
        for action in legal:
            if state.action_to_string(action).lower() == text.lower():
                return action
        if text.lstrip("-").isdigit() and int(text) in legal:
            return int(text)
        names = ", ".join(f"{a}: {state.action_to_string(a)}" for a in legal[:40])
        more = " ..." if len(legal) > 40 else ""
        raise IllegalActionError(f"{text!r} is not a legal move here; legal moves: {names}{more}")

    def state_from_position(self, position: Mapping[str, Any]) -> State:
        """A mid-game state built from a position (``state.position()`` gives one), validated.

        For puzzles, endgames, curricula and rules tests. The keys are the game's own (its environment
        card lists them); a position that breaks the rules raises ``ValueError`` naming the problem. The
        built state has an empty ``history``: it replays from its position, not from the start.

        The builder is ``build_state(game, position)`` of the game's ``position.py`` (found by the core), or
        this method overridden in ``game.py`` (decorated with ``position.position_builder``). Either way the
        position is first checked to be small plain data and a refusal's message is cut to a readable length.
        """
        build = position_function(type(self), "build_state")
        if build is None:
            raise NotImplementedError(f"{type(self).__name__} has no position builder")
        return position_builder(build)(self, position)  # type: ignore[no-any-return]

    def state_from_history(self, history: Sequence[int]) -> State:
        """Rebuild a state by replaying an action history (chance outcomes included)."""
        state = self.new_initial_state()
        for action in history:
            state.apply_action(int(action))
        return state

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({opts})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.options == self.options  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self.options.items()))))


def validate_options(game: str, spec: Mapping[str, Option], given: Mapping[str, Any]) -> dict[str, Any]:
    """Fill defaults and check every option; unknown or bad options raise ``ValueError``."""
    unknown = sorted(set(given) - set(spec))
    if unknown:
        raise ValueError(f"{game}: unknown option(s) {unknown}; known options: {sorted(spec)}")
    return {name: opt.validate(name, given[name]) if name in given else opt.default for name, opt in spec.items()}


class State(abc.ABC):
    """A game position. Mutated in place by ``apply_action``; ``clone`` gives an independent copy.

    A template: subclasses implement the ``_``-prefixed hooks and the read-only queries; the public methods
    that check their input are final and call the hooks. ``apply_action`` validates the action
    (``IllegalActionError`` leaves the state unchanged), records it in ``history`` and calls ``_apply``;
    ``observation``, ``seat_text`` and ``resample_hidden`` check the seat (``check_seat``: one
    ``ValueError`` for every bad seat) and call ``_observation``, ``_seat_text`` and ``_resample_hidden``
    with a plain ``int`` in ``0..N-1``.
    """

    _FINAL: ClassVar[dict[str, str]] = {
        "apply_action": "implement the _apply hook instead",
        "apply_checked_action": "implement the _apply hook instead",
        "render_image": "write draw(state) in the game's render.py instead",
        "observation": "implement the _observation hook instead",
        "seat_text": "implement the _seat_text hook instead",
        "resample_hidden": "implement the _resample_hidden hook instead",
        "check_seat": "every game checks its seats the same way",
    }
    """The final methods, each with what a game does instead."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.history: list[int] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, instead in State._FINAL.items():
            if name in cls.__dict__:
                raise TypeError(f"{cls.__name__} overrides State.{name}, which is final; {instead}")

    @final
    def check_seat(self, seat: Any) -> int:
        """``seat`` as a plain int if it is a seat of this game (``0..N-1``); ``ValueError`` otherwise.

        A bool, a float, a string or None is not a seat, even when it equals one (``True``, ``1.0``).
        """
        n = self.game.info.num_players
        if isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_)) and 0 <= seat < n:
            return int(seat)
        raise ValueError(f"{seat!r} is not a seat of {self.game.info.name}: a seat is an int in 0..{n - 1}")

    # ---- whose turn -------------------------------------------------------------------------
    @abc.abstractmethod
    def current_player(self) -> int:
        """A seat ``0..N-1``, ``CHANCE`` or ``TERMINAL``."""

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    # ---- actions ----------------------------------------------------------------------------
    @abc.abstractmethod
    def legal_action_mask(self) -> np.ndarray:
        """Boolean array of length ``num_actions`` (all False at chance and terminal nodes)."""

    def legal_actions(self) -> list[int]:
        if self.current_player() < 0:
            return []
        return np.flatnonzero(self.legal_action_mask()).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(outcome, probability), ...]`` at a chance node; probabilities sum to 1."""
        return []

    def sample_chance(self, rng: np.random.Generator) -> int:
        """Draw a chance outcome with ``rng``; engines may override with a faster sampler."""
        outcomes = self.chance_outcomes()
        u = rng.random()
        acc = 0.0
        for outcome, p in outcomes:
            acc += p
            if u < acc:
                return outcome
        return outcomes[-1][0]

    @final
    def apply_action(self, action: int) -> None:
        """Apply a player action or a chance outcome; illegal ones raise and change nothing."""
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
            raise TypeError(f"an action is an int, got {type(action).__name__} {action!r}")
        action = int(action)
        player = self.current_player()
        if player == TERMINAL:
            raise IllegalActionError("the game is over; no action can be applied")
        if not ACTION_RANGE[0] <= action <= ACTION_RANGE[1] or not self._is_legal(player, action):
            if player == CHANCE:
                possible = [o for o, _ in self.chance_outcomes()]
                raise IllegalActionError(f"chance outcome {action} is not possible here; possible: {possible}")
            raise IllegalActionError(f"action {action} is not legal for seat {player}; legal actions: {self.legal_actions()}")
        self._apply(action)
        self.history.append(action)

    def _is_legal(self, player: int, action: int) -> bool:
        """Hook: is ``action`` legal for ``player`` (a seat or ``CHANCE``)? Games may answer faster than the mask."""
        if player == CHANCE:
            return any(action == o for o, _ in self.chance_outcomes())
        return 0 <= action < self.game.info.num_actions and bool(self.legal_action_mask()[action])

    @final
    def apply_checked_action(self, action: int) -> None:
        """Apply an action the caller has already checked (from the mask or ``sample_chance``): no validation."""
        self._apply(action)
        self.history.append(action)

    @abc.abstractmethod
    def _apply(self, action: int) -> None:
        """Mutate the state by a validated action (or chance outcome)."""

    # ---- results ----------------------------------------------------------------------------
    @abc.abstractmethod
    def returns(self) -> np.ndarray:
        """Outcome return of every seat: zeros until the end, then by ranking (see ``rank_returns``)."""

    def scores(self) -> np.ndarray:
        """Running game score of every seat (used by ``reward="score"``); zeros if the game has none."""
        return np.zeros(self.game.info.num_players, dtype=np.float64)

    # ---- observations and text ----------------------------------------------------------------
    @final
    def observation(self, seat: int) -> np.ndarray:
        """The observation tensor of ``seat``; only what that seat may know. A bad seat raises ``ValueError``."""
        return self._observation(self.check_seat(seat))

    @abc.abstractmethod
    def _observation(self, seat: int) -> np.ndarray:
        """Hook: the observation of ``seat`` (a checked seat), laid out as ``game.layout`` says."""

    def global_observation(self) -> np.ndarray:
        """Omniscient tensor for centralized critics: every seat's observation stacked."""
        return np.stack([self.observation(s) for s in range(self.game.info.num_players)])

    @abc.abstractmethod
    def action_to_string(self, action: int) -> str:
        """Readable name of an action (or chance outcome) in this state."""

    @abc.abstractmethod
    def to_text(self) -> str:
        """Plain-text rendering of the whole public situation."""

    @final
    def seat_text(self, seat: int) -> str:
        """What ``seat`` may see, as text: the public situation plus its private information (own hand).

        A bad seat raises ``ValueError``.
        """
        return self._seat_text(self.check_seat(seat))

    def _seat_text(self, seat: int) -> str:
        """Hook: the text view of ``seat`` (a checked seat). Games with hidden information implement it;
        without, it is ``to_text()``."""
        return self.to_text()

    @final
    def render_image(self) -> np.ndarray:
        """``HxWx3 uint8`` picture, drawn by the game's ``render.draw`` (found by the core) or as text."""
        from gameshelf.envs.core.rendering import render_image

        return render_image(self)

    def position(self) -> dict[str, Any]:
        """This position as plain data, such that ``game.state_from_position(state.position())`` rebuilds it.

        ``export_position(state)`` of the game's ``position.py`` (found by the core), or this method overridden.
        """
        export = position_function(type(self.game), "export_position")
        if export is None:
            raise NotImplementedError(f"{type(self).__name__} has no position export")
        return export(self)  # type: ignore[no-any-return]

    @final
    def resample_hidden(self, seat: int, rng: np.random.Generator) -> State:
        """A state ``seat`` cannot tell apart from this one (what it cannot see redealt); a bad seat raises ``ValueError``."""
        return self._resample_hidden(self.check_seat(seat), rng)

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> State:
        """Hook: the redeal for ``seat`` (a checked seat). Games with hidden information implement it (the kit's
        resample test says what it must keep); without, it is a clone."""
        return self.clone()

    def clone(self) -> State:
        """An independent copy sharing the game. This default deep-copies; games override it for speed."""
        return copy.deepcopy(self, memo={id(self.game): self.game})

    def __str__(self) -> str:
        return self.to_text()


def count_outcomes(counts: Sequence[int]) -> list[tuple[int, float]]:
    """Chance outcomes of drawing one item of a multiset (a deck by value): item ``i`` with ``counts[i] / total``."""
    total = sum(counts)
    return [(i, c / total) for i, c in enumerate(counts) if c]


def draw_from_counts(counts: Sequence[int], rng: np.random.Generator) -> int:
    """Draw one item of a multiset with ``rng``, with the probabilities of ``count_outcomes``."""
    u = int(rng.integers(sum(counts)))
    for i, c in enumerate(counts):
        if u < c:
            return i
        u -= c
    raise ValueError("nothing left to draw")


def random_playout(state: State, rng: np.random.Generator, max_decisions: int | None = None) -> int:
    """Play ``state`` on in place with uniformly random legal actions and chance drawn from ``rng``.

    Stops at the end (or after ``max_decisions`` player decisions); returns the number of decisions made.
    """
    decisions = 0
    while not state.is_terminal() and (max_decisions is None or decisions < max_decisions):
        if state.is_chance_node():
            state.apply_checked_action(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        state.apply_checked_action(legal[rng.integers(len(legal))])
        decisions += 1
    return decisions


def rank_returns(keys: Sequence[Any]) -> np.ndarray:
    """Outcome returns from comparable final keys (higher is better), ties averaged.

    Rank 1 of N gets +1, last gets -1, linear in between, so the sum is 0. One player: 0.
    """
    n = len(keys)
    out = np.zeros(n, dtype=np.float64)
    if n < 2:
        return out
    order = sorted(range(n), key=lambda i: keys[i], reverse=True)
    values = [1.0 - 2.0 * pos / (n - 1) for pos in range(n)]
    pos = 0
    while pos < n:
        end = pos
        while end + 1 < n and keys[order[end + 1]] == keys[order[pos]]:
            end += 1
        shared = sum(values[pos : end + 1]) / (end - pos + 1)
        for k in range(pos, end + 1):
            out[order[k]] = shared
        pos = end + 1
    return out
