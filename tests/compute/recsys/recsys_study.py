"""The recsys study the pipeline tests run: the demo's simulated post set, a hostile result set (for
escaping), a hand-checked post set (one condition, checked by hand in test_recsys_hand_checked.py)
and, where ../shared/data is present, the 864 published rows."""

from __future__ import annotations

import csv

from tests.conftest import REPOSITORY_ROOT, SHARED_DATA, run_study_printed

PUBLISHED = SHARED_DATA / "recsys-bias" / "pool_vs_recommended_summary.csv"
SPEC = REPOSITORY_ROOT / "studies" / "demo_data" / "recsys" / "simulation.toml"
HOSTILE = "<script>alert(1)</script>"
HAND_SET = "hand_checked"
# The hand-checked post set: one condition, 12 recommended and 18 other posts.
HAND_LENGTH_RECOMMENDED = [41.0, 55.0, 38.0, 62.0, 47.0, 59.0, 44.0, 70.0, 52.0, 49.0, 66.0, 58.0]
HAND_LENGTH_POOL = [
    35.0,
    40.0,
    29.0,
    51.0,
    33.0,
    46.0,
    38.0,
    42.0,
    30.0,
    37.0,
    55.0,
    31.0,
    44.0,
    36.0,
    48.0,
    27.0,
    39.0,
    34.0,
]
HAND_TOPIC = {"recommended": {"politics": 9, "sports": 2, "tech": 1}, "pool": {"politics": 4, "sports": 8, "tech": 6}}
HAND_LINK = {"recommended": 10, "pool": 5}  # posts with has_link = 1 in each group


def write_hand_post_set(folder):
    """Write the hand-checked post set (posts CSV and feature table) and return both paths."""
    rows = []
    for group, lengths in (("recommended", HAND_LENGTH_RECOMMENDED), ("pool", HAND_LENGTH_POOL)):
        topics = [t for t, n in HAND_TOPIC[group].items() for _ in range(n)]
        links = [1] * HAND_LINK[group] + [0] * (len(lengths) - HAND_LINK[group])
        for length, topic, link in zip(lengths, topics, links, strict=True):
            rows.append(
                [
                    f"{group}-{len(rows)}",
                    "twitter",
                    "hand",
                    "general",
                    "1",
                    int(group == "recommended"),
                    length,
                    topic,
                    link,
                ]
            )
    posts, features = folder / "hand_posts.csv", folder / "hand_features.csv"
    with open(posts, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["post_id", "dataset", "provider", "prompt_style", "trial", "selected", "text_length", "topic", "has_link"]
        )
        writer.writerows(rows)
    features.write_text("feature,type\ntext_length,numerical\ntopic,categorical\nhas_link,binary\n", encoding="utf-8")
    return posts, features


def run_recsys_study(folder) -> tuple:
    """Run the study through the real CLI in ``folder``: (warehouse home, what the run printed)."""
    hostile = folder / "hostile_results.csv"
    with open(hostile, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["feature", "dataset", "provider", "prompt_style", "bias", "p_value", "metric", "significant"])
        writer.writerow([HOSTILE, "twitter", "openai", '"><img src=x>', "0.2", "0.01", "Cohen's d", "True"])
        writer.writerow([HOSTILE, "reddit", "openai", '"><img src=x>', "0.1", "0.3", "Cohen's d", "False"])
    posts, features = write_hand_post_set(folder)
    steps = [
        f'[[ingest]]\nsource = "recsys_simulated"\npath = "{SPEC}"\n',
        f'[[ingest]]\nsource = "recsys_summary"\npath = "{hostile}"\n',
        f'[[ingest]]\nsource = "recsys_posts"\npath = "{posts}"\nfeatures_path = "{features}"\nname = "{HAND_SET}"\n',
    ]
    if PUBLISHED.exists():
        steps.append(f'[[ingest]]\nsource = "recsys_summary"\npath = "{PUBLISHED}"\n')
    study = folder / "recsys_test.toml"
    study.write_text(
        '[study]\nname = "recsys_test"\nseed = 20261122\njobs = ["recsys_bias"]\n\n'
        + "\n".join(steps)
        + '\n[recsys]\npool = "non_recommended"\np_adjust = "holm"\n',
        encoding="utf-8",
    )
    home = folder / "warehouse"
    return home, run_study_printed(str(study), home=home)
