"""Who plays which seat: one shared policy (self-play against a league of frozen snapshots) or one per seat.

``League`` is RLlib's agent-to-module mapping (it is called once per seat and episode, and draws the whole
episode's line-up from a generator seeded by the episode id, so every seat of an episode agrees):

* ``policies="per_seat"``: seat ``i`` is always module ``seat_i``; every module learns.
* ``policies="shared"`` with ``opponent="self"``: module ``main`` learns and takes one seat drawn at
  random; the other seats are, by the weights of the self-play ``mix`` (as in SB3 training,
  ``gameshelf.training.selfplay``): ``snapshots``, frozen copies of ``main`` (``snap_0`` the newest gets
  half the share, the older ones the rest), ``random`` (uniform legal moves), or ``main`` itself for the
  ``heuristic`` share (RLlib modules see observations, not the game state a heuristic needs, so under
  RLlib that share is pure self-play, which also trains ``main`` on every seat).
* ``policies="shared"`` with ``opponent="random"``: ``main`` against random opponents.

``Snapshots`` rotates the frozen copies: every ``snapshot_every`` steps ``snap_0`` becomes a copy of
``main`` and each older one takes its predecessor's weights (the oldest is dropped).
"""

from __future__ import annotations

import random
from typing import Any

POLICIES = ("shared", "per_seat")
RLLIB_OPPONENTS = ("self", "random")


def seat_of(agent_id: str) -> int:
    """The seat of a PettingZoo agent name (``player_3`` is seat 3)."""
    return int(str(agent_id).rsplit("_", 1)[1])


class League:
    def __init__(self, num_players: int, policies: str, opponent: str, mix: dict[str, float], pool_size: int) -> None:
        if policies not in POLICIES:
            raise ValueError(f"policies must be one of {', '.join(POLICIES)}, not {policies!r}")
        if opponent not in RLLIB_OPPONENTS:
            raise ValueError(f"under RLlib the opponent must be one of {', '.join(RLLIB_OPPONENTS)}, not {opponent!r}")
        self.num_players, self.policies, self.opponent = int(num_players), policies, opponent
        share = {k: float(v) for k, v in mix.items()}
        self.weights = {
            "snapshots": share.get("snapshots", 0.0),
            "random": share.get("random", 0.0),
            "self": share.get("heuristic", 0.0),
        }
        if opponent == "random":
            self.weights = {"snapshots": 0.0, "random": 1.0, "self": 0.0}
        if sum(self.weights.values()) <= 0:
            self.weights = {"snapshots": 0.0, "random": 0.0, "self": 1.0}
        self.pool_size = int(pool_size) if self.weights["snapshots"] > 0 and policies == "shared" else 0

    @property
    def trained(self) -> list[str]:
        """The modules that learn."""
        return [f"seat_{i}" for i in range(self.num_players)] if self.policies == "per_seat" else ["main"]

    @property
    def snapshots(self) -> list[str]:
        """The frozen copies, newest first."""
        return [f"snap_{k}" for k in range(self.pool_size)]

    @property
    def frozen(self) -> list[str]:
        """Modules that play but never learn: the snapshots and, when used, ``random``."""
        uses_random = self.policies == "shared" and self.weights["random"] > 0
        return self.snapshots + (["random"] if uses_random else [])

    def seats(self) -> list[str]:
        """The module that plays each seat of the trained policy (what an exported policy records)."""
        return self.trained if self.policies == "per_seat" else ["main"] * self.num_players

    def lineup(self, episode_id: str) -> list[str]:
        """The module of every seat in the episode ``episode_id``."""
        if self.policies == "per_seat":
            return self.trained
        rng = random.Random(f"gameshelf-league:{episode_id}")
        learner = rng.randrange(self.num_players)
        kinds, weights = zip(*self.weights.items(), strict=True)
        kind = rng.choices(kinds, weights)[0]
        out = []
        for seat in range(self.num_players):
            if seat == learner or kind == "self":
                out.append("main")
            elif kind == "random":
                out.append("random")
            else:
                snaps = self.snapshots
                w = [1.0] if len(snaps) == 1 else [0.5] + [0.5 / (len(snaps) - 1)] * (len(snaps) - 1)
                out.append(rng.choices(snaps, w)[0])
        return out

    def __call__(self, agent_id: Any, episode: Any, **kwargs: Any) -> str:
        """RLlib's ``policy_mapping_fn`` (``agent_to_module_mapping_fn``)."""
        return self.lineup(str(episode.id_))[seat_of(agent_id)]


class Snapshots:
    """Rotates ``main``'s weights into the frozen snapshot modules of a running ``Algorithm``."""

    def __init__(self, league: League) -> None:
        self.league = league

    def push(self, algo: Any) -> None:
        """``snap_0`` := ``main``, ``snap_k`` := the former ``snap_{k-1}``; then sync them to the env runners."""
        snaps = self.league.snapshots
        if not snaps:
            return
        sources = ["main", *snaps[:-1]]
        state = learner_module_states(algo, sources)
        new = {snap: state[src] for snap, src in zip(snaps, sources, strict=True)}
        self.load(algo, new)

    def load(self, algo: Any, weights: dict[str, dict[str, Any]]) -> None:
        """Set the snapshot modules to ``weights`` (``{snap_K: state_dict}``), then sync them to the env runners."""
        if not weights:
            return
        algo.learner_group.set_state({"learner": {"rl_module": weights}})
        algo.env_runner_group.sync_weights(
            from_worker_or_learner_group=algo.learner_group, policies=list(weights), inference_only=True
        )


def learner_module_states(algo: Any, module_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The full weights (policy and value heads) of modules as the learner holds them."""
    if not module_ids:  # no components would be read as all of them
        return {}
    components = [f"learner/rl_module/{m}" for m in module_ids]
    state = algo.learner_group.get_state(components=components)
    modules = state["learner"]["rl_module"]
    return {m: modules[m] for m in module_ids}
