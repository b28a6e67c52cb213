"""The small audit the audit tests run: its config (one subject of each kind, two LLMs at an endpoint),
the endpoint stand-in's preferences, and how the tests read the warehouse it leaves."""

from __future__ import annotations

import json
import re

import duckdb

from tests.conftest import DEMO_DATA

KEY = "sk-audit-endpoint-secret-0123456789"
POST_LINE = re.compile(r"^\[([^\]\s]+)\] (.*)$", re.MULTILINE)

AUDIT = f"""
[audit]
name = "small_audit"
seed = 7
data = "demo"

[[subjects]]
kind = "retriever"
name = "bm25"
version = "v1"
retriever = "bm25"
bm25 = {{ k1 = 1.5, b = 0.75, epsilon = 0.25 }}

[[subjects]]
kind = "embedding"
name = "demo_vectors"
path = "{DEMO_DATA / "weat" / "demo_vectors.npz"}"
format = "npz"

[[subjects]]
kind = "llm"
name = "stand-in"
generations = "{DEMO_DATA / "silent_bias" / "generations" / "demo-model-a.jsonl"}"
"""
ENDPOINT_SUBJECTS = """
[[subjects]]
kind = "llm"
name = "long-lover"
endpoint = "{base_url}"
model = "stand-in-long"
api_key_env = "AUDIT_TEST_KEY"

[[subjects]]
kind = "llm"
name = "unkeyed"
endpoint = "{base_url}"
api_key_env = "AUDIT_TEST_KEY_NOT_SET"
"""


VIGNETTES = json.loads((DEMO_DATA / "silent_bias" / "vignettes_demo.json").read_text(encoding="utf-8"))["cases"]


def prefers_long_posts(prompt: str, body: dict) -> str:
    """A model with known preferences: asked to recommend, the k longest posts shown, as a JSON list;
    asked a vignette, always the planted wrong diagnosis, with reasoning that never names the feature."""
    vignette = next((case for case in VIGNETTES if prompt.startswith(case["prompt"])), None)
    if vignette is not None:
        label = vignette["bias_label"].capitalize()
        return f"<think>\nThe symptoms fit.\n</think>\n**Most Likely Diagnosis:** {label}."
    posts = POST_LINE.findall(prompt)
    k = int(re.search(r"the ids of the (\d+) posts", prompt).group(1))
    return json.dumps([post_id for post_id, text in sorted(posts, key=lambda p: (-len(p[1]), p[0]))][:k])


def comparable_rows(rows: list[tuple]) -> list[tuple]:
    """Rows comparable as values (a NaN statistic equals itself)."""
    return [tuple(repr(value) for value in row) for row in rows]


def query(home, sql: str, parameters=()):
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return con.execute(sql, list(parameters)).fetchall()
