"""A Spark Thrift server started from the pyspark package on 127.0.0.1: the cluster target's stand-in in tests.

pyspark 4.3 ships ``spark-hive-thriftserver_2.13-4.3.0.jar`` and its Hive 2.3 jars, so
``spark-submit --class org.apache.spark.sql.hive.thriftserver.HiveThriftServer2`` runs the
server dbt-spark's ``thrift`` method talks to, with its own JVM, Derby metastore and
``spark.sql.warehouse.dir``, all in one folder this machine also reads.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"


@dataclass
class ThriftServer:
    """A running server: its port, its table folder (``spark.sql.warehouse.dir``) and its process."""

    port: int
    warehouse: Path
    log: Path
    process: subprocess.Popen

    def stop(self) -> None:
        """End the server's process group (spark-submit and its JVM), waiting up to 30 s before a kill."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def start_thrift_server(folder: Path, *, timeout: float = 600) -> ThriftServer:
    """Start a Thrift server on a free port of 127.0.0.1 keeping everything under ``folder``; return once it listens.

    Raises RuntimeError with the log's last lines when the server exits or does not listen in ``timeout`` s.
    """
    import pyspark

    folder.mkdir(parents=True, exist_ok=True)
    spark_home = Path(pyspark.__file__).parent
    port = _free_port()
    warehouse = folder / "warehouse"
    command = [
        str(spark_home / "bin" / "spark-submit"),
        "--class",
        SERVER_CLASS,
        "--master",
        "local[2]",
        "--name",
        "biaswh-test-thrift-server",
        "--conf",
        "spark.ui.enabled=false",
        # Every socket of the server on the loopback address, its driver's own included.
        "--conf",
        "spark.driver.host=127.0.0.1",
        "--conf",
        "spark.driver.bindAddress=127.0.0.1",
        "--conf",
        f"spark.sql.warehouse.dir={warehouse}",
        "--conf",
        f"spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={folder / 'metastore_db'};create=true",
        "--hiveconf",
        f"hive.server2.thrift.port={port}",
        "--hiveconf",
        "hive.server2.thrift.bind.host=127.0.0.1",
        "spark-internal",
    ]
    log = folder / "server.log"
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen(
            command,
            cwd=folder,
            env={**os.environ, "SPARK_HOME": str(spark_home), "SPARK_LOCAL_IP": "127.0.0.1"},
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() ends spark-submit and the JVM together
        )
    server = ThriftServer(port, warehouse, log, process)
    deadline = time.monotonic() + timeout
    while not _accepts(port):
        if process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-20:])
            raise RuntimeError(f"the Spark Thrift server did not start (exit {process.poll()}):\n{tail}")
        time.sleep(1)
    return server
