"""Post-level recommendation data and its feature table: load long, version, refuse bad input."""

from __future__ import annotations

import csv

import pytest

from biaswh.ingest.recsys.posts import load_recsys_posts
from biaswh.ingest.recsys.simulate import FEATURE_TYPES, simulate_posts, write_simulated_files
from biaswh.warehouse.errors import InputError
from tests.conftest import shared_file
from tests.fingerprints import raw_fingerprint

SMALL = {
    "datasets": ("twitter",),
    "providers": ("openai",),
    "prompt_styles": ("general", "neutral"),
    "pool_size": 20,
    "n_recommended": 5,
}


@pytest.fixture
def simulated(tmp_path):
    return write_simulated_files(tmp_path / "sim", name="tiny", seed=3, **SMALL)


def _rewrite(path, change):
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    change(rows)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_every_item_and_feature_is_stored_long_with_its_type(con, simulated):
    posts, features = simulated
    result = load_recsys_posts(con, posts, features_path=features)
    assert (result.status, result.rows) == ("loaded", 40 * len(FEATURE_TYPES))
    assert result.source_name == "tiny_posts"
    counts = con.execute(
        "select count(distinct source_row), count(*) filter (where selected),"
        " count(distinct prompt_style), min(trial) from raw.recsys_post_values"
    ).fetchone()
    assert counts == (40, 5 * len(FEATURE_TYPES) * 2, 2, "1")
    types = dict(con.execute("select feature, feature_type from raw.recsys_feature_types").fetchall())
    assert types == FEATURE_TYPES
    numeric, text = con.execute(
        "select value_number, value_text from raw.recsys_post_values where feature = 'has_url' and source_row = 1"
    ).fetchone()
    assert numeric in (0.0, 1.0) and text == str(int(numeric))
    sources = con.execute("select count(*) from raw.run_sources where run_id = ?", [result.run_id]).fetchone()[0]
    assert sources == 2  # the posts file and the feature table, each with its sha256
    before = raw_fingerprint(con)
    assert load_recsys_posts(con, posts, features_path=features).status == "unchanged"
    assert raw_fingerprint(con) == before


def test_a_changed_feature_table_makes_a_new_version(con, simulated):
    posts, features = simulated
    load_recsys_posts(con, posts, features_path=features)
    _rewrite(features, lambda rows: rows.pop())  # drop the last feature
    result = load_recsys_posts(con, posts, features_path=features)
    assert (result.status, result.version, result.rows) == ("loaded", 2, 40 * (len(FEATURE_TYPES) - 1))


def _set(row_index, column, value):
    def change(rows):
        rows[row_index][column] = value

    return change


@pytest.mark.parametrize(
    "target, change, row, field, message",
    [
        ("posts", _set(4, "text_length", "long"), 5, "text_length", "expected a number"),
        ("posts", _set(2, "selected", "maybe"), 3, "selected", "0/1 or true/false"),
        ("posts", _set(7, "has_url", "2"), 8, "has_url", "0/1 or true/false"),
        ("posts", _set(0, "provider", ""), 1, "provider", "missing provider"),
        ("features", _set(1, "type", "ordinal"), 2, "type", "unknown feature type"),
        ("features", _set(3, "feature", "sentiment_polarity"), 4, "feature", "duplicate feature"),
        ("features", _set(0, "feature", "not_a_column"), None, "not_a_column", "has no column"),
    ],
)
def test_bad_input_names_file_row_and_field_and_writes_nothing(con, simulated, target, change, row, field, message):
    posts, features = simulated
    _rewrite(posts if target == "posts" else features, change)
    before = raw_fingerprint(con)
    with pytest.raises(InputError) as caught:
        load_recsys_posts(con, posts, features_path=features)
    assert (caught.value.row, caught.value.field) == (row, field)
    assert message in str(caught.value)
    assert raw_fingerprint(con) == before


def test_condition_columns_can_be_mapped_or_fixed(con, tmp_path):
    rows = simulate_posts(seed=4, **SMALL)
    for row in rows:
        row["model"] = row.pop("provider")
        del row["dataset"]
    posts = tmp_path / "mapped.csv"
    with open(posts, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    _, features = write_simulated_files(tmp_path / "f", name="f", seed=4, **SMALL)
    with pytest.raises(InputError, match="condition column for dataset"):
        load_recsys_posts(con, posts, features_path=features, condition_columns={"provider": "model"})
    load_recsys_posts(
        con,
        posts,
        features_path=features,
        condition_columns={"provider": "model"},
        fixed_conditions={"dataset": "mastodon"},
    )
    assert con.execute("select distinct dataset, provider from raw.recsys_post_values").fetchall() == [
        ("mastodon", "openai")
    ]


@pytest.mark.real_data
def test_the_published_schema_example_loads(con):
    posts = shared_file("recsys-bias/post-level-schema-example/prepared_example.csv")
    features = shared_file("recsys-bias/post-level-schema-example/feature_metadata.csv")
    result = load_recsys_posts(
        con,
        posts,
        features_path=features,
        item_id_column="tweet_id",
        fixed_conditions={"dataset": "twitter", "provider": "example", "prompt_style": "general"},
    )
    assert result.rows == 20 * 27
    # is_retweet is empty in the example: stored as missing, not as 0.
    assert (
        con.execute(
            "select count(*) from raw.recsys_post_values where feature = 'is_retweet' and value_number is null"
        ).fetchone()[0]
        == 20
    )


def test_the_same_files_in_another_folder_are_the_same_version(con, tmp_path):
    """A moved warehouse (its generated files elsewhere) or another clone loads no new version;
    a changed generator setting still does."""

    def load(folder: str, seed: int):
        posts, features = write_simulated_files(tmp_path / folder, name="moved", seed=3, **SMALL)
        provenance = {"simulation_spec": str(tmp_path / folder / "spec.toml"), "simulation_seed": seed}
        return load_recsys_posts(con, posts, features_path=features, name="moved", provenance=provenance)

    first = load("before-the-move", 3)
    before = raw_fingerprint(con)
    moved = load("after-the-move", 3)
    assert (first.status, moved.status, moved.version, moved.run_id) == ("loaded", "unchanged", 1, first.run_id)
    assert raw_fingerprint(con) == before
    assert load("after-the-move", 4).version == 2
