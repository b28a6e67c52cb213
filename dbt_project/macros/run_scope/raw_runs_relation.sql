{#
    The relation name of raw.runs (the warehouse's record of every run), read through the graph,
    not source(): a model or test using it gains no dependency (unit tests need no fixture for it,
    `--indirect-selection cautious` is unchanged). Only while executing: the graph is empty when
    dbt parses.
#}
{% macro raw_runs_relation() -%}
    {{ return(graph.sources['source.bias_warehouse.warehouse.runs'].relation_name) }}
{%- endmacro %}
