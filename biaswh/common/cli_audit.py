"""``biaswh audit AUDIT.toml``: audit subjects (retrievers, embeddings, LLMs) through every study type that applies."""

from __future__ import annotations

from biaswh.cli_help import NO_SITE_HELP
from biaswh.command_registry import register_command


def _audit_arguments(audit) -> None:
    audit.add_argument("audit", help="the audit config (TOML): its [[subjects]], seed and [verdicts]")
    audit.add_argument("--no-site", action="store_false", dest="dashboards", help=NO_SITE_HELP)


@register_command(
    "audit",
    summary="audit subjects: every study type that applies to each, one seed, one verdict policy",
    arguments=_audit_arguments,
    order=75,
    writes=True,
    explained={
        "audit": (
            "Run every study type that applies to each subject of an audit config (retrievers, embeddings,"
            " LLMs) on the families' demo data, in this warehouse, and adjust all their findings together.",
            "biaswh audit studies/audit_demo.toml",
            "subject_findings and dim_subjects (biaswh sql), the subjects' profile pages on the dashboard site"
            " (with --no-site not redrawn: `biaswh dashboards` draws it); the study configs it ran in"
            " $BIASWH_HOME/audits/<audit>/",
        )
    },
)
def audit(args) -> None:
    """``biaswh audit AUDIT.toml``: the audit end to end, then the site (not with ``--no-site``)."""
    from biaswh.common.audit_run import run_audit
    from biaswh.run_outcome import SITE_NOT_REDRAWN

    index = run_audit(args.audit, build_site=args.dashboards)
    print(f"dashboard site: {index}" if args.dashboards else SITE_NOT_REDRAWN)
