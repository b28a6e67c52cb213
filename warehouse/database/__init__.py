"""The warehouse's DuckDB file: opening it, one writer at a time, transactions, the read-only sandbox, output files."""
