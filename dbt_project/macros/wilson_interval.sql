{# One bound of the Wilson score 95% interval of a proportion successes / n (z = 1.959964),
   side 'low' or 'high'; null when n is 0. The one copy every rate's interval uses. #}
{% macro wilson_bound(successes, n, side) -%}
    {%- set z = 1.959963984540054 -%}
    {%- set sign = '-' if side == 'low' else '+' -%}
(
    ({{ successes }}) / nullif({{ n }}, 0) + {{ power_of(z, 2) }} / (2 * ({{ n }}))
    {{ sign }} {{ z }} * sqrt(
        ({{ successes }}) / nullif({{ n }}, 0) * (1 - ({{ successes }}) / nullif({{ n }}, 0)) / ({{ n }})
        + {{ power_of(z, 2) }} / (4 * {{ power_of('(' ~ n ~ ')', 2) }})
    )
)
/ (1 + {{ power_of(z, 2) }} / nullif({{ n }}, 0))
{%- endmacro %}
