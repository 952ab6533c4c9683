"""``SingleSeatEnv``: one seat of a gameshelf game as a Gymnasium environment, the other seats inside.

The learner plays one seat; every other seat is played inside ``step()`` by opponent agents: objects with
``act(state, seat, rng)``, or names turned into agents by ``agent_factory(name, env_id)`` (e.g.
``training.agents.make_agent`` for ``"heuristic"`` and ``"model:PATH"``; ``"random"`` works without one).
In games with hidden information an opponent is handed a state with what its seat cannot see redealt
(``state.resample_hidden(seat, rng)``), so it cannot peek.

Rewards are exactly those of the AEC environment for the learner's seat (changes of ``returns()``, plus
``scores()`` with ``reward="score"``), summed over everything that happens between two decisions of the
learner: its own move, chance, the opponents' replies and the end of the game. A loss on an opponent's
move therefore reaches the learner as the reward of its last step. The sum of the rewards of an episode
equals the learner's final return.

The engine is driven directly (no AEC bookkeeping) with the environment's own generator
(``self.np_random``, seeded by ``reset(seed=...)``) resolving chance, picking the learner's seat and the
opponents, and feeding the opponents' ``rng``.

``action_masks()`` is a method of the environment itself, so ``sb3_contrib.MaskablePPO`` works under
``SubprocVecEnv`` without ``ActionMasker``. The environment pickles when its opponents and
``agent_factory`` do (agents built from names are rebuilt lazily in each process).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gameshelf.envs.core.driving import (
    ILLEGAL_ACTION_MODES,
    REWARD_MODES,
    check_action,
    check_choice,
    observed_state,
    resolve_chance,
    reward_values,
)
from gameshelf.envs.core.game import TERMINAL, Game, IllegalActionError, State

OpponentSpec = Any
"""An agent object (``act(state, seat, rng)``) or a name for ``agent_factory``."""
AgentFactory = Callable[[str, str], Any]


def _normalize_pool(opponents: OpponentSpec | Sequence[OpponentSpec] | Mapping[Any, float]) -> list[tuple[Any, float]]:
    """``[(spec, weight), ...]`` from one spec, a list of specs (equal weights) or ``{spec: weight}``."""
    if isinstance(opponents, Mapping):
        pool = [(spec, float(w)) for spec, w in opponents.items()]
    elif isinstance(opponents, (str, bytes)) or hasattr(opponents, "act"):
        pool = [(opponents, 1.0)]
    else:
        items = list(opponents)
        pool = []
        for item in items:
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], (int, float)):
                pool.append((item[0], float(item[1])))
            else:
                pool.append((item, 1.0))
    if not pool:
        raise ValueError("the opponent pool is empty; give at least one opponent")
    for spec, weight in pool:
        if weight < 0 or not np.isfinite(weight):
            raise ValueError(f"opponent {spec!r} has weight {weight}; weights must be finite and >= 0")
        if not isinstance(spec, str) and not hasattr(spec, "act"):
            raise TypeError(f"an opponent is an agent with act(state, seat, rng) or a name, got {spec!r}")
    if sum(w for _, w in pool) <= 0:
        raise ValueError("the opponent weights sum to 0")
    return pool


class SingleSeatEnv(gym.Env):  # type: ignore[type-arg]
    """One seat of ``env_id`` as a ``gymnasium.Env``; the other seats are played by ``opponents``.

    Args:
        env_id: a registered environment id (``envs.registered_ids()``).
        opponents: one opponent, a list of them (drawn uniformly), ``{opponent: weight}`` or a list of
            ``(opponent, weight)``; an opponent is an agent object or a name (``"random"``,
            ``"heuristic"``, ``"model:PATH"``). Each episode draws one opponent per other seat.
        agent_factory: ``factory(name, env_id) -> agent`` for opponents given by name other than
            ``"random"`` (``training.agents.make_agent`` is one).
        seat: the learner's seat; ``None`` (default) draws it uniformly each episode. ``reset(options=
            {"seat": k})`` fixes it for one episode.
        reward: ``"outcome"`` (changes of ``returns()``) or ``"score"`` (plus changes of ``scores()``).
        render_mode: ``"ansi"``, ``"rgb_array"`` or ``None``.
        illegal_action: ``"raise"`` (``IllegalActionError``, the game unchanged) or ``"penalize"`` (reward
            -1 and the episode ends, ``info["illegal_action"] = True``; like PettingZoo's
            ``TerminateIllegalWrapper``).
        **options: game options (e.g. ``num_players=3``).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        env_id: str,
        opponents: OpponentSpec | Sequence[OpponentSpec] | Mapping[Any, float] = "random",
        seat: int | None = None,
        agent_factory: AgentFactory | None = None,
        reward: str = "outcome",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **options: Any,
    ) -> None:
        from gameshelf.envs.registration import make_game

        check_choice("reward", reward, REWARD_MODES)
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        check_choice("render_mode", render_mode, self.metadata["render_modes"], none_ok=True)
        self.illegal_action = illegal_action
        self.env_id = env_id
        self.options = dict(options)
        self.game: Game = make_game(env_id, **options)
        info = self.game.info
        self.num_players = info.num_players
        if seat is not None and not (isinstance(seat, (int, np.integer)) and 0 <= seat < self.num_players):
            raise ValueError(f"seat={seat!r} is not allowed; allowed values: 0..{self.num_players - 1} or None")
        self.fixed_seat = None if seat is None else int(seat)
        self.reward_mode = reward
        self.render_mode = render_mode
        self.observation_space = spaces.Box(
            info.observation_low, info.observation_high, info.observation_shape, info.observation_dtype
        )
        self.action_space = spaces.Discrete(info.num_actions)
        self.max_game_length = info.max_game_length
        self.agent_factory = agent_factory
        self._pool = _normalize_pool(opponents)
        for spec, _ in self._pool:
            self._check_name(spec)
        self._agents: dict[Any, Any] = {}
        self.state: State | None = None
        self.seat = 0
        self.seat_opponents: dict[int, Any] = {}
        self.num_moves = 0
        self._last_value = 0.0
        self._done = True

    # ---- opponents --------------------------------------------------------------------------
    @property
    def opponents(self) -> list[tuple[Any, float]]:
        """The opponent pool as ``[(opponent, weight), ...]``."""
        return list(self._pool)

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec] | Mapping[Any, float]) -> None:
        """Replace the opponent pool (takes effect at the next ``reset``); usable via ``VecEnv.env_method``."""
        pool = _normalize_pool(opponents)
        for spec, _ in pool:
            self._check_name(spec)
        self._pool = pool
        keep = {spec for spec, _ in self._pool if isinstance(spec, str)}
        self._agents = {k: v for k, v in self._agents.items() if k in keep}

    def _check_name(self, spec: Any) -> None:
        if isinstance(spec, str) and spec != "random" and self.agent_factory is None:
            raise ValueError(f"opponent {spec!r} is a name: pass agent_factory=training.agents.make_agent, or an agent object")

    def _agent(self, spec: Any) -> Any:
        if not isinstance(spec, str):
            return spec
        agent = self._agents.get(spec)
        if agent is None:
            agent = _RandomAgent() if self.agent_factory is None else self.agent_factory(spec, self.env_id)
            self._agents[spec] = agent
        return agent

    def _draw_opponent(self) -> Any:
        weights = np.array([w for _, w in self._pool], dtype=np.float64)
        index = int(self.np_random.choice(len(self._pool), p=weights / weights.sum())) if len(self._pool) > 1 else 0
        return self._agent(self._pool[index][0])

    # ---- Gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        seat = (options or {}).get("seat", self.fixed_seat)
        if seat is not None and not (isinstance(seat, (int, np.integer)) and 0 <= seat < self.num_players):
            raise ValueError(f"seat={seat!r} is not allowed; allowed values: 0..{self.num_players - 1} or None")
        for _ in range(1000):
            self.seat = int(self.np_random.integers(self.num_players)) if seat is None else int(seat)
            self.seat_opponents = {s: self._draw_opponent() for s in range(self.num_players) if s != self.seat}
            state = self.game.new_initial_state()
            self.state = state
            self.num_moves = 0
            self._resolve_chance()
            self._last_value = 0.0
            self._last_value = self._value()
            self._done = False
            self._play_opponents()
            if self.state.current_player() == self.seat:
                # Anything gained before the learner's first move is paid with its first step.
                return self._observe(), self._info()
        raise RuntimeError(f"{self.env_id}: the learner's seat never got a turn in 1000 games")

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        state = self.state
        if state is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        try:
            action = self._check_action(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._done = True
            info = {**self._info(), "illegal_action": True}
            return self._observe(), -1.0, True, False, info
        state.apply_checked_action(action)  # checked against the mask just above
        self.num_moves += 1
        self._resolve_chance()
        self._play_opponents()
        value = self._value()
        reward = value - self._last_value
        self._last_value = value
        terminated = state.current_player() == TERMINAL
        truncated = not terminated and self.num_moves >= self.max_game_length
        self._done = terminated or truncated
        info = self._info()
        if self._done:
            info["final_returns"] = np.asarray(state.returns(), dtype=np.float64)
            info["final_scores"] = np.asarray(state.scores(), dtype=np.float64)
        return self._observe(), float(reward), bool(terminated), bool(truncated), info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner (boolean, length ``num_actions``); all False once the episode is over."""
        if self.state is None or self._done or self.state.current_player() != self.seat:
            return np.zeros(self.game.info.num_actions, dtype=bool)
        return np.asarray(self.state.legal_action_mask(), dtype=bool).copy()

    def render(self) -> Any:
        if self.state is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return self.state.render_image()
        if self.render_mode == "ansi":
            return self.state.to_text()
        gym.logger.warn("render() called without a render_mode; pass render_mode= to SingleSeatEnv.")
        return None

    # ---- pickling: agents built from names are rebuilt in the new process --------------------------
    def __getstate__(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["_agents"] = {}
        data["seat_opponents"] = {}
        data["_done"] = True
        return data

    # ---- helpers ------------------------------------------------------------------------------
    def _check_action(self, action: Any) -> int:
        action = check_action(action, self.game.info.num_actions)
        assert self.state is not None
        if not self.state.legal_action_mask()[action]:
            raise IllegalActionError(
                f"action {action} ({self.state.action_to_string(action)}) is not legal for seat {self.seat}; "
                f"legal actions: {self.state.legal_actions()}"
            )
        return action

    def _resolve_chance(self) -> None:
        assert self.state is not None
        resolve_chance(self.state, self.np_random)

    def _play_opponents(self) -> None:
        """Let the other seats move until it is the learner's turn, the game ends or it is truncated."""
        state = self.state
        assert state is not None
        while True:
            player = state.current_player()
            if player == TERMINAL or player == self.seat or self.num_moves >= self.max_game_length:
                return
            agent = self.seat_opponents[player]
            action = int(agent.act(observed_state(state, player, self.np_random), player, self.np_random))
            state.apply_action(action)
            self.num_moves += 1
            self._resolve_chance()

    def _value(self) -> float:
        state = self.state
        assert state is not None
        return float(reward_values(state, self.reward_mode)[self.seat])

    def _observe(self) -> np.ndarray:
        assert self.state is not None
        return np.asarray(self.state.observation(self.seat), dtype=self.observation_space.dtype)

    def _info(self) -> dict[str, Any]:
        return {"seat": self.seat, "action_mask": self.action_masks(), "num_moves": self.num_moves}


class _RandomAgent:
    """Uniformly random legal action (the default opponent)."""

    name = "random"

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])
