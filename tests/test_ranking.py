"""The compiled ranking helper against ``rank_returns``, compiled and as plain Python."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gameshelf.envs.core.game import rank_returns
from gameshelf.envs.core.kernel import rank_outcomes

KEYS = st.lists(st.integers(min_value=-3, max_value=3), min_size=2, max_size=8)


@settings(max_examples=200, deadline=None)
@given(keys=KEYS, extra=st.integers(min_value=0, max_value=3))
def test_rank_outcomes_matches_rank_returns(keys, extra):
    expected = rank_returns(keys)
    padded = np.array(keys + [99] * extra, dtype=np.int64)  # keys past n are ignored
    for fn in (rank_outcomes, rank_outcomes.py_func):
        out = np.full(len(keys) + extra, 7.0)
        fn(padded, len(keys), out)
        assert out[: len(keys)].tolist() == expected.tolist()  # bit-identical, not just close
        assert (out[len(keys) :] == 7.0).all()


def test_rank_outcomes_float_keys_with_ties():
    keys = np.array([0.5, 2.0, 0.5, -1.0])
    out = np.empty(4)
    rank_outcomes(keys, 4, out)
    assert out.tolist() == rank_returns(keys.tolist()).tolist()
    assert np.allclose(out, [0.0, 1.0, 0.0, -1.0])
