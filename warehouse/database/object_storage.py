"""Object storage (``s3://``) for DuckDB: its httpfs extension, loaded offline, and credentials from the environment.

The extension comes from the ``duckdb-extension-httpfs`` package (pinned to our DuckDB, as
``duckdb-extension-lance`` is), so nothing is downloaded at run time. Credentials are read from
the standard AWS variables when a connection needs them and handed to DuckDB as a temporary
secret (in memory, gone with the connection): never written to the warehouse, a log or a run
record. An S3-compatible store (MinIO, moto, ...) is named by ``AWS_ENDPOINT_URL_S3`` or
``AWS_ENDPOINT_URL``.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import duckdb

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.relations.column_docs import sql_string

# The credentials, as the AWS tools name them; the first two are required.
KEY_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
ENDPOINT_VARIABLES = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
_SECRET = "biaswh_s3"


def is_url(location: str) -> bool:
    """Whether ``location`` names object storage (``scheme://...``) rather than a folder path."""
    return "://" in location


def extension_path() -> Path:
    """The httpfs extension's file for this DuckDB, from the ``duckdb-extension-httpfs`` package."""
    import duckdb_extension_httpfs

    folder = Path(next(iter(duckdb_extension_httpfs.__path__)))
    return folder / "extensions" / f"v{duckdb.__version__}" / "httpfs.duckdb_extension"


def open_object_storage(connection: duckdb.DuckDBPyConnection, location: str) -> None:
    """Let ``connection`` read and write ``location`` (``s3://bucket/...``): httpfs loaded, an S3 secret
    made from the environment. Raises a one-line error for another scheme or missing credentials."""
    scheme = location.split("://", 1)[0]
    if scheme != "s3":
        raise UserError(f"{location}: only s3:// object storage is supported (DuckDB's httpfs), not {scheme}://")
    missing = [name for name in KEY_VARIABLES if not os.environ.get(name)]
    if missing:
        raise UserError(f"{location}: object storage needs the credentials {' and '.join(missing)} in the environment")
    connection.execute(f"load {sql_string(str(extension_path()))}")
    options = {
        "type": "s3",
        "key_id": os.environ["AWS_ACCESS_KEY_ID"],
        "secret": os.environ["AWS_SECRET_ACCESS_KEY"],
        "region": os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
    }
    if os.environ.get("AWS_SESSION_TOKEN"):
        options["session_token"] = os.environ["AWS_SESSION_TOKEN"]
    endpoint = next((os.environ[name] for name in ENDPOINT_VARIABLES if os.environ.get(name)), None)
    if endpoint:
        parts = urlsplit(endpoint if is_url(endpoint) else f"https://{endpoint}")
        options.update(endpoint=parts.netloc, use_ssl=parts.scheme == "https", url_style="path")
    settings = ", ".join(
        f"{key} {str(value).lower() if isinstance(value, bool) else sql_string(value)}"
        for key, value in options.items()
    )
    # Temporary: the secret lives in this connection's memory only, never in the database file.
    connection.execute(f"create or replace temporary secret {_SECRET} ({settings})")


def has_parquet(connection: duckdb.DuckDBPyConnection, folder: str) -> bool:
    """Whether ``folder`` (a path or an opened object-storage prefix) holds a Parquet file."""
    if not is_url(folder):
        return any(Path(folder).glob("*.parquet"))
    return connection.execute("select count(*) from glob(?)", [f"{folder}/*.parquet"]).fetchone()[0] > 0
