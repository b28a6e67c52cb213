{#
    The config of every run-keyed mart, in one place: `{{ config(**run_keyed_config()) }}`.
    - incremental, and never fully refreshed: a finished run's rows are immutable, so a
      `--full-refresh` must not drop them (biaswh rebuild recomputes chosen runs instead);
    - tag run_keyed: data tests check only the runs being built (macro get_where_subquery);
    - on_schema_change 'fail': a column added to or removed from the mart fails the build
      instead of being silently dropped from the rows it keeps;
    - the adapter's run-keyed strategy (portability/run_keyed_incremental.sql).
#}
{% macro run_keyed_config() -%}
    {{ return(dict(
        materialized='incremental',
        full_refresh=false,
        tags=['run_keyed'],
        on_schema_change='fail',
        **run_keyed_incremental()
    )) }}
{%- endmacro %}
