"""dbt's ``exceptions`` object for sqlfluff's jinja templater (lint only; dbt supplies the real one)."""


def raise_compiler_error(message: str) -> str:
    return ""
