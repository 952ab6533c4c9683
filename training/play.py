"""Play a game in the terminal against baseline agents.

    python -m gameshelf.training.play level_x-v0 --seat 0 --opponents heuristic
    python -m gameshelf.training.play olenon-v0 --opponents heuristic random heuristic

Type a move by its name (as listed) or its number; ``?`` lists the legal moves, ``q`` quits. For games
with hidden information you see only your own seat's view.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import numpy as np

from gameshelf import envs
from gameshelf.envs.core.game import CHANCE, IllegalActionError, State
from gameshelf.training.agents import make_agent, observed_state


def list_moves(state: State) -> str:
    return "\n".join(f"  {a:>5}: {state.action_to_string(a)}" for a in state.legal_actions())


def play(
    env_id: str,
    seat: int,
    opponents: Sequence[str],
    num_players: int | None = None,
    seed: int | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> State:
    """Run one game with a person at ``seat``; returns the final state."""
    n = num_players or envs.spec(env_id).player_counts[0]
    game = envs.make_game(env_id, num_players=n)
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be in 0..{n - 1}")
    names = list(opponents) or ["heuristic"]
    others = [make_agent(names[i % len(names)], env_id) for i in range(n - 1)]
    agents = {s: others.pop(0) for s in range(n) if s != seat}
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        if player != seat:
            action = agents[player].act(observed_state(state, player, rng), player, rng)
            write(f"player_{player} plays: {state.action_to_string(action)}")
            state.apply_action(action)
            continue
        write(state.seat_text(seat))
        write(f"Your move (player_{seat}); legal moves:\n{list_moves(state)}")
        while True:
            text = read("> ").strip()
            if text in ("q", "quit"):
                raise KeyboardInterrupt
            if text == "?":
                write(list_moves(state))
                continue
            try:
                state.apply_action(game.string_to_action(state, text))
                break
            except IllegalActionError as err:
                write(str(err))
    write(state.to_text())
    write(f"final returns: {state.returns().tolist()} (you are player_{seat})")
    return state


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gameshelf play", description=__doc__.splitlines()[0])
    parser.add_argument("env_id")
    parser.add_argument("--seat", type=int, default=0)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--opponents", nargs="*", default=["heuristic"], help="random | heuristic | model:PATH")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        play(args.env_id, args.seat, args.opponents, args.players, args.seed)
    except (KeyError, ValueError) as err:
        print(f"error: {err.args[0] if err.args else err}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, EOFError):
        print("\nbye")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
