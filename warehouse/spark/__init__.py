"""The dbt project on Apache Spark: the JVM, the Parquet hand-off and the marts copied back into DuckDB."""
