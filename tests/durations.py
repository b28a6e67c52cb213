"""How long each test module took in `make test`, for the order pytest-xdist hands modules out in.

``tests/durations.json`` maps each module (``tests/.../test_x.py``) to the seconds its tests took
(setup and teardown included) in a `make test` run, rounded. :mod:`tests.scheduling` hands the
longest groups out first, so the last minutes of a run are short modules on both workers, not one
long module on one worker while the other waits. A module missing from the file counts
:data:`SECONDS_PER_UNKNOWN_TEST` per test. To refresh it from a run's JUnit report::

    .venv/bin/python -m pytest -n 2 --dist loadgroup --junitxml=/tmp/junit.xml
    .venv/bin/python -m tests.durations /tmp/junit.xml
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

DURATIONS_FILE = Path(__file__).with_name("durations.json")
SECONDS_PER_UNKNOWN_TEST = 1.0


def module_seconds(junit_xml: Path) -> dict[str, float]:
    """Seconds per test module in a pytest JUnit report (``classname`` a.b.test_x → a/b/test_x.py)."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ElementTree.parse(junit_xml).iter("testcase"):
        classname = case.get("classname") or ""
        parts = classname.split(".")
        # A test inside a class: classname ends with the class name (capitalised, by convention).
        while parts and parts[-1][:1].isupper():
            parts.pop()
        if any(parts):  # a module that failed to import reports a case with no classname
            seconds["/".join(parts) + ".py"] += float(case.get("time") or 0)
    return dict(seconds)


def load() -> dict[str, float]:
    """The committed seconds per module; empty when the file is missing or unreadable."""
    try:
        return {str(k): float(v) for k, v in json.loads(DURATIONS_FILE.read_text(encoding="utf-8")).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.durations JUNIT_XML", file=sys.stderr)
        return 2
    seconds = {module: round(value, 1) for module, value in sorted(module_seconds(Path(argv[0])).items())}
    DURATIONS_FILE.write_text(json.dumps(seconds, indent=1) + "\n", encoding="utf-8")
    print(f"{DURATIONS_FILE}: {len(seconds)} modules, {sum(seconds.values()):.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
