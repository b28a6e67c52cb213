{# The corpus normalisation of the original study: curly quotes to straight, runs of
   whitespace (Unicode whitespace included, as Python's \s) to one space, ends stripped. #}
{% macro normalise_text(column) -%}
trim(regexp_replace(
    translate({{ column }}, '‘’“”', '''''""'),
    '[\s\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{1C}-\x{1F}]+',
    ' ', 'g'
))
{%- endmacro %}
