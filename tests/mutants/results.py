"""mutmut's verdicts for one module, the survivors judged equivalent, and the kill rate.

A mutant is *killed* when a guard test failed on it (a timeout or a crash counts: the mutant was
noticed). It *survived* when every test that runs the mutated function passed, or when no guard
test runs that function at all ("no tests"). A survivor listed in ``equivalent.toml`` with the
change it makes and the reason it cannot be told apart from the original is left out of the rate
and shown with its reason; an entry whose change no longer matches the mutant of that name (the
function was edited and mutmut renumbered) no longer excuses it.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


def installed_path(module: str) -> str:
    """Where ``module`` (a checkout path) sits in an install: ``stats/wilson.py`` → ``biaswh/stats/wilson.py``."""
    return module if module.split("/")[0] == "biaswh" else f"biaswh/{module}"


def mutant_prefix(module: str) -> str:
    """The start of every mutant name of ``module``: ``stats/wilson.py`` → ``biaswh.stats.wilson.``."""
    return installed_path(module).removesuffix(".py").replace("/", ".") + "."


EQUIVALENT_FILE = Path(__file__).with_name("equivalent.toml")
# mutmut's exit codes (mutmut/stats.py, 3.8.1) as the verdicts this report counts.
KILLED_CODES = {1: "killed", 3: "killed", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout"}
KILLED_CODES |= {255: "timeout", 37: "caught by type check", -11: "crashed", -9: "crashed"}
SURVIVED_CODES = {0: "survived", 5: "no tests", 33: "no tests"}
NOT_KILLED = {"survived", "no tests", "suspicious"}


def status_of(exit_code: int | None) -> str:
    """The verdict of a mutant from the exit code mutmut stored (None: not run yet)."""
    if exit_code is None:
        return "not checked"
    return KILLED_CODES.get(exit_code) or SURVIVED_CODES.get(exit_code) or "suspicious"


def module_results(folder: Path, module: str) -> dict[str, str]:
    """Every mutant of ``module`` in the workspace ``folder`` and its verdict (empty before a run)."""
    meta = folder / "mutants" / f"{installed_path(module)}.meta"
    if not meta.exists():
        return {}
    exit_codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    return {name: status_of(code) for name, code in sorted(exit_codes.items())}


def changed_lines(diff: str) -> str:
    """The removed and added lines of a unified diff, stripped: what a mutation changes."""
    lines = diff.splitlines()
    kept = [line[0] + " " + line[1:].strip() for line in lines if line[:1] in "+-" and line[:3] not in ("---", "+++")]
    return "\n".join(kept)


def load_equivalents(path: Path = EQUIVALENT_FILE) -> dict[str, dict[str, str]]:
    """``equivalent.toml``: mutant name → its ``change`` (see :func:`changed_lines`) and ``reason``."""
    table = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    for name, entry in table.items():
        if set(entry) != {"change", "reason"} or not entry["reason"].strip():
            raise ValueError(f"{path.name}: {name} needs exactly a change and a non-empty reason")
    return table


@dataclass
class ModuleReport:
    """The verdicts of one module's mutants, with the equivalent survivors set apart."""

    module: str
    statuses: dict[str, str]
    diffs: dict[str, str] = field(default_factory=dict)
    equivalents: dict[str, dict[str, str]] = field(default_factory=dict)

    def _excused(self, name: str) -> bool:
        entry = self.equivalents.get(name)
        return entry is not None and name in self.diffs and changed_lines(self.diffs[name]) == entry["change"]

    @property
    def killed(self) -> list[str]:
        return [name for name, status in self.statuses.items() if status not in NOT_KILLED | {"not checked"}]

    @property
    def equivalent(self) -> list[str]:
        return [name for name, status in self.statuses.items() if status in NOT_KILLED and self._excused(name)]

    @property
    def survivors(self) -> list[str]:
        return [name for name, status in self.statuses.items() if status in NOT_KILLED and not self._excused(name)]

    @property
    def not_checked(self) -> list[str]:
        return [name for name, status in self.statuses.items() if status == "not checked"]

    @property
    def stale_equivalents(self) -> list[str]:
        """Entries for this module that excuse no surviving mutant (killed now, renamed, or changed)."""
        prefix = mutant_prefix(self.module)
        return [name for name in self.equivalents if name.startswith(prefix) and name not in self.equivalent]

    @property
    def kill_rate(self) -> float | None:
        """Killed / (killed + unexplained survivors); None when nothing was judged."""
        judged = len(self.killed) + len(self.survivors)
        return len(self.killed) / judged if judged else None

    def lines(self) -> list[str]:
        """The report: one summary line, then each survivor's change and each equivalent's reason."""
        rate = "n/a" if self.kill_rate is None else f"{self.kill_rate:.1%}"
        summary = (
            f"{self.module}: kill rate {rate} ({len(self.killed)} killed, {len(self.survivors)} survived,"
            f" {len(self.equivalent)} equivalent excluded"
            + (f", {len(self.not_checked)} not checked" if self.not_checked else "")
            + ")"
        )
        out = [summary]
        for name in self.survivors:
            out.append(f"  SURVIVED {name} [{self.statuses[name]}]")
            out += ["      " + line for line in changed_lines(self.diffs.get(name, "")).splitlines()]
        for name in self.equivalent:
            out.append(f"  equivalent {name}: {self.equivalents[name]['reason']}")
        for name in self.stale_equivalents:
            out.append(f"  stale entry in equivalent.toml (excuses nothing now): {name}")
        return out
