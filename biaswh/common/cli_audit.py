"""``biaswh audit AUDIT.toml``: audit subjects (retrievers, embeddings, LLMs) through every study type that applies."""

from __future__ import annotations

from biaswh.command_registry import register_command


def _audit_arguments(audit) -> None:
    audit.add_argument("audit", help="the audit config (TOML): its [[subjects]], seed and [verdicts]")


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
            "subject_findings and dim_subjects (biaswh sql), the subjects' profile pages on the dashboard site;"
            " the study configs it ran in $BIASWH_HOME/audits/<audit>/",
        )
    },
)
def audit(args) -> None:
    """``biaswh audit AUDIT.toml``: the audit end to end, then the site."""
    from biaswh.common.audit_run import run_audit

    print(f"dashboard site: {run_audit(args.audit)}")
