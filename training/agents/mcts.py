"""``MCTSAgent``: Monte Carlo tree search over any registered game, through the engine interface only.

    agent = make_agent("mcts:200", "amoriax-v0")          # 200 simulations per move, random rollouts
    agent = make_agent("mcts:200:heuristic", "olenon-v0") # rollouts played by the game's heuristic
    agent = make_agent("mcts:0.5s", "koplus-v0")          # as many simulations as fit in 0.5 s per move
    agent = make_agent("mcts:200:model:runs/x/final_model.zip", "level_x-v0")  # PUCT, a trained policy as prior
    agent = make_agent("mcts:100:reference:heuristic", "cargo_empire-v0")  # the shipped network as prior, heuristic rollouts
    action = agent.act(state, seat, rng)

The search uses nothing but ``clone``/``resample_hidden``, ``legal_actions``, ``apply_checked_action``
(actions taken from the legal list or from ``sample_chance``), ``current_player`` and ``returns``, so every
game gets it by registration.

* **Selection** is UCT (``Q + c * sqrt(ln n / n_a)``, returns scaled to ``[0, 1]`` by the game's
  ``min_return``/``max_return``); every node maximizes the return of the player to move there, so any
  number of players works, and partners (whose returns the engines already share) cooperate.
* **Chance nodes** are sampled (``sample_chance``): the tree keeps one child per outcome seen.
* **Expansion** adds one untried action per simulation (chosen with the search's rng); a move found to
  end the game with the best return for its mover is always taken from then on (wins in one are never
  missed once expanded; with hidden information this trusts the determinization that found it). **Rollouts** are
  uniformly random (in the game's compiled kernel when its state has ``random_playout``), or played by
  the game's heuristic (``:heuristic``). A rollout stops after
  ``info.max_game_length`` decisions; a rollout cut short scores ``returns()`` (zeros, a draw).
* **Hidden information**: single-observer information-set MCTS. Every simulation starts from a fresh
  determinization ``state.resample_hidden(seat, rng)``; the tree is keyed by actions only, and selection
  counts, for each action, how often it was available (``n`` above is that count). The state the agent
  is handed is already redealt by the caller (``observed_state``); the agent redeals it again itself and
  never reads its ``history`` (which may hold a deal), so its choice depends only on what its seat sees
  and on the rng: for one seed it is the same for every redeal of the cards it cannot see. Rollouts by
  the heuristic play inside a determinization (a sampled world), as in PIMC.
* **Subtree reuse** (perfect-information games): after its move the agent keeps the subtree below it;
  on its next turn, if the new state's history extends the old one, the actions played since are followed
  down the tree and the search continues from there (a mismatch, or a state built from a position that
  does not play on from the last one, starts a fresh tree).
* **Policy-guided search** (``mcts:N:model:PATH``): PUCT (``Q + c_puct * P(a) * sqrt(n) / (1 + n_a)``,
  an unvisited action valued at its node's mean) with a saved MaskablePPO policy's action probabilities
  as the prior ``P`` (computed once per node, from the observation of the player to move; loaded as
  weights only, as ``model:PATH`` agents are), and the same rollouts at the leaves. With hidden information
  the prior of an opponent's node comes from the determinization that created it.
* **Network leaves** (``leaf_value``, for a prior with ``forward`` such as a ``NetPolicy``): a new leaf is
  scored by the network's value head instead of a rollout (``leaf_value=1``), or by a mix
  ``leaf_value * value + (1 - leaf_value) * rollout``. One batched forward pass over the observations of
  every seat in the leaf's (determinized) state gives every seat's value, so partners and any number of
  players are handled, and the mover's row gives the new node's prior (no second pass when it is
  expanded). The default is rollouts (``leaf_value=0``): at equal time per move, with the small networks
  expert iteration trains here, rollouts searched better than value leaves on Level X and Paikō, and no
  worse than the mix (measurements in docs/training.md, "Expert iteration").
* **Self-play extras**: ``noise=(alpha, fraction)`` mixes Dirichlet noise into the root's prior for each
  search; ``temperature > 0`` plays a root action drawn with probability proportional to
  ``visits ** (1 / temperature)`` instead of the most visited one; after ``act``, ``last_visits`` holds the
  root's visit count of every action (an array of ``num_actions``; all zeros after a forced move).
* **Budget**: a number of simulations (deterministic: the same rng gives the same move) or a time per
  move (``"0.5s"``; as many simulations as fit, so not repeatable). The move played is the most visited
  root action (ties: higher mean return, then the lower action number). ``max_seconds`` (not part of the
  name; ``gameshelf serve`` sets it) is a hard cap on top of either budget: once it is spent the search
  stops and a rollout in progress is cut short and scored as it stands, so no move takes much longer,
  however slow the game's rollouts.

Pure Python, so strength per second depends on the engine's clone + mask + apply speed
(``python -m gameshelf.bench.throughput --mcts`` measures simulations per second).
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

import numpy as np

from gameshelf.envs.core.game import CHANCE, TERMINAL, State
from gameshelf.training.agents.base import Agent, heuristic_agent

YIELD_SECONDS = 0.005
"""A search lets other threads run at least this often. A search on compiled kernels otherwise keeps the
interpreter lock for most of a second at a time (measured on Level X: other threads got it 7 times in 2 s),
so a server thread answering requests would wait for the whole search."""
DEFAULT_C_PUCT = 1.0
"""PUCT's exploration constant (policy-guided search), on returns scaled to [0, 1]."""

DEFAULT_C = 0.5
"""Exploration constant on returns scaled to [0, 1] (lightly tuned: on the KoPlus bonus-landing test
position 100 simulations found the best move for 6 seeds of 6 with 0.5, 4 of 6 with 1.0)."""


class Node:
    """A tree node: visit count, summed returns of every seat, children by action (or chance outcome)."""

    __slots__ = ("avail", "children", "legal", "priors", "total", "visits", "win")

    def __init__(self, num_players: int) -> None:
        self.visits = 0
        self.avail = 0
        self.total = np.zeros(num_players, dtype=np.float64)
        self.children: dict[int, Node] = {}
        self.legal: list[int] | None = None  # cached legal actions (perfect information only)
        self.win = False  # the move into this node ended the game with the best return for its mover
        self.priors: np.ndarray | None = None  # the policy's action probabilities here (policy-guided search)


class MCTSAgent:
    """UCT / single-observer IS-MCTS (see the module docstring)."""

    def __init__(
        self,
        simulations: int | None = 200,
        seconds: float | None = None,
        rollout: Agent | None = None,
        c: float = DEFAULT_C,
        reuse: bool = True,
        name: str | None = None,
        prior: Any = None,
        c_puct: float = DEFAULT_C_PUCT,
        max_seconds: float | None = None,
        leaf_value: float = 0.0,
        noise: tuple[float, float] | None = None,
        temperature: float = 0.0,
    ) -> None:
        if (simulations is None) == (seconds is None):
            raise ValueError("give exactly one budget: simulations or seconds")
        if simulations is not None and simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be positive, got {seconds}")
        if max_seconds is not None and not max_seconds > 0:
            raise ValueError(f"max_seconds must be positive, got {max_seconds}")
        if not 0.0 <= leaf_value <= 1.0:
            raise ValueError(f"leaf_value must be in [0, 1], got {leaf_value}")
        if leaf_value > 0 and not hasattr(prior, "forward"):
            raise ValueError("leaf_value needs a prior with a value head (forward(observations) -> logits, values)")
        if noise is not None and not (noise[0] > 0 and 0.0 <= noise[1] <= 1.0):
            raise ValueError(f"noise must be (alpha > 0, fraction in [0, 1]), got {noise}")
        if temperature < 0:
            raise ValueError(f"temperature must be at least 0, got {temperature}")
        self.leaf_value = float(leaf_value)
        self.noise = noise
        self.temperature = float(temperature)
        self.last_visits: np.ndarray | None = None
        """The root's visit count of every action after the last ``act`` (zeros after a forced move)."""
        self.simulations = simulations
        self.seconds = seconds
        self.max_seconds = max_seconds
        self._cutoff: float | None = None  # the max_seconds deadline of the move being searched
        self.rollout_agent = rollout
        self.prior = prior
        self.c_puct = c_puct
        self.c = c
        self.reuse = reuse
        budget = f"{simulations}" if simulations is not None else f"{seconds:g}s"
        self.name = name or f"mcts:{budget}" + (":heuristic" if rollout is not None else "") + (":model" if prior else "")
        self._kept: tuple[State, Node] | None = None
        self._top = 1.0
        self.last_simulations = 0
        """Simulations run by the last ``act`` (for benchmarks)."""
        self.reused_visits = 0
        """Visits the last ``act`` found already in its tree (subtree reuse)."""
        self.hurry: threading.Event | None = None
        """When set (by another thread), the search in progress stops at its next simulation and the best
        move so far is played (the web page's "Move now")."""

    # ---- the move ------------------------------------------------------------------------
    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        if state.current_player() != seat:
            raise ValueError(f"seat {seat} is not to move (current player {state.current_player()})")
        legal = state.legal_actions()
        info = state.game.info
        self.last_visits = np.zeros(info.num_actions, dtype=np.int64)
        if len(legal) == 1:
            self._kept = None
            return int(legal[0])
        hidden = info.has_hidden_info
        root = None if hidden else self._reused_root(state)
        if root is None:
            root = Node(info.num_players)
        self.reused_visits = root.visits
        if self.prior is not None and self.noise is not None:
            if root.priors is None:
                root.priors = self._priors(state, seat)
            alpha, fraction = self.noise
            mask = np.zeros(info.num_actions, dtype=bool)
            mask[legal] = True
            noise = np.zeros(info.num_actions)
            noise[mask] = rng.dirichlet(np.full(int(mask.sum()), alpha))
            root.priors = (1.0 - fraction) * root.priors + fraction * noise
        lo, span = info.min_return, (info.max_return - info.min_return) or 1.0
        self._top = info.max_return
        now = time.perf_counter()
        deadline = None if self.seconds is None else now + self.seconds
        self._cutoff = None if self.max_seconds is None else now + self.max_seconds
        done = 0
        handed_over = now
        while True:
            if time.perf_counter() - handed_over >= YIELD_SECONDS:
                time.sleep(0)  # hand the interpreter lock to any thread waiting for it
                handed_over = time.perf_counter()
            if deadline is None:
                if done >= (self.simulations or 0):
                    break
            elif done > 0 and time.perf_counter() >= deadline:
                break
            if done > 0 and self._cutoff is not None and time.perf_counter() >= self._cutoff:
                break
            if done > 0 and self.hurry is not None and self.hurry.is_set():
                break
            world = state.resample_hidden(seat, rng) if hidden else state.clone()
            self._simulate(root, world, rng, hidden, lo, span)
            done += 1
        self.last_simulations = done
        for a, child in root.children.items():
            if 0 <= a < info.num_actions:
                self.last_visits[a] = child.visits
        if self.temperature > 0 and self.last_visits.sum() > 0:
            weights = self.last_visits.astype(np.float64) ** (1.0 / self.temperature)
            action = int(rng.choice(info.num_actions, p=weights / weights.sum()))
        else:
            action = self._best(root, legal, seat, rng)
        if self.reuse and not hidden and action in root.children:
            after = state.clone()
            after.apply_checked_action(action)
            self._kept = (after, root.children[action])
        else:
            self._kept = None
        return action

    @staticmethod
    def _best(root: Node, legal: list[int], seat: int, rng: np.random.Generator) -> int:
        """The proven win, else the most visited move, then the best mean; exact ties are broken at random
        (a fixed order would favour low action numbers, which at small budgets is a bias of its own)."""
        best, best_key = int(legal[0]), (False, -1, -math.inf, 0.0)
        tie_breaks = rng.random(len(legal))
        for a, tie_break in zip(legal, tie_breaks, strict=True):
            child = root.children.get(a)
            if child is None or child.visits == 0:
                continue
            key = (child.win, child.visits, float(child.total[seat]) / child.visits, float(tie_break))
            if key > best_key:
                best, best_key = int(a), key
        return best

    # ---- one simulation ------------------------------------------------------------------
    def _simulate(self, root: Node, world: State, rng: np.random.Generator, hidden: bool, lo: float, span: float) -> None:
        node = root
        path = [root]
        num_players = world.game.info.num_players
        while True:
            player = world.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                outcome = world.sample_chance(rng)
                world.apply_checked_action(outcome)
                child = node.children.get(outcome)
                if child is None:
                    child = node.children[outcome] = Node(num_players)
                node = child
                path.append(node)
                continue
            if hidden:
                legal = world.legal_actions()
            else:
                if node.legal is None:
                    node.legal = world.legal_actions()
                legal = node.legal
            children = node.children
            if self.prior is not None:
                chosen = self._puct(node, world, player, legal, lo, span)
                world.apply_checked_action(chosen)
                child = children.get(chosen)
                if child is None:
                    child = children[chosen] = Node(num_players)
                    child.avail = 1
                    path.append(child)
                    if world.current_player() == TERMINAL and world.returns()[player] >= self._top:
                        child.win = True
                    if self.leaf_value > 0:
                        returns = self._leaf(child, world, rng, hidden)
                        for n in path:
                            n.visits += 1
                            n.total += returns
                        return
                    break
                node = child
                path.append(node)
                continue
            untried = [a for a in legal if a not in children]
            if untried:
                for a in legal:
                    if a in children:
                        children[a].avail += 1
                action = untried[int(rng.integers(len(untried)))] if len(untried) > 1 else untried[0]
                world.apply_checked_action(action)
                child = children[action] = Node(num_players)
                child.avail = 1
                path.append(child)
                if world.current_player() == TERMINAL and world.returns()[player] >= self._top:
                    child.win = True
                break
            best_child, best_value, best_action = None, -math.inf, -1
            c = self.c
            for a in legal:
                child = children[a]
                child.avail += 1
            for a in legal:
                child = children[a]
                if child.win:  # a winning move ends the search below this node
                    best_child, best_action = child, a
                    break
                log_n = math.log(child.avail)
                value = (child.total[player] / child.visits - lo) / span + c * math.sqrt(log_n / child.visits)
                if value > best_value:
                    best_child, best_value, best_action = child, value, a
            assert best_child is not None
            world.apply_checked_action(best_action)
            node = best_child
            path.append(node)
        returns = self._rollout(world, rng)
        for n in path:
            n.visits += 1
            n.total += returns

    def _puct(self, node: Node, world: State, player: int, legal: list[int], lo: float, span: float) -> int:
        """PUCT choice at a decision node: ``Q + c_puct * P(a) * sqrt(n) / (1 + n_a)``, unvisited Q = the node's mean."""
        if node.priors is None:
            node.priors = self._priors(world, player)
        priors = node.priors
        children = node.children
        fpu = (node.total[player] / node.visits - lo) / span if node.visits else 0.5
        sqrt_n = math.sqrt(max(1, node.visits))
        best, best_value = legal[0], -math.inf
        for a in legal:
            child = children.get(a)
            if child is not None:
                child.avail += 1
                if child.win:
                    return a
                q, n = (child.total[player] / child.visits - lo) / span, child.visits
            else:
                q, n = fpu, 0
            value = q + self.c_puct * float(priors[a]) * sqrt_n / (1 + n)
            if value > best_value:
                best, best_value = a, value
        return best

    def _priors(self, world: State, player: int) -> np.ndarray:
        return np.asarray(self.prior.action_probabilities(world, player), dtype=np.float64)

    def _leaf(self, node: Node, world: State, rng: np.random.Generator, hidden: bool) -> np.ndarray:
        """Every seat's value of a new leaf: the network's (chance played out to the next decision), mixed with a
        rollout's by ``leaf_value``; the mover's prior is stored on ``node`` (perfect information only: with
        hidden information a node's prior comes from the determinization that first reaches it as a decision)."""
        chanced = False
        while world.current_player() == CHANCE:
            world.apply_checked_action(world.sample_chance(rng))
            chanced = True
        player = world.current_player()
        if player == TERMINAL:
            return np.asarray(world.returns(), dtype=np.float64)
        seats = world.game.info.num_players
        logits, values = self.prior.forward(np.stack([np.asarray(world.observation(s)) for s in range(seats)]))
        if node.priors is None and not hidden and not chanced:
            from gameshelf.training.numpy_net import masked_softmax

            node.priors = masked_softmax(logits[player], np.asarray(world.legal_action_mask(), dtype=bool))
        estimate = np.asarray(values, dtype=np.float64)
        if self.leaf_value >= 1.0:
            return estimate
        return self.leaf_value * estimate + (1.0 - self.leaf_value) * self._rollout(world, rng)

    def _rollout(self, world: State, rng: np.random.Generator) -> np.ndarray:
        cap = world.game.info.max_game_length
        decisions = 0
        cutoff = self._cutoff
        agent = self.rollout_agent
        if agent is None and hasattr(world, "random_playout"):  # the game's compiled random playout
            world.random_playout(rng, cap)
            return np.asarray(world.returns(), dtype=np.float64)
        while decisions < cap:
            player = world.current_player()
            if player == TERMINAL:
                break
            if cutoff is not None and decisions % 16 == 0 and time.perf_counter() >= cutoff:
                break  # the move's hard time cap is spent: score the rollout as it stands
            if player == CHANCE:
                world.apply_checked_action(world.sample_chance(rng))
                continue
            if agent is None:
                legal = world.legal_actions()
                world.apply_checked_action(legal[int(rng.integers(len(legal)))])
            else:
                world.apply_action(int(agent.act(world, player, rng)))
            decisions += 1
        return np.asarray(world.returns(), dtype=np.float64)

    # ---- subtree reuse ---------------------------------------------------------------------
    def _reused_root(self, state: State) -> Node | None:
        kept, self._kept = self._kept, None
        if not self.reuse or kept is None:
            return None
        old, node = kept
        if old.game != state.game:
            return None
        start = len(old.history)
        if len(state.history) < start or state.history[:start] != old.history:
            return None
        replay = old.clone()
        for action in state.history[start:]:
            if replay.current_player() == TERMINAL:
                return None
            child = node.children.get(action)
            if child is None:
                return None
            replay.apply_checked_action(action)
            node = child
        if replay.current_player() != state.current_player() or replay.to_text() != state.to_text():
            return None
        return node


TAILS: dict[str, tuple[bool, bool]] = {
    "heuristic": (True, False),
    "reference": (False, True),
    "reference:heuristic": (True, True),
}
"""The fixed endings of an MCTS agent name (besides ``:model:PATH``): whether it plays heuristic rollouts and
whether the game's reference network is its prior. Every parser of these names (``parse_mcts_name``, the web
server's seats) reads them from here."""


def parse_mcts_name(name: str) -> dict[str, Any]:
    """``mcts:BUDGET`` with an optional ``:heuristic``, ``:reference``, ``:reference:heuristic`` or
    ``:model:PATH`` -> budget, rollouts and prior.

    BUDGET is ``N`` (simulations per move) or ``Ts`` (seconds per move, e.g. ``0.5s``). ``:heuristic`` plays
    the rollouts with the game's heuristic. ``:reference`` and ``:model:PATH`` give PUCT with a policy as
    prior: the game's shipped network (``training.agents.network_agent``), or a saved model (a network file when PATH
    ends in ``.npz``, else a MaskablePPO model). ``:reference:heuristic`` is both: the shipped network as
    prior and the heuristic's rollouts.
    """
    forms = (
        "'mcts:N' (N simulations per move), 'mcts:Ts' (T seconds per move, e.g. 'mcts:0.5s'), "
        "each optionally followed by ':heuristic' (heuristic rollouts), ':reference' (PUCT with the game's "
        "reference network as prior), ':reference:heuristic' (both) or ':model:PATH' (PUCT with a saved "
        "policy, or a PATH.npz network, as prior)"
    )
    parts = name.split(":", 2)
    rest = parts[2] if len(parts) == 3 else None
    if parts[0] != "mcts" or len(parts) < 2 or (rest is not None and rest not in TAILS and not rest.startswith("model:")):
        raise ValueError(f"bad MCTS agent name {name!r}; accepted forms: {forms}")
    model = rest.removeprefix("model:") if rest is not None and rest.startswith("model:") else None
    if model == "":
        raise ValueError(f"no model path in {name!r}; accepted forms: {forms}")
    budget = parts[1]
    heuristic, reference = TAILS.get(rest or "", (False, False))
    out: dict[str, Any] = {"heuristic": heuristic, "reference": reference, "model": model}
    try:
        if budget.endswith("s"):
            seconds = float(budget[:-1])
            if not (seconds > 0 and math.isfinite(seconds)):
                raise ValueError
            out["seconds"], out["simulations"] = seconds, None
        else:
            simulations = int(budget)
            if simulations < 1:
                raise ValueError
            out["simulations"] = simulations
    except ValueError:
        raise ValueError(f"bad MCTS budget {budget!r} in {name!r}; accepted forms: {forms}") from None
    return out


def make_mcts_agent(name: str, env_id: str, trust_model: bool = False, **kwargs: Any) -> MCTSAgent:
    """The agent named ``name`` (see ``parse_mcts_name``) for ``env_id``; ``kwargs`` go to ``MCTSAgent``.

    A ``:model:PATH`` prior is loaded as ``model:PATH`` agents load it: a ``.npz`` network file as arrays
    (``NetAgent``; ``trust_model`` does not apply), any other file as ``LearnedAgent`` loads it (weights only
    unless ``trust_model``). ``:reference`` is the game's shipped network (``training.agents.network_agent``).
    """
    parsed = parse_mcts_name(name)
    rollout: Agent | None = None
    prior: Any = None  # anything with action_probabilities(state, seat)
    if parsed["heuristic"]:
        rollout = heuristic_agent(env_id)
    if parsed["reference"]:
        from gameshelf.training.agents.network_agent import reference_agent

        prior = reference_agent(env_id)
    if parsed["model"] is not None:
        from gameshelf.training.numpy_net import is_net_file

        if is_net_file(parsed["model"]):
            from gameshelf.training.agents.network_agent import NetAgent

            prior = NetAgent(parsed["model"], env_id)
        else:
            from gameshelf.training.agents.learned import LearnedAgent

            prior = LearnedAgent(parsed["model"], env_id, trust_model=trust_model)
    kwargs.pop("deterministic", None)  # what callers pass to learned agents; the search is deterministic under its rng
    return MCTSAgent(
        simulations=parsed["simulations"], seconds=parsed.get("seconds"), rollout=rollout, prior=prior, name=name, **kwargs
    )
