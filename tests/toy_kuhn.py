"""A tiny Kuhn-poker-like game used to test the shared core without any real game.

Three cards 0 < 1 < 2; chance deals one to each of 2 players; seat 0 bets (0) or folds (1); after a bet,
seat 1 calls (0) or folds (1). Hidden information: each seat sees only its own card.
"""

from __future__ import annotations

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, GameFacts, Option, State, rank_returns
from gameshelf.envs.core.observation import ObservationLayout

LAYOUT = ObservationLayout()
LAYOUT.add("card", 3, "own card, one-hot")
LAYOUT.add("moves", 1, "moves made / 2")
LAYOUT.add("to_move", 1, "the observer is to move")


class ToyKuhnGame(Game):
    name = "toy_kuhn"
    OPTIONS = {"num_players": Option(2, choices=(2,)), "stake": Option(1, choices=(1, 2))}

    LAYOUT = LAYOUT

    def _facts(self) -> GameFacts:
        return GameFacts(num_actions=2, max_game_length=2, has_chance=True, has_hidden_info=True)

    def new_initial_state(self) -> ToyKuhnState:
        return ToyKuhnState(self)


class ToyKuhnState(State):
    def __init__(self, game: ToyKuhnGame) -> None:
        super().__init__(game)
        self.cards: list[int] = []
        self.moves: list[int] = []

    def current_player(self) -> int:
        if len(self.cards) < 2:
            return CHANCE
        if not self.moves:
            return 0
        if self.moves == [0]:
            return 1
        return TERMINAL

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(3) if c not in self.cards]
        return [(c, 1.0 / len(left)) for c in left]

    def legal_action_mask(self) -> np.ndarray:
        return np.array([True, True]) if self.current_player() >= 0 else np.zeros(2, dtype=bool)

    def _apply(self, action: int) -> None:
        if len(self.cards) < 2:
            self.cards.append(action)
        else:
            self.moves.append(action)

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(2)
        if self.moves == [1]:
            return rank_returns([0, 1])
        if self.moves == [0, 1]:
            return rank_returns([1, 0])
        return rank_returns(self.cards)

    def scores(self) -> np.ndarray:
        return self.returns() * 10 * self.game.options["stake"]

    def _observation(self, seat: int) -> np.ndarray:
        obs = np.zeros(5, dtype=np.float32)
        if len(self.cards) > seat:
            obs[self.cards[seat]] = 1.0
        obs[3] = len(self.moves) / 2
        obs[4] = float(self.current_player() == seat)
        return obs

    def action_to_string(self, action: int) -> str:
        if self.is_chance_node():
            return f"deal {action}"
        return ("bet", "fold")[action] if not self.moves else ("call", "fold")[action]

    def to_text(self) -> str:
        return f"cards={self.cards} moves={self.moves}"

    def _seat_text(self, seat: int) -> str:
        own = self.cards[seat] if len(self.cards) > seat else "?"
        return f"your card={own} moves={self.moves}"

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> ToyKuhnState:
        """Redeal the other seat's card (once dealt) from the cards ``seat`` does not hold; the deal in
        ``history`` is rewritten to match."""
        out = self.clone()
        other = 1 - seat
        if len(self.cards) > other:
            choices = [c for c in range(3) if len(self.cards) <= seat or c != self.cards[seat]]
            out.cards[other] = int(rng.choice(choices))
            out.history[other] = out.cards[other]
        return out

    def clone(self) -> ToyKuhnState:
        out = type(self)(self.game)  # type: ignore[arg-type]
        out.cards = self.cards[:]
        out.moves = self.moves[:]
        out.history = self.history[:]
        return out
