"""The match runner: seat rotation, tallies and CLI errors."""

from __future__ import annotations

import numpy as np

from gameshelf.training.match import main, outcome, run_match


def test_outcome_classification():
    assert outcome(np.array([1.0, -1.0]), 0) == "win"
    assert outcome(np.array([1.0, -1.0]), 1) == "loss"
    assert outcome(np.array([0.0, 0.0]), 1) == "draw"
    assert outcome(np.array([1.0, -1.0, 1.0, -1.0]), 2) == "win"  # partners share a team win
    assert outcome(np.array([0.5, 0.5, -1.0]), 0) == "win"


def test_every_agent_plays_every_seat():
    tallies = run_match("level_x-v0", ["random", "random"], games=4, seed=1)
    for tally in tallies.values():
        assert tally.games == 4
        assert set(tally.by_seat) == {0, 1}
        assert all(sum(row) == 2 for row in tally.by_seat.values())


def test_cli_reports_bad_input(capsys):
    assert main(["nope-v0", "random"]) == 2
    assert "known ids" in capsys.readouterr().err
    assert main(["level_x-v0", "random", "genius"]) == 2
    assert main(["level_x-v0", "random", "random", "random", "random", "random"]) == 2


def test_human_play_with_scripted_input():
    from gameshelf.training.play import play

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
    from gameshelf.training.play import play

    out: list[str] = []

    def read(_prompt: str) -> str:
        start = max(i for i, line in enumerate(out) if line.startswith("Your move"))
        return out[start + 1].split(":")[0].strip()

    play("olenon-v0", 2, ["random"], seed=1, read=read, write=lambda text: out.extend(text.splitlines()))
    own = [line for line in out if line.startswith("Seat 2") and "  hand:" in line]
    others = [line for line in out if line.startswith(("Seat 0", "Seat 1", "Seat 3")) and "  hand:" in line]
    assert own, "the human player is shown its own hand"
    assert not others, "no other hand is shown"
