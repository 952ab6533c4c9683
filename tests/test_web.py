"""The browser app (``gameshelf serve``) through Starlette's test client, and ``gameshelf replay --gif``.

What a seat is sent is checked to hold nothing it may not know: the same for the real position and for
any redeal of the other seats' hidden information.
"""

from __future__ import annotations

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

from gameshelf.training.web.app import create_app  # noqa: E402
from gameshelf.training.web.session import LogEntry, Session, log_entry, make_game  # noqa: E402

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
    hint = client.post(f"/api/play/{token}/hint", json={"agent": "heuristic"}).json()
    assert hint["action"] in [m["action"] for m in view["moves"]] and hint["name"]
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
    import gameshelf.training.web.session as web_session

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
    from gameshelf.training.web.app import MAX_BODY

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
