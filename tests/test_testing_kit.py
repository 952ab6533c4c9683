"""The shipped conformance kit passes a correct toy game and catches deliberately broken ones."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from gameshelf.envs import make_game
from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, GameFacts, Option, State, int_option, rank_returns
from gameshelf.envs.core.observation import ObservationLayout
from gameshelf.envs.testing import (
    NODE_KINDS,
    ConformanceError,
    chance_mismatch,
    check_bad_actions,
    check_bad_seats,
    check_chance,
    check_env,
    check_game,
    check_hidden_information,
    check_kernel_chance,
    check_kernel_row,
    check_masks,
    check_option_bounds,
    check_position_fuzz,
    check_positions,
    check_redeal,
    check_redeals_along,
    random_nodes,
)
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
    def _observation(self, seat: int) -> np.ndarray:
        obs = super()._observation(seat)
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


# ---- the resample test ------------------------------------------------------------------------------
class HistoryKeptState(ToyKuhnState):
    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> ToyKuhnState:
        out = super()._resample_hidden(seat, rng)
        out.history = self.history[:]  # the redeal forgets to rewrite the deal in the history
        return out


class HistoryKeptGame(ToyKuhnGame):
    def new_initial_state(self):
        return HistoryKeptState(self)


def test_a_redeal_whose_history_replays_to_the_truth_is_caught():
    with pytest.raises(ConformanceError, match=r"resample \(replay\): the redeal's history replays to the original state"):
        check_hidden_information(HistoryKeptGame())


class CoinPassState(NimState):
    """Nim where a seat whose coin is 1 may also pass: the mask of the seat to move depends on its hidden coin."""

    def legal_action_mask(self) -> np.ndarray:
        mask = super().legal_action_mask()
        player = self.current_player()
        if player >= 0 and self.coins[player] == 1:
            mask[2] = True
        return mask

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> NimState:
        out = super()._resample_hidden(seat, rng)
        replay = self.game.new_initial_state()
        for action in self.history:  # a seat that passed has shown its coin is 1
            if action == 2 and replay.current_player() >= 0:
                out.coins[replay.current_player()] = out.history[replay.current_player()] = 1
            replay.apply_action(action)
        return out


class CoinPassGame(NimGame):
    def new_initial_state(self):
        return CoinPassState(self)


class StaleMaskState(CoinPassState):
    def legal_action_mask(self) -> np.ndarray:
        cached = getattr(self, "cached", None)
        if cached is None or cached[0] != len(self.history):
            self.cached = (len(self.history), super().legal_action_mask())
        return self.cached[1].copy()

    def clone(self):
        out = super().clone()
        out.cached = getattr(self, "cached", None)  # a redeal keeps the mask computed for the old coins
        return out


class StaleMaskGame(NimGame):
    def new_initial_state(self):
        return StaleMaskState(self)


def test_a_redeal_with_a_stale_mask_is_caught():
    check_hidden_information(CoinPassGame(hidden=True, pile=9))  # the same game without the stale mask passes
    with pytest.raises(ConformanceError, match=r"resample \(replay\): .*\(its mask differs\)"):
        check_hidden_information(StaleMaskGame(hidden=True, pile=9))


class NoMoveState(NimState):
    def legal_action_mask(self) -> np.ndarray:
        return np.zeros(3, dtype=bool) if getattr(self, "stuck", False) else super().legal_action_mask()

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> NimState:
        out = super()._resample_hidden(seat, rng)
        out.stuck = True  # type: ignore[attr-defined]  # the redeal has no legal action
        return out


class NoMoveGame(NimGame):
    def new_initial_state(self):
        return NoMoveState(self)


def test_a_redeal_without_a_legal_action_is_caught():
    with pytest.raises(ConformanceError, match=r"resample \(playable\): the redeal has no legal action"):
        check_hidden_information(NoMoveGame(hidden=True))


class OwnCoinState(NimState):
    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> NimState:
        out = super()._resample_hidden(seat, rng)
        if len(out.coins) > seat:  # redeals the seat's own coin too
            out.coins[seat] = out.history[seat] = int(rng.integers(2))
        return out


class OwnCoinGame(NimGame):
    def new_initial_state(self):
        return OwnCoinState(self)


def test_a_redeal_that_changes_what_the_seat_sees_is_caught():
    with pytest.raises(ConformanceError, match=r"leak: seat \d's observation changed"):
        check_hidden_information(OwnCoinGame(hidden=True))


class CopyAtChanceState(ToyKuhnState):
    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> ToyKuhnState:
        if self.is_chance_node():
            return self.clone()  # nothing redealt while the deal is under way
        return super()._resample_hidden(seat, rng)


class CopyAtChanceGame(ToyKuhnGame):
    def new_initial_state(self):
        return CopyAtChanceState(self)


def test_a_plain_copy_at_chance_nodes_is_caught():
    with pytest.raises(
        ConformanceError, match=r"resample \(redeal\): at chance nodes resample_hidden always returned a plain copy"
    ):
        check_hidden_information(CopyAtChanceGame())


PAIRS = [(a, b) for a in range(3) for b in range(3) if a != b]


class OneDealState(ToyKuhnState):
    """Kuhn dealt in one chance outcome (a pair of cards): its only chance node comes before anything is hidden."""

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(k, 1 / len(PAIRS)) for k in range(len(PAIRS))]

    def _apply(self, action: int) -> None:
        if self.cards:
            self.moves.append(action)
        else:
            self.cards = list(PAIRS[action])

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> ToyKuhnState:
        out = self.clone()
        if self.cards:
            out.cards[1 - seat] = int(rng.choice([c for c in range(3) if c != self.cards[seat]]))
            out.history[0] = PAIRS.index((out.cards[0], out.cards[1]))
        return out


class OneDealGame(ToyKuhnGame):
    def new_initial_state(self):
        return OneDealState(self)


def test_a_copy_at_chance_nodes_that_hide_nothing_passes():
    check_hidden_information(OneDealGame())


class DecisionChangedState(ToyKuhnState):
    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> ToyKuhnState:
        out = super()._resample_hidden(seat, rng)
        if out.moves:  # rewrites a player's decision in the history, not only the deal
            out.history[2] = 1 - out.history[2]
        return out


class DecisionChangedGame(ToyKuhnGame):
    def new_initial_state(self):
        return DecisionChangedState(self)


def test_a_redeal_that_changes_a_decision_is_caught():
    with pytest.raises(ConformanceError, match=r"resample \(history\): the redeal changed seat 0's own decision 2"):
        check_hidden_information(DecisionChangedGame())


class PenniesGame(Game):
    """Matching pennies in three decisions: seat 0 picks a side in secret, seat 1 picks one, seat 0 shows.

    Seat 1 never sees seat 0's pick before the end: a redeal for seat 1 may change that decision.
    """

    name = "toy_pennies"
    OPTIONS = {"num_players": Option(2, choices=(2,))}

    LAYOUT = ObservationLayout()
    LAYOUT.add("pick", 2, "seat 0's pick, one-hot, when the observer sees it")
    LAYOUT.add("decisions", 1, "decisions made / 3")
    LAYOUT.add("seat_1_pick", 1, "seat 1's pick (-0.5 before it)")

    def _facts(self) -> GameFacts:
        return GameFacts(num_actions=2, max_game_length=3, has_chance=False, has_hidden_info=True)

    def new_initial_state(self) -> PenniesState:
        return PenniesState(self)


class PenniesState(State):
    def current_player(self) -> int:
        return (0, 1, 0)[len(self.history)] if len(self.history) < 3 else TERMINAL

    def legal_action_mask(self) -> np.ndarray:
        return np.full(2, self.current_player() >= 0)

    def _apply(self, action: int) -> None:
        pass  # the history is the state

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(2)
        return rank_returns([int(self.history[0] == self.history[1]), int(self.history[0] != self.history[1])])

    def shown(self, seat: int) -> bool:
        """Whether ``seat`` sees seat 0's pick."""
        return seat == 0 or self.is_terminal()

    def _observation(self, seat: int) -> np.ndarray:
        obs = np.zeros(4, dtype=np.float32)
        if self.history and self.shown(seat):
            obs[self.history[0]] = 1.0
        obs[2] = len(self.history) / 3
        obs[3] = self.history[1] if len(self.history) > 1 else -0.5
        return obs

    def action_to_string(self, action: int) -> str:
        return ("heads", "tails")[action]

    def to_text(self) -> str:
        return f"picks={self.history[:2]}"

    def _seat_text(self, seat: int) -> str:
        return f"{self.observation(seat).tolist()}"

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> PenniesState:
        out = copy.deepcopy(self)
        if self.history and not self.shown(seat):
            out.history[0] = int(rng.integers(2))
        return out


class PeekState(PenniesState):
    def shown(self, seat: int) -> bool:
        return super().shown(seat) or len(self.history) == 1  # seat 1 glimpses the pick before it moves


class PeekGame(PenniesGame):
    def new_initial_state(self):
        return PeekState(self)


def test_a_redeal_may_change_decisions_the_seat_did_not_see_but_not_those_it_saw():
    check_hidden_information(PenniesGame(), games=8)
    with pytest.raises(
        ConformanceError, match=r"resample \(history\): the redeal changed seat 0's decision 0 .*, which seat 1 saw"
    ):
        check_hidden_information(PeekGame(), games=8)


class SelfState(ToyKuhnState):
    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> ToyKuhnState:
        return self


class SelfGame(ToyKuhnGame):
    def new_initial_state(self):
        return SelfState(self)


def test_check_redeal_passes_a_correct_game_at_every_node_and_returns_the_redeal():
    game = NimGame(num_players=3, chance=True, hidden=True, pile=7)
    rng = np.random.default_rng(0)
    kinds = set()
    for node in random_nodes(game, 1, games=2, per_kind=None):
        for seat in range(3):
            other = check_redeal(node.state, seat, rng)  # who moved found by replaying the history
            assert other is not node.state and other.history is not node.state.history
            assert check_redeal(node.state, seat, rng, movers=node.movers).current_player() == node.state.current_player()
        kinds.add(node.kind)
    assert {"chance", "after chance", "terminal"} <= kinds
    counts = check_redeals_along(game, 1, every=3, label=lambda s: "end" if s.is_terminal() else "on")
    assert counts["end"] == 1 and counts["on"] > 3


def test_check_redeal_catches_a_changed_decision():
    game = DecisionChangedGame()
    node = next(n for n in random_nodes(game, 0, games=4, per_kind=None) if len(n.state.history) == 3)
    with pytest.raises(ConformanceError, match=r"resample \(history\): the redeal changed seat 0's own decision 2"):
        check_redeal(node.state, node.movers[2], np.random.default_rng(0))
    with pytest.raises(ConformanceError, match=r"resample \(history\): the redeal changed seat 0's own decision 2"):
        check_redeals_along(game, 0)


def test_check_redeal_changeable_names_the_decisions_that_may_change():
    game = PenniesGame()
    state = game.state_from_history([0, 1])  # seat 1 has not seen seat 0's pick
    rng = np.random.default_rng(0)
    redeals = [check_redeal(state, 1, rng) for _ in range(20)]  # the kit's rule: an unseen decision may change
    assert {r.history[0] for r in redeals} == {0, 1}
    assert all(check_redeal(state, 1, rng, changeable={0}).history[1] == 1 for _ in range(10))
    with pytest.raises(ConformanceError, match=r"changed seat 0's decision 0 from 0 to 1, not one that may change"):
        for _ in range(40):
            check_redeal(state, 1, rng, changeable=())
    with pytest.raises(ConformanceError, match="which seat 1 saw"):
        for _ in range(40):
            check_redeal(PeekGame().state_from_history([0, 1]), 1, rng, changeable={0})


def test_check_redeals_along_catches_a_redeal_sharing_state_with_the_original():
    with pytest.raises(ConformanceError, match=r"resample \(new object\): .*acting on its redeal, changed the original"):
        check_redeals_along(SharedMovesGame(), 0)


def test_a_redeal_that_returns_the_state_itself_is_caught():
    with pytest.raises(ConformanceError, match=r"resample \(new object\): resample_hidden returned the state itself"):
        check_hidden_information(SelfGame())


class SharedMovesState(ToyKuhnState):
    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> ToyKuhnState:
        out = super()._resample_hidden(seat, rng)
        out.moves = self.moves  # shared with the original: acting on the redeal changes it
        return out


class SharedMovesGame(ToyKuhnGame):
    def new_initial_state(self):
        return SharedMovesState(self)


def test_a_redeal_sharing_state_with_the_original_is_caught():
    with pytest.raises(ConformanceError, match=r"resample \(new object\): .*acting on its redeal, changed the original"):
        check_hidden_information(SharedMovesGame())


# ---- positions and refusals ---------------------------------------------------------------------------
class ForgetfulState(NimState):
    def position(self) -> dict[str, Any]:
        return {**super().position(), "winner": -1}  # forgets who won: wrong only at the end


class ForgetfulGame(NimGame):
    def new_initial_state(self):
        return ForgetfulState(self)


def test_a_position_that_does_not_round_trip_at_the_end_is_caught():
    check_positions(NimGame(chance=True, hidden=True))
    with pytest.raises(
        ConformanceError, match=r"positions: the rebuilt position differs in its current player \[.*terminal node"
    ):
        check_positions(ForgetfulGame(chance=True, hidden=True))


class NoDecisionPositionState(NimState):
    def position(self) -> dict[str, Any]:
        if self.current_player() >= 0 and self.pile == 1:
            raise NotImplementedError("no position with one stone left")
        return super().position()


class NoDecisionPositionGame(NimGame):
    def new_initial_state(self):
        return NoDecisionPositionState(self)


def test_a_position_missing_at_a_decision_node_is_caught():
    with pytest.raises(
        ConformanceError, match=r"positions: position\(\) is not implemented at a (decision|again|after chance) node"
    ):
        check_positions(NoDecisionPositionGame(pile=12), per_kind=None)


class RefusalPassesState(NimState):
    def _is_legal(self, player: int, action: int) -> bool:
        legal = super()._is_legal(player, action)
        if not legal and player >= 0:
            self.player = (self.player + 1) % self.n  # a refused move still passes the turn
        return legal


class RefusalPassesGame(NimGame):
    def new_initial_state(self):
        return RefusalPassesState(self)


def test_a_refusal_that_changes_the_state_is_caught():
    with pytest.raises(ConformanceError, match=r"masks: refusing action -1 changed the state"):
        check_masks(RefusalPassesGame())


def test_random_nodes_meet_every_kind_of_node():
    kinds = {node.kind for node in random_nodes(make_game("cargo_empire-v0", num_players=2), seed=0, games=1)}
    assert kinds == set(NODE_KINDS)
    nodes = list(random_nodes(NimGame(chance=True, hidden=True), seed=1, games=1, per_kind=None))
    assert nodes[-1].kind == "terminal" and nodes[-1].movers[:3] == (CHANCE, CHANCE, 0)


class LaxSeatState(NimState):
    """Takes a float or a bool for the seat it equals (``True`` as seat 1) instead of refusing it."""


def _lax_check_seat(self: State, seat: Any) -> int:
    return State.check_seat(self, int(seat) if isinstance(seat, (bool, float)) else seat)


LaxSeatState.check_seat = _lax_check_seat  # type: ignore[method-assign]  # set after the class, past the final guard


class LaxSeatGame(NimGame):
    def new_initial_state(self):
        return LaxSeatState(self)


def test_a_seat_query_that_takes_a_bool_or_a_float_is_caught():
    with pytest.raises(ConformanceError, match=r"bad seat: observation\(0\.0\)"):
        check_bad_seats(LaxSeatGame())
    check_bad_seats(NimGame(hidden=True))


class TwoMessagesState(ToyKuhnState):
    """Refuses a bad seat in its text view with a message of its own."""


def _own_seat_text(self: State, seat: Any) -> str:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 2:
        raise ValueError(f"no seat {seat}")
    return self._seat_text(seat)


TwoMessagesState.seat_text = _own_seat_text  # type: ignore[method-assign]  # set after the class, past the final guard


class TwoMessagesGame(ToyKuhnGame):
    def new_initial_state(self):
        return TwoMessagesState(self)


def test_bad_seats_refused_with_two_messages_are_caught():
    with pytest.raises(ConformanceError, match="different messages"):
        check_bad_seats(TwoMessagesGame())


# ---- bad data: positions, options, actions --------------------------------------------------------
class LaxPositionGame(NimGame):
    def state_from_position(self, position):
        return super().state_from_position({**position, "pending_chance": bool(position.get("pending_chance"))})


class CrashingPositionGame(NimGame):
    def state_from_position(self, position):
        if position.get("pile") is not None and position["pile"] > 12:  # compares whatever it is given
            return super().state_from_position({**position, "pile": 12})
        return super().state_from_position(position)


def test_position_fuzz_passes_a_strict_builder_and_catches_junk_accepted_or_crashing():
    check_position_fuzz(NimGame(chance=True, hidden=True, pile=9))
    with pytest.raises(
        ConformanceError, match=r"position fuzz: \['pending_chance'\] = .* is accepted but the state exports other data"
    ):
        check_position_fuzz(LaxPositionGame(chance=True, pile=9), mutations=80)
    with pytest.raises(ConformanceError, match=r"position fuzz: .* raises TypeError"):
        check_position_fuzz(CrashingPositionGame(pile=9), mutations=80)


class BoundedPileGame(NimGame):
    OPTIONS = {**NimGame.OPTIONS, "pile": int_option(7, 1, 50)}


class NarrowPileGame(BoundedPileGame):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if self.options["pile"] > 40:
            raise ValueError("pile: more than 40 stones do not fit")


def test_option_bounds_pass_a_declared_range_and_catch_a_bound_that_does_not_build():
    check_option_bounds(BoundedPileGame())
    with pytest.raises(ConformanceError, match=r"options: pile=50 is allowed but refused"):
        check_option_bounds(NarrowPileGame())
    with pytest.raises(ValueError, match=r"pile=51 .*an int in 1\.\.50"):
        BoundedPileGame(pile=51)


class NarrowChanceState(NimState):
    def _is_legal(self, player: int, action: int) -> bool:
        if player == CHANCE:
            return int(np.int16(action)) in (0, 1)  # numpy refuses an int16 past 32767 with OverflowError
        return super()._is_legal(player, action)


class NarrowChanceGame(NimGame):
    def new_initial_state(self):
        return NarrowChanceState(self)


def test_bad_actions_pass_the_engine_and_catch_a_chance_check_that_overflows():
    check_bad_actions(NimGame(chance=True))
    with pytest.raises(ConformanceError, match=r"bad action: int 32768 .*chance node.*OverflowError"):
        check_bad_actions(NarrowChanceGame(chance=True))


# ---- the samplers against the stated odds --------------------------------------------------------------
class LowCardState(ToyKuhnState):
    def sample_chance(self, rng: np.random.Generator) -> int:
        left = [c for c in range(3) if c not in self.cards]
        return min(left[int(rng.integers(len(left)))] for _ in range(2))  # the lower of two draws


class LowCardGame(ToyKuhnGame):
    def new_initial_state(self):
        return LowCardState(self)


class RareDealtCardState(ToyKuhnState):
    def sample_chance(self, rng: np.random.Generator) -> int:
        if self.cards and rng.random() < 0.001:
            return self.cards[0]  # once in a thousand draws, a card already dealt
        return super().sample_chance(rng)


class RareDealtCardGame(ToyKuhnGame):
    def new_initial_state(self):
        return RareDealtCardState(self)


def test_a_sampler_off_the_stated_odds_is_caught():
    check_kernel_chance(ToyKuhnGame())
    check_chance(LowCardGame())  # five draws in range: the older check sees nothing wrong
    with pytest.raises(ConformanceError, match=r"kernel chance: sample_chance disagrees .*outcome 0 drawn"):
        check_kernel_chance(LowCardGame())
    with pytest.raises(ConformanceError, match=r"sample_chance disagrees .*stated probability is 0"):
        check_kernel_chance(RareDealtCardGame())


def _skewed_kernel_game(num_players: int) -> Game:
    """Level X whose compiled sampler (the batched drivers') takes the lower of two draws; its Python
    ``sample_chance`` and ``chance_outcomes`` are the real ones."""
    import types

    from gameshelf.envs.level_x import kernel
    from gameshelf.envs.level_x.game import LevelXGame

    skewed = types.ModuleType("skewed_level_x_kernel")
    skewed.__dict__.update({k: v for k, v in vars(kernel).items() if not k.startswith("__")})

    def sample_chance(S: np.ndarray, i: int, rngs: np.ndarray) -> int:
        return min(kernel.sample_chance(S, i, rngs), kernel.sample_chance(S, i, rngs))

    skewed.sample_chance = sample_chance  # type: ignore[attr-defined]
    return type("SkewedLevelXGame", (LevelXGame,), {"kernel": skewed})(num_players=num_players)


def test_a_kernel_sampler_off_the_stated_odds_is_caught():
    from gameshelf.envs.level_x.game import LevelXGame

    check_kernel_chance(LevelXGame(num_players=3))
    with pytest.raises(ConformanceError, match=r"kernel chance: kernel\.sample_chance disagrees .*level_x 3p"):
        check_kernel_chance(_skewed_kernel_game(3))


@pytest.mark.parametrize(
    ("outcomes", "drawn", "wrong"),
    [
        ([(0, 0.5), (1, 0.5)], [0] * 5000 + [1] * 5000, None),
        ([(0, 0.5), (1, 0.5)], [0] * 5300 + [1] * 4700, "outcome 0 drawn 5300"),
        ([(0, 0.5), (1, 0.5)], [0] * 5000 + [1] * 4999 + [2], "outcome 2 drawn 1 times"),
        ([(k, 0.01) for k in range(100)], [k for k in range(100) for _ in range(100)], None),
        ([(k, 0.01) for k in range(100)], [k % 99 for k in range(10000)], "outcome 99 drawn 0 of 10000"),
    ],
)
def test_chance_mismatch_passes_the_odds_and_names_what_is_off(outcomes, drawn, wrong):
    problem = chance_mismatch(outcomes, drawn)
    assert problem is None if wrong is None else wrong in problem


def test_chance_mismatch_chi_square_catches_many_small_deviations():
    """Each outcome's count alone is plausible; all of them together are not."""
    outcomes = [(k, 1 / 40) for k in range(40)]
    drawn = [k for k in range(40) for _ in range(250 + (30 if k < 20 else -30))]
    problem = chance_mismatch(outcomes, drawn)
    assert problem is not None and problem.startswith("chi-square")


def _level_x_with_state(name: str, methods: dict) -> Game:
    """Level X (2 players) whose State overrides ``methods``."""
    from gameshelf.envs.level_x.game import LevelXGame, LevelXState

    state_class = type(name, (LevelXState,), methods)
    return type(f"{name}Game", (LevelXGame,), {"new_initial_state": lambda self: state_class(self)})()


def test_a_python_reading_of_the_row_off_the_kernel_is_caught():
    from gameshelf.envs.level_x.game import LevelXGame, LevelXState

    check_kernel_row(LevelXGame())

    def late_roll(self, rng):  # the right odds, a draw the kernel's weights would not give
        roll = LevelXState.sample_chance(self, rng)
        return roll if self.s[self.game.kernel.FIRST] < 0 else (roll + 1) % self.game.kernel.NUM_ROLLS

    with pytest.raises(ConformanceError, match=r"kernel row: sample_chance drew .*the kernel's odds"):
        check_kernel_row(_level_x_with_state("LateRollState", {"sample_chance": late_roll}))

    def no_chance(self):
        player = LevelXState.current_player(self)
        return 0 if player == CHANCE else player

    with pytest.raises(ConformanceError, match=r"kernel row: current_player\(\) is 0, the kernel's -1"):
        check_kernel_row(_level_x_with_state("NoChanceState", {"current_player": no_chance}))
