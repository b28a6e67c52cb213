"""Study ingest sources ``pairs`` (a pairs file) and ``rule_variants``: rule-based AAE variants of
sampled SQuAD questions.

``[[ingest]] source = "pairs"`` takes ``path`` (JSON, JSONL or CSV pairs); its other keys are
the options of :func:`biaswh.ingest.dialect.pairs.load_pairs` (``name``, ``variants``,
``squad_split``, ``cleanup``, ...).

```toml
[[ingest]]
source = "rule_variants"
path = "generated"                  # folder (relative to $BIASWH_HOME) for the generated pairs file
name = "squad_rules_2000"           # the pair set's name
squad_split = "train"               # the SQuAD dataset whose questions are sampled (ingest it first)
sample = 2000                       # the original protocol's filters, then a seeded sample
sample_seed = 42                    # default: derived from the study seed
rules = ["copula_deletion", ...]    # default: every rule (ingest/dialect/rules.py)
rate = 1.0                          # probability a rule fires at a site it matches
per_rule = true                     # also each rule alone (variants rule_<name>); false: sae and aae_rules only
```

The questions come from the latest version of ``squad_split`` in ``raw.squad_questions``.
The generated JSONL (``$BIASWH_HOME/<path>/<name>.jsonl``) is deterministic, so a rerun
writes the same bytes and the pairs ingest is a no-op; it is loaded with
:func:`biaswh.ingest.dialect.pairs.load_pairs` (variants ``sae``, ``aae_rules`` and ``rule_<name>``,
``allow_missing_variants``, clean-up ``none``: the light clean-up would undo ``g_dropping``).
"""

from __future__ import annotations

from biaswh.ingest.common.versions import IngestResult, latest_version
from biaswh.ingest.dialect.pairs import load_pairs
from biaswh.ingest.dialect.question_sample import SampleProtocol, sample_questions
from biaswh.ingest.dialect.rule_variants import rule_variant_records, variant_columns, write_records
from biaswh.ingest.dialect.rules import RULE_ORDER
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import register_ingester
from biaswh.warehouse.settings.config_schema import (
    BOOLEAN,
    POSITIVE_INTEGER,
    SEED,
    SHARE,
    STRING,
    STRING_MAP,
    STRINGS,
    Choice,
    OneOf,
)
from biaswh.warehouse.settings.home import warehouse_paths
from biaswh.warehouse.settings.random_seeds import derive_seed
from biaswh.warehouse.settings.study_schema import ingest_step


def _questions(con, split: str) -> list[str]:
    rows = con.execute(
        "select row_idx, question from raw.squad_questions where split = ? and source_version = ? order by row_idx",
        [split, latest_version(con, "squad", split)],
    ).fetchall()
    if not rows:
        raise UserError(f"[[ingest]] rule_variants: SQuAD dataset {split!r} is not in the warehouse: ingest it first")
    questions = [""] * (rows[-1][0] + 1)
    for row_idx, question in rows:
        questions[row_idx] = question
    return questions


@register_ingester(
    "pairs",
    options=ingest_step(
        {
            "name": STRING,
            "variants": STRING_MAP,
            "id_column": STRING,
            "squad_idx_column": STRING,
            "squad_split": STRING,
            "gold_doc_id_column": STRING,
            "corpus": STRING,
            "gold_query_id_column": STRING,
            "query_set": STRING,
            "cleanup": OneOf(
                (BOOLEAN, Choice(("light", "seed_compatible", "none"))),
                "true, false, 'light', 'seed_compatible' or 'none'",
            ),
            "allow_missing_variants": BOOLEAN,
        }
    ),
)
def ingest_pairs(con, study, step: dict) -> IngestResult:
    """``path`` (JSON, JSONL or CSV pairs) and the options of :func:`biaswh.ingest.dialect.pairs.load_pairs`."""
    return load_pairs(
        con, study.resolve(step["path"]), **{k: v for k, v in step.items() if k not in ("source", "path")}
    )


@register_ingester(
    "rule_variants",
    options=ingest_step(
        {
            "name": STRING,
            "squad_split": STRING,
            "sample": POSITIVE_INTEGER,
            "sample_seed": SEED,
            "rules": STRINGS,
            "rate": SHARE,
            "per_rule": BOOLEAN,
        },
        path=STRING,  # the folder (under the warehouse) the generated variants are written to
    ),
)
def ingest_rule_variants(con, study, step: dict) -> IngestResult:
    """Sample questions, generate the rule variants, write the pairs file and load it."""
    split = step.get("squad_split", "train")
    rules = tuple(step.get("rules", RULE_ORDER))
    name = step.get("name", f"{study.name}_rule_variants")
    protocol = SampleProtocol(
        sample_size=int(step.get("sample", 200)),
        seed=int(step.get("sample_seed", derive_seed(study.seed, "rule_variants sample", name))),
    )
    sampled = sample_questions(_questions(con, split), protocol)
    records = rule_variant_records(
        [(str(number), idx, question) for number, (idx, question) in enumerate(sampled)],
        rules=rules,
        seed=derive_seed(study.seed, "rule_variants", name),
        rate=float(step.get("rate", 1.0)),
        per_rule=bool(step.get("per_rule", True)),
    )
    for record in records:
        record["sample_protocol"] = protocol.describe()
    path = write_records(records, warehouse_paths().home / step.get("path", "generated") / f"{name}.jsonl")
    columns = variant_columns(rules, per_rule=bool(step.get("per_rule", True)))
    return load_pairs(
        con, path, name=name, variants=columns, squad_split=split, cleanup="none", allow_missing_variants=True
    )
