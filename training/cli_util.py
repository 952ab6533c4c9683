"""Shared command-line plumbing: user errors print one message and exit with status 2 (no traceback)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NoReturn


class UserError(Exception):
    """A mistake in the command line (bad id, bad option, unwritable path): message only, exit code 2."""


class ArgumentParser(argparse.ArgumentParser):
    """``argparse`` whose errors (a missing argument, a bad number) are ``UserError``: through ``run`` they
    print one line naming the problem, and exit with status 2, like every other mistake in a command line."""

    def error(self, message: str) -> NoReturn:
        raise UserError(f"{message} (see {self.prog} --help)")

    def format_help(self) -> str:
        """The help without the docstrings' reStructuredText marks (````code````), which read as noise in a terminal."""
        return super().format_help().replace("``", "")

    def format_usage(self) -> str:
        return super().format_usage().replace("``", "")


def fail(parser: argparse.ArgumentParser | str | None, message: str) -> NoReturn:
    prog = parser.prog if isinstance(parser, argparse.ArgumentParser) else parser or Path(sys.argv[0]).name
    print(f"{prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def is_terminal(stream: object) -> bool:
    """Whether ``stream`` is an interactive terminal (False for files, pipes and captured output)."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def show_progress(quiet: bool = False) -> bool:
    """Whether a command draws progress bars: not with ``--quiet``, and only when both standard output and
    standard error are terminals (redirected to a file or a CI log, the bars would flood it)."""
    return not quiet and is_terminal(sys.stdout) and is_terminal(sys.stderr)


EXTRAS = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "yaml": "train",
    "tqdm": "train",
    "rich": "train",
    "tensorboard": "train",
    "openskill": "train",
    "matplotlib": "train",
    "pettingzoo.classic": "bench",
    "starlette": "web",
    "uvicorn": "web",
    "ray": "rllib",
}
"""Top-level modules of optional dependencies, and the extra of ``gameshelf`` that installs each."""


RLLIB_GYMNASIUM = "Ray 2.60 pins Gymnasium to 1.2.2, which gameshelf supports"
RLLIB_INSTALL = (
    f'pip install "gameshelf[rllib]" into this environment or one of its own ({RLLIB_GYMNASIUM}; from a clone, '
    "bash scripts/setup_rllib.sh makes .venv-rllib; docs/scaling.md)"
)
"""How to install the ``rllib`` extra, as the README and docs/scaling.md say it."""


def missing_extra_hint(err: ModuleNotFoundError) -> str | None:
    """A one-line install hint when ``err`` is a missing optional dependency, else None."""
    name = err.name or ""
    for module, extra in EXTRAS.items():
        if name == module or name.startswith(module + "."):
            if extra == "rllib":
                return f"this command needs the 'rllib' extra ({module} is not installed); {RLLIB_INSTALL}"
            return f'this command needs the {extra!r} extra ({module} is not installed): pip install "gameshelf[{extra}]"'
    return None


def run(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None, prog: str | None = None) -> NoReturn:
    """Run ``main(argv)``; a ``UserError`` becomes a message and exit status 2, a missing extra a hint, a closed
    output pipe a quiet exit (141, as a shell reports SIGPIPE), Ctrl-C one line and exit status 130."""
    with _sigint_watch() as sigint:
        try:
            code = main(argv)
        except UserError as err:
            fail(prog, str(err))
        except ModuleNotFoundError as err:
            hint = missing_extra_hint(err)
            if hint is None:
                if sigint.received:
                    interrupted()
                raise
            fail(prog, hint)
        except KeyboardInterrupt:
            interrupted()
        except BrokenPipeError:  # the reader went away (`gameshelf list | head`): stop quietly, as shell tools do
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes at exit
            raise SystemExit(141) from None
        except Exception:
            # numba can swallow a KeyboardInterrupt raised inside its compiler and fail later with an error of
            # its own ("no compiled object yet"): after a Ctrl-C, whatever stops the command is the interrupt
            if sigint.received:
                interrupted()
            raise
    raise SystemExit(code)


def interrupted() -> NoReturn:
    """Stop after Ctrl-C with one line and exit status 130 (as a shell reports SIGINT).

    A Ctrl-C in the middle of numba's first compile leaves half-built LLVM objects whose destructors fail
    while Python shuts down ("Exception ignored in ..." and a traceback): once the command is stopping,
    such destructor errors are not reported."""
    sys.unraisablehook = lambda _unraisable: None
    print("interrupted", file=sys.stderr)
    raise SystemExit(130) from None


class _SigintWatch:
    received = False


@contextlib.contextmanager
def _sigint_watch() -> Iterator[_SigintWatch]:
    """Note whether SIGINT arrived while the command ran (Python's own handler otherwise: KeyboardInterrupt).

    Left alone where SIGINT is ignored (a background job) or handled by someone else, and off the main thread."""
    import signal
    import threading

    watch = _SigintWatch()
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield watch
        return

    def handler(signum: int, frame: object) -> None:
        watch.received = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    try:
        yield watch
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def check_env_id(env_id: str, num_players: int | None = None) -> int:
    """Validate an environment id (and player count); returns the player count to use."""
    from gameshelf import envs

    if env_id not in envs.registered_ids():
        raise UserError(f"unknown environment id {env_id!r}; known ids: {', '.join(envs.registered_ids())}")
    counts = envs.spec(env_id).player_counts
    if num_players is not None and num_players not in counts:
        raise UserError(f"{env_id} is played by {', '.join(map(str, counts))} players, not {num_players}")
    try:
        envs.make_game(env_id, **({} if num_players is None else {"num_players": num_players}))
    except ImportError as err:
        raise UserError(f"{env_id} is registered but its engine cannot be imported ({err})") from None
    except ValueError as err:
        raise UserError(f"{env_id}: {err}") from None
    return num_players if num_players is not None else counts[0]


def check_writable_dir(path: str | os.PathLike[str]) -> Path:
    """Create ``path`` (and parents) if needed and check that files can be written in it."""
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / ".write_test"
        probe.write_text("")
        probe.unlink()
    except OSError as err:
        raise UserError(f"cannot write to {str(p)!r}: {err.strerror or err}") from None
    return p


def check_writable_file(path: str | os.PathLike[str]) -> Path:
    p = Path(path)
    if p.exists() and p.is_dir():
        raise UserError(f"{str(p)!r} is a directory, expected a file path")
    check_writable_dir(p.parent if str(p.parent) else ".")
    return p
