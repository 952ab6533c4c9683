"""Range Ta Ludothèque's action encoding, for a sheet of ``size`` squares (``Geometry.size``), and moves as data.

| actions | meaning |
|---|---|
| ``p * size + sq``, p in 0..5 | a box: the dice assigned by ``PERMS[p]`` (size, category, mechanism), anchored at ``sq`` |
| ``6 * size + sq`` | a playmat on square ``sq`` |
| ``7 * size`` | pass (only when the sheet is full) |

A move is ``(kind, face, category, mechanism, square)``: a box (kind ``BOX``, anchor = top-left square), a
playmat (kind ``MAT``, face/category/mechanism 0) or a pass (kind ``PASS``). A box action means a move only
with the round's dice.
"""

from __future__ import annotations

from gameshelf.envs.range_ta_ludotheque.board import CATEGORY_LETTERS, MECHANISMS, PERMS, Geometry

BOX, MAT, PASS = 0, 1, 2
Move = tuple[int, int, int, int, int]
"""``(kind, face, category, mechanism, square)``: a box (kind 0, anchor = top-left square), a playmat
(kind 1, face/category/mechanism 0) or a pass (kind 2, only when the sheet is full)."""


def mat_base(size: int) -> int:
    """The first playmat action (the box actions come before it)."""
    return len(PERMS) * size


def pass_action(size: int) -> int:
    return mat_base(size) + size


def num_actions(size: int) -> int:
    return pass_action(size) + 1


def move_of_action(geom: Geometry, action: int, roll: tuple[int, int, int] | None) -> Move:
    """The move an action stands for with these dice (a box needs the dice)."""
    size = geom.size
    if action == pass_action(size):
        return (PASS, 0, 0, 0, 0)
    if action >= mat_base(size):
        return (MAT, 0, 0, 0, action - mat_base(size))
    if roll is None:
        raise ValueError("a box action needs the dice")
    i, j, k = PERMS[action // size]
    return (BOX, roll[i], roll[j], roll[k], action % size)


def move_text(geom: Geometry, move: Move) -> str:
    kind, face, cat, mech, sq = move
    if kind == PASS:
        return "pass"
    if kind == MAT:
        return f"playmat {geom.square_name(sq)}"
    return f"box {face} {CATEGORY_LETTERS[cat - 1]} {MECHANISMS[mech - 1]} {geom.square_name(sq)}"


def parse_move(geom: Geometry, text: str) -> Move:
    """Read a move as ``move_text`` writes it; ``ValueError`` naming what is wrong."""
    if not isinstance(text, str):
        raise ValueError(f"a move is a string like 'box 6 P Deduction r4c0', got {text!r}")
    parts = text.split()
    if parts == ["pass"]:
        return (PASS, 0, 0, 0, 0)
    if len(parts) == 2 and parts[0] == "playmat":
        return (MAT, 0, 0, 0, geom.parse_square(parts[1]))
    if len(parts) == 5 and parts[0] == "box":
        face, letter, mech, square = parts[1:]
        if face not in {"1", "2", "3", "4", "5", "6"}:
            raise ValueError(f"unknown size face {face!r} in {text!r} (1..6)")
        if letter.upper() not in CATEGORY_LETTERS:
            raise ValueError(f"unknown category {letter!r} in {text!r}; categories: {CATEGORY_LETTERS}")
        lower = [m.lower() for m in MECHANISMS]
        if mech.lower() not in lower:
            raise ValueError(f"unknown mechanism {mech!r} in {text!r}; mechanisms: {MECHANISMS}")
        return (
            BOX,
            int(face),
            CATEGORY_LETTERS.index(letter.upper()) + 1,
            lower.index(mech.lower()) + 1,
            geom.parse_square(square),
        )
    raise ValueError(f"move {text!r} should look like 'box 6 P Deduction r4c0', 'playmat r0c2' or 'pass'")
