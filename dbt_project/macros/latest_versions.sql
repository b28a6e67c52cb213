{#
    The latest loaded version of each source name of one dataset, as a CTE body:
        latest_versions as ( {{ latest_versions('squad', 'split') }} )
    yields one row per name: <key> (the source name) and source_version. Staging views of
    versioned sources join on it; a study run's own versions are in raw.run_inputs.
#}
{% macro latest_versions(dataset, key) -%}
    select
        source_name as {{ key }},
        max(version) as source_version
    from {{ source('warehouse', 'source_versions') }}
    where dataset = '{{ dataset }}'
    group by source_name
{%- endmacro %}
