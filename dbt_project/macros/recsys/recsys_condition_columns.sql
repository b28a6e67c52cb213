{# The original study's eight columns of a condition result, in its order (the contract
   relation pool_vs_recommended_summary (mart fct_recsys_pool_vs_recommended) keeps them first). #}
{% macro recsys_original_columns() -%}
    {{ return(['feature', 'dataset', 'provider', 'prompt_style', 'bias', 'p_value', 'metric', 'significant']) }}
{%- endmacro %}

{# What the recsys_bias job records of each condition test beyond the original columns, with
   the types a published result (which has none of them) fills with nulls. #}
{% macro recsys_test_columns() -%}
    {{ return({
        'pool_definition': text_type(),
        'status': text_type(),
        'message': text_type(),
        'test_variant': text_type(),
        'statistic': 'double',
        'degrees_of_freedom': 'double',
        'n_recommended': 'integer',
        'n_pool': 'integer',
        'hedges_g': 'double',
        'ci_low': 'double',
        'ci_high': 'double',
        'bias_corrected_v': 'double',
        'yates_applied': 'boolean',
    }) }}
{%- endmacro %}

{# A select list of columns, each followed by a comma (the last one too unless last=true):
   a typed null where nulls ({column: type}) names the column, else prefix + its name in the
   relation read (renames: {column: that name}) under the column's name. #}
{% macro recsys_column_list(columns, nulls={}, prefix='', renames={}, last=false) -%}
    {% for column in columns -%}
        {% if column in nulls %}cast(null as {{ nulls[column] }}) as {{ column }}
        {%- elif column in renames %}{{ prefix }}{{ renames[column] }} as {{ column }}
        {%- else %}{{ prefix }}{{ column }}{% endif %}
        {{- '' if last and loop.last else ',' }}
    {% endfor %}
{%- endmacro %}
