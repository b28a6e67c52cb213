"""``biaswh variants``: make dialect variants of questions (offline rules), and judge them.

```bash
biaswh variants rules --pairs PAIRS.json [--report report.json]   # ours beside the human-checked variants
biaswh variants rules --squad train.parquet --sample 2000 --out pairs.jsonl [--rules a,b] [--seed S]
biaswh variants llm --squad train.parquet --sample 200 --model M --base-url URL --out conversions.jsonl \
    --pairs-out pairs.json   # the original LLM protocol; resumable (the --out JSONL is the cache)
```
"""

from __future__ import annotations

import json
from pathlib import Path

from biaswh.arguments import MAX_TOKENS, add_endpoint_options, endpoint_pool, endpoint_settings, number
from biaswh.command_registry import register_command
from biaswh.output_options import register_output_options
from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.config_schema import (
    COUNT,
    POSITIVE_INTEGER,
    SEED,
    SHARE,
    TEMPERATURE,
    TOP_P,
)


def _arguments(variants) -> None:
    """Add ``biaswh variants rules|llm`` and their options."""
    kinds = variants.add_subparsers(dest="variants_command", required=True)
    rules = kinds.add_parser(
        "rules",
        help="rule-based AAE variants (ingest/dialect/rules.py); with --pairs, compare them with human-checked ones",
    )
    source = rules.add_mutually_exclusive_group(required=True)
    source.add_argument("--pairs", help="a pairs file (JSON/JSONL/CSV): our variant of each SAE query beside its AAE")
    source.add_argument("--squad", help="SQuAD Parquet/JSON: sample questions as the original study and convert them")
    rules.add_argument("--out", help="with --squad: the pairs JSONL to write")
    rules.add_argument("--report", help="with --pairs: write the agreement report (every pair side by side) as JSON")
    rules.add_argument("--sae-column", default="sae_query", help="--pairs: column of the SAE question")
    rules.add_argument("--human-column", default="aave_query", help="--pairs: column of the human-checked variant")
    rules.add_argument(
        "--sample", type=number(POSITIVE_INTEGER), default=200, help="questions to sample (original protocol)"
    )
    rules.add_argument(
        "--sample-seed", type=number(SEED), default=42, help="seed of the question sample (original: 42)"
    )
    rules.add_argument(
        "--seed", type=number(SEED), default=0, help="seed of the rules (matters only with --rate below 1)"
    )
    rules.add_argument("--rate", type=number(SHARE), default=1.0, help="probability a rule fires at a matching site")
    rules.add_argument("--rules", help="comma-separated rule names (default: all)")
    rules.add_argument("--show", type=number(COUNT), default=10, help="pairs to print side by side")
    _add_llm_parser(kinds)


def _add_llm_parser(kinds) -> None:
    from biaswh.ingest.dialect.conversion_settings import ConversionSettings as Defaults

    llm = kinds.add_parser("llm", help="convert sampled SQuAD questions with an OpenAI-compatible endpoint")
    llm.add_argument("--squad", required=True, help="SQuAD Parquet/JSON/JSONL whose questions are sampled")
    llm.add_argument(
        "--sample", type=number(POSITIVE_INTEGER), default=200, help="questions to sample (original protocol: 200)"
    )
    llm.add_argument("--sample-seed", type=number(SEED), default=42, help="seed of the question sample (original: 42)")
    llm.add_argument("--model", required=True, help="model name the endpoint serves")
    llm.add_argument("--base-url", required=True, help="e.g. https://api.openai.com/v1 or http://localhost:1234/v1")
    llm.add_argument("--out", required=True, help="conversions JSONL; also the cache a rerun resumes from")
    llm.add_argument("--pairs-out", help="write the accepted conversions as a pairs file (biaswh ingest pairs)")
    llm.add_argument("--report", help="write the report (acceptance, identical share, edit distances) as JSON")
    llm.add_argument("--api-key-env", default=Defaults.api_key_env, help="variable holding the key (never written)")
    llm.add_argument("--template-file", help="prompt template with {sae_query} (default: ours, see --help source)")
    llm.add_argument(
        "--max-tokens",
        type=number(MAX_TOKENS),
        default=Defaults.max_tokens,
        help=f"longest reply, in tokens (default: {Defaults.max_tokens})",
    )
    llm.add_argument("--temperature", type=number(TEMPERATURE), help="sent only when set (the original left it unset)")
    llm.add_argument("--top-p", type=number(TOP_P), help="sent only when set (the original left it unset)")
    llm.add_argument("--seed", type=number(SEED), help="sampling seed sent to the endpoint (where supported)")
    add_endpoint_options(llm, Defaults)


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


def _read_questions(path: Path) -> list[str]:
    """The questions of a SQuAD file in row order, read as ``biaswh ingest squad`` reads it.

    The same reader keeps each question's position equal to its ``row_idx`` in the warehouse
    (the pairs' ``squad_idx``); official JSON, a JSON array, JSONL and Parquet are accepted.
    """
    from biaswh.ingest.retrieval.squad import _local_records
    from biaswh.warehouse.errors import InputError

    questions = []
    for index, record in enumerate(_local_records(path)):
        question = record.get("question") if isinstance(record, dict) else None
        if not isinstance(question, str) or not question.strip():
            where = record.get("_where", index + 1) if isinstance(record, dict) else index + 1
            raise InputError(path, "missing or empty text", row=where, field="question")
        questions.append(question)
    return questions


def _run_llm(args) -> None:
    from biaswh.ingest.dialect.convert_with_llm import ConversionSettings, convert_questions, read_cache, write_pairs
    from biaswh.ingest.dialect.question_sample import SampleProtocol, sample_questions

    template = {"prompt_template": Path(args.template_file).read_text("utf-8")} if args.template_file else {}
    settings = ConversionSettings(**template, **endpoint_settings(args))
    protocol = SampleProtocol(sample_size=args.sample, seed=args.sample_seed)
    sampled = sample_questions(_read_questions(Path(args.squad)), protocol)
    items = [(str(n), idx, q) for n, (idx, q) in enumerate(sampled)]
    with endpoint_pool(args):
        report = convert_questions(items, args.out, settings)
    print(json.dumps(report, indent=1))
    if report["n_failed"]:
        print(f"{report['n_failed']} of {report['n_questions']} question(s) failed; rerun to send only those")
    if args.report:
        write_text_atomically(Path(args.report), json.dumps(report, indent=1))
    if args.pairs_out:
        records = read_cache(Path(args.out))
        finished = [records[i[0]] for i in items if i[0] in records]
        n = write_pairs(finished, args.pairs_out, settings, protocol.describe())
        print(f"wrote {n:,} accepted pairs to {args.pairs_out}")


register_output_options("variants rules", "out", "report")
register_output_options("variants llm", "out", "pairs_out", "report")


@register_command(
    "variants",
    summary="dialect variants of questions: offline rules or an LLM",
    arguments=_arguments,
    order=150,
    explained={
        "variants": (
            "Make dialect variants of questions: offline rules, or an LLM behind an endpoint.",
            "biaswh variants rules --squad train.parquet --sample 2000 --out rules.jsonl",
            "Writes the files its --out options name.",
        ),
        "variants rules": (
            "Turn SAE questions into AAE variants with the offline rules (each a documented eWAVE"
            " feature); or compare the rules with human-checked variants (--pairs, --report).",
            "biaswh variants rules --squad train.parquet --sample 2000 --out rules.jsonl",
            "Writes --out (a pairs file for `biaswh ingest pairs`) and --report.",
        ),
        "variants llm": (
            "Convert sampled SQuAD questions into AAE with an LLM, as the original study did.",
            "biaswh variants llm --squad train.parquet --sample 200 --model gpt-4.1-mini"
            " --base-url https://api.openai.com/v1 --out conversions.jsonl --pairs-out llm_pairs.json",
            "Writes --out (the resumable conversions cache) and --pairs-out.",
        ),
    },
)
def run_variants(args) -> None:
    """Run ``biaswh variants``: write rule-based or LLM-converted variants of a questions file."""
    if args.variants_command == "llm":
        return _run_llm(args)
    from biaswh.ingest.common.readers import read_records
    from biaswh.ingest.dialect.rule_variants import agreement_with_human, rule_variant_records, write_records
    from biaswh.ingest.dialect.rules import RULE_ORDER

    rules = tuple(r.strip() for r in args.rules.split(",")) if args.rules else RULE_ORDER
    if args.pairs:
        records = read_records(Path(args.pairs), allowed=("json", "jsonl", "csv"))
        report = agreement_with_human(
            records, sae_column=args.sae_column, human_column=args.human_column, seed=args.seed
        )
        _print_agreement(report, args.show)
        if args.report:
            write_text_atomically(Path(args.report), json.dumps(report, indent=1, ensure_ascii=False))
            print(f"\nwrote {args.report}")
        return
    if not args.out:
        raise UserError("biaswh variants rules --squad needs --out (the pairs JSONL to write)")
    from biaswh.ingest.dialect.question_sample import SampleProtocol, sample_questions

    questions = _read_questions(Path(args.squad))
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
