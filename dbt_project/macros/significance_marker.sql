{# The original's markers from the share of underlying conditions with p < alpha:
   '***' above 75 %, '**' above 60 %, '*' above 50 %, '' otherwise (null share: null). #}
{% macro significance_marker(share_column, run_id_column) -%}
case
    when {{ share_column }} is null then null
    when {{ share_column }} > {{ run_parameter('recsys_marker_three_stars', run_id_column, 'double') }} then '***'
    when {{ share_column }} > {{ run_parameter('recsys_marker_two_stars', run_id_column, 'double') }} then '**'
    when {{ share_column }} > {{ run_parameter('recsys_marker_one_star', run_id_column, 'double') }} then '*'
    else ''
end
{%- endmacro %}
