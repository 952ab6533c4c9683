"""The compiled ranking helper against ``rank_returns``, compiled and as plain Python."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gameshelf.envs.core.game import rank_returns
from gameshelf.envs.core.kernel import rank_outcomes

KEY = st.integers(min_value=-3, max_value=3) | st.integers(min_value=-(2**50), max_value=2**50)


@settings(max_examples=300, deadline=None)
@given(keys=st.lists(KEY, min_size=0, max_size=8), extra=st.integers(min_value=0, max_value=3))
def test_rank_outcomes_matches_rank_returns(keys, extra):
    expected = rank_returns(keys)
    for fn in (rank_outcomes, rank_outcomes.py_func):
        out = np.array(keys + [7.0] * extra, dtype=np.float64)  # entries past n are left alone
        fn(out, len(keys))
        assert out[: len(keys)].tolist() == expected.tolist()  # bit-identical, not just close
        assert (out[len(keys) :] == 7.0).all()


def test_rank_outcomes_ties_and_keys_near_the_returns():
    out = np.array([1.0, 2.0, 1.0, -1.0, 0.0])  # keys equal to return values must not be taken for returns
    rank_outcomes(out, 5)
    assert np.allclose(out, [0.25, 1.0, 0.25, -1.0, -0.5])
