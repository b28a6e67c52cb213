{# True unless a run's recsys_dataset_only_features rule ('glob=dataset,dataset', rules joined
   by ';', in rules_column: see dataset_only_features_by_run) names the feature and the dataset
   is not among the rule's datasets. The paper counts the author attributes (author_*) only on
   twitter, the one platform that has them. #}
{% macro feature_in_dataset(feature_column, dataset_column, rules_column) -%}
    {%- set rules = split_text(rules_column, "';'") -%}
    {%- set datasets = list_map(split_text("split_part(rule, '=', 2)", "','"), 'name', 'trim(name)') -%}
    {%- set names_the_feature_elsewhere -%}
    trim(rule) <> ''
    and {{ glob_match(feature_column, "trim(split_part(rule, '=', 1))") }}
    and not {{ list_has(datasets, dataset_column) }}
    {%- endset -%}
    ({{ element_count(list_where(rules, 'rule', names_the_feature_elsewhere)) }} = 0)
{%- endmacro %}

{# A select of each run of `relation` (run_id) with its recsys_dataset_only_features rules
   (dataset_only_features), to join on run_id (`is not distinct from`) before
   feature_in_dataset: Spark allows no subquery (run_parameter's) inside a lambda. #}
{% macro dataset_only_features_by_run(relation) -%}
    select
        runs.run_id,
        {{ run_parameter('recsys_dataset_only_features', 'runs.run_id') }} as dataset_only_features
    from (select distinct run_id from {{ relation }}) as runs
{%- endmacro %}
