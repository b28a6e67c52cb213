{#
    The latest loaded version of each source name, as a CTE body: the one statement of the rule
    in SQL (Python's is ingest/common/versions.py latest_version): the highest version of a
    (dataset, source name).
        latest_versions as ( {{ latest_versions('squad', 'split') }} )
    yields one row per name of that dataset: <key> (the source name) and source_version. Staging
    views of versioned sources join on it; a study run's own versions are in raw.run_inputs.
    Without a dataset, one row per (dataset, source_name) of every dataset. versions: read a
    staged relation of the versions (source_version, as stg_warehouse__source_versions has it)
    instead of the raw table, so a mart built on staging keeps staging as its only parent.
#}
{% macro latest_versions(dataset=none, key='source_name', versions=none) -%}
    {%- set version_column = 'version' if versions is none else 'source_version' -%}
    select
        {% if dataset is none %}dataset,{% endif %}
        source_name as {{ key }},
        max({{ version_column }}) as source_version
    from {{ source('warehouse', 'source_versions') if versions is none else versions }}
    {% if dataset is not none %}where dataset = '{{ dataset }}'{% endif %}
    group by {% if dataset is none %}dataset, {% endif %}source_name
{%- endmacro %}
