"""``python -m gameshelf.bench``: the same as ``gameshelf bench``."""

from gameshelf.bench.throughput import main
from gameshelf.training.cli_util import run

run(main, prog="gameshelf bench")
