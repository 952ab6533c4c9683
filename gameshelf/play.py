"""Play a game in the terminal against baseline agents.

    gameshelf play level_x-v0 --seat 0 --opponents heuristic
    gameshelf play olenon-v0 --opponents heuristic random heuristic

``--opponents`` names one agent for every other seat, in seat order, or one agent for all of them; the
seating is printed before the first move. Type a move by its name (as listed) or its number; ``?`` lists
the legal moves, ``q`` quits. For games with hidden information you see only your own seat's view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from gameshelf import envs
from gameshelf.envs.core.episode import Episode, observed_state
from gameshelf.envs.core.game import IllegalActionError, State
from gameshelf.training.agents import make_agent
from gameshelf.training.cli_util import ArgumentParser, UserError, check_env_id, run


def _model_kwargs(name: str, trust_model: bool) -> dict[str, bool]:
    uses_model = name.startswith("model:") or (name.startswith("mcts:") and ":model:" in name)
    return {"trust_model": True} if trust_model and uses_model else {}


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
    trust_model: bool = False,
) -> State:
    """Run one game with a person at ``seat``; returns the final state.

    ``opponents``: one agent name per other seat, in seat order, or one name for all of them."""
    n = num_players or envs.spec(env_id).player_counts[0]
    game = envs.make_game(env_id, num_players=n)
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be in 0..{n - 1}")
    names = seating(opponents, n, seat)
    agents = {s: make_agent(name, env_id, **_model_kwargs(name, trust_model)) for s, name in names.items() if s != seat}
    write("seats: " + ", ".join(f"player_{s} {'you' if s == seat else name}" for s, name in names.items()))
    write("type a move by its name or its number; ? lists the legal moves, q quits")
    episode = Episode(game)
    episode.reset(np.random.default_rng(seed))
    state = episode.require_state()
    while not episode.done:
        player = state.current_player()
        if player != seat:
            action = agents[player].act(observed_state(state, player, episode.rng), player, episode.rng)
            write(f"player_{player} plays: {state.action_to_string(action)}")
            episode.step(action)
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
                episode.step(game.string_to_action(state, text))
                break
            except IllegalActionError as err:
                write(str(err))
    write(state.to_text())
    if episode.truncated:
        write(f"the game was stopped after {episode.num_moves} moves (the limit of {game.info.max_game_length})")
    write(f"final returns: {state.returns().tolist()} (you are player_{seat})")
    return state


def seating(opponents: Sequence[str], num_players: int, seat: int) -> dict[int, str]:
    """Who sits where: ``{seat: agent name}`` (the person's seat named ``"you"``) from one name per other seat,
    in seat order, or one name for all of them; any other count is a ``ValueError``."""
    names = list(opponents)
    others = [s for s in range(num_players) if s != seat]
    if len(names) == 1:
        names = names * len(others)
    if len(names) != len(others):
        raise ValueError(
            f"--opponents: give one agent for each of the {len(others)} other seats "
            f"({', '.join(f'player_{s}' for s in others)}) or one agent for all of them, not {len(opponents)}"
        )
    out = {seat: "you"}
    out.update(zip(others, names, strict=True))
    return dict(sorted(out.items()))


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="gameshelf play", description=__doc__.splitlines()[0])
    parser.add_argument("env_id", help="environment id, e.g. level_x-v0")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0 is player_0 (default 0)")
    parser.add_argument("--players", type=int, default=None, help="number of players (default: the id's default)")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["heuristic"],
        metavar="AGENT",
        help="one agent per other seat, in seat order, or one for all (default heuristic): "
        "random | heuristic | reference | model:PATH (PATH.npz: a network file) | rllib:PATH | mcts:N | mcts:Ts | "
        "mcts:N:heuristic | mcts:N:reference | mcts:N:reference:heuristic | mcts:N:model:PATH",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the chance draws (default: a fresh one)")
    parser.add_argument(
        "--trust-model",
        action="store_true",
        help="load models not saved by gameshelf with a full load, which can run code from the file (docs/security.md)",
    )
    args = parser.parse_args(argv)
    players = check_env_id(args.env_id, args.players)
    if not 0 <= args.seat < players:
        raise UserError(f"--seat must be in 0..{players - 1}")
    try:
        seating(args.opponents, players, args.seat)
    except ValueError as err:
        raise UserError(f"{err} ({args.env_id} with {players} players)") from None
    for name in args.opponents:
        try:
            make_agent(name, args.env_id, **_model_kwargs(name, args.trust_model))
        except (ValueError, FileNotFoundError) as err:
            raise UserError(f"opponent {name!r}: {err}") from None
    try:
        play(args.env_id, args.seat, args.opponents, players, args.seed, trust_model=args.trust_model)
    except (KeyboardInterrupt, EOFError):
        print("\nbye")
    return 0


if __name__ == "__main__":
    run(main, prog="gameshelf play")
