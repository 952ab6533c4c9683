"""Batched environments: N games of one id stepped together by the game's compiled kernels, one process.

    from gameshelf import vector
    env = vector.make("level_x-v0", num_envs=1024, seed=0, num_players=3)
    out = env.reset()                        # out.current_player (N,), out.observation (N, 212), out.action_mask (N, 49)
    out = env.step(actions)                  # actions: int array (N,), one legal action per game
    out.rewards, out.terminated, out.truncated

Every game is always at a decision: chance nodes are resolved inside ``reset`` and ``step`` with a
generator per game seeded from ``seed`` (the same seed gives the same games; the global ``random`` and
``np.random`` are never used). ``observation`` is that of the player to move (egocentric, as the AEC
environment's ``observe``), ``action_mask`` its legal actions. ``rewards[i]`` is every seat's reward of
the step (the change in the outcome returns: zero until a game ends, then its final returns), the same as
the AEC environment's per-step rewards on the same game. A game that ends (``terminated``) or reaches the
game's ``max_game_length`` decisions (``truncated``) is reset in the same step: its final rewards are
reported, and the observation, mask and player are already those of the next game.

The returned arrays are buffers of the environment, overwritten by the next ``reset`` or ``step``: copy
them to keep them (``action_mask`` is read-only: the next step checks the actions against it; so is
``observation``: where a game's kernel has ``observation_update``, a step rewrites only the entries of an
observation that change). An illegal
action raises ``IllegalActionError`` naming the games (indices) and their actions, and nothing is changed
(the batch driver checks every action against the masks before it applies any).
Only games with compiled kernels can be batched: ``spec(id).batched``, read from the game; ``BATCHED_IDS``
lists them. The stepping is the kernel template's one batch driver (``envs.core.kernel``), compiled over
the game's kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from gameshelf.envs.core.episode import observed_state
from gameshelf.envs.core.game import Game, IllegalActionError
from gameshelf.envs.core.kernel import KernelState, illegal_actions, kernel_drivers, masked_random, seed_generators
from gameshelf.envs.registration import batched_ids, make_game, spec


def __getattr__(name: str) -> Any:
    if name == "BATCHED_IDS":  # read from the games when asked for (loading every game class takes a moment)
        return tuple(batched_ids())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


BATCHED_IDS: tuple[str, ...]
"""The ids whose game has compiled kernels (``envs.batched_ids()``, derived from the registry: no list of its own)."""


@dataclass(frozen=True)
class Batch:
    """What ``reset`` and ``step`` return: one row per game (arrays are the environment's buffers)."""

    current_player: np.ndarray
    """``(N,) int64``: the seat to move."""
    observation: np.ndarray
    """``(N, *observation_shape)``: the observation of the seat to move."""
    action_mask: np.ndarray
    """``(N, num_actions) bool``: its legal actions."""
    rewards: np.ndarray
    """``(N, num_players) float64``: every seat's reward of this step (zeros after ``reset``)."""
    terminated: np.ndarray
    """``(N,) bool``: the game ended in this step (then it was reset)."""
    truncated: np.ndarray
    """``(N,) bool``: the game reached ``max_game_length`` decisions in this step (then it was reset)."""


def game_kernel(game: Game) -> ModuleType:
    """The compiled kernel module of ``game``, or ``ValueError`` naming the ids that have one."""
    kernel = getattr(game, "kernel", None)
    if kernel is None:
        raise ValueError(f"{game.name} has no compiled kernel, so it cannot be batched; batched ids: {batched_ids()}")
    return kernel  # type: ignore[no-any-return]


class VectorEnv:
    """``num_envs`` games of ``env_id`` stepped together (see the module docstring)."""

    def __init__(self, env_id: str, num_envs: int, seed: int | None = None, **options: Any) -> None:
        if not spec(env_id).batched:  # an unknown id raises with the known ids
            raise ValueError(f"{env_id} has no compiled kernel, so it cannot be batched; batched ids: {batched_ids()}")
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        self.env_id = env_id
        self.game = make_game(env_id, **options)
        self.kernel = game_kernel(self.game)
        self.drivers = kernel_drivers(self.kernel)
        """The game's copy of the template's drivers (``envs.core.kernel.kernel_drivers``)."""
        info = self.game.info
        self.num_envs = n = int(num_envs)
        self.num_players = info.num_players
        self.num_actions = info.num_actions
        self.observation_shape = info.observation_shape
        self.max_game_length = info.max_game_length
        self._initial: np.ndarray = self.game.initial  # type: ignore[attr-defined]
        self.states = np.empty((n, self._initial.shape[0]), dtype=self._initial.dtype)
        """The kernel state vector of every game (read-only for callers)."""
        self.rngs = np.empty((n, 4), dtype=np.int64)
        self._seed = seed
        self._players = np.zeros(n, dtype=np.int64)
        self._obs = np.zeros((n, *info.observation_shape), dtype=info.observation_dtype)
        self._flat_obs = self._obs.reshape(n, -1)
        self._shown_obs = self._obs.view()
        self._shown_obs.flags.writeable = False  # a kernel with observation_update updates what the buffer holds
        self._memo: np.ndarray | None = None
        """The record ``observation_update`` keeps per row (``envs.core.kernel.OPTIONAL_INTERFACE``), for a
        kernel that has one: the observations are then updated where they change, not written whole."""
        if hasattr(self.kernel, "observation_update"):
            self._memo = np.full((n, self.kernel.OBS_MEMO), -1, dtype=self._initial.dtype)
        self._memo_arg = () if self._memo is None else (self._memo,)
        self._masks = np.zeros((n, info.num_actions), dtype=bool)
        self._shown_masks = self._masks.view()
        self._shown_masks.flags.writeable = False  # the legality check of the next step reads _masks
        self._rewards = np.zeros((n, info.num_players), dtype=np.float64)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._bad = np.zeros(n, dtype=bool)
        self._all = np.ones(n, dtype=bool)
        self._started = False
        self._out = Batch(self._players, self._shown_obs, self._shown_masks, self._rewards, self._terminated, self._truncated)
        """What ``reset`` and ``step`` return: the same buffers every time, so one ``Batch`` made once."""

    def reset(self, seed: int | None = None) -> Batch:
        """Start a new game in every slot. ``seed`` reseeds the generators (default: the seed given to ``make``
        on the first reset, then the generators simply go on)."""
        if seed is not None or not self._started:
            self.rngs[:] = seed_generators(seed if seed is not None else self._seed, self.num_envs)
        self.drivers.batch_reset(
            self.states, self.rngs, self._initial, self._players, self._flat_obs, self._masks, *self._memo_arg
        )
        self._rewards[:] = 0.0
        self._terminated[:] = False
        self._truncated[:] = False
        self._started = True
        return self._out

    def step(self, actions: Any, active: Any = None) -> Batch:
        """Apply one action per game (an int array of shape ``(num_envs,)``); illegal ones raise, nothing changes.

        ``active`` (array-like of ``num_envs`` bools, e.g. a list): step only these games; the others keep
        their position (their actions are ignored, their rewards are zero). Default: every game.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        active = self._all if active is None else self._check_active(active)
        acts = np.asarray(actions)
        if acts.dtype != np.int64:  # the common case (random_actions, a policy's int64 array) skips this
            if acts.dtype.kind not in "iu":  # numpy's signed and unsigned integers
                raise ValueError(f"actions must be an integer array of shape ({self.num_envs},), got {acts.dtype} {acts.shape}")
            acts = acts.astype(np.int64)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"actions must be an integer array of shape ({self.num_envs},), got {acts.dtype} {acts.shape}")
        refused = self.drivers.batch_step(  # checks the actions against the masks first: illegal ones change nothing
            self.states,
            self.rngs,
            self._initial,
            acts,
            active,
            self.max_game_length,
            self._players,
            self._flat_obs,
            self._masks,
            self._rewards,
            self._terminated,
            self._truncated,
            *self._memo_arg,
        )
        if refused:
            illegal_actions(self._masks, acts, active, self._bad)
            bad = np.flatnonzero(self._bad)
            shown = ", ".join(f"env {i}: action {acts[i]}" for i in bad[:10]) + (" ..." if len(bad) > 10 else "")
            raise IllegalActionError(f"illegal actions in {len(bad)} game(s) (nothing was applied): {shown}")
        return self._out

    def _check_active(self, active: Any) -> np.ndarray:
        """``active`` as a contiguous bool array of shape ``(num_envs,)``; ``ValueError`` naming what was given."""
        if type(active) is np.ndarray and active.dtype == np.bool_ and active.shape == self._all.shape:
            return np.ascontiguousarray(active)  # the common case, without building the message below
        expected = f"active must be {self.num_envs} bools (an array or a list)"
        try:
            mask = np.asarray(active)
        except (ValueError, TypeError) as err:  # e.g. a ragged list
            raise ValueError(f"{expected}, got {type(active).__name__}: {err}") from None
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(f"{expected}, got {mask.dtype} of shape {mask.shape}")
        return np.ascontiguousarray(mask)

    def random_actions(self, rngs: np.ndarray) -> np.ndarray:
        """One uniformly random legal action per game, drawn with generator ``i`` of ``rngs`` for game ``i``
        (``envs.core.kernel.seed_generators(seed, num_envs)``, updated in place); for baselines and benchmarks."""
        out = np.empty(self.num_envs, dtype=np.int64)
        masked_random(self._masks, rngs, out)
        return out

    def opponent_agent(self, opponents: str) -> Any:
        """Who plays the other seats of a batched single-seat view: None for ``"random"`` (``random_actions``), the
        game's heuristic agent for ``"heuristic"`` (``ValueError`` when the game has none)."""
        if opponents != "heuristic":
            return None
        heuristic = spec(self.env_id).load_heuristic()
        if heuristic is None:
            raise ValueError(f"{self.env_id} has no heuristic agent; use opponents='random'")
        return heuristic()

    def row_views(self) -> list[KernelState]:
        """A ``State`` per game whose kernel state is that game's row of ``states`` (what an agent looks at); made
        again after each ``reset``."""
        views = []
        for i in range(self.num_envs):
            state = self.game.new_initial_state()
            assert isinstance(state, KernelState)  # every batched game's state is one
            state.view_row(self.states, i)
            views.append(state)
        return views

    def opponent_actions(
        self, waiting: np.ndarray, views: Any, agent: Any, rngs: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Actions for the games marked ``waiting`` (zero elsewhere): random (``random_actions`` with ``rngs``) when
        ``agent`` is None, else ``agent.act`` on what the player to move sees (``observed_state``) in ``views[i]``,
        the game's state view, with ``rng``. How the batched single-seat views play the other seats."""
        if agent is None:
            return self.random_actions(rngs)
        actions = np.zeros(self.num_envs, dtype=np.int64)
        for i in np.flatnonzero(waiting):
            state = views[i]
            seat = state.current_player()
            actions[i] = agent.act(observed_state(state, seat, rng), seat, rng)
        return actions

    def __repr__(self) -> str:
        return f"VectorEnv({self.env_id!r}, num_envs={self.num_envs}, {self.game!r})"


def make(env_id: str, num_envs: int = 1, seed: int | None = None, **options: Any) -> VectorEnv:
    """``num_envs`` games of ``env_id`` (game options as keywords) stepped together; see the module docstring."""
    return VectorEnv(env_id, num_envs, seed, **options)
