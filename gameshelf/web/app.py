"""``gameshelf serve``: play and watch every registered game in the browser (needs the ``web`` extra).

    gameshelf serve                              # http://127.0.0.1:8000, this machine only
    gameshelf serve --port 8080 --open           # and open it in the default browser
    gameshelf serve --model strong=runs/x/final_model.zip   # offer a saved model as the seat model:strong

One page (``static/``: plain HTML, CSS and JavaScript, no build step) talks to a small JSON API:

    GET  /api/games                      every game, its player counts and options
    GET  /api/agents                     the player names, their limits and the models offered
    POST /api/games                      start a game -> a token per human seat and one to watch
    GET  /api/play/{token}               what that seat sees (picture, what the last move changed, text, moves, log, result)
    POST /api/play/{token}/move          {"action": A, "version": V}
    POST /api/play/{token}/undo          {"version": V}: take back the seat's own last move
    POST /api/play/{token}/step          {"version": V}: one agent move (watching a game of agents)
    POST /api/play/{token}/hint          {"agent": "heuristic"}: the move that agent would choose
    GET  /api/play/{token}/record        the record of a finished game (JSON)
    POST /api/replays                    a record file as the body -> a replay token
    GET  /api/replays/{token}?step=K&seat=S

Every ``POST`` is JSON (``Content-Type: application/json``) from the server's own page or from a program;
``guard.Guard`` refuses everything else (docs/security.md). Errors answer ``{"error": message}`` with status
400, 403, 404, 409 (stale version, agents still moving), 413, 415, 429 or 503 and change nothing.
"""

from __future__ import annotations

import contextlib
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gameshelf.web.errors import TooLarge, WebError
from gameshelf.web.guard import Guard, Hosts, is_loopback
from gameshelf.web.seats import Players, ServedModel
from gameshelf.web.session import game_catalogue, parse_json
from gameshelf.web.store import AGENT_THREADS, MAX_JOBS, Store, Workers

logger = logging.getLogger("gameshelf.web")

STATIC = Path(__file__).parent / "static"
MAX_BODY = 1024 * 1024
"""Largest record upload accepted (a record of the most actions replayed is far smaller)."""
MAX_JSON = 64 * 1024
"""Largest JSON request body (setup, moves, hints)."""
SETTLE_SECONDS = 1.0
"""How long a move or step request waits for the agents' replies before answering with ``thinking``."""
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,200}")
LINK = re.compile(r"(/api/(?:play|replays))/[^/]+")


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and len(declared) < 20 and int(declared) > limit:
        raise TooLarge(f"the upload is {int(declared)} bytes; at most {limit} are accepted")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"the upload is more than the {limit} bytes accepted")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request) -> dict[str, Any]:
    body = await read_body(request, MAX_JSON)
    data = parse_json(body or b"{}", "the request body")
    if not isinstance(data, dict):
        raise WebError("the request body must be a JSON object")
    return data


async def settle(job: Future[Any] | None, seconds: float | None) -> bool:
    """Wait (without holding a thread) until ``job`` is done or ``seconds`` pass (None: no limit)."""
    start = time.monotonic()
    delay = 0.002
    while job is not None and not job.done():
        if seconds is not None and time.monotonic() - start >= seconds:
            return False
        await anyio.sleep(delay)
        delay = min(delay * 2, 0.05)
    return True


def handler(fn: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
    """Wrap an endpoint: its value as JSON, a ``WebError`` as ``{"error": ...}`` with its status; a body cut
    off by the client (it closed the connection) one short log line; any other exception is a bug: logged
    with its traceback, answered 500 with a JSON error."""

    async def endpoint(request: Request) -> Response:
        try:
            result = await fn(request)
        except WebError as err:
            return JSONResponse({"error": str(err)}, status_code=err.status)
        except ClientDisconnect:  # no one is left to answer; nothing was changed
            logger.info("%s %s: request body cut off (the client closed the connection)", request.method, _logged(request))
            return Response(status_code=400)
        except Exception:
            logger.exception("%s %s failed", request.method, _logged(request))
            return JSONResponse({"error": "internal error (the server log has the details)"}, status_code=500)
        return result if isinstance(result, Response) else JSONResponse(result)

    return endpoint


def _logged(request: Request) -> str:
    """The request's path for the log, without its game or replay token (a seat's link is its key)."""
    return LINK.sub(r"\1/TOKEN", request.url.path)[:120]


def create_app(
    trust_model: bool = False,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    allow_hosts: Sequence[str] = (),
    token: str | None = None,
    models: dict[str, ServedModel] | None = None,
    llms: dict[str, str] | None = None,
    agent_threads: int = AGENT_THREADS,
    max_jobs: int = MAX_JOBS,
    settle_seconds: float = SETTLE_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> Any:
    """The web app for a server bound to ``host`` (``port`` names its token cookie); each app has its own
    store of games (tests build one each). ``trust_model`` applies to ``models`` only: requests cannot name
    any other model. The answer is the guarded app; ``app.state`` holds the ``store``."""
    players = Players(models, trust_model, llms)
    workers = Workers(agent_threads, max_jobs)
    store = Store(players, workers)
    replay_workers = Workers(1, 4, name="gameshelf-replay")
    store.games.clock = store.replays.clock = clock
    catalogue = game_catalogue()

    def client_of(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def games(request: Request) -> Any:
        return catalogue

    async def agents(request: Request) -> Any:
        return players.describe()

    async def create(request: Request) -> Any:
        data = await read_json(request)
        return await run_in_threadpool(store.create, data, client_of(request))

    async def view(request: Request) -> Any:
        session, seat = store.get(request.path_params["token"])
        return await run_in_threadpool(session.view, seat)

    def seat_of(request: Request) -> tuple[Any, int]:
        session, seat = store.get(request.path_params["token"])
        if seat is None:
            raise WebError("this is a link to watch the game; only a player's link can do that")
        return session, seat

    async def move(request: Request) -> Any:
        session, seat = seat_of(request)
        data = await read_json(request)
        await run_in_threadpool(session.move, seat, data.get("action"), data.get("version"))
        await settle(session.job if session.thinking else None, settle_seconds)
        return await run_in_threadpool(session.view, seat)

    async def undo(request: Request) -> Any:
        session, seat = seat_of(request)
        data = await read_json(request)
        await run_in_threadpool(session.undo, seat, data.get("version"))
        return await run_in_threadpool(session.view, seat)

    async def step(request: Request) -> Any:
        session, seat = store.get(request.path_params["token"])
        data = await read_json(request)
        await run_in_threadpool(session.step, data.get("version"))
        await settle(session.job if session.thinking else None, settle_seconds)
        return await run_in_threadpool(session.view, seat)

    async def hurry(request: Request) -> Any:
        session, seat = store.get(request.path_params["token"])
        await read_json(request)
        await run_in_threadpool(session.hurry)
        return await run_in_threadpool(session.view, seat)

    async def hint(request: Request) -> Any:
        session, seat = seat_of(request)
        data = await read_json(request)
        name = data.get("agent", "heuristic")
        if not players.parse(name, human=False).slow:
            return await run_in_threadpool(session.hint, seat, name)
        job = await run_in_threadpool(session.queue_hint, seat, name, workers)
        await settle(job, None)
        return job.result()

    async def record(request: Request) -> Any:
        session, _ = store.get(request.path_params["token"])
        text = await run_in_threadpool(session.record_json)
        name = f"{session.env_id}-record.json"
        return Response(text, media_type="application/json", headers={"content-disposition": f'attachment; filename="{name}"'})

    async def upload(request: Request) -> Any:
        body = await read_body(request)
        replay_workers.check_room()
        job = replay_workers.submit(store.add_replay, body, client_of(request))
        await settle(job, None)
        return {"replay": job.result()}

    async def replay(request: Request) -> Any:
        rep = store.replay(request.path_params["token"])
        step = _int_param(request, "step", 0)
        seat = _int_param(request, "seat", None)
        return await run_in_threadpool(rep.view, step, seat)

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        return JSONResponse({"error": "no such page" if status == 404 else f"status {status}"}, status_code=status)

    routes = [
        Route("/", index),
        Route("/api/games", handler(games), methods=["GET"]),
        Route("/api/agents", handler(agents), methods=["GET"]),
        Route("/api/games", handler(create), methods=["POST"]),
        Route("/api/play/{token}", handler(view), methods=["GET"]),
        Route("/api/play/{token}/move", handler(move), methods=["POST"]),
        Route("/api/play/{token}/undo", handler(undo), methods=["POST"]),
        Route("/api/play/{token}/step", handler(step), methods=["POST"]),
        Route("/api/play/{token}/hint", handler(hint), methods=["POST"]),
        Route("/api/play/{token}/hurry", handler(hurry), methods=["POST"]),
        Route("/api/play/{token}/record", handler(record), methods=["GET"]),
        Route("/api/replays", handler(upload), methods=["POST"]),
        Route("/api/replays/{token}", handler(replay), methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        store.close()
        replay_workers.shutdown()

    inner = Starlette(routes=routes, exception_handlers={HTTPException: not_found}, lifespan=lifespan)
    inner.state.store = store
    return Guard(inner, Hosts.for_bind(host, allow_hosts), token=token, port=port)


def _int_param(request: Request, name: str, default: int | None) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if len(raw) > 12 or not raw.lstrip("-").isdigit():
        raise WebError(f"{name} must be an integer, got {raw[:20]!r}")
    return int(raw)


def main(argv: Sequence[str] | None = None) -> int:
    from gameshelf.training.cli_util import ArgumentParser, UserError
    from gameshelf.web.seats import served_llms, served_models

    parser = ArgumentParser(prog="gameshelf serve", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--open", action="store_true", help="open the page in the default web browser")
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="offer a saved model (or a PATH.npz network file) as the seat model:NAME (repeatable); pages can use no "
        "other model file",
    )
    parser.add_argument(
        "--llm",
        action="append",
        default=[],
        metavar="NAME=MODEL@URL",
        help="offer a language model on an OpenAI-compatible chat server as the seat llm:NAME (repeatable; the key from "
        "GAMESHELF_LLM_API_KEY or OPENAI_API_KEY); pages can name no other server",
    )
    parser.add_argument(
        "--trust-model",
        action="store_true",
        help="load the --model files with a full load, which can run code from the file (docs/security.md)",
    )
    parser.add_argument(
        "--token",
        default="auto",
        help="'auto' (default: a new secret token when --host is not a loopback address, none on loopback), "
        "'none', or the token itself (16+ letters, digits, '-' or '_'); also read from GAMESHELF_TOKEN",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name this server answers to in the Host header (e.g. the machine's DNS name; repeatable)",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be in 0..65535, got {args.port}")
    try:
        models = served_models(args.model)
    except ValueError as err:
        raise UserError(f"--model: {err}") from None
    try:
        llms = served_llms(args.llm)
    except ValueError as err:
        raise UserError(str(err)) from None
    token = _token(args.token, args.host)
    import asyncio
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
        sock.listen(128)  # connections wait from now on, before the app has started
    except OSError as err:
        sock.close()
        raise UserError(f"cannot serve on {args.host}:{args.port}: {err.strerror or err}") from None
    host, port = sock.getsockname()[:2]
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{port}/" + (f"?token={token}" if token else "")
    if not is_loopback(args.host):
        print(
            f"warning: serving on {args.host}: every machine that can reach port {port} can reach this server. "
            + (
                "Only those with the token in the address below can start games, and a game only with its own links. "
                if token
                else "There is NO token (--token none): anyone who reaches it can start games and run agents. "
            )
            + "The traffic is plain HTTP: anyone on the network path can read the token, the links and the games.",
            flush=True,
        )
    if models:
        print("models offered: " + ", ".join(f"model:{m.name} ({m.env_id or 'game read at first use'})" for m in models.values()))
    if llms:
        print("language models offered: " + ", ".join(f"llm:{name}" for name in llms))
    print(f"gameshelf: serving on {url}  (Ctrl+C stops it)", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    app = create_app(
        args.trust_model, host=args.host, port=port, allow_hosts=args.allow_host, token=token, models=models, llms=llms
    )
    config = uvicorn.Config(app, log_level="warning", proxy_headers=False, server_header=False, lifespan="on")
    server = uvicorn.Server(config)
    asyncio.run(server.serve(sockets=[sock]))
    return 0


def _token(value: str, host: str) -> str | None:
    """The server's token for ``--token VALUE`` (GAMESHELF_TOKEN when set and VALUE is auto)."""
    import os

    from gameshelf.training.cli_util import UserError

    if value == "auto":
        value = os.environ.get("GAMESHELF_TOKEN") or "auto"
    if value == "none":
        return None
    if value == "auto":
        return None if is_loopback(host) else secrets.token_urlsafe(24)
    if not TOKEN.fullmatch(value):
        raise UserError("--token must be 'auto', 'none' or 16 to 200 letters, digits, '-' or '_'")
    return value


if __name__ == "__main__":
    from gameshelf.training.cli_util import run

    run(main, prog="gameshelf serve")
