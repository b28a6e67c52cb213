"""An audit config (TOML): the subjects audited, one seed and one verdict policy for all of them.

```toml
[audit]
name = "audit_demo"
seed = 20261122
data = "demo"                 # what the studies run on: the families' demo data, or "real"
# real_data = "../../shared/data"   # with data = "real": the real data's folder (biaswh/common/audit_data.py)

[verdicts]                    # the audit is the family: every finding adjusted together
adjustment = "holm"
alpha = 0.05

[[subjects]]
kind = "retriever"            # retriever, embedding or llm
name = "bm25"
version = "k1-1.5"            # optional
retriever = "bm25"            # the retrieval job's retriever: bm25, dense, hybrid_rrf, ...

[[comparisons]]               # optional: two subjects of one kind, compared finding by finding
baseline = "bm25-k1-1.5"      # a subject's label: its name, or name-version
candidate = "dense-minilm"
```

Two versions of one subject (one kind and name) are compared without being declared, each
with the version declared before it.

Each kind's keys are in :data:`biaswh.common.audit_subjects.SUBJECT_KEYS`. Every problem is one
line naming the file, the subject (``[[subjects]] #2``) and the key, as a study config's are
(:mod:`biaswh.warehouse.settings.config_schema`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from biaswh.common.audit_data import REAL_FILES
from biaswh.common.audit_subjects import Comparison, Subject, check_comparisons, check_subjects
from biaswh.stats.multiple_comparisons import VerdictPolicy, verdict_policy
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.config_schema import FILE, SEED, SHARE, STRING, Checker, Choice, Table, suggestion

# The tables besides [[subjects]] and [[comparisons]] (checked per kind in load_audit).
AUDIT_TABLES = {
    "audit": Table(
        {"name": STRING, "seed": SEED, "description": STRING, "data": Choice(("demo", "real")), "real_data": FILE},
        required=("name", "seed"),
    ),
    "verdicts": Table({"adjustment": Choice(("holm", "bh")), "alpha": SHARE}),
}


@dataclass(frozen=True)
class Audit:
    """A parsed audit config."""

    path: Path
    name: str
    seed: int
    description: str
    data: str
    policy: VerdictPolicy
    subjects: tuple[Subject, ...]
    comparisons: tuple[Comparison, ...] = ()
    real_data: Path | None = None  # the real data's folder, when data = "real"

    def resolve(self, relative: str) -> str:
        """A path of the config, relative to its folder (``hf:`` ids pass through)."""
        return relative if relative.startswith("hf:") else str((self.path.parent / relative).resolve())


def load_audit(path: str | Path) -> Audit:
    """Parse and check an audit config whole; raise :class:`UserError` listing every problem, one line each."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise UserError(f"{path}: no such audit config")
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid TOML ({exc})") from None
    checker = Checker(path, check_files=True)
    head: dict = {}
    for name, value in config.items():
        if name in ("subjects", "comparisons"):
            continue
        if name not in AUDIT_TABLES:
            known = ", ".join([*(f"[{t}]" for t in AUDIT_TABLES), "[[subjects]]", "[[comparisons]]"])
            checker.problems.append(
                f"{path}: unknown table [{name}]{suggestion(name, AUDIT_TABLES, brackets=True)}; known: {known}"
            )
        elif not isinstance(value, dict):
            checker.problems.append(f"{path}: [{name}] must be a table, got {value!r}")
        else:
            head[name] = checker.table(AUDIT_TABLES[name], value, f"[{name}]")
    if "audit" not in config:
        checker.problems.append(f"{path}: [audit] needs a name and a seed")
    raw_subjects = config.get("subjects")
    if raw_subjects is None:
        checker.fail("[[subjects]]", "none: name at least one subject to audit")
    elif not isinstance(raw_subjects, list) or not all(isinstance(s, dict) for s in raw_subjects):
        checker.fail("[[subjects]]", "must be an array of tables ([[subjects]])")
        raw_subjects = []
    subjects = check_subjects(checker, path, raw_subjects or [])
    comparisons = check_comparisons(checker, config.get("comparisons", []), subjects)
    audit = head.get("audit", {})
    real_data = (path.parent / audit["real_data"]).resolve() if "real_data" in audit else None
    if audit.get("data") == "real":
        missing = [name for name in REAL_FILES if real_data is None or not (real_data / name).is_file()]
        if real_data is None:
            checker.fail(
                "[audit]", 'data = "real" needs real_data, the folder of the real data (e.g. ../../shared/data)'
            )
        elif missing:
            checker.fail("[audit]", f"real_data {str(real_data)!r} lacks {', '.join(missing)}")
    if checker.problems:
        raise UserError("\n".join(dict.fromkeys(checker.problems)))
    return Audit(
        path=path,
        name=audit["name"],
        seed=audit["seed"],
        description=audit.get("description", ""),
        data=audit.get("data", "demo"),
        policy=verdict_policy(config, where=str(path)),
        subjects=tuple(subjects),
        comparisons=tuple(comparisons),
        real_data=real_data,
    )
