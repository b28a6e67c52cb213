{#
    A run parameter's dbt var: the value dbt was given (--vars, a unit test's overrides), else
    dbt_project.yml's (the kernel's: verdicts_alpha), else the default the parameter's family
    declares where it lives: a macro named <family>_run_parameter_defaults returning
    {name: default} (dbt_project/macros/<family>/, a plugin folder's dbt_project/macros/), found
    by that name, so a new family adds its macro and edits no kernel file. Null for a name no
    one declares. warehouse/family_vars.py reads the same macros, so Python and a plain
    `dbt build` know the same defaults. A name two families declare stops the build.
#}
{% macro family_var(name) -%}
    {%- set defaults = {} -%}
    {%- set declared_by = {} -%}
    {%- for macro_name in context.keys() | sort if macro_name.endswith('_run_parameter_defaults') -%}
        {%- for parameter, default in context[macro_name]().items() -%}
            {%- if parameter in declared_by -%}
                {{ exceptions.raise_compiler_error(
                    "run parameter " ~ parameter ~ " is declared by " ~ declared_by[parameter] ~ " and " ~ macro_name
                ) }}
            {%- endif -%}
            {%- do declared_by.update({parameter: macro_name}) -%}
            {%- do defaults.update({parameter: default}) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(var(name, defaults.get(name))) }}
{%- endmacro %}
