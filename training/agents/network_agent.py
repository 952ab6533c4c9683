"""``NetAgent``: a small network file (``gameshelf-net/1``, ``training.numpy_net``) behind the agent interface.

    agent = make_agent("reference", "amoriax-v0")               # the network shipped for the game
    agent = make_agent("model:runs/x/net.npz", "amoriax-v0")    # any network file
    agent = make_agent("mcts:200:reference", "amoriax-v0")      # PUCT with the network's policy as prior
    action = agent.act(state, seat, rng)

``reference`` is the network shipped in the package for the game: ``training/reference/<game>.npz``
(``<game>`` is the id without its version, as in ``training/configs/<game>.yaml``; a later version of an id,
with another observation, has its own ``<game>-vN.npz``), a small policy-and-value
network (the architecture is in ``training.numpy_net``) trained by ``gameshelf train ID --backend expert``. A game
without a shipped file is refused with a message listing the games that have one.

A network file is only arrays: ``training.numpy_net.read_net`` checks its headers before reading them and never
unpickles (so ``--trust-model`` has no say over it) and played with numpy, so it needs neither torch nor a GPU. The agent
reads ``state.observation(seat)`` and the legal-action mask. Deterministic (the most likely legal action)
by default; with ``deterministic=False`` it samples from the policy with the caller's ``rng``.

The network is checked against the game when the agent is made: a network of another game, or of another
observation or action shape, fails there with one ``ValueError`` naming both. A network trained for another
player count of the same game is used as long as its observation and action shapes fit (every player count
of a game shares them today). Networks are cached per process by path, modification time and size; an
agent pickles as its path only (``SubprocVecEnv`` workers and benchmark workers load it themselves).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from gameshelf.envs.core.game import State
from gameshelf.training.agents.base import PolicyAgent, load_cached
from gameshelf.training.numpy_net import NetLoadError, NetPolicy, read_net

REFERENCE = "reference"
"""The agent name of the shipped network of a game."""
REFERENCE_DIR = Path(__file__).resolve().parent.parent / "reference"
"""Where the shipped networks are: ``<game>.npz`` per game (``training/reference`` in the package)."""
TRAIN_COMMAND = "gameshelf train ID --backend expert"
"""The command that trains a reference network."""

_CACHE: dict[tuple[Any, ...], NetPolicy] = {}


def load_net(path: str | os.PathLike[str]) -> NetPolicy:
    """The network in ``path`` (cached per process by path, modification time and size); ``NetLoadError``."""
    p = Path(path)

    def read() -> NetPolicy:
        try:
            return read_net(p)
        except OSError as err:  # unreadable (permissions, a folder): one message, as for a bad file
            raise NetLoadError(f"{p}: cannot be read ({err.strerror or type(err).__name__})") from None

    try:
        return load_cached(_CACHE, p.resolve(), read)
    except (OSError, RuntimeError):  # no file to stat (or a symlink loop)
        return read_net(p)  # it raises the loader's own message ("no such network file")


def reference_path(env_id: str) -> Path:
    """Where the shipped network of ``env_id`` is (whether or not it is there): ``<game>.npz`` for an id's first
    version (``-v0``), ``<game>-vN.npz`` for a later one (another observation encoding needs its own network)."""
    from gameshelf import envs

    spec = envs.spec(env_id)
    version = spec.id.rpartition("-")[2]
    return REFERENCE_DIR / (f"{spec.game_name}.npz" if version == "v0" else f"{spec.game_name}-{version}.npz")


def reference_ids() -> list[str]:
    """The registered ids with a shipped network."""
    from gameshelf import envs

    return [i for i in envs.registered_ids() if reference_path(i).is_file()]


def has_reference(env_id: str) -> bool:
    return reference_path(env_id).is_file()


def reference_file(env_id: str) -> Path:
    """The shipped network file of ``env_id``; ``ValueError`` listing the games with one if it has none."""
    path = reference_path(env_id)
    if not path.is_file():
        with_one = reference_ids()
        raise ValueError(
            f"no reference network for {env_id!r}; games with one: {with_one or 'none'} "
            f"(a reference network is trained by {TRAIN_COMMAND})"
        )
    return path


def reference_agent(env_id: str, **kwargs: Any) -> NetAgent:
    """The ``reference`` agent of ``env_id``: its shipped network (``kwargs`` go to ``NetAgent``)."""
    kwargs.setdefault("name", REFERENCE)
    return NetAgent(reference_file(env_id), env_id, **kwargs)


class NetAgent(PolicyAgent):
    """A ``NetPolicy`` network file playing any seat of ``env_id`` (see the module docstring)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        env_id: str,
        deterministic: bool = True,
        name: str | None = None,
    ) -> None:
        self.path = str(path)
        self.env_id = env_id
        self.deterministic = deterministic
        self.name = name or f"model:{Path(self.path).stem}"
        self._net: NetPolicy | None = None
        _ = self.net  # load and check now: a bad file or a network of another game fails here, not mid-game

    @property
    def net(self) -> NetPolicy:
        """The network, loaded and checked against the game."""
        if self._net is None:
            net = load_net(self.path)
            problem = net_fits_game(net, self.env_id)
            if problem is not None:
                raise NetLoadError(problem)
            self._net = net
        return self._net

    def evaluate(self, state: State, seat: int) -> tuple[np.ndarray, float]:
        """The distribution over actions (zero on illegal ones) and the value of ``state`` for ``seat``."""
        return self.net.evaluate(state, seat)

    def action_probabilities(self, state: State, seat: int) -> np.ndarray:
        return self.evaluate(state, seat)[0]

    def value(self, state: State, seat: int) -> float:
        """The network's estimate of ``seat``'s return from ``state`` (in the game's return range)."""
        return self.evaluate(state, seat)[1]

    def __getstate__(self) -> dict[str, Any]:
        data = self.__dict__.copy()
        data["_net"] = None
        return data

    def __repr__(self) -> str:
        return f"NetAgent({self.path!r}, {self.env_id!r}, deterministic={self.deterministic})"


def net_fits_game(net: NetPolicy, env_id: str) -> str | None:
    """Why ``net`` cannot play ``env_id`` (None when it can): another game, or shapes that differ.

    The game is built at the network's player count when the id has it (else at its first), with the
    network's options when they are the id's; another player count is fine when the shapes fit."""
    from gameshelf import envs

    if env_id not in envs.registered_ids():
        return f"unknown environment id {env_id!r}"
    where = net.source or "the network"
    if net.env_id != env_id:
        return f"{where} was trained on {net.env_id}, not {env_id}; it cannot play {env_id}"
    counts = envs.spec(env_id).player_counts
    n = net.meta["num_players"] if net.meta["num_players"] in counts else counts[0]
    try:
        game = envs.make_game(env_id, num_players=n, **net.meta["options"])
    except (ValueError, TypeError):
        game = envs.make_game(env_id, num_players=n)
    return net.fits(env_id, tuple(game.info.observation_shape), int(game.info.num_actions))
