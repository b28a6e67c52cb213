"""dbt's ``context`` (the render context as a mapping) for sqlfluff's jinja templater (lint only;
dbt supplies the real one): it lists no macro, so macro family_var falls back to ``var()``."""


def keys() -> list[str]:
    return []
