{#
    Run-keyed incremental models compute only the runs they do not hold yet (and the runs
    named in var('rebuild_run_ids'), which `biaswh rebuild --run ID` sets), so a build after
    a new run costs that run's work and never rewrites an earlier run's rows.
    Usage, in the model's first CTE:  where {{ is_new_run('run_id') }}
#}
{% macro is_new_run(run_id_column='run_id') -%}
{#- Unit tests render models without a relation of their own (`this` is none): every run is new. -#}
{%- if this is not none and is_incremental() -%}
({{ run_id_column }} not in (select distinct run_id from {{ this }})
{%- for rebuilt in var('rebuild_run_ids', []) %}
    or {{ run_id_column }} = '{{ rebuilt | replace("'", "''") }}'
{%- endfor -%})
    {%- else -%}
true
{%- endif -%}
{%- endmacro %}
