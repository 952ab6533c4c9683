"""Every character a game shows can be drawn: in the page (a common system font, DejaVu Sans, or the page's
own ``static/glyphs.ttf``) and in the server's PNG pictures (Pillow's built-in font)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import ImageDraw, ImageFont

from gameshelf import envs
from gameshelf.envs.core.episode import Episode
from gameshelf.envs.core.rendering import render_seat_image
from gameshelf.training.agents import RandomAgent
from gameshelf.web import glyphs

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def positions(env_id: str, moves: int = 12):
    """The positions of a short random game (one per move)."""
    episode = Episode(envs.make_game(env_id), env_id=env_id)
    rng = np.random.default_rng(0)
    episode.reset(rng)
    for _ in range(moves):
        if episode.done:
            return
        state = episode.require_state()
        yield state
        episode.step(RandomAgent().act(state, state.current_player(), rng))


def cmap(path: Path) -> set[int]:
    from fontTools.ttLib import TTFont

    with TTFont(str(path)) as font:
        return set(font.getBestCmap())


def test_the_shipped_font_is_built_from_its_source() -> None:
    pytest.importorskip("fontTools")
    assert glyphs.FONT.read_bytes() == glyphs.build()
    assert cmap(glyphs.FONT) == {ord(ch) for ch in glyphs.SHAPES}
    assert glyphs.FONT.stat().st_size < 4096
    css = (glyphs.FONT.parent / "style.css").read_text(encoding="utf-8")
    assert f'font-family: "{glyphs.FAMILY}"' in css and "/static/glyphs.ttf" in css


@pytest.mark.parametrize("env_id", envs.registered_ids())
def test_move_names_and_texts_need_no_font_beyond_dejavu_and_the_pages_own(env_id: str) -> None:
    """What the page shows as text (move names, the seat's text) is in DejaVu Sans, the font of a bare
    system, or in the page's own font (KoPlus's ＋ and コ)."""
    pytest.importorskip("fontTools")
    if not DEJAVU.exists():
        pytest.skip("DejaVu Sans is not installed")
    known = cmap(DEJAVU) | cmap(glyphs.FONT) | {ord("\n")}
    shown = set()
    for state in positions(env_id):
        shown |= set(state.seat_text(0)) | set(state.to_text())
        shown |= {ch for a in state.legal_actions() for ch in state.action_to_string(a)}
    assert not {ch for ch in shown if ord(ch) not in known}, env_id


@pytest.mark.parametrize("env_id", envs.registered_ids())
def test_pictures_draw_only_characters_their_font_has(env_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The PNG pictures use Pillow's built-in font, which draws a missing character as an empty box: every
    character a picture draws has a glyph of its own."""
    drawn: set[str] = set()
    text = ImageDraw.ImageDraw.text

    def noting(self, xy, words, *args, **kwargs):
        drawn.update(str(words))
        return text(self, xy, words, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", noting)
    for state in positions(env_id):
        state.render_image()
        render_seat_image(state, 0)
    font = ImageFont.load_default(size=20)
    missing = bytes(font.getmask("\uffff"))
    boxes = {ch for ch in drawn if ch.strip() and bytes(font.getmask(ch)) == missing}
    assert not boxes, (env_id, sorted(boxes))
