{#
    The incremental config of every run-keyed model: a build replaces exactly the runs it
    computes (is_new_run) and leaves every other run's rows alone.
    DuckDB: delete+insert keyed on run_id. Spark has no delete+insert on plain Parquet; an
    insert_overwrite of a table partitioned by run_id (dynamic partition overwrite, which
    dbt-spark turns on) replaces the partitions of the runs in the new rows only: the same
    semantics. Used by run_keyed_config().
#}
{% macro run_keyed_incremental() -%}
    {{ return(adapter.dispatch('run_keyed_incremental', 'bias_warehouse')()) }}
{%- endmacro %}

{% macro default__run_keyed_incremental() -%}
    {{ return({'incremental_strategy': 'delete+insert', 'unique_key': 'run_id'}) }}
{%- endmacro %}

{% macro spark__run_keyed_incremental() -%}
    {{ return({'incremental_strategy': 'insert_overwrite', 'partition_by': ['run_id'], 'file_format': 'parquet'}) }}
{%- endmacro %}
