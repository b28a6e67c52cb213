"""Hostile arguments to the Python API: each refused as the CLI refuses the same option.

``run(limit=0)`` ran a study (``biaswh run --limit 0`` is refused) and ``charts(None)`` ended in
a traceback. Now every parameter of every public call raises :class:`biaswh.BadInput` (a
``ValueError`` and a ``UserError``) naming it, before any work: the warehouse file is unchanged.
"""

from __future__ import annotations

import hashlib
import inspect

import pytest

import biaswh
from biaswh import api
from tests.conftest import DEMO_STUDY, copy_warehouse


@pytest.fixture(scope="module")
def home(demo_warehouse, tmp_path_factory):
    return copy_warehouse(demo_warehouse.home, tmp_path_factory.mktemp("api-inputs") / "warehouse")


def _sha256(home) -> str:
    return hashlib.sha256((home / "warehouse.duckdb").read_bytes()).hexdigest()


CASES = [
    ("run", {"limit": 0}, "run: limit must be an integer >= 1, got 0"),
    ("run", {"limit": -5}, "run: limit must be an integer >= 1, got -5"),
    ("run", {"limit": "x"}, "run: limit must be an integer >= 1, got 'x'"),
    ("run", {"limit": 2.5}, "run: limit must be an integer >= 1, got 2.5"),
    ("run", {"limit": True}, "run: limit must be an integer >= 1, got True"),
    ("run", {"compute": "spark"}, "run: compute must be one of 'local', 'ray' or None, got 'spark'"),
    ("run", {"ray_address": "head:port"}, "run: ray_address 'head:port' is not a Ray address"),
    ("run", {"corpus_shards": 0}, "run: corpus_shards must be an integer >= 1, got 0"),
    ("run", {"study_path": None}, "run: study_path must be a path (str or os.PathLike), got None"),
    ("charts", {"page": None}, "charts: page must be a non-empty string, got None"),
    ("charts", {"page": ""}, "charts: page must be a non-empty string, got ''"),
    ("charts", {"page": "dialect", "run_id": 5}, "charts: run_id must be a non-empty string or None, got 5"),
    ("sql", {"query": None}, "sql: query must be a non-empty string, got None"),
    ("sql", {"query": b"select 1"}, "sql: query must be a non-empty string, got b'select 1'"),
    ("latest_run", {"study": None}, "latest_run: study must be a non-empty string, got None"),
    ("findings", {"study": 3}, "findings: study must be a non-empty string or None, got 3"),
]


@pytest.mark.parametrize(("method", "arguments", "message"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_bad_argument_is_one_clear_value_error(home, method, arguments, message):
    before = _sha256(home)
    warehouse = biaswh.open(home, read_only=False)
    if method == "run":
        arguments = {"study_path": str(DEMO_STUDY), **arguments}
    with pytest.raises(biaswh.BadInput) as refused:
        getattr(warehouse, method)(**arguments)
    assert isinstance(refused.value, ValueError) and message in str(refused.value)
    assert "\n" not in str(refused.value)
    assert _sha256(home) == before


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda home: biaswh.open(5), "open: path must be a path (str or os.PathLike), got 5"),
        (lambda home: biaswh.open(home, read_only="no"), "open: read_only must be True or False, got 'no'"),
        (lambda home: biaswh.run_study(DEMO_STUDY, limit=0, home=home), "run: limit must be an integer >= 1"),
    ],
)
def test_module_functions_check_their_arguments(home, call, message):
    before = _sha256(home)
    with pytest.raises(biaswh.BadInput, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(home)
    assert _sha256(home) == before


def _public_calls():
    """Every public method of Warehouse and function of the module, with its parameters (not self)."""
    for name, member in inspect.getmembers(api.Warehouse, inspect.isfunction):
        # mutmut (`make mutants`) adds each method's mutants to the class as xǁWarehouseǁNAME__mutmut_N
        if not name.startswith("_") and "ǁ" not in name:
            yield f"Warehouse.{name}", name, [p for p in inspect.signature(member).parameters if p != "self"]
    for name in ("open", "run_study"):
        yield name, None, list(inspect.signature(getattr(api, name)).parameters)


def test_every_parameter_of_every_public_call_is_checked(home):
    """An object of no accepted type for each parameter in turn: BadInput every time, never a traceback."""
    valid = {"study_path": str(DEMO_STUDY), "page": "dialect", "query": "select 1", "study": "demo", "home": home}
    unchecked = []
    for label, method, parameters in _public_calls():
        for parameter in parameters:
            arguments = {p: valid[p] for p in parameters if p in valid and p != parameter}
            arguments[parameter] = object()
            try:
                if method is None:
                    getattr(api, label)(**arguments)
                else:
                    getattr(biaswh.open(home, read_only=False), method)(**arguments)
            except biaswh.BadInput as refused:
                assert parameter in str(refused), refused
            else:
                unchecked.append(f"{label}({parameter}=...)")
    assert unchecked == []
