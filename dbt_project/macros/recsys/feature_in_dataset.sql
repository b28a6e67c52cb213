{# True unless a run's recsys_dataset_only_features rule ('glob=dataset,dataset', rules joined
   by ';') names the feature and the dataset is not among the rule's datasets. The paper counts
   the author attributes (author_*) only on twitter, the one platform that has them. #}
{% macro feature_in_dataset(feature_column, dataset_column, run_id_column) -%}
(
    len(list_filter(
        string_split({{ run_parameter('recsys_dataset_only_features', run_id_column) }}, ';'),
        rule -> trim(rule) <> ''
        and {{ feature_column }} glob trim(split_part(rule, '=', 1))
        and not list_contains(
            list_transform(string_split(split_part(rule, '=', 2), ','), name -> trim(name)), {{ dataset_column }}
        )
    )) = 0
)
{%- endmacro %}
