"""Speed measurements (`make bench`), each written to ``benchmarks/results/<name>.json`` and printed."""
