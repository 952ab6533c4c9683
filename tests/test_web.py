"""The browser app (``gameshelf serve``) through Starlette's test client, and ``gameshelf replay --gif``.

What a seat is sent is checked to hold nothing it may not know: the same for the real position and for
any redeal of the other seats' hidden information.
"""

from __future__ import annotations

import base64
import io
import json
import socket
import time
import warnings

import numpy as np
import pytest
from PIL import Image

from gameshelf import envs
from gameshelf.envs.core.episode import Episode, resolve_chance
from gameshelf.envs.core.game import CHANCE
from gameshelf.envs.core.rendering import render_seat_image

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore:Using `httpx`")

with warnings.catch_warnings():  # newer Starlette asks for httpx2 instead of httpx; both work
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from gameshelf.web.app import create_app  # noqa: E402
from gameshelf.web.session import LogEntry, Session, log_entry, make_game  # noqa: E402
from tests.toy_nets import BAD_FILES, BAD_WORDS, ReferenceFolder, bad_net, write_net  # noqa: E402

HIDDEN = [i for i in envs.registered_ids() if envs.make_game(i).info.has_hidden_info]


JSON = {"content-type": "application/json"}
BASE = "http://127.0.0.1:8000"
"""What the test client calls the server: the address the app is bound to by default (its Host check)."""


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(), base_url=BASE)


def start(client: TestClient, env_id: str, seats: list[str] | None = None, seed: int = 0, **extra) -> dict:
    response = client.post("/api/games", json={"env_id": env_id, "seats": seats, "seed": seed, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def settled(client: TestClient, token: str, view: dict | None = None, seconds: float = 60) -> dict:
    """The view once searching agents have moved (``thinking`` false); polls, as the page does."""
    view = view or client.get(f"/api/play/{token}").json()
    deadline = time.monotonic() + seconds
    while view["thinking"]:
        assert time.monotonic() < deadline, "the agents did not move in time"
        time.sleep(0.02)
        view = client.get(f"/api/play/{token}").json()
    return view


def play_a_move(client: TestClient, token: str, view: dict | None = None) -> dict:
    """The view once the seat has played its first legal move and the agents have answered."""
    view = settled(client, token, view)
    move = {"action": view["moves"][0]["action"], "version": view["version"]}
    response = client.post(f"/api/play/{token}/move", json=move)
    assert response.status_code == 200, response.text
    return settled(client, token, response.json())


def play_out(client: TestClient, token: str, pick=lambda moves: moves[0]) -> dict:
    view = settled(client, token)
    for _ in range(2000):
        if view["over"]:
            return view
        assert view["your_turn"] and view["moves"]
        move = {"action": pick(view["moves"])["action"], "version": view["version"]}
        response = client.post(f"/api/play/{token}/move", json=move)
        assert response.status_code == 200, response.text
        view = settled(client, token, response.json())
    raise AssertionError("the game did not end")


# ---- the page and the catalogue ----------------------------------------------------------------------
def test_index_and_static_files(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "<script" in page.text and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200


def test_catalogue_lists_every_registered_game(client: TestClient) -> None:
    games = client.get("/api/games").json()
    assert [g["id"] for g in games] == envs.registered_ids()
    olenon = next(g for g in games if g["id"] == "olenon-v0")
    assert olenon["player_counts"] == [4]
    assert {o["name"] for o in olenon["options"]} == {"first_player_rule", "open_team_info"}
    assert all(g["heuristic"] for g in games)  # every game's envs/<game>/heuristic.py is found
    json.dumps(games)  # plain JSON all through


# ---- playing --------------------------------------------------------------------------------------------
def test_level_x_full_game_against_heuristic(client: TestClient) -> None:
    made = start(client, "level_x-v0", ["human", "heuristic"], seed=1)
    assert set(made) == {"seats", "watch"} and list(made["seats"]) == ["0"]
    view = play_out(client, made["seats"]["0"], pick=lambda moves: moves[-1])
    assert view["result"]["summary"] and len(view["result"]["returns"]) == 2
    assert view["image"].startswith("data:image/png;base64,")
    assert any(line.startswith("player_1:") for line in view["log"]) and any(line.startswith("player_0:") for line in view["log"])
    record = client.get(f"/api/play/{made['seats']['0']}/record")
    assert record.status_code == 200 and json.loads(record.text)["env_id"] == "level_x-v0"


@pytest.mark.parametrize("env_id", envs.registered_ids())
def test_every_game_starts_with_every_agent_kind(client: TestClient, env_id: str) -> None:
    n = envs.spec(env_id).player_counts[0]
    kinds = ["random", "heuristic", "mcts:4"]
    seats = ["human"] + [kinds[i % len(kinds)] for i in range(n - 1)]
    token = start(client, env_id, seats, seed=2)["seats"]["0"]
    view = settled(client, token)
    assert view["your_turn"] and view["moves"], view["text"]
    move = view["moves"][0]
    after = client.post(f"/api/play/{token}/move", json={"action": move["action"], "version": view["version"]}).json()
    assert after["version"] > view["version"]
    assert f"player_0: {move['name']}" in settled(client, token, after)["log"]


def test_sessions_are_isolated(client: TestClient) -> None:
    a = start(client, "level_x-v0", seed=5)["seats"]["0"]
    b = start(client, "level_x-v0", seed=5)["seats"]["0"]
    va, vb = client.get(f"/api/play/{a}").json(), client.get(f"/api/play/{b}").json()
    assert va["text"] == vb["text"]
    client.post(f"/api/play/{a}/move", json={"action": va["moves"][-1]["action"], "version": va["version"]})
    assert client.get(f"/api/play/{b}").json() == vb
    assert client.get(f"/api/play/{a}").json()["version"] == 1


def test_two_people_each_see_only_their_own_seat(client: TestClient) -> None:
    made = start(client, "olenon-v0", ["human", "heuristic", "human", "heuristic"], seed=3)
    assert sorted(made["seats"]) == ["0", "2"]
    t0, t2 = made["seats"]["0"], made["seats"]["2"]
    v0, v2 = client.get(f"/api/play/{t0}").json(), client.get(f"/api/play/{t2}").json()
    assert v0["seat"] == 0 and v2["seat"] == 2 and v0["image"] != v2["image"]
    mover, other = (t0, t2) if v0["your_turn"] else (t2, t0)
    waiting = client.get(f"/api/play/{other}").json()
    assert waiting["moves"] == [] and not waiting["your_turn"]
    refused = client.post(f"/api/play/{other}/move", json={"action": 0, "version": waiting["version"]})
    assert refused.status_code == 400 and "not your turn" in refused.json()["error"]
    watch = client.get(f"/api/play/{made['watch']}").json()
    assert watch["seat"] is None and watch["moves"] == []
    assert client.post(f"/api/play/{made['watch']}/move", json={"action": 0, "version": 0}).status_code == 400
    assert client.get(f"/api/play/{mover}").json()["your_turn"]


def test_watching_agents_move_by_move(client: TestClient) -> None:
    made = start(client, "koplus-v0", ["random", "heuristic"], seed=4)
    assert made["seats"] == {}
    view = client.get(f"/api/play/{made['watch']}").json()
    assert view["can_step"] and all(line.startswith("chance") for line in view["log"])
    for _ in range(500):
        if view["over"]:
            break
        view = client.post(f"/api/play/{made['watch']}/step", json={"version": view["version"]}).json()
    assert view["over"] and view["result"] and not view["can_step"]


def test_hint_names_a_legal_move_and_changes_nothing(client: TestClient) -> None:
    token = start(client, "olenon-v0", seed=6)["seats"]["0"]
    view = client.get(f"/api/play/{token}").json()
    for agent in ("heuristic", "mcts:10"):  # a searching agent's hint is a job on the agent worker
        hint = client.post(f"/api/play/{token}/hint", json={"agent": agent}).json()
        assert hint["action"] in [m["action"] for m in view["moves"]] and hint["name"] and hint["agent"] == agent
        assert client.get(f"/api/play/{token}").json() == view
    bad = client.post(f"/api/play/{token}/hint", json={"agent": "wizard"})
    assert bad.status_code == 400 and "unknown agent 'wizard'" in bad.json()["error"]


def test_undo_takes_back_my_last_move(client: TestClient) -> None:
    token = start(client, "level_x-v0", ["human", "heuristic"], seed=7)["seats"]["0"]
    first = client.get(f"/api/play/{token}").json()
    assert not first["can_undo"]
    assert client.post(f"/api/play/{token}/undo", json={"version": 0}).status_code == 400
    second = client.post(f"/api/play/{token}/move", json={"action": first["moves"][-1]["action"], "version": 0}).json()
    assert second["can_undo"]
    undone = client.post(f"/api/play/{token}/undo", json={"version": second["version"]}).json()
    assert undone["text"] == first["text"] and undone["log"] == first["log"] and undone["moves"] == first["moves"]
    assert undone["version"] == second["version"] + 1 and not undone["can_undo"]


# ---- bad requests change nothing --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"env_id": "chess-v9"}, 404, "unknown game 'chess-v9'; known games: level_x-v0"),
        ({"env_id": "olenon-v0", "num_players": 3}, 400, "played by 4 players, not 3"),
        ({"env_id": "olenon-v0", "options": {"open_team_info": "yes"}}, 400, "allowed values: [False, True]"),
        ({"env_id": "olenon-v0", "options": {"colour": 1}}, 400, "unknown option(s) ['colour']"),
        ({"env_id": "level_x-v0", "seats": ["human"]}, 400, "needs 2 seats"),
        ({"env_id": "level_x-v0", "seats": ["human", "grandmaster"]}, 400, "unknown agent 'grandmaster'"),
        ({"env_id": "level_x-v0", "seats": ["human", "model:/no/such/model.zip"]}, 400, "model:/no/such/model.zip"),
        ({"env_id": "level_x-v0", "seed": -1}, 400, "seed must be a non-negative integer"),
        ({"env_id": "level_x-v0", "colour": "red"}, 400, "unknown field(s) ['colour']"),
    ],
)
def test_bad_setup_is_refused_with_a_clear_message(client: TestClient, body: dict, status: int, words: str) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == status and words in response.json()["error"], response.text
    assert client.app.state.store.games.tokens == {}  # type: ignore[attr-defined]


def test_bad_moves_are_refused_and_change_nothing(client: TestClient) -> None:
    token = start(client, "level_x-v0", ["human", "random"], seed=8)["seats"]["0"]
    view = client.get(f"/api/play/{token}").json()
    legal = {m["action"] for m in view["moves"]}
    illegal = next(a for a in range(envs.make_game("level_x-v0").num_actions) if a not in legal)
    cases = [
        ({"action": illegal, "version": 0}, 400, "not a legal move"),
        ({"action": 10**9, "version": 0}, 400, "not a legal move"),
        ({"action": "pass", "version": 0}, 400, "a move is an action number"),
        ({"action": True, "version": 0}, 400, "a move is an action number"),
        ({"action": view["moves"][0]["action"], "version": 7}, 409, "the position changed"),
        ({"action": view["moves"][0]["action"]}, 409, "the position changed"),
    ]
    for body, status, words in cases:
        response = client.post(f"/api/play/{token}/move", json=body)
        assert response.status_code == status and words in response.json()["error"], (body, response.text)
    assert client.post(f"/api/play/{token}/move", content=b"{not json", headers=JSON).status_code == 400
    assert client.post(f"/api/play/{token}/move", content=b"[1, 2]", headers=JSON).status_code == 400
    assert client.get(f"/api/play/{token}").json() == view
    assert client.get("/api/play/nosuchtoken").status_code == 404
    # a stale move after the position changed: the first is played, the second (same version) refused
    move = {"action": view["moves"][-1]["action"], "version": view["version"]}
    assert client.post(f"/api/play/{token}/move", json=move).status_code == 200
    again = client.post(f"/api/play/{token}/move", json=move)
    assert again.status_code == 409 and "changed since" in again.json()["error"]


def test_record_only_once_the_game_is_over(client: TestClient) -> None:
    token = start(client, "olenon-v0", seed=9)["seats"]["0"]
    response = client.get(f"/api/play/{token}/record")
    assert response.status_code == 400 and "once the game is over" in response.json()["error"]


# ---- hidden information ---------------------------------------------------------------------------------
def _positions(env_id: str, seed: int, count: int = 4) -> list:
    """States met while random players play ``env_id`` (players to move, chance resolved)."""
    game = envs.make_game(env_id)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    resolve_chance(state, rng)
    out = []
    for _ in range(game.info.max_game_length):
        if state.is_terminal():
            break
        out.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        resolve_chance(state, rng)
    picks = np.linspace(0, len(out) - 1, count).astype(int)
    return [out[i] for i in picks]


@pytest.mark.parametrize("env_id", HIDDEN)
def test_what_a_seat_is_shown_does_not_change_when_the_others_hidden_cards_are_redealt(env_id: str) -> None:
    rng = np.random.default_rng(0)
    for state in _positions(env_id, seed=1):
        for seat in range(state.game.info.num_players):
            other = state.resample_hidden(seat, rng)
            assert state.seat_text(seat) == other.seat_text(seat)
            assert np.array_equal(render_seat_image(state, seat), render_seat_image(other, seat)), (env_id, seat)
            assert np.array_equal(state.render_image(), other.render_image()), env_id  # the public picture


def test_olenon_seat_picture_shows_its_own_hand_only() -> None:
    state = _positions("olenon-v0", seed=2)[1]
    pictures = [render_seat_image(state, seat) for seat in range(4)]
    public = state.render_image()
    assert all(not np.array_equal(p, public) for p in pictures)  # each seat's own hand face up
    assert len({p.tobytes() for p in pictures}) == 4


def test_log_hides_cards_dealt_to_others_and_forced_deals() -> None:
    game = envs.make_game("olenon-v0")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    entries: list[LogEntry] = []
    while state.current_player() == CHANCE:
        outcome = state.sample_chance(rng)
        entries.append(log_entry(state, outcome))
        state.apply_action(outcome)
    deals = [e for e in entries if e.name.startswith("deal")]
    assert deals
    for entry in deals:
        receiver = int(entry.name.rsplit(" ", 1)[1])
        assert entry.text_for(receiver) == f"chance: {entry.name}"
        assert all(entry.text_for(s) is None for s in range(4) if s != receiver)
        assert entry.text_for(None) is None


def test_session_log_and_text_never_name_another_seats_hand() -> None:
    session = Session("olenon-v0", make_game("olenon-v0", 4, {}), ["human", "random", "random", "random"], seed=11)
    while not session.episode.done:
        view = session.view(0)
        state = session.state
        for line in view["log"]:
            assert "seat 0" in line or not line.startswith("chance: deal"), line
        for s in (1, 2, 3):
            assert f"Seat {s} [" in view["text"] and "  hand:" not in view["text"].split(f"Seat {s} [")[1].split("\n")[0]
        assert view["text"] == state.seat_text(0)
        session.move(0, view["moves"][0]["action"], view["version"])


def test_agents_get_only_their_seats_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """Agents and hints act on ``observed_state`` (a redeal), never the real state."""
    import gameshelf.web.session as web_session

    calls = []
    real = web_session.observed_state

    def spy(state, seat, rng):
        calls.append(seat)
        seen = real(state, seat, rng)
        assert seen is not state
        return seen

    monkeypatch.setattr(web_session, "observed_state", spy)
    session = Session("olenon-v0", make_game("olenon-v0", 4, {}), ["human", "random", "random", "random"], seed=12)
    session.hint(0, "random")
    assert 0 in calls and set(calls) - {0} <= {1, 2, 3}


# ---- replays -------------------------------------------------------------------------------------------
def _record_json(env_id: str = "olenon-v0", seed: int = 0) -> str:
    from gameshelf.training.agents import RandomAgent

    game = envs.make_game(env_id)
    episode = Episode(game, env_id=env_id)
    episode.reset(np.random.default_rng(seed))
    episode.play([RandomAgent()] * game.num_players)
    return episode.record().to_json()


def test_replay_upload_and_step_through(client: TestClient) -> None:
    text = _record_json()
    made = client.post("/api/replays", content=text.encode(), headers=JSON)
    assert made.status_code == 200, made.text
    token = made.json()["replay"]
    start_view = client.get(f"/api/replays/{token}").json()
    length = start_view["length"]
    assert start_view["step"] == 0 and length == len(json.loads(text)["actions"])
    end = client.get(f"/api/replays/{token}?step={length}").json()
    assert end["over"] and end["returns"] and len(end["log"]) == length
    middle = client.get(f"/api/replays/{token}?step={length // 2}&seat=1").json()
    assert middle["seat"] == 1 and len(middle["log"]) == length // 2
    for query in (f"step={length + 1}", "step=-1", "step=x", "seat=4", "seat=z"):
        bad = client.get(f"/api/replays/{token}?{query}")
        assert bad.status_code == 400 and "must be" in bad.json()["error"], query
    assert client.get("/api/replays/nosuch").status_code == 404


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"format": "gameshelf-record", "version": 2, "env_id": "olenon-v0"', "invalid or truncated JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[]", "not a game record"),
        (b'{"format": "gameshelf-record", "version": 2, "env_id": "nope-v0", "options": {}, "actions": []}', "unknown"),
    ],
)
def test_corrupt_record_upload_is_refused(client: TestClient, body: bytes, words: str) -> None:
    response = client.post("/api/replays", content=body, headers=JSON)
    assert response.status_code == 400 and words in response.json()["error"], response.text
    assert len(client.app.state.store.replays) == 0  # type: ignore[attr-defined]


def test_edited_record_is_refused(client: TestClient) -> None:
    data = json.loads(_record_json())
    data["actions"][-1] = 35 if data["actions"][-1] != 35 else 1
    response = client.post("/api/replays", content=json.dumps(data).encode(), headers=JSON)
    assert response.status_code == 400 and "game record" in response.json()["error"]


def test_oversized_upload_is_refused(client: TestClient) -> None:
    from gameshelf.web.app import MAX_BODY

    response = client.post("/api/replays", content=b" " * (MAX_BODY + 1), headers=JSON)
    assert response.status_code == 413 and "at most" in response.json()["error"]


# ---- gameshelf replay --------------------------------------------------------------------------------------
def test_replay_command_writes_an_animated_gif(tmp_path, capsys) -> None:
    from gameshelf.cli import main

    path = tmp_path / "game.json"
    path.write_text(_record_json("level_x-v0", seed=3))
    out = tmp_path / "game.gif"
    assert main(["replay", str(path), "--gif", str(out), "--fps", "5", "--quiet"]) == 0
    with Image.open(out) as gif:
        assert gif.format == "GIF" and gif.n_frames > 5 and gif.is_animated
    assert "frames" in capsys.readouterr().out
    assert main(["replay", str(path)]) == 0
    assert "player_0:" in capsys.readouterr().out


def test_replay_command_refuses_bad_input(tmp_path, capsys) -> None:
    from gameshelf.cli import main

    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "gameshelf-record"')
    assert main(["replay", str(broken), "--gif", str(tmp_path / "x.gif")]) == 2
    assert "invalid or truncated JSON" in capsys.readouterr().err
    assert not (tmp_path / "x.gif").exists()
    good = tmp_path / "good.json"
    good.write_text(_record_json("level_x-v0", seed=4))
    assert main(["replay", str(good), "--gif", str(tmp_path / "x.png")]) == 2
    assert ".gif" in capsys.readouterr().err
    assert main(["replay", str(good), "--seat", "5"]) == 2
    assert "--seat must be in 0..1" in capsys.readouterr().err


def test_serve_command_starts_on_localhost_and_answers(tmp_path) -> None:
    import subprocess
    import sys
    import urllib.request

    proc = subprocess.Popen(
        [sys.executable, "-m", "gameshelf", "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if proc.poll() is not None and proc.stderr:
            line += proc.stderr.read()
        assert "serving on http://127.0.0.1:" in line, line
        url = line.split("serving on ", 1)[1].split()[0]
        with urllib.request.urlopen(url + "api/games", timeout=30) as response:
            assert [g["id"] for g in json.load(response)] == envs.registered_ids()
    finally:
        proc.terminate()
        proc.wait(10)


def test_serve_command_refuses_a_bad_port(capsys) -> None:
    from gameshelf.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be in 0..65535" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        assert main(["serve", "--port", str(taken.getsockname()[1])]) == 2
    assert "cannot serve on 127.0.0.1:" in capsys.readouterr().err


def test_serve_command_on_every_address_needs_its_token() -> None:
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    proc = subprocess.Popen(
        [sys.executable, "-m", "gameshelf", "serve", "--host", "0.0.0.0", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**__import__("os").environ, "GAMESHELF_TOKEN": ""},
    )
    try:
        warning = proc.stdout.readline() if proc.stdout else ""
        line = proc.stdout.readline() if proc.stdout else ""
        assert "every machine that can reach port" in warning and "plain HTTP" in warning, warning
        assert "serving on http://127.0.0.1:" in line and "?token=" in line, line
        url = line.split("serving on ", 1)[1].split()[0]
        base, secret = url.split("?token=")

        def status(path: str, **headers: str) -> int:
            try:
                with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers), timeout=30) as response:
                    return response.status
            except urllib.error.HTTPError as err:
                return err.code

        assert status("api/games") == 403
        assert status("api/games", Authorization=f"token {secret}") == 200
        assert status("api/games", Authorization=f"token {secret}", Host="evil.example") == 403
    finally:
        proc.terminate()
        proc.wait(10)


def test_serve_command_refuses_bad_models_and_tokens(tmp_path, capsys) -> None:
    from gameshelf.cli import main

    assert main(["serve", "--model", f"m={tmp_path / 'none.zip'}"]) == 2
    assert "no saved model" in capsys.readouterr().err
    assert main(["serve", "--model", "a/b=x.zip"]) == 2
    assert "model name 'a/b'" in capsys.readouterr().err
    assert main(["serve", "--token", "short"]) == 2
    assert "--token must be" in capsys.readouterr().err


def test_missing_web_extra_is_named() -> None:
    from gameshelf.training.cli_util import missing_extra_hint

    hint = missing_extra_hint(ModuleNotFoundError("No module named 'starlette'", name="starlette"))
    assert hint is not None and 'pip install "gameshelf[web]"' in hint


def test_list_valued_option_from_the_page(client: TestClient) -> None:
    made = start(
        client, "catsle_builders-v0", ["human", "random", "random"], num_players=3, options={"column_limits": [2, 3, 4, 5]}
    )
    view = client.get(f"/api/play/{made['seats']['0']}").json()
    assert view["options"]["column_limits"] == [2, 3, 4, 5] and view["options"]["num_players"] == 3
    bad = client.post("/api/games", json={"env_id": "catsle_builders-v0", "options": {"column_limits": [99]}})
    assert bad.status_code == 400 and "4 integers 0..12" in bad.json()["error"]


# ---- who may drive the server ---------------------------------------------------------------------------
CROSS_SITE = {"origin": "http://evil.example", "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"}
LEVEL_X = {"env_id": "level_x-v0", "seats": ["human", "random"], "seed": 1}


def held(client: TestClient) -> int:
    return len(client.app.state.store.games)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({**CROSS_SITE, "content-type": "text/plain"}, 403),  # what any page can send without a preflight
        ({"content-type": "text/plain"}, 415),
        ({"content-type": "application/x-www-form-urlencoded"}, 415),
        ({"content-type": "multipart/form-data; boundary=x"}, 415),
        ({**JSON, "origin": "http://evil.example"}, 403),
        ({**JSON, "origin": "null"}, 403),
        ({**JSON, "origin": "http://127.0.0.1:9999"}, 403),  # another port is another origin
        ({**JSON, "origin": "http://localhost:8000"}, 403),  # another name of this machine: another origin
        ({**JSON, "sec-fetch-site": "cross-site"}, 403),
        ({**JSON, "sec-fetch-site": "same-site"}, 403),
        ({**JSON, "origin": BASE, "sec-fetch-site": "cross-site"}, 403),
    ],
)
def test_cross_site_requests_change_nothing(client: TestClient, headers: dict, status: int) -> None:
    response = client.post("/api/games", content=json.dumps(LEVEL_X).encode(), headers=headers)
    assert response.status_code == status and response.json()["error"], response.text
    assert held(client) == 0
    token = start(client, "level_x-v0", ["human", "random"], seed=1)["seats"]["0"]
    view = client.get(f"/api/play/{token}").json()
    body = json.dumps({"action": view["moves"][0]["action"], "version": view["version"]}).encode()
    for path in ("move", "undo", "hint"):
        refused = client.post(f"/api/play/{token}/{path}", content=body, headers=headers)
        assert refused.status_code == status, (path, refused.text)
    assert client.post("/api/replays", content=_record_json("level_x-v0").encode(), headers=headers).status_code == status
    assert client.get(f"/api/play/{token}").json() == view and held(client) == 1
    assert len(client.app.state.store.replays) == 0  # type: ignore[attr-defined]


def test_same_origin_requests_are_accepted(client: TestClient) -> None:
    for headers in (
        {**JSON, "origin": BASE, "sec-fetch-site": "same-origin"},
        {**JSON, "origin": BASE},
        {**JSON, "sec-fetch-site": "same-origin"},
        {"content-type": "application/json; charset=utf-8"},  # a program: no Origin, no Sec-Fetch-Site
    ):
        response = client.post("/api/games", content=json.dumps(LEVEL_X).encode(), headers=headers)
        assert response.status_code == 200, (headers, response.text)
    assert held(client) == 4


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "10.1.2.3:8000", ""])
def test_wrong_host_is_refused(client: TestClient, host: str) -> None:
    token = start(client, "level_x-v0", ["human", "random"])["seats"]["0"]
    view = client.get(f"/api/play/{token}").json()
    for method, path in [("GET", "/"), ("GET", "/api/games"), ("GET", f"/api/play/{token}"), ("GET", "/static/app.js")]:
        response = client.request(method, path, headers={"host": host})
        assert response.status_code in (400, 403) and "error" in response.json(), (path, response.text)
        assert view["text"] not in response.text
    move = {"action": view["moves"][0]["action"], "version": view["version"]}
    assert client.post(f"/api/play/{token}/move", json=move, headers={"host": host}).status_code in (400, 403)
    assert client.post("/api/games", json=LEVEL_X, headers={"host": host}).status_code in (400, 403)
    assert client.get(f"/api/play/{token}").json() == view and held(client) == 1


def test_loopback_names_are_accepted(client: TestClient) -> None:
    for host in ("127.0.0.1", "127.0.0.1:8000", "localhost:8000", "LOCALHOST", "[::1]:8000"):
        assert client.get("/api/games", headers={"host": host}).status_code == 200, host


def test_no_framing_no_cors_no_referrer(client: TestClient) -> None:
    for response in (
        client.get("/"),
        client.get("/static/app.js"),
        client.get("/api/games", headers={"origin": "http://evil.example"}),
        client.get("/api/play/nosuch"),
        client.get("/api/games", headers={"host": "evil.example"}),
        client.post("/api/games", content=b"x", headers={"content-type": "text/plain"}),
    ):
        headers = response.headers
        assert headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["referrer-policy"] == "no-referrer" and headers["x-content-type-options"] == "nosniff"
        assert not any(k.lower().startswith("access-control-") for k in headers)
    preflight = client.options("/api/games", headers={"origin": "http://evil.example", "access-control-request-method": "POST"})
    assert preflight.status_code == 405 and "access-control-allow-origin" not in preflight.headers
    assert client.get("/api/games").headers["cache-control"] == "no-store"


def test_cross_site_reads_of_the_api_are_refused(client: TestClient) -> None:
    token = start(client, "level_x-v0", ["human", "random"])["seats"]["0"]
    for path in ("/api/games", f"/api/play/{token}", "/api/agents"):
        refused = client.get(path, headers={"sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"})
        assert refused.status_code == 403, path
    # a link from another site to the page itself opens it (the page then talks to its own origin)
    assert client.get("/", headers={"sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"}).status_code == 200


def test_token_mode(tmp_path) -> None:
    secret = "s3cret-token-for-tests-0123"
    app = create_app(host="0.0.0.0", port=8000, token=secret)
    anyone = TestClient(app, base_url="http://192.168.1.20:8000")
    assert anyone.get("/api/games").status_code == 403
    assert anyone.post("/api/games", json=LEVEL_X).status_code == 403
    assert anyone.get("/?token=wrong").status_code == 403
    assert anyone.get("/").status_code == 200  # the page itself holds nothing
    # bound to every address: any IP address, localhost, nothing else (DNS rebinding sends a name)
    assert anyone.get("/", headers={"host": "evil.example:8000"}).status_code == 403
    user = TestClient(app, base_url="http://192.168.1.20:8000", follow_redirects=False)
    login = user.get(f"/?token={secret}&t=abc")
    assert login.status_code == 303 and login.headers["location"] == "/?t=abc"
    cookie = login.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and secret not in login.headers["location"]
    assert user.get("/api/games").status_code == 200
    made = user.post("/api/games", json={**LEVEL_X, "seats": ["human", "human"]})
    assert made.status_code == 200
    # a seat link is a token of its own: another player needs nothing else
    other = TestClient(app, base_url="http://10.0.0.7:8000")
    assert other.get(f"/api/play/{made.json()['seats']['1']}").status_code == 200
    program = TestClient(app, base_url="http://127.0.0.1:8000", headers={"authorization": f"token {secret}"})
    assert program.get("/api/games").status_code == 200
    wrong = TestClient(app, base_url="http://127.0.0.1:8000", headers={"authorization": "token nope"})
    assert wrong.get("/api/games").status_code == 403


# ---- no file names in requests ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    [
        "model:/etc/passwd",
        "model:/no/such/model.zip",
        "model:../../etc/hosts",
        "mcts:10:model:/etc/passwd",
        "mcts:10:model:/no/such/model.zip",
        "model:/no/such/net.npz",
        "mcts:10:model:/no/such/net.npz",
        "reference:/no/such/net.npz",
        "mcts:10:reference:/no/such/net.npz",
        "rllib:/etc",
        "rllib:/no/such/run",
    ],
)
def test_requests_cannot_name_files(client: TestClient, name: str) -> None:
    response = client.post("/api/games", json={"env_id": "level_x-v0", "seats": ["human", name]})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    # the same words whether or not a file of that name exists: only the name sent is echoed
    general = error.replace(name.split(":")[-1], "X")
    assert not any(word in general.lower() for word in ("exist", "no such file", "directory", "permission", "not a readable"))
    assert held(client) == 0
    token = start(client, "level_x-v0", ["human", "random"])["seats"]["0"]
    hint = client.post(f"/api/play/{token}/hint", json={"agent": name})
    assert hint.status_code == 400 and hint.json()["error"].replace(name.split(":")[-1], "X") == general


def test_the_same_refusal_for_existing_and_missing_files(client: TestClient, tmp_path) -> None:
    real = tmp_path / "model.zip"
    real.write_bytes(b"PK")
    answers = set()
    for path in (real, tmp_path / "missing.zip"):
        response = client.post("/api/games", json={"env_id": "level_x-v0", "seats": ["human", f"model:{path}"]})
        answers.add(response.json()["error"].replace(str(path), "P"))
    assert len(answers) == 1, answers


def _evil_model(tmp_path) -> tuple[str, str]:
    """A model file whose pickled part creates a marker file when a full load unpickles it."""
    import base64
    import pickle
    import zipfile

    marker = str(tmp_path / "ran")

    class Payload:
        def __reduce__(self):
            return (exec, (f"open({marker!r}, 'w').close()",))

    payload = base64.b64encode(pickle.dumps(Payload())).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload}}
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
    return str(path), marker


def test_trust_model_and_a_cross_site_request_run_nothing(tmp_path) -> None:
    import os

    from gameshelf.web.seats import ServedModel

    path, marker = _evil_model(tmp_path)
    app = create_app(True, models={"evil": ServedModel("evil", path)})
    client = TestClient(app, base_url=BASE)
    setup = {"env_id": "level_x-v0", "seats": ["human", "model:evil"]}
    for headers in ({**CROSS_SITE, "content-type": "text/plain"}, {**CROSS_SITE, **JSON}, {**JSON, "host": "evil.example"}):
        assert client.post("/api/games", content=json.dumps(setup).encode(), headers=headers).status_code in (403, 415)
    by_path = client.post("/api/games", json={"env_id": "level_x-v0", "seats": ["human", f"model:{path}"]})
    assert by_path.status_code == 400 and "unknown model" in by_path.json()["error"]
    by_path = client.post("/api/games", json={"env_id": "level_x-v0", "seats": ["human", f"mcts:5:model:{path}"]})
    assert by_path.status_code == 400
    assert not os.path.exists(marker) and held(client) == 0
    # the payload is real: the server's own page naming the model the server was started with loads it
    pytest.importorskip("sb3_contrib")
    own = client.post("/api/games", json=setup, headers={"origin": BASE, "sec-fetch-site": "same-origin"})
    assert own.status_code == 400 and "could not be loaded" in own.json()["error"]
    assert os.path.exists(marker)


def test_models_named_at_start_are_offered(tmp_path) -> None:
    from gameshelf.web.seats import served_models

    path, _ = _evil_model(tmp_path)
    models = served_models([f"mine={path}"])
    assert models["mine"].path == str(tmp_path / "evil.zip") and models["mine"].env_id is None
    agents = TestClient(create_app(models=models), base_url=BASE).get("/api/agents").json()
    assert agents["models"] == [{"name": "mine", "env_id": None}] and agents["max_simulations"] >= 100
    assert str(tmp_path) not in json.dumps(agents)
    for bad in ("mine", "x/y=" + path, f"mine={tmp_path / 'nope.zip'}", "=" + path):
        with pytest.raises(ValueError):
            served_models([bad])
    with pytest.raises(ValueError, match="twice"):
        served_models([f"a={path}", f"a={path}"])


# ---- reference networks and network files ------------------------------------------------------------
@pytest.fixture
def reference_dir(tmp_path, monkeypatch):
    """A temporary folder in place of the package's ``training/reference``, with a random network for Level X."""
    folder = ReferenceFolder(tmp_path, monkeypatch)
    folder.add("level_x-v0")
    return folder.path


def test_reference_seats_play_the_package_network(reference_dir, no_tracebacks) -> None:
    client = TestClient(create_app(), base_url=BASE)  # made after the folder: the catalogue is read once
    games = client.get("/api/games").json()
    assert {g["id"]: g["reference"] for g in games} == {i: i == "level_x-v0" for i in envs.registered_ids()}
    assert "reference" in client.get("/api/agents").json()["forms"]
    for seat in ("reference", "mcts:10:reference", "mcts:3:reference:heuristic"):
        token = start(client, "level_x-v0", ["human", seat], seed=1)["seats"]["0"]
        view = settled(client, token)
        hint = client.post(f"/api/play/{token}/hint", json={"agent": seat})
        assert hint.status_code == 200 and hint.json()["action"] in [m["action"] for m in view["moves"]]
        if seat == "reference":  # a whole game; the search (slower) plays a few moves
            view = play_out(client, token)
            assert view["over"] and len(view["result"]["returns"]) == 2
        else:
            view = play_a_move(client, token, view)
            assert any(line.startswith("player_1:") for line in view["log"])
    watch = start(client, "level_x-v0", ["reference", "mcts:5:reference"], seed=2)["watch"]
    view = client.get(f"/api/play/{watch}").json()
    for _ in range(6):
        view = settled(client, watch, client.post(f"/api/play/{watch}/step", json={"version": view["version"]}).json())
    assert any(line.startswith("player_0:") for line in view["log"]) and any(line.startswith("player_1:") for line in view["log"])
    for env_id in ("amoriax-v0", "olenon-v0"):
        seats = ["human"] + ["mcts:5:reference"] * (envs.spec(env_id).player_counts[0] - 1)
        response = client.post("/api/games", json={"env_id": env_id, "seats": seats})
        error = response.json()["error"]
        assert response.status_code == 400 and f"no reference network for '{env_id}'" in error and "level_x-v0" in error
        assert str(reference_dir) not in error


def test_a_served_network_file_is_a_model_seat(tmp_path, no_tracebacks) -> None:
    from gameshelf.web.seats import served_models

    path = write_net(tmp_path / "net.npz", "level_x-v0")
    models = served_models([f"net={path}"])
    assert models["net"].env_id == "level_x-v0"  # read from the file's header
    for trust in (False, True):  # --trust-model changes nothing for a network file
        client = TestClient(create_app(trust, models=models), base_url=BASE)
        assert client.get("/api/agents").json()["models"] == [{"name": "net", "env_id": "level_x-v0"}]
        for seat in ("model:net", "mcts:10:model:net"):
            token = start(client, "level_x-v0", ["human", seat], seed=3)["seats"]["0"]
            if seat == "model:net" and not trust:
                assert play_out(client, token)["over"]
            else:
                assert any(line.startswith("player_1:") for line in play_a_move(client, token)["log"])
        other = client.post("/api/games", json={"env_id": "amoriax-v0", "seats": ["human", "model:net"]})
        assert other.status_code == 400 and "model 'net' plays level_x-v0, not amoriax-v0" in other.json()["error"]
        by_path = client.post("/api/games", json={"env_id": "level_x-v0", "seats": ["human", f"model:{path}"]})
        assert by_path.status_code == 400 and "unknown model" in by_path.json()["error"]


@pytest.mark.parametrize("kind", BAD_FILES)
def test_bad_network_files_are_400s_that_name_no_file(kind, tmp_path, reference_dir, no_tracebacks) -> None:
    """A served network file or the package's reference that does not load: one 400, the file not named."""
    from gameshelf.training.agents.network_agent import reference_path
    from gameshelf.web.seats import served_models

    path = bad_net(tmp_path, kind)
    words = "amoriax-v0" if kind == "another game" else BAD_WORDS[kind]
    client = TestClient(create_app(True, models=served_models([f"bad={path}"])), base_url=BASE)
    for seat in ("model:bad", "mcts:5:model:bad"):
        response = client.post("/api/games", json={"env_id": "level_x-v0", "seats": ["human", seat]})
        error = response.json()["error"]
        assert response.status_code == 400 and words in error and str(tmp_path) not in error, error
    with open(reference_path("level_x-v0"), "wb") as shipped:
        if kind == "oversize":
            shipped.truncate(path.stat().st_size)
        else:
            shipped.write(path.read_bytes())
    for seat in ("reference", "mcts:5:reference"):
        response = client.post("/api/games", json={"env_id": "level_x-v0", "seats": ["human", seat]})
        error = response.json()["error"]
        assert response.status_code == 400 and words in error and str(tmp_path) not in error, error
        assert "the reference network of level_x-v0" in error
    assert held(client) == 0 and not (tmp_path / "ran").exists()


# ---- what the server holds ----------------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_game_in_use_survives_a_thousand_games_of_another_client() -> None:
    app = create_app()
    mine = TestClient(app, base_url=BASE, client=("127.0.0.1", 50000))
    other = TestClient(app, base_url=BASE, client=("10.9.8.7", 50001))
    made = start(mine, "matchstick_tycoon-v0", ["human"] * 8, num_players=8)
    statuses = []
    for k in range(1000):
        made_by_other = other.post("/api/games", json={"env_id": "level_x-v0", "seats": ["random", "random"], "seed": k})
        statuses.append(made_by_other.status_code)
        if k % 100 == 0:  # the person plays on now and then
            assert mine.get(f"/api/play/{made['watch']}").status_code == 200
    assert statuses.count(200) == 64 and set(statuses) == {200, 429}
    for token in [*made["seats"].values(), made["watch"]]:
        assert mine.get(f"/api/play/{token}").status_code == 200
    refused = other.post("/api/games", json={"env_id": "level_x-v0", "seats": ["random", "random"]})
    assert "the most one client may" in refused.json()["error"]
    # the same address (everyone on this machine is 127.0.0.1): the game in use survives just as well
    same = [mine.post("/api/games", json={"env_id": "level_x-v0", "seats": ["random", "random"]}).status_code for _ in range(100)]
    assert same.count(200) == 63 and all(mine.get(f"/api/play/{t}").status_code == 200 for t in made["seats"].values())


def test_eviction_takes_whole_idle_games_least_recently_used_first() -> None:
    clock = Clock()
    app = create_app(clock=clock)
    store = app.state.store
    store.games.capacity, store.games.per_client = 6, 6
    a = TestClient(app, base_url=BASE, client=("10.0.0.1", 1))
    b = TestClient(app, base_url=BASE, client=("10.0.0.2", 1))
    eight = start(a, "matchstick_tycoon-v0", ["human"] * 8, num_players=8)
    links = [*eight["seats"].values(), eight["watch"]]
    assert len(store.games) == 1 and len(store.games.tokens) == 9
    others = [start(b, "level_x-v0", ["human", "human"], seed=k) for k in range(5)]
    assert len(store.games) == 6 and len(store.games.tokens) == 9 + 5 * 3
    busy = b.post("/api/games", json=LEVEL_X)
    assert busy.status_code == 503 and "in use" in busy.json()["error"]  # every game is in use: none dropped
    clock.now += 31 * 60  # everything idle; the eight-seat game is used again, so the oldest is others[0]
    assert a.get(f"/api/play/{links[3]}").status_code == 200
    start(b, "level_x-v0", ["human", "human"])
    gone = [b.get(f"/api/play/{t}").status_code for t in [*others[0]["seats"].values(), others[0]["watch"]]]
    assert gone == [404, 404, 404]  # a whole game, every link
    assert all(a.get(f"/api/play/{t}").status_code == 200 for t in links)
    for _ in range(4):
        start(b, "level_x-v0", ["human", "human"])
    assert all(a.get(f"/api/play/{t}").status_code == 200 for t in links)  # the one in use stays
    assert len(store.games) == 6 and len(store.games.tokens) == 9 + 5 * 3


def test_eviction_never_splits_a_game() -> None:
    clock = Clock()
    app = create_app(clock=clock)
    store = app.state.store
    store.games.capacity = 3
    client = TestClient(app, base_url=BASE)
    games = []
    for k in range(12):
        games.append(start(client, "matchstick_tycoon-v0", ["human"] * 8, num_players=8, seed=k))
        clock.now += 31 * 60
        for made in games:  # looked up in the store: a request would count as a use
            alive = [t in store.games.tokens for t in [*made["seats"].values(), made["watch"]]]
            assert all(alive) or not any(alive)
        assert len(store.games.tokens) == 9 * len(store.games) <= 9 * 3
    assert all(client.get(f"/api/play/{t}").status_code == 200 for t in games[-1]["seats"].values())


def test_idle_games_expire() -> None:
    clock = Clock()
    app = create_app(clock=clock)
    client = TestClient(app, base_url=BASE)
    token = start(client, "level_x-v0", ["human", "random"])["seats"]["0"]
    clock.now += 5 * 3600
    assert client.get(f"/api/play/{token}").status_code == 200
    clock.now += 6 * 3600 + 1
    gone = client.get(f"/api/play/{token}")
    assert gone.status_code == 404 and "unused for 6 hours" in gone.json()["error"]


# ---- bounded work ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("seat", "words"),
    [
        ("mcts:1000000000", "between 1 and 5000 simulations"),
        ("mcts:5001", "between 1 and 5000 simulations"),
        ("mcts:0", "between 1 and 5000 simulations"),
        ("mcts:1e300s", "bad MCTS budget"),
        ("mcts:1e3", "bad MCTS budget"),
        ("mcts:6s", "at most 5 seconds"),
        ("mcts:99999.5s", "at most 5 seconds"),
        ("mcts:0s", "above 0"),
        ("mcts:infs", "bad MCTS budget"),
        ("mcts:nans", "bad MCTS budget"),
        ("mcts:-1", "bad MCTS budget"),
        ("mcts:" + "9" * 5000, "unknown agent"),
        ("mcts:" + "9" * 40, "between 1 and 5000 simulations"),
        ("mcts:10:wizard", "unknown agent"),
        ("x" * 10_000, "unknown agent"),
    ],
)
def test_oversized_budgets_are_refused(client: TestClient, seat: str, words: str) -> None:
    response = client.post("/api/games", json={"env_id": "level_x-v0", "seats": ["human", seat]})
    assert response.status_code == 400 and words in response.json()["error"], response.text
    assert len(response.text) < 2000
    token = start(client, "level_x-v0", ["human", "random"])["seats"]["0"]
    assert client.post(f"/api/play/{token}/hint", json={"agent": seat}).status_code == 400


@pytest.mark.parametrize(
    ("env_id", "options", "words"),
    [
        ("amoriax-v0", {"max_plies": 30_000}, "at most 20000 (lower max_plies)"),
        ("amoriax-v0", {"max_plies": 10**4000}, "max_plies=1000"),  # past what the row holds: refused by the game
        ("paiko-v0", {"max_turns": 10**6}, "lower max_turns"),
    ],
)
def test_options_that_lengthen_a_game_are_bounded(client: TestClient, env_id: str, options: dict, words: str) -> None:
    response = client.post("/api/games", json={"env_id": env_id, "options": options})
    assert response.status_code == 400 and words in response.json()["error"], response.text
    assert held(client) == 0


def test_a_long_game_within_the_bound_is_played(client: TestClient) -> None:
    start(client, "amoriax-v0", ["human", "random"], options={"max_plies": 1000})


def _long_record(max_plies: int) -> str:
    """A legal Amoriax record of random play whose option lets it run long (truncated at its limit)."""
    from gameshelf.training.agents import RandomAgent

    game = envs.make_game("amoriax-v0", max_plies=max_plies)
    episode = Episode(game, env_id="amoriax-v0")
    episode.reset(np.random.default_rng(0))
    episode.play([RandomAgent()] * 2)
    return episode.record().to_json()


def test_records_are_bounded_before_they_are_replayed(client: TestClient) -> None:
    text = _long_record(400)
    data = json.loads(text)
    data["options"]["max_plies"] = 30_000  # legal, and would replay long before the digest fails
    started = time.monotonic()
    response = client.post("/api/replays", content=json.dumps(data).encode(), headers=JSON)
    assert response.status_code == 400 and "at most 20000" in response.json()["error"], response.text
    data["options"]["max_plies"] = 400
    data["actions"] = data["actions"] * 60  # 24,000 actions
    response = client.post("/api/replays", content=json.dumps(data).encode(), headers=JSON)
    assert response.status_code == 400 and "at most 20000" in response.json()["error"], response.text
    assert time.monotonic() - started < 5
    from gameshelf.web.app import MAX_BODY

    assert MAX_BODY <= 2 * 1024 * 1024
    huge = client.post("/api/replays", content=b"[" + b"0," * (MAX_BODY // 2) + b"0]", headers=JSON)
    assert huge.status_code == 413


def test_the_longest_record_the_server_accepts_replays_in_seconds(client: TestClient) -> None:
    text = _long_record(20_000)
    length = len(json.loads(text)["actions"])
    assert length > 1000
    started = time.monotonic()
    response = client.post("/api/replays", content=text.encode(), headers=JSON)
    elapsed = time.monotonic() - started
    assert response.status_code == 200, response.text
    assert elapsed < 30, elapsed  # generous: measured about 60 us an action on an idle machine


# ---- malformed bodies: a 400 with one JSON error, no traceback --------------------------------------------
@pytest.fixture
def no_tracebacks(caplog):
    import logging

    caplog.set_level(logging.WARNING, logger="gameshelf.web")
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors]


def _bad_offender_record() -> bytes:
    game = envs.make_game("level_x-v0")
    episode = Episode(game, env_id="level_x-v0")
    episode.reset(np.random.default_rng(0))
    from gameshelf.training.agents import RandomAgent

    for _ in range(5):
        state = episode.require_state()
        episode.step(RandomAgent().act(state, state.current_player(), episode.rng))
    data = episode.record().to_dict()
    data.pop("final_digest")
    data["ending"] = {"kind": "illegal_action", "offender": 7, "action": 0}
    return json.dumps(data).encode()


MALFORMED = [
    ("/api/games", b"[" * 30_000 + b"]" * 30_000, "nested too deeply"),
    ("/api/games", b'{"env_id": "level_x-v0", "seed": ' + b"7" * 5000 + b"}", "JSON this server does not read"),
    ("/api/games", json.dumps({"env_id": "level_x-v0", "seats": ["human", "rllib:/tmp/run"]}).encode(), "unknown agent"),
    ("/api/replays", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("/api/replays", b'{"format": "gameshelf-record", "version": 2, "actions": [' + b"1" * 5000 + b"]}", "does not read"),
    ("/api/replays", _bad_offender_record(), "has 2 seats"),
    ("/api/games", b'{"env_id": "level_x-v0", "seed": 1' + b"0" * 4000 + b"}", "below 2**63"),
    ("/api/games", b'{"env_id": "level_x-v0", "seed": NaN}', "non-negative integer"),
    ("/api/games", b'{"env_id": "level_x-v0", "options": {"x": {"y": [[[[]]]]}}}', "unknown option"),
    ("/api/games", b'{"env_id": ["level_x-v0"]}', "env_id must be"),
    ("/api/games", b'{"env_id": "level_x-v0", "num_players": 1e400}', "played by"),
    ("/api/games", b"\xff\xfe{}", "not UTF-8"),
]


@pytest.mark.parametrize(("path", "body", "words"), MALFORMED, ids=[f"{p}-{w}" for p, _, w in MALFORMED])
def test_malformed_bodies_are_400s(client: TestClient, no_tracebacks, path: str, body: bytes, words: str) -> None:
    response = client.post(path, content=body, headers=JSON)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert words in error and len(error) < 1000, error
    assert held(client) == 0 and len(client.app.state.store.replays) == 0  # type: ignore[attr-defined]


def test_malformed_moves_are_400s(client: TestClient, no_tracebacks) -> None:
    token = start(client, "level_x-v0", ["human", "random"])["seats"]["0"]
    view = client.get(f"/api/play/{token}").json()
    for body, paths in (
        (b"[" * 30_000 + b"]" * 30_000, ("move", "undo", "step", "hint")),
        (b'{"action": ' + b"1" * 5000 + b', "version": 0, "agent": ' + b"2" * 5000 + b"}", ("move", "undo", "step", "hint")),
        (b'{"action": 1' + b"0" * 4000 + b', "version": 0}', ("move",)),
        (b'{"action": 1, "version": 1' + b"0" * 4000 + b"}", ("move", "undo", "step")),
        (b'{"agent": 1' + b"0" * 4000 + b"}", ("hint",)),
    ):
        for path in paths:
            response = client.post(f"/api/play/{token}/{path}", content=body, headers=JSON)
            assert 400 <= response.status_code < 500 and len(response.json()["error"]) < 1000, (path, response.text)
    for query in ("step=" + "9" * 5000, "step=1" + "0" * 4000, "seat=-" + "1" * 30):
        assert client.get(f"/api/replays/x?{query}").status_code in (400, 404)
    assert client.get(f"/api/play/{token}").json() == view


# ---- slow agents delay no one else ----------------------------------------------------------------------
def test_slow_agent_moves_do_not_delay_other_games() -> None:
    """Ten searches of 5 s each (one running on the agent worker, nine queued) delay no other game's view,
    nor a move against the heuristic: the bound (1 s) is generous for a loaded machine and far below 5 s."""
    app = create_app(settle_seconds=0)
    client = TestClient(app, base_url=BASE)
    store = app.state.store

    def timed(method: str, path: str, **kwargs) -> tuple[float, dict]:
        began = time.monotonic()
        response = client.request(method, path, **kwargs)
        assert response.status_code == 200, response.text
        return time.monotonic() - began, response.json()

    try:
        watched = [start(client, "level_x-v0", ["mcts:5s", "mcts:5s"], seed=k)["watch"] for k in range(10)]
        token = start(client, "level_x-v0", ["human", "heuristic"], seed=99)["seats"]["0"]
        idle = max(timed("GET", f"/api/play/{token}")[0] for _ in range(5))
        for watch in watched:
            _, stepped = timed("POST", f"/api/play/{watch}/step", json={"version": 0})
            assert stepped["thinking"] and not stepped["can_step"]
        assert store.workers.pending >= 8
        views = [timed("GET", f"/api/play/{token}") for _ in range(5)]
        view = views[-1][1]
        move_time, after = timed("POST", f"/api/play/{token}/move", json={"action": view["moves"][0]["action"], "version": 0})
        assert after["your_turn"] and not after["thinking"]  # the heuristic replied within the request
        # the games whose agents wait for the worker answer at once too, saying so (the last two queued: the
        # first search may have ended on a loaded machine, the ninth and tenth start 40 s later at the soonest)
        busy = [timed("GET", f"/api/play/{watch}") for watch in (watched[-2], watched[-1])]
        assert all(v["thinking"] and not v["can_step"] for _, v in busy)
        refused = client.post(f"/api/play/{watched[-1]}/step", json={"version": busy[-1][1]["version"]})
        assert refused.status_code == 409 and "still moving" in refused.json()["error"]
        worst = max(t for t, _ in views + busy)
        print(
            f"view {idle * 1000:.0f} ms with no search running; with 10 searches of 5 s queued: worst view "
            f"{worst * 1000:.0f} ms, a move and the heuristic's reply {move_time * 1000:.0f} ms"
        )
        assert worst < 1.0 and move_time < 1.0, (worst, move_time, idle)
    finally:
        for session in {held.value for held in store.games.held.values()}:
            session.close()
        store.close()


def test_a_full_queue_of_agent_moves_refuses_new_ones_and_changes_nothing() -> None:
    app = create_app(settle_seconds=0, max_jobs=1)
    client = TestClient(app, base_url=BASE)
    store = app.state.store
    try:
        token = start(client, "level_x-v0", ["human", "mcts:10"])["seats"]["0"]
        view = settled(client, token)
        first = start(client, "level_x-v0", ["mcts:1s", "mcts:1s"])["watch"]
        assert client.post(f"/api/play/{first}/step", json={"version": 0}).status_code == 200
        full = client.post(f"/api/play/{token}/move", json={"action": view["moves"][0]["action"], "version": view["version"]})
        assert full.status_code == 503 and "busy" in full.json()["error"]
        assert client.get(f"/api/play/{token}").json() == view
        settled(client, first, seconds=30)
        move = {"action": view["moves"][0]["action"], "version": view["version"]}
        assert client.post(f"/api/play/{token}/move", json=move).status_code == 200
        settled(client, token, seconds=30)
    finally:
        store.close()


def test_a_game_without_a_heuristic_agent_is_a_bad_request() -> None:
    """The web builds heuristic seats (and MCTS rollouts) with the shared ``heuristic_agent``; a game without
    one is a ``WebError`` (400) with its message."""
    from gameshelf.web.errors import WebError
    from gameshelf.web.seats import Players
    from tests.toy_nim import NIM, register_nim, unregister_nim

    register_nim()
    try:
        players = Players()
        for name in ("heuristic", "mcts:4:heuristic"):
            with pytest.raises(WebError, match=rf"no heuristic agent for '{NIM}'; games with one: \[.*'level_x-v0'") as err:
                players.build(players.parse(name), NIM)
            assert err.value.status == 400
    finally:
        unregister_nim()
    assert callable(players.build(players.parse("heuristic"), "level_x-v0").act)  # a game with one gets it


def test_mcts_moves_have_a_hard_time_cap() -> None:
    from gameshelf.training.agents.mcts import MCTSAgent

    rng = np.random.default_rng(0)
    for env_id, rollout in (("level_x-v0", None), ("amoriax-v0", "heuristic")):
        game = envs.make_game(env_id)
        state = game.new_initial_state()
        resolve_chance(state, rng)
        from gameshelf.web.seats import Players

        heuristic = Players().build(Players().parse("heuristic"), env_id) if rollout else None
        agent = MCTSAgent(simulations=10**6, rollout=heuristic, max_seconds=0.3)
        began = time.monotonic()
        action = agent.act(state, state.current_player(), rng)
        assert time.monotonic() - began < 2.0 and state.legal_action_mask()[action]
        assert 1 <= agent.last_simulations < 10**6


def test_a_seat_is_sent_the_boxes_to_click_on_its_turn_only() -> None:
    """On its turn a seat gets one target per legal move, with boxes inside its picture; a watcher gets none."""
    client = TestClient(create_app(), base_url=BASE)
    made = start(client, "olenon-v0", ["human", "heuristic", "heuristic", "heuristic"], seed=4)
    view = settled(client, made["seats"]["0"])
    while not view["your_turn"]:
        view = settled(client, made["seats"]["0"], view)
    width, height = view["image_size"]
    picture = base64.b64decode(view["image"].split(",", 1)[1])
    assert Image.open(io.BytesIO(picture)).size == (width, height)
    assert sorted(t["action"] for t in view["targets"]) == sorted(m["action"] for m in view["moves"])
    for target in view["targets"]:
        assert target["clicks"] and all(0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height for x0, y0, x1, y1 in target["clicks"])
    watched = client.get(f"/api/play/{made['watch']}").json()
    assert watched["targets"] == [] and watched["moves"] == []


def test_the_result_in_words_for_each_seat() -> None:
    from gameshelf.web.session import _result_words

    assert _result_words([1.0, -1.0], [2.0, 1.0], 0) == "You win 2\u20131"
    assert _result_words([1.0, -1.0], [2.0, 1.0], 1) == "You lose 1\u20132"
    assert _result_words([0.0, 0.0], [0.0, 0.0], 1) == "A draw"
    assert _result_words([1.0, 0.0, -0.5, -0.5], [30.0, 20.0, 5.0, 5.0], 1) == "You are 2nd of 4 (your score 20, best 30)"
    assert _result_words([1.0, 0.0, -0.5, -0.5], [30.0, 20.0, 5.0, 5.0], 3) == "You are joint 3rd of 4 (your score 5, best 30)"


def test_move_now_ends_a_search_at_once_and_only_while_an_agent_thinks() -> None:
    """``hurry``: a 30-second search plays its best move so far within a second or two; with no agent
    thinking it is refused (409) and changes nothing."""
    app = create_app(settle_seconds=0)
    client = TestClient(app, base_url=BASE)
    try:
        watch = start(client, "level_x-v0", ["mcts:5s", "mcts:5s"], seed=1)["watch"]
        view = client.get(f"/api/play/{watch}").json()
        refused = client.post(f"/api/play/{watch}/hurry", json={})
        assert refused.status_code == 409 and "no agent is thinking" in refused.json()["error"]
        assert client.get(f"/api/play/{watch}").json() == view
        stepped = client.post(f"/api/play/{watch}/step", json={"version": view["version"]}).json()
        while not stepped["thinking"]:  # a forced move (one legal action) needs no search: step again
            stepped = client.post(f"/api/play/{watch}/step", json={"version": stepped["version"]}).json()
        began = time.monotonic()
        assert client.post(f"/api/play/{watch}/hurry", json={}).status_code == 200
        after = settled(client, watch, stepped, seconds=30)
        assert not after["thinking"] and after["version"] > stepped["version"]
        assert time.monotonic() - began < 4.0  # below the 5 s the search would take
    finally:
        app.state.store.close()


# ---- a body cut off by the client --------------------------------------------------------------------------
def test_a_body_cut_off_by_the_client_leaves_no_traceback(caplog) -> None:
    """A client that declares a longer body than it sends and closes the connection gets no answer; the
    server logs one short line for it, never a traceback (a real uvicorn server and a raw socket)."""
    import logging
    import threading

    uvicorn = pytest.importorskip("uvicorn")
    app = create_app()
    token = start(TestClient(app, base_url=BASE), "level_x-v0", ["human", "random"])["seats"]["0"]
    caplog.set_level(logging.INFO)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, log_level=None, lifespan="off"))  # logging left as it is
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    paths = ["/api/games", "/api/replays", f"/api/play/{token}/move", f"/api/play/{token}/hint"]
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        for path in paths:
            with socket.create_connection(("127.0.0.1", port)) as raw:
                head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                raw.sendall(head.encode() + b'Content-Length: 1000\r\n\r\n{"env_id": ')
        cut = [r for r in caplog.records if "cut off" in r.getMessage()]
        while len(cut) < len(paths) and not any(r.exc_info for r in caplog.records):
            assert time.monotonic() < deadline, [r.getMessage() for r in caplog.records]
            time.sleep(0.02)
            cut = [r for r in caplog.records if "cut off" in r.getMessage()]
    finally:
        server.should_exit = True
        thread.join(10)
        listener.close()
    tracebacks = [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not tracebacks, tracebacks
    assert len(cut) == len(paths), [r.getMessage() for r in caplog.records]
    assert all(len(r.getMessage()) < 200 and token not in r.getMessage() for r in cut), [r.getMessage() for r in cut]
    assert not any("Traceback" in r.getMessage() for r in caplog.records)


# ---- fairness on the agent worker -----------------------------------------------------------------------------
class Gated:
    """A stand-in for a searching agent: waits for ``gate``, then notes its name in ``ran`` and plays the
    first legal move (so the order of the worker's jobs is seen without timing anything)."""

    def __init__(self, name: str, gate, ran: list[str]) -> None:
        self.name, self.gate, self.ran = name, gate, ran

    def act(self, state, seat: int, rng) -> int:
        assert self.gate.wait(30), "the gate was never opened"
        self.ran.append(self.name)
        return state.legal_actions()[0]


def gated_players(gate, ran: list[str]):
    """``Players`` whose ``mcts:...`` seats and hints are ``Gated`` agents named as asked."""
    from gameshelf.web.seats import Players

    class GatedPlayers(Players):
        def build(self, seat, env_id):
            return Gated(seat.name, gate, ran) if seat.slow else super().build(seat, env_id)

    return GatedPlayers()


def wait_for(condition, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_hints_wait_one_per_game_and_games_take_turns_on_the_agent_worker() -> None:
    """One client asks for hints in five games, twenty times in the first (one per game is queued, the rest
    are 429s); another client's agent move, asked for afterwards, runs after at most one of those hints, and a
    game with three agent moves to make lets another game's move in between its own."""
    import threading

    from gameshelf.web.errors import TooMany
    from gameshelf.web.store import Store, Workers

    gate, ran = threading.Event(), []
    workers = Workers(1, 64)
    store = Store(gated_players(gate, ran), workers)

    def made(client: str, env_id: str, seats: list[str]) -> Session:
        tokens = store.create({"env_id": env_id, "seats": seats, "seed": 1}, client)  # seed 1: player_0, player_1 first
        return store.get(tokens["watch"])[0]

    try:
        spammed = [made("spam", "level_x-v0", ["human", "random"]) for _ in range(5)]
        other = made("other", "level_x-v0", ["human", "mcts:20"])
        multi = made("third", "olenon-v0", ["mcts:3", "human", "mcts:1", "mcts:2"])
        assert all(s.state.current_player() == 0 for s in [*spammed, other]) and multi.state.current_player() == 1
        first = spammed[0].queue_hint(0, "mcts:5s", workers)
        for _ in range(19):
            with pytest.raises(TooMany, match="a hint for this game is being worked out already") as refused:
                spammed[0].queue_hint(0, "mcts:5s", workers)
            assert refused.value.status == 429
        for k, session in enumerate(spammed[1:], 1):
            session.queue_hint(0, f"mcts:{k}s", workers)
        other.move(0, other.state.legal_actions()[0], other.version)
        multi.move(1, multi.state.legal_actions()[0], multi.version)
        assert other.thinking and multi.thinking and workers.pending == 7
        gate.set()
        wait_for(lambda: not other.thinking and not multi.thinking and workers.pending == 0)
        assert first.result(30)["agent"] == "mcts:5s"
        # behind the hint already searching when it was asked for, and at most one other of that client's
        assert ran.index("mcts:20") <= 2, ran
        assert ran.index("mcts:2") < ran.index("mcts:4s") and ran.index("mcts:3") < ran.index("mcts:4s"), ran
        assert [n for n in ran if n.endswith("s")] == ["mcts:5s", "mcts:1s", "mcts:2s", "mcts:3s", "mcts:4s"], ran
        assert ran.count("mcts:20") == 1, ran
        again = spammed[0].queue_hint(0, "mcts:5s", workers)  # the first hint answered: another may be asked
        assert again.result(30)["version"] == spammed[0].version
    finally:
        gate.set()
        store.close()


def test_the_worker_takes_clients_in_turn_then_their_games() -> None:
    """The order jobs run in: clients in turn, each client's games in turn, each game's jobs in order."""
    import threading

    from gameshelf.web.store import Workers

    workers = Workers(1, 64)
    gate, ran = threading.Event(), []
    try:
        workers.submit(gate.wait, 30)
        for owner, name in [(("a", 1), "a1-1"), (("a", 1), "a1-2"), (("a", 2), "a2-1"), (("b", 3), "b3-1"), (("a", 1), "a1-3")]:
            workers.submit(ran.append, name, owner=owner)
        gate.set()
        wait_for(lambda: workers.pending == 0)
        assert ran == ["a1-1", "b3-1", "a2-1", "a1-2", "a1-3"]
    finally:
        gate.set()
        workers.shutdown()


# ---- what the last move changed ------------------------------------------------------------------------------
def _inside(boxes: list, y: int, x: int) -> bool:
    return any(x0 <= x < x1 and y0 <= y < y1 for x0, y0, x1, y1 in boxes)


@pytest.mark.parametrize("env_id", ["koplus-v0", "cargo_empire-v0"])
def test_a_view_marks_only_what_the_last_move_changed(env_id: str) -> None:
    """After a person's move and an agent's reply, the view's ``changes`` cover every pixel of the seat's
    picture that the reply changed, each box holds such a pixel, and the person's own move is not marked
    where the reply left it alone (the marks do not pile up over several moves)."""
    game = make_game(env_id, 2, {})
    session = next(
        s
        for s in (Session(env_id, game, ["human", "heuristic"], seed=k) for k in range(20))
        if all(e.player == CHANCE for e in s.log)
    )
    assert session.view(0)["changes"] == []  # nothing marked before any move
    for _ in range(20):  # moves of the person until the agent has replied
        first, moved = render_seat_image(session.state, 0), len(session.log)
        session.move(0, session.state.legal_actions()[0], session.version)
        replies = [e.index for e in session.log[moved:] if e.player == 1]
        if replies:
            break
    view = session.view(0)
    history = list(session.state.history)
    reply = max(replies)
    before = render_seat_image(game.state_from_history(history[:reply]), 0)
    after = render_seat_image(session.state, 0)
    changed = np.abs(before.astype(int) - after.astype(int)).sum(axis=2) > 60
    boxes = view["changes"]
    assert boxes and all(_inside(boxes, y, x) for y, x in zip(*np.nonzero(changed), strict=True))
    assert all(changed[y0:y1, x0:x1].any() for x0, y0, x1, y1 in boxes)
    mine = (np.abs(first.astype(int) - before.astype(int)).sum(axis=2) > 60) & ~changed
    assert any(not _inside(boxes, y, x) for y, x in zip(*np.nonzero(mine), strict=True))
    session.undo(0, session.version)
    assert session.view(0)["changes"] == []


# ---- language model seats ---------------------------------------------------------------------------------
def test_a_language_model_named_at_start_plays_a_seat_and_no_page_can_name_another() -> None:
    from tests.chat_server import ChatServer

    server = ChatServer()
    try:
        app = create_app(llms={"local": f"llm:test-model@{server.url}"})
        with TestClient(app, base_url=BASE) as web:
            assert web.get("/api/agents").json()["llms"] == ["local"]
            made = start(web, "level_x-v0", ["human", "llm:local"])
            view = play_out(web, made["seats"]["0"])
            assert view["over"] and server.requests  # the model answered every move of its seat
            assert all(body["model"] == "test-model" for _, body in server.requests)
            assert any(line.startswith("player_1:") for line in view["log"])
            assert server.url not in json.dumps(view)  # the page sees the seat's name, not the server's address
            for name in ("llm:other", f"llm:test-model@{server.url}", "llm:"):
                response = web.post("/api/games", json={"env_id": "level_x-v0", "seats": ["human", name], "seed": 0})
                assert response.status_code == 400 and "named by the server, not by an address" in response.json()["error"]
    finally:
        server.close()


def test_serve_command_refuses_a_bad_language_model(capsys) -> None:
    from gameshelf.cli import main

    for value, words in (("local", "NAME=MODEL@URL"), ("a/b=m@http://127.0.0.1:1/v1", "name 'a/b'"), ("x=m@ftp://h", "http://")):
        assert main(["serve", "--llm", value]) == 2
        assert words in capsys.readouterr().err
