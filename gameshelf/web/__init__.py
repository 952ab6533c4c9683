"""The browser app behind ``gameshelf serve``: ``session`` (games, replays, what each seat may see),
``seats`` (who may sit in a seat: player names, the models the server offers, the limits of a move),
``store`` (what the server holds for its clients and the workers agents move on), ``guard`` (which
requests it answers), ``app`` (the Starlette routes and the command) and ``static/`` (the one page, no
build step). docs/security.md says who can drive the server and what it may load."""
