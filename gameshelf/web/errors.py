"""The refusals of the web app: each is answered as ``{"error": message}`` with its HTTP status."""

from __future__ import annotations


class WebError(Exception):
    """A bad request: ``status`` is the HTTP status, the message names the problem. Nothing was changed."""

    status = 400


class NotFound(WebError):
    status = 404


class Conflict(WebError):
    """A stale version, or agents still moving."""

    status = 409


class TooLarge(WebError):
    status = 413


class TooMany(WebError):
    """This client holds as many games (or replays) in use as it may, or the game's hint is still being worked out."""

    status = 429


class Busy(WebError):
    """The server is full of games in use, or its queue of agent moves is full: try again later."""

    status = 503
