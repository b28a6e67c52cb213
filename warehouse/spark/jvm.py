"""Spark's JVM, started by pyspark inside dbt-spark's session, writing its console to a log file."""

from __future__ import annotations

import importlib.util
import os
import shutil
import time
from pathlib import Path

# What `--target spark` needs on this machine: the spark extra's Python packages, and Java.
_SPARK_NEEDS = {"pyspark": "pyspark", "dbt.adapters.spark": "dbt-spark"}

# Where the Spark JVM this process starts writes its console (see start_jvm_quietly).
_jvm_log: Path | None = None


def missing_spark_extra() -> str | None:
    """What ``--target spark`` lacks here, as one line with the install hint, or None.

    Checked before a run starts: without it the run worked ~41 s before dbt's adapter error.
    """
    missing = [package for module, package in _SPARK_NEEDS.items() if importlib.util.find_spec(module) is None]
    if missing:
        lacking = ", ".join(missing)
        return f"--target spark needs the spark extra ({lacking} missing): make spark (requirements-spark.lock)"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "--target spark needs Java (17) on PATH or in JAVA_HOME: make spark installs it where it can"
    return None


def start_jvm_quietly(log_file: Path) -> None:
    """Have Spark's JVM, when dbt-spark starts it, write its console to ``log_file``, not the terminal.

    Spark's JVM writes its start-up notes and a WARN line for many statements dbt-spark sends
    (an existing session reused, Hive metastore notes) to its console, the terminal's. pyspark
    starts the JVM with the session's settings (``server_side_parameters`` in profiles.yml, as
    ``spark-submit --conf``: some, like ``spark.driver.memory``, count only there); its launcher
    is wrapped once per process to hand the JVM this warehouse's log file as stdout and stderr,
    and is otherwise called exactly as pyspark calls it.
    """
    import sys
    import warnings

    # pyspark warns on import that pandas 3 is not fully supported; it uses none of it here.
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    try:
        from pyspark import SparkContext
    except ImportError:  # dbt then says what is missing, in its one line
        return

    global _jvm_log
    _jvm_log = log_file
    context = sys.modules[SparkContext.__module__]  # pyspark.core.context (pyspark 4), pyspark.context (3)
    launch = getattr(context, "launch_gateway", None)
    if launch is None or getattr(launch, "into_log", False):
        return

    def launch_into_log(conf=None, popen_kwargs=None):
        _jvm_log.parent.mkdir(parents=True, exist_ok=True)
        with open(_jvm_log, "a", encoding="utf-8") as log:  # the JVM keeps its own handle
            log.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} Spark JVM started by process {os.getpid()}\n")
            log.flush()
            return launch(conf, popen_kwargs={**(popen_kwargs or {}), "stdout": log, "stderr": log})

    launch_into_log.into_log = True
    context.launch_gateway = launch_into_log
