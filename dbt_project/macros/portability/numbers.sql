{# Arithmetic that the two engines spell or type differently. #}

{# base raised to exponent. Beware: in Spark SQL `^` is bitwise XOR, not a power, and gives
   a wrong number without an error; DuckDB's `^` is the power. #}
{% macro power_of(base, exponent) -%}
    {{ return(adapter.dispatch('power_of', 'bias_warehouse')(base, exponent)) }}
{%- endmacro %}

{% macro default__power_of(base, exponent) -%}
{{ base }} ^ {{ exponent }}
{%- endmacro %}

{% macro spark__power_of(base, exponent) -%}
power({{ base }}, {{ exponent }})
{%- endmacro %}

{# A decimal literal used in a division. DuckDB divides a decimal by an integer in double
   precision; Spark keeps a decimal rounded to 6 places (1.0 / 3 = 0.333333), so there the
   literal is cast to double first. #}
{% macro double_literal(value) -%}
    {{ return(adapter.dispatch('double_literal', 'bias_warehouse')(value)) }}
{%- endmacro %}

{% macro default__double_literal(value) -%}
{{ value }}
{%- endmacro %}

{% macro spark__double_literal(value) -%}
cast({{ value }} as double)
{%- endmacro %}
