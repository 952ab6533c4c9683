"""Tsukuru 10 Ten: tiles and sets, the pure hand evaluation (value 10, bonuses and their exclusions),
every rule through positions built with the position builder, the worked examples, every option both
ways, hidden information, observation, text, image and the heuristic agent.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gameshelf import envs
from gameshelf.envs import testing
from gameshelf.envs.core.game import CHANCE, TERMINAL, IllegalActionError, random_playout
from gameshelf.envs.tsukuru_ten_ten import actions as act
from gameshelf.envs.tsukuru_ten_ten import kernel as K
from gameshelf.envs.tsukuru_ten_ten.actions import (
    DEAL,
    DISCARDING,
    DRAWING,
    FIRST_DEALER,
    OVER,
    PHASE_NAMES,
    PICK_COLOUR,
    TURN,
)
from gameshelf.envs.tsukuru_ten_ten.game import TsukuruTenTenGame, TsukuruTenTenState
from gameshelf.envs.tsukuru_ten_ten.hand import (
    HAND_SIZE,
    OpenSet,
    bonuses,
    has_straight,
    is_winning,
    score_win,
    size_class,
    winning_configurations,
)
from gameshelf.envs.tsukuru_ten_ten.observation import LAYOUT
from gameshelf.envs.tsukuru_ten_ten.resample import ARRIVE, SHOWN, read_rounds
from gameshelf.envs.tsukuru_ten_ten.tiles import (
    BLUE,
    COLOUR,
    COPIES,
    NAMES,
    NUM_KINDS,
    NUM_TILES,
    PURPLE,
    RED,
    SET_SHAPES,
    VALUE,
    counts_of,
    parse_tile,
    shapes_of,
)

B, R = BLUE, RED

# ---- helpers -------------------------------------------------------------------------------------


def tiles(text: str) -> list[int]:
    return [parse_tile(t) for t in text.split()]


def counts(text: str) -> list[int]:
    return counts_of(tiles(text))


def open_set(text: str, colour: int | None = None) -> OpenSet:
    kinds = tuple(sorted(tiles(text)))
    shapes = shapes_of(kinds)
    assert shapes, text
    return OpenSet(kinds, shapes[0].colour if colour is None else colour)  # type: ignore[arg-type]


def do(state: TsukuruTenTenState, *moves: str) -> None:
    for move in moves:
        state.apply_action(state.game.string_to_action(state, move))


def legal_names(state: TsukuruTenTenState) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def position(
    n: int = 2,
    hands: list[str] | None = None,
    open_sets: list[list[tuple[str, str]]] | None = None,
    discards: list[str] | None = None,
    claimable: list[bool] | None = None,
    phase: str = "turn",
    turn: int = 0,
    dealer: int = 0,
    drawn: str | None = None,
    deck: str | None = None,
    scores: list[int] | None = None,
    turns_taken: list[int] | None = None,
    rounds_played: int = 0,
    dealer_counts: list[int] | None = None,
    pending: str | None = None,
) -> dict:
    """A position dict; the deck defaults to every tile not placed elsewhere."""
    hands = hands or [""] * n
    open_sets = open_sets or [[] for _ in range(n)]
    discards = discards or [""] * n
    used = [0] * NUM_KINDS
    for text in [*hands, *discards, pending or ""]:
        for k in tiles(text):
            used[k] += 1
    for sets in open_sets:
        for text, _ in sets:
            for k in tiles(text):
                used[k] += 1
    deck_tiles = [NAMES[k] for k in range(NUM_KINDS) for _ in range(COPIES[k] - used[k])] if deck is None else deck.split()
    if dealer_counts is None:
        dealer_counts = [0] * n
        dealer_counts[dealer] = rounds_played + 1
    return {
        "phase": phase,
        "dealer": dealer,
        "turn": turn,
        "hands": [h.split() for h in hands],
        "open_sets": [[{"tiles": t.split(), "colour": c} for t, c in sets] for sets in open_sets],
        "pending": pending.split() if pending else None,
        "discards": [d.split() for d in discards],
        "claimable": claimable if claimable is not None else [bool(d) for d in discards],
        "deck": deck_tiles,
        "drawn": drawn,
        "scores": scores or [0] * n,
        "dealer_counts": dealer_counts,
        "turns_taken": turns_taken or [3] * n,
        "rounds_played": rounds_played,
        "last_round": "",
    }


def build(pos: dict, **options) -> TsukuruTenTenState:
    options.setdefault("num_players", len(pos["hands"]))
    return TsukuruTenTenGame(**options).state_from_position(pos)


# ---- tiles and sets ------------------------------------------------------------------------------


def test_tile_set():
    assert NUM_KINDS == 19 and NUM_TILES == 61
    assert sum(COPIES[k] for k in range(NUM_KINDS) if COLOUR[k] == BLUE) == 28
    assert sum(COPIES[k] for k in range(NUM_KINDS) if COLOUR[k] == RED) == 29
    assert [NAMES[k] for k in range(NUM_KINDS) if COLOUR[k] == PURPLE] == ["P5", "P6", "P7", "P8"]
    assert COPIES[parse_tile("R0")] == 1 and COPIES[parse_tile("B4")] == 4
    with pytest.raises(ValueError, match="unknown tile"):
        parse_tile("P4")  # the seed's "B2 B3 P4" example: there is no purple 4
    with pytest.raises(ValueError, match="unknown tile"):
        parse_tile("B0")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("B4 B5 B6", [(B, 4)]),  # blue run: lowest
        ("R1 R2 R3", [(R, 3)]),  # red run: highest
        ("R5 R5 R5", [(R, 0)]),  # triple: 0
        ("B2 B2 B2", [(B, 0)]),
        ("R0 R1 R2", [(R, 2)]),
        ("B3 B4 P5", [(B, 3)]),  # purple takes the set's colour
        ("B6 B7 P8", [(B, 6)]),
        ("R6 R7 P8", [(R, 8)]),
        ("R5 R5 P5", [(R, 0)]),
        ("P5 P6 P7", [(B, 5), (R, 7)]),  # all purple: either colour
        ("P6 P7 P8", [(B, 6), (R, 8)]),
        ("B1 B2 R3", []),  # mixed colours
        ("B1 B2 B4", []),
        ("R5 B5 P5", []),
        ("B5 P6 R7", []),
        ("P5 P6 P8", []),
        ("B7 B7 P8", []),
    ],
)
def test_set_shapes(text, expected):
    assert sorted((s.colour, s.value) for s in shapes_of(tiles(text))) == sorted(expected)


def independent_set_values(kinds: list[int]) -> set[tuple[int, int]]:
    """(colour, value) of every way three tiles form a set, straight from the rules text."""
    out = set()
    for colour in (B, R):
        if any(COLOUR[k] not in (colour, PURPLE) for k in kinds):
            continue
        values = sorted(VALUE[k] for k in kinds)
        if values[0] == values[1] == values[2]:
            out.add((colour, 0))
        elif values[1] == values[0] + 1 and values[2] == values[1] + 1:
            out.add((colour, values[0] if colour == B else values[2]))
    return out


def test_set_shapes_agree_with_the_rules_text_for_every_triple():
    seen = set()
    for combo in itertools.combinations_with_replacement(range(NUM_KINDS), 3):
        if any(combo.count(k) > COPIES[k] for k in combo):
            continue
        expected = independent_set_values(list(combo))
        got = {(s.colour, s.value) for s in shapes_of(combo)}
        assert got == expected, [NAMES[k] for k in combo]
        seen |= {(combo, c) for c, _ in got}
    assert seen == {(s.kinds, s.colour) for s in SET_SHAPES}


# ---- hand evaluation: worked examples ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "dealer", "heaven", "points", "names"),
    [
        # 1. non-dealer, B1-2-3 (1) + R4-5-6 (6) + R2 + B1 = 10: 2 + Closed + Half Color
        ("B1 B2 B3 R4 R5 R6 R2 B1", False, False, 4, ["Closed", "Half Color"]),
        # 2. dealer, R5x4 B5x4: two triples + R5 + B5 = 10
        (
            "R5 R5 R5 R5 B5 B5 B5 B5",
            True,
            False,
            41,
            ["Closed", "No Ones", "Half Color", "God Ten", "Double Four"],
        ),
        ("R5 R5 R5 R5 B5 B5 B5 B5", True, True, 44, ["Closed", "No Ones", "Half Color", "Heaven", "God Ten", "Double Four"]),
        # 3. non-dealer from a discard: B3-4-P5 (3) + R1-2-3 (3) + B2 + B2
        ("B3 B4 P5 R1 R2 R3 B2 B2", False, False, 3, ["Closed"]),
        # 4. non-dealer: R3x4 + B7x4
        ("R3 R3 R3 R3 B7 B7 B7 B7", False, False, 16, ["Closed", "No Ones", "Half Color", "Seven", "Double Four"]),
    ],
)
def test_worked_examples_advanced(hand, dealer, heaven, points, names):
    c = counts(hand)
    assert is_winning(c, [])
    result = score_win(c, [], advanced=True, dealer=dealer, heaven=heaven)
    assert result.points == points
    assert [name for name, _ in result.bonuses] == names
    assert result.base == (3 if dealer else 2)
    assert score_win(c, [], advanced=False, dealer=dealer).points == 1


def test_worked_example_1_configuration():
    configs = winning_configurations(counts("B1 B2 B3 R4 R5 R6 R2 B1"), [])
    assert [sorted((s.colour, s.value) for s in c) for c in configs] == [[(B, 1), (R, 6)]]


def test_worked_example_3_uses_the_purple_as_blue_5():
    (config,) = winning_configurations(counts("B3 B4 P5 R1 R2 R3 B2 B2"), [])
    assert sorted([NAMES[k] for k in s.kinds] for s in config) == [["B3", "B4", "P5"], ["R1", "R2", "R3"]]


def test_worked_example_5_open_set_loses_closed():
    # open red run R4 R5 R6 (6) + concealed B1 B2 B3 (1) + R2 + B1 = 10
    c = counts("B1 B2 B3 R2 B1")
    opens = [open_set("R4 R5 R6")]
    assert opens[0].value == 6
    result = score_win(c, opens, advanced=True)
    assert result.points == 3 and [n for n, _ in result.bonuses] == ["Half Color"]


# ---- hand evaluation: value 10 ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "opens", "wins"),
    [
        ("B1 B1 B2 B2 R1 R1 R1 R1", [], True),  # singles only: 1+1+2+2+1+1+1+1 = 10
        ("B1 B1 B2 B2 R1 R1 R1 R2", [], False),  # 11 as singles; R1 R1 R1 triple -> 8
        ("B1 B1 B1 R3 R3 B2 B2 R0", [], True),  # triple B1 (0) + 3+3+2+2+0 = 10
        ("R0 R1 R2 B7 B7 B7 R4 R4", [], True),  # R0-1-2 (2) + triple B7 (0) + 4 + 4
        ("B7 B7 B7 B6 B6 B6 B5 B5", [], True),  # two triples + 5 + 5
        ("B7 B7 B7 B6 B6 B6 B5 B4", [], False),  # 9
        ("B5 B5", ["B1 B2 B3", "R0 R1 R2"], False),  # 1 + 2 + 10 = 13
        ("B3 B4", ["B1 B2 B3", "R0 R1 R2"], True),  # 1 + 2 + 7
        ("B3 B4 B5 R3 R4", ["R5 R6 R7"], False),  # 7 + run 3 + 7, or 7 + 19
        ("B2 B3 B4 R1 R0", ["R5 R6 R7"], True),  # 7 + run 2 + 1 + 0
        ("B2 B3 B4 R1 R0", ["R3 R4 R5"], False),  # 5 + 2 + 1 + 0 = 8
    ],
)
def test_value_ten_detection(hand, opens, wins):
    c = counts(hand)
    sets = [open_set(o) for o in opens]
    if sum(c) + 3 * len(sets) != 8:
        with pytest.raises(ValueError, match="8 tiles"):
            is_winning(c, sets)
        return
    assert is_winning(c, sets) == wins
    assert bool(winning_configurations(c, sets)) == wins


def test_open_sets_count_towards_the_two_set_limit():
    # B1 B1 B1 (0) open + B2 B2 B2 (0) open + R5 R5: 10 with two open sets, no concealed set allowed
    assert is_winning(counts("R5 R5"), [open_set("B1 B1 B1"), open_set("B2 B2 B2")])
    # R3 R3 R3 R3 B1 B1 with one open triple B7: concealed R3 triple + R3 + 1 + 1 = 5: not 10
    assert not is_winning(counts("R3 R3 R3 R3 B1"), [open_set("B7 B7 B7")])
    # three sets would be needed: not allowed
    hand = counts("B2 B2 B2 B3 B3 B3 R4 R6")
    assert is_winning(hand, [])  # 0 + 0 + 4 + 6
    assert not is_winning(counts("B1 B1 B1 B2 B2 B2 R4 R4"), [])  # 0 + 0 + 8 = 8


def test_not_a_winning_hand_cannot_be_scored():
    with pytest.raises(ValueError, match="not a winning hand"):
        score_win(counts("B7 B7 B6 B6 B5 B5 B4 B4"), [], advanced=True)


def brute_force_wins(kinds: list[int], opens: list[OpenSet]) -> bool:
    """Value 10 by trying every split of the concealed tiles into sets (independent of the module)."""
    base = sum(o.value for o in opens)
    idx = range(len(kinds))
    limit = 2 - len(opens)
    options = [(0, ())]
    for combo in itertools.combinations(idx, 3):
        for _, v in independent_set_values([kinds[i] for i in combo]):
            options.append((v, combo))
    for r in range(limit + 1):
        for chosen in itertools.combinations(options[1:], r):
            used = [i for _, c in chosen for i in c]
            if len(used) != len(set(used)):
                continue
            total = base + sum(v for v, _ in chosen) + sum(VALUE[kinds[i]] for i in idx if i not in used)
            if total == 10:
                return True
    return base + sum(VALUE[k] for k in kinds) == 10


ALL_TILES = [k for k in range(NUM_KINDS) for _ in range(COPIES[k])]
low_tiles = [k for k in ALL_TILES if VALUE[k] <= 4]


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.booleans())
def test_is_winning_matches_brute_force(rnd, low):
    pool = list(low_tiles if low else ALL_TILES)
    rnd.shuffle(pool)
    kinds = pool[:8]
    c = counts_of(kinds)
    assert is_winning(c, []) == brute_force_wins(kinds, [])


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False))
def test_is_winning_with_an_open_set_matches_brute_force(rnd):
    shape = rnd.choice(SET_SHAPES)
    pool = list(ALL_TILES)
    for k in shape.kinds:
        pool.remove(k)
    rnd.shuffle(pool)
    kinds = pool[:5]
    opens = [OpenSet(shape.kinds, shape.colour)]
    assert is_winning(counts_of(kinds), opens) == brute_force_wins(kinds, opens)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_advanced_score_is_at_least_base_plus_closed(seed):
    rng = np.random.default_rng(seed)
    pool = np.array(low_tiles)
    for _ in range(200):
        c = counts_of([int(k) for k in rng.permutation(pool)[:8]])
        if is_winning(c, []):
            result = score_win(c, [], advanced=True, dealer=True)
            assert result.points >= 3 + 1
            assert result.points == result.base + sum(p for _, p in result.bonuses)
            assert ("Closed", 1) in result.bonuses
            return


# ---- hand evaluation: the readable copy against the kernel ------------------------------------------


def kernel_verdict(counts: list[int], opens: list[OpenSet], *, advanced: bool, dealer: bool, heaven: bool) -> tuple[bool, int]:
    """The kernel's verdict on a hand held by seat 0 of a row: is it worth 10, and (if so) the points it scores."""
    row = K.ROW.new_row()
    K.ROW.put(row, "advanced", int(advanced))
    K.ROW.put(row, "dealer", 0 if dealer else 1)
    K.ROW.put(row, "hands", counts + [0] * (K.ROW["hands"].size - NUM_KINDS))
    shapes = [K.SHAPE_INDEX[(o.kinds, o.colour)] for o in opens]
    K.ROW.put(row, "open_shapes", shapes + [-1] * (K.ROW["open_shapes"].size - len(shapes)))
    K.ROW.put(row, "num_open", [len(opens), 0, 0, 0])
    K.ROW.put(row, "open_value", [sum(o.value for o in opens), 0, 0, 0])
    S = row[None, :].copy()
    wins = bool(K._wins_now(S, 0, 0))
    points = int(K._win_points(S, 0, 0, heaven)) if wins else 0
    assert np.array_equal(S[0, : K.SCRATCH], row[: K.SCRATCH])  # the kernel gives the hand back as it was
    return wins, points


KINDS_OF_VALUE = [[k for k in range(NUM_KINDS) if VALUE[k] == v] for v in range(max(VALUE) + 1)]


@st.composite
def winning_hands(draw: st.DrawFn) -> tuple[list[int], list[OpenSet]]:
    """An 8-tile hand worth exactly 10 by construction: 0-2 sets (some of them open), singles making up the rest."""
    sets = draw(st.lists(st.sampled_from(SET_SHAPES), max_size=2))
    num_open = draw(st.integers(0, len(sets)))
    left = list(COPIES)
    for k in (k for s in sets for k in s.kinds):
        left[k] -= 1
    assume(min(left) >= 0)
    need = 10 - sum(s.value for s in sets)
    singles = []
    for slots in range(8 - 3 * len(sets), 0, -1):
        low, high = max(0, need - max(VALUE) * (slots - 1)), min(max(VALUE), need)
        values = [v for v in range(low, high + 1) if any(left[k] for k in KINDS_OF_VALUE[v])]
        assume(values)
        value = draw(st.sampled_from(values))
        singles.append(draw(st.sampled_from([k for k in KINDS_OF_VALUE[value] if left[k]])))
        left[singles[-1]] -= 1
        need -= value
    assume(need == 0)
    concealed = singles + [k for s in sets[num_open:] for k in s.kinds]
    return counts_of(concealed), [OpenSet(s.kinds, s.colour) for s in sets[:num_open]]


@settings(max_examples=400, deadline=None)
@given(winning_hands(), st.booleans(), st.booleans(), st.booleans())
def test_score_win_scores_random_winning_hands_as_the_kernel_does(hand, advanced, dealer, heaven):
    """``hand.score_win`` (the readable scoring the text uses) gives every winning hand the points the kernel adds."""
    c, opens = hand
    assert is_winning(c, opens)
    wins, points = kernel_verdict(c, opens, advanced=advanced, dealer=dealer, heaven=heaven)
    assert wins
    assert points == score_win(c, opens, advanced=advanced, dealer=dealer, heaven=heaven).points


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 2), st.booleans(), st.booleans())
def test_is_winning_and_score_win_agree_with_the_kernel_on_random_hands(rnd, num_open, low, dealer):
    """On any 8 tiles (with 0-2 open sets) the readable evaluation and the kernel find the same wins and points."""
    pool = list(low_tiles if low else ALL_TILES)
    opens = []
    for _ in range(num_open):
        shape = rnd.choice([s for s in SET_SHAPES if all(pool.count(k) >= s.kinds.count(k) for k in s.kinds)])
        opens.append(OpenSet(shape.kinds, shape.colour))
        for k in shape.kinds:
            pool.remove(k)
    rnd.shuffle(pool)
    c = counts_of(pool[: 8 - 3 * num_open])
    wins, points = kernel_verdict(c, opens, advanced=True, dealer=dealer, heaven=False)
    assert is_winning(c, opens) == wins
    if wins:
        assert points == score_win(c, opens, advanced=True, dealer=dealer).points


# ---- bonuses --------------------------------------------------------------------------------------


def coloured(text: str) -> list[tuple[int, int]]:
    """``"B1 R2 B3"`` -> coloured tiles (purples not allowed here: colour them first)."""
    return [(COLOUR[k], VALUE[k]) for k in tiles(text)]


def bonus_names(text: str, closed: bool = False, eight: bool = False, heaven: bool = False) -> list[str]:
    return [name for name, _ in bonuses(coloured(text), closed=closed, has_eight=eight, heaven=heaven)]


def test_each_single_bonus():
    assert bonus_names("B1 B2 B2 B3 R1 R5 R6 R7", closed=True) == ["Closed", "Half Color", "Seven"]
    assert "No Ones" in bonus_names("B2 B2 B2 B3 R5 R5 R6 R6")
    assert "No Ones" not in bonus_names("B2 B2 B2 B3 R5 R5 R6 R1")
    assert "Half Color" not in bonus_names("B2 B2 B2 R3 R5 R5 R6 R1")
    assert "Seven" not in bonus_names("B2 B2 B2 R3 R5 R5 R6 R1")
    assert "Straight" in bonus_names("R1 R2 R3 R4 R5 B2 B2 B6")
    assert "Straight" not in bonus_names("R1 R2 R3 R4 B5 B6 B7 B7")
    assert "Straight" in bonus_names("R0 R1 R2 R3 R4 B6 B6 B6")
    assert "Two Blues" in bonus_names("B1 B2 R3 R4 R5 R6 R6 R6")
    assert "Two Blues" not in bonus_names("B1 B2 B3 R4 R5 R6 R6 R6")
    assert "Under Five" in bonus_names("B1 B2 B3 R4 R4 R0 R1 B4")
    assert "Under Five" not in bonus_names("B1 B2 B3 R4 R4 R0 R1 B5")
    assert ("Single Color", 2) in bonuses(coloured("B1 B2 B3 B4 B4 B4 B1 B1"), closed=False, has_eight=False, heaven=False)
    assert ("Single Color", 3) in bonuses(coloured("R1 R2 R3 R4 R4 R4 R1 R0"), closed=False, has_eight=False, heaven=False)
    assert "Eight" in bonus_names("B1 B2 B3 R4 R4 R0 R1 B5", eight=True)
    assert "Heaven" in bonus_names("B1 B2 B3 R4 R4 R0 R1 B5", heaven=True)
    assert "God Ten" in bonus_names("B3 B3 B3 B3 R3 R3 R3 R3")
    assert "God Ten" not in bonus_names("B3 B3 B3 B3 R3 R3 R3 R2")


def test_straight_with_a_purple_8():
    assert has_straight([(R, 4), (R, 5), (R, 6), (R, 7), (R, 8), (B, 1), (B, 1), (B, 1)])
    assert not has_straight([(R, 4), (R, 5), (R, 6), (R, 7), (B, 8), (B, 1), (B, 1), (B, 1)])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("R5 R5 R5 R5 B5 B5 B5 B5", ("Double Four", 10)),
        ("R5 R5 R5 R5 B5 B5 B5 B1", ("Multi", 5)),  # t4 = 1, t3 = 1: not Single Four / Single Three
        ("R5 R5 R5 B5 B5 B5 B1 B2", ("Double Three", 4)),  # same value: +1
        ("R5 R5 R5 B6 B6 B6 B1 B2", ("Double Three", 3)),  # not Single Three
        ("R5 R5 R5 R5 B6 B6 B1 B2", ("Single Four", 2)),
        ("R5 R5 R5 B6 B6 B7 B1 B2", ("Single Three", 1)),
        ("R5 R5 R6 B6 B6 B7 B1 B2", None),
        ("R5 B5 R5 B5 R5 B5 R1 B1", ("Double Three", 4)),
    ],
)
def test_size_class_is_exclusive(text, expected):
    assert size_class(coloured(text)) == expected
    names = bonus_names(text)
    sizes = {"Double Four", "Multi", "Double Three", "Single Four", "Single Three"}
    assert len([n for n in names if n in sizes]) == (0 if expected is None else 1)


def test_five_of_a_colour_and_value_counts_as_a_four_group():
    # B5 x4 + purple 5 coloured blue: a group of 5
    assert size_class([(B, 5)] * 5 + [(R, 1), (R, 2), (R, 3)]) == ("Single Four", 2)


def test_free_martens_take_the_best_colour():
    # R1-2-3 (3) + B1-2-3 (1) + R1 + P5 = 10: P5 blue gives 4 red / 4 blue (Half Color)
    result = score_win(counts("R1 R2 R3 B1 B2 B3 R1 P5"), [], advanced=True)
    assert result.points == 2 + 1 + 1
    assert [n for n, _ in result.bonuses] == ["Closed", "Half Color"]
    assert (parse_tile("P5"), B) in result.singles


def test_purple_8_gives_eight_wherever_it_is():
    # open R6-R7-P8 (8) + concealed triple B4 (0) + R1 + R1 = 10
    opens = [open_set("R6 R7 P8")]
    c = counts("B4 B4 B4 R1 R1")
    assert is_winning(c, opens)
    result = score_win(c, opens, advanced=True)
    assert [n for n, _ in result.bonuses] == ["Seven", "Eight", "Single Three"]
    assert result.points == 2 + 1 + 2 + 1


def test_colour_of_an_open_all_purple_set_counts():
    # open P5 P6 P7 as red (7) + concealed triple R1 (0) + R0 + B3 = 10
    c = counts("R0 R1 R1 R1 B3")
    red = [OpenSet(tuple(sorted(tiles("P5 P6 P7"))), R)]  # type: ignore[arg-type]
    blue = [OpenSet(tuple(sorted(tiles("P5 P6 P7"))), B)]  # type: ignore[arg-type]
    assert is_winning(c, red) and not is_winning(c, blue)  # blue would be worth 5: 8


# ---- setup and chance ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_first_dealer_and_deal_are_chance_nodes(n):
    g = TsukuruTenTenGame(num_players=n)
    state = g.new_initial_state()
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(s, 1.0 / n) for s in range(n)]
    state.apply_action(n - 1)  # the last seat deals
    outcomes = dict(state.chance_outcomes())
    assert outcomes[parse_tile("R0")] == pytest.approx(1 / 61) and outcomes[parse_tile("B3")] == pytest.approx(4 / 61)
    assert state.action_to_string(parse_tile("B3")) == f"deal B3 to seat {n - 1}"
    for i in range(7 * n):
        assert state.current_player() == CHANCE
        state.apply_action(state.chance_outcomes()[0][0])
        if i == 0:
            assert sum(state.hands[n - 1]) == 1  # the first tile goes to the dealer
    assert [sum(h) for h in state.hands] == [7] * n
    assert state.deck_size == 61 - 7 * n
    assert state.current_player() == n - 1  # the dealer plays first
    assert legal_names(state) == {"draw"}


def test_bad_chance_outcome_is_refused():
    state = TsukuruTenTenGame().new_initial_state()
    with pytest.raises(IllegalActionError):
        state.apply_action(2)
    state.apply_action(0)
    for _ in range(1):
        state.apply_action(parse_tile("R0"))
    with pytest.raises(IllegalActionError):
        state.apply_action(parse_tile("R0"))  # the only R0 is dealt


def test_draw_probabilities_follow_the_deck():
    state = build(position(hands=["B1 B1 B1 B2 B2 B2 B3", "R1 R1 R1 R2 R2 R2 R3"]))
    assert state.deck_size == 47
    do(state, "draw")
    assert state.current_player() == CHANCE
    outcomes = dict(state.chance_outcomes())
    assert sum(outcomes.values()) == pytest.approx(1.0)
    assert outcomes[parse_tile("B1")] == pytest.approx(1 / 47)
    assert outcomes[parse_tile("B4")] == pytest.approx(4 / 47)
    assert parse_tile("R1") in outcomes and parse_tile("B2") in outcomes
    state.apply_action(parse_tile("B4"))
    assert state.action_to_string(act.DRAW) == "draw"
    assert state.drawn == parse_tile("B4") and sum(state.hands[0]) == 8 and state.deck_size == 46


# ---- turns ------------------------------------------------------------------------------------------


def test_discard_after_a_draw_any_tile_and_the_pile_order():
    state = build(position(hands=["B1 B1 B1 B2 B2 B2 B3", "R1 R1 R1 R2 R2 R2 R3"], discards=["R7", "R6"]))
    do(state, "draw")
    state.apply_action(parse_tile("B6"))  # two triples + 3 + 6 = 9: not a winning hand
    assert legal_names(state) == {"discard B1", "discard B2", "discard B3", "discard B6"}
    do(state, "discard B3")
    assert state.discards[0] == tiles("R7 B3") and state.claimable[0]
    assert state.current_player() == 1 and state.turns_taken[1] == 4
    assert state.drawn == -1


def test_finish_is_offered_exactly_when_the_hand_is_worth_10():
    # worked example 1: seat 1 (not the dealer) draws R2
    pos = position(hands=["B4 B4 B5 B5 B6 B6 B7", "B1 B2 B3 R4 R5 R6 B1"], turn=1, dealer=0)
    for scoring, points in (("basic", 1), ("advanced", 4)):
        state = build(pos, scoring=scoring)
        do(state, "draw")
        state.apply_action(parse_tile("R2"))
        assert "finish" in legal_names(state)
        do(state, "finish")
        assert state.scores_ == [0, points]
        assert state.rounds_played == 1 and state.dealer == 1  # the seat on the dealer's left deals next
        assert state.current_player() == CHANCE and state.dealt == 0 and state.deck_size == 61
        assert "seat 1 finished after drawing R2" in state.to_text()
        state = build(pos, scoring=scoring)
        do(state, "draw")
        state.apply_action(parse_tile("R3"))
        assert "finish" not in legal_names(state)


def test_finishing_is_optional():
    state = build(position(hands=["B4 B4 B5 B5 B6 B6 B7", "B1 B2 B3 R4 R5 R6 B1"], turn=1))
    do(state, "draw")
    state.apply_action(parse_tile("R2"))
    do(state, "discard R2")
    assert state.scores_ == [0, 0] and state.current_player() == 0


def test_worked_example_2_dealer_and_heaven():
    hands = ["R5 R5 R5 R5 B5 B5 B5", "B1 B1 B2 B2 B3 B3 R1"]
    for first_turn, points in ((False, 41), (True, 44)):
        pos = position(hands=hands, turns_taken=[1 if first_turn else 5, 4])
        state = build(pos, scoring="advanced")
        do(state, "draw")
        state.apply_action(parse_tile("B5"))
        do(state, "finish")
        assert state.scores_ == [points, 0]
        assert "Double Four 10" in state.last_round and "God Ten 25" in state.last_round
        assert ("Heaven 3" in state.last_round) == first_turn
    assert state.is_terminal()  # 44 >= 25 ends the advanced game
    assert state.returns().tolist() == [1.0, -1.0]


def test_worked_example_3_finish_from_discard():
    pos = position(
        hands=["R7 R7 R7 R6 R6 R6 R4", "B3 B4 R1 R2 R3 B2 B2"],
        discards=["B7 P5", ""],
        turn=1,
        turns_taken=[1, 1],
    )
    state = build(pos, scoring="advanced")
    assert legal_names(state) == {"draw", "finish with P5 from seat 0", "get P5 from seat 0 with B3+B4"}
    do(state, "finish with P5 from seat 0")
    assert state.scores_ == [0, 3]  # 2 + Closed; no Heaven: the tile was not drawn
    assert "finished with P5 from seat 0's discard" in state.last_round


def test_worked_example_5_get_makes_an_open_set():
    pos = position(hands=["B1 B1 B2 B2 B3 B3 B7", "R4 R6 B1 B2 B3 R2 B1"], discards=["R5", ""], turn=1)
    state = build(pos, scoring="advanced")
    assert "get R5 from seat 0 with R4+R6" in legal_names(state)
    do(state, "get R5 from seat 0 with R4+R6")
    assert state.open_sets[1] == [OpenSet(tuple(sorted(tiles("R4 R5 R6"))), R)]  # type: ignore[arg-type]
    assert state.open_sets[1][0].value == 6
    assert state.discards[0] == [] and not state.claimable[0]
    # 8 tiles, worth 10 (6 + B1-2-3 = 1 + R2 + B1), but after a get the player must discard
    assert all(act.DISCARD <= a < act.COLOUR for a in state.legal_actions())
    do(state, "discard B1")
    # later win: never Closed
    state2 = build(
        position(
            hands=["B4 B4 B5 B5 B6 B6 B7", "B1 B2 B3 R2"],
            open_sets=[[], [("R4 R5 R6", "red")]],
            discards=["", "B1"],
            claimable=[False, True],
            turn=1,
        ),
        scoring="advanced",
    )
    do(state2, "draw")
    state2.apply_action(parse_tile("B1"))
    do(state2, "finish")
    assert state2.scores_[1] == 3 and "Closed" not in state2.last_round


def test_get_needs_two_hand_tiles_forming_a_set():
    pos = position(hands=["B1 B1 B2 B2 B3 B3 B7", "R5 R5 R4 B6 B4 P6 R1"], discards=["B5", ""], turn=1)
    state = build(pos)
    gets = {name for name in legal_names(state) if name.startswith("get")}
    assert gets == {"get B5 from seat 0 with B4+B6", "get B5 from seat 0 with B4+P6"}
    pos = position(hands=["B1 B1 B2 B2 B3 B3 B7", "R5 R5 R4 B6 B4 P6 R1"], discards=["R5", ""], turn=1)
    gets = {name for name in legal_names(build(pos)) if name.startswith("get")}
    assert gets == {"get R5 from seat 0 with R5+R5", "get R5 from seat 0 with R4+P6"}


def test_own_discard_cannot_be_taken():
    state = build(position(hands=["B1 B1 B2 B2 B3 B3 B7", "R4 R6 B1 B2 B3 R2 B1"], discards=["", "R5"], turn=1))
    assert legal_names(state) == {"draw"}


def test_all_purple_get_asks_for_the_colour():
    pos = position(hands=["B1 B1 B2 B2 B3 B3 B7", "P6 P7 B1 B2 B3 R2 B1"], discards=["P5", ""], turn=1)
    for choice, colour, value in (("colour blue", B, 5), ("colour red", R, 7)):
        state = build(pos)
        do(state, "get P5 from seat 0 with P6+P7")
        assert state.current_player() == 1 and legal_names(state) == {"colour blue", "colour red"}
        assert "colour?" in state.to_text()
        do(state, choice)
        assert state.open_sets[1][0].colour == colour and state.open_sets[1][0].value == value
        assert all(act.DISCARD <= a < act.COLOUR for a in state.legal_actions())


@pytest.mark.parametrize("claim_from", ["any_opponent", "previous_player"])
def test_claimable_discards(claim_from):
    hands = ["B1 B1 B2 B2 B3 B3 B7", "R1 R1 R2 R2 R3 R3 R7", "B4 B6 R4 R6 B5 B5 R0"]
    pos = position(n=3, hands=hands, discards=["B5 B7", "R7 R5", ""], claimable=[True, True, False], turn=2, dealer=0)
    state = build(pos, claim_from=claim_from)
    gets = {name for name in legal_names(state) if name.startswith("get")}
    from_seat_1 = {"get R5 from seat 1 with R4+R6"}
    from_seat_0 = {"get B7 from seat 0 with B5+B6"}
    if claim_from == "any_opponent":
        assert gets == from_seat_1 | from_seat_0
    else:
        assert gets == from_seat_1  # seat 1 played just before seat 2
    # once taken, the tile below is not claimable
    do(state, "get R5 from seat 1 with R4+R6")
    assert state.discards[1] == tiles("R7") and not state.claimable[1]


def test_top_discard_stays_claimable_until_its_owner_discards_again():
    hands = ["B1 B1 B2 B2 B3 B3 B7", "R1 R1 R2 R2 R3 R3 R7", "B4 B6 R4 R6 B5 B5 R0"]
    pos = position(n=3, hands=hands, discards=["B7", "", ""], claimable=[True, False, False], turn=1, dealer=0)
    state = build(pos)
    do(state, "draw")
    state.apply_action(parse_tile("R4"))
    do(state, "discard R4")
    assert state.current_player() == 2
    assert "get B7 from seat 0 with B5+B6" in legal_names(state)  # two turns ago, still on top
    state = build(pos, claim_from="previous_player")
    do(state, "draw")
    state.apply_action(parse_tile("R4"))
    do(state, "discard R4")
    assert "get B7 from seat 0 with B5+B6" not in legal_names(state)


def test_empty_deck_ends_the_round_unless_a_discard_is_taken():
    hands = ["B1 B1 B2 B2 B3 B3 B7", "R4 R6 B1 B2 B3 R2 B7"]
    rest = [NAMES[k] for k in range(NUM_KINDS) for _ in range(COPIES[k])]
    for k in tiles(" ".join(hands) + " R5"):
        rest.remove(NAMES[k])
    pos = position(hands=hands, discards=[" ".join([*rest, "R5"]), ""], turn=1, dealer=0, deck="")
    state = build(pos)
    names = legal_names(state)
    assert "draw" not in names and "end round (deck empty)" in names and "get R5 from seat 0 with R4+R6" in names
    do(state, "end round (deck empty)")
    assert state.scores_ == [0, 0] and state.rounds_played == 1 and state.dealer == 1
    assert "the deck ran out" in state.last_round
    assert state.current_player() == CHANCE and state.deck_size == 61


def test_basic_game_ends_at_4_points():
    pos = position(hands=["B4 B4 B5 B5 B6 B6 B7", "B1 B2 B3 R4 R5 R6 B1"], turn=1, scores=[2, 3], rounds_played=5)
    state = build(pos)
    do(state, "draw")
    state.apply_action(parse_tile("R2"))
    do(state, "finish")
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.scores_ == [2, 4] and state.returns().tolist() == [-1.0, 1.0]
    assert "Game over" in state.to_text()


def test_advanced_game_ends_at_25_points():
    pos = position(hands=["B4 B4 B5 B5 B6 B6 B7", "B1 B2 B3 R4 R5 R6 B1"], turn=1, scores=[20, 20], rounds_played=5)
    state = build(pos, scoring="advanced")
    do(state, "draw")
    state.apply_action(parse_tile("R2"))
    do(state, "finish")
    assert state.scores_ == [20, 24] and not state.is_terminal()
    pos["scores"] = [20, 21]
    state = build(pos, scoring="advanced")
    do(state, "draw")
    state.apply_action(parse_tile("R2"))
    do(state, "finish")
    assert state.scores_ == [20, 25] and state.is_terminal()


@pytest.mark.parametrize("game_end", ["points", "dealer_twice"])
def test_dealer_twice_end(game_end):
    # 3 players, round 6 (the last with dealer_twice), deck empty: the round ends without a score
    hands = ["B1 B1 B2 B2 B3 B3 B7", "R1 R1 R2 R2 R3 R3 R7", "B4 B6 R4 R6 B5 B5 R0"]
    rest = [NAMES[k] for k in range(NUM_KINDS) for _ in range(COPIES[k])]
    for k in tiles(" ".join(hands)):
        rest.remove(NAMES[k])
    pos = position(
        n=3,
        hands=hands,
        discards=[" ".join(rest), "", ""],
        claimable=[False, False, False],
        turn=1,
        dealer=2,
        deck="",
        scores=[2, 2, 1],
        rounds_played=5,
        dealer_counts=[2, 2, 2],
    )
    state = build(pos, game_end=game_end)
    do(state, "end round (deck empty)")
    if game_end == "dealer_twice":
        assert state.is_terminal()
        assert state.returns().tolist() == [0.5, 0.5, -1.0]  # equal points share their places
    else:
        assert not state.is_terminal() and state.dealer == 0 and state.dealer_counts == [3, 2, 2]


def test_heaven_needs_a_drawn_tile_on_the_first_turn():
    pos = position(hands=["B4 B4 B5 B5 B6 B6 B7", "B1 B2 B3 R4 R5 R6 B1"], turn=1, turns_taken=[1, 1])
    state = build(pos, scoring="advanced")
    do(state, "draw")
    state.apply_action(parse_tile("R2"))
    do(state, "finish")
    assert state.scores_[1] == 4 + 3 and "Heaven 3" in state.last_round


def test_scoring_option_both_ways_on_the_same_hand():
    pos = position(hands=["B4 B4 B5 B5 B6 B6 B1", "R3 R3 R3 R3 B7 B7 B7"], turn=1)
    for scoring, points in (("basic", 1), ("advanced", 16)):  # worked example 4
        state = build(pos, scoring=scoring)
        do(state, "draw")
        state.apply_action(parse_tile("B7"))
        do(state, "finish")
        assert state.scores_[1] == points


# ---- position builder ---------------------------------------------------------------------------------


def every_node(g: TsukuruTenTenGame, seed: int, max_decisions: int = 400):
    """States at every node of a random game (chance included), cut short after ``max_decisions``."""
    rng = np.random.default_rng(seed)
    state = g.new_initial_state()
    decisions = 0
    while not state.is_terminal() and decisions < max_decisions:
        yield state
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1
    yield state


def full_view(state: TsukuruTenTenState) -> tuple:
    n = state.n
    return (
        state.current_player(),
        state.legal_action_mask().tobytes(),
        tuple(state.observation(s).tobytes() for s in range(n)),
        state.returns().tobytes(),
        state.scores().tobytes(),
        state.to_text(),
        tuple(state.seat_text(s) for s in range(n)),
        tuple(state.chance_outcomes()),
    )


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2},
        {"num_players": 3, "scoring": "advanced"},
        {"num_players": 4, "claim_from": "previous_player", "game_end": "dealer_twice"},
    ],
)
def test_position_round_trip_along_random_games(options):
    import json

    g = TsukuruTenTenGame(**options)
    for seed in range(2):
        for i, state in enumerate(every_node(g, seed, max_decisions=1500 if seed == 0 else 300)):
            if i % 3 and not state.is_terminal():
                continue
            pos = json.loads(json.dumps(state.position()))
            rebuilt = g.state_from_position(pos)
            assert full_view(rebuilt) == full_view(state)
            assert rebuilt.position() == pos


def test_position_builder_rejects_bad_positions():
    good = position(hands=["B1 B1 B2 B2 B3 B3 B7", "R4 R6 B1 B2 B3 R2 B7"], discards=["R5", ""])
    build(good)

    def bad(match: str, **changes) -> None:
        pos = dict(good, **changes)
        with pytest.raises(ValueError, match=match):
            build(pos)

    bad("unknown tile", hands=[["B1", "B1", "B2", "B2", "B3", "B3", "X9"], good["hands"][1]])
    bad("there are 1 R0 tiles", deck=[*good["deck"], "R0"])
    bad("holds 6 tiles", hands=[good["hands"][0][:6], good["hands"][1]], deck=[*good["deck"], "B7"])
    bad("phase", phase="bidding")
    pos = dict(good)
    del pos["deck"]
    with pytest.raises(ValueError, match="missing"):
        build(pos)
    bad("unknown", extra=1)
    bad("one entry per seat", scores=[0, 0, 0])
    bad("out of range", turn=5)
    bad("not a red set", open_sets=[[{"tiles": ["B1", "B2", "B3"], "colour": "red"}], []])
    bad("cannot be claimable", claimable=[True, True])
    bad("drawn is given only", drawn="B1")
    bad("must be an integer", dealer="0")
    bad("dealer_counts", dealer_counts=[0, 0])
    with pytest.raises(ValueError, match=r"seat choosing a colour|pending"):
        build(dict(good, pending=["P5", "P6", "P7"]))


def test_position_builder_phases():
    g = TsukuruTenTenGame(num_players=3)
    state = g.state_from_position(g.new_initial_state().position())
    assert state.current_player() == CHANCE and len(state.chance_outcomes()) == 3
    # mid-deal: dealer 1 and seat 2 got one tile each; seat 0 gets the next
    pos = position(n=3, hands=["", "B1", "B3"], phase="deal", turn=-1, dealer=1, turns_taken=[0, 0, 0])
    state = g.state_from_position(pos)
    assert state.action_to_string(parse_tile("B5")) == "deal B5 to seat 0"
    with pytest.raises(ValueError, match="one by one from the dealer"):
        g.state_from_position(dict(pos, hands=[["B3"], ["B1"], []]))


# ---- hidden information --------------------------------------------------------------------------------


def test_resample_hidden_keeps_everything_the_seat_sees():
    g = TsukuruTenTenGame(num_players=3)
    rng = np.random.default_rng(5)
    changed = 0
    for i, state in enumerate(every_node(g, 3, max_decisions=300)):
        if i % 7:
            continue
        for seat in range(3):
            other = state.resample_hidden(seat, rng)
            assert other.hands[seat] == state.hands[seat]
            assert other.discards == state.discards and other.open_sets == state.open_sets
            assert other.deck_size == state.deck_size == sum(other.deck)
            assert [sum(h) for h in other.hands] == [sum(h) for h in state.hands]
            assert other.observation(seat).tobytes() == state.observation(seat).tobytes()
            assert other.seat_text(seat) == state.seat_text(seat)
            total = list(other.deck)
            for s in range(3):
                for k in range(NUM_KINDS):
                    total[k] += other.hands[s][k]
                for o in other.open_sets[s]:
                    for k in o.kinds:
                        total[k] += 1
                for k in other.discards[s]:
                    total[k] += 1
            for k in other.pending or ():
                total[k] += 1
            if state.phase != 0:
                assert total == list(COPIES)
            if other.drawn >= 0:
                assert other.hands[other.turn][other.drawn] > 0
            changed += other.hands != state.hands
            # the redealt state plays on
            if not other.is_terminal():
                random_playout(other, rng, max_decisions=5)
    assert changed


def rare_node(state: TsukuruTenTenState) -> bool:
    """Nodes a stride would often miss: a round's first and last dealt tiles, a get, a colour choice,
    an empty deck, the end."""
    return (
        state.phase in (FIRST_DEALER, PICK_COLOUR, OVER)
        or (state.phase == DEAL and state.dealt in (0, 1, HAND_SIZE * state.n - 1))
        or (state.phase == DISCARDING and state.drawn < 0)
        or (state.phase == TURN and state.deck_size == 0)
    )


def phase_name(state: TsukuruTenTenState) -> str:
    return PHASE_NAMES[state.phase]


def only_chance(state: TsukuruTenTenState, seat: int) -> tuple[int, ...]:
    """No decision of another seat may change in a redeal: only chance outcomes (the tiles dealt and drawn)."""
    return ()


def positions_everywhere(state: TsukuruTenTenState, seat: int, redeal: TsukuruTenTenState) -> None:
    """``position()`` at every node, chance nodes included (the kit allows ``NotImplementedError`` there)."""
    state.position()
    redeal.position()


@pytest.mark.parametrize(
    ("n", "every"),
    [(2, 4), (3, 10), (4, 16)],
)
def test_resample_contract_at_every_kind_of_node(n, every):
    """The kit's redeal checks (``testing.check_redeal``, only chance outcomes may change) for every seat at the
    nodes of seeded random games: chance nodes of the deal and of draws, decisions, the first node after a
    round and the end; ``position()`` at every node."""
    checked: Counter[str] = Counter()
    for seed, options in enumerate(
        [{"game_end": "dealer_twice"}, {"scoring": "advanced", "claim_from": "previous_player", "game_end": "dealer_twice"}]
    ):
        g = TsukuruTenTenGame(num_players=n, **options)
        checked += testing.check_redeals_along(
            g, seed, every=every, always=rare_node, label=phase_name, changeable=only_chance, also=positions_everywhere
        )
    assert set(checked) >= {"first_dealer", "deal", "turn", "draw", "discard", "over"}, checked


def scripted_game() -> TsukuruTenTenState:
    """A 2-player game up to an all-purple get (its colour is to choose): the dealt and drawn tiles are chosen."""
    g = TsukuruTenTenGame(num_players=2, game_end="dealer_twice")
    state = g.new_initial_state()
    state.apply_action(0)  # seat 0 deals first
    hands = [tiles("P5 P6 B1 B1 B2 B2 B3"), tiles("P7 R1 R1 R2 R2 R3 B7")]
    for i in range(2 * HAND_SIZE):
        state.apply_action(hands[i % 2][i // 2])
    do(state, "draw")
    state.apply_action(parse_tile("B4"))
    do(state, "discard B4", "draw")
    state.apply_action(parse_tile("R7"))
    do(state, "discard P7", "get P7 from seat 1 with P5+P6")
    assert state.phase == PICK_COLOUR
    return state


def test_resample_contract_through_a_colour_choice_and_finishes():
    state = scripted_game()
    rng = np.random.default_rng(2)
    seen: set[str] = set()
    ways: set[str] = set()
    movers = list(testing.history_movers(state))
    while True:
        for seat in range(2):
            rng_seat = np.random.default_rng([len(state.history), seat])
            other = testing.check_redeal(state, seat, rng_seat, movers=movers, changeable=())
            positions_everywhere(state, seat, other)
        seen.add(phase_name(state))
        ways.add(next((w for w in ("'s discard", "after drawing", "ran out") if w in state.last_round), "-"))
        if state.is_terminal():
            break
        movers.append(state.current_player())
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            # finish whenever possible, from a discard only in odd rounds, so the rounds end both ways
            wins = [a for a in legal if a == act.FINISH or (state.rounds_played % 2 and act.FINISH_FROM <= a < act.DISCARD)]
            state.apply_action(wins[0] if wins else legal[rng.integers(len(legal))])
    assert seen >= {"colour", "deal", "turn", "draw", "discard", "over"}
    assert ways == {"-", "'s discard", "after drawing", "ran out"}


def test_resampled_history_replays_to_the_resampled_state_not_the_true_one():
    """The defect: the history of a resampled state replayed to the true hands and deck."""
    g = TsukuruTenTenGame(num_players=3)
    rng = np.random.default_rng(0)
    differ = 0
    for i, state in enumerate(every_node(g, 1, max_decisions=600)):
        if i % 11 or state.phase in (FIRST_DEALER,):
            continue
        for seat in range(3):
            other = state.resample_hidden(seat, rng)
            replayed = g.state_from_history(other.history)
            assert replayed.hands == other.hands and replayed.deck == other.deck and replayed.drawn == other.drawn
            differ += other.hands != state.hands
    assert differ > 100


def test_resampled_history_hides_earlier_rounds_and_keeps_what_the_seat_saw():
    g = TsukuruTenTenGame(num_players=3)
    state = next(s for s in every_node(g, 2, max_decisions=10**6) if s.rounds_played == 2 and s.phase == TURN)
    logs = read_rounds(state.history, 3)
    assert len(logs) == 3 and logs[0].ended and logs[1].ended
    own = {idx for log in logs for e, idx in log.events[0] if e in (ARRIVE, SHOWN)}
    shown = {idx for log in logs for s in range(3) for e, idx in log.events[s] if e == SHOWN}
    first_round = {idx for s in (1, 2) for e, idx in logs[0].events[s] if e == ARRIVE}
    rng = np.random.default_rng(1)
    changed = set()
    for _ in range(20):
        other = state.resample_hidden(0, rng)
        assert all(other.history[i] == state.history[i] for i in own | shown)
        changed |= {i for i in first_round if other.history[i] != state.history[i]}
    assert len(changed) > len(first_round) // 2  # the first round's hidden tiles are redealt too


@pytest.mark.parametrize("phase", ["deal", "draw", "discard"])
def test_resample_is_a_uniform_redeal(phase):
    """The other hand and the deck are a uniform shuffle of the tiles the seat cannot see, during a deal
    too: per kind, the tiles the resampled seat 1 holds average hand size x unseen share."""
    g = TsukuruTenTenGame(num_players=2)
    want = {"deal": DEAL, "draw": DRAWING, "discard": DISCARDING}[phase]
    state = next(s for s in every_node(g, 4) if s.phase == want and (want != DEAL or s.dealt == 9))
    pool = np.array(state.deck) + np.array(state.hands[1])
    size = sum(state.hands[1])
    rng = np.random.default_rng(2)
    samples = 3000
    held = np.zeros(NUM_KINDS)
    for _ in range(samples):
        held += state.resample_hidden(0, rng).hands[1]
    expected = samples * size * pool / pool.sum()
    # each count is a sum of hypergeometric draws: far inside 5 standard deviations
    spread = np.sqrt(expected * (1 - pool / pool.sum()))
    assert np.all(np.abs(held - expected) <= 5 * spread + 1e-9), (held, expected)


def test_resample_of_a_built_position_keeps_the_contract_it_can():
    """A position built from data has no history to rewrite; the rest of the contract holds."""
    pos = position(hands=["B1 B1 B2 B2 B3 B3 B7 B4", "R4 R6 B1 B2 B3 R2 B7"], discards=["R5", ""], phase="discard", drawn="B4")
    state = build(pos)
    rng = np.random.default_rng(0)
    for seat in (0, 1):
        other = state.resample_hidden(seat, rng)
        assert other.observation(seat).tobytes() == state.observation(seat).tobytes()
        assert other.seat_text(seat) == state.seat_text(seat)
        rebuilt = state.game.state_from_position(other.position())
        assert full_view(rebuilt) == full_view(other)
    other = state.resample_hidden(1, rng)
    assert other.hands[0][other.drawn] > 0 and other.legal_action_mask().any()
    assert other.hands[0] != state.hands[0] or other.deck != state.deck


def test_the_last_winners_hand_is_kept_at_the_end():
    g = TsukuruTenTenGame(num_players=3)
    end = None
    for state in every_node(g, 5, max_decisions=10**6):
        end = state
    assert end is not None and end.is_terminal()
    winner = next(s for s in range(3) if sum(end.hands[s]) + 3 * len(end.open_sets[s]) == 8)
    rng = np.random.default_rng(0)
    for seat in range(3):
        other = end.resample_hidden(seat, rng)
        assert other.hands[winner] == end.hands[winner]
        assert g.state_from_history(other.history).last_round == end.last_round


def test_observation_hides_other_hands_and_the_deck():
    pos = position(hands=["B1 B1 B2 B2 B3 B3 B7", "R4 R6 B1 B2 B3 R2 B7"], discards=["R5", ""], turn=1)
    a = build(pos)
    swapped = dict(pos)
    # swap one tile between seat 0's hand and the deck: seat 1 cannot tell
    swapped["hands"] = [["B1", "B1", "B2", "B2", "B3", "B3", "B6"], pos["hands"][1]]
    deck = list(pos["deck"])
    deck.remove("B6")
    swapped["deck"] = [*deck, "B7"]
    b = build(swapped)
    assert a.observation(1).tobytes() == b.observation(1).tobytes()
    assert a.observation(0).tobytes() != b.observation(0).tobytes()
    assert a.to_text() == b.to_text() and a.seat_text(0) != b.seat_text(0)


def test_observation_layout_and_egocentric_seats():
    g = TsukuruTenTenGame(num_players=3)
    pos = position(
        n=3,
        hands=["B1 B1 B2 B2 B3 B3 B7", "R1 R1 R2 R2 R3 R3 R7", "B4 B6 R4 R0"],
        open_sets=[[], [], [("R5 R6 R7", "red")]],
        discards=["B7", "R7", ""],
        turn=1,
        dealer=2,
        scores=[1, 0, 3],
    )
    state = g.state_from_position(pos)
    obs = state.observation(1)
    assert obs.shape == LAYOUT.shape == g.info.observation_shape and obs.dtype == np.float32
    assert obs.min() >= 0.0 and obs.max() <= 1.0
    hand = LAYOUT.view(obs, "hand")
    assert hand[parse_tile("R1")] == pytest.approx(0.5) and hand[parse_tile("B1")] == 0
    assert LAYOUT.view(obs, "current").tolist() == [1, 0, 0, 0]
    assert LAYOUT.view(obs, "dealer").tolist() == [0, 1, 0, 0]  # seat 2 is one seat on from seat 1
    assert LAYOUT.view(obs, "scores").tolist() == [0.0, 0.75, 0.25, 0.0]
    sets = LAYOUT.view(obs, "open_sets")
    assert sets[1, 0, parse_tile("R6")] == pytest.approx(1 / 3) and sets[1, 0, NUM_KINDS + R] == 1
    order = LAYOUT.view(obs, "discard_order")
    assert order[2, 0, parse_tile("B7")] == 1  # seat 0 is two seats on from seat 1
    assert LAYOUT.view(obs, "claimable").tolist() == [1, 0, 1, 0]
    assert LAYOUT.view(obs, "deck")[0] == pytest.approx(state.deck_size / 47)
    assert LAYOUT.view(obs, "players").tolist() == [0, 1, 0]
    assert LAYOUT.view(obs, "phase").tolist() == [1, 0, 0]
    assert "| `hand` |" in LAYOUT.table()


def test_card_has_the_generated_observation_table():
    import gameshelf.envs.tsukuru_ten_ten as package

    assert package.__doc__ is not None and LAYOUT.table() in package.__doc__
    assert f"({LAYOUT.size},)" in package.__doc__ and "{observation_table}" not in package.__doc__


# ---- text, names, image, env ------------------------------------------------------------------------------


def test_text_shows_public_information_and_seat_text_the_hand():
    pos = position(hands=["B1 B1 B2 B2 B3 B3 B7", "R4 R6 B1 B2 B3 R2 B7"], discards=["R5", ""], turn=1, scores=[2, 1])
    state = build(pos)
    text = state.to_text()
    assert "Deck: 46 tiles" in text and "discards: R5 *" in text and "Seat 1 (to act): 1 pts" in text
    assert "hand:" not in text
    assert "hand: B1 B2 B3 B7 R2 R4 R6" in state.seat_text(1)
    assert "hand: B1 B1" in state.seat_text(0)


def test_action_names_parse_back():
    state = build(position(hands=["B1 B1 B2 B2 B3 B3 B7", "R4 R6 B1 B2 B3 R2 B7"], discards=["R5", ""], turn=1))
    for a in state.legal_actions():
        assert state.game.string_to_action(state, state.action_to_string(a)) == a
    assert state.game.string_to_action(state, "GET R5 FROM SEAT 0 WITH R4+R6") == act.get(1, parse_tile("R4"), parse_tile("R6"))
    with pytest.raises(IllegalActionError):
        state.game.string_to_action(state, "finish")


def test_action_encoding():
    assert act.NUM_ACTIONS == 597 and act.NUM_PAIRS == 190
    assert act.get(1, 0, 0) == 27 and act.get(3, 18, 18) == 596
    assert act.decode_get(act.get(2, parse_tile("R6"), parse_tile("R4"))) == (2, parse_tile("R4"), parse_tile("R6"))
    assert act.finish_from(3) == 5 and act.discard(18) == 24


@pytest.mark.parametrize("n", [2, 3, 4])
def test_render_image(n):
    g = TsukuruTenTenGame(num_players=n)
    state = g.new_initial_state()
    random_playout(state, np.random.default_rng(n), max_decisions=60)
    image = state.render_image()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] > 100 * n


def test_options_and_info():
    g = TsukuruTenTenGame()
    assert g.options == {"num_players": 2, "scoring": "basic", "claim_from": "any_opponent", "game_end": "points"}
    assert g.info.has_hidden_info and g.info.has_chance and g.info.num_actions == 597
    for bad in ({"num_players": 5}, {"scoring": "expert"}, {"claim_from": "anyone"}, {"game_end": "never"}):
        with pytest.raises(ValueError):
            TsukuruTenTenGame(**bad)


def test_env_plays_a_game():
    env = envs.make("tsukuru_ten_ten-v0", num_players=3, scoring="advanced", game_end="dealer_twice")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        del agent
    assert env.game_state.is_terminal() and env.game_state.rounds_played <= 6


# ---- heuristic -----------------------------------------------------------------------------------------


def test_heuristic_finishes_whenever_it_can():
    from gameshelf.envs.tsukuru_ten_ten.heuristic import TsukuruTenTenHeuristic

    agent = TsukuruTenTenHeuristic()
    rng = np.random.default_rng(0)
    state = build(position(hands=["B4 B4 B5 B5 B6 B6 B7", "B1 B2 B3 R4 R5 R6 B1"], turn=1))
    do(state, "draw")
    state.apply_action(parse_tile("R2"))
    assert agent.act(state.resample_hidden(1, rng), 1, rng) == act.FINISH
    state = build(position(hands=["R7 R7 R7 R6 R6 R6 R4", "B3 B4 R1 R2 R3 B2 B2"], discards=["B7 P5", ""], turn=1))
    assert agent.act(state.resample_hidden(1, rng), 1, rng) == act.finish_from(1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, NUM_KINDS - 1), min_size=7, max_size=7), st.integers(0, 4), st.integers(0, 1))
def test_heuristic_outs_count_every_winning_unseen_tile(tiles, open_value, num_open):
    from gameshelf.envs.tsukuru_ten_ten.hand import is_winning_fast
    from gameshelf.envs.tsukuru_ten_ten.heuristic import outs

    hand = [tiles.count(k) for k in range(NUM_KINDS)]
    unseen = [(3 * k) % 5 for k in range(NUM_KINDS)]
    expected = sum(
        unseen[t]
        for t in range(NUM_KINDS)
        if is_winning_fast(tuple(c + (k == t) for k, c in enumerate(hand)), open_value, num_open)
    )
    for _ in range(2):  # the second call is answered from the cache
        assert outs(hand, open_value, num_open, unseen) == expected
    assert hand == [tiles.count(k) for k in range(NUM_KINDS)]  # the hand is left as it was


def test_heuristic_beats_random():
    from gameshelf.envs.tsukuru_ten_ten.heuristic import TsukuruTenTenHeuristic
    from gameshelf.training.agents.base import RandomAgent

    g = TsukuruTenTenGame(game_end="dealer_twice")
    agents = [TsukuruTenTenHeuristic(), RandomAgent()]
    rng = np.random.default_rng(1)
    wins = 0
    for game_index in range(6):
        state = g.new_initial_state()
        heuristic_seat = game_index % 2
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance(rng))
                continue
            seat = state.current_player()
            agent = agents[0] if seat == heuristic_seat else agents[1]
            state.apply_action(agent.act(state.resample_hidden(seat, rng), seat, rng))
        wins += state.returns()[heuristic_seat] > 0
    assert wins >= 5


def test_fast_legality_check_agrees_with_the_mask():
    g = TsukuruTenTenGame(num_players=3)
    for i, state in enumerate(every_node(g, 11, max_decisions=400)):
        if state.is_chance_node() or state.is_terminal() or i % 2:
            continue
        mask = state.legal_action_mask()
        for a in range(act.NUM_ACTIONS):
            assert state._is_legal(state.current_player(), a) == mask[a], (a, state.action_to_string(a))


@pytest.mark.parametrize(
    "options",
    [{}, {"num_players": 3, "scoring": "advanced", "claim_from": "previous_player"}, {"num_players": 4, "scoring": "advanced"}],
)
def test_batch_row_views_match_states_replayed_with_the_same_actions(options):
    """Along batched games (half the rows played by the heuristic through ``opponent_actions``, so through
    ``observed_state`` of a row view), each row view gives the position, the texts and the row of a State
    replayed with the same actions and chance outcomes: the last-round line included."""
    from gameshelf import vector
    from gameshelf.envs.core.kernel import seed_generators
    from gameshelf.envs.tsukuru_ten_ten import kernel as K
    from gameshelf.envs.tsukuru_ten_ten.heuristic import TsukuruTenTenHeuristic

    n = 4
    batch = vector.make("tsukuru_ten_ten-v0", num_envs=n, seed=5, **options)
    generators = seed_generators(5, n)  # what reset() seeds the games with
    batch.reset()
    views = batch.row_views()
    picker, rng = seed_generators(6, n), np.random.default_rng(7)
    heuristic_rows = np.arange(n) % 2 == 0

    def new_state() -> TsukuruTenTenState:
        return batch.game.new_initial_state()

    def resolve(state: TsukuruTenTenState, i: int) -> None:
        while state.current_player() == CHANCE:
            state.apply_action(int(K.sample_chance(state.S, 0, generators[i : i + 1])))

    states = [new_state() for _ in range(n)]
    for i, state in enumerate(states):
        resolve(state, i)
    ends = set()
    for step in range(500):
        actions = batch.random_actions(picker)
        chosen = batch.opponent_actions(heuristic_rows, views, TsukuruTenTenHeuristic(), picker, rng)
        actions[heuristic_rows] = chosen[heuristic_rows]
        out = batch.step(actions)
        for i in range(n):
            states[i].apply_action(int(actions[i]))
            resolve(states[i], i)
            if out.terminated[i] or out.truncated[i]:
                states[i] = new_state()
                resolve(states[i], i)
            view, state = views[i], states[i]
            where = f"row {i}, step {step}"
            assert np.array_equal(view.s[: K.SCRATCH], state.s[: K.SCRATCH]), where
            assert view.position() == state.position(), where
            assert view.to_text() == state.to_text(), where
            seat = state.current_player()
            assert view.seat_text(seat) == state.seat_text(seat), where
            ends.update(w for w in ("ran out", "after drawing", "'s discard") if w in state.last_round)
    assert len(ends) >= 2, ends  # rounds ended in several ways
