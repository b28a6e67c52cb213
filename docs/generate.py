"""Fill the generated regions of README.md and docs/*.md, or check them, or record study runs.

    python -m docs.generate                 rewrite every generated region
    python -m docs.generate --check         exit 1 naming each file whose regions are stale
    python -m docs.generate record --warehouse HOME STUDY...
                                            store the time and findings of each study's latest
                                            succeeded run in HOME (docs/study_results.json)

Region names: ``studies`` (the README's study table), ``finding:A,B`` (those studies' recorded
findings), ``config:A,B`` (the keys of config tables [A] and [B]), ``config:ingest`` (every
ingest source's keys), ``config:all``, ``sql:contracts``, ``sql:marts``, ``sql:analysis``, ``cli`` (every
command's --help) and ``benchmarks``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from docs import benchmarks_page, cli_reference, config_tables, regions, sql_reference, study_facts


def render(name: str) -> str:
    """The body of the region called ``name``."""
    kind, _, argument = name.partition(":")
    names = [a for a in argument.split(",") if a]
    if kind == "studies":
        return study_facts.studies_table()
    if kind == "finding":
        return study_facts.findings(names)
    if kind == "config" and names == ["ingest"]:
        return config_tables.ingest_tables()
    if kind == "config" and names == ["all"]:
        return config_tables.key_table(config_tables.all_sections())
    if kind == "config":
        return config_tables.key_table(names)
    if kind == "sql" and names == ["contracts"]:
        return sql_reference.contract_reference()
    if kind == "sql":
        return sql_reference.schema_reference(names[0])
    if kind == "benchmarks":
        return benchmarks_page.benchmark_tables()
    if kind == "cli":
        return cli_reference.cli_reference()
    raise ValueError(f"unknown generated region {name!r}")


def stale_files(root: Path = REPOSITORY_ROOT) -> dict[Path, str]:
    """Each document whose generated regions differ from what :func:`render` gives: its new text."""
    cache: dict[str, str] = {}

    def cached(name: str) -> str:
        if name not in cache:
            cache[name] = render(name)
        return cache[name]

    changed = {}
    for path in regions.documents(root):
        text = path.read_text(encoding="utf-8")
        new = regions.fill(text, cached)
        if new != text:
            changed[path] = new
    return changed


def main(argv: list[str] | None = None) -> int:
    """The command line above; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m docs.generate", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="report stale files instead of writing them")
    commands = parser.add_subparsers(dest="command")
    record = commands.add_parser("record", help="store studies' run times and findings from a warehouse")
    record.add_argument("--warehouse", required=True, type=Path, help="the warehouse folder (a BIASWH_HOME)")
    record.add_argument("studies", nargs="+", help="study names ([study] name)")
    args = parser.parse_args(argv)
    if args.command == "record":
        study_facts.record(args.warehouse, args.studies)
    changed = stale_files()
    if args.check:
        for path in changed:
            print(f"{path.relative_to(REPOSITORY_ROOT)}: generated regions are stale (python -m docs.generate)")
        return 1 if changed else 0
    for path, text in changed.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(REPOSITORY_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
