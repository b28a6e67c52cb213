{#
    The latest loaded version of each source name, as a CTE body: the one statement of the rule
    in SQL (Python's is ingest/common/versions.py latest_version): the highest version of a
    (dataset, source name) in raw.source_versions.
        latest_versions as ( {{ latest_versions('squad', 'split') }} )
    yields one row per name of that dataset: <key> (the source name) and source_version;
    without a dataset, one row per (dataset, source_name) of every dataset. Staging views of
    versioned sources join on it; a study run's own versions are in raw.run_inputs.
#}
{% macro latest_versions(dataset=none, key='source_name') -%}
    select
        {% if dataset is none %}dataset,{% endif %}
        source_name as {{ key }},
        max(version) as source_version
    from {{ source('warehouse', 'source_versions') }}
    {% if dataset is not none %}where dataset = '{{ dataset }}'{% endif %}
    group by {% if dataset is none %}dataset, {% endif %}source_name
{%- endmacro %}
