"""The games of ``gameshelf benchmark --address ADDRESS``: Ray tasks on a Ray cluster.

Every game of the protocol is one task (``play_on_node``, one CPU) that plays it as a local run does
(``protocol.play_task``): the protocol's seeds and the deal's scripted chance make the game the same on any
node, so a run on a cluster writes the same records, game for game, as a run on one machine (but for the
machine's timings: ``cpu_s``, ``act_cpu_s``, a text agent's ``latency_s``). A task first checks that its node
runs the code the driver's records name (``protocol.game_code``): a node with another gameshelf fails the game
instead of recording games of other code under the driver's digests. Ray is the ``rllib`` extra, imported
only here, when a run asks for a cluster.
"""

from __future__ import annotations

import signal
import socket
import threading
from collections.abc import Sequence
from types import ModuleType, TracebackType
from typing import Any

from gameshelf.training.benchmark import protocol
from gameshelf.training.benchmark.protocol import GameTask
from gameshelf.training.cli_util import RLLIB_INSTALL, UserError

WINDOW_PER_CPU = 2
"""Games in flight per CPU of the cluster: enough to keep every CPU busy, few to cancel on an interruption."""


def require_ray() -> ModuleType:
    """The ``ray`` module, or ``UserError`` naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise UserError(f"--address plays the games on a Ray cluster, which needs the 'rllib' extra; {RLLIB_INSTALL}") from None
    return ray


def play_on_node(task: GameTask, script: Sequence[int] | None, code: dict[str, Any]) -> dict[str, Any]:
    """What a Ray task runs: ``protocol.play_task(task, script, code)`` once this node's code is the
    driver's (``code``); a ``RuntimeError`` naming the node and what differs when it is not."""
    here = protocol.game_code(task)
    if here != code:
        differ = ", ".join(protocol.code_differences(here, code))
        raise RuntimeError(
            f"node {socket.gethostname()} runs other code than this machine ({differ}) for {task.env_id}: "
            "install the same gameshelf on every node of the cluster"
        )
    return protocol.play_task(task, script, code)


def connect(address: str) -> bool:
    """Join the Ray cluster at ``address`` (``auto``: the one ``RAY_ADDRESS`` names, else this machine's);
    False when Ray already runs in this process. ``UserError`` when the cluster cannot be reached. Keeps this
    process's SIGTERM handler (``ray.init`` replaces it), so a stopped run keeps its games and says so."""
    ray = require_ray()
    if ray.is_initialized():
        return False
    main_thread = threading.current_thread() is threading.main_thread()
    sigterm = signal.getsignal(signal.SIGTERM) if main_thread else None
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    except ConnectionError as err:
        raise UserError(
            f"cannot connect to the Ray cluster at {address!r} ({str(err).strip()[:160]}); is it started (ray status)? "
            "See docs/scaling.md"
        ) from None
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, sigterm)
    return True


class ClusterGames:
    """Games as Ray tasks on the cluster at ``address``, for ``ladder.play_all``: ``start`` submits one,
    ``finish`` waits for the next to end, ``window`` bounds those in flight. As a context manager it joins
    the cluster, and on leaving cancels the games still running and leaves a Ray it joined."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.ray = require_ray()
        self.running: dict[Any, GameTask] = {}
        self.joined = False
        self.window = 1

    def __enter__(self) -> ClusterGames:
        self.joined = connect(self.address)
        self.remote = self.ray.remote(num_cpus=1)(play_on_node)
        self.window = WINDOW_PER_CPU * max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        for ref in self.running:
            self.ray.cancel(ref)
        self.running.clear()
        if self.joined:
            self.ray.shutdown()

    def start(self, task: GameTask, script: Sequence[int] | None, code: dict[str, Any]) -> None:
        self.running[self.remote.remote(task, script, code)] = task

    def finish(self) -> tuple[bool, Any]:
        """``(True, record)`` of the next game to end, or ``(False, why it failed)``."""
        done: list[Any] = []
        while not done:  # in short waits, so Ctrl-C and SIGTERM are handled at once
            done, _ = self.ray.wait(list(self.running), num_returns=1, timeout=0.2)
        task = self.running.pop(done[0])
        try:
            return True, self.ray.get(done[0])
        except self.ray.exceptions.RayTaskError as err:  # the game raised: its own message
            return False, err.cause
        except self.ray.exceptions.RayError as err:  # a worker or node lost, after Ray's retries
            return False, f"{task.key}: {type(err).__name__}: {str(err).strip()[:300]}"
