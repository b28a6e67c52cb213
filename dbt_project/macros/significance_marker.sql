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

{# A select of each run a run-keyed mart builds (the recorded runs is_new_run keeps) with its
   marker thresholds (run parameters), to join on run_id (`is not distinct from`) before
   significance_marker: once per run rather than a correlated subquery per row and marker, which
   Spark's optimizer multiplies into minutes (and out of memory) over the five-level union of
   agg_recsys_bias. The runs come from raw.runs, not from the mart's own rows: Spark inlines a
   CTE read twice, so `select distinct run_id` over them planned the whole five-level union a
   second time (a row's run is a recorded run: the marts' relationships tests). #}
{% macro significance_thresholds_by_run() -%}
    select
        runs.run_id,
        {{ run_parameter('recsys_marker_three_stars', 'runs.run_id', 'double') }} as three_stars,
        {{ run_parameter('recsys_marker_two_stars', 'runs.run_id', 'double') }} as two_stars,
        {{ run_parameter('recsys_marker_one_star', 'runs.run_id', 'double') }} as one_star
    from {{ ref('stg_warehouse__runs') }} as runs
    where {{ is_new_run('runs.run_id') }}
{%- endmacro %}
