{# Regular expressions. DuckDB matches with RE2, Spark with java.util.regex; the patterns of
   this project (literals and the patterns the silent-bias models build or read from seeds)
   are written in RE2's syntax, and on Spark java_regex() gives each one RE2's meaning:
     \b    Java 17's word boundary counts any Unicode letter as a word character (naïve has
           no \b before the ï in RE2, one in Java): spelled out with ASCII \w lookarounds;
     \s \S Java's \s also matches the vertical tab, RE2's does not: RE2's five characters;
     .     Java's dot also stops at \r, \u0085, \u2028, \u2029 (RE2's only at \n): flag d;
     (?i)  Java folds ASCII case only unless told otherwise (RE2 folds Unicode): flag u.
   POSIX classes ([[:alnum:]]) mean something else in Java ([:alnum:] is a set of letters
   there): write them with regex_alnum(); a pattern read from data must not use them. #}

{# True when `pattern` matches somewhere in `text` (null when either is null). #}
{% macro regex_find(text, pattern) -%}
    {{ return(adapter.dispatch('regex_find', 'bias_warehouse')(text, pattern)) }}
{%- endmacro %}

{% macro default__regex_find(text, pattern) -%}
    regexp_matches({{ text }}, {{ pattern }})
{%- endmacro %}

{% macro spark__regex_find(text, pattern) -%}
    regexp_like({{ text }}, {{ java_regex(pattern) }})
{%- endmacro %}

{# Group `group` of the first match of `pattern` in `text` ('' when there is none). #}
{% macro regex_extract(text, pattern, group) -%}
    {{ return(adapter.dispatch('regex_extract', 'bias_warehouse')(text, pattern, group)) }}
{%- endmacro %}

{% macro default__regex_extract(text, pattern, group) -%}
    regexp_extract({{ text }}, {{ pattern }}, {{ group }})
{%- endmacro %}

{% macro spark__regex_extract(text, pattern, group) -%}
    regexp_extract({{ text }}, {{ java_regex(pattern) }}, {{ group }})
{%- endmacro %}

{# Every match of `pattern` in `text` replaced by `replacement`, a plain text (no group
   references, no backslash or $: the engines spell those differently). Spark's
   regexp_replace is always global and takes no 'g' flag. #}
{% macro regex_replace_all(text, pattern, replacement) -%}
    {{ return(adapter.dispatch('regex_replace_all', 'bias_warehouse')(text, pattern, replacement)) }}
{%- endmacro %}

{% macro default__regex_replace_all(text, pattern, replacement) -%}
    regexp_replace({{ text }}, {{ pattern }}, {{ replacement }}, 'g')
{%- endmacro %}

{% macro spark__regex_replace_all(text, pattern, replacement) -%}
    regexp_replace({{ text }}, {{ java_regex(pattern) }}, {{ replacement }})
{%- endmacro %}

{# `text` with every regular-expression metacharacter backslash-escaped, so it matches
   itself. The group reference of the replacement is \1 in RE2, $1 in Java. #}
{% macro regex_escape(text) -%}
    {{ return(adapter.dispatch('regex_escape', 'bias_warehouse')(text)) }}
{%- endmacro %}

{% macro default__regex_escape(text) -%}
    regexp_replace({{ text }}, '([.^$*+?()\[\]{}|\\])', '\\\1', 'g')
{%- endmacro %}

{% macro spark__regex_escape(text) -%}
    regexp_replace({{ text }}, '([.^$*+?()\[\]{}|\\])', '\\$1')
{%- endmacro %}

{# The ASCII letters and digits as a class, inside a pattern literal: RE2's [[:alnum:]],
   Java's \p{Alnum} (both ASCII only). #}
{% macro regex_alnum() -%}
    {{ return(adapter.dispatch('regex_alnum', 'bias_warehouse')()) }}
{%- endmacro %}

{% macro default__regex_alnum() -%}
    [[:alnum:]]
{%- endmacro %}

{% macro spark__regex_alnum() -%}
    \p{Alnum}
{%- endmacro %}

{# An RE2 pattern (any SQL expression) as the Java pattern of the same meaning (see the top of
   this file). A backslash escaped by another (\\b) is left alone. #}
{% macro java_regex(pattern) -%}
concat('(?du)', regexp_replace(regexp_replace(regexp_replace(
    {{ pattern }},
    '(?<!\\)((?:\\\\)*)\\b', '$1(?:(?<=\\w)(?!\\w)|(?<!\\w)(?=\\w))'),
    '(?<!\\)((?:\\\\)*)\\s', '$1[\\t\\n\\f\\r ]'),
    '(?<!\\)((?:\\\\)*)\\S', '$1[^\\t\\n\\f\\r ]'))
{%- endmacro %}
