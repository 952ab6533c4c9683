"""``gameshelf serve``: play and watch every registered game in the browser (needs the ``web`` extra).

    gameshelf serve                      # http://127.0.0.1:8000
    gameshelf serve --port 8080 --open   # and open it in the default browser

One page (``static/``: plain HTML, CSS and JavaScript, no build step) talks to a small JSON API:

    GET  /api/games                      every game, its player counts and options
    POST /api/games                      start a game -> a token per human seat and one to watch
    GET  /api/play/{token}               what that seat sees (picture, text, its moves, log, result)
    POST /api/play/{token}/move          {"action": A, "version": V}
    POST /api/play/{token}/undo          {"version": V}: take back the seat's own last move
    POST /api/play/{token}/step          {"version": V}: one agent move (watching a game of agents)
    POST /api/play/{token}/hint          {"agent": "heuristic"}: the move that agent would choose
    GET  /api/play/{token}/record        the record of a finished game (JSON)
    POST /api/replays                    a record file as the body -> a replay token
    GET  /api/replays/{token}?step=K&seat=S

Errors answer ``{"error": message}`` with status 400, 404, 409 (stale version) or 413 and change nothing.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gameshelf.envs.core.record import MAX_BYTES
from gameshelf.training.web.session import Store, WebError, game_catalogue

STATIC = Path(__file__).parent / "static"
MAX_BODY = min(MAX_BYTES, 16 * 1024 * 1024)
"""Largest request body (a record upload) accepted."""


class TooLarge(WebError):
    status = 413


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"the upload is {int(declared)} bytes; at most {limit} are accepted")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise TooLarge(f"the upload is more than the {limit} bytes accepted")
    return body


async def read_json(request: Request) -> dict[str, Any]:
    body = await read_body(request, 1024 * 1024)
    try:
        data = json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise WebError("the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise WebError("the request body must be a JSON object")
    return data


def handler(fn: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
    """Wrap an endpoint: its value as JSON, a ``WebError`` as ``{"error": ...}`` with its status."""

    async def endpoint(request: Request) -> Response:
        try:
            result = await fn(request)
        except WebError as err:
            return JSONResponse({"error": str(err)}, status_code=err.status)
        return result if isinstance(result, Response) else JSONResponse(result)

    return endpoint


def create_app(trust_model: bool = False) -> Starlette:
    """The web app; each app has its own store of games (tests build one each)."""
    store = Store(trust_model=trust_model)
    catalogue = game_catalogue()

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def games(request: Request) -> Any:
        return catalogue

    async def create(request: Request) -> Any:
        data = await read_json(request)
        return await run_in_threadpool(store.create, data)

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
        return await run_in_threadpool(session.view, seat)

    async def hint(request: Request) -> Any:
        session, seat = seat_of(request)
        data = await read_json(request)
        return await run_in_threadpool(session.hint, seat, data.get("agent", "heuristic"))

    async def record(request: Request) -> Any:
        session, _ = store.get(request.path_params["token"])
        text = await run_in_threadpool(session.record_json)
        name = f"{session.env_id}-record.json"
        return Response(text, media_type="application/json", headers={"content-disposition": f'attachment; filename="{name}"'})

    async def upload(request: Request) -> Any:
        body = await read_body(request)
        token = await run_in_threadpool(store.add_replay, body)
        return {"replay": token}

    async def replay(request: Request) -> Any:
        rep = store.replay(request.path_params["token"])
        step = _int_param(request, "step", 0)
        seat = _int_param(request, "seat", None)
        return await run_in_threadpool(rep.view, step, seat)

    routes = [
        Route("/", index),
        Route("/api/games", handler(games), methods=["GET"]),
        Route("/api/games", handler(create), methods=["POST"]),
        Route("/api/play/{token}", handler(view), methods=["GET"]),
        Route("/api/play/{token}/move", handler(move), methods=["POST"]),
        Route("/api/play/{token}/undo", handler(undo), methods=["POST"]),
        Route("/api/play/{token}/step", handler(step), methods=["POST"]),
        Route("/api/play/{token}/hint", handler(hint), methods=["POST"]),
        Route("/api/play/{token}/record", handler(record), methods=["GET"]),
        Route("/api/replays", handler(upload), methods=["POST"]),
        Route("/api/replays/{token}", handler(replay), methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.store = store
    return app


def _int_param(request: Request, name: str, default: int | None) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise WebError(f"{name} must be an integer, got {raw!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    from gameshelf.training.cli_util import ArgumentParser, UserError

    parser = ArgumentParser(prog="gameshelf serve", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--open", action="store_true", help="open the page in the default web browser")
    parser.add_argument(
        "--trust-model",
        action="store_true",
        help="load models not saved by gameshelf with a full load, which can run code from the file (docs/security.md)",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be in 0..65535, got {args.port}")
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
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: serving on {args.host}: anyone who can reach it can start games and see what they show")
    print(f"gameshelf: serving on {url}  (Ctrl+C stops it)", flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    server = uvicorn.Server(uvicorn.Config(create_app(args.trust_model), log_level="warning"))
    asyncio.run(server.serve(sockets=[sock]))
    return 0
