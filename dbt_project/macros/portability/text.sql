{# Text functions the two engines spell or match differently. #}

{# The corpus normalisation of the original study: curly quotes to straight, runs of
   whitespace (Unicode whitespace included, as Python's \s) to one space, ends stripped. #}
{% macro normalise_text(column) -%}
    {{ return(adapter.dispatch('normalise_text', 'bias_warehouse')(column)) }}
{%- endmacro %}

{% macro default__normalise_text(column) -%}
trim(regexp_replace(
    translate({{ column }}, '‘’“”', '''''""'),
    '[\s\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{1C}-\x{1F}]+',
    ' ', 'g'
))
{%- endmacro %}

{# Spark: regexp_replace is always global (no 'g' flag); Java's \s also matches the vertical
   tab, which RE2's \s (DuckDB) does not, so the class lists RE2's five characters instead;
   and '' inside a Spark literal is not a quote (adjacent literals concatenate), so the two
   straight single quotes are chr(39). #}
{% macro spark__normalise_text(column) -%}
trim(regexp_replace(
    translate({{ column }}, '‘’“”', concat(chr(39), chr(39), '""')),
    '[\t\n\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{1C}-\x{1F}]+',
    ' '
))
{%- endmacro %}

{# The SHA-256 of a text as 64 lowercase hex digits. #}
{% macro sha256_hex(text) -%}
    {{ return(adapter.dispatch('sha256_hex', 'bias_warehouse')(text)) }}
{%- endmacro %}

{% macro default__sha256_hex(text) -%}
    sha256({{ text }})
{%- endmacro %}

{% macro spark__sha256_hex(text) -%}
    sha2({{ text }}, 256)
{%- endmacro %}

{# The text type in a cast: Spark's varchar needs a length (string has none). #}
{% macro text_type() -%}
    {{ return(adapter.dispatch('text_type', 'bias_warehouse')()) }}
{%- endmacro %}

{% macro default__text_type() -%}
    varchar
{%- endmacro %}

{% macro spark__text_type() -%}
    string
{%- endmacro %}
