"""Human play in the terminal, the win/draw/loss classification and the command-line errors."""

from __future__ import annotations

import contextlib

import numpy as np

from gameshelf.cli import main as cli
from gameshelf.training.evaluate import outcome


def test_outcome_classification():
    assert outcome(np.array([1.0, -1.0]), 0) == "win"
    assert outcome(np.array([1.0, -1.0]), 1) == "loss"
    assert outcome(np.array([0.0, 0.0]), 1) == "draw"
    assert outcome(np.array([1.0, -1.0, 1.0, -1.0]), 2) == "win"  # partners share a team win
    assert outcome(np.array([0.5, 0.5, -1.0]), 0) == "win"


def test_cli_reports_bad_input(capsys):
    for argv, message in [
        (["nope-v0"], "known ids"),
        (["level_x-v0", "--opponents", "genius"], "genius"),
        (["level_x-v0", "--players", "7"], "players"),
        (["level_x-v0", "--seat", "5"], "--seat"),
    ]:
        assert cli(["play", *argv]) == 2, argv
        assert message in capsys.readouterr().err


def test_human_play_stops_at_the_move_limit(monkeypatch):
    """A person who always passes does not play forever: the game stops at max_game_length as the envs do."""
    import dataclasses

    from gameshelf import envs
    from gameshelf import play as play_module

    original = envs.make_game

    def short_game(env_id, **options):
        game = original(env_id, **options)
        game.info = dataclasses.replace(game.info, max_game_length=12)
        return game

    monkeypatch.setattr(play_module.envs, "make_game", short_game)
    out: list[str] = []
    final = play_module.play(
        "level_x-v0", 0, ["random"], seed=0, read=lambda _p: "pass", write=lambda t: out.extend(t.splitlines())
    )
    assert not final.is_terminal()
    assert any("stopped after 12 moves" in line for line in out)


def test_human_play_with_scripted_input():
    from gameshelf.play import play

    out: list[str] = []
    scripted = iter(["?", "not a move"])

    def read(_prompt: str) -> str:
        """Ask for the move list, try a bad move, then always pick the first listed legal move."""
        answer = next(scripted, None)
        if answer is not None:
            return answer
        start = max(i for i, line in enumerate(out) if line.startswith("Your move"))
        return out[start + 1].split(":")[0].strip()

    def write(text: str) -> None:
        out.extend(text.splitlines())

    final = play("amoriax-v0", 0, ["random"], seed=3, read=read, write=write)
    assert final.is_terminal()
    assert any("Your move" in line for line in out)
    assert any("not a legal move" in line for line in out)


def test_human_player_sees_own_hand_in_hidden_information_games():
    from gameshelf.play import play

    out: list[str] = []

    def read(_prompt: str) -> str:
        start = max(i for i, line in enumerate(out) if line.startswith("Your move"))
        return out[start + 1].split(":")[0].strip()

    play("olenon-v0", 2, ["random"], seed=1, read=read, write=lambda text: out.extend(text.splitlines()))
    own = [line for line in out if line.startswith("Seat 2") and "  hand:" in line]
    others = [line for line in out if line.startswith(("Seat 0", "Seat 1", "Seat 3")) and "  hand:" in line]
    assert own, "the human player is shown its own hand"
    assert not others, "no other hand is shown"


def test_wrong_number_of_opponents_is_refused_in_one_line(capsys):
    """Olenon has four seats: one opponent name for all three others, or three names; two is a mistake."""
    for names in (["heuristic", "random"], ["random", "random", "random", "random"]):
        assert cli(["play", "olenon-v0", "--opponents", *names]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "3 other seats" in err and f"not {len(names)}" in err
    assert cli(["play", "olenon-v0", "--opponents"]) == 2
    assert "--opponents" in capsys.readouterr().err


def test_the_seating_and_the_quit_key_are_shown_first():
    from gameshelf.play import play, seating

    assert seating(["heuristic"], 3, 1) == {0: "heuristic", 1: "you", 2: "heuristic"}
    assert seating(["random", "heuristic", "mcts:5"], 4, 2) == {0: "random", 1: "heuristic", 2: "you", 3: "mcts:5"}
    out: list[str] = []

    def read(_prompt: str) -> str:
        return "q"

    with contextlib.suppress(KeyboardInterrupt):  # `q`: the command prints "bye"
        play("olenon-v0", 2, ["heuristic", "random", "heuristic"], seed=1, read=read, write=lambda t: out.extend(t.splitlines()))
    assert out[0] == "seats: player_0 heuristic, player_1 random, player_2 you, player_3 heuristic"
    assert "q quits" in out[1]
