"""``RowLayout``: a kernel state row declared once (offsets, fill, bounds, State attributes, the card's table)."""

from __future__ import annotations

import numpy as np
import pytest

from gameshelf.envs.core.row import STATE_DTYPE, RowLayout


def toy_layout() -> RowLayout:
    row = RowLayout("toy")
    row.add("cells", (3, 4), "a per-seat table", (0, 9), per_seat=True)
    row.add("pile", 5, "counts", (0, 40))
    row.add("turn", 1, "seat to move", (-1, 2), fill=-1)
    row.add("score", 3, "each seat's score", (0, 99), per_seat=True)
    row.flag("over", "the game is over")
    return row


class ToyGame:
    num_players = 2


class ToyState:
    ROW = toy_layout()
    cells = ROW.field("cells")
    pile = ROW.field("pile")
    turn = ROW.field("turn")
    score = ROW.field("score")
    over = ROW.field("over")

    def __init__(self) -> None:
        self.game = ToyGame()
        self.s = self.ROW.new_row()


def test_offsets_are_consecutive_and_the_size_adds_up():
    row = toy_layout()
    assert [(f.name, f.offset, f.size) for f in row] == [
        ("cells", 0, 12),
        ("pile", 12, 5),
        ("turn", 17, 1),
        ("score", 18, 3),
        ("over", 21, 1),
    ]
    assert row.size == 22


def test_a_new_row_holds_every_fill():
    s = toy_layout().new_row()
    assert s.dtype == STATE_DTYPE and s.shape == (22,)
    assert s[17] == -1 and not s[:17].any() and not s[18:].any()


def test_state_attributes_read_and_write_the_row_and_refuse_out_of_range_values_by_name():
    state = ToyState()
    assert state.cells.tolist() == [[0] * 4, [0] * 4]  # one row per player, not per declared seat
    assert state.score.tolist() == [0, 0]
    state.score = [3, 99]
    assert state.s[18:21].tolist() == [3, 99, 0]
    state.cells[1][2] = 9
    state.pile = [1, 2, 3, 4, 40]
    state.turn = 1
    state.over = True
    assert state.s[6] == 9 and state.s[12:17].tolist() == [1, 2, 3, 4, 40] and state.turn == 1 and state.over is True
    before = state.s.copy()
    for write in (
        lambda: setattr(state, "turn", 3),
        lambda: state.cells[0].__setitem__(0, 10),
        lambda: setattr(state, "pile", [0, 0, 0, 0, 41]),
        lambda: setattr(state, "cells", [[1] * 4, [0, 0, -1, 0]]),
    ):
        with pytest.raises(ValueError, match=r"toy: (turn|cells|pile) holds"):
            write()
        assert np.array_equal(state.s, before)  # a refused write changes nothing


def test_check_names_the_first_entry_out_of_bounds():
    row = toy_layout()
    s = row.new_row()
    row.check(s)
    s[12 + 3] = 41
    with pytest.raises(ValueError, match=r"toy: pile\[3\] holds 0\.\.40, got 41"):
        row.check(s)
    with pytest.raises(ValueError, match="22 entries"):
        row.check(s[:5])


def test_a_tail_takes_the_rest_of_a_longer_row_and_must_come_last():
    row = RowLayout("toy")
    row.add("turn", 1, "seat to move", (0, 1))
    assert row.tail("log", 4, "the moves played", (0, 99)) == 1 and row.size == 5
    longer = np.zeros(9, dtype=STATE_DTYPE)
    row.check(longer)  # a longer row: the tail's entries go on to its end
    longer[8] = 100
    with pytest.raises(ValueError, match=r"toy: log\[7\] holds 0..99, got 100"):
        row.check(longer)
    with pytest.raises(ValueError, match="5 or more entries"):
        row.check(np.zeros(4, dtype=STATE_DTYPE))
    assert "| `log` | 4 or more | 1–end | 0..99 |" in row.table()
    with pytest.raises(ValueError, match="after the tail 'log'"):
        row.add("late", 1, "a field after the tail", (0, 1))


def test_put_refuses_a_value_or_a_count_that_does_not_fit():
    row = toy_layout()
    s = row.new_row()
    row.put(s, "pile", [5] * 5)
    with pytest.raises(ValueError, match=r"pile holds 0\.\.40, got 50"):
        row.put(s, "pile", [50] * 5)
    with pytest.raises(ValueError, match="pile has 5 entries, got 2"):
        row.put(s, "pile", [1, 2])
    assert s[12:17].tolist() == [5] * 5


@pytest.mark.parametrize(
    "args, message",
    [
        (("cells", 3, "again", (0, 1)), "declared twice"),
        (("x", 0, "empty", (0, 1)), "positive count"),
        (("x", 1, "wide", (0, 40000)), "not within"),
        (("x", 1, "fill", (0, 3)), None),
    ],
)
def test_bad_declarations_are_refused(args, message):
    row = toy_layout()
    if message is None:
        with pytest.raises(ValueError, match="fill 7 is outside"):
            row.add(*args, fill=7)
    else:
        with pytest.raises(ValueError, match=message):
            row.add(*args)


def test_the_table_lists_every_field_with_offsets_and_ranges():
    table = toy_layout().table()
    assert "| `cells` | 3 × 4 (per seat) | 0–11 | 0..9 | a per-seat table |" in table
    assert "| `turn` | 1 | 17 | -1..2 | seat to move |" in table
    assert "| `score` | 3 (per seat) | 18–20 | 0..99 | each seat's score |" in table
    assert "| `over` | 1 | 21 | 0/1 | the game is over |" in table
    assert "| total | 22 | | int16 | |" in table
