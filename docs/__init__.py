"""The documentation site's sources (Markdown) and the code that fills their generated regions.

``python -m docs.generate`` rewrites every ``<!-- generated:NAME -->`` region of README.md and
docs/*.md from what the code, the dbt project, the benchmark results and the study runs say.
"""
