"""Saved models must not run code: a crafted model file is evaluated, played and refused without running.

The payloads below open (create) a marker file when unpickled. ``MaskablePPO.load`` runs them; the
weights-only loading of ``LearnedAgent``, the evaluator and self-play snapshots must not.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gameshelf import envs
from gameshelf.training.cli_util import run
from tests.toy_nim import NIM, register_nim, unregister_nim

KUHN = "toy_kuhn-v0"


class Payload:
    """Unpickling this creates ``marker`` (stands for any code an attacker would run)."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.fixture(autouse=True)
def games_registered():
    register_nim()
    if KUHN not in envs.registered_ids():
        envs.register(KUHN, "tests.toy_kuhn:ToyKuhnGame")
    yield
    unregister_nim()
    envs.unregister(KUHN)


@pytest.fixture
def saved_model(tmp_path):
    """An untrained Nim model saved as gameshelf saves models (with gameshelf.json)."""
    from gameshelf.training.config import resolve_config
    from gameshelf.training.environments import make_vec_env
    from gameshelf.training.model_io import model_info, save_model
    from gameshelf.training.sb3 import build_model

    config = resolve_config(NIM, {"n_envs": 1, "ppo": {"n_steps": 16, "batch_size": 16, "net_arch": [8]}})
    vec = make_vec_env(config)
    model = build_model(config, vec, None)
    path = tmp_path / "model.zip"
    save_model(model, path, model_info(config, model))
    vec.close()
    return path


def rewrite_zip(path: Path, replace: dict[str, bytes], drop: tuple[str, ...] = ()) -> None:
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    entries.update(replace)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            if name not in drop:
                archive.writestr(name, data)


def poison_schedule(path: Path, marker: Path) -> None:
    """Put a pickled payload where SB3 keeps the learning-rate schedule (``data``, run by MaskablePPO.load)."""
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    data["lr_schedule"] = {
        ":type:": "<class 'function'>",
        ":serialized:": base64.b64encode(pickle.dumps(Payload(marker))).decode(),
    }
    rewrite_zip(path, {"data": json.dumps(data).encode()})


def poison_weights(path: Path, marker: Path) -> None:
    """Replace ``policy.pth`` by a torch file whose pickle runs the payload."""
    import torch

    buffer = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": Payload(marker)}, buffer)
    rewrite_zip(path, {"policy.pth": buffer.getvalue()})


def play_one_game(agent) -> None:
    state = envs.make_game(NIM).new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply_action(agent.act(state, state.current_player(), rng))


def test_the_payload_is_real_for_a_full_sb3_load(saved_model, tmp_path):
    """The crafted file does run code under MaskablePPO.load, which is why we never use it by default."""
    from sb3_contrib import MaskablePPO

    marker = tmp_path / "owned"
    poison_schedule(saved_model, marker)
    with contextlib.suppress(Exception):
        MaskablePPO.load(str(saved_model), device="cpu")
    assert marker.exists()


def test_a_poisoned_schedule_is_never_unpickled(saved_model, tmp_path):
    from gameshelf.training.agents import make_agent
    from gameshelf.training.evaluate import evaluate

    marker = tmp_path / "owned"
    poison_schedule(saved_model, marker)
    agent = make_agent(f"model:{saved_model}", NIM)
    play_one_game(agent)
    result = evaluate(NIM, [f"model:{saved_model}", "random"], games=2, seed=0)
    assert result.pair(result.agents[0], "random").games == 2
    from gameshelf.training.selfplay import OpponentPool

    pool = OpponentPool(NIM, {"snapshots": 1.0}, 2, [saved_model.name], root=saved_model.parent)
    snapshot, _ = pool.opponents()[0]
    play_one_game(snapshot)
    assert not marker.exists()


def test_poisoned_weights_are_refused_with_a_clear_message(saved_model, tmp_path, capsys):
    from gameshelf.training.agents import make_agent
    from gameshelf.training.evaluate import main
    from gameshelf.training.model_io import ModelLoadError

    marker = tmp_path / "owned"
    poison_weights(saved_model, marker)
    with pytest.raises(ModelLoadError, match=r"policy\.pth holds more than plain weights and was refused"):
        _ = make_agent(f"model:{saved_model}", NIM).model
    with pytest.raises(SystemExit) as info:
        run(main, [NIM, f"model:{saved_model}", "random", "--games", "2", "--no-plot", "--quiet"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "refused" in err and "Traceback" not in err
    assert not marker.exists()


@pytest.mark.parametrize("observation", ["flat", "planes"])
def test_a_model_saved_before_gameshelf_json_loads_from_plain_fields_only(tmp_path, observation):
    """Older gameshelf models (a bare MaskablePPO.save) load from the readable parts of SB3's data."""
    from gameshelf.training.agents import make_agent
    from gameshelf.training.config import resolve_config
    from gameshelf.training.environments import make_vec_env
    from gameshelf.training.sb3 import build_model

    config = resolve_config(NIM, {"n_envs": 1, "observation": observation, "ppo": {"net_arch": [8], "features_dim": 8}})
    vec = make_vec_env(config)
    model = build_model(config, vec, None)
    vec.close()
    path = tmp_path / "old.zip"
    model.save(str(path))
    marker = tmp_path / "owned"
    poison_schedule(path, marker)
    agent = make_agent(f"model:{path}", NIM)
    play_one_game(agent)
    assert not marker.exists()
    from gameshelf.training.agents.learned import LearnedAgent

    state = envs.make_game(NIM).new_initial_state()
    expected = LearnedAgent.from_model(model, NIM).action_probabilities(state, 0)
    assert np.allclose(agent.action_probabilities(state, 0), expected)
    loaded, original = agent.model.policy.state_dict(), model.policy.state_dict()
    assert loaded.keys() == original.keys() and all((loaded[k] == original[k]).all() for k in original)


def test_a_foreign_model_needs_trust(saved_model, tmp_path):
    from gameshelf.training.agents import make_agent
    from gameshelf.training.model_io import ModelLoadError

    marker = tmp_path / "owned"
    poison_schedule(saved_model, marker)
    with zipfile.ZipFile(saved_model) as archive:
        data = json.loads(archive.read("data"))
    data["policy_class"]["__module__"] = "somebody.elses.policies"
    rewrite_zip(saved_model, {"data": json.dumps(data).encode()}, drop=("gameshelf.json",))
    with pytest.raises(ModelLoadError, match="trust_model=True"):
        _ = make_agent(f"model:{saved_model}", NIM).model
    assert not marker.exists()
    trusted = make_agent(f"model:{saved_model}", NIM, trust_model=True)  # explicit: the file's code runs
    play_one_game(trusted)
    assert marker.exists()


def test_a_damaged_file_is_refused_clearly(saved_model):
    from gameshelf.training.agents import make_agent
    from gameshelf.training.model_io import ModelLoadError

    saved_model.write_bytes(saved_model.read_bytes()[:200])
    with pytest.raises(ModelLoadError, match="not a readable model file"):
        _ = make_agent(f"model:{saved_model}", NIM).model


def test_a_model_for_another_game_fails_at_load_time(saved_model, capsys):
    from gameshelf.training.agents import make_agent
    from gameshelf.training.evaluate import main
    from gameshelf.training.model_io import ModelLoadError

    with pytest.raises(ModelLoadError) as info:
        _ = make_agent(f"model:{saved_model}", KUHN).model
    message = str(info.value)
    assert NIM in message and KUHN in message
    assert "(16,)" in message and "(5,)" in message and "3" in message and "2 actions" in message
    from gameshelf.training.cli_util import UserError
    from gameshelf.training.evaluate import evaluate

    with pytest.raises(UserError, match="cannot play toy_kuhn-v0"):  # before any game is played
        evaluate(KUHN, [f"model:{saved_model}", "random"], games=2)
    with pytest.raises(SystemExit) as exit_info:
        run(main, [KUHN, f"model:{saved_model}", "random", "--games", "2", "--no-plot", "--quiet"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "cannot play toy_kuhn-v0" in err and "Traceback" not in err


# ---- network files (gameshelf-net/1): hostile headers are refused before any array is read ---------------


def npy_header(shape: tuple[int, ...], dtype: str = "<f4") -> bytes:
    """The ``.npy`` magic and header of an array of ``shape`` (no data)."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def net_file(tmp_path: Path, members: dict[str, Any], meta: dict | None = None, name: str = "net.npz") -> Path:
    """A Level X network file (random weights, one hidden layer of 16) with ``members`` replacing or added to its
    arrays (raw ``.npy`` bytes, or a function writing them to the open member), and ``meta`` changes in its header."""
    from tests.toy_nets import meta_of, write_net

    good = write_net(tmp_path / "good.npz", "level_x-v0")
    header = {**meta_of(good), **(meta or {})}
    members = {"meta": _npy_bytes(np.frombuffer(json.dumps(header).encode(), np.uint8)), **members}
    path = tmp_path / name
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as target:
        for info in source.infolist():
            if info.filename.removesuffix(".npy") not in members:
                target.writestr(info.filename, source.read(info))
        for member, data in members.items():
            if callable(data):
                with target.open(f"{member}.npy", "w", force_zip64=True) as stream:
                    data(stream)
            else:
                target.writestr(f"{member}.npy", data)
    return path


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def refused(path: Path) -> str:
    """The one-line ``NetLoadError`` reading ``path`` gives, checking the loader allocated little on the way."""
    import tracemalloc

    from gameshelf.training.agents.network_agent import load_net
    from gameshelf.training.numpy_net import NetLoadError

    tracemalloc.start()
    try:
        with pytest.raises(NetLoadError) as err:
            load_net(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024, peak
    message = str(err.value)
    assert "\n" not in message and len(message) < 400 and str(path) in message
    return message


def test_a_deflated_bomb_in_an_array_is_refused_from_its_header(tmp_path):
    """256 MiB of zeros in ``value.b``, deflated to a file under a megabyte: refused by its header, unread."""
    count = 64 * 1024 * 1024

    def zeros(member: Any) -> None:
        member.write(npy_header((count,)))
        chunk = bytes(1024 * 1024)
        for _ in range(count * 4 // len(chunk)):
            member.write(chunk)

    path = net_file(tmp_path, {"value.b": zeros}, name="bomb.npz")
    assert path.stat().st_size < 1024 * 1024
    assert f"'value.b' has shape ({count},), expected (1,)" in refused(path)


@pytest.mark.parametrize(
    ("members", "meta", "words"),
    [
        ({"dense0.w": npy_header((10**12,))}, None, "'dense0.w' has shape (1000000000000,), expected (212, 16)"),
        (
            {"value.b": npy_header((1,), "<f8") + bytes(8)},
            None,
            "'value.b' must hold finite float32 or float16 values, not float64",
        ),
        ({"value.b": npy_header((1,))}, None, "'value.b' is cut short (0 of 4 bytes)"),
        ({"value.b": npy_header((1,), "|O")}, None, "'value.b.npy' holds Python objects, never unpickled"),
        ({}, {"num_players": 99}, "'num_players' is 99; level_x-v0 allows [2, 3, 4]"),
        (
            {},
            {"options": {"displaced_to": "moon"}},
            "option displaced_to='moon' is not allowed; allowed values: ['supply', 'square1']",
        ),
        ({}, {"options": {"colour": 1}}, "'options' are not level_x-v0's"),
        ({}, {"env_id": "nope-v0"}, "trained on nope-v0, which is not a registered environment id"),
        ({}, {"num_actions": 10**9}, "its header says level_x-v0 with observation (212,) and 1000000000 actions"),
        ({}, {"hidden": [4096] * 9}, "'hidden' must be 1 to 8 widths up to 4096"),
        ({"meta": npy_header((-1,), "|u1") + b"{}" * 1000}, None, "'meta.npy' has shape (-1,)"),
        ({"junk": b"x" * 10}, None, None),  # an extra member is never read
    ],
    ids=[
        "huge-shape",
        "float64",
        "cut-short",
        "object-dtype",
        "num-players",
        "option-value",
        "option-name",
        "unknown-game",
        "num-actions",
        "too-deep",
        "negative-size",
        "extra-member",
    ],
)
def test_a_hostile_network_file_gives_one_clear_error(tmp_path, members, meta, words):
    path = net_file(tmp_path, members, meta)
    if words is None:
        from gameshelf.training.agents.network_agent import load_net

        assert load_net(path).env_id == "level_x-v0"
        return
    assert words in refused(path)


def test_arrays_larger_than_the_unpacked_cap_are_refused_before_any_is_read(tmp_path):
    """Eight layers of 4096 (the widest architecture allowed), every header fitting it, no data behind them."""
    from gameshelf.training.numpy_net import MAX_UNPACKED_BYTES, expected_shapes
    from tests.toy_nets import meta_of, write_net

    meta = {**meta_of(write_net(tmp_path / "good.npz", "level_x-v0")), "hidden": [4096] * 8}
    headers = {name: npy_header(shape) for name, shape in expected_shapes(meta).items()}
    message = refused(net_file(tmp_path, headers, {"hidden": [4096] * 8}))
    total = 4 * (212 * 4096 + 4096 + 7 * (4096 * 4096 + 4096) + 4096 * 49 + 49 + 4096 + 1)
    assert f"its arrays would take {total} bytes, more than {MAX_UNPACKED_BYTES}" in message
