"""``python -m gameshelf``: the same as the ``gameshelf`` command."""

from gameshelf.cli import main

raise SystemExit(main())
