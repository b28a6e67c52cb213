"""One top-level package: the layers install as ``biaswh.<layer>`` from the folders the layout is known by.

A checkout keeps ``warehouse/``, ``stats/``, ``ingest/``, ``compute/``, ``analysis/`` and
``dashboards/`` beside ``biaswh/`` (``biaswh/__init__.py`` reaches them there); an install maps each
into ``biaswh/``, so ``pip install .`` adds one name, ``biaswh``, to site-packages. The rest of the
project's settings live in pyproject.toml.
"""

from setuptools import find_packages, setup

LAYERS = ("warehouse", "stats", "ingest", "compute", "analysis", "dashboards")

packages = find_packages(include=["biaswh", "biaswh.*"])
for layer in LAYERS:
    packages += [f"biaswh.{name}" for name in find_packages(include=[layer, f"{layer}.*"])]

setup(packages=packages, package_dir={f"biaswh.{layer}": layer for layer in LAYERS})
