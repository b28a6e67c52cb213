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

{# The 1-based position of the first occurrence of `part` in `text` (0 when absent). #}
{% macro text_position(text, part) -%}
    {{ return(adapter.dispatch('text_position', 'bias_warehouse')(text, part)) }}
{%- endmacro %}

{% macro default__text_position(text, part) -%}
    strpos({{ text }}, {{ part }})
{%- endmacro %}

{% macro spark__text_position(text, part) -%}
    instr({{ text }}, {{ part }})
{%- endmacro %}

{# `length` characters of `text` from the 1-based position `start` (>= 1). A negative length
   takes DuckDB's reading: the -length characters before `start` (as many as there are);
   Spark's substr gives '' there, so it is spelled out. #}
{% macro substring_of(text, start, length) -%}
    {{ return(adapter.dispatch('substring_of', 'bias_warehouse')(text, start, length)) }}
{%- endmacro %}

{% macro default__substring_of(text, start, length) -%}
    substr({{ text }}, {{ start }}, {{ length }})
{%- endmacro %}

{% macro spark__substring_of(text, start, length) -%}
    case
        when {{ length }} >= 0 then substr({{ text }}, {{ start }}, {{ length }})
        else substr(
            {{ text }},
            greatest({{ start }} + {{ length }}, 1),
            {{ start }} - greatest({{ start }} + {{ length }}, 1)
        )
    end
{%- endmacro %}

{# `text` split at every occurrence of `separator` (a plain text, not a pattern) into a list,
   empty pieces kept. Spark's split takes a regular expression: the separator is quoted. #}
{% macro split_text(text, separator) -%}
    {{ return(adapter.dispatch('split_text', 'bias_warehouse')(text, separator)) }}
{%- endmacro %}

{% macro default__split_text(text, separator) -%}
    string_split({{ text }}, {{ separator }})
{%- endmacro %}

{% macro spark__split_text(text, separator) -%}
    split({{ text }}, concat('\\Q', {{ separator }}, '\\E'), -1)
{%- endmacro %}

{# The group's non-null values of `value` joined by `separator` in the order `order_by` (a
   full order: ties would come in no fixed order); null when there is none, on both engines. #}
{% macro ordered_string_agg(value, separator, order_by) -%}
    {{ return(adapter.dispatch('ordered_string_agg', 'bias_warehouse')(value, separator, order_by)) }}
{%- endmacro %}

{% macro default__ordered_string_agg(value, separator, order_by) -%}
    string_agg({{ value }}, {{ separator }} order by {{ order_by }})
{%- endmacro %}

{% macro spark__ordered_string_agg(value, separator, order_by) -%}
    listagg({{ value }}, {{ separator }}) within group (order by {{ order_by }})
{%- endmacro %}

{# The group's distinct non-null values of `value` (a text), ascending, joined by `separator`;
   null when there is none. Spark: a sorted collect_set (listagg(distinct) within group fails
   in the analyser there). #}
{% macro distinct_string_agg(value, separator) -%}
    {{ return(adapter.dispatch('distinct_string_agg', 'bias_warehouse')(value, separator)) }}
{%- endmacro %}

{% macro default__distinct_string_agg(value, separator) -%}
    string_agg(distinct {{ value }}, {{ separator }} order by {{ value }})
{%- endmacro %}

{% macro spark__distinct_string_agg(value, separator) -%}
    case when count({{ value }}) > 0 then array_join(array_sort(collect_set({{ value }})), {{ separator }}) end
{%- endmacro %}

{# A text as a SQL literal. A quote inside is doubled on DuckDB; on Spark (escapedStringLiterals)
   '' inside a literal stays two quotes, so there each quote is a chr(39) piece of a concat(). #}
{% macro text_literal(text) -%}
    {{ return(adapter.dispatch('text_literal', 'bias_warehouse')(text)) }}
{%- endmacro %}

{% macro default__text_literal(text) -%}
    '{{ text | replace("'", "''") }}'
{%- endmacro %}

{% macro spark__text_literal(text) -%}
    {%- if "'" in text -%}
        concat('{{ text.split("'") | join("', chr(39), '") }}')
    {%- else -%}
        '{{ text }}'
    {%- endif -%}
{%- endmacro %}

{# True when `text` matches the glob `pattern` whole (* any characters, ? one character,
   [...] a class). Spark has no glob: the pattern becomes an anchored regular expression. #}
{% macro glob_match(text, pattern) -%}
    {{ return(adapter.dispatch('glob_match', 'bias_warehouse')(text, pattern)) }}
{%- endmacro %}

{% macro default__glob_match(text, pattern) -%}
    {{ text }} glob {{ pattern }}
{%- endmacro %}

{% macro spark__glob_match(text, pattern) -%}
    regexp_like({{ text }}, concat('(?s)^', regexp_replace(regexp_replace(regexp_replace(
        {{ pattern }}, '([.^$+(){}|\\])', '\\$1'), '\*', '.*'), '\?', '.'), '\z'))
{%- endmacro %}
