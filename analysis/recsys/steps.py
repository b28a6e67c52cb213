"""The recommendation-bias family's analysis layer.

Its tests and their adjustment run between the dbt builds (:mod:`biaswh.compute.recsys.steps`)
and its normalisation in SQL; here it declares its findings about the LLMs it measures
(:mod:`biaswh.analysis.recsys.subject_findings`), so ``subject_findings`` holds them.
"""

from __future__ import annotations

from biaswh.analysis.recsys import subject_findings  # noqa: F401 - registers the models' findings
