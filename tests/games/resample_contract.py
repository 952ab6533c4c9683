"""The ``resample_hidden`` contract, checked at one node of a game (shared by the per-game tests).

For a reachable state S and R = S.resample_hidden(seat, rng):

1. R is a new object and S is unchanged;
2. R has S's player to act and a history of the same length in which only chance outcomes differ
   (``hidden_choices`` names the history entries of other seats' decisions the seat has not seen yet,
   which may differ too);
3. R's history replays to R (not to S) and ``state_from_position(R.position())`` rebuilds R;
4. R is playable: a decision node has a legal action, a chance node lists valid outcomes;
5. everything the seat sees is kept: its observation and text, and its mask when it is to act.

Item 6 (a real redeal, uniform over what the seat cannot tell apart) is checked per game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

import numpy as np

from gameshelf.envs import testing
from gameshelf.envs.core.game import CHANCE, Game, State


def every_node(game: Game, rng: np.random.Generator, max_decisions: int | None = None) -> Iterator[State]:
    """Every node (chance, decision and the end) of one random game, chance drawn from ``rng``."""
    state = game.new_initial_state()
    decisions = 0
    while True:
        yield state
        if state.is_terminal() or (max_decisions is not None and decisions >= max_decisions):
            return
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1


def check_random_game(
    game: Game,
    seed: int,
    every: int = 1,
    always: Callable[[State], bool] | None = None,
    label: Callable[[State], str] | None = None,
    hidden_choices: Callable[[State, int], set[int]] | None = None,
    max_decisions: int | None = None,
) -> Counter[str]:
    """Check the contract for every seat at the nodes of one random game (seeded): every ``every``-th
    node, each node where ``always`` holds, and the last one. Returns how many nodes of each ``label``
    (default: chance, decision, terminal) were checked."""
    rng = np.random.default_rng(seed)
    checked: Counter[str] = Counter()
    chance: list[bool] = []
    n = game.info.num_players
    for i, state in enumerate(every_node(game, rng, max_decisions)):
        if i % every == 0 or state.is_terminal() or (always is not None and always(state)):
            before, before_position = testing.fingerprint(state), state.position()
            for seat in range(n):
                check_resample(state, seat, np.random.default_rng([seed, i, seat]), chance, hidden_choices, False)
            assert testing.fingerprint(state) == before, f"node {i}: resample_hidden changed the original"
            assert state.position() == before_position, f"node {i}: resample_hidden changed the original's position"
            checked[label(state) if label is not None else node_kind(state)] += 1
        chance.append(state.is_chance_node())
    return checked


def node_kind(state: State) -> str:
    if state.is_terminal():
        return "terminal"
    return "chance" if state.is_chance_node() else "decision"


def chance_entries(game: Game, history: list[int]) -> list[bool]:
    """Which entries of ``history`` are chance outcomes (replaying it from the start)."""
    state = game.new_initial_state()
    out = []
    for action in history:
        out.append(state.current_player() == CHANCE)
        state.apply_action(action)
    return out


def check_resample(
    state: State,
    seat: int,
    rng: np.random.Generator,
    chance: list[bool] | None = None,
    hidden_choices: Callable[[State, int], set[int]] | None = None,
    check_original: bool = True,
) -> State:
    """Check items 1-5 of the contract for ``state.resample_hidden(seat, rng)``; returns the resampled state.

    ``chance``: ``chance_entries`` of the state's history (computed when not given). ``check_original``:
    compare the original before and after (a caller resampling several seats may compare once).
    """
    game = state.game
    if check_original:
        before, before_position = testing.fingerprint(state), state.position()
    other = state.resample_hidden(seat, rng)
    where = f"seat {seat}, history length {len(state.history)}"
    # 1. a new object, the original unchanged
    assert other is not state, where
    if check_original:
        assert testing.fingerprint(state) == before, f"{where}: resample_hidden changed the original"
        assert state.position() == before_position, f"{where}: resample_hidden changed the original's position"
    # 2. same player to act; only chance outcomes (and choices the seat has not seen) differ
    assert other.current_player() == state.current_player(), where
    assert len(other.history) == len(state.history), where
    if chance is None:
        chance = chance_entries(game, state.history)
    free = hidden_choices(state, seat) if hidden_choices is not None else set()
    for i, (a, b) in enumerate(zip(state.history, other.history, strict=True)):
        if not chance[i] and i not in free:
            assert a == b, f"{where}: the decision at history[{i}] changed ({a} -> {b})"
    # 3. the history replays to the resampled state, and so does its position (all but the history)
    view = testing.fingerprint(other)
    replayed = game.state_from_history(other.history)
    assert testing.fingerprint(replayed) == view, f"{where}: the history does not replay to the state"
    rebuilt = game.state_from_position(other.position())
    assert testing.fingerprint(rebuilt)[1:] == view[1:], f"{where}: the position does not rebuild the state"
    # 4. playable
    if other.is_chance_node():
        outcomes = other.chance_outcomes()
        assert outcomes and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9, where
        probe = other.clone()
        probe.apply_action(other.sample_chance(rng))
    elif not other.is_terminal():
        assert other.legal_action_mask().any(), f"{where}: no legal action"
    # 5. what the seat sees is kept
    assert other.observation(seat).tobytes() == state.observation(seat).tobytes(), f"{where}: observation changed"
    assert other.seat_text(seat) == state.seat_text(seat), f"{where}: text view changed"
    if state.current_player() == seat:
        assert other.legal_action_mask().tobytes() == state.legal_action_mask().tobytes(), f"{where}: mask changed"
    return other
