"""Which Spark the dbt project builds on: the profile targets of type ``spark`` in ``dbt_project/profiles.yml``.

``spark`` (session mode: Spark inside this process, ``local[2]``) and ``cluster`` (dbt-spark's
``thrift`` method: a Spark Thrift server at ``BIASWH_SPARK_HOST:BIASWH_SPARK_PORT``) are
committed; a target added to the profile is selectable by its name as well. A study picks one
with ``biaswh run --target NAME`` or ``[compute] build_target = "NAME"``; the build step reads
the chosen name from ``BIASWH_SPARK_TARGET`` (:func:`spark_target_name`), which the run sets.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import socket

import yaml

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR

# The Spark target a build uses (a profile target name); the run sets it from --target / build_target.
SPARK_TARGET_VARIABLE = "BIASWH_SPARK_TARGET"
DEFAULT_SPARK_TARGET = "spark"
# dbt's DuckDB target: the default build target, not a Spark one.
LOCAL_TARGET = "local"
PROFILE = "bias_warehouse"
# What the thrift method needs from Python (module -> package); session mode's: warehouse/spark/jvm.py.
_THRIFT_NEEDS = {"pyhive": "PyHive", "thrift_sasl": "thrift-sasl", "dbt.adapters.spark": "dbt-spark"}


@functools.cache
def spark_targets() -> dict[str, str]:
    """Every Spark target of the committed profile: name -> dbt-spark connection method."""
    profile = yaml.safe_load((DBT_PROJECT_DIR / "profiles.yml").read_text(encoding="utf-8"))[PROFILE]
    return {
        name: output.get("method", "") for name, output in profile["outputs"].items() if output.get("type") == "spark"
    }


def build_targets() -> tuple[str, ...]:
    """The names ``--target`` and ``[compute] build_target`` accept: ``local`` and every Spark target."""
    return (LOCAL_TARGET, *spark_targets())


def check_build_target(name: str, *, where: str = "--target") -> None:
    """Refuse a build target the profile does not declare, in one line naming the choices."""
    if name not in build_targets():
        choices = ", ".join(build_targets())
        raise UserError(f"{where} {name}: not a target of dbt_project/profiles.yml; choose {choices}")


def is_spark_target(name: str) -> bool:
    """Whether ``name`` builds on Spark (any Spark target of the profile)."""
    return name in spark_targets()


def spark_target_name() -> str:
    """The Spark target this process builds on: ``BIASWH_SPARK_TARGET``, else ``spark``."""
    name = os.environ.get(SPARK_TARGET_VARIABLE) or DEFAULT_SPARK_TARGET
    if not is_spark_target(name):
        raise UserError(
            f"{SPARK_TARGET_VARIABLE}={name}: not a Spark target of dbt_project/profiles.yml;"
            f" choose {', '.join(spark_targets())}"
        )
    return name


def spark_method(name: str | None = None) -> str:
    """The dbt-spark connection method of target ``name`` (default: :func:`spark_target_name`)."""
    return spark_targets()[name or spark_target_name()]


def thrift_address(name: str = "cluster") -> tuple[str, int]:
    """The host and port Thrift target ``name`` connects to, rendered as dbt renders the profile:
    each ``env_var('VARIABLE', 'default')`` of its ``host`` and ``port`` read from the environment."""
    output = yaml.safe_load((DBT_PROJECT_DIR / "profiles.yml").read_text(encoding="utf-8"))[PROFILE]["outputs"][name]

    def rendered(value) -> str:
        found = re.search(r"env_var\('(\w+)',\s*'([^']*)'\)", str(value))
        return (os.environ.get(found.group(1)) or found.group(2)) if found else str(value)

    return rendered(output["host"]), int(rendered(output["port"]))


def unreachable_thrift_server(name: str) -> str | None:
    """Why no Spark Thrift server answers for target ``name`` (one line), or None when its port accepts a connection.

    Checked before a run starts: dbt would otherwise fail only at the first build, after ingest.
    """
    host, port = thrift_address(name)
    try:
        with socket.create_connection((host, port), timeout=5):
            return None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        return (
            f"--target {name}: no Spark Thrift server answers at {host}:{port} ({reason});"
            " set BIASWH_SPARK_HOST and BIASWH_SPARK_PORT to the server's"
        )


def missing_thrift_extra() -> str | None:
    """What a ``thrift`` target lacks here (PyHive and its SASL transport), as one line with the hint, or None."""
    missing = [package for module, package in _THRIFT_NEEDS.items() if importlib.util.find_spec(module) is None]
    if missing:
        return (
            f"a Spark Thrift target needs dbt-spark's PyHive extra ({', '.join(missing)} missing):"
            " make spark (requirements-spark.lock)"
        )
    return None
