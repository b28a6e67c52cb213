{#
    Run-keyed incremental models compute only the runs they do not hold yet (and the runs
    named in var('rebuild_run_ids'), which `biaswh rebuild --run ID` sets), so a build after
    a new run costs that run's work and never rewrites an earlier run's rows. They never
    compute a withdrawn run (failed or interrupted, macro withdrawn_run_ids): a failed run's
    raw rows stay, but its results never enter a mart, not even in a later build.
    Usage, in the model's first CTE:  where {{ is_new_run('run_id') }}
    rebuild=false: a pin (the judgments a run was evaluated with) is computed once, when its
    run is first built, and `biaswh rebuild` leaves it as it is.
#}
{% macro is_new_run(run_id_column='run_id', rebuild=true) -%}
    {#- Unit tests render models without a relation of their own (`this` is none): every run is new. -#}
    {%- if this is none -%}
        {%- do return('true') -%}
    {%- endif -%}
    {%- set condition = not_withdrawn(run_id_column) -%}
    {%- if is_incremental() -%}
        {%- set new = [run_id_column ~ ' not in (select distinct run_id from ' ~ this ~ ')'] -%}
        {%- for rebuilt in (var('rebuild_run_ids', []) if rebuild else []) -%}
            {%- do new.append(run_id_column ~ " = '" ~ (rebuilt | replace("'", "''")) ~ "'") -%}
        {%- endfor -%}
        {%- set condition = condition ~ ' and (' ~ new | join(' or ') ~ ')' -%}
    {%- endif -%}
    {%- do return('(' ~ condition ~ ')') -%}
{%- endmacro %}
