"""``biaswh variants``: make dialect variants of questions (offline rules), and judge them.

```bash
biaswh variants rules --pairs PAIRS.json [--report report.json]   # ours beside the human-checked variants
biaswh variants rules --squad train.parquet --sample 2000 --out pairs.jsonl [--rules a,b] [--seed S]
```
"""

from __future__ import annotations

import json
from pathlib import Path

from warehouse.errors import UserError


def add_variants_parser(commands) -> None:
    variants = commands.add_parser("variants", help="dialect variants of questions: offline rules")
    kinds = variants.add_subparsers(dest="variants_command", required=True)
    rules = kinds.add_parser(
        "rules",
        help="rule-based AAE variants (ingest/dialect_rules.py); with --pairs, compare them with human-checked ones",
    )
    source = rules.add_mutually_exclusive_group(required=True)
    source.add_argument("--pairs", help="a pairs file (JSON/JSONL/CSV): our variant of each SAE query beside its AAE")
    source.add_argument("--squad", help="SQuAD Parquet/JSON: sample questions as the original study and convert them")
    rules.add_argument("--out", help="with --squad: the pairs JSONL to write")
    rules.add_argument("--report", help="with --pairs: write the agreement report (every pair side by side) as JSON")
    rules.add_argument("--sae-column", default="sae_query")
    rules.add_argument("--human-column", default="aave_query")
    rules.add_argument("--sample", type=int, default=200, help="questions to sample (original protocol)")
    rules.add_argument("--sample-seed", type=int, default=42, help="seed of the question sample (original: 42)")
    rules.add_argument("--seed", type=int, default=0, help="seed of the rules (matters only with --rate below 1)")
    rules.add_argument("--rate", type=float, default=1.0, help="probability a rule fires at a matching site")
    rules.add_argument("--rules", help="comma-separated rule names (default: all)")
    rules.add_argument("--show", type=int, default=10, help="pairs to print side by side")


def _print_agreement(report: dict, show: int) -> None:
    summary = report["summary"]
    print(f"{summary['n_pairs']} pairs: our rule variant beside the human-checked one")
    for key, value in summary.items():
        if key != "n_pairs":
            print(f"  {key}: {value}")
    print("per rule (fired: pairs the rule alone changes; share_human_agrees: the human variant makes that edit)")
    for rule, counts in report["per_rule"].items():
        print(f"  {rule:26} fired {counts['fired']:4}  agrees {counts['share_human_agrees']}  [{counts['source']}]")
    for row in report["pairs"][:show]:
        print(f"\n  SAE:   {row['sae']}\n  human: {row['human']}\n  rules: {row['rules']}  {row['rules_fired']}")


def run_variants(args) -> None:
    from ingest.dialect_rules import RULE_ORDER
    from ingest.readers import read_records
    from ingest.rule_variants import agreement_with_human, rule_variant_records, write_records

    rules = tuple(r.strip() for r in args.rules.split(",")) if args.rules else RULE_ORDER
    if args.pairs:
        records = read_records(Path(args.pairs), allowed=("json", "jsonl", "csv"))
        report = agreement_with_human(
            records, sae_column=args.sae_column, human_column=args.human_column, seed=args.seed
        )
        _print_agreement(report, args.show)
        if args.report:
            Path(args.report).write_text(json.dumps(report, indent=1, ensure_ascii=False), "utf-8")
            print(f"\nwrote {args.report}")
        return
    if not args.out:
        raise UserError("biaswh variants rules --squad needs --out (the pairs JSONL to write)")
    import pyarrow.parquet as pq

    from ingest.question_sample import SampleProtocol, sample_questions

    path = Path(args.squad)
    if path.suffix == ".parquet":
        questions = pq.read_table(path, columns=["question"]).column("question").to_pylist()
    else:
        questions = [r["question"] for r in read_records(path, allowed=("json", "jsonl"))]
    protocol = SampleProtocol(sample_size=args.sample, seed=args.sample_seed)
    sampled = sample_questions(questions, protocol)
    records = rule_variant_records(
        [(str(n), idx, q) for n, (idx, q) in enumerate(sampled)], rules=rules, seed=args.seed, rate=args.rate
    )
    for record in records:
        record["sample_protocol"] = protocol.describe()
    write_records(records, Path(args.out))
    fired = sum(bool(r["rules_fired"]) for r in records)
    print(f"wrote {len(records):,} pairs to {args.out} ({fired:,} changed by at least one rule)")
