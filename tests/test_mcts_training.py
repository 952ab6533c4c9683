"""MCTS agents as training opponents: ``opponent``, the self-play mix and ``eval.opponents`` take ``mcts:...`` names."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf.training.cli_util import UserError, run
from gameshelf.training.config import resolve_config
from gameshelf.training.environments import initial_opponents, make_env_fn
from gameshelf.training.selfplay import OpponentPool
from tests.toy_nim import NIM, register_nim, unregister_nim

TINY = {
    "n_envs": 2,
    "timesteps": 128,
    "selfplay": {"snapshot_every": 64, "pool_size": 2, "mix": {"snapshots": 0.5, "mcts:3": 0.5}},
    "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
    "eval": {"every": 10_000, "games": 2, "opponents": ["random", "mcts:2"]},
    "checkpoint_every": 10_000,
}


@pytest.fixture(autouse=True)
def nim_registered():
    register_nim()
    yield
    unregister_nim()


def test_config_takes_mcts_names_everywhere_an_opponent_is_named():
    config = resolve_config(NIM, {**TINY, "opponent": "mcts:5:heuristic"})
    assert config.opponent == "mcts:5:heuristic" and initial_opponents(config) == ["mcts:5:heuristic"]
    assert config.selfplay.mix == {"snapshots": 0.5, "mcts:3": 0.5}
    assert config.eval.opponents == ["random", "mcts:2"]
    assert resolve_config(NIM, {**TINY, "opponent": "mcts:0.01s"}).opponent == "mcts:0.01s"


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ({"opponent": "mcts:0"}, "mcts:0"),
        ({"opponent": "mcts:ten"}, "mcts:ten"),
        ({"opponent": "mcts:5:model:no/such/model.zip"}, "does not exist"),
        ({"opponent": "alphazero"}, "opponent"),
        ({"selfplay": {"mix": {"mcts:-2": 1}}}, "selfplay.mix"),
        ({"eval": {"opponents": ["mcts:3:rollouts"]}}, "eval.opponents"),
    ],
)
def test_bad_mcts_opponents_are_one_line_errors(override, named):
    with pytest.raises(UserError) as info:
        resolve_config(NIM, {**TINY, **override})
    message = str(info.value)
    assert named in message and "\n" not in message
    assert "mcts:N" in message or "model file" in message


def test_the_pool_hands_mcts_opponents_to_the_environments():
    pool = OpponentPool(NIM, {"random": 0.25, "mcts:4": 0.75})
    assert pool.opponents() == [("random", 0.25), ("mcts:4", 0.75)]
    with pytest.raises(ValueError, match="mcts"):
        OpponentPool(NIM, {"alphazero": 1.0})
    config = resolve_config(NIM, {**TINY, "opponent": "mcts:4"})
    env = make_env_fn(config, pool.opponents()[1:])()
    env.reset(seed=0)
    seat_env = env.unwrapped
    assert set(seat_env.seat_opponents.values()) == {"mcts:4"}
    assert type(seat_env._agent("mcts:4")).__name__ == "MCTSAgent"
    mask = env.action_masks()
    _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
    assert isinstance(terminated, bool) and isinstance(truncated, bool)


def test_tiny_runs_against_mcts_opponents(tmp_path, capsys):
    from gameshelf.training.train import main, read_evaluations, train

    result = train(NIM, config=TINY, out=tmp_path / "selfplay", progress=False)  # the self-play mix holds mcts:3
    assert result.model_path.is_file()
    rows = read_evaluations(tmp_path / "selfplay")
    assert "win_mcts:2" in rows[0] and 0.0 <= float(rows[-1]["win_mcts:2"]) <= 1.0
    out = tmp_path / "fixed"
    assert main([NIM, "--opponent", "mcts:3", "--timesteps", "64", "--n-envs", "1", "--out", str(out), "--quiet"]) == 0
    assert (out / "final_model.zip").is_file() and "opponent: mcts:3" in (out / "config.yaml").read_text()
    with pytest.raises(SystemExit) as info:
        run(main, [NIM, "--opponent", "mcts:nope", "--out", str(tmp_path / "bad")])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "mcts:nope" in err and "Traceback" not in err and not (tmp_path / "bad").exists()
