"""The conformance kit: every check a gameshelf engine and environment must pass, for any game.

    from gameshelf.envs.testing import check_env, check_game
    check_env("koplus-v0", num_players=3)        # a registered id (every check below)
    check_game(MyGame(num_players=2))            # your own engine (the engine checks)

A failed check raises ``ConformanceError`` (an ``AssertionError``) naming the check and what went wrong.
Each check is also a function of its own (``GAME_CHECKS``, ``ENV_CHECKS``), so a test suite can report
them one by one. Model: ``pettingzoo.test``; PettingZoo's ``api_test``, ``seed_test`` and ``render_test``
run inside ``check_env``.

Engine checks, at nodes of every kind along random games (``random_nodes``: decisions, the same player
again, the first decision after chance, chance nodes, the end): static facts, bad seats refused by every
seat query (one ``ValueError``), exact masks (every masked action accepted, every other one refused with
the state unchanged, at chance nodes and after the end too), chance outcomes are distributions drawn only
from the generator given, many draws of ``sample_chance`` and of a kernel game's compiled sampler (the
batched drivers') follow the stated odds, random games end within ``max_game_length`` with returns in range
and zero before the end, clone and replay from the history reproduce the state, action names parse back, the position
builder round-trips, bad data is refused with one short ``ValueError`` (fuzzed positions: wrong types, huge
strings, deep lists, out-of-range integers, keys deleted or added, lists cut or grown; or else the state built
round-trips and exports the data given), every option builds and plays at each end of its range and is
refused one past it, huge, negative and numpy-typed actions raise ``IllegalActionError``, and
``resample_hidden`` gives a real redeal that the seat cannot tell apart, whose
history replays to it (the resample test), and a picture that can be clicked has one target per legal
action. ``check_redeal(state, seat, rng)`` runs the resample test's
checks on one redeal at any node (a game's own tests add what only they can check: uniformity, what a seat
can deduce); ``check_redeals_along(game, seed)`` runs it for every seat along a random game.

Environment checks: PettingZoo's own tests, observations inside their spaces at every step for every
agent, read-only calls change nothing, pickling mid-game, determinism with the global ``random`` and
``np.random`` disturbed, bad inputs raise clear errors, refused steps change nothing (state, rewards,
flags, agent selection, record), the penalize mode, rewards add up to the returns, records replay.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import pickle
import random
import reprlib
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

import numpy as np

from gameshelf.envs.core.env import GameAECEnv
from gameshelf.envs.core.episode import Episode
from gameshelf.envs.core.game import CHANCE, TERMINAL, Game, IllegalActionError, Option, State
from gameshelf.envs.core.position import position_function
from gameshelf.envs.records import read_record


class ConformanceError(AssertionError):
    """A conformance check failed; the message names the check and the problem."""


def _require(condition: Any, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


def _raises(kind: type[BaseException] | tuple[type[BaseException], ...], fn: Callable[[], Any], what: str) -> BaseException:
    try:
        fn()
    except kind as err:
        return err
    except Exception as err:
        raise ConformanceError(f"{what}: expected {kind}, got {type(err).__name__}: {err}") from err
    raise ConformanceError(f"{what}: expected {kind} to be raised, nothing was")


# ---- helpers ------------------------------------------------------------------------------------------
def fingerprint(state: State) -> tuple[Any, ...]:
    """Everything the queries of a state return, to compare states."""
    n = state.game.info.num_players
    return (
        tuple(state.history),
        state.current_player(),
        state.to_text(),
        tuple(state.observation(s).tobytes() for s in range(n)),
        state.legal_action_mask().tobytes(),
        np.asarray(state.returns()).tobytes(),
        np.asarray(state.scores()).tobytes(),
    )


def random_states(game: Game, seed: int, games: int = 2, every: int = 1) -> Iterator[State]:
    """States at player decision nodes along random legal games (chance drawn from ``seed``), and each end."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state()
        step = 0
        while not state.is_terminal() and step <= game.info.max_game_length:
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
                continue
            if step % every == 0:
                yield state
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            step += 1
        yield state


NODE_KINDS = ("decision", "again", "after chance", "chance", "terminal")
"""Kinds of node ``random_nodes`` tells apart: a decision node (another player decided last), ``again`` (the
player who decided last decides again: the middle of a multi-step move), ``after chance`` (a decision right
after a chance node: after a deal, a draw, a reshuffle), a chance node (a deal in progress, a draw), the end."""


@dataclass(frozen=True)
class Node:
    """One node of a random game: the state, its kind (``NODE_KINDS``) and, for each entry of its history,
    who made it: a seat, or ``CHANCE`` for a chance outcome (noted while playing the game from its start)."""

    state: State
    kind: str
    movers: tuple[int, ...]


def _node_kind(state: State, last_decider: int | None, after_chance: bool) -> str:
    player = state.current_player()
    if player == TERMINAL:
        return "terminal"
    if player == CHANCE:
        return "chance"
    if after_chance:
        return "after chance"
    return "again" if player == last_decider else "decision"


def random_nodes(game: Game, seed: int, games: int = 2, per_kind: int | None = 8) -> Iterator[Node]:
    """Nodes of every kind (``NODE_KINDS``) along random legal games (moves and chance drawn from ``seed``).

    Each game is played out first, then replayed: of each kind of node met, up to ``per_kind`` are
    yielded, evenly spread over the game, its first and last included (``per_kind=None``: every node),
    so the last node of a game (its end, or where ``max_game_length`` stopped it) is always yielded. The
    state is the live one: use it before asking for the next node (clone it to keep it), never change it.
    """
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state()
        kinds: list[str] = []
        movers: list[int] = []
        last_decider: int | None = None
        after_chance = False
        decisions = 0
        while True:
            kinds.append(_node_kind(state, last_decider, after_chance))
            if state.is_terminal() or decisions > game.info.max_game_length:
                break
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
                movers.append(CHANCE)
                after_chance = True
                continue
            player = last_decider = state.current_player()
            after_chance = False
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
            try:
                state.apply_action(action)
            except IllegalActionError as err:
                where = _where(game, state, kinds[-1], seed=seed)
                raise ConformanceError(f"masks: action {action} is in the mask but refused: {err} [{where}]") from None
            movers.append(player)
            decisions += 1
        history = list(state.history)
        chosen: set[int] = set()
        for kind in NODE_KINDS:
            met = [i for i, k in enumerate(kinds) if k == kind]
            if per_kind is None or len(met) <= per_kind:
                chosen.update(met)
            else:
                chosen.update(met[int(j)] for j in np.linspace(0, len(met) - 1, max(per_kind, 1)).round())
        state = game.new_initial_state()
        for i, kind in enumerate(kinds):
            if i:
                state.apply_action(history[i - 1])
            if i in chosen:
                yield Node(state, kind, tuple(movers[:i]))


def _where(game: Game, state: State, kind: str | None = None, seat: int | None = None, seed: int | None = None) -> str:
    """Where a check failed, for its message: the game, the seed, the seat, the kind of node, the history's tail."""
    return _where_history(game, state.history, kind, seat, seed)


def _where_history(
    game: Game, history: Sequence[int], kind: str | None = None, seat: int | None = None, seed: int | None = None
) -> str:
    info = game.info
    parts = [f"{info.name} {info.num_players}p"]
    if seed is not None:
        parts.append(f"seed {seed}")
    if seat is not None:
        parts.append(f"seat {seat}")
    if kind is not None:
        parts.append(f"{kind} node")
    more = "..., " if len(history) > 8 else ""
    parts.append(f"history [{more}{', '.join(map(str, history[-8:]))}] ({len(history)} actions)")
    return ", ".join(parts)


def has_position_builder(game: Game) -> bool:
    """Whether the game has a position builder: ``position.build_state``, or ``Game.state_from_position`` overridden."""
    overridden = type(game).state_from_position is not Game.state_from_position
    return overridden or position_function(type(game), "build_state") is not None


def _outcomes(state: State) -> list[tuple[int, float]]:
    return sorted((int(o), round(float(p), 12)) for o, p in state.chance_outcomes())


def position_difference(a: State, b: State) -> str | None:
    """The first query in which two states differ as positions (the history aside), or None.

    Compared: the player to move, the mask, the chance outcomes, returns, scores, the text, every seat's
    observation and text view.
    """
    n = a.game.info.num_players
    queries: list[tuple[str, Callable[[State], Any]]] = [
        ("current player", lambda s: s.current_player()),
        ("mask", lambda s: s.legal_action_mask().tobytes()),
        ("chance outcomes", _outcomes),
        ("returns", lambda s: np.asarray(s.returns()).tobytes()),
        ("scores", lambda s: np.asarray(s.scores()).tobytes()),
        ("text", lambda s: s.to_text()),
        ("observations", lambda s: [s.observation(seat).tobytes() for seat in range(n)]),
        ("seat texts", lambda s: [s.seat_text(seat) for seat in range(n)]),
    ]
    for what, query in queries:
        if query(a) != query(b):
            return what
    return None


def same_position(a: State, b: State) -> bool:
    """Whether two states are the same position (``position_difference`` finds nothing)."""
    return position_difference(a, b) is None


def random_legal(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def play_env(env: GameAECEnv, rng: np.random.Generator, limit: int | None = None) -> Iterator[str]:
    """Step ``env`` with random legal actions (``step(None)`` for done agents), yielding each agent first."""
    for agent in env.agent_iter(limit if limit is not None else 10**9):
        yield agent
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else random_legal(obs, rng))


# ---- engine checks ------------------------------------------------------------------------------------
def check_info(game: Game) -> None:
    info = game.info
    _require(info.num_players >= 1, f"info: num_players is {info.num_players}")
    _require(0 < info.num_actions <= 10_000, f"info: num_actions {info.num_actions} is not in 1..10000")
    _require(info.max_game_length > 0, "info: max_game_length must be positive")
    _require(info.min_return <= info.max_return, "info: min_return > max_return")
    _require(info.max_players in (0, *range(info.num_players, 65)), "info: max_players is below num_players")
    state = game.new_initial_state()
    if info.has_hidden_info:
        _require(
            type(state)._resample_hidden is not State._resample_hidden,
            "info: has_hidden_info, but the State does not implement _resample_hidden (a clone would show every seat all)",
        )
    obs = state.observation(0)
    _require(obs.shape == info.observation_shape, f"info: observation shape {obs.shape} != declared {info.observation_shape}")
    _require(obs.dtype == np.dtype(info.observation_dtype), f"info: observation dtype {obs.dtype} != declared")


def bad_seats(game: Game) -> tuple[Any, ...]:
    """Seats every seat query refuses: below 0, one past the last seat, a float and a bool equal to seat 0."""
    return (-1, game.info.num_players, 0.0, False, True)


def check_bad_seats(game: Game, seed: int = 12) -> None:
    """``observation``, ``seat_text`` and ``resample_hidden`` refuse a bad seat (``bad_seats``) with one
    ``ValueError``, the same for the three, at nodes of every kind, and change nothing."""
    rng = np.random.default_rng(seed)
    for node in random_nodes(game, seed, games=1, per_kind=1):
        state = node.state
        before = fingerprint(state)
        for seat in bad_seats(game):
            where = f"seat {seat!r} [{_where(game, state, node.kind, seed=seed)}]"
            queries: tuple[tuple[str, Callable[[], Any]], ...] = (
                ("observation", partial(state.observation, seat)),
                ("seat_text", partial(state.seat_text, seat)),
                ("resample_hidden", partial(state.resample_hidden, seat, rng)),
            )
            messages = {what: str(_raises(ValueError, query, f"bad seat: {what}({seat!r})")) for what, query in queries}
            _require(
                len(set(messages.values())) == 1,
                f"bad seat: observation, seat_text and resample_hidden refuse {where} with different messages: {messages}",
            )
        _require(fingerprint(state) == before, f"bad seat: a refused query changed the state [{_where(game, state, node.kind)}]")


def check_masks(game: Game, seed: int = 11, per_kind: int = 10) -> None:
    """Every masked action is accepted; every other one (and every impossible chance outcome, and every action
    after the end) raises ``IllegalActionError`` and changes nothing: history, returns and every query."""
    n_actions = game.info.num_actions
    for node in random_nodes(game, seed, games=1, per_kind=per_kind):
        state = node.state
        where = _where(game, state, node.kind, seed=seed)
        before = fingerprint(state)
        if node.kind == "chance":
            possible = {int(o) for o, _ in state.chance_outcomes()}
            impossible = [a for a in range(-1, max([n_actions, *possible]) + 2) if a not in possible]
            for action in impossible[:: max(1, len(impossible) // 50)]:
                _raises(
                    IllegalActionError,
                    partial(state.apply_action, action),
                    f"masks: impossible chance outcome {action} [{where}]",
                )
            _require(fingerprint(state) == before, f"masks: a refused chance outcome changed the state [{where}]")
            continue
        if state.is_terminal():
            for action in range(-1, n_actions + 1):
                _raises(IllegalActionError, partial(state.apply_action, action), f"masks: acting after the end [{where}]")
            _require(fingerprint(state) == before, f"masks: a refused action after the end changed the state [{where}]")
            continue
        mask = state.legal_action_mask()
        _require(mask.dtype == np.bool_ and mask.shape == (n_actions,), f"masks: a mask is bool[num_actions] [{where}]")
        _require(mask.any(), f"masks: no legal action at a decision node [{where}]")
        for action in np.flatnonzero(mask).tolist():
            try:
                state.clone().apply_action(action)
            except IllegalActionError as err:
                raise ConformanceError(f"masks: action {action} is in the mask but refused: {err} [{where}]") from None
        refused = [-1, *np.flatnonzero(~mask).tolist(), n_actions]
        for k, action in enumerate(refused):
            _raises(IllegalActionError, partial(state.apply_action, int(action)), f"masks: unmasked action {action} [{where}]")
            if k < 8 or k == len(refused) - 1:  # each of the first few, then all of them together
                what = f"refusing action {action}" if k < 8 else f"one of the {len(refused)} refused actions"
                _require(fingerprint(state) == before, f"masks: {what} changed the state [{where}]")


def check_chance(game: Game, seed: int = 3) -> None:
    """Chance nodes list a distribution; draws depend only on the generator handed in."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    seen = 0
    while not state.is_terminal() and seen < 200:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            _require(outcomes, "chance: a chance node lists its outcomes")
            _require(abs(sum(p for _, p in outcomes) - 1.0) < 1e-9, "chance: probabilities do not sum to 1")
            _require(all(p > 0 for _, p in outcomes), "chance: an outcome has probability <= 0")
            draws = []
            for _ in range(2):
                random.seed(random.random())
                np.random.seed(np.random.randint(1 << 30))
                draws.append([state.sample_chance(np.random.default_rng([seed, seen, k])) for k in range(5)])
            _require(draws[0] == draws[1], "chance: sample_chance draws from something other than the generator given")
            possible = {o for o, _ in outcomes}
            _require(all(d in possible for d in draws[0]), "chance: sample_chance drew an impossible outcome")
            state.apply_action(state.sample_chance(rng))
            seen += 1
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])


CHANCE_LEVEL = 1e-6
"""``check_kernel_chance`` fails a sampler only where the draws are this unlikely under the stated odds."""


def _chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom: the regularized upper incomplete gamma
    Q(df/2, x/2), by its series below a + 1 and its continued fraction above (Numerical Recipes, 6.2)."""
    a, z = df / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    log_front = a * math.log(z) - z - math.lgamma(a)
    if z < a + 1:
        term = total = 1.0 / a
        k = a
        while abs(term) > abs(total) * 1e-15:
            k += 1
            term *= z / k
            total += term
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def _binomial_tail(count: int, draws: int, p: float) -> float:
    """A bound (Chernoff's) on the chance of a count as far from ``draws * p`` as ``count`` on its side."""
    q = count / draws
    if q == p or p >= 1:
        return 1.0
    kl = (q * math.log(q / p) if q > 0 else 0.0) + ((1 - q) * math.log((1 - q) / (1 - p)) if q < 1 else 0.0)
    return math.exp(-draws * kl)


def chance_mismatch(outcomes: Sequence[tuple[int, float]], drawn: Sequence[int], level: float = CHANCE_LEVEL) -> str | None:
    """Why ``drawn`` (many draws at one chance node) do not follow ``outcomes`` (the stated odds), or None.

    Wrong where an outcome drawn has no positive stated probability, where one outcome's count is off by more
    than a binomial tail of ``level`` divided among the outcomes allows, or where a chi-square test over the
    outcomes (the least likely merged until each group expects at least 5 draws) gives a p-value below ``level``.
    """
    odds = {int(o): float(p) for o, p in outcomes}
    counts = Counter(int(d) for d in drawn)
    n = len(drawn)
    wrong = sorted(o for o in counts if odds.get(o, 0.0) <= 0)
    if wrong:
        return f"outcome {wrong[0]} drawn {counts[wrong[0]]} times, but its stated probability is {odds.get(wrong[0], 0.0)}"
    for o, p in sorted(odds.items()):
        tail = _binomial_tail(counts[o], n, p)
        if tail < level / len(odds):
            return f"outcome {o} drawn {counts[o]} of {n} times, expected {n * p:.1f} (p = {p:.4g}; tail bound {tail:.2g})"
    groups: list[tuple[float, int]] = []  # (expected, observed) of each group, the least likely merged first
    expected = observed = 0.0
    for o, p in sorted(odds.items(), key=lambda item: item[1]):
        expected, observed = expected + n * p, observed + counts[o]
        if expected >= 5:
            groups.append((expected, int(observed)))
            expected = observed = 0.0
    if expected and groups:
        last = groups.pop()
        groups.append((last[0] + expected, last[1] + int(observed)))
    if len(groups) < 2:
        return None
    statistic = sum((seen - want) ** 2 / want for want, seen in groups)
    p_value = _chi2_sf(statistic, len(groups) - 1)
    if p_value < level:
        worst = max(odds, key=lambda o: abs(counts[o] - n * odds[o]) / math.sqrt(n * odds[o]))
        return (
            f"chi-square {statistic:.1f} on {len(groups) - 1} degrees of freedom (p = {p_value:.2g}); furthest off: "
            f"outcome {worst} drawn {counts[worst]} of {n} times, expected {n * odds[worst]:.1f}"
        )
    return None


def chance_nodes(game: Game, seed: int, games: int = 2, per_kind: int = 6) -> list[State]:
    """Copies of chance nodes with more than one outcome along random games: up to ``per_kind`` of those with
    uniform odds and as many of those with unequal odds, evenly spread over the games."""
    kinds: dict[bool, list[State]] = {True: [], False: []}
    for node in random_nodes(game, seed, games=games, per_kind=None):
        odds = [p for _, p in node.state.chance_outcomes()] if node.kind == "chance" else []
        if len(odds) > 1:
            kinds[max(odds) - min(odds) < 1e-12].append(node.state.clone())
    chosen: list[State] = []
    for met in kinds.values():
        picks = sorted({int(j) for j in np.linspace(0, len(met) - 1, per_kind).round()}) if met else []
        chosen.extend(met[j] for j in picks)
    return chosen


def check_kernel_chance(game: Game, seed: int = 29, draws: int = 20000, per_kind: int = 6) -> None:
    """The samplers draw with the stated odds: at chance nodes of random games (``chance_nodes``), ``draws``
    outcomes (at least 50 per outcome) from ``state.sample_chance`` and, for a kernel game, as many from its
    compiled ``kernel.sample_chance`` (what the batched drivers and compiled playouts draw with), each tested
    against ``chance_outcomes()`` (``chance_mismatch`` at level ``CHANCE_LEVEL``). The kernel must leave the
    row as it was."""
    from gameshelf.envs.core.kernel import KernelState, seed_generators

    for k, state in enumerate(chance_nodes(game, seed, per_kind=per_kind)):
        outcomes = state.chance_outcomes()
        count = max(draws, 50 * len(outcomes))
        where = _where(game, state, "chance", seed=seed)
        rng = np.random.default_rng([seed, k])
        problem = chance_mismatch(outcomes, [state.sample_chance(rng) for _ in range(count)])
        _require(problem is None, f"kernel chance: sample_chance disagrees with chance_outcomes(): {problem} [{where}]")
        if isinstance(state, KernelState):
            row, gen, sample = state.S.copy(), seed_generators(seed * 1000 + k, 1), state.game.kernel.sample_chance
            problem = chance_mismatch(outcomes, [int(sample(row, 0, gen)) for _ in range(count)])
            _require(
                problem is None, f"kernel chance: kernel.sample_chance disagrees with chance_outcomes(): {problem} [{where}]"
            )
            _require(np.array_equal(row, state.S), f"kernel chance: kernel.sample_chance changed the state row [{where}]")


def check_kernel_row(game: Game, seed: int = 31, games: int = 3) -> None:
    """A kernel game's row and its Python reading agree on every node of random games (chance nodes included):
    the State's ``current_player`` (read from the row in Python, the hottest query) equals the kernel's, every
    entry of the row stays within the bounds its ``RowLayout`` declares, and a State's own ``sample_chance``
    (a faster reading of the kernel's odds) draws exactly what ``KernelState.sample_chance`` draws from the
    kernel's ``chance_weights``: the same outcomes, ``draws`` times from one generator state, leaving the
    generator alike."""
    from gameshelf.envs.core.kernel import KernelState

    rng = np.random.default_rng(seed)
    draws = 32
    for g in range(games):
        state = game.new_initial_state()
        if not isinstance(state, KernelState):
            return
        kernel = state.game.kernel
        layout = getattr(kernel, "ROW", None)
        step = 0
        while True:
            where = f"{game.info.name}, seed {seed}, game {g}, node {step}"
            player = state.current_player()
            expected = int(kernel.current_player(state.S, 0))
            _require(player == expected, f"kernel row: current_player() is {player}, the kernel's {expected} [{where}]")
            if layout is not None:
                problem = layout.problem(state.s)
                _require(problem is None, f"kernel row: out of the declared bounds: {problem} [{where}]")
            if player == TERMINAL or step > 4 * game.info.max_game_length:
                break
            if player == CHANCE:
                if type(state).sample_chance is not KernelState.sample_chance:
                    own, generic = copy.deepcopy(rng), copy.deepcopy(rng)
                    mine = [state.sample_chance(own) for _ in range(draws)]
                    kernels = [KernelState.sample_chance(state, generic) for _ in range(draws)]
                    same = mine == kernels and own.bit_generator.state == generic.bit_generator.state
                    _require(same, f"kernel row: sample_chance drew {mine}, the kernel's odds {kernels} [{where}]")
                state.apply_action(state.sample_chance(rng))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
            step += 1


def check_random_games_end(game: Game, seed: int = 21, games: int = 3) -> None:
    """Random games end within ``max_game_length``; returns are zero before the end and in range at it."""
    rng = np.random.default_rng(seed)
    info = game.info
    for _ in range(games):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(state.sample_chance(rng))
                continue
            _require(not np.any(state.returns()), "returns: non-zero before the end of the game")
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1
            if decisions > info.max_game_length:
                raise ConformanceError(f"length: a random game ran past max_game_length={info.max_game_length}")
        returns = np.asarray(state.returns())
        _require(returns.shape == (info.num_players,), "returns: one value per seat")
        _require(
            info.min_return - 1e-9 <= returns.min() and returns.max() <= info.max_return + 1e-9,
            f"returns: {returns.tolist()} outside [{info.min_return}, {info.max_return}]",
        )
        if info.num_players > 1:
            _require(abs(returns.sum()) < 1e-6, f"returns: {returns.tolist()} do not sum to zero")


def check_clone_and_replay(game: Game, seed: int = 4) -> None:
    """``clone`` and replay from the history reproduce the state; a clone is independent."""
    for state in random_states(game, seed, games=1, every=5):
        twin = state.clone()
        _require(fingerprint(twin) == fingerprint(state), "clone: the copy differs from the original")
        replayed = game.state_from_history(state.history)
        _require(fingerprint(replayed) == fingerprint(state), "replay: replaying the history gives another state")
        if not state.is_terminal():
            before = fingerprint(state)
            twin.apply_action(twin.legal_actions()[0])
            _require(fingerprint(state) == before, "clone: acting on the copy changed the original")


def check_action_names(game: Game, seed: int = 13) -> None:
    """Every legal action has a name that ``game.string_to_action`` parses back to it."""
    for state in random_states(game, seed, games=1, every=4):
        if state.is_terminal():
            continue
        for action in state.legal_actions()[:30]:
            name = state.action_to_string(action)
            _require(isinstance(name, str) and name, f"names: action {action} has no name")
            _require(game.string_to_action(state, name) == action, f"names: {name!r} does not parse back to {action}")


def _position_data(state: State, where: str, check: str) -> dict[str, Any] | None:
    """``state.position()`` through JSON; None where it raises ``NotImplementedError``."""
    try:
        data = state.position()
    except NotImplementedError:
        return None
    except Exception as err:
        raise ConformanceError(
            f"{check}: position() raised {type(err).__name__}: {err} "
            f"(only NotImplementedError is allowed, at chance nodes) [{where}]"
        ) from None
    try:
        text = json.dumps(data, sort_keys=True)
    except (TypeError, ValueError) as err:
        raise ConformanceError(f"{check}: position() is not plain JSON data: {err} [{where}]") from None
    return json.loads(text)  # type: ignore[no-any-return]


def _rebuild(game: Game, data: dict[str, Any], where: str, check: str) -> State:
    try:
        return game.state_from_position(data)
    except ValueError as err:
        raise ConformanceError(f"{check}: state_from_position refuses the state's own position: {err} [{where}]") from None


def check_positions(game: Game, seed: int = 6, games: int = 3, per_kind: int | None = 25) -> None:
    """``game.state_from_position(state.position())`` rebuilds the position at nodes of every kind
    (``random_nodes``), the ends included, when the game has a builder.

    The rebuilt state is the same position (``position_difference``), exports the same position and,
    after the same next action, is still the same position as the original (same exported position,
    player to move and mask). ``position()`` is plain JSON data; it may raise ``NotImplementedError`` at
    chance nodes, nothing else anywhere.
    """
    if not has_position_builder(game):
        return
    rng = np.random.default_rng(seed + 1)
    for node in random_nodes(game, seed, games, per_kind):
        state = node.state
        where = _where(game, state, node.kind, seed=seed)
        data = _position_data(state, where, "positions")
        if data is None:
            _require(node.kind == "chance", f"positions: position() is not implemented at a {node.kind} node [{where}]")
            continue
        rebuilt = _rebuild(game, data, where, "positions")
        what = position_difference(rebuilt, state)
        _require(what is None, f"positions: the rebuilt position differs in its {what} [{where}]")
        _require(
            _position_data(rebuilt, where, "positions") == data,
            f"positions: the rebuilt state exports another position [{where}]",
        )
        if state.is_terminal():
            continue
        action = state.sample_chance(rng) if state.is_chance_node() else int(rng.choice(state.legal_actions()))
        ahead = state.clone()
        ahead.apply_action(action)
        try:
            rebuilt.apply_action(action)
        except IllegalActionError as err:
            raise ConformanceError(f"positions: the rebuilt position refuses action {action}: {err} [{where}]") from None
        exported = _position_data(ahead, where, "positions")
        same = (
            exported is not None
            and _position_data(rebuilt, where, "positions") == exported
            and rebuilt.current_player() == ahead.current_player()
            and rebuilt.legal_action_mask().tobytes() == ahead.legal_action_mask().tobytes()
        )
        if not same:  # without a position to compare (a chance node), compare every query
            what = position_difference(rebuilt, ahead) or ("exported position" if exported is not None else None)
            _require(what is None, f"positions: after action {action} the rebuilt position differs in its {what} [{where}]")


# ---- bad data: positions, options, actions ------------------------------------------------------------
MESSAGE_CAP = 400
"""The longest message a refusal of bad data may have (a value is shown cut, never whole)."""


def _deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


FUZZ_VALUES: tuple[Any, ...] = (
    None,
    "junk",
    "x" * (1 << 20),
    1.5,
    float("nan"),
    True,
    False,
    {},
    {"junk": 1},
    [],
    [[0, 1], [2]],
    _deep_list(20_000),
    -1,
    32767,
    32768,
    2**63,
    -(2**63) - 1,
    10**30,
)
"""Values a fuzzed position puts in place of a real one: wrong types, huge strings, deep lists, out-of-range ints."""


def _paths(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a position's plain data (keys and list indices), containers before their items."""
    if path:
        yield path
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _paths(value, (*path, i))


def _at(data: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        data = data[step]
    return data


def _show_path(path: tuple[Any, ...]) -> str:
    return "".join(f"[{step!r}]" for step in path)


def position_mutations(data: dict[str, Any], rng: np.random.Generator, count: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """``count`` mutated copies of a position's plain data, each with what was changed: a value replaced by one
    of ``FUZZ_VALUES``, a key deleted, an unknown key added, a list one shorter or one longer."""
    paths = list(_paths(data))
    lists = [p for p in paths if isinstance(_at(data, p), list) and _at(data, p)]
    for _ in range(count):
        mutated = copy.deepcopy(data)
        kind = int(rng.integers(10))
        if kind == 0 and data:
            key = list(data)[int(rng.integers(len(data)))]
            del mutated[key]
            yield f"deleted key {key!r}", mutated
        elif kind == 1:
            mutated["no_such_key"] = 0
            yield "an unknown key 'no_such_key'", mutated
        elif kind == 2 and lists:
            path = lists[int(rng.integers(len(lists)))]
            items = _at(mutated, path)
            if rng.integers(2):
                items.pop()
                yield f"{_show_path(path)} one item shorter", mutated
            else:
                items.append(copy.deepcopy(items[-1]))
                yield f"{_show_path(path)} one item longer", mutated
        elif paths:
            key = list(data)[int(rng.integers(len(data)))]  # a key, then a place inside it: each key gets its share
            inside = [p for p in paths if p[0] == key]
            path = inside[int(rng.integers(len(inside)))] if rng.integers(2) else (key,)
            value = FUZZ_VALUES[int(rng.integers(len(FUZZ_VALUES)))]
            _at(mutated, path[:-1])[path[-1]] = value
            yield f"{_show_path(path)} = {reprlib.repr(value)}", mutated


def _json(data: Any) -> str | None:
    """``data`` as JSON text, None where it is not plain JSON data (a list nested too deep, say)."""
    try:
        return json.dumps(data, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return None


def _refusal(game: Game, data: dict[str, Any], what: str) -> State | None:
    """``game.state_from_position(data)``, or None when it is refused with one short ``ValueError``."""
    try:
        return game.state_from_position(data)
    except ValueError as err:
        message = str(err)
        _require(
            len(message) <= MESSAGE_CAP,
            f"position fuzz: {what} is refused with a message of {len(message)} characters (at most {MESSAGE_CAP}): "
            f"{message[:200]}...",
        )
        chained = err.__cause__ if err.__cause__ is not None else None if err.__suppress_context__ else err.__context__
        _require(
            chained is None,
            f"position fuzz: {what} is refused with a ValueError chained to "
            f"{type(chained).__name__}: {reprlib.repr(str(chained))}",
        )
        return None
    except Exception as err:
        raise ConformanceError(
            f"position fuzz: {what} raises {type(err).__name__}: {reprlib.repr(str(err))} (expected a state or one ValueError)"
        ) from None


def check_position_fuzz(game: Game, seed: int = 17, states: int = 4, mutations: int = 40) -> None:
    """Bad position data is refused with one short ``ValueError``, or gives a state that round-trips.

    From ``states`` positions along a random game (``position()`` of decision nodes and the end), ``mutations``
    mutated copies each (``position_mutations``): each is either refused with one ``ValueError`` whose message
    has at most ``MESSAGE_CAP`` characters, or builds a state that exports exactly the data given (nothing was
    defaulted or dropped; a key the export leaves out may be given as null), whose export rebuilds the same
    position, and which can be played on. Seeded.
    """
    if not has_position_builder(game):
        return
    rng = np.random.default_rng(seed)
    nodes = [n.state.clone() for n in random_nodes(game, seed, games=1, per_kind=None) if n.kind != "chance"]
    picks = np.linspace(0, len(nodes) - 1, min(states, len(nodes))).round().astype(int)
    for k in picks:
        state = nodes[int(k)]
        where = _where(game, state, seed=seed)
        data = _position_data(state, where, "position fuzz")
        if data is None:
            continue
        for what, mutated in position_mutations(data, rng, mutations):
            what = f"{what} [{where}]"
            built = _refusal(game, mutated, what)
            if built is None:
                continue
            exported = _position_data(built, what, "position fuzz")
            _require(exported is not None, f"position fuzz: the state built from {what} has no position")
            if not what.startswith("deleted key"):
                given = {k: v for k, v in mutated.items() if v is not None or k in exported}  # type: ignore[operator]
                _require(
                    json.dumps(exported, sort_keys=True) == _json(given),
                    f"position fuzz: {what} is accepted but the state exports other data (a value was defaulted or dropped)",
                )
            again = _rebuild(game, exported, what, "position fuzz")  # type: ignore[arg-type]
            difference = position_difference(again, built)
            _require(difference is None, f"position fuzz: the state built from {what} rebuilds with another {difference}")
            _play_a_little(game, built, rng, what)


def _play_a_little(game: Game, state: State, rng: np.random.Generator, what: str, moves: int = 3) -> None:
    """A few random moves from a built state; each position on the way still round-trips."""
    for _ in range(moves):
        if state.is_terminal():
            return
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else int(rng.choice(state.legal_actions())))
        data = _position_data(state, what, "position fuzz")
        if data is not None:
            again = _rebuild(game, data, f"after a move from {what}", "position fuzz")
            difference = position_difference(again, state)
            _require(
                difference is None, f"position fuzz: after a move from {what} the position rebuilds with another {difference}"
            )


def _play_moves(state: State, rng: np.random.Generator, moves: int) -> None:
    for _ in range(moves):
        if state.is_terminal():
            return
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else int(rng.choice(state.legal_actions())))


def option_bounds(option: Option) -> tuple[int, int] | None:
    """The ``(low, high)`` range of an integer option, None for one with choices or another kind of value."""
    if option.low is None or option.high is None:
        return None
    return option.low, option.high


def check_option_bounds(game: Game, seed: int = 19, moves: int = 6) -> None:
    """Every option holds each of its allowed values exactly: each choice, and each end of an integer option's
    range, builds a game that plays ``moves`` random moves; one past each end is refused with one ``ValueError``
    naming the option and its range. An integer option of a kernel game must declare its range
    (``int_option``): its state row holds only so much."""
    from gameshelf.envs.core.kernel import KernelGame

    kind = type(game)
    rng = np.random.default_rng(seed)
    for name, option in kind.OPTIONS.items():
        default = option.default
        integer = option.choices is None and isinstance(default, (int, np.integer)) and not isinstance(default, bool)
        if integer and isinstance(game, KernelGame):
            _require(option_bounds(option) is not None, f"options: the integer option {name} declares no range (low, high)")
        bounds = option_bounds(option)
        if bounds is not None:
            values: Sequence[Any] = bounds
        elif option.choices is not None:
            values = option.choices
        else:
            continue
        for value in values:
            try:
                other = kind(**{**game.options, name: value})
            except ValueError as err:
                raise ConformanceError(f"options: {name}={value!r} is allowed but refused: {err}") from None
            _require(other.options[name] == value, f"options: {name}={value!r} is stored as {other.options[name]!r}")
            _play_moves(other.new_initial_state(), rng, moves)
        if bounds is None:
            continue
        for value in (bounds[0] - 1, bounds[1] + 1):
            message = str(_raises(ValueError, partial(kind, **{**game.options, name: value}), f"options: {name}={value}"))
            _require(
                name in message and f"{bounds[0]}..{bounds[1]}" in message,
                f"options: refusing {name}={value} must name the option and its range {bounds[0]}..{bounds[1]}: {message}",
            )


def bad_actions(game: Game) -> tuple[Any, ...]:
    """Actions no state accepts: past every integer width, negative, one past the last, numpy ints of every width."""
    n = game.info.num_actions
    numpy_ints = (np.int8(-1), np.int16(-1), np.int32(-1), np.int64(-1), np.int64(2**63 - 1))
    numpy_uints = (np.uint8(255), np.uint16(2**16 - 1), np.uint32(2**32 - 1), np.uint64(2**64 - 1))
    huge = (10**30, 2**64 + 1, 2**64, 2**63, 2**32, 2**31, 2**15, -(2**63) - 1, -(2**63), -(2**31) - 1, -1, n)
    return (*huge, *numpy_ints, *numpy_uints)


NUMPY_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


def check_bad_actions(game: Game, seed: int = 23) -> None:
    """The bare engine refuses every action of ``bad_actions`` with ``IllegalActionError`` at nodes of every kind,
    the state unchanged; a legal action given as a numpy integer of any width that holds it is applied as the
    plain int is."""
    for node in random_nodes(game, seed, games=1, per_kind=2):
        state = node.state
        where = _where(game, state, node.kind, seed=seed)
        before = fingerprint(state)
        for action in bad_actions(game):
            if not state.is_chance_node() or action not in {o for o, _ in state.chance_outcomes()}:
                what = f"bad action: {type(action).__name__} {action!r} [{where}]"
                _raises(IllegalActionError, partial(state.apply_action, action), what)
        _require(fingerprint(state) == before, f"bad action: a refused action changed the state [{where}]")
        if state.is_terminal():
            continue
        action = state.legal_actions()[0] if not state.is_chance_node() else int(state.chance_outcomes()[0][0])
        expected = state.clone()
        expected.apply_action(action)
        for kind in NUMPY_INTS:
            if np.iinfo(kind).min <= action <= np.iinfo(kind).max:
                other = state.clone()
                other.apply_action(cast(int, kind(action)))
                _require(fingerprint(other) == fingerprint(expected), f"bad action: {kind.__name__}({action}) [{where}]")


def _exported(state: State) -> str | None:
    """The position as JSON text, None where there is none (whether that is allowed is ``check_positions``')."""
    try:
        return json.dumps(state.position(), sort_keys=True, default=repr)
    except Exception:
        return None


def _view(state: State, seat: int) -> tuple[Any, ...]:
    """What ``seat`` sees of a state: whose turn, its observation and text view, its mask when it moves."""
    player = state.current_player()
    mask = state.legal_action_mask().tobytes() if player == seat else b""
    return (player, state.observation(seat).tobytes(), state.seat_text(seat), mask)


def hidden_alternative(
    game: Game, history: Sequence[int], movers: Sequence[int], seat: int, tries: int = 100
) -> list[int] | None:
    """Another history, differing only in chance outcomes, that ``seat`` cannot tell from ``history`` at
    any step (same player to move, observation, text view, and mask when it moves) but that leads to a
    different state (``_redealt``): proof that something is hidden from ``seat`` there. None when none of
    ``tries`` candidates is one: two of the last dozen chance outcomes swapped, or one of them replaced.
    """
    history = [int(a) for a in history]
    prefix = [game.new_initial_state()]  # the state after each number of actions
    for action in history:
        prefix.append(prefix[-1].clone())
        prefix[-1].apply_action(action)
    views: dict[int, tuple[Any, ...]] = {}

    def view(k: int) -> tuple[Any, ...]:
        if k not in views:
            views[k] = _view(prefix[k], seat)
        return views[k]

    truth = prefix[-1]
    truth_fingerprint, truth_exported = fingerprint(truth), _exported(truth)
    recent = [i for i in range(len(history) - 1, -1, -1) if movers[i] == CHANCE][:12]

    def candidates() -> Iterator[list[int]]:
        for k, i in enumerate(recent):
            for j in recent[k + 1 :]:
                if history[i] != history[j]:
                    alt = history[:]
                    alt[i], alt[j] = alt[j], alt[i]
                    yield alt
            for outcome, _ in prefix[i].chance_outcomes():
                if outcome != history[i]:
                    alt = history[:]
                    alt[i] = int(outcome)
                    yield alt

    for alt in itertools.islice(candidates(), tries):
        first = next(i for i, (a, b) in enumerate(zip(alt, history, strict=True)) if a != b)
        state = prefix[first].clone()
        try:
            for k in range(first, len(alt)):
                state.apply_action(alt[k])
                if _view(state, seat) != view(k + 1):
                    break
            else:
                if _redealt(truth, state, truth_fingerprint, fingerprint(state), truth_exported):
                    return alt
        except IllegalActionError:
            continue
    return None


def _replay(game: Game, history: Sequence[int], start: State | None) -> State:
    """``history`` played from ``start`` (a clone of it), or from the start of the game when None."""
    if start is None:
        return game.state_from_history(history)
    state = start.clone()
    for action in history:
        state.apply_action(int(action))
    return state


def _start(state: State, root: Callable[[State], State] | None) -> State | None:
    """The state ``state.history`` starts from: ``root(state)``, or None for the start of the game."""
    return root(state) if root is not None else None


def history_movers(state: State, root: Callable[[State], State] | None = None) -> tuple[int, ...]:
    """Who made each entry of ``state.history`` (a seat, or ``CHANCE``), found by replaying it from the start
    of the game (or from ``root(state)``, for a state built from a position)."""
    game = state.game
    replay = game.new_initial_state() if root is None else root(state).clone()
    movers: list[int] = []
    for action in state.history:
        movers.append(replay.current_player())
        replay.apply_action(int(action))
    return tuple(movers)


def node_kind(state: State, movers: Sequence[int]) -> str:
    """The kind of node (``NODE_KINDS``) of ``state``, given who made each entry of its history."""
    decided = [m for m in movers if m != CHANCE]
    return _node_kind(state, decided[-1] if decided else None, bool(movers) and movers[-1] == CHANCE)


def _check_resample(
    game: Game,
    state: State,
    kind: str,
    movers: Sequence[int],
    seat: int,
    other: State,
    before: tuple[Any, ...],
    exported: str | None,
    where: str,
    changeable: Collection[int] | None = None,
    root: Callable[[State], State] | None = None,
) -> tuple[Any, ...]:
    """Checks b to e of ``check_hidden_information`` on ``other``, a redeal of ``state`` (a ``kind`` node whose
    fingerprint is ``before``, exported position ``exported``, history made by ``movers``) for ``seat``;
    returns the redeal's fingerprint. ``changeable`` and ``root``: as in ``check_redeal``."""
    # the same game so far: whose turn, the length of the history, every decision the seat saw
    _require(other.current_player() == state.current_player(), f"resample (turn): the redeal changed whose turn it is [{where}]")
    _require(
        len(other.history) == len(state.history),
        f"resample (history): the redeal's history has {len(other.history)} entries, not {len(state.history)} [{where}]",
    )
    changed = [i for i, (a, b) in enumerate(zip(state.history, other.history, strict=True)) if a != b and movers[i] != CHANCE]
    for i in changed:
        _require(
            movers[i] != seat,
            f"resample (history): the redeal changed seat {seat}'s own decision {i} from {state.history[i]} to "
            f"{other.history[i]} [{where}]",
        )
        _require(
            changeable is None or i in changeable,
            f"resample (history): the redeal changed seat {movers[i]}'s decision {i} from {state.history[i]} to "
            f"{other.history[i]}, not one that may change ({sorted(changeable or ())}) [{where}]",
        )
    # playable
    if other.is_chance_node():
        outcomes = other.chance_outcomes()
        _require(
            outcomes and all(p > 0 for _, p in outcomes) and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9,
            f"resample (playable): the redeal's chance outcomes are not a distribution: {outcomes[:10]} [{where}]",
        )
    elif not other.is_terminal():
        _require(other.legal_action_mask().any(), f"resample (playable): the redeal has no legal action [{where}]")
    # what the seat knows
    _require(
        other.observation(seat).tobytes() == state.observation(seat).tobytes(),
        f"leak: seat {seat}'s observation changed when only what it cannot see was redealt [{where}]",
    )
    _require(other.seat_text(seat) == state.seat_text(seat), f"leak: seat {seat}'s text view changed with a redeal [{where}]")
    if state.current_player() == seat:
        _require(
            other.legal_action_mask().tobytes() == state.legal_action_mask().tobytes(),
            f"leak: seat {seat}'s legal moves changed with a redeal [{where}]",
        )
    # the redeal is a state of the game: its history replays to it, its position rebuilds it
    mine = fingerprint(other)
    try:
        replayed = _replay(game, other.history, _start(other, root))
    except IllegalActionError as err:
        raise ConformanceError(f"resample (replay): the redeal's history does not replay: {err} [{where}]") from None
    if fingerprint(replayed) != mine:
        what = position_difference(replayed, other)
        to_truth = fingerprint(replayed) == before
        _require(
            not to_truth,
            f"resample (replay): the redeal's history replays to the original state, not to the redeal "
            f"(they differ in its {what}) [{where}]",
        )
        _require(to_truth, f"resample (replay): the redeal's history replays to another state (its {what} differs) [{where}]")
    if changed:  # another seat's decision may differ only where the seat did not see it
        _check_unseen(game, state, other, changed, seat, where, root)
    if has_position_builder(game):
        data = _position_data(other, where, "resample (position)")
        if data is None:
            _require(kind == "chance", f"resample (position): position() is not implemented at a {kind} node [{where}]")
            _require(exported is None, f"resample (position): the state exports a position, its redeal does not [{where}]")
        else:  # every query but the history (a rebuilt state has none); position_difference names the first
            rebuilt = _rebuild(game, data, where, "resample (position)")
            if fingerprint(rebuilt)[1:] != mine[1:]:
                what = position_difference(rebuilt, other)
                _require(False, f"resample (position): the redeal's rebuilt position differs in its {what} [{where}]")
    return mine


def _check_unseen(
    game: Game,
    state: State,
    other: State,
    changed: list[int],
    seat: int,
    where: str,
    root: Callable[[State], State] | None = None,
) -> None:
    """Decisions of other seats that a redeal changed were unseen by ``seat``: its view just after is the same."""
    truth, redeal = state.history, other.history
    a = game.new_initial_state() if root is None else root(state).clone()
    b = game.new_initial_state() if root is None else root(other).clone()
    for i in range(max(changed) + 1):
        player = a.current_player()
        a.apply_action(truth[i])
        b.apply_action(redeal[i])
        if i in changed:
            _require(
                _view(a, seat) == _view(b, seat),
                f"resample (history): the redeal changed seat {player}'s decision {i} from {truth[i]} to {redeal[i]}, "
                f"which seat {seat} saw [{where}]",
            )


def _redeal_at(
    game: Game,
    state: State,
    kind: str,
    movers: Sequence[int],
    seat: int,
    rng: np.random.Generator,
    before: tuple[Any, ...],
    exported: str | None,
    where: str,
    changeable: Collection[int] | None = None,
    root: Callable[[State], State] | None = None,
) -> tuple[State, tuple[Any, ...]]:
    """``state.resample_hidden(seat, rng)`` and checks a to e of ``check_hidden_information`` but the original's
    (the caller compares it with ``before``); returns the redeal and its fingerprint."""
    other = state.resample_hidden(seat, rng)
    _require(other is not state, f"resample (new object): resample_hidden returned the state itself [{where}]")
    mine = _check_resample(game, state, kind, movers, seat, other, before, exported, where, changeable, root)
    return other, mine


def _act_on(other: State, rng: np.random.Generator, where: str) -> None:
    """One action on ``other`` (a redeal): a chance outcome drawn from ``rng``, or its first legal action."""
    if other.is_terminal():
        return
    action = other.sample_chance(rng) if other.is_chance_node() else other.legal_actions()[0]
    try:
        other.apply_action(action)
    except IllegalActionError as err:
        raise ConformanceError(f"resample (playable): the redeal refuses its legal action {action}: {err} [{where}]") from None


def check_redeal(
    state: State,
    seat: int,
    rng: np.random.Generator,
    *,
    movers: Sequence[int] | None = None,
    changeable: Collection[int] | None = None,
    root: Callable[[State], State] | None = None,
) -> State:
    """The resample test at one node: ``state.resample_hidden(seat, rng)`` checked as ``check_hidden_information``
    checks every redeal (a to e: a new object that leaves ``state`` unchanged, its fingerprint and exported
    position; same turn and history length; the seat's own decisions kept, another seat's changed only where
    the seat did not see it; replays to itself; its position rebuilds it; playable, one action played on a
    clone of it; what the seat knows kept). Returns the redeal, for a game's own further checks (a real
    redeal, uniformity, what the seat can deduce).

    ``movers``: who made each history entry (``Node.movers``); found by replaying the history when None.
    ``changeable``: when given, the history entries of other seats' decisions that may change at all (those
    still pass the rule above); ``()``: only chance outcomes may change. ``root``: for a state built from a
    position, whose history starts there, a function giving the state a history starts from (called with
    the state and with its redeal); None: the start of the game.
    """
    game = state.game
    movers = tuple(movers) if movers is not None else history_movers(state, root)
    _require(len(movers) == len(state.history), f"check_redeal: {len(movers)} movers for {len(state.history)} history entries")
    kind = node_kind(state, movers)
    where = _where(game, state, kind, seat)
    before, exported = fingerprint(state), _exported(state)
    other, _ = _redeal_at(game, state, kind, movers, seat, rng, before, exported, where, changeable, root)
    _act_on(other.clone(), rng, where)
    _require(
        fingerprint(state) == before and _exported(state) == exported,
        f"resample (new object): resample_hidden changed the original [{where}]",
    )
    return other


def check_redeals_along(
    game: Game,
    seed: int,
    *,
    games: int = 1,
    per_kind: int | None = None,
    every: int = 1,
    always: Callable[[State], bool] | None = None,
    label: Callable[[State], str] | None = None,
    changeable: Callable[[State, int], Collection[int]] | None = None,
    also: Callable[[State, int, State], None] | None = None,
) -> Counter[str]:
    """``check_redeal`` for every seat along random games: at the nodes of ``random_nodes(game, seed, games,
    per_kind)`` (every node by default), every ``every``-th one, each where ``always`` holds and each end.

    Each redeal is then acted on (the original must stay as it was, every query and its exported position);
    ``also(state, seat, redeal)`` runs a game's own checks first. ``changeable(state, seat)``: as in
    ``check_redeal``. Returns how many nodes of each ``label`` (default: the kind of node) were checked.
    """
    n = game.info.num_players
    checked: Counter[str] = Counter()
    for i, node in enumerate(random_nodes(game, seed, games, per_kind)):
        state = node.state
        if i % every and not state.is_terminal() and not (always is not None and always(state)):
            continue
        before, exported = fingerprint(state), _exported(state)
        for seat in range(n):
            where = _where(game, state, node.kind, seat, seed)
            rng = np.random.default_rng([seed, i, seat])
            allowed = changeable(state, seat) if changeable is not None else None
            other, _ = _redeal_at(game, state, node.kind, node.movers, seat, rng, before, exported, where, allowed)
            if also is not None:
                also(state, seat, other)
            _act_on(other, rng, where)
            _require(
                fingerprint(state) == before and _exported(state) == exported,
                f"resample (new object): resample_hidden, or acting on its redeal, changed the original [{where}]",
            )
        checked[label(state) if label is not None else node.kind] += 1
    return checked


def _redealt(state: State, other: State, before: tuple[Any, ...], after: tuple[Any, ...], exported: str | None) -> bool:
    """Whether ``other`` differs from ``state`` in anything but the history: a query (given both fingerprints),
    the exported position (given the original's), a seat's text view."""
    if after[1:] != before[1:] or _exported(other) != exported:
        return True
    return any(other.seat_text(s) != state.seat_text(s) for s in range(state.game.info.num_players))


def check_hidden_information(game: Game, seed: int = 8, games: int = 2, per_kind: int | None = None) -> None:
    """The resample test (with the leak test), for every seat at nodes of every kind (``random_nodes``).

    For a state S and R = S.resample_hidden(seat, rng): R is a new object and S is unchanged (also by acting
    on R); R has the same player to move, history length and own decisions of the seat (chance outcomes
    may differ, and other seats' decisions that the seat did not see just after them); R's history replays to R and,
    with a position builder, its position rebuilds it; R is playable (a legal action, or chance outcomes
    that are a distribution); the seat's observation, text view and (when it moves) mask are unchanged.
    Over the run some redeal changes something, and some redeal at a chance node does unless no chance
    node hides anything (``hidden_alternative`` finds no deal the seat cannot tell from the true one).
    ``per_kind`` nodes of each kind per game (``random_nodes``); by default ``max(3, 16 // num_players)``,
    so that the number of redeals hardly grows with the player count.
    """
    if not game.info.has_hidden_info:
        return
    rng = np.random.default_rng(seed + 9)
    n = game.info.num_players
    if per_kind is None:
        per_kind = max(3, 16 // n)
    changed = chance_changed = False
    copies: list[tuple[tuple[int, ...], tuple[int, ...], int]] = []  # chance nodes where a redeal changed nothing
    for node in random_nodes(game, seed, games, per_kind):
        state = node.state
        before, exported = fingerprint(state), _exported(state)
        for seat in range(n):
            where = _where(game, state, node.kind, seat, seed)
            other, mine = _redeal_at(game, state, node.kind, node.movers, seat, rng, before, exported, where)
            differs = _redealt(state, other, before, mine, exported)
            changed |= differs
            if node.kind == "chance":
                chance_changed |= differs
                if not differs:
                    copies.append((tuple(state.history), node.movers, seat))
            _act_on(other, rng, where)  # acting on the redeal must leave the original as it was
            _require(  # the history, whose turn and the text for each seat; every query once per node, below
                (tuple(state.history), state.current_player(), state.to_text()) == before[:3],
                f"resample (new object): resample_hidden, or acting on its redeal, changed the original [{where}]",
            )
        _require(
            fingerprint(state) == before and _exported(state) == exported,
            f"resample (new object): resample_hidden, or acting on a redeal, changed the original "
            f"[{_where(game, state, node.kind, seed=seed)}]",
        )
    _require(changed, f"resample (redeal): resample_hidden never changed anything hidden [{game.info.name} {n}p, seed {seed}]")
    if chance_changed:
        return
    copies.sort(key=lambda c: -len(c[0]))  # the latest first: the most is dealt there
    for history, movers, seat in copies[:6]:
        alternative = hidden_alternative(game, history, movers, seat, tries=50)
        if alternative is not None:
            diff = [i for i, (a, b) in enumerate(zip(history, alternative, strict=True)) if a != b]
            raise ConformanceError(
                f"resample (redeal): at chance nodes resample_hidden always returned a plain copy, though seat {seat} "
                f"cannot tell this chance node from another deal (chance outcomes {[history[i] for i in diff]} at "
                f"{diff} replaced by {[alternative[i] for i in diff]}) [{_where_history(game, history, 'chance', seat, seed)}]"
            )


def check_click_targets(game: Game, seed: int = 14, per_kind: int = 4) -> None:
    """A game whose picture can be clicked (``render.targets``, see ``envs.core.rendering.click_targets``):
    at decision nodes, every legal action has exactly one target and no other action has one, no two actions
    share their clicks (as a multiset: the page lets them be clicked in any order), every box lies inside
    the seat's picture, and a redeal of what the seat cannot see leaves its targets as they are."""
    from gameshelf.envs.core.rendering import click_targets, has_click_targets, render_seat_image

    rng = np.random.default_rng(seed)
    for node in random_nodes(game, seed, per_kind=per_kind):
        state = node.state
        if node.kind in ("chance", "terminal") or state.is_terminal() or state.is_chance_node():
            continue
        if not has_click_targets(state):
            return
        seat = state.current_player()
        where = _where(game, state, node.kind, seat, seed)
        targets = click_targets(state, seat)
        actions = [a for a, _ in targets]
        _require(
            sorted(actions) == sorted(state.legal_actions()),
            f"click targets: actions {sorted(actions)} are not the legal ones [{where}]",
        )
        clicks = [tuple(sorted(boxes)) for _, boxes in targets]
        _require(all(clicks), f"click targets: an action has no box to click [{where}]")
        _require(len(set(clicks)) == len(clicks), f"click targets: two actions share their clicks [{where}]")
        height, width = render_seat_image(state, seat).shape[:2]
        for action, boxes in targets:
            for x0, y0, x1, y1 in boxes:
                _require(
                    0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height,
                    f"click targets: action {action}'s box {(x0, y0, x1, y1)} is outside the {width}x{height} picture [{where}]",
                )
        if game.info.has_hidden_info:
            other = state.resample_hidden(seat, rng)
            _require(
                click_targets(other, seat) == targets, f"click targets: they change with what seat {seat} cannot see [{where}]"
            )


GAME_CHECKS: tuple[Callable[[Game], None], ...] = (
    check_info,
    check_bad_seats,
    check_masks,
    check_chance,
    check_kernel_chance,
    check_kernel_row,
    check_random_games_end,
    check_clone_and_replay,
    check_action_names,
    check_positions,
    check_position_fuzz,
    check_option_bounds,
    check_bad_actions,
    check_hidden_information,
    check_click_targets,
)


def check_game(game: Game) -> None:
    """Run every engine check on ``game``; raises ``ConformanceError`` at the first failure."""
    for check in GAME_CHECKS:
        check(game)


# ---- environment checks -------------------------------------------------------------------------------
EnvFactory = Callable[..., GameAECEnv]


def check_pettingzoo(make_env: EnvFactory) -> None:
    """PettingZoo's own ``api_test``, ``seed_test`` and ``render_test``."""
    import warnings

    from pettingzoo.test import api_test, render_test, seed_test

    with warnings.catch_warnings():  # api_test resets with an arbitrary options key to probe the signature
        warnings.filterwarnings("ignore", message=r"reset\(options=\.\.\.\): unknown key", category=UserWarning)
        api_test(make_env(), num_cycles=300)
    seed_test(make_env, num_cycles=100)
    render_test(make_env)


def check_observation_spaces(make_env: EnvFactory) -> None:
    """Every agent's observation lies in its space at every step, the end included; masks are int8."""
    env = make_env()
    env.reset(seed=5)
    spaces_ = {a: env.observation_space(a) for a in env.possible_agents}
    for _ in play_env(env, np.random.default_rng(5)):
        for other in env.possible_agents:
            obs = env.observe(other)
            declared = spaces_[other]["observation"]  # type: ignore[index]
            _require(obs["observation"].dtype == declared.dtype, "spaces: observation dtype")
            _require(obs["action_mask"].dtype == np.int8, "spaces: the action mask is int8")
            _require(spaces_[other].contains(obs), f"spaces: the observation of {other} is outside its space")
            if other != env.agent_selection or env.terminations[other] or env.truncations[other]:
                _require(not obs["action_mask"].any(), f"spaces: {other} has legal actions when not to move")
        _, _, term, trunc, _ = env.last()
        _require(type(term) is bool and type(trunc) is bool, "flags: terminations and truncations are Python bools")
    for other in env.possible_agents:
        _require(spaces_[other].contains(env.observe(other)), "spaces: an observation after the end is outside its space")


def env_snapshot(env: GameAECEnv) -> tuple[Any, ...]:
    """The whole visible state of an AEC env: engine, rewards, flags, selection, generator, record."""
    return (
        fingerprint(env.episode.require_state()),
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        repr(env.infos),
        env.agent_selection,
        list(env.agents),
        env.np_random.bit_generator.state["state"],
        env.episode.num_moves,
        env.record().to_json() if env.env_id in _registered() else None,
    )


def _registered() -> list[str]:
    from gameshelf.envs.registration import registered_ids

    return registered_ids()


def check_read_only_calls(make_env: EnvFactory) -> None:
    """observe, last, render, state and the engine's queries change nothing, the generator included."""
    env = make_env(render_mode="ansi")
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    for i, _ in enumerate(env.agent_iter()):
        before = env_snapshot(env)
        state = env.episode.require_state()
        for a in env.possible_agents:
            env.observe(a)
        env.last()
        env.render()
        env.state()
        state.legal_actions()
        for action in state.legal_actions()[:5]:
            state.action_to_string(action)
        if i % 7 == 0:
            state.render_image()
            state.seat_text(0)
        _require(env_snapshot(env) == before, "read-only: a query changed the environment")
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else random_legal(obs, rng))


def check_pickle(make_env: EnvFactory) -> None:
    """A pickled (and a deep-copied) env continues exactly like the original."""
    env = make_env()
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(7):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(random_legal(obs, rng))
    traces = []
    for e in (env, pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        local = np.random.default_rng(1)
        trace = []
        for agent in e.agent_iter(40):
            obs, reward, term, trunc, _ = e.last()
            trace.append((agent, reward, term, trunc, obs["observation"].tobytes()))
            e.step(None if term or trunc else random_legal(obs, local))
        traces.append(trace)
    _require(traces[0] == traces[1], "pickle: the unpickled env continues differently")
    _require(traces[0] == traces[2], "pickle: the deep-copied env continues differently")


def check_determinism(make_env: EnvFactory) -> None:
    """Same seed, same game, whatever the global ``random`` / ``np.random`` do between steps."""

    def run(perturb: bool) -> list[Any]:
        env = make_env()
        env.reset(seed=123)
        local = np.random.default_rng(7)
        trace = []
        for agent in env.agent_iter(400):
            if perturb:
                random.seed(random.random())
                np.random.seed(np.random.randint(1 << 30))
            obs, reward, term, trunc, _ = env.last()
            trace.append((agent, reward, term, trunc, obs["observation"].tobytes(), obs["action_mask"].tobytes()))
            env.step(None if term or trunc else random_legal(obs, local))
        return trace

    _require(run(False) == run(True), "determinism: the global random generators changed the game")


def check_bad_inputs(make_env: EnvFactory) -> None:
    """Clear exceptions for misuse, never an assert; nothing changes."""
    env = make_env()
    _raises(RuntimeError, lambda: env.step(0), "bad input: step before reset")
    _raises(RuntimeError, lambda: env.observe(env.possible_agents[0]), "bad input: observe before reset")
    _raises(RuntimeError, env.last, "bad input: last before reset")
    env.reset(seed=0)
    before = env_snapshot(env)
    n = env.game.info.num_actions
    for out_of_range in (n, -1):
        _raises(ValueError, partial(env.step, out_of_range), f"bad input: out-of-range action {out_of_range}")
    not_actions: tuple[Any, ...] = (1.0, True, "0", [0])
    for bad in not_actions:
        _raises(TypeError, partial(env.step, bad), f"bad input: action {bad!r}")
    _raises(ValueError, partial(env.step, None), "bad input: step(None) for a live agent")
    not_options: Any = ["x"]
    _raises(TypeError, partial(env.reset, options=not_options), "bad input: reset(options=<list>)")
    _require(env_snapshot(env) == before, "bad input: a refused step changed the environment")
    rng = np.random.default_rng(0)
    for _ in play_env(env, rng):
        pass
    _raises(RuntimeError, lambda: env.step(0), "bad input: step after the end")


def check_refusals(make_env: EnvFactory, choices: Sequence[int] | None = None, seed: int = 0) -> None:
    """Interleave legal moves, illegal moves (both modes) and pickling: a refused step changes nothing.

    ``choices`` drives the interleaving (a property-based test generates them); each value picks what to
    do next: a legal move, an illegal one, or a pickle round trip.
    """
    rng = np.random.default_rng(seed)
    picks = list(choices) if choices is not None else [int(x) for x in rng.integers(0, 1 << 16, size=60)]
    for mode in ("raise", "penalize"):
        env = make_env(illegal_action=mode, reward="score")
        env.reset(seed=seed)
        for pick in picks:
            if not env.agents:
                break
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            illegal = np.flatnonzero(obs["action_mask"] == 0)
            kind = pick % 4
            if kind == 0 and illegal.size:
                action = int(illegal[pick // 4 % illegal.size])
                before = env_snapshot(env)
                if mode == "raise":
                    _raises(IllegalActionError, partial(env.step, action), "refusal: an illegal action")
                    _require(env_snapshot(env) == before, f"refusal: refusing action {action} changed the environment")
                else:
                    agent = env.agent_selection
                    env.step(action)
                    _require(all(env.terminations.values()), "penalize: the game must end")
                    _require(env.rewards[agent] == -1.0, "penalize: the offender gets -1")
                    record = env.record()
                    replayed = Episode.from_record(read_record(record.to_json())) if env.env_id in _registered() else None
                    if replayed is not None:
                        _require(replayed.offender == env.agent_name_mapping[agent], "penalize: the record keeps the offender")
            elif kind == 1:
                before = env_snapshot(env)
                env = pickle.loads(pickle.dumps(env))
                _require(env_snapshot(env) == before, "refusal: a pickle round trip changed the environment")
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[pick // 4 % legal.size]))


def check_rewards(make_env: EnvFactory) -> None:
    """Per-step rewards add up to ``returns()`` (plus ``scores()`` in score mode) by the end."""
    for mode in ("outcome", "score"):
        env = make_env(reward=mode)
        env.reset(seed=31)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for _ in play_env(env, np.random.default_rng(2)):
            for a, r in env.rewards.items():
                total[a] += r
        state = env.episode.require_state()
        if state.current_player() == TERMINAL:
            expected = np.asarray(state.returns()) + (np.asarray(state.scores()) if mode == "score" else 0)
            got = [total[a] for a in env.possible_agents]
            _require(np.allclose(got, expected), f"rewards ({mode}): summed rewards {got} != final values {expected.tolist()}")


def check_records(make_env: EnvFactory) -> None:
    """A finished game's record survives JSON and replays to the same state, flags and rewards."""
    env = make_env()
    if env.env_id not in _registered():
        return
    env.reset(seed=14)
    for _ in play_env(env, np.random.default_rng(14)):
        pass
    record = env.record()
    episode = Episode.from_record(read_record(record.to_json()))
    _require(fingerprint(episode.require_state()) == fingerprint(env.episode.require_state()), "records: replay differs")
    _require((episode.terminated, episode.truncated) == (env.episode.terminated, env.episode.truncated), "records: flags differ")
    _require(np.allclose(episode.totals, env.episode.totals), "records: summed rewards differ")


ENV_CHECKS: tuple[Callable[[EnvFactory], None], ...] = (
    check_pettingzoo,
    check_observation_spaces,
    check_read_only_calls,
    check_pickle,
    check_determinism,
    check_bad_inputs,
    check_refusals,
    check_rewards,
    check_records,
)


def env_factory(env: str | Game, num_players: int | None = None, **options: Any) -> EnvFactory:
    """``factory(**env_kwargs) -> GameAECEnv`` for a registered id (with options) or a ``Game`` object."""
    if isinstance(env, Game):
        game = env
        return lambda **kw: GameAECEnv(game, **kw)
    from gameshelf.envs.registration import make

    if num_players is not None:
        options["num_players"] = num_players
    return lambda **kw: make(env, **options, **kw)


def check_env(env: str | Game, num_players: int | None = None, **options: Any) -> None:
    """Run every engine and environment check on a registered id (or a ``Game``); ``ConformanceError`` on failure."""
    make_env = env_factory(env, num_players, **options)
    check_game(make_env().game)
    for check in ENV_CHECKS:
        check(make_env)


def check_kernel_template(env_id: str, **options: Any) -> None:
    """The game of ``env_id`` runs on the kernel template (``envs.core.kernel``): its ``Game`` is a
    ``KernelGame`` whose ``State`` is a ``KernelState``, its kernel module provides ``KERNEL_INTERFACE`` and
    no driver of its own, its drivers are the template's code compiled over its kernels, and its row has
    ``STATE_DTYPE`` and ``SIZE`` entries."""
    from gameshelf.envs.core.kernel import (
        DRIVER_NAMES,
        KERNEL_INTERFACE,
        STATE_DTYPE,
        KernelGame,
        KernelState,
        is_template_driver,
        kernel_drivers,
    )
    from gameshelf.envs.registration import make_game

    game = make_game(env_id, **options)
    _require(isinstance(game, KernelGame), f"{env_id}: {type(game).__name__} is not a KernelGame")
    assert isinstance(game, KernelGame)
    _require(isinstance(game.new_initial_state(), KernelState), f"{env_id}: its state is not a KernelState")
    kernel = game.kernel
    missing = [name for name in KERNEL_INTERFACE if not hasattr(kernel, name)]
    _require(not missing, f"{env_id}: {kernel.__name__} lacks {missing}")
    own = [name for name in DRIVER_NAMES if name in vars(kernel)]
    _require(not own, f"{env_id}: {kernel.__name__} defines its own {own}; the drivers are the template's")
    drivers = kernel_drivers(kernel)
    for name in DRIVER_NAMES:
        _require(is_template_driver(getattr(drivers, name), name), f"{env_id}: its {name} is not the template's")
    _require(game.initial.dtype == STATE_DTYPE, f"{env_id}: its row is {game.initial.dtype}, not {np.dtype(STATE_DTYPE)}")
    _require(game.initial.shape == (kernel.SIZE,), f"{env_id}: its row has shape {game.initial.shape}, not ({kernel.SIZE},)")


def check_batched(env_id: str, num_envs: int = 4, steps: int = 300, seed: int = 0, **options: Any) -> int:
    """Replay every game of ``gameshelf.vector.make(env_id, ...)`` through the AEC environment (``make``).

    First ``check_kernel_template``. Then the batch is stepped ``steps`` times with random legal actions. Each
    game it played (auto-reset included) is then replayed in ``envs.make(env_id, **options)`` with the same
    chance outcomes (derived from the game's generator, drawn in the batch's order) and the same actions; at
    every step the player to move, its observation and mask, every seat's reward and the end flags must be
    the batch's. Returns the number of finished games. The replay test every ported game must pass.
    """
    from gameshelf.envs.core.kernel import seed_generators
    from gameshelf.envs.registration import make
    from gameshelf.envs.vector import make as make_batch

    check_kernel_template(env_id, **options)
    batch = make_batch(env_id, num_envs=num_envs, seed=seed, **options)
    kernel = batch.kernel
    generators = seed_generators(seed, num_envs)  # what reset() seeds the games with
    out = batch.reset()
    shown = [(out.current_player.copy(), out.observation.copy(), out.action_mask.copy())]
    actions, results = [], []
    picker = seed_generators(seed + 1, num_envs)
    for _ in range(steps):
        acts = batch.random_actions(picker)
        out = batch.step(acts)
        actions.append(acts)
        results.append((out.rewards.copy(), out.terminated.copy(), out.truncated.copy()))
        shown.append((out.current_player.copy(), out.observation.copy(), out.action_mask.copy()))

    finished = 0
    for i in range(num_envs):
        gen = generators[i : i + 1].copy()
        state = batch.game.new_initial_state()
        chance: list[int] = []
        game_steps: list[int] = []

        def resolve(state: State, gen: np.ndarray = gen, chance: list[int] = chance) -> None:
            while state.current_player() == CHANCE:
                outcome = int(kernel.sample_chance(state.S, 0, gen))  # type: ignore[attr-defined]
                state.apply_action(outcome)
                chance.append(outcome)

        resolve(state)
        for t in range(steps + 1):
            if t < steps:
                try:
                    state.apply_action(int(actions[t][i]))
                except IllegalActionError as err:
                    raise ConformanceError(f"{env_id} batch slot {i}, step {t}: not the game the replay expects: {err}") from None
                resolve(state)
                game_steps.append(t)
                ended = bool(results[t][1][i] or results[t][2][i])
            if t == steps or ended:
                _replay_one(make(env_id, **options), list(chance), game_steps, i, actions, results, shown, env_id)
                finished += t < steps
                state, game_steps = batch.game.new_initial_state(), []
                chance.clear()
                resolve(state)
    return finished


def _replay_one(
    env: GameAECEnv,
    chance: list[int],
    game_steps: list[int],
    i: int,
    actions: list[np.ndarray],
    results: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    shown: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    env_id: str,
) -> None:
    """One game of slot ``i`` of a batch through the AEC env, compared step by step (``check_batched``)."""
    env.reset(seed=0, options={"chance_outcomes": chance})
    where = f"{env_id} batch slot {i}"

    def compare_shown(t: int) -> None:
        player, obs, mask = (x[i] for x in shown[t])
        agent = env.agent_selection
        _require(env.agent_name_mapping[agent] == player, f"{where}, step {t}: batch says seat {player} moves, AEC {agent}")
        seen = env.observe(agent)
        _require(np.array_equal(seen["observation"], obs), f"{where}, step {t}: observations differ")
        _require(np.array_equal(seen["action_mask"].astype(bool), mask), f"{where}, step {t}: masks differ")

    compare_shown(game_steps[0] if game_steps else len(shown) - 1)
    for k, t in enumerate(game_steps):
        env.step(int(actions[t][i]))
        rewards, terminated, truncated = (x[i] for x in results[t])
        got = np.array([env.rewards[a] for a in env.possible_agents])
        _require(np.allclose(got, rewards), f"{where}, step {t}: rewards {rewards.tolist()} but AEC {got.tolist()}")
        agent = env.agent_selection
        _require(bool(env.terminations[agent]) == bool(terminated), f"{where}, step {t}: terminated {terminated}")
        _require(bool(env.truncations[agent]) == bool(truncated), f"{where}, step {t}: truncated {truncated}")
        if not (terminated or truncated):
            compare_shown(t + 1)
        else:
            _require(k == len(game_steps) - 1, f"{where}, step {t}: the game ended before its last recorded step")
