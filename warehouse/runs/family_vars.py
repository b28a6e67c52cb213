"""Each family's run parameter defaults, read from the dbt macros it declares them in.

A family declares its run parameters where it lives, as dbt vars with their documented
defaults: a macro ``<family>_run_parameter_defaults()`` in ``dbt_project/macros/<family>/`` (a
plugin folder's in its own ``dbt_project/macros/``) returning ``{name: default}``, one
commented YAML line each. dbt reads them through the macro ``family_var`` (so a plain ``dbt
build`` sees every default); Python renders the same macros here, so both know the same
defaults and the project's ``dbt_project.yml`` keeps only the kernel's vars.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import jinja2
import yaml

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR
from biaswh.warehouse.settings.plugin_roots import plugin_folders

# What names a macro of a family's run parameter defaults (dbt's family_var looks for the same).
DEFAULTS_MACRO_SUFFIX = "_run_parameter_defaults"
_DEFAULTS_MACRO = re.compile(r"\{%-?\s*macro\s+(\w+" + DEFAULTS_MACRO_SUFFIX + r")\s*\(")


class _Returned(Exception):
    """dbt's ``return()``: the macro's value, carried out of Jinja's rendering."""

    def __init__(self, value) -> None:
        super().__init__()
        self.value = value


def _return(value):
    raise _Returned(value)


def defaults_macro_files() -> list[Path]:
    """Every ``.sql`` file under a family root's ``dbt_project/macros/`` defining a defaults macro,
    the project's first, then each plugin folder's, in path order within each."""
    # The project's dbt_project/ is DBT_PROJECT_DIR, beside the layers in a checkout and beside biaswh/ in an
    # installed layout (a mutation workspace's); a plugin folder's is inside it.
    folders = [DBT_PROJECT_DIR, *(folder / "dbt_project" for folder in plugin_folders())]
    return [
        path
        for folder in folders
        for path in sorted((folder / "macros").rglob("*.sql"))
        if _DEFAULTS_MACRO.search(path.read_text(encoding="utf-8"))
    ]


def _macro_values(path: Path) -> dict[str, dict]:
    """Each defaults macro of ``path`` -> what it returns, rendered as dbt would (its ``return`` and ``fromyaml``)."""
    text = path.read_text(encoding="utf-8")
    environment = jinja2.Environment(extensions=["jinja2.ext.do"])
    environment.globals.update({"return": _return, "fromyaml": yaml.safe_load})
    module = environment.from_string(text).module
    values = {}
    for name in _DEFAULTS_MACRO.findall(text):
        try:
            getattr(module, name)()
        except _Returned as returned:
            values[name] = returned.value
        if not isinstance(values.get(name), dict):
            raise UserError(f"{path}: macro {name} must return {{name: default}} (dbt's return())")
    return values


@lru_cache(maxsize=4)
def _declared(files: tuple[Path, ...]) -> tuple[tuple[str, object], ...]:
    declared: dict[str, object] = {}
    where: dict[str, str] = {}
    for path in files:
        for macro, defaults in _macro_values(path).items():
            for name, value in defaults.items():
                if name in where:
                    raise UserError(f"{path}: run parameter {name} is declared by {where[name]} and {macro}")
                declared[name], where[name] = value, macro
    return tuple(declared.items())


def family_var_defaults() -> dict:
    """Every family's run parameter: name -> its documented default. A name declared twice is refused."""
    return dict(_declared(tuple(defaults_macro_files())))
