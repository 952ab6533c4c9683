"""The browser app behind ``gameshelf serve``: ``session`` (games, replays, what each seat may see),
``app`` (the Starlette routes and the command) and ``static/`` (the one page, no build step)."""
