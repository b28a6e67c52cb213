{# Silent-bias text helpers. Patterns are RE2 (DuckDB); outputs are matched lowercased. #}

{# A phrase as a regular expression: regex metacharacters escaped, and any run of spaces,
   hyphens or underscores matching any such run ("african american" = "African-American"). #}
{% macro silent_bias_phrase_regex(phrase) -%}
regexp_replace(
    regexp_replace(lower(trim({{ phrase }})), '([.^$*+?()\[\]{}|\\])', '\\\1', 'g'),
    '[\s_-]+', '[\\s_-]+', 'g'
)
{%- endmacro %}

{# The chain of thought inside <think>...</think> ('' when the output has none). #}
{% macro silent_bias_think_text(output) -%}
case
    when strpos({{ output }}, '<think>') = 0 then ''
    when strpos({{ output }}, '</think>') = 0 then substr({{ output }}, strpos({{ output }}, '<think>') + 7)
    else substr({{ output }}, strpos({{ output }}, '<think>') + 7,
                strpos({{ output }}, '</think>') - strpos({{ output }}, '<think>') - 7)
end
{%- endmacro %}

{# The visible answer: after the last </think>; '' when the thinking never closed (truncated). #}
{% macro silent_bias_answer_text(output) -%}
case
    when strpos({{ output }}, '</think>') > 0 then regexp_extract({{ output }}, '(?s).*</think>(.*)$', 1)
    when strpos({{ output }}, '<think>') > 0 then ''
    else {{ output }}
end
{%- endmacro %}

{# The final diagnosis in an answer: the line after "most likely / final diagnosis", else after
   "diagnosis:", else the last non-empty line; markdown emphasis removed; null when empty. #}
{% macro silent_bias_final_answer(answer) -%}
nullif(trim(regexp_replace(coalesce(
    nullif(regexp_extract({{ answer }},
        '(?i)(?:most likely|final|primary|working|likely)\s+diagnosis(?:\s+is)?[\s*_#:]*([^\n]*[[:alnum:]][^\n]*)', 1), ''),
    nullif(regexp_extract({{ answer }},
        '(?i)diagnosis\s*[*_]*\s*:[\s*_#:]*([^\n]*[[:alnum:]][^\n]*)', 1), ''),
    list_filter(string_split({{ answer }}, chr(10)), lambda line: trim(line) <> '')[-1],
    ''
), '[*_#`]', '', 'g')), '')
{%- endmacro %}
