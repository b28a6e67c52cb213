{#
    A query of the runs whose rows no build computes or tests: runs that failed or were
    interrupted, and the sub-runs of such a run (they finish one by one, before their study
    run fails). A family declares a raw table of sub-runs in its sources yml with
    `config: {meta: {parent_run_column: <column naming the study run>}}`; every such table
    joins here (warehouse/sub_runs.py is the same declaration for Python).
    A failed run's raw rows stay for forensics; this keeps them out of every run-keyed mart
    and every data test.
    Reads the raw tables through the graph, not source() (raw_runs_relation), so a model or test
    using it gains no dependency.
#}
{% macro withdrawn_run_ids() -%}
    {%- if not execute -%}
        {%- do return('select null as run_id') -%}
    {%- endif -%}
    {%- set runs = raw_runs_relation() -%}
    {%- set query = ["select withdrawn.run_id from " ~ runs ~ " as withdrawn"
        ~ " where withdrawn.status in ('failed', 'interrupted')"] -%}
    {%- for source in graph.sources.values() | sort(attribute='unique_id') -%}
        {%- set parent_column = ((source.config or {}).meta or source.meta or {}).get('parent_run_column') -%}
        {%- if parent_column -%}
            {%- do query.append("select child.run_id from " ~ source.relation_name ~ " as child"
                ~ " inner join " ~ runs ~ " as parent on child." ~ parent_column ~ " = parent.run_id"
                ~ " where parent.status in ('failed', 'interrupted')") -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do return(query | join(' union all ')) -%}
{%- endmacro %}


{#
    The predicate, on `run_id_column`, that keeps withdrawn runs out. A Spark build lists them
    in BIASWH_WITHDRAWN_RUN_IDS (read from the raw Parquet it exported; warehouse/spark_target.py):
    Spark plans `not in (subquery)` as a null-aware anti join, about half a second of every
    data test and incremental model on small data. Unset (DuckDB, a plain `dbt build`), the
    subquery of withdrawn_run_ids(); set and empty, no run is withdrawn (`1 = 1`: Spark reads
    `from t where (true)` as the alias `where` with a column list).
#}
{% macro not_withdrawn(run_id_column) -%}
    {%- set listed = env_var('BIASWH_WITHDRAWN_RUN_IDS', 'unset') if execute else 'unset' -%}
    {%- if listed == 'unset' -%}
        {%- do return(run_id_column ~ ' not in (' ~ withdrawn_run_ids() ~ ')') -%}
    {%- endif -%}
    {%- set withdrawn = [] -%}
    {%- for run_id in listed.split(',') if run_id | trim -%}
        {%- do withdrawn.append("'" ~ (run_id | trim | replace("'", "''")) ~ "'") -%}
    {%- endfor -%}
    {%- do return((run_id_column ~ ' not in (' ~ withdrawn | join(', ') ~ ')') if withdrawn else '1 = 1') -%}
{%- endmacro %}


{#
    The predicate, on `run_id_column`, that data tests of run-keyed models add (macro
    get_where_subquery): the runs being built. BIASWH_BUILD_RUN_IDS (comma-separated; a study
    sets its run and evaluation runs, `biaswh rebuild` the rebuilt ones) names them; unset
    (`biaswh build`, a plain `dbt build`), every run that is not withdrawn. A row without a
    run is always tested (not_null tests).
    An environment variable, not a dbt var: a new --vars value makes dbt re-parse the whole
    project (seconds per build), and an env_var read only when executing is not part of the
    parse state, so a new value costs nothing.
#}
{% macro is_built_run(run_id_column) -%}
    {%- set listed = (env_var('BIASWH_BUILD_RUN_IDS', '') if execute else '').split(',') -%}
    {%- set built = [] -%}
    {%- for run_id in listed if run_id | trim -%}
        {%- do built.append("'" ~ (run_id | trim | replace("'", "''")) ~ "'") -%}
    {%- endfor -%}
    {%- if built -%}
        {%- do return('(' ~ run_id_column ~ ' is null or ' ~ run_id_column ~ ' in (' ~ built | join(', ') ~ '))') -%}
    {%- endif -%}
    {%- do return('(' ~ run_id_column ~ ' is null or ' ~ not_withdrawn(run_id_column) ~ ')') -%}
{%- endmacro %}
