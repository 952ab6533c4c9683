"""The shipped conformance kit passes a correct toy game and catches deliberately broken ones."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf.envs.core.game import CHANCE
from gameshelf.envs.testing import ConformanceError, check_env, check_game, check_hidden_information, check_masks
from tests.toy_kuhn import ToyKuhnGame, ToyKuhnState
from tests.toy_nim import NimGame, NimState


def test_a_correct_toy_game_passes_every_check():
    check_game(ToyKuhnGame())
    check_env(ToyKuhnGame())
    check_env(NimGame(num_players=3, chance=True, hidden=True, pile=7))


def test_registered_id_passes():
    check_env("level_x-v0", num_players=3)


class WrongMaskState(NimState):
    def legal_action_mask(self) -> np.ndarray:
        mask = super().legal_action_mask()
        if self.current_player() >= 0:
            mask[:] = True  # claims taking 2 and passing are always legal
        return mask

    def _is_legal(self, player: int, action: int) -> bool:  # the rules refuse them
        return player == CHANCE or bool(NimState.legal_action_mask(self)[action])


class WrongMaskGame(NimGame):
    def new_initial_state(self):
        return WrongMaskState(self)


def test_a_wrong_mask_is_caught():
    with pytest.raises(ConformanceError, match="masks"):
        check_masks(WrongMaskGame(pile=3))


class LeakyState(ToyKuhnState):
    def observation(self, seat: int) -> np.ndarray:
        obs = super().observation(seat)
        if len(self.cards) == 2:
            obs[self.cards[1 - seat]] = 0.5  # shows the other seat's card
        return obs


class LeakyGame(ToyKuhnGame):
    def new_initial_state(self):
        return LeakyState(self)


def test_a_leaking_observation_is_caught():
    with pytest.raises(ConformanceError, match="leak"):
        check_hidden_information(LeakyGame())


class GlobalRandomState(ToyKuhnState):
    def sample_chance(self, rng: np.random.Generator) -> int:
        left = [c for c in range(3) if c not in self.cards]
        return int(left[np.random.randint(len(left))])  # the global generator: not reproducible


class GlobalRandomGame(ToyKuhnGame):
    def new_initial_state(self):
        return GlobalRandomState(self)


def test_a_nondeterministic_chance_draw_is_caught():
    with pytest.raises(ConformanceError, match=r"chance|determinism"):
        check_env(GlobalRandomGame())
