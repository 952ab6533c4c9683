"""Agents that play through text: a language model behind an OpenAI-compatible chat server, or a function of
your own from prompt text to reply text.

    llm:MODEL@URL            POST {URL}/chat/completions, e.g. llm:qwen2.5-7b-instruct@http://127.0.0.1:8080/v1
    callable:MODULE:FACTORY  FACTORY() (imported from MODULE) returns a function prompt text -> reply text

On its turn the agent sends the seat's prompt (``gameshelf.wrappers.text.prompt``: the short rules, what the
seat sees, the moves since its last turn, its legal moves by number and name) and reads the reply with
``parse_move``. An invalid reply is answered with the reason and asked again, at most ``reasks`` times;
then the agent plays a random legal move from its own generator (seeded by ``seed``), a *fallback*.

The server's API key comes from the environment variable ``GAMESHELF_LLM_API_KEY`` or else ``OPENAI_API_KEY``
(sent as ``Authorization: Bearer``), never from a file. A request that times out, or is answered 429 or 5xx,
is tried again after an exponential backoff (``backoff`` seconds doubling, or the server's ``Retry-After``,
each capped at ``max_backoff``), at most ``retries`` more times; then, or on any other error status,
``LLMError``. HTTP is the standard library's (``urllib.request``).

``agent.stats`` counts what the agent cost and how it fared: calls, tokens (the responses' ``usage``), seconds
spent waiting, retries, moves, invalid replies and fallbacks.
"""

from __future__ import annotations

import contextlib
import http.client
import importlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import numpy as np

from gameshelf.envs.core.game import State
from gameshelf.training.cli_util import UserError
from gameshelf.wrappers.text import parse_move, prompt

API_KEY_VARIABLES = ("GAMESHELF_LLM_API_KEY", "OPENAI_API_KEY")
"""Environment variables read, in this order, for the chat server's API key."""
SYSTEM_MESSAGE = "You are playing a board game. Answer with exactly one legal move (its name or its number) and nothing else."
ASK_AGAIN = "Reply with one move from the list: its exact name or its number."
FORMS = "'llm:MODEL@URL' (URL: the server's base, e.g. http://127.0.0.1:8080/v1) or 'callable:MODULE:FACTORY'"
SHOWN = 200
"""Characters of a server's answer quoted in an error message."""

Messages = list[dict[str, str]]


class LLMError(UserError, RuntimeError):
    """The chat server could not be used: unreachable or failing after every retry, an error status, or an
    answer that is not a chat completion. The message names the server and the problem; a command
    (``gameshelf evaluate``) reports it in one line with exit status 2, as it does a bad name."""


@dataclass
class LLMStats:
    """What a text agent cost and how it fared (``as_dict`` for reports)."""

    calls: int = 0
    """Replies received (a retried request counts once)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    latency_s: float = 0.0
    """Seconds spent waiting for replies, retries and backoff included."""
    retries: int = 0
    moves: int = 0
    invalid: int = 0
    """Replies that were not a legal move (each re-ask's reply counted too)."""
    fallbacks: int = 0
    """Moves played at random after the last re-ask was invalid too."""

    def add_usage(self, usage: Any) -> None:
        if isinstance(usage, dict):
            for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
                value = usage.get(key)
                if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                    setattr(self, key, getattr(self, key) + value)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


TEXT_STATS = tuple(LLMStats.__dataclass_fields__)
"""The fields of a text agent's statistics, as game records (``text_stats``) and reports hold them."""

SeatStats = list[dict[str, Any] | None]
"""Per seat, a text agent's statistics (None for an agent that does not play through text)."""


def seat_stats(players: Any) -> SeatStats:
    """Each seat's text-play statistics so far (``LLMStats.as_dict``), None for agents without; an object
    at several seats counts at the first."""
    out: SeatStats = []
    seen: set[int] = set()
    for player in players:
        stats = getattr(player, "stats", None)
        if isinstance(stats, LLMStats) and id(stats) not in seen:
            seen.add(id(stats))
            out.append(stats.as_dict())
        else:
            out.append(None)
    return out


def stats_grown(before: SeatStats, after: SeatStats) -> SeatStats | None:
    """Per seat, what a text agent's statistics grew by during one game (None when no seat plays through text)."""
    if all(entry is None for entry in after):
        return None
    out: SeatStats = []
    for old, new in zip(before, after, strict=True):
        if old is None or new is None:
            out.append(None)
            continue
        grown = {k: new[k] - old[k] for k in TEXT_STATS}
        out.append({**grown, "latency_s": round(grown["latency_s"], 4)})
    return out


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


def api_key() -> str | None:
    """The API key from the first of ``API_KEY_VARIABLES`` that is set and not empty."""
    return next((os.environ[v] for v in API_KEY_VARIABLES if os.environ.get(v)), None)


class ChatClient:
    """One model on an OpenAI-compatible server: ``client(messages) -> (reply text, usage)``."""

    def __init__(
        self,
        model: str,
        url: str,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        temperature: float | None = None,
        stats: LLMStats | None = None,
    ) -> None:
        if not model:
            raise ValueError(f"no model named; use {FORMS}")
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"the server URL must start with http:// or https://, got {_short(url)!r}; use {FORMS}")
        for what, value in (("timeout", timeout), ("backoff", backoff), ("max_backoff", max_backoff)):
            if not value > 0:
                raise ValueError(f"{what} must be a positive number of seconds, got {value!r}")
        if retries < 0:
            raise ValueError(f"retries must be 0 or more, got {retries!r}")
        self.model, self.endpoint = model, url.rstrip("/") + "/chat/completions"
        self.timeout, self.retries, self.backoff, self.max_backoff = timeout, retries, backoff, max_backoff
        self.temperature = temperature
        self.stats = stats if stats is not None else LLMStats()

    def _request(self, messages: Messages) -> urllib.request.Request:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        headers = {"Content-Type": "application/json"}
        key = api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return urllib.request.Request(self.endpoint, data=json.dumps(body).encode(), headers=headers, method="POST")

    def _wait(self, attempt: int, retry_after: str | None) -> None:
        delay = self.backoff * 2**attempt
        if retry_after:
            try:
                delay = float(retry_after)
            except ValueError:
                with contextlib.suppress(TypeError, ValueError):  # an HTTP date, or unreadable: the backoff
                    delay = parsedate_to_datetime(retry_after).timestamp() - time.time()
        time.sleep(min(max(delay, 0.0), self.max_backoff))

    def __call__(self, messages: Messages) -> tuple[str, dict[str, Any]]:
        start = time.perf_counter()
        try:
            raw = self._post(messages)
        finally:
            self.stats.latency_s += time.perf_counter() - start
        try:
            answer = json.loads(raw)
            content = answer["choices"][0]["message"].get("content")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            shown = _short(raw.decode(errors="replace"))
            raise LLMError(f"{self.endpoint}: the answer is not a chat completion: {shown!r}") from None
        usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
        self.stats.calls += 1
        self.stats.add_usage(usage)
        return (content if isinstance(content, str) else ""), usage

    def _post(self, messages: Messages) -> bytes:
        problem = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self.stats.retries += 1
            retry_after = None
            try:
                with urllib.request.urlopen(self._request(messages), timeout=self.timeout) as response:
                    return bytes(response.read())
            except urllib.error.HTTPError as err:
                detail = _short(err.read().decode(errors="replace")) if err.fp is not None else ""
                problem = f"status {err.code} {err.reason}" + (f": {detail}" if detail else "")
                if err.code != 429 and err.code < 500:
                    raise LLMError(f"{self.endpoint}: {problem}") from None
                retry_after = err.headers.get("Retry-After") if err.headers else None
            except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as err:
                reason = getattr(err, "reason", err)
                problem = "no answer within the timeout" if isinstance(reason, TimeoutError) else f"{reason}"
            if attempt < self.retries:
                self._wait(attempt, retry_after)
        raise LLMError(f"{self.endpoint}: {problem} (after {self.retries + 1} tries)")


class TextAgent:
    """Plays a seat by asking ``ask(messages) -> (reply, usage)`` for a move (see the module's docstring)."""

    def __init__(
        self,
        name: str,
        ask: Callable[[Messages], tuple[str, dict[str, Any]]],
        *,
        reasks: int = 2,
        seed: int | None = 0,
        stats: LLMStats | None = None,
    ) -> None:
        if reasks < 0:
            raise ValueError(f"reasks must be 0 or more, got {reasks!r}")
        self.name, self.ask, self.reasks = name, ask, reasks
        self.rng = np.random.default_rng(seed)
        self.stats = stats if stats is not None else LLMStats()

    def act(self, state: State, seat: int, rng: np.random.Generator) -> int:
        self.stats.moves += 1
        messages: Messages = [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": prompt(state, seat)}]
        for _ in range(self.reasks + 1):
            reply, _ = self.ask(messages)
            action, reason = parse_move(state, reply)
            if action is not None:
                return action
            self.stats.invalid += 1
            messages += [
                {"role": "assistant", "content": reply},
                {"role": "user", "content": f"Invalid: {reason}. {ASK_AGAIN}"},
            ]
        self.stats.fallbacks += 1
        legal = state.legal_actions()
        return int(legal[self.rng.integers(len(legal))])


def _text_function(reply: Callable[[str], Any]) -> Callable[[Messages], tuple[str, dict[str, Any]]]:
    """``ask`` over a function of text: it gets the user's messages so far, joined by blank lines."""

    def ask(messages: Messages) -> tuple[str, dict[str, Any]]:
        text = "\n\n".join(m["content"] for m in messages if m["role"] == "user")
        answer = reply(text)
        return (answer if isinstance(answer, str) else ""), {}

    return ask


def load_factory(spec: str) -> Callable[[str], Any]:
    """``MODULE:FACTORY`` imported and called: the function of text it returns. ``ValueError`` naming what failed."""
    module_name, _, factory_name = spec.rpartition(":")
    if not module_name or not factory_name:
        raise ValueError(f"expected callable:MODULE:FACTORY, got {_short('callable:' + spec)!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"cannot import {module_name!r}: {err}") from None
    factory = getattr(module, factory_name, None)
    if not callable(factory):
        raise ValueError(f"{module_name} has no function {factory_name!r}")
    function = factory()
    if not callable(function):
        raise ValueError(f"{module_name}.{factory_name}() returned {type(function).__name__}, not a function of text")
    return function  # type: ignore[no-any-return]


def make_text_agent(name: str, env_id: str, **kwargs: Any) -> TextAgent:
    """The agent named ``llm:MODEL@URL`` or ``callable:MODULE:FACTORY``. ``kwargs``: ``reasks`` and ``seed`` for the
    agent; ``timeout``, ``retries``, ``backoff``, ``max_backoff`` and ``temperature`` for the server's client.
    ``env_id`` is unused (a prompt carries its game)."""
    agent_kwargs = {k: kwargs.pop(k) for k in ("reasks", "seed") if k in kwargs}
    stats = LLMStats()
    if name.startswith("callable:"):
        if kwargs:
            raise ValueError(f"unexpected settings for {name!r}: {sorted(kwargs)}")
        return TextAgent(name, _text_function(load_factory(name.removeprefix("callable:"))), stats=stats, **agent_kwargs)
    model, at, url = name.removeprefix("llm:").partition("@")
    if not at:
        raise ValueError(f"expected {FORMS}, got {_short(name)!r}")
    client = ChatClient(model, url, stats=stats, **kwargs)
    return TextAgent(name, client, stats=stats, **agent_kwargs)
