"""End to end in a real headless Chromium: ``gameshelf serve`` played by clicking.

Needs the ``playwright`` Python package and a system Chromium (Debian: ``apt-get install chromium``; the
path can be set with ``GAMESHELF_CHROMIUM``). Playwright's own browser download is never used. Skipped
when either is missing. ``GAMESHELF_SCREENSHOTS=docs/images`` writes the README's screenshots there.

One browser, four tabs: a full game of Level X and a full game of Olenon played at the same time in two
tabs (two sessions), a second tab on the Level X game whose stale click is refused, and the replay of the
finished Olenon game uploaded and stepped through. On every Olenon page the test checks that no other
seat's hand is shown, in the page and in everything the server sent.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

CHROMIUM = os.environ.get("GAMESHELF_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    pytest.skip("no system Chromium (apt-get install chromium, or set GAMESHELF_CHROMIUM)", allow_module_level=True)

from gameshelf.web.app import create_app  # noqa: E402

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
OTHER_HAND = re.compile(r"^Seat [123] \[.*  hand:", re.MULTILINE)
OTHER_DEAL = re.compile(r"deal a \d to seat [123]")


@contextlib.contextmanager
def serving(app) -> Iterator[str]:
    """``app`` on uvicorn in a thread, on a free port of 127.0.0.1; yields its address."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not srv.started:
        assert time.time() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving(create_app()) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


def new_game(page, base: str, env_id: str, seats: list[str], seed: int, options: dict | None = None) -> None:
    page.goto(base + "/")
    page.select_option("#game", env_id)
    for name, value in (options or {}).items():
        page.fill(f"[data-option='{name}']", json.dumps(value))
    for seat, name in enumerate(seats):
        page.fill(f"[data-seat='{seat}']", name)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#play:not([hidden])")
    until(page, "document.body.dataset.version !== undefined")


def until(page, expression: str, seconds: float = 30) -> None:
    """Wait until the JavaScript ``expression`` is true in ``page``. Evaluated through the browser's
    debugging protocol: ``wait_for_function`` evaluates with ``eval`` in the page, which the page's own
    Content-Security-Policy forbids (as it should)."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        time.sleep(0.05)


def version(page) -> int:
    return int(page.evaluate("document.body.dataset.version"))


def over(page) -> bool:
    return bool(page.evaluate("document.body.dataset.over === 'true'"))


def click_move(page, which: int = 0) -> None:
    """Click a move button and wait for the page to show the position after it."""
    before = version(page)
    buttons = page.locator("button.move")
    buttons.nth(which % buttons.count()).click()
    until(page, f"Number(document.body.dataset.version) > {before} || !document.getElementById('error').hidden")


def check_olenon_page(page, sent: list[dict]) -> None:
    text = page.inner_text("#text")
    assert "Seat 0 [" in text and "  hand:" in text  # the person's own hand is shown
    assert not OTHER_HAND.search(text), text
    body = page.inner_text("body")
    assert not OTHER_HAND.search(body) and not OTHER_DEAL.search(body)
    for view in sent:
        assert view.get("seat") == 0 and not OTHER_HAND.search(view["text"])
        assert not any(OTHER_DEAL.search(line) for line in view["log"])


def screenshot(page, name: str, tmp_path: Path) -> Path:
    folder = Path(os.environ.get("GAMESHELF_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.screenshot(path=str(path))
    from PIL import Image

    with Image.open(path) as shot:  # a palette PNG: a fraction of the size, same picture for a README
        shot.convert("RGB").quantize(colors=128).save(path, optimize=True)
    assert path.stat().st_size > 10_000
    return path


def test_play_level_x_and_olenon_by_clicking(server: str, browser, tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 820}, accept_downloads=True)
    level_x, olenon = context.new_page(), context.new_page()
    sent: list[dict] = []

    def keep(response) -> None:
        if "/api/play/" in response.url and response.ok and "/record" not in response.url:
            data = response.json()
            if "text" in data:
                sent.append(data)

    olenon.on("response", keep)
    new_game(level_x, server, "level_x-v0", ["human", "heuristic"], seed=1)
    new_game(olenon, server, "olenon-v0", ["human", "heuristic", "heuristic", "heuristic"], seed=2)
    assert level_x.url != olenon.url  # two sessions

    # hint, then undo of the person's own move
    level_x.click("#hint")
    until(level_x, "document.getElementById('hint-text').textContent.includes('suggests')")
    assert level_x.locator("button.move.hinted").count() == 1
    text_before = level_x.inner_text("#text")
    click_move(level_x, -1)
    assert level_x.is_visible("#undo")
    before = version(level_x)
    level_x.click("#undo")
    until(level_x, f"Number(document.body.dataset.version) > {before}")
    assert level_x.inner_text("#text") == text_before

    # a second tab on the same seat: its click after the position changed is refused
    stale = context.new_page()
    stale.goto(level_x.url)
    stale.wait_for_selector("button.move")
    click_move(level_x, -1)
    before = version(stale)
    stale.locator("button.move").first.click()
    stale.wait_for_selector("#error:not([hidden])")
    assert "position changed" in stale.inner_text("#error")
    until(stale, f"Number(document.body.dataset.version) > {before}")
    assert stale.inner_text("#text") == level_x.inner_text("#text")
    stale.close()

    # both games to the end, a move in one tab then the other
    shots = 0
    for turn in range(400):
        if over(level_x) and over(olenon):
            break
        if not over(level_x):
            click_move(level_x, -1)
        if not over(olenon):
            check_olenon_page(olenon, sent)
            click_move(olenon, turn)
            if turn == 4:
                screenshot(olenon, "web-olenon.png", tmp_path)
                shots += 1
        if turn == 6 and not over(level_x):
            screenshot(level_x, "web-level_x.png", tmp_path)
            shots += 1
    assert over(level_x) and over(olenon)
    for page in (level_x, olenon):
        assert page.is_visible("#result") and "Result:" in page.inner_text("#result")
        assert page.locator("button.move").count() == 0
        assert page.is_hidden("#error"), page.inner_text("#error")
    check_olenon_page(olenon, sent)
    assert len(sent) >= 5 and shots == 2

    # the finished Olenon game: download its record, open it as a replay, step through it
    with olenon.expect_download() as download:
        olenon.click("#record")
    record_path = tmp_path / "olenon.json"
    download.value.save_as(record_path)
    length = len(json.loads(record_path.read_text())["actions"])
    olenon.goto(server + "/")
    olenon.set_input_files("#record-file", str(record_path))
    olenon.click("#open-record")
    olenon.wait_for_selector("#replay:not([hidden])")
    until(olenon, "document.body.dataset.step === '0'")
    olenon.click("#next")
    until(olenon, "document.body.dataset.step === '1'")
    olenon.click("#last")
    until(olenon, f"document.body.dataset.step === '{length}'")
    assert f"step {length} of {length} - over" in olenon.inner_text("#replay-status")

    # a corrupt record is refused with a message
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "gameshelf-record", "actions": [')
    olenon.goto(server + "/")
    olenon.set_input_files("#record-file", str(broken))
    olenon.click("#open-record")
    olenon.wait_for_selector("#error:not([hidden])")
    assert "invalid or truncated JSON" in olenon.inner_text("#error")
    context.close()


EVIL_PAGE = """<!doctype html><html><body>
<form id="form" method="POST" action="TARGET/api/games" enctype="text/plain" target="sink">
<input name='{"env_id": "level_x-v0", "seats": ["human", "random"], "x": "' value='"}'></form>
<iframe name="sink"></iframe>
<iframe id="framed" src="TARGET/"></iframe>
<script>
window.results = [];
const body = JSON.stringify({env_id: "level_x-v0", seats: ["human", "random"]});
async function attack() {
  try { await fetch("TARGET/api/games", {method: "POST", mode: "no-cors", headers: {"content-type": "text/plain"}, body});
        results.push("no-cors sent"); } catch (e) { results.push("no-cors failed"); }
  try { const r = await fetch("TARGET/api/games", {method: "POST", headers: {"content-type": "application/json"}, body});
        results.push("json " + r.status); } catch (e) { results.push("json blocked"); }
  try { const r = await fetch("TARGET/api/games"); results.push("read " + (await r.text()).length); }
  catch (e) { results.push("read blocked"); }
  document.getElementById("form").submit();
  results.push("done");
}
</script></body></html>"""


def test_another_site_cannot_drive_read_or_frame_the_server(browser, tmp_path: Path) -> None:
    """A page on another site (``localhost`` is another site than ``127.0.0.1``) tries what any page can:
    a no-cors POST, a JSON POST (needs a preflight), a cross-origin read, a form post, a frame."""
    import http.server

    app = create_app()
    with serving(app) as target:
        (tmp_path / "evil.html").write_text(EVIL_PAGE.replace("TARGET", target))
        handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(tmp_path))  # noqa: E731
        handler.log_message = lambda *a: None  # type: ignore[attr-defined]
        evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=evil.serve_forever, daemon=True).start()
        try:
            context = browser.new_context()
            page = context.new_page()
            page.goto(f"http://localhost:{evil.server_address[1]}/evil.html")
            page.evaluate("attack()")
            until(page, "window.results.includes('done')")
            page.wait_for_timeout(1500)  # the form post and the frame
            results = page.evaluate("window.results")
            assert "json blocked" in results and "read blocked" in results, results
            assert len(app.state.store.games) == 0
            assert len(page.frames) == 3  # the page, the form's sink, the frame of the server's page...
            loaded = [f for f in page.frames if f.parent_frame is not None and f.query_selector("#setup") is not None]
            assert not loaded, [f.url for f in page.frames]  # ...which stays empty (frame-ancestors 'none')
            context.close()
        finally:
            evil.shutdown()


SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 820}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
BOARD_GAMES = {
    "level_x-v0": ["human", "heuristic"],
    "olenon-v0": ["human", "heuristic", "heuristic", "heuristic"],
    "amoriax-v0": ["human", "heuristic"],
    "catsle_builders-v0": ["human", "heuristic", "heuristic"],
    "cargo_empire-v0": ["human", "heuristic"],
    "paiko-v0": ["human", "heuristic"],
    "koplus-v0": ["human", "heuristic"],
    "range_ta_ludotheque-v0": ["human", "heuristic"],
    "tsukuru_ten_ten-v0": ["human", "heuristic"],
    "matchstick_tycoon-v0": ["human", "heuristic"],
}
"""The games whose picture can be clicked, each with its seats (a person in seat 0)."""
BOARD_OPTIONS = {"paiko-v0": {"max_turns": 12}}
"""Options that keep a game short enough to click through (Paikō: a draw after 12 turns at the latest)."""
LONG_GAMES = {"catsle_builders-v0"}
"""Games of over a hundred clicks (40 s each in Chromium): in the slow tier."""
BOARD_CASES = [
    pytest.param(env_id, size, marks=[pytest.mark.slow] if env_id in LONG_GAMES else [])
    for env_id in BOARD_GAMES
    for size in sorted(SIZES)
]


def press(page, locator, touch: bool) -> None:
    (locator.tap if touch else locator.click)()


def click_on_board(page, rng, touch: bool) -> None:
    """Make one move by clicking its parts on the board (and its confirm button when a longer move could
    follow): the legal targets are highlighted, and the clicked parts stay marked until the move is sent."""
    before = version(page)
    for _ in range(20):
        if version(page) > before or not page.is_hidden("#error"):
            return
        targets = page.locator("#targets .target.legal")
        count = targets.count()
        assert count > 0, "no legal target is highlighted on the board"
        picked = int(page.evaluate("document.body.dataset.picked"))
        if page.is_visible("#confirm") and (count == 0 or rng.random() < 0.5):
            press(page, page.locator("#confirm"), touch)
        else:
            press(page, targets.nth(int(rng.integers(count))), touch)
            until(
                page,
                f"Number(document.body.dataset.version) > {before} || Number(document.body.dataset.picked) > {picked}"
                " || !document.getElementById('error').hidden",
            )
            if version(page) == before and page.is_hidden("#error"):
                assert page.locator("#targets .target.picked").count() >= 1  # the part stays marked
                continue
        until(page, f"Number(document.body.dataset.version) > {before} || !document.getElementById('error').hidden")
    assert version(page) > before, "the clicks made no move"


@pytest.mark.parametrize(("env_id", "size"), BOARD_CASES)
def test_play_a_whole_game_by_clicking_the_board(server: str, browser, tmp_path: Path, env_id: str, size: str) -> None:
    """A whole game from the first move to the end by clicks (taps on a phone) on the board only; a stale
    click is refused; at phone width the board's frame fits the screen and the controls sit right under it;
    no other seat's hand reaches the Olenon page."""
    import numpy as np

    rng = np.random.default_rng(5)
    touch = size == "phone"
    context = browser.new_context(**SIZES[size])
    seats = BOARD_GAMES[env_id]
    page = context.new_page()
    sent: list[dict] = []
    page.on(
        "response",
        lambda r, sent=sent: sent.append(r.json()) if "/api/play/" in r.url and r.ok and "/record" not in r.url else None,
    )
    new_game(page, server, env_id, seats, seed=3, options=BOARD_OPTIONS.get(env_id))
    width = SIZES[size]["viewport"]["width"]
    frame = page.locator("#frame").bounding_box()  # on a phone the picture may be larger, panned in its frame
    assert frame is not None and frame["x"] >= 0 and frame["x"] + frame["width"] <= width + 1
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if touch:
        bar = page.locator("#bar").bounding_box()
        assert bar is not None and bar["y"] < SIZES[size]["viewport"]["height"], bar  # no scrolling past the board
    # a second tab on the same seat: after a move in the first, its click is refused and it catches up
    stale = context.new_page()
    stale.goto(page.url)
    until(stale, "Number(document.body.dataset.targets) > 0")
    click_on_board(page, rng, touch)
    for _ in range(8):  # click parts until the stale page sends a move
        picked = int(stale.evaluate("document.body.dataset.picked"))
        press(stale, stale.locator("#targets .target.legal").first, touch)
        until(stale, f"Number(document.body.dataset.picked) > {picked} || !document.getElementById('error').hidden")
        if not stale.is_hidden("#error"):
            break
        if stale.is_visible("#confirm"):
            press(stale, stale.locator("#confirm"), touch)
            break
    stale.wait_for_selector("#error:not([hidden])")
    assert "position changed" in stale.inner_text("#error")
    stale.close()
    for turn in range(600):
        if over(page):
            break
        until(page, "document.body.dataset.over === 'true' || Number(document.body.dataset.targets) > 0")
        if over(page):
            break
        click_on_board(page, rng, touch)
        assert page.is_hidden("#error"), page.inner_text("#error")
        if turn == 3:
            screenshot(page, f"web-board-{env_id.removesuffix('-v0')}-{size}.png", tmp_path)
        if env_id == "olenon-v0":
            check_olenon_page(page, [v for v in sent if "text" in v])
    assert over(page) and "Result: " in page.inner_text("#result")
    assert page.locator("#targets .target").count() == 0
    until(page, "Number(document.body.dataset.changes) > 0")  # what a move changed was marked on the board
    page.close()
    context.close()


# ---- a phone's screen, the page's own glyphs, the marks of what changed ----------------------------------------
def legal_target_sizes(page) -> list[float]:
    """The smaller side, in CSS pixels, of each part of the picture highlighted to click."""
    return page.evaluate(
        "[...document.querySelectorAll('#targets .target.legal')].map((b) => {"
        " const r = b.getBoundingClientRect(); return Math.min(r.width, r.height); })"
    )


@pytest.mark.parametrize("env_id", [e for e in BOARD_GAMES if e not in LONG_GAMES])
def test_parts_to_click_are_40_px_or_more_on_a_phone(server: str, browser, env_id: str) -> None:
    """At 390 px wide every part of the picture to click (Paikō's reserve, KoPlus's orientation buttons, Cargo
    Empire's cards, ...) is 40 px or more on each side for the first turns; the picture pans in its frame,
    the page itself never scrolls sideways, and "Whole board" fits the picture to the screen again."""
    import numpy as np

    rng = np.random.default_rng(1)
    context = browser.new_context(**SIZES["phone"])
    page = context.new_page()
    new_game(page, server, env_id, BOARD_GAMES[env_id], seed=3, options=BOARD_OPTIONS.get(env_id))
    sizes: list[float] = []
    for _ in range(3):
        until(page, "document.body.dataset.over === 'true' || Number(document.body.dataset.targets) > 0")
        if over(page):
            break
        sizes += legal_target_sizes(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        click_on_board(page, rng, touch=True)
        sizes += legal_target_sizes(page)
    assert sizes and min(sizes) >= 40, sorted(sizes)[:5]
    page.click("#zoom")  # the whole picture at once (its parts smaller), and back
    picture = page.locator("#picture").bounding_box()
    assert picture is not None and picture["width"] <= 390
    page.click("#zoom")
    until(page, "document.getElementById('picture').getBoundingClientRect().width > 390")
    context.close()


def test_koplus_tiles_are_drawn_with_the_pages_own_font(server: str, browser) -> None:
    """KoPlus's move names use ＋ and コ, which a system without CJK fonts draws as empty boxes: the page
    ships a font for just those two, and the browser loads it for the move list and the text."""
    context = browser.new_context(**SIZES["desktop"])
    page = context.new_page()
    new_game(page, server, "koplus-v0", BOARD_GAMES["koplus-v0"], seed=3)
    until(page, "document.querySelectorAll('button.move').length > 0")
    names = page.locator("button.move").all_inner_texts()
    assert any("\uff0b" in n or "\u30b3" in n for n in names), names
    faces = page.evaluate(
        "async () => { await document.fonts.ready;"
        " return [...document.fonts].map((f) => [f.family.replaceAll('\"', ''), f.status, f.unicodeRange]); }"
    )
    glyphs = [f for f in faces if f[0] == "gameshelf glyphs"]
    assert glyphs and glyphs[0][1] == "loaded", faces
    assert "U+30B3" in glyphs[0][2].upper() and "U+FF0B" in glyphs[0][2].upper()
    context.close()


def test_what_changed_is_marked_apart_from_the_parts_to_click_and_fades(server: str, browser) -> None:
    """The marks of what the last position changed are dashed and blue, unlike the solid gold parts to
    click, and fade out completely."""
    import numpy as np

    context = browser.new_context(**SIZES["desktop"])
    page = context.new_page()
    new_game(page, server, "koplus-v0", BOARD_GAMES["koplus-v0"], seed=3)
    until(page, "Number(document.body.dataset.targets) > 0")
    click_on_board(page, np.random.default_rng(0), touch=False)
    until(page, "document.querySelectorAll('#changes .changed').length > 0 && Number(document.body.dataset.targets) > 0")
    style = page.evaluate(
        """() => {
          const look = (e) => { const s = getComputedStyle(e); return [s.borderTopStyle, s.borderTopColor]; };
          return [look(document.querySelector('#changes .changed')), look(document.querySelector('#targets .target.legal'))];
        }"""
    )
    (mark_style, mark_colour), (target_style, target_colour) = style
    assert mark_style == "dashed" and target_style == "solid" and mark_colour != target_colour, style
    opacity = page.evaluate(
        "() => { for (const a of document.getAnimations()) a.finish();"
        " return [...document.querySelectorAll('#changes .changed')].map((e) => getComputedStyle(e).opacity); }"
    )
    assert opacity and all(float(o) == 0 for o in opacity), opacity
    context.close()
