"""The shared local Ray instance stops right after the session's last test that uses it."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

from tests.conftest import REPOSITORY_ROOT
from tests.ray_local import last_ray_user

# A stand-in for the ray package that writes each call to a file (a real instance costs ~11 s
# to start; what is under test is when the plugin starts and stops it).
FAKE_RAY = """
import os
_up = False
def _note(what):
    with open(os.environ["RAY_CALLS"], "a") as calls:
        calls.write(what + "\\n")
def is_initialized():
    return _up
def init(**kwargs):
    global _up
    _up = True
    _note("init")
def cluster_resources():
    return {"CPU": 2}
def shutdown():
    global _up
    if _up:
        _note("shutdown")
    _up = False
"""

SESSION = """
import os
import pytest

def _note(what):
    with open(os.environ["RAY_CALLS"], "a") as calls:
        calls.write(what + "\\n")

@pytest.fixture(scope="module")
def prepared(ray_local):
    return ray_local

def test_a_uses_ray(ray_local):
    _note("a")

def test_b_uses_ray_through_a_fixture(prepared):
    _note("b")

def test_c_does_not():
    _note("c")

def test_d_does_not():
    _note("d")
"""


def test_ray_stops_after_the_last_test_using_it_not_at_the_sessions_end(tmp_path):
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "__init__.py").write_text(FAKE_RAY, encoding="utf-8")
    (tmp_path / "test_session.py").write_text(SESSION, encoding="utf-8")
    calls = tmp_path / "calls.txt"
    environment = {
        **os.environ,
        "RAY_CALLS": str(calls),
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPOSITORY_ROOT)]),
    }
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.ray_local",
            "-p",
            "no:cacheprovider",
            "-q",
            "-n",
            "0",
            "--no-cov",
            "test_session.py",
        ],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert calls.read_text(encoding="utf-8").split() == ["init", "a", "b", "shutdown", "c", "d"]


def test_the_last_user_counts_fixtures_that_use_ray_in_turn():
    items = [
        SimpleNamespace(name="a", fixturenames=["ray_local"]),
        SimpleNamespace(name="b", fixturenames=["tmp_path", "prepared", "ray_local"]),
        SimpleNamespace(name="c", fixturenames=["tmp_path"]),
    ]
    assert last_ray_user(items).name == "b"
    assert last_ray_user(items[2:]) is None
