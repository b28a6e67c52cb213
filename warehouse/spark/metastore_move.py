"""A moved or copied warehouse folder's Spark metastore re-pointed at its own folder, before Spark opens it.

Session mode keeps Spark's catalog in an embedded Derby database, ``$BIASWH_HOME/spark/metastore_db``,
and Derby holds every location as an absolute URI: each database's folder, each table's and each
partition's. After the warehouse folder is moved or copied, the next Spark build in it would
write its tables where the old folder was (dbt-spark drops a table, which deletes a managed
table's files there, and creates it again in its database's folder, also there). Spark cannot
fix that itself: its built-in Hive metastore client (2.3) refuses ``ALTER DATABASE ... SET
LOCATION``.

So before the first Spark session of a process starts in this folder, :func:`repoint_metastore`
compares the folder the metastore was written for (its ``default`` database's location, less
``/warehouse``) with this warehouse's Spark folder; when they differ, it rewrites that prefix in
every location the metastore holds, in one Derby transaction run by Derby's own ``ij`` tool
from pyspark's jars (a JVM of about 2 s). Only this folder's metastore changes; nothing is
written to the old folder, which may be gone. ``spark/metastore_folder.txt`` records the folder
last checked, so an unmoved warehouse starts no extra JVM.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.spark.raw_export import spark_folder

RECORD_FILE = "metastore_folder.txt"
# The metastore's columns that hold locations (Hive 2.3 schema): (table, column).
LOCATION_COLUMNS = (
    ("DBS", "DB_LOCATION_URI"),
    ("SDS", "LOCATION"),
    ("SERDE_PARAMS", "PARAM_VALUE"),  # a Spark data source table's 'path' option
    ("TABLE_PARAMS", "PARAM_VALUE"),
)
_FOUND = "FOLDER="
# Derby's own log (derby.log) would land in the working directory.
_QUIET = ("-Dderby.stream.error.file=/dev/null",)


def _derby(script: str, *, folder: Path) -> str:
    """Run ``script`` with Derby's ij on pyspark's jars; its output. Raises a one-line error when it fails."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    classpath = [
        str(found) for name in ("derby", "derbyshared", "derbytools") for found in jars.glob(f"{name}-[0-9]*.jar")
    ]
    java = shutil.which("java") or str(Path(os.environ.get("JAVA_HOME", "")) / "bin" / "java")
    with tempfile.NamedTemporaryFile("w", suffix=".sql", dir=folder, delete=False, encoding="utf-8") as handle:
        handle.write(script)
    try:
        done = subprocess.run(
            [
                java,
                "-Dderby.stream.error.file=/dev/null",
                "-cp",
                os.pathsep.join(classpath),
                "org.apache.derby.tools.ij",
                handle.name,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        os.unlink(handle.name)
    failed = [line for line in done.stdout.splitlines() if line.startswith("ERROR")]
    if done.returncode != 0 or failed:
        detail = failed[0] if failed else done.stderr.strip()[-300:]
        raise UserError(f"re-pointing the Spark metastore {folder / 'metastore_db'} at this folder failed: {detail}")
    return done.stdout


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _connect(metastore: Path) -> str:
    # Derby's URL attributes follow ';': a path holding one cannot be named (Spark's profile could not either).
    # ij cuts a longer value short (ending it in '&') at its default display width.
    return f"maximumdisplaywidth 32000;\nconnect {_literal('jdbc:derby:' + str(metastore))};\n"


def _written_for(metastore: Path) -> str | None:
    """The Spark folder the metastore's locations name (a ``file:`` URI's path), or None when unknown."""
    query = "select 'FOLDER=' || DB_LOCATION_URI from DBS where NAME = 'default';\n"
    output = _derby(_connect(metastore) + query + "disconnect;\n", folder=metastore.parent)
    for line in output.splitlines():
        if line.startswith(_FOUND):
            location = line[len(_FOUND) :].strip()
            if location.endswith("/warehouse"):
                return location[: -len("/warehouse")]
    return None


def repoint_script(metastore: Path, old: str, new: str) -> str:
    """The ij script replacing the location prefix ``old`` by ``new`` (both ``file:`` URIs), in one transaction."""
    lines = [_connect(metastore), "autocommit off;\n"]
    for table, column in LOCATION_COLUMNS:
        lines.append(
            f"update {table} set {column} = {_literal(new)} || substr({column}, {len(old) + 1})"
            f" where locate({_literal(old + '/')}, {column}) = 1"
            f" or locate({_literal(old)}, {column}) = 1 and length({column}) = {len(old)};\n"
        )
    lines += ["commit;\n", "disconnect;\n"]
    return "".join(lines)


def _escaped(uri: str) -> str:
    """``uri`` as Hadoop writes a path with spaces and such (``file:/a%20b``)."""
    return "file:" + quote(uri[len("file:") :], safe="/")


def spark_running() -> bool:
    """Whether this process already runs a Spark JVM (its metastore then is the one it opened first)."""
    try:
        from pyspark import SparkContext
    except ImportError:
        return False
    return SparkContext._active_spark_context is not None


def repoint_metastore(folder: Path | None = None) -> tuple[str, str] | None:
    """Re-point this warehouse's Spark metastore when it was written in another folder; ``(old, new)`` when it did.

    ``folder``: the warehouse's Spark folder (default :func:`biaswh.warehouse.spark.raw_export.spark_folder`).
    Call it before the process's Spark session starts (Derby allows one JVM on its files).
    """
    folder = folder or spark_folder()
    metastore = folder / "metastore_db"
    record = folder / RECORD_FILE
    here = f"file:{folder.resolve()}"
    if not (metastore / "service.properties").exists():
        return None
    if record.exists() and record.read_text(encoding="utf-8").strip() == here:
        return None
    old = _written_for(metastore)
    if old is not None and "%" in old:  # the metastore writes escaped URIs: so is the new prefix
        here = _escaped(here)
    moved = old is not None and old != here
    if moved:
        _derby(repoint_script(metastore, old, here), folder=folder)
    record.write_text(here + "\n", encoding="utf-8")
    return (old, here) if moved else None
