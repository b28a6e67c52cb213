"""dbt's ``adapter.dispatch`` for sqlfluff's jinja templater (lint only; dbt supplies the real one).

Lint reads the DuckDB spelling: a dispatched macro resolves to its ``default__`` variant,
which is DuckDB's (dbt_project/macros/portability/).
"""

from jinja2 import pass_context


def dispatch(macro_name: str, macro_namespace: str | None = None):
    @pass_context
    def call(context, *args, **kwargs):
        return context[f"default__{macro_name}"](*args, **kwargs)

    return call
