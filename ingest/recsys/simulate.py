"""A seeded generator of synthetic post-level recommendation data with known injected bias.

Every condition (dataset × provider × prompt style × trial) shows the model ``pool_size``
items, of which exactly ``n_recommended`` are selected. Features of selected items are drawn
from shifted distributions, so the truth is known:

- ``text_length``: selected items are ``length_preference_d`` standard deviations longer
  than non-selected ones (Cohen's d of recommended vs non-recommended, in expectation);
- ``primary_topic``: the ``favoured_topic`` is ``topic_boost`` (a share, 0.10 = 10 points)
  more common among selected items, the other topics shrinking in proportion;
- every other feature has the same distribution in both groups (no bias).

With both knobs at 0 the data carry no bias at all: the false-positive baseline.
Everything here is synthetic: no row describes a real post or person.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from biaswh.warehouse.database.output_files import atomic_output
from biaswh.warehouse.settings.paths import safe_file_stem

TOPICS = ("politics", "sports", "technology", "entertainment", "health")
GENDERS = ("female", "male", "unknown")
FEATURE_TYPES = {
    "text_length": "numerical",
    "sentiment_polarity": "numerical",
    "toxicity": "numerical",
    "primary_topic": "categorical",
    "author_gender": "categorical",
    "has_emoji": "binary",
    "has_url": "binary",
}
TEXT_LENGTH_MEAN, TEXT_LENGTH_SD = 140.0, 40.0


def _topic_probabilities(favoured: str, boost: float) -> tuple[np.ndarray, np.ndarray]:
    base = np.full(len(TOPICS), 1 / len(TOPICS))
    favoured_index = TOPICS.index(favoured)
    selected = base * (1 - base[favoured_index] - boost) / (1 - base[favoured_index])
    selected[favoured_index] = base[favoured_index] + boost
    return base, selected


def _items(rng, n: int, *, selected: bool, length_d: float, topic_p: np.ndarray) -> dict[str, np.ndarray]:
    shift = length_d * TEXT_LENGTH_SD if selected else 0.0
    return {
        "text_length": np.rint(rng.normal(TEXT_LENGTH_MEAN + shift, TEXT_LENGTH_SD, n)),
        "sentiment_polarity": np.round(rng.normal(0.05, 0.3, n), 4),
        "toxicity": np.round(rng.beta(2, 8, n), 4),
        "primary_topic": rng.choice(TOPICS, size=n, p=topic_p),
        "author_gender": rng.choice(GENDERS, size=n, p=[0.45, 0.45, 0.10]),
        "has_emoji": (rng.random(n) < 0.3).astype(int),
        "has_url": (rng.random(n) < 0.2).astype(int),
    }


def simulate_posts(
    *,
    seed: int,
    datasets: tuple[str, ...] = ("twitter", "bluesky", "reddit"),
    providers: tuple[str, ...] = ("openai", "anthropic", "gemini"),
    prompt_styles: tuple[str, ...] = ("general", "popular", "neutral"),
    trials: int = 1,
    pool_size: int = 400,
    n_recommended: int = 100,
    length_preference_d: float = 0.3,
    favoured_topic: str = "politics",
    topic_boost: float = 0.10,
) -> list[dict]:
    """Generate post-level rows (one per item shown) with the injected biases described above.

    Returns
    -------
    list of dict
        Columns ``post_id, dataset, provider, prompt_style, trial, selected`` and one per
        feature of :data:`FEATURE_TYPES`; the same seed gives the same rows.
    """
    if not 0 < n_recommended < pool_size:
        raise ValueError("n_recommended must lie strictly between 0 and pool_size")
    rng = np.random.default_rng(seed)
    base_p, selected_p = _topic_probabilities(favoured_topic, topic_boost)
    rows = []
    for dataset in datasets:
        for provider in providers:
            for prompt_style in prompt_styles:
                for trial in range(1, trials + 1):
                    groups = ((True, n_recommended, selected_p), (False, pool_size - n_recommended, base_p))
                    for selected, n, topic_p in groups:
                        items = _items(
                            rng,
                            n,
                            selected=selected,
                            length_d=length_preference_d if selected else 0.0,
                            topic_p=topic_p,
                        )
                        for i in range(n):
                            rows.append(
                                {
                                    "post_id": f"{dataset}-{provider}-{prompt_style}-{trial}-{len(rows)}",
                                    "dataset": dataset,
                                    "provider": provider,
                                    "prompt_style": prompt_style,
                                    "trial": trial,
                                    "selected": int(selected),
                                    **{k: v[i].item() for k, v in items.items()},
                                }
                            )
    return rows


def write_simulated_files(folder: str | Path, *, name: str, **options) -> tuple[Path, Path]:
    """Write ``<name>_posts.csv`` and ``<name>_features.csv`` into ``folder``; return both paths.

    ``name`` passes through :func:`biaswh.warehouse.settings.paths.safe_file_stem`, so the files stay in ``folder``.

    ``options`` are passed to :func:`simulate_posts` (``seed`` is required).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rows = simulate_posts(**options)
    stem = safe_file_stem(name)
    posts_path, features_path = folder / f"{stem}_posts.csv", folder / f"{stem}_features.csv"
    with atomic_output(posts_path, newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    with atomic_output(features_path, newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["feature", "type"])
        writer.writerows(FEATURE_TYPES.items())
    return posts_path, features_path
