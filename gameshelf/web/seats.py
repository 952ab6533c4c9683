"""Who may sit in a seat of a game on the server, and the limits that keep every move short.

A request names a player by a short name, never by a file:

    human  random  heuristic  reference
    mcts:N  mcts:Ts  mcts:N:heuristic  mcts:Ts:heuristic        N <= MAX_SIMULATIONS, T <= MAX_SECONDS
    mcts:N:reference  mcts:Ts:reference  mcts:N:reference:heuristic  mcts:Ts:reference:heuristic
    model:NAME  mcts:N:model:NAME  mcts:Ts:model:NAME           NAME: a model named when the server started
    llm:NAME                                                    NAME: a language model named when the server started

``reference`` is the network shipped in the package for the game (``training.agents.network_agent``; the package's
file only, never a path from the request). Models are the ones the person who started the server named
(``gameshelf serve --model NAME=PATH``; a ``PATH.npz`` is a network file, loaded as arrays only);
``--trust-model`` applies to those only (and never to network files, which are not unpickled). Language
models likewise (``gameshelf serve --llm NAME=MODEL@URL``): a page names ``llm:NAME``, never a server's
address, and each reply waits at most ``LLM_TIMEOUT`` seconds (the key comes from the server's
environment, as for ``gameshelf evaluate``). Any other
name is refused with the same message whether or not some file of that name exists. Every MCTS agent made
here also gets a hard cap of ``MAX_SECONDS`` per move (``MCTSAgent(max_seconds=...)``), so a simulation
budget cannot outlast it either, however slow a game's rollouts are.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gameshelf import envs
from gameshelf.training.agents.base import Agent, RandomAgent, heuristic_agent
from gameshelf.training.agents.mcts import TAILS
from gameshelf.training.numpy_net import is_net_file
from gameshelf.web.errors import WebError

logger = logging.getLogger("gameshelf.web")

HUMAN = "human"
REFERENCE = "reference"
MAX_SIMULATIONS = 5000
"""The most MCTS simulations per move a seat or a hint may ask for."""
MAX_SECONDS = 5.0
"""The longest MCTS time budget per move, and the hard cap on every MCTS move the server plays."""
MAX_NAME = 200
"""Longest player name read (longer ones are refused without being parsed)."""
LLM_TIMEOUT = 30.0
"""The longest wait for one reply of a language model seat (retries aside)."""
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_SIMULATIONS = re.compile(r"[0-9]{1,40}")
_SECONDS = re.compile(r"(?:[0-9]{1,40}(?:\.[0-9]{0,40})?|\.[0-9]{1,40})s")

FORMS = (
    f"human, random, heuristic, mcts:N (N simulations per move, at most {MAX_SIMULATIONS}), mcts:Ts (T seconds per move, "
    f"at most {MAX_SECONDS:g}), mcts:N:heuristic or mcts:Ts:heuristic (heuristic rollouts), reference (the game's "
    "reference network), mcts:N:reference or mcts:Ts:reference (search guided by it), mcts:N:reference:heuristic "
    "or mcts:Ts:reference:heuristic (both), model:NAME or "
    "mcts:N:model:NAME (a model this server offers), llm:NAME (a language model this server offers)"
)


@dataclass(frozen=True)
class ServedModel:
    """A model offered by the server: the name pages use, the file behind it, and its game if known."""

    name: str
    path: str
    env_id: str | None = None


def served_models(pairs: Iterable[str]) -> dict[str, ServedModel]:
    """``NAME=PATH`` strings (``gameshelf serve --model``) -> models by name; ``ValueError`` names a bad one."""
    from gameshelf.training.agents.learned import model_path

    models: dict[str, ServedModel] = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not path:
            raise ValueError(f"--model takes NAME=PATH, got {pair!r}")
        if not MODEL_NAME.fullmatch(name):
            raise ValueError(f"model name {name!r}: use 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit")
        if name in models:
            raise ValueError(f"model name {name!r} is given twice")
        try:
            file = model_path(path).resolve()
        except FileNotFoundError as err:
            raise ValueError(str(err)) from None
        models[name] = ServedModel(name, str(file), _model_env(file))
    return models


def served_llms(pairs: Iterable[str]) -> dict[str, str]:
    """``NAME=MODEL@URL`` strings (``gameshelf serve --llm``) -> the agent name ``llm:MODEL@URL`` by NAME;
    ``ValueError`` names a bad one."""
    llms: dict[str, str] = {}
    for pair in pairs:
        name, sep, spec = pair.partition("=")
        model, at, url = spec.partition("@")
        if not sep or not model or not at or not url.startswith(("http://", "https://")):
            raise ValueError(f"--llm takes NAME=MODEL@URL (URL: http:// or https://), got {pair[:80]!r}")
        if not MODEL_NAME.fullmatch(name):
            raise ValueError(
                f"language model name {name!r}: use 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit"
            )
        if name in llms:
            raise ValueError(f"language model name {name!r} is given twice")
        llms[name] = f"llm:{spec}"
    return llms


def _model_env(path: Path) -> str | None:
    """The environment id a model's ``gameshelf.json`` (read as plain JSON) or a network file's header names, or None."""
    try:
        if is_net_file(path):
            from gameshelf.training.agents.network_agent import load_net

            env_id = load_net(path).env_id
        else:
            from gameshelf.training.model_io import read_info

            env_id = read_info(path, legacy=True).env_id
    except Exception:  # any unreadable file: its game is learned when it is loaded
        return None
    return env_id if env_id in envs.registered_ids() else None


@dataclass(frozen=True)
class Seat:
    """A parsed player name: ``kind`` is human, random, heuristic, reference, model or mcts."""

    name: str
    kind: str
    simulations: int | None = None
    seconds: float | None = None
    heuristic_rollouts: bool = False
    model: ServedModel | None = None
    reference_prior: bool = False
    llm: str | None = None
    """For a language model seat, the agent name ``llm:MODEL@URL`` the server was started with."""

    @property
    def slow(self) -> bool:
        """Whether its moves search or wait for a server (and so run on the agent workers, not in a request)."""
        return self.kind in ("mcts", "llm")


class Players:
    """Parses player names and builds their agents for one server (its models, whether it trusts them)."""

    def __init__(
        self, models: dict[str, ServedModel] | None = None, trust_model: bool = False, llms: dict[str, str] | None = None
    ) -> None:
        self.models = dict(models or {})
        self.trust_model = trust_model
        self.llms = dict(llms or {})

    def describe(self) -> dict[str, Any]:
        """What the page offers: the forms, the limits and the models (with their game when known)."""
        return {
            "forms": FORMS,
            "max_simulations": MAX_SIMULATIONS,
            "max_seconds": MAX_SECONDS,
            "models": [{"name": m.name, "env_id": m.env_id} for m in self.models.values()],
            "llms": sorted(self.llms),
        }

    # ---- names ------------------------------------------------------------------------------------------
    def parse(self, name: Any, human: bool = True) -> Seat:
        """The player ``name`` stands for; ``WebError`` (400) for anything else."""
        if not isinstance(name, str) or not name.strip():
            raise WebError(f"a seat needs a player: {FORMS}")
        if len(name) > MAX_NAME:
            raise WebError(f"unknown agent {name[:40]!r}... (a name of {len(name)} characters); use {FORMS}")
        name = name.strip()
        if name == HUMAN:
            if not human:
                raise WebError("choose an agent here, not 'human'")
            return Seat(name, HUMAN)
        if name in ("random", "heuristic", REFERENCE):
            return Seat(name, name)
        if name.startswith("model:"):
            return Seat(name, "model", model=self._model(name.removeprefix("model:"), name))
        if name.startswith("mcts:"):
            return self._mcts(name)
        if name.startswith("llm:"):
            return Seat(name, "llm", llm=self._llm(name.removeprefix("llm:"), name))
        raise WebError(f"unknown agent {name!r}; use {FORMS}")

    def _model(self, model: str, name: str) -> ServedModel:
        if model in self.models:
            return self.models[model]
        offered = ", ".join(sorted(self.models)) or "none"
        raise WebError(
            f"unknown model {model!r} in {name!r}: a model is named by the server, not by a path; "
            f"this server offers: {offered} (gameshelf serve --model NAME=PATH names them)"
        )

    def _llm(self, llm: str, name: str) -> str:
        if llm in self.llms:
            return self.llms[llm]
        offered = ", ".join(sorted(self.llms)) or "none"
        raise WebError(
            f"unknown language model {llm[:40]!r} in {name[:60]!r}: a language model is named by the server, not by an "
            f"address; this server offers: {offered} (gameshelf serve --llm NAME=MODEL@URL names them)"
        )

    def _mcts(self, name: str) -> Seat:
        _, budget, *rest = name.split(":", 2)
        tail = rest[0] if rest else None
        if tail is not None and tail not in TAILS and not tail.startswith("model:"):
            raise WebError(f"unknown agent {name!r}; use {FORMS}")
        simulations = seconds = None
        if _SIMULATIONS.fullmatch(budget):
            simulations = int(budget)
            if not 1 <= simulations <= MAX_SIMULATIONS:
                raise WebError(f"{name!r}: between 1 and {MAX_SIMULATIONS} simulations per move on this server")
        elif _SECONDS.fullmatch(budget):
            seconds = float(budget[:-1])
            if not (0 < seconds <= MAX_SECONDS and math.isfinite(seconds)):
                raise WebError(f"{name!r}: a time budget is above 0 and at most {MAX_SECONDS:g} seconds per move on this server")
        else:
            raise WebError(f"bad MCTS budget {budget[:20]!r} in {name!r}; use {FORMS}")
        model = None if tail is None or tail in TAILS else self._model(tail.removeprefix("model:"), name)
        rollouts, prior = TAILS.get(tail or "", (False, False))
        return Seat(name, "mcts", simulations, seconds, rollouts, model, prior)

    # ---- agents -----------------------------------------------------------------------------------------
    def build(self, seat: Seat, env_id: str) -> Agent:
        """The agent of ``seat`` for ``env_id`` (not for ``human``); a model that cannot play it is a ``WebError``."""
        if seat.kind == "random":
            return RandomAgent()
        if seat.kind == "heuristic":
            return self._heuristic(env_id)
        if seat.kind == REFERENCE:
            return self._reference(env_id)
        if seat.kind == "model":
            assert seat.model is not None
            return self._learned(seat.model, env_id)
        if seat.kind == "mcts":
            from gameshelf.training.agents.mcts import MCTSAgent

            rollout = self._heuristic(env_id) if seat.heuristic_rollouts else None
            prior = self._reference(env_id) if seat.reference_prior else None
            if seat.model is not None:
                prior = self._learned(seat.model, env_id)
            return MCTSAgent(
                simulations=seat.simulations,
                seconds=seat.seconds,
                rollout=rollout,
                prior=prior,
                name=seat.name,
                max_seconds=MAX_SECONDS,
            )
        if seat.kind == "llm":
            from gameshelf.training.agents.llm import make_text_agent

            assert seat.llm is not None
            agent = make_text_agent(seat.llm, env_id, timeout=LLM_TIMEOUT)
            agent.name = seat.name  # the page's name: the server's address stays on the server
            return agent
        raise WebError(f"{seat.name!r} is not an agent")

    def agent(self, name: Any, env_id: str) -> tuple[Seat, Agent]:
        """Parse and build in one step (hints)."""
        seat = self.parse(name, human=False)
        return seat, self.build(seat, env_id)

    @staticmethod
    def _heuristic(env_id: str) -> Agent:
        """The game's heuristic agent (``heuristic_agent``); a game without one is a ``WebError`` (400)."""
        try:
            return heuristic_agent(env_id)
        except ValueError as err:
            raise WebError(str(err)) from None

    @staticmethod
    def _reference(env_id: str) -> Agent:
        """The game's shipped network (``reference_agent``); a game without one, or a file that does not load,
        is a ``WebError`` (400) that names no file."""
        from gameshelf.training.agents.network_agent import reference_agent, reference_path

        try:
            return reference_agent(env_id)
        except (ValueError, OSError) as err:
            message = str(err).replace(str(reference_path(env_id)), f"the reference network of {env_id}")
            raise WebError(message) from None

    def _learned(self, model: ServedModel, env_id: str) -> Agent:
        if model.env_id is not None and model.env_id != env_id:
            raise WebError(f"model {model.name!r} plays {model.env_id}, not {env_id}")
        if is_net_file(model.path):  # a network file: arrays only, whatever --trust-model says
            from gameshelf.training.agents.network_agent import NetAgent

            try:
                return NetAgent(model.path, env_id, name=f"model:{model.name}")
            except (ValueError, OSError) as err:
                raise WebError(self._scrub(str(err), model)) from None
        try:
            from gameshelf.training.agents.learned import LearnedAgent

            return LearnedAgent(model.path, env_id, name=f"model:{model.name}", trust_model=self.trust_model)
        except ModuleNotFoundError as err:
            raise WebError(f"model seats need the 'train' extra on the server ({err.name} is not installed)") from None
        except (ValueError, OSError) as err:
            raise WebError(self._scrub(str(err), model)) from None
        except Exception as err:  # a full load (trust_model) can fail in any way the file makes it
            logger.warning("model %r could not be loaded: %s: %s", model.name, type(err).__name__, err)
            raise WebError(f"model {model.name!r} could not be loaded ({type(err).__name__})") from None

    @staticmethod
    def _scrub(message: str, model: ServedModel) -> str:
        """A loader's message with the model's file named by the model's name."""
        for text in sorted({model.path, str(Path(model.path).with_suffix(""))}, key=len, reverse=True):
            message = message.replace(text, model.name)
        return f"model {model.name!r}: {message}"
