{# The original's markers from the share of underlying conditions with p < alpha:
   '***' above 75 %, '**' above 60 %, '*' above 50 %, '' otherwise (null share: null).
   thresholds: the alias of a significance_thresholds_by_run relation joined on the run. #}
{% macro significance_marker(share_column, thresholds) -%}
case
    when {{ share_column }} is null then null
    when {{ share_column }} > {{ thresholds }}.three_stars then '***'
    when {{ share_column }} > {{ thresholds }}.two_stars then '**'
    when {{ share_column }} > {{ thresholds }}.one_star then '*'
    else ''
end
{%- endmacro %}

{# A select of each run of `relation` (run_id) with its marker thresholds (run parameters), to
   join on run_id (`is not distinct from`) before significance_marker: once per run rather
   than a correlated subquery per row and marker, which Spark's optimizer multiplies into
   minutes (and out of memory) over the five-level union of agg_recsys_bias.
   The runs are listed from raw.runs (those is_new_run keeps), not from `relation`'s rows: Spark
   inlines a CTE read twice, so `select distinct run_id` over the mart's rows planned the
   five-level union a second time (a row's run is a recorded run: the relationships tests).
   raw_runs_relation gains the mart no dependency; a unit test (no relation of its own, no
   warehouse runs) lists `relation`'s. #}
{% macro significance_thresholds_by_run(relation) -%}
    select
        runs.run_id,
        {{ run_parameter('recsys_marker_three_stars', 'runs.run_id', 'double') }} as three_stars,
        {{ run_parameter('recsys_marker_two_stars', 'runs.run_id', 'double') }} as two_stars,
        {{ run_parameter('recsys_marker_one_star', 'runs.run_id', 'double') }} as one_star
    {% if execute and this is not none %}
    from {{ raw_runs_relation() }} as runs
    where {{ is_new_run('runs.run_id') }}
    {% else %}
    from (select distinct run_id from {{ relation }}) as runs
    {%- endif %}
{%- endmacro %}
