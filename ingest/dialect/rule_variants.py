"""Pairs files of rule-based AAE variants, and how they compare with human-checked ones.

:func:`rule_variant_records` turns questions into pairs-file records in our wide input
format (``ingest/dialect/pairs.py`` reads them): ``sae_query``; ``aae_rules_query``, every chosen
rule applied; one ``rule_<name>_query`` column per rule, that rule alone, present only when
it changed the question (so a per-rule comparison covers exactly the pairs the rule
touched); ``rules_fired``; and the provenance (``conversion_method``, ``rule_sources``).

:func:`agreement_with_human` runs the rules on the SAE side of human-checked pairs and
reports how close our variant comes to the human one, overall and per rule.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from biaswh.ingest.dialect.rules import RULE_ORDER, RULES, transform
from biaswh.ingest.dialect.text_distance import token_edit_distance
from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.settings.random_seeds import derive_seed

ALL_RULES_COLUMN = "aae_rules_query"


def rule_column(rule: str) -> str:
    """The pairs-file column of the variant with ``rule`` alone."""
    return f"rule_{rule}_query"


def variant_columns(rules: tuple[str, ...] = RULE_ORDER, *, per_rule: bool = True) -> dict[str, str]:
    """Variant label -> column for ``load_pairs(variants=...)``: sae, aae_rules and (``per_rule``) one per rule."""
    singles = {f"rule_{r}": rule_column(r) for r in rules} if per_rule else {}
    return {"sae": "sae_query", "aae_rules": ALL_RULES_COLUMN, **singles}


def rule_variant_records(
    items: list[tuple[str, int, str]],
    *,
    rules: tuple[str, ...] = RULE_ORDER,
    seed: int,
    rate: float = 1.0,
    per_rule: bool = True,
) -> list[dict]:
    """One pairs-file record per (pair id, SQuAD row, question); ``per_rule=False`` leaves out the single-rule columns.

    Every variant of a pair draws from the seed ``derive_seed(seed, pair_id, rule set)``, so a
    pair's variants do not depend on which other pairs are generated.
    """
    method = f"rules-v1 (ingest/dialect/rules.py): {', '.join(rules)}; rate {rate:g}; seed {seed}"
    records = []
    for pair_id, squad_idx, question in items:
        every = transform(question, rules, seed=derive_seed(seed, "rules", pair_id, "all"), rate=rate)
        record = {
            "id": pair_id,
            "squad_idx": squad_idx,
            "sae_query": question,
            ALL_RULES_COLUMN: every.text,
            "rules_fired": list(every.rules_fired),
            "conversion_method": method,
        }
        for rule in rules if per_rule else ():
            alone = transform(question, (rule,), seed=derive_seed(seed, "rules", pair_id, rule), rate=rate)
            record[rule_column(rule)] = alone.text if alone.rules_fired else None
        records.append(record)
    return records


def write_records(records: list[dict], path: Path) -> Path:
    """Write records as JSONL (sorted keys, one per line): the same records give the same bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records))
    return path


def _summary(values: list[float]) -> dict:
    return {
        "mean": round(statistics.fmean(values), 4) if values else None,
        "median": statistics.median(values) if values else None,
        "max": max(values) if values else None,
    }


def _agrees(sae: str, ours: str, human: str) -> bool:
    """Whether the human variant makes the edit the rule made: words it added are there, words it removed are not."""
    sae_words, our_words, human_words = (
        {t.lower().replace("’", "'").strip("?,.") for t in text.split()} for text in (sae, ours, human)
    )
    added, removed = our_words - sae_words, sae_words - our_words
    return added <= human_words and not (removed & human_words)


def agreement_with_human(
    pairs: list[dict], *, sae_column: str = "sae_query", human_column: str = "aave_query", seed: int = 0
) -> dict:
    """Our all-rules variant beside the human one, for each pair, with agreement statistics.

    Returns ``{"summary": ..., "per_rule": ..., "pairs": [...]}``: share of our variants
    identical to the human one; token edit distance ours-human next to SAE-human (does the
    rule variant move toward the human one?); per rule, how often it fired and the share of
    those pairs where the human variant made the same edit.
    """
    rows, per_rule = [], {rule: {"fired": 0, "human_agrees": 0} for rule in RULE_ORDER}
    for pair in pairs:
        sae, human, pair_id = pair[sae_column], pair[human_column], str(pair.get("id"))
        ours = transform(sae, seed=derive_seed(seed, "rules", pair_id, "all"))
        rows.append(
            {
                "id": pair_id,
                "sae": sae,
                "human": human,
                "rules": ours.text,
                "rules_fired": list(ours.rules_fired),
                "rules_equal_human": ours.text == human,
                "distance_rules_human": token_edit_distance(ours.text, human),
                "distance_sae_human": token_edit_distance(sae, human),
            }
        )
        for rule in RULE_ORDER:
            alone = transform(sae, (rule,), seed=derive_seed(seed, "rules", pair_id, rule))
            if alone.rules_fired:
                per_rule[rule]["fired"] += 1
                per_rule[rule]["human_agrees"] += _agrees(sae, alone.text, human)
    n = len(rows)
    summary = {
        "n_pairs": n,
        "share_rules_equal_human": round(sum(r["rules_equal_human"] for r in rows) / n, 4) if n else None,
        "share_human_equal_sae": round(sum(r["human"] == r["sae"] for r in rows) / n, 4) if n else None,
        "share_rules_unchanged": round(sum(not r["rules_fired"] for r in rows) / n, 4) if n else None,
        "share_closer_to_human_than_sae": round(
            sum(r["distance_rules_human"] < r["distance_sae_human"] for r in rows) / n, 4
        )
        if n
        else None,
        "distance_rules_human": _summary([r["distance_rules_human"] for r in rows]),
        "distance_sae_human": _summary([r["distance_sae_human"] for r in rows]),
    }
    for rule, counts in per_rule.items():
        counts["share_human_agrees"] = round(counts["human_agrees"] / counts["fired"], 4) if counts["fired"] else None
        counts["source"] = RULES[rule].source
    return {"summary": summary, "per_rule": per_rule, "pairs": rows}
