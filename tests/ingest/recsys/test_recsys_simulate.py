"""The simulator is seeded, and its injected truth holds in a large sample."""

from __future__ import annotations

import numpy as np
import pytest

from biaswh.ingest.recsys.simulate import simulate_posts, write_simulated_files


def test_the_same_seed_gives_the_same_files(tmp_path):
    options = {
        "seed": 11,
        "datasets": ("a",),
        "providers": ("p",),
        "prompt_styles": ("g",),
        "pool_size": 50,
        "n_recommended": 10,
    }
    first = write_simulated_files(tmp_path / "one", name="s", **options)
    second = write_simulated_files(tmp_path / "two", name="s", **options)
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    assert simulate_posts(**{**options, "seed": 12}) != simulate_posts(**options)


def test_injected_length_shift_and_topic_boost_hold_in_a_large_sample():
    rows = simulate_posts(
        seed=3,
        datasets=("a",),
        providers=("p",),
        prompt_styles=("g",),
        pool_size=40_000,
        n_recommended=20_000,
        length_preference_d=0.3,
        topic_boost=0.10,
    )
    selected = np.array([r["selected"] == 1 for r in rows])
    length = np.array([r["text_length"] for r in rows], dtype=float)
    pooled_sd = np.sqrt((length[selected].var(ddof=1) + length[~selected].var(ddof=1)) / 2)
    assert (length[selected].mean() - length[~selected].mean()) / pooled_sd == pytest.approx(0.3, abs=0.03)
    politics = np.array([r["primary_topic"] == "politics" for r in rows])
    assert politics[selected].mean() - politics[~selected].mean() == pytest.approx(0.10, abs=0.015)
    assert selected.sum() == 20_000


def test_impossible_designs_are_refused():
    with pytest.raises(ValueError, match="n_recommended"):
        simulate_posts(seed=1, pool_size=10, n_recommended=10)
