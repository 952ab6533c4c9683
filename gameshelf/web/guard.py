"""Who may drive the server: only its own page (and scripts on a machine allowed to reach it).

``Guard`` wraps the app (ASGI middleware) and checks every request before it reaches a route:

* **Host.** The ``Host`` header must name the address the server bound to (for a loopback address also
  ``localhost``, ``127.0.0.1`` and ``::1``; for ``0.0.0.0``/``::`` any IP address and ``localhost``) or a
  name given with ``--allow-host``. A page on another site that makes its own name resolve to this
  machine (DNS rebinding) sends its own name, and is refused (403).
* **Other sites.** A request whose ``Sec-Fetch-Site`` is ``cross-site`` or ``same-site`` is refused for
  everything under ``/api/``. A ``POST`` must come with ``Content-Type: application/json`` (415 otherwise:
  a page on another site cannot send that without a CORS preflight, which this server never grants) and,
  when the browser says where it comes from (``Origin``, ``Sec-Fetch-Site``), from this server's own
  origin (403 otherwise). Browsers send ``Origin`` with every ``POST``; a request with neither header
  comes from a program, not from a web page.
* **Token** (as Jupyter's; on by default when the server is reachable from other machines). The server's
  address carries ``?token=...`` once; the page then holds it in a cookie (``HttpOnly``,
  ``SameSite=Strict``) and scripts send ``Authorization: token ...``. Starting games, uploading records and
  listing games and agents need it; a game's or a replay's own link (an unguessable token of its own)
  needs nothing else, so a seat link can be handed to another player as it is.
* **Headers** on every answer: no framing (``X-Frame-Options: DENY``, CSP ``frame-ancestors 'none'``),
  scripts, styles and connections from this origin only, no ``Referer`` (links hold tokens), no CORS
  header ever, and API answers are not cached.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Iterable
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
WILDCARDS = ("0.0.0.0", "::", "")

SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; connect-src 'self'; "
        b"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
NO_STORE = (b"cache-control", b"no-store")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Hosts:
    """The names the server answers to (``Host`` header, port not compared)."""

    names: frozenset[str]
    any_ip: bool = False

    @classmethod
    def for_bind(cls, host: str, extra: Iterable[str] = ()) -> Hosts:
        """The names for a server bound to ``host``, plus ``extra`` (``--allow-host``)."""
        names = {n.strip().lower().strip("[]") for n in extra if n.strip()}
        bound = host.lower().strip("[]")
        if bound in WILDCARDS:
            return cls(frozenset(names | {"localhost"}), any_ip=True)
        if is_loopback(bound):
            names |= set(LOOPBACK_NAMES)
        return cls(frozenset(names | {bound}))

    def allows(self, hostname: str) -> bool:
        return hostname in self.names or (self.any_ip and _is_ip(hostname))

    def describe(self) -> str:
        shown = sorted(self.names)
        return ", ".join(shown) + (" or any IP address" if self.any_ip else "")


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``host[:port]`` -> (lowercase hostname, port), None if malformed."""
    try:
        parts = urlsplit("//" + value)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.username is not None or parts.path or parts.query:
        return None
    return parts.hostname, port


def _same_origin(origin: str, host: tuple[str, int | None]) -> bool:
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    default = 443 if parts.scheme == "https" else 80
    return parts.hostname == host[0] and (port or default) == (host[1] or default)


def _media_type(value: str) -> str:
    return value.split(";", 1)[0].strip().lower()


class Guard:
    """The request checks of the module docstring, around an ASGI ``app``."""

    def __init__(self, app: Any, hosts: Hosts, token: str | None = None, port: int | None = None) -> None:
        self.app = app
        self.hosts = hosts
        self.token = token
        self.cookie = "gameshelf-token" + (f"-{port}" if port else "")
        self.state = getattr(app, "state", None)
        """The wrapped app's state (``state.store``: the games and replays)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets here
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        path: str = scope.get("path", "")
        refusal = self.check(scope["method"], path, headers)
        if refusal is not None:
            status, message = refusal
            await self._answer(send, status, {"error": message})
            return
        query = scope.get("query_string", b"").decode("latin-1")
        if self.token is not None and path == "/" and "token" in dict(parse_qsl(query)):
            await self._login(scope, send)
            return
        api = path.startswith("/api/")

        async def send_secured(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if not k.lower().startswith(b"access-control-")]
                message["headers"] = [*kept, *SECURITY_HEADERS, NO_STORE] if api else [*kept, *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_secured)

    def check(self, method: str, path: str, headers: dict[str, str]) -> tuple[int, str] | None:
        """None if the request may go on, else (status, message)."""
        raw_host = headers.get("host")
        host = _split_host(raw_host) if raw_host else None
        if host is None:
            return 400, "the request has no valid Host header"
        if not self.hosts.allows(host[0]):
            return 403, (
                f"this server answers to {self.hosts.describe()}, not {host[0][:80]!r} "
                "(a page on another site may have reached it under its own name); gameshelf serve --allow-host adds a name"
            )
        if method not in ("GET", "HEAD", "POST"):
            return 405, f"{method[:10]} is not answered here (the server grants no cross-origin access)"
        site = headers.get("sec-fetch-site")
        if site in ("cross-site", "same-site") and (path.startswith("/api/") or method == "POST"):
            return 403, "requests from another site are refused: use the page this server serves"
        if method == "POST":
            origin = headers.get("origin")
            if origin is not None and not _same_origin(origin, host):
                return 403, f"requests from another origin ({origin[:80]}) are refused: use the page this server serves"
            if site is not None and site != "same-origin":
                return 403, "requests from another site are refused: use the page this server serves"
            if _media_type(headers.get("content-type", "")) != "application/json":
                return 415, "send the request body as JSON, with Content-Type: application/json"
        if self.token is not None and self._needs_token(method, path) and not self._has_token(headers):
            return 403, (
                "this server needs its token: open the address gameshelf serve printed (it ends in ?token=...), "
                "or send Authorization: token ..."
            )
        return None

    @staticmethod
    def _needs_token(method: str, path: str) -> bool:
        """Whether the path needs the server's token; a game's or a replay's link is a token of its own."""
        if path == "/" or path.startswith("/static/") or path.startswith("/api/play/"):
            return False
        return not (path.startswith("/api/replays/") and method == "GET")

    def _has_token(self, headers: dict[str, str]) -> bool:
        assert self.token is not None
        given = None
        auth = headers.get("authorization", "")
        if auth[:6].lower() == "token ":
            given = auth[6:].strip()
        elif "cookie" in headers:
            cookies = SimpleCookie()
            try:
                cookies.load(headers["cookie"])
            except Exception:  # a malformed cookie header is no token
                return False
            if self.cookie in cookies:
                given = cookies[self.cookie].value
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    async def _login(self, scope: dict[str, Any], send: Any) -> None:
        """``/?token=T``: a right token is kept in a cookie and the address loses it (a 303 to the page)."""
        assert self.token is not None
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
        given = dict(query).get("token", "")
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            await self._answer(send, 403, {"error": "wrong token: open the address gameshelf serve printed"})
            return
        rest = urlencode([(k, v) for k, v in query if k != "token"])
        cookie = f"{self.cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict"
        headers = [
            (b"location", ("/" + ("?" + rest if rest else "")).encode("latin-1")),
            (b"set-cookie", cookie.encode("latin-1")),
            (b"content-length", b"0"),
            *SECURITY_HEADERS,
            NO_STORE,
        ]
        await send({"type": "http.response.start", "status": 303, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    @staticmethod
    async def _answer(send: Any, status: int, data: dict[str, Any]) -> None:
        body = json.dumps(data).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *SECURITY_HEADERS,
            NO_STORE,
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
