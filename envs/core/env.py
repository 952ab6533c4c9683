"""``GameAECEnv``: the one PettingZoo AEC adapter that drives every game engine.

Chance nodes are resolved with the environment's own seeded generator right after ``reset`` and after
each ``step``, so agents never see them. Rewards are changes of the engine's ``returns()`` (plus its
``scores()`` with ``reward="score"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from gameshelf.envs.core.driving import (
    ILLEGAL_ACTION_MODES,
    REWARD_MODES,
    check_action,
    check_choice,
    resolve_chance,
    reward_values,
)
from gameshelf.envs.core.game import TERMINAL, Game, IllegalActionError, State
from gameshelf.envs.core.record import GameRecord

RENDER_MODES = ("ansi", "rgb_array", "human")


class GameAECEnv(AECEnv):  # type: ignore[misc]
    """PettingZoo AEC environment over a ``Game``. Build it with ``envs.make(id, **options)``."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self,
        env_id: str,
        render_mode: str | None = None,
        reward: str = "outcome",
        illegal_action: str = "raise",
        **options: Any,
    ) -> None:
        super().__init__()
        from gameshelf.envs.registration import make_game

        check_choice("render_mode", render_mode, RENDER_MODES, none_ok=True)
        check_choice("reward", reward, REWARD_MODES)
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.env_id = env_id
        self.game: Game = make_game(env_id, **options)
        self.render_mode = render_mode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.metadata = {**type(self).metadata, "name": env_id}

        info = self.game.info
        self.possible_agents = [f"player_{i}" for i in range(info.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        mask_space = spaces.Box(0, 1, (info.num_actions,), np.int8)
        obs_space = spaces.Box(info.observation_low, info.observation_high, info.observation_shape, info.observation_dtype)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_space, "action_mask": mask_space}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(info.num_actions) for a in self.possible_agents}
        self._zero_mask = np.zeros(info.num_actions, dtype=np.int8)
        self.state_space = spaces.Box(
            info.observation_low,
            info.observation_high,
            (info.num_players, *info.observation_shape),
            info.observation_dtype,
        )
        self.game_state: State | None = None
        self._mask_key: tuple[State, int] | None = None
        self._mask = self._zero_mask.astype(bool)
        self.np_random, _ = seeding.np_random(None)

    # ---- PettingZoo API -----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or not hasattr(self, "_seeded"):
            self.np_random, _ = seeding.np_random(seed)
            self._seeded = True
        state = self.game.new_initial_state()
        self._resolve_chance(state)
        self.game_state = state
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.num_moves = 0
        self._last_values = self._values(state)
        self._finish_if_over()
        if not self.agents or all(self.terminations.values()):
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[state.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._require_state()
        seat = self.agent_name_mapping[agent]
        obs = state.observation(seat)
        done = self.terminations.get(agent, True) or self.truncations.get(agent, True)  # removed agents are done
        to_act = state.current_player() == seat and not done
        mask = self._legal_mask(state).astype(np.int8) if to_act else self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        return self._require_state().global_observation()

    def step(self, action: Any) -> None:
        state = self._require_state()
        if not self.agents:
            raise RuntimeError("the game is over and every agent is done; call reset() to play again")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"{agent} is done; the only valid step is step(None), got {action!r}")
            self._was_dead_step(action)
            return
        action = self._check_action(action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if not self._legal_mask(state)[action]:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"action {action} ({state.action_to_string(action)}) is not legal for {agent}; "
                    f"legal actions: {state.legal_actions()}"
                )
            self._penalize(agent)
            return
        state.apply_checked_action(action)
        self._resolve_chance(state)
        self.num_moves += 1
        values = self._values(state)
        for a, delta in zip(self.possible_agents, values - self._last_values, strict=True):
            self.rewards[a] = float(delta)
        self._last_values = values
        self._finish_if_over()
        if state.current_player() >= 0 and not all(self.terminations.values()):
            self.agent_selection = self.possible_agents[state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Any:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to make().")
            return None
        state = self._require_state()
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
        """The game so far as a record (options and every action, chance outcomes included)."""
        return GameRecord.from_state(self.env_id, self._require_state())

    # ---- helpers ------------------------------------------------------------------------------
    def _require_state(self) -> State:
        if self.game_state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game_state

    def _check_action(self, action: Any) -> int:
        if action is None:
            raise ValueError(f"{self.agent_selection} is still playing; step(None) is only for finished agents")
        return check_action(action, self.game.info.num_actions)

    def _legal_mask(self, state: State) -> np.ndarray:
        """The legal mask of the position, computed once per position (observe() and step() both need it)."""
        key = (state, len(state.history))
        if self._mask_key is None or self._mask_key[0] is not state or self._mask_key[1] != key[1]:
            self._mask = state.legal_action_mask()
            self._mask_key = key
        return self._mask

    def _resolve_chance(self, state: State) -> None:
        resolve_chance(state, self.np_random)

    def _values(self, state: State) -> np.ndarray:
        return reward_values(state, self.reward_mode)

    def _finish_if_over(self) -> None:
        state = self._require_state()
        if state.current_player() == TERMINAL:
            self.terminations = {a: True for a in self.agents}
        elif self.num_moves >= self.game.info.max_game_length:
            self.truncations = {a: True for a in self.agents}

    def _penalize(self, agent: str) -> None:
        """PettingZoo's TerminateIllegalWrapper: the offender gets -1 and the game ends for everyone."""
        self.rewards = {a: 0.0 for a in self.agents}
        self.rewards[agent] = -1.0
        self.terminations = {a: True for a in self.agents}
        self.infos[agent] = {**self.infos[agent], "illegal_action": True}
        self._accumulate_rewards()
