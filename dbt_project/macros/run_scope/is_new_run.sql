{#
    Run-keyed incremental models compute only the runs they do not hold yet (and the runs
    named in var('rebuild_run_ids'), which `biaswh rebuild --run ID` sets), so a build after
    a new run costs that run's work and never rewrites an earlier run's rows. They never
    compute a withdrawn run (failed or interrupted, macro withdrawn_run_ids): a failed run's
    raw rows stay, but its results never enter a mart, not even in a later build.
    Usage, in the model's first CTE:  where {{ is_new_run('run_id') }}
    rebuild=false: a pin (the judgments a run was evaluated with) is computed once, when its
    run is first built, and `biaswh rebuild` leaves it as it is.
    listed=true: the runs are also listed as constants (macro listed_new_runs), for a model that
    reads a view expanding every run's rows and whose result no row order changes (counts, not
    sums of doubles: a scan narrowed to one run may be split across threads differently).
#}
{% macro is_new_run(run_id_column='run_id', rebuild=true, listed=false) -%}
    {#- Unit tests render models without a relation of their own (`this` is none): every run is new. -#}
    {%- if this is none -%}
        {%- do return('true') -%}
    {%- endif -%}
    {%- set condition = new_run_condition(run_id_column, rebuild) -%}
    {%- if listed and is_incremental() -%}
        {%- set runs = listed_new_runs(rebuild) -%}
        {%- if runs is not none -%}
            {%- set condition = condition ~ ' and ' ~ (
                (run_id_column ~ ' in (' ~ runs | join(', ') ~ ')') if runs else 'false'
            ) -%}
        {%- endif -%}
    {%- endif -%}
    {%- do return('(' ~ condition ~ ')') -%}
{%- endmacro %}


{# The predicate of is_new_run on `run_id_column`: not withdrawn and, in an incremental build,
   not in the model yet (or rebuilt). #}
{% macro new_run_condition(run_id_column, rebuild) -%}
    {%- set condition = not_withdrawn(run_id_column) -%}
    {%- if is_incremental() -%}
        {%- set new = [run_id_column ~ ' not in (select distinct run_id from ' ~ this ~ ')'] -%}
        {%- for rebuilt in (var('rebuild_run_ids', []) if rebuild else []) -%}
            {%- do new.append(run_id_column ~ " = '" ~ (rebuilt | replace("'", "''")) ~ "'") -%}
        {%- endfor -%}
        {%- set condition = condition ~ ' and (' ~ new | join(' or ') ~ ')' -%}
    {%- endif -%}
    {%- do return(condition) -%}
{%- endmacro %}


{#
    The runs an incremental build of the current model computes, listed when it executes: every
    recorded run (raw.runs, and the sub-runs of a family's sources with meta.parent_run_column)
    that new_run_condition keeps, as quoted literals. is_new_run(listed=true) adds `run_id in (...)`
    to its predicate: the same rows (a row's run is a recorded run: the relationships tests), but
    DuckDB pushes a list of constants into the scans under the model's views, where it evaluates
    `not in (subquery)` only after expanding every run's rows (the k grid of fct_dialect_hits_at_k:
    all runs x queries x depth; 0.08 -> 0.03 s of CPU for agg_dialect_recall_at_k in a warehouse of
    16 runs). None: no list (Spark, parsing).
#}
{% macro listed_new_runs(rebuild) -%}
    {{ return(adapter.dispatch('listed_new_runs', 'bias_warehouse')(rebuild)) }}
{%- endmacro %}

{% macro default__listed_new_runs(rebuild) -%}
    {%- if not execute -%}
        {%- do return(none) -%}
    {%- endif -%}
    {%- set runs = raw_runs_relation() -%}
    {%- set recorded = ['select run_id from ' ~ runs] -%}
    {%- for source in graph.sources.values() | sort(attribute='unique_id') -%}
        {%- if ((source.config or {}).meta or source.meta or {}).get('parent_run_column') -%}
            {%- do recorded.append('select run_id from ' ~ source.relation_name) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set query = 'select distinct recorded.run_id from (' ~ recorded | join(' union all ') ~ ') as recorded'
        ~ ' where ' ~ new_run_condition('recorded.run_id', rebuild) ~ ' order by 1' -%}
    {%- set listed = [] -%}
    {%- for row in run_query(query) -%}
        {%- do listed.append("'" ~ (row[0] | string | replace("'", "''")) ~ "'") -%}
    {%- endfor -%}
    {%- do return(listed) -%}
{%- endmacro %}

{% macro spark__listed_new_runs(rebuild) -%}
    {%- do return(none) -%}
{%- endmacro %}
