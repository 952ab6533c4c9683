"""The text agents (``llm:MODEL@URL``, ``callable:MODULE:FACTORY``) against a real local chat server.

The server (``ChatServer``, in ``tests/chat_server.py``) speaks the chat-completions protocol on 127.0.0.1
and answers from a script: valid names, numbers, junk, empty replies, slow replies past the agent's timeout,
500s and 429s.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.training.agents import make_agent
from gameshelf.training.agents.llm import LLMError, TextAgent
from gameshelf.training.cli_util import run
from gameshelf.training.evaluate import evaluate
from gameshelf.training.evaluate import main as evaluate_main
from gameshelf.wrappers.text import prompt
from tests.chat_server import ChatServer, good_reply, listed_moves, reply, send, slow, status

IDS = envs.registered_ids()
FAST = {"timeout": 0.3, "retries": 3, "backoff": 0.01, "max_backoff": 0.05}


@pytest.fixture
def server() -> Iterator[ChatServer]:
    chat = ChatServer()
    yield chat
    chat.close()


@pytest.fixture(autouse=True)
def no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GAMESHELF_LLM_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def decision(env_id: str = "olenon-v0", seed: int = 3) -> tuple[Any, int]:
    """A state at a decision after some random play, and its seat to move."""
    game = envs.make_game(env_id)
    state, rng = game.new_initial_state(), np.random.default_rng(seed)
    for _ in range(40):
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    while state.is_chance_node():
        state.apply_action(state.sample_chance(rng))
    return state, state.current_player()


# ---- whole games through evaluate ----------------------------------------------------------------------
@pytest.mark.parametrize("env_id", IDS)
def test_llm_agent_plays_a_whole_game_of_every_id_through_evaluate(server: ChatServer, env_id: str) -> None:
    """Names, numbers, junk and empty replies: the junk is re-asked once, then the fallback plays."""
    calls = iter(range(10**6))
    rng = np.random.default_rng(1)

    def policy(text: str) -> str:
        k = next(calls) % 5
        return ["I would rather not say.", "", good_reply(text, rng), "No idea!", good_reply(text, rng)][k]

    server.policy = policy
    # hundreds of calls: a reply slowed past FAST's 0.3 s by a busy machine would be retried (a second request)
    agent = make_agent(f"llm:test-model@{server.url}", env_id, reasks=1, seed=0, **{**FAST, "timeout": 30.0})
    result = evaluate(env_id, [agent, "random"], games=1, seed=0, first_only=True)
    (game,) = result.games
    assert game.length > 0 and not game.truncated
    stats = agent.stats
    assert stats.moves > 0 and stats.calls == len(server.requests) == stats.moves + stats.invalid - stats.fallbacks
    assert stats.invalid > 0 and stats.fallbacks > 0  # junk then empty: re-asked once, then the fallback
    assert stats.total_tokens == 103 * stats.calls and stats.prompt_tokens == 100 * stats.calls
    assert stats.latency_s > 0
    # the evaluation reports what the agent spent in the game, per seat and summed per agent
    (seat,) = [s for s, k in enumerate(game.lineup) if k == 0]
    assert game.text_stats is not None and game.text_stats[1 - seat] is None
    assert game.text_stats[seat]["moves"] == stats.moves and game.text_stats[seat]["invalid"] == stats.invalid
    spent = result.text_play()[result.agents[0]]
    assert spent["fallbacks"] == stats.fallbacks and spent["tokens_per_move"] == stats.total_tokens / stats.moves
    assert "text play" in result.table() and result.to_dict()["text_play"] == result.text_play()


# ---- one move --------------------------------------------------------------------------------------------
def test_the_request_is_a_chat_completion_with_the_seats_prompt(server: ChatServer) -> None:
    state, seat = decision()
    agent = make_agent(f"llm:my-model@{server.url}/", "olenon-v0", temperature=0.0, **FAST)
    action = agent.act(state, seat, np.random.default_rng(0))
    assert action in state.legal_actions()
    headers, body = server.requests[0]
    assert body["model"] == "my-model" and body["temperature"] == 0.0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][1]["content"] == prompt(state, seat)
    assert headers["content-type"] == "application/json" and "authorization" not in headers


@pytest.mark.parametrize("variable", ["GAMESHELF_LLM_API_KEY", "OPENAI_API_KEY"])
def test_the_api_key_comes_from_the_environment(server: ChatServer, monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    monkeypatch.setenv(variable, "sk-test-123")
    state, seat = decision()
    make_agent(f"llm:m@{server.url}", "olenon-v0", **FAST).act(state, seat, np.random.default_rng(0))
    assert server.requests[0][0]["authorization"] == "Bearer sk-test-123"


def test_an_invalid_reply_is_asked_again_with_the_reason(server: ChatServer) -> None:
    state, seat = decision()
    name = state.action_to_string(state.legal_actions()[-1])
    server.script = [reply("castle kingside"), reply(f"`{name}`")]
    agent = make_agent(f"llm:m@{server.url}", "olenon-v0", **FAST)
    assert agent.act(state, seat, np.random.default_rng(0)) == state.legal_actions()[-1]
    messages = server.requests[1][1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == "castle kingside"
    assert "'castle kingside' is not a legal move" in messages[3]["content"]
    assert agent.stats.invalid == 1 and agent.stats.fallbacks == 0 and agent.stats.calls == 2


def test_after_the_last_reask_a_seeded_random_legal_move_is_played(server: ChatServer) -> None:
    state, seat = decision()
    picks = []
    for _ in range(2):
        server.script = [reply("junk"), reply(""), reply("99999")]
        agent = make_agent(f"llm:m@{server.url}", "olenon-v0", reasks=2, seed=7, **FAST)
        picks.append(agent.act(state, seat, np.random.default_rng(0)))
        assert agent.stats.invalid == 3 and agent.stats.fallbacks == 1 and agent.stats.moves == 1
    assert picks[0] == picks[1] and picks[0] in state.legal_actions()
    assert len(server.requests) == 6


def test_timeouts_500s_and_429s_are_retried(server: ChatServer) -> None:
    state, seat = decision()
    server.script = [status(500), status(429, {"Retry-After": "0"}), slow(1.0, "1"), reply("1")]
    agent = make_agent(f"llm:m@{server.url}", "olenon-v0", **FAST)
    assert agent.act(state, seat, np.random.default_rng(0)) == state.legal_actions()[0]
    assert agent.stats.retries == 3 and agent.stats.calls == 1 and agent.stats.invalid == 0
    assert len(server.requests) == 4


def test_retry_after_is_respected_but_capped(server: ChatServer) -> None:
    state, seat = decision()
    server.script = [status(429, {"Retry-After": "3600"}), reply("1")]
    agent = make_agent(f"llm:m@{server.url}", "olenon-v0", timeout=1.0, backoff=0.01, max_backoff=0.2)
    start = time.perf_counter()
    agent.act(state, seat, np.random.default_rng(0))
    assert 0.2 <= time.perf_counter() - start < 5
    assert agent.stats.retries == 1


def test_a_server_that_keeps_failing_is_one_clear_error(server: ChatServer) -> None:
    state, seat = decision()
    server.script = [status(503)] * 4
    agent = make_agent(f"llm:m@{server.url}", "olenon-v0", **FAST)
    with pytest.raises(LLMError, match=r"/v1/chat/completions: status 503 .* \(after 4 tries\)"):
        agent.act(state, seat, np.random.default_rng(0))
    assert len(server.requests) == 4


def test_a_slow_server_is_a_timeout_error_after_the_retries(server: ChatServer) -> None:
    state, seat = decision()
    server.script = [slow(0.5, "1")] * 2
    agent = make_agent(f"llm:m@{server.url}", "olenon-v0", timeout=0.1, retries=1, backoff=0.01)
    with pytest.raises(LLMError, match=r"no answer within the timeout \(after 2 tries\)"):
        agent.act(state, seat, np.random.default_rng(0))


@pytest.mark.parametrize("code", [400, 401, 404])
def test_a_client_error_status_is_not_retried(server: ChatServer, code: int) -> None:
    state, seat = decision()
    server.script = [status(code)]
    agent = make_agent(f"llm:m@{server.url}", "olenon-v0", **FAST)
    with pytest.raises(LLMError, match=f"status {code}"):
        agent.act(state, seat, np.random.default_rng(0))
    assert len(server.requests) == 1


def test_an_answer_that_is_not_a_chat_completion_is_one_clear_error(server: ChatServer) -> None:
    state, seat = decision()
    server.script = [lambda handler, body: send(handler, 200, b"<html>" + b"x" * 5000 + b"</html>")]
    agent = make_agent(f"llm:m@{server.url}", "olenon-v0", **FAST)
    with pytest.raises(LLMError, match="not a chat completion") as err:
        agent.act(state, seat, np.random.default_rng(0))
    assert len(str(err.value)) < 400


def test_an_unreachable_server_is_one_clear_error() -> None:
    state, seat = decision()
    chat = ChatServer()
    chat.close()  # nothing listens on its port any more
    agent = make_agent(f"llm:m@{chat.url}", "olenon-v0", **FAST)
    with pytest.raises(LLMError, match=r"after 4 tries"):
        agent.act(state, seat, np.random.default_rng(0))


def test_the_command_line_reports_a_failing_server_in_one_line(server: ChatServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.script = [status(401)]
    with pytest.raises(SystemExit) as info:
        run(evaluate_main, ["koplus-v0", f"llm:m@{server.url}", "random", "--games", "1", "--no-plot"])
    err = capsys.readouterr().err.strip()
    assert info.value.code == 2 and len(err.splitlines()) == 1 and "status 401" in err and "Traceback" not in err


# ---- names and settings ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("llm:model-without-url", "expected 'llm:MODEL@URL'"),
        ("llm:@http://127.0.0.1:1/v1", "no model named"),
        ("llm:m@ftp://example.org", "must start with http:// or https://"),
        ("callable:no_such_module_here:make", "cannot import 'no_such_module_here'"),
        ("callable:tests.test_llm:no_such_factory", "has no function 'no_such_factory'"),
        ("callable:tests.test_llm:IDS", "has no function 'IDS'"),
        ("callable:nothing", "expected callable:MODULE:FACTORY"),
    ],
)
def test_bad_names_are_one_clear_error(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        make_agent(name, "olenon-v0")


@pytest.mark.parametrize(
    ("settings", "message"),
    [({"timeout": 0}, "timeout must be"), ({"retries": -1}, "retries must be"), ({"reasks": -1}, "reasks must be")],
)
def test_bad_settings_are_one_clear_error(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_agent("llm:m@http://127.0.0.1:1/v1", "olenon-v0", **settings)


def first_move_by_number() -> Callable[[str], str]:
    """A factory for ``callable:tests.test_llm:first_move_by_number``: always the first move of the list."""
    return lambda text: "1"


def junk_then_first_name() -> Callable[[str], str]:
    """Junk, then (asked again, with the reason in the text) the first move's name."""

    def answer(text: str) -> str:
        return listed_moves(text)[0][1] if "Invalid:" in text else "hmm"

    return answer


def test_a_function_of_text_plays_like_a_server() -> None:
    state, seat = decision()
    agent = make_agent("callable:tests.test_llm:first_move_by_number", "olenon-v0")
    assert isinstance(agent, TextAgent) and agent.name == "callable:tests.test_llm:first_move_by_number"
    assert agent.act(state, seat, np.random.default_rng(0)) == state.legal_actions()[0]
    agent = make_agent("callable:tests.test_llm:junk_then_first_name", "olenon-v0")
    assert agent.act(state, seat, np.random.default_rng(0)) == state.legal_actions()[0]
    assert agent.stats.invalid == 1 and agent.stats.calls == 0  # no server: no calls, no tokens


def test_a_function_of_text_plays_through_evaluate_by_name() -> None:
    result = evaluate("koplus-v0", ["callable:tests.test_llm:first_move_by_number", "random"], games=2, seed=0)
    assert len(result.games) == 2 and result.agents[0] == "callable:tests.test_llm:first_move_by_number"
