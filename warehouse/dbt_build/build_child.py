"""The study run's dbt child (:mod:`~biaswh.warehouse.dbt_build.build_process` starts it): it loads
dbt, then runs each build or listing the run sends, forwarding the events the node counter reads,
until the run's process closes its input. Only the child imports this module.
"""

from __future__ import annotations

import os
import signal
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from pathlib import Path
from types import SimpleNamespace

from biaswh.warehouse.dbt_build.build_process import FORWARDED_EVENTS, WARM_UP_SELECTION
from biaswh.warehouse.dbt_build.invoke import dbt_folder, invoke_dbt, last_manifest, load_dbt, parsed_nodes
from biaswh.warehouse.dbt_build.macro_templates import compile_recorded, record_called
from biaswh.warehouse.dbt_build.runner import FAILED_STATUSES, build_environment
from biaswh.warehouse.dbt_build.template_code import compile_recorded as compile_recorded_strings
from biaswh.warehouse.dbt_build.template_code import record_compiled
from biaswh.warehouse.runs.processes import exit_without_teardown


def serve(read_fd: int, write_fd: int) -> None:
    """The child: load dbt, say so, then run each request until this process's input ends; a run
    that ended meanwhile (its ends closed) ends the child quietly. The child then ends without
    the interpreter's teardown of dbt's modules: the run's exit waits for it (0.17-0.31 s here)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # between builds: the parent decides
    _quiet_resource_tracker()
    requests, replies = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    try:
        _serve(requests, replies)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        pass
    exit_without_teardown(0)


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (dbt's locks need it) with its error output discarded:
    a run that ends while this child still loads dbt kills it, and the tracker would then warn on
    the run's terminal of 'leaked semaphore objects' under the run's own one-line message."""
    saved, discard = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(discard, 2)
        resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(discard)


def _serve(requests: Connection, replies: Connection) -> None:
    # Without a kept parsed project (a machine's first run, an edited project), the child parses
    # it now, beside the run's own work (its selection listing asks the child too). A build's
    # first call in a process pays dbt's one-time set-up (flags, profile and project schemas, the
    # adapter, the graph): paid here, on a build that selects nothing and so never opens the
    # warehouse (1.21 s of CPU on a first build, 0.50 s after this, 0.26 s later on).
    loaded = load_dbt()
    if requests.recv() != "go":  # the run holds the warehouse's lock from here (build_process.start)
        return
    if loaded or invoke_dbt(["parse"], env=build_environment(())).success:  # a machine's first run parses here
        try:
            invoke_dbt(["build", "--select", WARM_UP_SELECTION], env=build_environment(()))
        except Exception:  # noqa: BLE001 - the first real build pays the set-up, and says what is wrong
            pass
    replies.send("ready")
    while True:
        _compile_macros_while_idle(requests)
        try:
            request = requests.recv()
        except EOFError:
            return
        os.environ.clear()
        os.environ.update(request["environ"])
        os.chdir(request["cwd"])
        answer = _answer(request, replies)
        if request["args"][0] == "build" and last_manifest() is not None:
            record_called(last_manifest(), dbt_folder() / "target")  # a few ms
            record_compiled(dbt_folder() / "target")
        replies.send(answer)


def _compile_macros_while_idle(requests: Connection) -> None:
    """Compile the templates of the macros this warehouse's builds called before (the run's
    results build compiled ~110 of them on its critical path), then the strings they compiled
    (node SQL, test arguments: 131), until a request arrives."""
    manifest = last_manifest()
    if manifest is not None:
        target, idle = dbt_folder() / "target", lambda: not requests.poll(0)
        compile_recorded(manifest, target, keep_going=idle)
        compile_recorded_strings(target, keep_going=idle)


def _answer(request: dict, replies: Connection) -> tuple:
    """Run one request: ("done", success, rows or listed lines, error text, failed nodes, interrupted)."""

    def forward(event) -> None:
        if event.info.name in FORWARDED_EVENTS:
            replies.send(("event", event.info.name, {"total": getattr(event.data, "total", None)}))

    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        log_file = Path(request["log_file"]) if request["log_file"] else None
        outcome = invoke_dbt(
            request["args"], env=request["env"], callbacks=[forward], log_file=log_file, console=request["console"]
        )
    except KeyboardInterrupt:
        outcome = SimpleNamespace(success=False, result=None, exception=KeyboardInterrupt())
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    interrupted = isinstance(outcome.exception, KeyboardInterrupt)
    if request["args"][0] == "ls":
        listed = [str(line) for line in outcome.result] if outcome.success and outcome.result else []
        return "done", bool(outcome.success), listed, str(outcome.exception or ""), {}, interrupted
    run = outcome.result if hasattr(outcome.result, "results") else None
    rows = [(r.node.unique_id, str(r.status), _text(r.message)) for r in (run.results if run else [])]
    failed = parsed_nodes([uid for uid, status, _ in rows if status in FAILED_STATUSES])
    return "done", bool(outcome.success), rows, str(outcome.exception or ""), failed, interrupted


def _text(message) -> str | None:
    return None if message is None else str(message)
