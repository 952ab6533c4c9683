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

The game is driven by an ``Episode`` (the core's one driver) with the environment's own generator
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

from gameshelf.envs.core.agent import RandomAgent
from gameshelf.envs.core.env import check_reset_options, check_seed
from gameshelf.envs.core.episode import Episode, check_choice
from gameshelf.envs.core.game import Game, State
from gameshelf.envs.registration import make_game, registered_ids, spec

OpponentSpec = Any
"""An agent object (``act(state, seat, rng)``) or a name: ``"random"``, ``"heuristic"``, or one for ``agent_factory``."""
AgentFactory = Callable[[str, str], Any]
RESET_OPTIONS = ("seat",)


def _normalize_pool(opponents: OpponentSpec | Sequence[OpponentSpec] | Mapping[Any, float]) -> list[tuple[Any, float]]:
    """``[(spec, weight), ...]`` from one spec, a list of specs (equal weights) or ``{spec: weight}``."""
    if isinstance(opponents, Mapping):
        pool = [(name, float(w)) for name, w in opponents.items()]
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
    for opponent, weight in pool:
        if weight < 0 or not np.isfinite(weight):
            raise ValueError(f"opponent {opponent!r} has weight {weight}; weights must be finite and >= 0")
        if not isinstance(opponent, str) and not hasattr(opponent, "act"):
            raise TypeError(f"an opponent is an agent with act(state, seat, rng) or a name, got {opponent!r}")
    if sum(w for _, w in pool) <= 0:
        raise ValueError("the opponent weights sum to 0")
    return pool


class SingleSeatEnv(gym.Env):  # type: ignore[type-arg]
    """One seat of a game as a ``gymnasium.Env``; the other seats are played by ``opponents``.

    Args:
        game: a registered environment id (``gameshelf.registered_ids()``) or a ``Game`` object.
        opponents: one opponent, a list of them (drawn uniformly), ``{opponent: weight}`` or a list of
            ``(opponent, weight)``; an opponent is an agent object or a name: ``"random"``,
            ``"heuristic"`` (the game's own heuristic, from its registration), or any name
            ``agent_factory`` knows (``gameshelf.training.agents.make_agent`` knows ``"reference"``,
            ``"model:PATH"`` and ``"mcts:..."``).
            Each episode draws one opponent per other seat.
        agent_factory: ``factory(name, env_id) -> agent`` for other names.
        seat: the learner's seat; ``None`` (default) draws it uniformly each episode. ``reset(options=
            {"seat": k})`` fixes it for one episode.
        reward: ``"outcome"`` (changes of ``returns()``) or ``"score"`` (plus changes of ``scores()``).
        render_mode: ``"ansi"``, ``"rgb_array"`` or ``None``.
        illegal_action: ``"penalize"`` (default: reward -1 and the episode ends, ``info["illegal_action"] =
            True``) or ``"raise"`` (``IllegalActionError``, nothing changes). Penalize is the default so that
            algorithms without masks (plain PPO, DQN, Gymnasium's and SB3's env checkers, which sample
            unmasked actions) can run and learn that illegal moves are bad; ``MaskablePPO`` never picks an
            illegal action, so the mode does not change its training. An action that is not an int in range
            raises under both.
        **options: game options (e.g. ``num_players=3``) when ``game`` is an id.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: Game | str,
        opponents: OpponentSpec | Sequence[OpponentSpec] | Mapping[Any, float] = "random",
        seat: int | None = None,
        agent_factory: AgentFactory | None = None,
        reward: str = "outcome",
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        **options: Any,
    ) -> None:
        check_choice("render_mode", render_mode, self.metadata["render_modes"], none_ok=True)
        if isinstance(game, str):
            self.env_id = game
            self.game: Game = make_game(game, **options)
        elif isinstance(game, Game):
            if options:
                raise TypeError(f"game options {sorted(options)} go with an id; a Game object has its options already")
            entry = f"{type(game).__module__}:{type(game).__name__}"  # no game module is imported to find its id
            self.env_id = next((i for i in registered_ids() if spec(i).entry_point == entry), game.name)
            self.game = game
        else:
            raise TypeError(f"SingleSeatEnv takes an environment id or a Game object, got {type(game).__name__}")
        self.episode = Episode(self.game, reward=reward, illegal_action=illegal_action, env_id=self.env_id)
        self.illegal_action = illegal_action
        self.options = dict(self.game.options)
        info = self.game.info
        self.num_players = info.num_players
        self.fixed_seat = self._check_seat(seat)
        self.reward_mode = reward
        self.render_mode = render_mode
        self.observation_space = spaces.Box(
            info.observation_low, info.observation_high, info.observation_shape, info.observation_dtype
        )
        self.action_space = spaces.Discrete(info.num_actions)
        self.max_game_length = info.max_game_length
        self.agent_factory = agent_factory
        self._pool = _normalize_pool(opponents)
        for name, _ in self._pool:
            self._check_name(name)
        self._agents: dict[Any, Any] = {}
        self.seat = 0
        self.seat_opponents: dict[int, Any] = {}
        """The opponent spec (name or agent) playing each other seat this episode."""
        self._done = True

    @property
    def state(self) -> State | None:
        """The engine state of the running game (None before ``reset``)."""
        return self.episode.state

    @property
    def num_moves(self) -> int:
        return self.episode.num_moves

    def _check_seat(self, seat: Any) -> int | None:
        if seat is None:
            return None
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.num_players:
            raise ValueError(f"seat={seat!r} is not allowed; allowed values: 0..{self.num_players - 1} or None")
        return int(seat)

    # ---- opponents --------------------------------------------------------------------------
    @property
    def opponents(self) -> list[tuple[Any, float]]:
        """The opponent pool as ``[(opponent, weight), ...]``."""
        return list(self._pool)

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec] | Mapping[Any, float]) -> None:
        """Replace the opponent pool (takes effect at the next ``reset``); usable via ``VecEnv.env_method``."""
        pool = _normalize_pool(opponents)
        for name, _ in pool:
            self._check_name(name)
        self._pool = pool
        keep = {name for name, _ in self._pool if isinstance(name, str)}
        self._agents = {k: v for k, v in self._agents.items() if k in keep}

    def _check_name(self, name: Any) -> None:
        if not isinstance(name, str) or name == "random" or self.agent_factory is not None:
            return
        if name == "heuristic":
            if self.env_id not in registered_ids() or spec(self.env_id).load_heuristic() is None:
                raise ValueError(f"{self.env_id} has no heuristic agent registered")
            return
        raise ValueError(
            f"opponent {name!r} is a name this environment cannot build: pass "
            "agent_factory=gameshelf.training.agents.make_agent, or an agent object"
        )

    def _agent(self, name: Any) -> Any:
        if not isinstance(name, str):
            return name
        agent = self._agents.get(name)
        if agent is None:
            if self.agent_factory is not None:
                agent = self.agent_factory(name, self.env_id)
            elif name == "heuristic":
                heuristic = spec(self.env_id).load_heuristic()
                assert heuristic is not None  # checked by _check_name
                agent = heuristic()
            else:
                agent = RandomAgent()
            self._agents[name] = agent
        return agent

    def _draw_opponent(self) -> Any:
        weights = np.array([w for _, w in self._pool], dtype=np.float64)
        index = int(self.np_random.choice(len(self._pool), p=weights / weights.sum())) if len(self._pool) > 1 else 0
        return self._pool[index][0]

    # ---- Gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        check_seed(seed)  # a refused seed or option leaves the generator as it was
        opts = check_reset_options(options, RESET_OPTIONS)
        seat = self._check_seat(opts["seat"]) if "seat" in opts else self.fixed_seat
        super().reset(seed=seed)
        for _ in range(1000):
            self.seat = int(self.np_random.integers(self.num_players)) if seat is None else seat
            self.seat_opponents = {s: self._draw_opponent() for s in range(self.num_players) if s != self.seat}
            self.episode.reset(self.np_random)
            self._done = False
            self._play_opponents()
            if self.episode.current_player == self.seat:
                # Anything gained before the learner's first move is paid with its first step.
                return self._observe(), self._info()
        raise RuntimeError(f"{self.env_id}: the learner's seat never got a turn in 1000 games")

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        episode = self.episode
        if episode.state is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        reward = float(episode.step(action)[self.seat])  # a refused action raises here, nothing changed
        if episode.offender is None:
            reward += float(self._play_opponents()[self.seat])
        terminated, truncated = episode.terminated, episode.truncated
        self._done = terminated or truncated
        info = self._info()
        if episode.offender is not None:
            info["illegal_action"] = True
        if self._done:
            info["final_returns"] = np.asarray(episode.require_state().returns(), dtype=np.float64)
            info["final_scores"] = np.asarray(episode.require_state().scores(), dtype=np.float64)
        return self._observe(), reward, bool(terminated), bool(truncated), info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner (boolean, length ``num_actions``); all False once the episode is over."""
        if self.episode.state is None or self._done or self.episode.current_player != self.seat:
            return np.zeros(self.game.info.num_actions, dtype=bool)
        return self.episode.legal_mask().copy()

    def render(self) -> Any:
        state = self.episode.state
        if state is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return state.render_image()
        if self.render_mode == "ansi":
            return state.to_text()
        gym.logger.warn("render() called without a render_mode; pass render_mode= to SingleSeatEnv.")
        return None

    # ---- pickling: agents built from names are rebuilt in the new process --------------------------
    def __getstate__(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["_agents"] = {}
        return data

    # ---- helpers ------------------------------------------------------------------------------
    def _play_opponents(self) -> np.ndarray:
        """Let the other seats move until it is the learner's turn or the episode is over; their rewards."""
        players = {s: self._agent(name) for s, name in self.seat_opponents.items()}
        return self.episode.play(players, until=self.seat)

    def _observe(self) -> np.ndarray:
        state = self.episode.require_state()
        return np.asarray(state.observation(self.seat), dtype=self.observation_space.dtype)

    def _info(self) -> dict[str, Any]:
        return {"seat": self.seat, "action_mask": self.action_masks(), "num_moves": self.episode.num_moves}
