"""A tiny Nim game for the learner-side tests (wrappers, training, evaluation) without any real game.

A pile of stones; in turn each player takes 1 (action 0) or 2 (action 1) stones, or passes (action 2,
only with ``allow_pass``); whoever takes the last stone wins (+1, the others share the rest). Score: the
stones a player took. ``chance``: after every move a chance node adds 0 or 1 stone. ``hidden``: each seat
gets a private coin at the start (chance) that only it sees; ``resample_hidden`` redeals the other coins
and rewrites them in the history. ``position()`` / ``state_from_position`` round-trip any state.
Perfect play leaves a multiple of 3.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gameshelf import envs
from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, GameFacts, Option, State, int_at_least, rank_returns
from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.core.position import PositionReader

NIM = "toy_nim-v0"
LAYOUT = ObservationLayout()
LAYOUT.add("pile", 13, "stones left, one-hot 0..12 (12 = 12 or more)")
LAYOUT.add("to_move", 1, "the observer is to move")
LAYOUT.add("coin", 1, "the observer's own coin (`hidden`)")
LAYOUT.add("pile_size", 1, "stones left / 30, at most 1")
OBS = LAYOUT.size


def register_nim() -> str:
    """Register ``toy_nim-v0`` (idempotent); returns the id."""
    if NIM not in envs.registered_ids():
        envs.register(NIM, "tests.toy_nim:NimGame")
    return NIM


def unregister_nim() -> None:
    envs.unregister(NIM)


def make_nim_env(**kwargs):
    """A ``SingleSeatEnv`` over Nim, registering it first (usable inside ``SubprocVecEnv`` workers)."""
    from gameshelf.wrappers import SingleSeatEnv

    register_nim()
    return SingleSeatEnv(NIM, **kwargs)


class NimGame(Game):
    name = "toy_nim"
    OPTIONS = {
        "num_players": Option(2, choices=(2, 3, 4, 5, 6, 7, 8)),
        "pile": Option(7, check=int_at_least(1), allowed="an int >= 1"),
        "allow_pass": Option(False, choices=(False, True)),
        "chance": Option(False, choices=(False, True)),
        "hidden": Option(False, choices=(False, True)),
        "max_length": Option(60, check=int_at_least(1), allowed="an int >= 1"),
    }

    LAYOUT = LAYOUT

    def _facts(self) -> GameFacts:
        o = self.options
        return GameFacts(
            num_actions=3, max_game_length=o["max_length"], has_chance=o["chance"] or o["hidden"], has_hidden_info=o["hidden"]
        )

    def new_initial_state(self) -> NimState:
        return NimState(self)

    def state_from_position(self, position: Mapping[str, Any]) -> NimState:
        read = PositionReader(position, game=self.name)
        n = self.info.num_players
        state = self.new_initial_state()
        state.pile = read.integer("pile", 0, 10**6)
        state.player = read.integer("to_move", 0, n - 1)
        state.taken = read.int_list("taken", 0, 10**6, length=n)
        state.coins = read.int_list("coins", 0, 1)
        state.pending_chance = read.flag("pending_chance")
        state.winner = read.integer("winner", -1, n - 1)
        read.done()
        if len(state.coins) > n or (state.coins and not self.options["hidden"]):
            raise ValueError(f"toy_nim position: 'coins' holds one coin per seat dealt so far (hidden={self.options['hidden']})")
        return state


class NimState(State):
    def __init__(self, game: NimGame) -> None:
        super().__init__(game)
        self.pile: int = game.options["pile"]
        self.player = 0
        self.taken = [0] * game.info.num_players
        self.coins: list[int] = []
        self.pending_chance = False
        self.winner = -1
        self.resampled_for: int | None = None

    @property
    def n(self) -> int:
        return self.game.info.num_players

    def current_player(self) -> int:
        if self.winner >= 0:
            return TERMINAL
        if (self.game.options["hidden"] and len(self.coins) < self.n) or self.pending_chance:
            return CHANCE
        return self.player

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 0.5), (1, 0.5)]

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(3, dtype=bool)
        if self.current_player() >= 0:
            mask[0] = True
            mask[1] = self.pile >= 2
            mask[2] = self.game.options["allow_pass"]
        return mask

    def _apply(self, action: int) -> None:
        if self.current_player() == CHANCE:
            if self.game.options["hidden"] and len(self.coins) < self.n:
                self.coins.append(action)
            else:
                self.pile += action
                self.pending_chance = False
            return
        if action < 2:
            take = action + 1
            self.pile -= take
            self.taken[self.player] += take
            if self.pile == 0:
                self.winner = self.player
                return
            self.pending_chance = self.game.options["chance"]
        self.player = (self.player + 1) % self.n

    def returns(self) -> np.ndarray:
        if self.winner < 0:
            return np.zeros(self.n)
        return rank_returns([1 if s == self.winner else 0 for s in range(self.n)])

    def scores(self) -> np.ndarray:
        return np.asarray(self.taken, dtype=np.float64)

    def _observation(self, seat: int) -> np.ndarray:
        obs = np.zeros(OBS, dtype=np.float32)
        obs[min(self.pile, 12)] = 1.0
        obs[13] = float(self.current_player() == seat)
        if len(self.coins) > seat:
            obs[14] = float(self.coins[seat])
        obs[15] = min(self.pile, 30) / 30
        return obs

    def action_to_string(self, action: int) -> str:
        if self.is_chance_node():
            return f"chance {action}"
        return ("take 1", "take 2", "pass")[action]

    def to_text(self) -> str:
        return f"pile={self.pile} to_move={self.current_player()} taken={self.taken}"

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> NimState:
        """Redeal the other seats' coins; they are the first chance outcomes of ``history``, rewritten to match."""
        out = self.clone()
        out.coins = [c if s == seat else int(rng.integers(2)) for s, c in enumerate(self.coins)]
        if len(out.history) >= len(out.coins):  # a position built from data has no history to rewrite
            out.history[: len(out.coins)] = out.coins
        out.resampled_for = seat
        return out

    def position(self) -> dict[str, Any]:
        return {
            "pile": self.pile,
            "to_move": self.player,
            "taken": list(self.taken),
            "coins": list(self.coins),
            "pending_chance": self.pending_chance,
            "winner": self.winner,
        }

    def clone(self) -> NimState:
        out = type(self).__new__(type(self))
        out.game = self.game
        out.history = self.history[:]
        out.pile = self.pile
        out.player = self.player
        out.taken = self.taken[:]
        out.coins = self.coins[:]
        out.pending_chance = self.pending_chance
        out.winner = self.winner
        out.resampled_for = None
        return out


class ScriptedAgent:
    """Plays a fixed list of actions (then the first legal one); records the states it was shown."""

    name = "scripted"

    def __init__(self, actions: list[int] | None = None) -> None:
        self.actions = list(actions or [])
        self.seen: list[State] = []

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        self.seen.append(state)
        if self.actions:
            return self.actions.pop(0)
        return state.legal_actions()[0]


class PerfectNim:
    """Optimal 2-player Nim: leave a multiple of 3 when possible."""

    name = "perfect"

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        pile = state.pile  # type: ignore[attr-defined]
        if pile % 3 == 1:
            return 0
        if pile % 3 == 2:
            return 1
        return state.legal_actions()[0]
