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

{# Seconds from one timestamp to another, to the millisecond (DuckDB's date_diff counts the
   millisecond boundaries crossed; Spark has no date_diff with a unit, so the same count is
   taken from the epoch microseconds). #}
{% macro seconds_between(start, finish) -%}
    {{ return(adapter.dispatch('seconds_between', 'bias_warehouse')(start, finish)) }}
{%- endmacro %}

{% macro default__seconds_between(start, finish) -%}
    date_diff('millisecond', {{ start }}, {{ finish }}) / 1000.0
{%- endmacro %}

{% macro spark__seconds_between(start, finish) -%}
cast(
    floor(unix_micros(cast({{ finish }} as timestamp)) / 1000) - floor(unix_micros(cast({{ start }} as timestamp)) / 1000)
    as double
) / 1000
{%- endmacro %}

{# numerator / denominator as DuckDB divides: a zero denominator gives +inf, -inf or NaN (0 / 0).
   Spark's ANSI mode raises on an integer division by zero and gives null for a double. #}
{% macro ieee_divide(numerator, denominator) -%}
    {{ return(adapter.dispatch('ieee_divide', 'bias_warehouse')(numerator, denominator)) }}
{%- endmacro %}

{% macro default__ieee_divide(numerator, denominator) -%}
    {{ numerator }} / {{ denominator }}
{%- endmacro %}

{% macro spark__ieee_divide(numerator, denominator) -%}
    case
        when ({{ denominator }}) = 0 then ({{ numerator }}) * double('Infinity')
        else ({{ numerator }}) / ({{ denominator }})
    end
{%- endmacro %}
