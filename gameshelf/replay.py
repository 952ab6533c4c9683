"""Show a saved game record move by move, or write it as an animated GIF from the game's pictures.

    gameshelf replay game.json                       # every move, then the final position as text
    gameshelf replay game.json --gif game.gif        # one frame per decision, 2 frames a second
    gameshelf replay game.json --gif game.gif --fps 4 --seat 0   # as seat 0 sees it (its own hand)

The record is validated on load (``gameshelf.envs.core.record``): a damaged or edited file is refused
with a message naming the problem. Frames are the positions where a player is to move (and the end), so a
deal or a dice roll does not take a frame of its own; the public picture shows no hidden hand.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image

from gameshelf.envs.core.game import CHANCE, State
from gameshelf.envs.core.record import GameRecord, RecordError
from gameshelf.envs.core.rendering import render_seat_image
from gameshelf.envs.records import load_record
from gameshelf.training.cli_util import ArgumentParser, UserError, check_writable_file, run, show_progress
from gameshelf.training.model_io import atomic_write_bytes


def decision_states(record: GameRecord) -> list[State]:
    """The initial position (chance resolved) and each position after a player's move, chance resolved."""
    state = record.game().new_initial_state()
    out: list[State] = []
    for action in record.actions:
        if state.current_player() != CHANCE:
            out.append(state.clone())
        state.apply_action(action)
    out.append(state)
    return out


def frames(record: GameRecord, seat: int | None = None, progress: bool = False) -> list[Image.Image]:
    """One picture per decision point, all padded to the same size (a GIF's frames share one)."""
    states = decision_states(record)
    iterator = states
    if progress:
        try:
            from tqdm import tqdm
        except ImportError:  # a base install (no train extra): no progress bar
            pass
        else:
            iterator = tqdm(states, desc="drawing frames", unit="frame")
    arrays = [s.render_image() if seat is None else render_seat_image(s, seat) for s in iterator]
    height = max(a.shape[0] for a in arrays)
    width = max(a.shape[1] for a in arrays)
    out = []
    for a in arrays:
        canvas = np.full((height, width, 3), 255, dtype=np.uint8)
        canvas[: a.shape[0], : a.shape[1]] = a
        out.append(Image.fromarray(canvas))
    return out


def write_gif(record: GameRecord, path: str | Path, fps: float = 2.0, seat: int | None = None, progress: bool = False) -> int:
    """Write ``record`` as an animated GIF at ``path``; returns the number of frames."""
    pictures = [f.quantize(colors=256, method=Image.Quantize.FASTOCTREE) for f in frames(record, seat, progress)]
    duration = max(20, round(1000 / fps))
    durations = [duration] * len(pictures)
    durations[-1] = max(duration, 3000)  # linger on the end
    buffer = io.BytesIO()
    pictures[0].save(buffer, format="GIF", save_all=True, append_images=pictures[1:], duration=durations, loop=0, optimize=False)
    atomic_write_bytes(path, buffer.getvalue())
    return len(pictures)


def moves_text(record: GameRecord) -> list[str]:
    """Every action of the record by name, numbered, chance outcomes included."""
    state = record.game().new_initial_state()
    lines = []
    for k, action in enumerate(record.actions):
        player = state.current_player()
        who = "chance" if player == CHANCE else f"player_{player}"
        lines.append(f"{k + 1:>5}. {who}: {state.action_to_string(action)}")
        state.apply_action(action)
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="gameshelf replay", description=__doc__.splitlines()[0])
    parser.add_argument(
        "record", help="a game record (JSON): saved with save_record(env.record(), PATH), or downloaded from gameshelf serve"
    )
    parser.add_argument("--gif", metavar="OUT", help="write an animated GIF here instead of printing the moves")
    parser.add_argument("--fps", type=float, default=2.0, help="frames per second of the GIF (default 2)")
    parser.add_argument("--seat", type=int, default=None, help="draw what this seat sees (its own hand); default: public")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if not 0 < args.fps <= 50:
        raise UserError(f"--fps must be in (0, 50], got {args.fps}")
    try:
        record = load_record(args.record)
    except RecordError as err:
        raise UserError(str(err)) from None
    n = record.game().info.num_players
    if args.seat is not None and not 0 <= args.seat < n:
        raise UserError(f"--seat must be in 0..{n - 1} for this {n}-player record")
    if args.gif is None:
        print("\n".join(moves_text(record)))
        final = record.replay()
        print(final.to_text() if args.seat is None else final.seat_text(args.seat))
        return 0
    if not args.gif.lower().endswith(".gif"):
        raise UserError(f"--gif must name a .gif file, got {args.gif!r}")
    folder = Path(args.gif).parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise UserError(f"--gif {args.gif!r}: {str(folder)!r} {what}; the GIF is written into an existing folder")
    out = check_writable_file(args.gif)
    count = write_gif(record, out, args.fps, args.seat, progress=show_progress(args.quiet))
    print(f"wrote {out} ({count} frames, {out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    run(main, prog="gameshelf replay")
