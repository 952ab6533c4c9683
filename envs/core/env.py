"""``GameAECEnv``: the one PettingZoo AEC environment, a view over an ``Episode`` of any ``Game``.

Like Shimmy's OpenSpiel adapter it receives a game object: ``GameAECEnv(game)``; ``gameshelf.make(id)``
builds the game of a registered id and wraps it. The episode resolves chance with the environment's own
seeded generator right after ``reset`` and after each ``step`` (agents never see chance nodes), counts the
moves, computes rewards and applies the illegal-action mode; this class keeps PettingZoo's bookkeeping.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from gameshelf.envs.core.episode import Episode, check_choice
from gameshelf.envs.core.game import Game, State
from gameshelf.envs.core.record import GameRecord

RENDER_MODES = ("ansi", "rgb_array", "human")
RESET_OPTIONS = ("chance_outcomes",)
"""Keys ``reset(options=...)`` accepts: ``chance_outcomes``, outcomes for the game's chance nodes in order
(e.g. a recorded deal), drawn from the seeded generator once they run out."""


def check_reset_options(options: Any, allowed: tuple[str, ...], strict: bool = True) -> dict[str, Any]:
    """``reset(options=...)`` as a dict of known keys.

    A non-dict raises ``TypeError``. Unknown keys raise ``ValueError`` (``strict``) or are named in a
    warning and ignored (the AEC environment: PettingZoo's own ``api_test`` resets with an arbitrary key).
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"reset(options=...) takes a dict or None, got {type(options).__name__}")
    unknown = sorted(map(str, set(options) - set(allowed)))
    if unknown:
        known = f"known keys: {list(allowed)}" if allowed else "this environment takes no reset options"
        if strict:
            raise ValueError(f"unknown reset option(s) {unknown}; {known}")
        warnings.warn(f"reset(options=...): unknown key(s) {unknown} ignored; {known}", UserWarning, stacklevel=3)
    return {k: v for k, v in options.items() if k in allowed}


def check_seed(seed: Any) -> None:
    """A seed is None or a non-negative Python int, as Gymnasium's seeding wants; a bool is not a seed.

    ``TypeError`` for anything else (``True``, ``1.0``, ``"1"``), ``ValueError`` for a negative int.
    """
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be a non-negative int or None, got {type(seed).__name__} {seed!r:.40}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int or None, got {seed}")


class GameAECEnv(AECEnv):  # type: ignore[misc]
    """PettingZoo AEC environment over a ``Game``.

    Args:
        game: the rules engine with its options (``gameshelf.make_game(id, ...)`` or any ``Game``).
        env_id: the registered id (names the environment and its records); default the game's name.
        render_mode: ``"ansi"``, ``"rgb_array"``, ``"human"`` or None.
        reward: ``"outcome"`` (changes of ``returns()``) or ``"score"`` (plus changes of ``scores()``).
        illegal_action: ``"raise"`` (``IllegalActionError``, nothing changes) or ``"penalize"`` (-1 for the
            offender and the game ends for everyone). Under both, an action that is not an int in range (a
            float, bool, string, None for a live agent, out of range) raises, as PettingZoo's wrapper does.
    """

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self,
        game: Game,
        env_id: str | None = None,
        render_mode: str | None = None,
        reward: str = "outcome",
        illegal_action: str = "raise",
    ) -> None:
        super().__init__()
        if not isinstance(game, Game):
            raise TypeError(f"GameAECEnv takes a Game object (gameshelf.make_game(id)), got {type(game).__name__}")
        check_choice("render_mode", render_mode, RENDER_MODES, none_ok=True)
        self.game = game
        self.env_id = env_id or game.name
        self.episode = Episode(game, reward=reward, illegal_action=illegal_action, env_id=self.env_id)
        self.render_mode = render_mode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.metadata = {**type(self).metadata, "name": self.env_id}

        info = game.info
        self.possible_agents = [f"player_{i}" for i in range(info.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        mask_space = spaces.Box(0, 1, (info.num_actions,), np.int8)
        obs_space = spaces.Box(info.observation_low, info.observation_high, info.observation_shape, info.observation_dtype)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_space, "action_mask": mask_space}) for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space[Any]] = {a: spaces.Discrete(info.num_actions) for a in self.possible_agents}
        self._zero_mask = np.zeros(info.num_actions, dtype=np.int8)
        self.state_space = spaces.Box(
            info.observation_low,
            info.observation_high,
            (info.num_players, *info.observation_shape),
            info.observation_dtype,
        )
        self.np_random, _ = seeding.np_random(None)
        self._seeded = False

    @property
    def game_state(self) -> State | None:
        """The engine state of the running game (None before ``reset``)."""
        return self.episode.state

    # ---- PettingZoo API -----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. A reset that is refused (a bad seed or option, an impossible chance outcome)
        raises and leaves the environment exactly as it was: the running game and its generator."""
        check_seed(seed)
        opts = check_reset_options(options, RESET_OPTIONS, strict=False)
        rng = seeding.np_random(seed)[0] if seed is not None or not self._seeded else self.np_random
        self.episode.reset(rng, chance_outcomes=opts.get("chance_outcomes"))  # raises before anything changes
        self.np_random, self._seeded = rng, True
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._sync_flags(self.possible_agents[0])

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        if self.episode.state is None:
            self.episode.require_state()  # raises the clear error
        return super().agent_iter(max_iter)

    @property
    def num_moves(self) -> int:
        return self.episode.num_moves

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.episode.state if self.episode.state is not None else self.episode.require_state()
        seat = self.agent_name_mapping[agent]
        obs = state.observation(seat)
        done = self.terminations.get(agent, True) or self.truncations.get(agent, True)  # removed agents are done
        to_act = not done and state.current_player() == seat
        mask = self.episode.legal_mask().astype(np.int8) if to_act else self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.episode.state is None:
            self.episode.require_state()  # raises the clear error
        return super().last(observe)  # type: ignore[no-any-return]

    def state(self) -> np.ndarray:
        return self.episode.require_state().global_observation()

    def step(self, action: Any) -> None:
        if self.episode.state is None:
            self.episode.require_state()  # raises the clear error
        if not self.agents:
            raise RuntimeError("the game is over and every agent is done; call reset() to play again")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"{agent} is done; the only valid step is step(None), got {action!r}")
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is still playing; step(None) is only for finished agents")
        rewards = self.episode.step(action)  # a refused action raises here, before anything changes
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(r) for a, r in zip(self.possible_agents, rewards, strict=True) if a in self.rewards}
        if self.episode.offender is not None:
            self.infos[agent] = {**self.infos[agent], "illegal_action": True}
        self._sync_flags(agent)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Any:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to make().")
            return None
        state = self.episode.require_state()
        if self.render_mode == "rgb_array":
            return state.render_image()
        text = state.to_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def record(self) -> GameRecord:
        """The game so far as a record (every option, every action with chance, and how it ended)."""
        return self.episode.record()

    # ---- helpers ------------------------------------------------------------------------------
    def _sync_flags(self, default: str) -> None:
        """Copy the episode's end flags and whose turn it is (``default`` once the game is over)."""
        player, terminated, truncated = self.episode.status()
        if terminated:
            self.terminations = dict.fromkeys(self.agents, True)
        elif truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[player] if player >= 0 else default
