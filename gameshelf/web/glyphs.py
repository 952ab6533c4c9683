"""The page's own font for the characters that move names use and many systems have no font for.

KoPlus names its tiles ＋ (U+FF0B) and コ (U+30B3); a system without CJK fonts draws them as empty boxes.
``static/glyphs.ttf`` draws just these two, as plain shapes (this file is its source, under the package's
licence); ``style.css`` uses it only for them (``unicode-range``). Rebuild it (needs ``fonttools``) with

    python -m gameshelf.web.glyphs
"""

from __future__ import annotations

from pathlib import Path

FONT = Path(__file__).parent / "static" / "glyphs.ttf"
FAMILY = "gameshelf glyphs"
EM = 1000
THICK = 90
SHAPES: dict[str, list[tuple[int, int]]] = {
    # one clockwise outline each (y up, baseline 0), a full em wide as CJK characters are
    "\uff0b": [
        (455, 740),
        (545, 740),
        (545, 425),
        (860, 425),
        (860, 335),
        (545, 335),
        (545, 20),
        (455, 20),
        (455, 335),
        (140, 335),
        (140, 425),
        (455, 425),
    ],
    "\u30b3": [
        (170, 740),
        (830, 740),
        (830, 0),
        (170, 0),
        (170, THICK),
        (830 - THICK, THICK),
        (830 - THICK, 740 - THICK),
        (170, 740 - THICK),
    ],
}
"""The characters covered, each one outline."""


def build() -> bytes:
    """The font file's bytes (the same every time: no dates in it)."""
    import io

    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    names = [".notdef"] + [f"uni{ord(ch):04X}" for ch in SHAPES]
    glyphs = {".notdef": TTGlyphPen(None).glyph()}
    for ch, points in SHAPES.items():
        pen = TTGlyphPen(None)
        pen.moveTo(points[0])
        for point in points[1:]:
            pen.lineTo(point)
        pen.closePath()
        glyphs[f"uni{ord(ch):04X}"] = pen.glyph()
    fb = FontBuilder(EM, isTTF=True)
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap({ord(ch): f"uni{ord(ch):04X}" for ch in SHAPES})
    fb.setupGlyf(glyphs)
    fb.setupHorizontalMetrics({name: (EM if name != ".notdef" else EM // 2, 0) for name in names})
    fb.setupHorizontalHeader(ascent=880, descent=-120)
    fb.setupNameTable(
        {
            "familyName": FAMILY,
            "styleName": "Regular",
            "copyright": "gameshelf (MIT licence)",
            "licenseDescription": "MIT licence, as the gameshelf package",
        }
    )
    fb.setupOS2(sTypoAscender=880, sTypoDescender=-120, usWinAscent=880, usWinDescent=120)
    fb.setupPost()
    fb.font["head"].created = fb.font["head"].modified = 0
    out = io.BytesIO()
    fb.save(out)
    return out.getvalue()


if __name__ == "__main__":
    FONT.write_bytes(build())
    print(f"wrote {FONT} ({FONT.stat().st_size} bytes)")
