"""The benchmark protocol: which games are played, on which deals, in which seats, and how one game is run.

    from gameshelf.training import protocol
    tasks = protocol.plan("level_x-v0", ["heuristic", "random"], games=20)
    record = protocol.play_task(tasks[0])          # one game: returns, ranks, the chance outcomes drawn ...

Every result names ``PROTOCOL`` (``"gameshelf-protocol/2"``); a change to anything below that changes a
result is a new version. The protocol, version 2 (docs/protocol.md explains it with examples; version 1 played
the same games move for move and recorded neither the code that played them nor the CPU time per decision):

* **Player count.** Each id is played at a fixed default count (``DEFAULT_PLAYERS``; 2 for most games, 4
  for Olenon, Matchstick Tycoon and CATsle Builders); other counts are on request and say so. One player
  (solitaire) is not part of the protocol: ratings need opponents.
* **Deals.** Deal ``k`` of an id at ``n`` players has the seed ``deal_seed(env_id, n, k)`` (a
  ``SeedSequence`` of the protocol's root seed, the id, ``n`` and ``k``), the same for every pairing of
  agents: deal 0 is the same deal whoever plays it. ``G`` games per pairing play deals ``0..D-1`` with
  ``D = ceil(G / seat assignments)``.
* **Seats.** Agents are compared in pairs, the *focal* agent against the *other*. Two players: both
  seatings of every deal. More players: a rotation, the focal agent at seat ``s`` and the other agent in
  every other seat, for every ``s`` (``seat_assignments``); every seat is played equally often.
* **Paired deals.** The first game of a deal (assignment 0) draws its chance outcomes from a generator
  seeded from the deal seed and records them; every other seat assignment of that deal replays the
  recorded outcomes, in order, so the same dice, cards and draws reach every seating. When a replayed
  game diverges so that the next recorded outcome is not possible at its chance node, or the record runs
  out, it abandons the record and draws the rest of its chance from a second generator seeded from the
  deal seed (``PairedEpisode``); the game record says where (``diverged_at``).
* **Decisions.** Agents decide at simulation budgets (``mcts:N``), never time budgets, so a result
  repeats on any machine. Each seat's agent gets its own generator seeded from the deal seed and the seat
  (the same generator hands it its view of hidden information, ``observed_state``); every game gets fresh
  agents, so nothing carries over from one game to the next and games can run in any order or process.
  Agents that play through text (``llm:MODEL@URL``, ``callable:MODULE:FACTORY``) have no budget; their
  fallback generator (a random legal move after the last invalid reply) is seeded from the deal seed and the
  seat too, so a game repeats given the same replies, and each game's record keeps their statistics
  (``text_stats``: calls, tokens, invalid replies, fallbacks, seconds waited).
* **Outcome.** From the final returns, the focal agent's score against each other seat is 1 when its
  return is higher, 1/2 when equal (partners share a return), 0 when lower; its score in a game is the
  mean over the other seats (``(n - rank) / (n - 1)`` with ties averaged, the *score of its rank*). A game
  cut off at ``max_game_length`` has all returns 0: a draw.
* **Code.** Every game record names the code that decided its play (``play_digest``: the game's sources,
  the shared core, each agent's own code and network file); a saved game is reused only when that code is
  the code of the run. Each record also has every seat's CPU seconds in its agent's ``act`` and its
  decisions, so a result gives each agent's CPU time per decision.
* **Ladder.** Per id: random, the heuristic, ``mcts:50``, ``mcts:200`` and ``mcts:1000`` (random
  rollouts), and a trained model when one is given. ``SLOW_RUNGS`` leaves out the budgets whose games an
  engine cannot play in reasonable time today, with the measured reason.
* **Full ladder.** Per id, every rung on every game (``full_ladder``): random, the heuristic, ``mcts:50``,
  ``mcts:200``, ``mcts:1000``, ``reference``, ``mcts:200:reference`` and the game's best shipped recipe
  (``BEST_RECIPE``). Each rung plays random, the heuristic and the rung below it (``ladder_pairings``),
  ``FULL_LADDER_DEALS`` deals per pairing; a pairing whose first deal cost over ``SLOW_GAME_CPU_S`` CPU
  seconds a game may play fewer deals, when the run asks for it (``--deals-for-slow``) and says so.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
import re
import shlex
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np

from gameshelf import envs
from gameshelf.envs.core.episode import Episode, observed_state
from gameshelf.envs.core.game import CHANCE, Game, IllegalActionError, State
from gameshelf.training.agents import Agent, make_agent
from gameshelf.training.agents.llm import TEXT_STATS, seat_stats, stats_grown

PROTOCOL = "gameshelf-protocol/2"
"""Name and version of the protocol, written into every record and result."""

PROTOCOL_1 = "gameshelf-protocol/1"
"""The previous version: the same games, no code digests or CPU time per decision in its records and results
(its results still load in ``gameshelf leaderboard``; its saved games are not reused)."""

ROOT_SEED = 20_260_601
"""Root of every deal seed of this protocol version."""

DEFAULT_GAMES = 200
"""Games per pairing of a full run (100 deals at 2 players, 50 at 4)."""

LADDER_BUDGETS = (50, 200, 1000)
"""Simulation budgets of the MCTS rungs of the ladder."""

DEFAULT_PLAYERS: dict[str, int] = {
    "level_x-v0": 2,
    "amoriax-v0": 2,
    "koplus-v0": 2,
    "olenon-v0": 4,
    "cargo_empire-v0": 2,
    "matchstick_tycoon-v0": 4,
    "range_ta_ludotheque-v0": 2,
    "tsukuru_ten_ten-v0": 2,
    "paiko-v0": 2,
    "catsle_builders-v0": 4,
}
"""The protocol's player count per id (pinned here, so a change of an id's registered default does not
change the protocol); an id not listed plays its registered default."""

SLOW_LIMIT_S = 30.0
"""An MCTS rung is left out of an id's ladder where a game with MCTS in every seat would take more CPU
seconds than this at its budget (so a full run of a rung stays within a few CPU-hours per game)."""


def _slow(cpu_s: float, ms_per_sim: float, game: str) -> str:
    return f"~{cpu_s:.0f} CPU s per game with MCTS in every seat ({ms_per_sim:.1f} ms per simulation; docs/analysis/{game}.md)"


SLOW_RUNGS: dict[str, dict[int, str]] = {
    "amoriax-v0": {1000: _slow(86, 4.4, "amoriax")},
    "cargo_empire-v0": {1000: _slow(52, 0.7, "cargo_empire")},
    "catsle_builders-v0": {200: _slow(82, 1.2, "catsle_builders"), 1000: _slow(409, 1.2, "catsle_builders")},
    "matchstick_tycoon-v0": {1000: _slow(57, 0.5, "matchstick_tycoon")},
    "paiko-v0": {50: _slow(56, 13.2, "paiko"), 200: _slow(226, 13.2, "paiko"), 1000: _slow(1129, 13.2, "paiko")},
    "tsukuru_ten_ten-v0": {200: _slow(91, 3.9, "tsukuru_ten_ten"), 1000: _slow(456, 3.9, "tsukuru_ten_ten")},
}
"""``{env_id: {budget: reason}}``: MCTS rungs left out of an id's ladder in this protocol version because
the engine is too slow for them today (over ``SLOW_LIMIT_S``, measured by ``gameshelf analyze`` on a
shared 2-core VM). Pinned data, not a timing taken at run time: a rung that a faster engine makes
affordable joins the ladder in the next protocol version. The ladder of ``gameshelf benchmark AGENT`` only:
``full_ladder`` leaves nothing out (its slow pairings may play fewer deals instead, ``SLOW_GAME_CPU_S``)."""

FULL_LADDER_DEALS = 100
"""Deals per pairing of a full ladder."""

SLOW_GAME_CPU_S = 5.0
"""A pairing of a full ladder whose first deal cost more CPU seconds per game than this may play fewer deals
(``--deals-for-slow``; never without that option, and the result names such pairings with their cost)."""

BEST_RECIPE: dict[str, tuple[str, str]] = {
    "level_x-v0": ("mcts:200:reference", "beats the heuristic, 0.75 [0.67, 0.83]"),
    "amoriax-v0": ("mcts:200:reference", "beats the heuristic, 0.66 [0.56, 0.74]"),
    "koplus-v0": ("mcts:1000:reference", "beats the heuristic, 0.77 [0.70, 0.84]; 0.49 at 200 simulations"),
    "olenon-v0": ("mcts:1000:reference", "beats the heuristic, 0.58 [0.53, 0.64]; 0.54 at 200 simulations"),
    "cargo_empire-v0": ("mcts:1000:reference", "beats the heuristic, 0.62 [0.52, 0.71]; 0.53 at 200 simulations"),
    "matchstick_tycoon-v0": ("mcts:200:reference", "beats the heuristic, 0.65 [0.59, 0.72]"),
    "range_ta_ludotheque-v0": ("mcts:200:reference", "beats the heuristic, 0.65 [0.56, 0.73]"),
    "tsukuru_ten_ten-v0": ("mcts:300:reference:heuristic", "none beats the heuristic; the best score, 0.30 in 10 games"),
    "paiko-v0": ("mcts:2000:reference", "beats the heuristic, 0.65 [0.56, 0.74]; 0.57 at 1000 simulations"),
    "catsle_builders-v0": ("mcts:200:reference", "beats the heuristic, 0.75 [0.65, 0.83] in 20 games"),
}
"""``{env_id: (recipe, reason)}``: the best shipped recipe of each game, the top rung of its full ladder
(docs/results.md, "beats the heuristic"; scores against the heuristic with 95% intervals)."""

SEED_CHANCE, SEED_FALLBACK, SEED_SEAT, SEED_UNPAIRED, SEED_TEXT = 0, 1, 2, 3, 4
"""Stream tags: the generators of a game are ``SeedSequence([deal_seed, tag, ...])``."""


# ---- deals, seats and the ladder ---------------------------------------------------------------------
def players_for(env_id: str, num_players: int | None = None) -> int:
    """The player count the protocol plays ``env_id`` at (``num_players`` when given)."""
    if num_players is not None:
        return num_players
    return DEFAULT_PLAYERS.get(env_id) or envs.spec(env_id).player_counts[0]


def deal_seed(env_id: str, num_players: int, deal: int) -> int:
    """The seed of deal ``deal`` of ``env_id`` at ``num_players`` players (a 63-bit integer)."""
    seq = np.random.SeedSequence([ROOT_SEED, zlib.crc32(env_id.encode()), num_players, deal])
    return int(seq.generate_state(1, np.uint64)[0] >> np.uint64(1))


def stream(seed: int, *tags: int) -> np.random.Generator:
    """The generator of one stream of a deal (chance, fallback chance, a seat's agent)."""
    return np.random.default_rng(np.random.SeedSequence([seed, *tags]))


def seat_assignments(num_players: int) -> list[tuple[int, ...]]:
    """Who sits where in the games of one deal: 0 is the focal agent, 1 the other.

    Two players: ``[(0, 1), (1, 0)]``. More: ``n`` rotations, the focal agent at seat ``s`` and the other
    agent everywhere else."""
    if num_players < 2:
        raise ValueError(f"the protocol needs at least 2 players, not {num_players}")
    if num_players == 2:
        return [(0, 1), (1, 0)]
    return [tuple(0 if seat == s else 1 for seat in range(num_players)) for s in range(num_players)]


def deals_for(games: int, num_players: int) -> int:
    """Deals needed for ``games`` games per pairing (rounded up to whole deals)."""
    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")
    return math.ceil(games / len(seat_assignments(num_players)))


def ladder(env_id: str, model: str | None = None) -> tuple[list[str], dict[str, str]]:
    """The baseline ladder of ``env_id``: its rungs, and the rungs left out with the reason."""
    rungs = ["random", "heuristic"]
    left_out: dict[str, str] = {}
    for budget in LADDER_BUDGETS:
        reason = SLOW_RUNGS.get(env_id, {}).get(budget)
        if reason is None:
            rungs.append(f"mcts:{budget}")
        else:
            left_out[f"mcts:{budget}"] = reason
    if model is not None:
        rungs.append(model)
    return rungs, left_out


def pairings(agents: Sequence[str], num_players: int, focal: str | None = None) -> list[tuple[str, str]]:
    """The (focal, other) pairs to play among ``agents``: two players, each unordered pair once (both
    seats are played anyway); more players, each ordered pair (a field of B around A differs from a field
    of A around B). ``focal``: only the pairs that involve that agent."""
    out: list[tuple[str, str]] = []
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            if i == j or (num_players == 2 and j < i):
                continue
            if focal is not None and focal not in (a, b):
                continue
            out.append((a, b))
    return out


def full_ladder(env_id: str) -> list[str]:
    """Every rung of ``env_id``'s full ladder, weakest first: random, the heuristic, ``mcts:50/200/1000``,
    ``reference``, ``mcts:200:reference`` and the best recipe (``BEST_RECIPE``) when it is not one of them.
    ``ValueError`` for an id without a best recipe."""
    if env_id not in BEST_RECIPE:
        raise ValueError(f"{env_id} has no full ladder (no best recipe in BEST_RECIPE); give the rungs with --ladder")
    rungs = ["random", "heuristic", *(f"mcts:{b}" for b in LADDER_BUDGETS), "reference", "mcts:200:reference"]
    best = BEST_RECIPE[env_id][0]
    return rungs + ([best] if best not in rungs else [])


def ladder_pairings(rungs: Sequence[str], num_players: int = 2) -> list[tuple[str, str]]:
    """The (focal, other) pairs of a ladder: each rung against random, the heuristic and the rung below it,
    the stronger rung focal, each pair once. With more than two players, also random focal against the
    heuristic (a normalized score needs random's score against the heuristic, which the heuristic's
    games around random do not give). ``ValueError`` unless the rungs are distinct and include random and
    the heuristic."""
    if len(set(rungs)) != len(rungs) or not {"random", "heuristic"} <= set(rungs):
        raise ValueError(f"the rungs of a ladder must be distinct and include random and heuristic, not {list(rungs)}")
    out: list[tuple[str, str]] = []
    for i, rung in enumerate(rungs):
        for other in ("random", "heuristic", *rungs[i - 1 : i]):
            if other in rungs[:i] and (rung, other) not in out:
                out.append((rung, other))
    if num_players > 2:
        weak, strong = sorted(("random", "heuristic"), key=list(rungs).index)
        out.append((weak, strong))
    return out


# ---- agents by spec ------------------------------------------------------------------------------------
BUILTIN_PREFIXES = ("model", "rllib", "mcts", "llm", "callable")
TEXT_PREFIXES = ("llm", "callable")
"""Agents that play through text (``training.agents.llm``): a model on a chat server, a function of text."""
_FACTORY = re.compile(r"^(?P<module>[A-Za-z_][\w.]*|.+\.py):(?P<attr>[A-Za-z_]\w*)$")

AGENT_FORMS = (
    "'random', 'heuristic', 'reference' (the game's shipped network), "
    "'mcts:N' (N simulations per move, optionally ':heuristic', ':reference', ':reference:heuristic' or ':model:PATH'), "
    "'model:PATH' (PATH.npz: a network file), 'rllib:PATH', 'llm:MODEL@URL' (a chat server's model), "
    "'callable:MODULE:FACTORY' (a function of text), or your own 'package.module:factory' / 'path/to/file.py:factory'"
)


def is_factory_spec(spec: str) -> bool:
    """Whether ``spec`` names a user's agent factory (``module:attr``) rather than a built-in agent."""
    return spec.partition(":")[0] not in BUILTIN_PREFIXES and bool(_FACTORY.match(spec))


def _import_current_folder() -> None:
    """Modules of the current folder can be imported, as under ``python -m``."""
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())


def load_factory(spec: str) -> Callable[[str], Agent]:
    """The callable named by ``package.module:factory`` or ``path/to/file.py:factory``."""
    match = _FACTORY.match(spec)
    if match is None:
        raise ValueError(f"bad agent {spec!r}; use {AGENT_FORMS}")
    module_name, attr = match["module"], match["attr"]
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise ValueError(f"no file {module_name!r}")
        loader_spec = importlib.util.spec_from_file_location(f"gameshelf_user_agent_{path.stem}", path)
        if loader_spec is None or loader_spec.loader is None:
            raise ValueError(f"cannot import {module_name!r}")
        module = importlib.util.module_from_spec(loader_spec)
        loader_spec.loader.exec_module(module)
    else:
        _import_current_folder()
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            raise ValueError(f"cannot import module {module_name!r} ({err})") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ValueError(f"module {module_name!r} has no callable {attr!r}")
    return factory  # type: ignore[no-any-return]


def check_spec(spec: str) -> None:
    """``ValueError`` for specs the protocol refuses whatever the game: time budgets and unknown forms."""
    head = spec.partition(":")[0]
    if head == "mcts":
        from gameshelf.training.agents.mcts import parse_mcts_name

        if parse_mcts_name(spec)["simulations"] is None:
            raise ValueError("the protocol decides at simulation budgets ('mcts:N'), never time budgets, so results repeat")
    elif spec not in ("random", "heuristic", "reference") and head not in BUILTIN_PREFIXES and not is_factory_spec(spec):
        raise ValueError(f"unknown agent; use {AGENT_FORMS}")


def _model_file(spec: str, env_id: str | None = None) -> Path | None:
    """The saved-model file a spec reads (``model:PATH``, ``mcts:N:model:PATH``; with ``env_id``, the shipped
    network of ``reference``, ``mcts:N:reference`` and ``mcts:N:reference:heuristic``), if it names one that exists."""
    reference, model = spec == "reference", spec.removeprefix("model:") if spec.startswith("model:") else None
    if spec.startswith("mcts:"):
        from gameshelf.training.agents.mcts import parse_mcts_name

        try:
            parsed = parse_mcts_name(spec)
        except ValueError:
            return None
        reference, model = parsed["reference"], parsed["model"]
    if reference and env_id is not None:
        from gameshelf.training.agents.network_agent import reference_path

        path = str(reference_path(env_id))
    elif model is not None:
        path = model
    else:
        return None
    for candidate in (Path(path), Path(path + ".zip")):
        if candidate.is_file():
            return candidate
    return None


@lru_cache(maxsize=256)
def _file_digest(path: str, mtime: float, size: int) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def spec_identity(spec: str, env_id: str | None = None) -> str:
    """``spec`` as results files key it: a spec that reads a saved model gets the file's digest appended
    (``model:run/final_model#3f2a...``), so a rerun after the file changed does not reuse old games; with
    ``env_id``, so do ``reference`` and ``mcts:N:reference`` (the network shipped for that game)."""
    path = _model_file(spec, env_id)
    if path is None:
        return spec
    stat = path.stat()
    return f"{spec}#{_file_digest(str(path.resolve()), stat.st_mtime, stat.st_size)}"


# ---- the code that decides play ------------------------------------------------------------------------
CORE_FILES = ("agent.py", "companion.py", "episode.py", "game.py", "kernel.py", "observation.py", "position.py", "row.py")
"""The modules of ``envs/core`` that every game's play runs through (the rules templates, the kernel-state
row, the episode driver that resolves chance, the random agent and how a heuristic is found); rendering,
records and the AEC env do not decide a move."""

_AGENTS = Path(__file__).resolve().parents[1] / "agents"
AGENT_FILES: dict[str, tuple[str, ...]] = {
    "heuristic": ("base.py",),
    "mcts": ("base.py", "mcts.py"),
    "network": ("base.py", "network_agent.py", "../numpy_net.py"),
    "model": ("base.py", "learned.py", "../model_io.py"),
    "rllib": ("../rllib/agent.py",),
    "text": ("llm.py",),
}
"""Files of ``training/agents`` (relative to it) that each kind of agent plays through."""


def _digest_files(files: Sequence[Path], names: Sequence[str], extra: str = "") -> str:
    """One digest of ``files`` (their SHA-256 under ``names``; a missing file counts as such) and ``extra``."""
    import hashlib

    digest = hashlib.sha256(extra.encode())
    for path, name in sorted(zip(files, names, strict=True), key=lambda pair: pair[1]):
        try:
            stat = path.stat()
        except OSError:
            digest.update(f"{name}:missing\n".encode())
            continue
        digest.update(f"{name}:{_file_digest(str(path.resolve()), stat.st_mtime_ns, stat.st_size)}\n".encode())
    return digest.hexdigest()[:12]


def _module_file(module: str) -> Path | None:
    """The source file of ``module`` (without running it), if it has one."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(found.origin).resolve() if found is not None and found.origin and found.has_location else None


def game_files(env_id: str) -> list[Path]:
    """The sources of ``env_id``'s rules: every ``.py`` of the folder of its ``Game`` class (``envs/<game>/``:
    rules, kernel, actions, observation, ...) but its heuristic (``heuristic_files``)."""
    game_file = _module_file(envs.spec(env_id).entry_point.partition(":")[0])
    if game_file is None:
        return []
    return [p for p in sorted(game_file.parent.glob("*.py")) if p == game_file or p not in heuristic_files(env_id)]


def heuristic_files(env_id: str) -> list[Path]:
    """The source of ``env_id``'s heuristic: the module of a heuristic registered by name, else the
    ``heuristic.py`` beside its ``Game`` (``envs.core.agent.heuristic_class``)."""
    env_spec = envs.spec(env_id)
    if env_spec.heuristic is not None:
        found = _module_file(env_spec.heuristic.partition(":")[0])
    else:
        package = env_spec.entry_point.partition(":")[0].rpartition(".")[0]
        found = _module_file(f"{package}.heuristic") if package else None
    return [found] if found is not None else []


def core_files() -> list[Path]:
    """The shared modules every game's play runs through (``CORE_FILES``) and this module (the game loop)."""
    core = Path(envs.__file__).resolve().parent / "core"
    return [core / name for name in CORE_FILES] + [Path(__file__).resolve()]


def agent_files(spec: str, env_id: str) -> list[Path]:
    """The sources ``spec`` plays through on ``env_id`` beyond the rules and the core: the game's heuristic
    (``heuristic``, and ``mcts:...:heuristic`` rollouts), the search for ``mcts:``, the network code for
    ``reference`` and network files, a custom agent's module (``module:factory``)."""
    head = spec.partition(":")[0]
    kinds: list[str] = []
    if spec == "heuristic":
        kinds = ["heuristic"]
    elif head == "mcts":
        kinds = ["mcts"] + (["network"] if _model_file(spec) is not None or ":reference" in spec else [])
    elif spec == "reference" or (head == "model" and spec.endswith(".npz")):
        kinds = ["network"]
    elif head in ("model", "rllib"):
        kinds = [head]
    elif head in TEXT_PREFIXES:
        kinds = ["text"]
    files = [(_AGENTS / name).resolve() for kind in kinds for name in AGENT_FILES[kind]]
    if spec == "heuristic" or (head == "mcts" and spec.endswith(":heuristic")):
        files += heuristic_files(env_id)
    if is_factory_spec(spec):
        module = spec.rpartition(":")[0]
        if module.endswith(".py"):
            files.append(Path(module).resolve())
        else:
            _import_current_folder()
            found = _module_file(module)
            files += [found] if found is not None else []
    return list(dict.fromkeys(files))


def play_digest(env_id: str, spec: str) -> dict[str, str]:
    """Short SHA-256 digests of the code that decides how ``spec`` plays ``env_id``: ``game``, its rules
    (``game_files``); ``core``, the shared core and the game loop (``core_files``); ``agent``, the agent's own
    code (``agent_files``: the heuristic, the search, the network code, a custom agent's module) with its
    network file's digest (``spec_identity``). Games with the same digests were played by the same code.
    Reads the files (cached by size and time): call it once per id and agent of a run, not per game."""
    game, core, agent = game_files(env_id), core_files(), agent_files(spec, env_id)
    return {
        "game": _digest_files(game, [f"game/{p.name}" for p in game]),
        "core": _digest_files(core, [p.name for p in core]),
        "agent": _digest_files(agent, [f"agent/{p.name}" for p in agent], spec_identity(spec, env_id)),
    }


def game_code(task: GameTask, digests: Callable[[str, str], dict[str, str]] = play_digest) -> dict[str, Any]:
    """The ``code`` of a game record: the digests of its game and core, and of every agent of its lineup."""
    first = digests(task.env_id, task.lineup[0])
    return {
        "game": first["game"],
        "core": first["core"],
        "agents": {spec: digests(task.env_id, spec)["agent"] for spec in dict.fromkeys(task.lineup)},
    }


def code_differences(saved: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """What differs between a record's ``code`` (checked by ``record_problem``) and the code of the run:
    ``"game"``, ``"core"``, agent specs."""
    out = [part for part in ("game", "core") if saved[part] != current[part]]
    return out + [spec for spec, digest in current["agents"].items() if saved["agents"].get(spec) != digest]


def checkout_commit(files: Sequence[Path] = (), module: Path | None = None) -> str | None:
    """The git commit of the checkout this package runs from (the one holding ``module``, default this
    module), with ``-dirty`` when one of ``files`` (the code that decides play) differs from it or is not
    committed; None when it is not a checkout or git cannot say (missing, failing): never an error."""
    import subprocess

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], capture_output=True, text=True, timeout=20, cwd=folder)
        except (OSError, subprocess.SubprocessError, ValueError):
            return None
        return done.stdout if done.returncode == 0 else None

    source = (module or Path(__file__)).resolve()
    folder = source.parent
    head = git("rev-parse", "--show-toplevel", "HEAD")
    if head is None or len(head.split()) < 2:
        return None
    root, commit = Path(head.split()[0]).resolve(), head.split()[1]
    if not git("ls-files", "--", str(source)):
        return None  # a copy inside some other repository (an installed package in a project's tree)
    inside = [str(p.resolve()) for p in files if p.resolve().is_relative_to(root)]
    if not inside:
        return commit
    status = git("status", "--porcelain", "--", *inside)
    return commit if status == "" else f"{commit}-dirty"


def software(files: Sequence[Path] = ()) -> dict[str, str | None]:
    """The versions a result was made with: gameshelf, the git commit (``checkout_commit`` of ``files``),
    Python, NumPy and Numba."""
    import platform
    from importlib import metadata

    from gameshelf import __version__

    try:
        numba_version: str | None = metadata.version("numba")
    except metadata.PackageNotFoundError:
        numba_version = None
    return {
        "gameshelf": __version__,
        "commit": checkout_commit(files),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba_version,
    }


@lru_cache(maxsize=64)
def _shared_agent(spec: str, env_id: str, identity: str) -> Agent:
    """One object per process for agents that keep no state between moves (saved policies), per file
    content (``identity``: ``spec_identity``), so a rewritten file is loaded again."""
    return make_agent(spec, env_id)


def text_seed(seed: int, seat: int) -> int:
    """The seed of the fallback generator of a text agent at ``seat`` of the deal whose seed is ``seed``."""
    return int(np.random.SeedSequence([seed, SEED_TEXT, seat]).generate_state(1, np.uint64)[0])


def build_agent(spec: str, env_id: str, seed: int = 0) -> Agent:
    """A fresh agent for one seat of one game (saved policies: one shared object per process, for speed).
    ``seed``: the fallback generator of a text agent (``llm:``, ``callable:``; see ``text_seed``).

    ``ValueError`` (or ``FileNotFoundError``, ``ImportError``) with a readable message when ``spec`` does
    not give an agent for ``env_id``."""
    check_spec(spec)
    head = spec.partition(":")[0]
    if head in ("model", "rllib", "reference"):
        return _shared_agent(spec, env_id, spec_identity(spec, env_id))
    if head == "mcts" or spec in ("random", "heuristic"):
        return make_agent(spec, env_id)
    if head in TEXT_PREFIXES:
        _import_current_folder()  # callable:MODULE:FACTORY, as a user's own agent
        return make_agent(spec, env_id, seed=seed)
    agent = load_factory(spec)(env_id)
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"{spec} returned {type(agent).__name__}, which has no act(state, seat, rng) method")
    return agent


def reproduce_command(prog: str, argv: Sequence[str]) -> str:
    """The command line that reproduces a result: ``argv`` without the options that change where, how fast
    and from which earlier games it is written but not a number of it (``--out``, ``--workers``, ``--address``,
    ``--quiet``, ``--reuse FILE...``)."""
    kept: list[str] = []
    skip = 0  # 1: the next argument is the skipped option's value; 2: skip values up to the next option
    for arg in argv:
        if skip == 1 or (skip == 2 and not arg.startswith("-")):
            skip = 0 if skip == 1 else 2
            continue
        skip = 0
        name = arg.split("=", 1)[0]
        if name in ("--out", "--workers", "--address", "--reuse"):
            skip = 0 if "=" in arg else (2 if name == "--reuse" else 1)
            continue
        if name == "--quiet":
            continue
        kept.append(shlex.quote(arg))
    return " ".join([prog, *kept])


# ---- one game -------------------------------------------------------------------------------------------
class PairedEpisode(Episode):
    """An ``Episode`` whose chance follows a recorded list of outcomes while it can.

    ``script``: outcomes to replay in order (None: draw every outcome from ``chance_rng``). At each chance
    node the next scripted outcome is applied if it is possible there; the first time it is not, or when
    the script runs out, the episode leaves the script for good and draws from ``fallback_rng``.
    ``chance`` lists every outcome applied; ``diverged_at`` is the index in it of the first one not taken
    from the script (None when the whole game followed the script, or had none)."""

    def __init__(self, game: Game, chance_rng: np.random.Generator, script: Sequence[int] | None = None,
                 fallback_rng: np.random.Generator | None = None, env_id: str | None = None) -> None:  # fmt: skip
        super().__init__(game, env_id=env_id)
        self.script = None if script is None else [int(o) for o in script]
        self.chance_rng = chance_rng
        self.fallback_rng = fallback_rng if fallback_rng is not None else chance_rng
        self.chance: list[int] = []
        self.diverged_at: int | None = None
        self.divergence: str | None = None
        """Why the script was left: ``"impossible"`` (its next outcome could not happen here) or ``"ran_out"``."""
        self.replayed = 0

    def _resolve_chance(self, state: State, script: Any, rng: np.random.Generator) -> None:  # type: ignore[override]
        # the base class's own script and generator are not used: chance comes from this episode's
        while state.current_player() == CHANCE:
            if self.script is not None and self.diverged_at is None:
                if self.replayed < len(self.script):
                    outcome = self.script[self.replayed]
                    try:
                        state.apply_action(outcome)
                    except IllegalActionError:
                        self.diverged_at, self.divergence = len(self.chance), "impossible"
                    else:
                        self.replayed += 1
                        self.chance.append(outcome)
                        continue
                else:
                    self.diverged_at, self.divergence = len(self.chance), "ran_out"
            source = self.chance_rng if self.script is None else self.fallback_rng
            outcome = state.sample_chance(source)
            state.apply_checked_action(outcome)
            self.chance.append(outcome)


@dataclass(frozen=True)
class GameTask:
    """One game of the protocol: a pairing, a deal and a seat assignment."""

    env_id: str
    num_players: int
    focal: str
    other: str
    deal: int
    assignment: int
    paired: bool = True

    @property
    def seats(self) -> tuple[int, ...]:
        """0 (focal) or 1 (other) at every seat."""
        return seat_assignments(self.num_players)[self.assignment]

    @property
    def lineup(self) -> tuple[str, ...]:
        """The agent spec at every seat."""
        return tuple(self.focal if who == 0 else self.other for who in self.seats)

    @property
    def seed(self) -> int:
        return deal_seed(self.env_id, self.num_players, self.deal)

    @property
    def key(self) -> str:
        """What identifies the game in a results file (with the protocol version)."""
        mode = "" if self.paired else "|unpaired"
        lineup = "|".join(spec_identity(spec, self.env_id) for spec in self.lineup)
        return f"{PROTOCOL}|{self.env_id}|{self.num_players}|{self.deal}|{lineup}{mode}"

    @property
    def first(self) -> GameTask:
        """The game of this deal and pairing whose chance outcomes the others replay."""
        return GameTask(self.env_id, self.num_players, self.focal, self.other, self.deal, 0, self.paired)


def plan(env_id: str, agents: Sequence[str], games: int, num_players: int | None = None,
         focal: str | None = None, paired: bool = True) -> list[GameTask]:  # fmt: skip
    """Every game of the pairings of ``agents`` (see ``pairings``) at ``games`` games per pairing."""
    n = players_for(env_id, num_players)
    deals = deals_for(games, n)
    count = len(seat_assignments(n))
    return [
        GameTask(env_id, n, a, b, deal, k, paired)
        for a, b in pairings(agents, n, focal)
        for deal in range(deals)
        for k in range(count)
    ]


def text_stats_problem(stats: Any, num_players: int, decisions: int) -> str | None:
    """What is wrong with a record's ``text_stats`` (one entry per seat: None or the counts of ``TEXT_STATS``),
    or None."""
    if not isinstance(stats, list) or len(stats) != num_players:
        return "text_stats is not one entry per seat"
    moves = 0
    for seat, entry in enumerate(stats):
        if entry is None:
            continue
        where = f"text_stats[{seat}]"
        if not isinstance(entry, dict) or set(entry) != set(TEXT_STATS):
            return f"{where} is not null or an object of the text-play counts"
        if not all(is_count(entry[k]) for k in TEXT_STATS if k != "latency_s"):
            return f"{where} has a count that is not a non-negative integer"
        if not is_finite_number(entry["latency_s"]) or entry["latency_s"] < 0:
            return f"{where}.latency_s is not a number of seconds"
        if entry["fallbacks"] > min(entry["moves"], entry["invalid"]):
            return f"{where} has more fallbacks than moves or invalid replies"
        moves += entry["moves"]
    if moves > decisions:
        return "text_stats count more moves than the game's decisions"
    return None


def pair_scores(returns: Sequence[float], seat: int) -> float:
    """Score of ``seat`` against the other seats from final returns: 1 per higher return, 1/2 per equal, averaged."""
    r = np.asarray(returns, dtype=np.float64)
    others = np.delete(r, seat)
    return float(np.mean(np.where(r[seat] > others + 1e-9, 1.0, np.where(np.abs(r[seat] - others) <= 1e-9, 0.5, 0.0))))


def play_game(task: GameTask, script: Sequence[int] | None = None, agents: Sequence[Agent] | None = None,
              code: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """Play one game of the protocol; returns its record (a JSON-ready dict).

    ``script``: the chance outcomes of the deal's first game (required for a paired game whose
    assignment is not 0). ``agents``: the players at each seat (default: built fresh from the lineup).
    ``code``: the record's ``code`` (``game_code(task)``, computed once per run by the caller; default: here).
    Every seat's CPU seconds inside its agent's ``act`` and its decisions are recorded (``act_cpu_s``,
    ``act_decisions``)."""
    if task.paired and task.assignment > 0 and script is None:
        raise ValueError("a paired game after the first of its deal needs the first game's chance outcomes")
    seed = task.seed
    n = task.num_players
    game = envs.make_game(task.env_id, num_players=n)
    if agents is not None:
        players = list(agents)
    else:
        players = [build_agent(spec, task.env_id, text_seed(seed, s)) for s, spec in enumerate(task.lineup)]
    before = seat_stats(players)
    if task.paired:
        episode = PairedEpisode(game, stream(seed, SEED_CHANCE), script if task.assignment > 0 else None,
                                stream(seed, SEED_FALLBACK), env_id=task.env_id)  # fmt: skip
    else:
        episode = PairedEpisode(game, stream(seed, SEED_UNPAIRED, task.assignment), env_id=task.env_id)
    seat_rngs = [stream(seed, SEED_SEAT, s) for s in range(n)]
    act_cpu, act_decisions = [0.0] * n, [0] * n
    start = time.process_time()
    episode.reset(seat_rngs[0])  # the base class keeps this generator; the chance comes from the streams above
    while not episode.done:
        state = episode.require_state()
        seat = state.current_player()
        rng = seat_rngs[seat]
        try:
            view = observed_state(state, seat, rng)
            before_act = time.process_time()
            action = players[seat].act(view, seat, rng)
            act_cpu[seat] += time.process_time() - before_act
            act_decisions[seat] += 1
            episode.step(action)
        except Exception as err:  # an agent's mistake (or an engine's) names the game it happened in
            raise RuntimeError(
                f"{task.lineup[seat]} at seat {seat} of {task.env_id} deal {task.deal} (move {episode.num_moves}): "
                f"{type(err).__name__}: {err}"
            ) from err
    cpu = time.process_time() - start
    state = episode.require_state()
    returns = [float(x) for x in state.returns()]
    focal_seats = [s for s, who in enumerate(task.seats) if who == 0]
    stats = stats_grown(before, seat_stats(players))
    return {
        "protocol": PROTOCOL,
        "key": task.key,
        "env_id": task.env_id,
        "num_players": n,
        "focal": task.focal,
        "other": task.other,
        "deal": task.deal,
        "deal_seed": seed,
        "assignment": task.assignment,
        "paired": task.paired,
        "lineup": list(task.lineup),
        "returns": returns,
        "scores": [float(x) for x in state.scores()],
        "focal_score": float(np.mean([pair_scores(returns, s) for s in focal_seats])),
        "decisions": episode.num_moves,
        "truncated": bool(episode.truncated),
        "chance": episode.chance,
        "replayed": episode.replayed,
        "diverged_at": episode.diverged_at,
        "divergence": episode.divergence,
        "cpu_s": round(cpu, 4),
        "act_cpu_s": [round(x, 6) for x in act_cpu],
        "act_decisions": act_decisions,
        "code": code if code is not None else game_code(task),
        **({"text_stats": stats} if stats is not None else {}),
    }


def is_finite_number(x: Any) -> bool:
    """A finite JSON number (not a bool, not an integer too large for a float)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def is_count(x: Any, high: int | None = None) -> TypeGuard[int]:
    """A non-negative int (below ``high`` when given)."""
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0 and (high is None or x < high)


def record_problem(record: Any) -> str | None:
    """What is wrong with a game record read from a file (its fields' types, lengths, ranges and agreement
    with its key and each other), or None when ``collect`` and the result can trust it."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if record.get("protocol") != PROTOCOL:
        return f"protocol is not {PROTOCOL!r}"
    n: Any = record.get("num_players")
    if not is_count(n) or n < 2:
        return "bad num_players"
    key, env_id, deal = record.get("key"), record.get("env_id"), record.get("deal")
    if not isinstance(env_id, str) or not is_count(deal):
        return "bad env_id or deal"
    if not isinstance(key, str) or not key.startswith(f"{PROTOCOL}|{env_id}|{n}|{deal}|"):
        return "key does not match env_id, num_players and deal"
    lineup = record.get("lineup")  # checked first: its length bounds n by the line's length
    if not isinstance(lineup, list) or len(lineup) != n or not all(isinstance(s, str) for s in lineup):
        return "lineup is not one agent name per seat"
    assignment: Any = record.get("assignment")
    if not is_count(assignment, len(seat_assignments(n))) or not isinstance(record.get("paired"), bool):
        return "bad assignment or paired"
    for name in ("returns", "scores"):
        values = record.get(name)
        if not isinstance(values, list) or len(values) != n or not all(map(is_finite_number, values)):
            return f"{name} is not one finite number per seat"
    chance = record.get("chance")
    if not isinstance(chance, list) or not all(is_count(o, 2**31) for o in chance):
        return "chance is not a list of outcomes"
    replayed, diverged_at = record.get("replayed"), record.get("diverged_at")
    if not is_count(replayed, len(chance) + 1) or not (diverged_at is None or is_count(diverged_at, len(chance) + 1)):
        return "bad replayed or diverged_at"
    if record.get("divergence") not in (None, "impossible", "ran_out") or not isinstance(record.get("truncated"), bool):
        return "bad divergence or truncated"
    if not is_finite_number(record.get("cpu_s")) or record["cpu_s"] < 0 or not is_count(record.get("decisions")):
        return "bad cpu_s or decisions"
    focal_seats = [s for s, who in enumerate(seat_assignments(n)[assignment]) if who == 0]
    focal_score: Any = record.get("focal_score")
    expected = float(np.mean([pair_scores(record["returns"], s) for s in focal_seats]))
    if not is_finite_number(focal_score) or abs(focal_score - expected) > 1e-9:
        return "focal_score does not match the returns"
    problem = act_problem(record, n)
    if problem is not None:
        return problem
    if "text_stats" in record:
        return text_stats_problem(record["text_stats"], n, record["decisions"])
    return None


def act_problem(record: dict[str, Any], num_players: int) -> str | None:
    """What is wrong with a record's ``code``, ``act_cpu_s`` and ``act_decisions``, or None."""
    code, lineup = record.get("code"), record["lineup"]
    if (
        not isinstance(code, dict)
        or not all(isinstance(code.get(part), str) for part in ("game", "core"))
        or not isinstance(code.get("agents"), dict)
        or set(code["agents"]) != set(lineup)
        or not all(isinstance(d, str) for d in code["agents"].values())
    ):
        return "code is not the digests of the game, the core and every agent of the lineup"
    cpu, decisions = record.get("act_cpu_s"), record.get("act_decisions")
    if not isinstance(cpu, list) or len(cpu) != num_players or not all(is_finite_number(x) and x >= 0 for x in cpu):
        return "act_cpu_s is not one number of seconds per seat"
    if not isinstance(decisions, list) or len(decisions) != num_players or not all(map(is_count, decisions)):
        return "act_decisions is not one count per seat"
    if sum(decisions) != record["decisions"]:
        return "act_decisions do not add up to the game's decisions"
    return None


def play_task(task: GameTask, script: Sequence[int] | None = None, code: dict[str, Any] | None = None) -> dict[str, Any]:
    """``play_game`` with fresh agents: what a worker process runs."""
    return play_game(task, script, code=code)


def play_deal(env_id: str, focal: str, other: str, deal: int, num_players: int | None = None,
              paired: bool = True) -> list[dict[str, Any]]:  # fmt: skip
    """Every seat assignment of one deal of a pairing, in order (the first records, the others replay)."""
    n = players_for(env_id, num_players)
    records: list[dict[str, Any]] = []
    for k in range(len(seat_assignments(n))):
        task = GameTask(env_id, n, focal, other, deal, k, paired)
        records.append(play_game(task, records[0]["chance"] if records and paired else None))
    return records
