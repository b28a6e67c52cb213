"""Every multiple-comparison adjustment, on any family: within [p, 1] and monotone in p (Hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from biaswh.stats.multiple_comparisons import METHOD_NAMES, adjust_family, adjust_p_values

families = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(p_values=families, method=st.sampled_from(sorted(METHOD_NAMES)))
def test_an_adjusted_p_lies_between_its_raw_p_and_one(p_values, method):
    adjusted = adjust_p_values(p_values, method=method)
    assert len(adjusted) == len(p_values)
    assert all(p <= q <= 1 for p, q in zip(p_values, adjusted))


@settings(max_examples=200, deadline=None)
@given(p_values=families, method=st.sampled_from(sorted(METHOD_NAMES)))
def test_a_smaller_raw_p_never_gets_a_larger_adjusted_p(p_values, method):
    adjusted = adjust_p_values(p_values, method=method)
    pairs = sorted(zip(p_values, adjusted))
    assert all(earlier[1] <= later[1] for earlier, later in zip(pairs, pairs[1:]))


@settings(max_examples=100, deadline=None)
@given(p_values=families, method=st.sampled_from(sorted(METHOD_NAMES)), alpha=st.floats(0.001, 0.2))
def test_a_family_rejects_exactly_the_tests_whose_adjusted_p_is_below_alpha(p_values, method, alpha):
    family = adjust_family(p_values, method=method, alpha=alpha)
    assert (family.method, family.alpha, family.n_tests, family.p_values) == (
        method,
        alpha,
        len(p_values),
        tuple(p_values),
    )
    assert family.rejected == tuple(q < alpha for q in family.p_values_adjusted)
    # Adjusting never rejects a test its raw p would keep.
    assert all(p < alpha for p, rejected in zip(p_values, family.rejected) if rejected)
