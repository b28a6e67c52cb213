{#
    A model's data checks as one dbt data test: one node per model instead of one per check,
    which is most of a build's time when the checks' own SQL is fast (dbt spends tens of
    milliseconds of Python on every node it runs). Each check fails like the dbt test of the
    same name and counts the same failing rows:

      - checks:
          arguments:
            not_null: [run_id, k]                 # dbt's not_null, per column
            expressions: ["k between 1 and 20"]   # expression_is_true: rows where it is not true
            accepted_values: {variant: [sae, aae]}  # values outside the list (nulls pass)
            unique: [doc_id]                      # dbt's unique (nulls pass)
            unique_combinations: [[run_id, k]]    # unique_combination_of_columns

    The row-wise checks (not_null, expressions, accepted_values) share one scan of the model.
    The test returns one row per failing check, (failed_check, failing_rows), where
    failed_check names the check by its argument and position ('expressions.1'); its failure
    count is the sum of the failing rows. warehouse/dbt_checks.py turns a failed check
    back into its readable name for the build's error line.
#}
{% test checks(model, not_null=[], expressions=[], accepted_values={}, unique=[], unique_combinations=[]) %}
    {{ config(fail_calc='coalesce(sum(failing_rows), 0)') }}
    {%- if not (not_null or expressions or accepted_values or unique or unique_combinations) -%}
        {%- do exceptions.raise_compiler_error('the checks test of ' ~ model ~ ' names no check') -%}
    {%- endif -%}
    {%- set branches = checks_row_branch(model, not_null, expressions, accepted_values)
        + checks_unique_branches(model, unique, unique_combinations) -%}
    select failed_check, failing_rows
    from (
        {{ branches | join('\n    union all\n    ') }}
    ) checked
    where failing_rows > 0
{% endtest %}


{# not_null, expressions and accepted_values: one scan of the model counts every check's
   failing rows (one column each), then one row per check. #}
{% macro checks_row_branch(model, not_null, expressions, accepted_values) %}
    {%- set row_checks = [] -%}
    {%- for column in not_null -%}
        {%- set failing = 'sum(case when ' ~ column ~ ' is null then 1 else 0 end)' -%}
        {%- do row_checks.append(('not_null.' ~ loop.index0, failing)) -%}
    {%- endfor -%}
    {%- for expression in expressions -%}
        {%- set failing = 'sum(case when coalesce((' ~ expression ~ '), false) then 0 else 1 end)' -%}
        {%- do row_checks.append(('expressions.' ~ loop.index0, failing)) -%}
    {%- endfor -%}
    {%- for column, values in accepted_values.items() -%}
        {%- set listed = [] -%}
        {%- for value in values -%}
            {%- do listed.append("'" ~ (value | string | replace("'", "''")) ~ "'") -%}
        {%- endfor -%}
        {%- set outside = column ~ ' not in (' ~ listed | join(', ') ~ ')' -%}
        {%- set failing = 'count(distinct case when ' ~ outside ~ ' then ' ~ column ~ ' end)' -%}
        {%- do row_checks.append(('accepted_values.' ~ column, failing)) -%}
    {%- endfor -%}
    {%- if not row_checks -%}
        {%- do return([]) -%}
    {%- endif -%}
    {%- set cases, labels, aggregates = [], [], [] -%}
    {%- for label, aggregate in row_checks -%}
        {%- do cases.append("when '" ~ label ~ "' then row_counts.check_" ~ loop.index0) -%}
        {%- do labels.append("('" ~ label ~ "')") -%}
        {%- do aggregates.append(aggregate ~ ' as check_' ~ loop.index0) -%}
    {%- endfor -%}
    {%- do return([
        'select\n        labels.failed_check,\n        case labels.failed_check\n            '
        ~ cases | join('\n            ') ~ '\n        end as failing_rows'
        ~ '\n    from (\n        select\n            ' ~ aggregates | join(',\n            ')
        ~ '\n        from ' ~ model ~ '\n    ) row_counts'
        ~ '\n    cross join (values ' ~ labels | join(', ') ~ ') as labels (failed_check)'
    ]) -%}
{% endmacro %}


{# unique (nulls pass, as in dbt's test) and unique_combinations: one branch each, counting
   the repeated values (macro unique_combination_of_columns_sql). #}
{% macro checks_unique_branches(model, unique, unique_combinations) %}
    {%- set branches = [] -%}
    {%- set repeated_sql = adapter.dispatch('unique_combination_of_columns_sql', 'bias_warehouse') -%}
    {%- for item in unique + unique_combinations -%}
        {%- if loop.index0 < unique | length -%}
            {%- set label = 'unique.' ~ loop.index0 -%}
            {%- set relation = '(select * from ' ~ model ~ ' where ' ~ item ~ ' is not null) unique_input' -%}
            {%- set columns = [item] -%}
        {%- else -%}
            {%- set label = 'unique_combinations.' ~ (loop.index0 - unique | length) -%}
            {%- set relation = model -%}
            {%- set columns = item -%}
        {%- endif -%}
        {%- set repeated = repeated_sql(relation, columns) -%}
        {%- set counted = "select '" ~ label ~ "' as failed_check, count(*) as failing_rows" -%}
        {%- do branches.append(counted ~ ' from (' ~ repeated ~ ') repeated') -%}
    {%- endfor -%}
    {%- do return(branches) -%}
{% endmacro %}
