"""dbt's selection of nodes by bare name, answered from an index instead of a scan per name.

A study build that keeps unchanged views names every other node of its selection
(:mod:`biaswh.warehouse.dbt_build.view_state`): some 70 names, most of them data tests. dbt resolves each name
by testing every node of the project against it (``QualifiedNameSelectorMethod.search``,
about 500 nodes), which cost more than the build's SQL: 12 of the 33 s the seven demo studies
spent in dbt's main thread. Here the nodes are indexed once per parsed project by every
value a bare name can match (the node's name, its package and its top folder), and a
name's candidates are then checked with dbt's own matcher, so the answer is dbt's: a subset
by construction, and equal (``tests/warehouse/test_dbt_selection.py`` compares the two for
every name and folder of the project). Names with a dot or a wildcard take dbt's own path.
"""

from __future__ import annotations

import weakref
from typing import Iterator

# A selector with one of these is a path or a pattern: dbt's own search answers it.
_NOT_A_BARE_NAME = (".", "*", "?", "[", "]")

# (the manifest, the node ids searched, {key: [(unique_id, node), ...]}), for the last project searched.
_last: tuple[weakref.ref, frozenset, dict] | None = None


def _keys(fqn: list[str]) -> set[str]:
    """Every bare name that can select a node of this fqn (a superset: dbt's matcher decides).

    dbt compares a bare name with the fqn's leaf (or, for a versioned model, its last two
    parts), and with the first part of the fqn and of the fqn without its package.
    """
    keys = {fqn[-1], fqn[0].split(".")[0]}
    if len(fqn) > 1:
        keys |= {fqn[-2], "_".join(fqn[-2:]), fqn[1].split(".")[0]}
    return keys


def _index(method, included_nodes) -> dict:
    global _last
    nodes = frozenset(included_nodes)
    if _last is not None and _last[0]() is method.manifest and _last[1] == nodes:
        return _last[2]
    index: dict[str, list] = {}
    for unique_id, node in method.non_source_nodes(nodes):
        for key in _keys(node.fqn):
            index.setdefault(key, []).append((unique_id, node))
    _last = (weakref.ref(method.manifest), nodes, index)
    return index


def install() -> None:
    """Answer dbt's bare-name selection from the index (once per process; idempotent)."""
    from dbt.graph.selector_methods import QualifiedNameSelectorMethod

    original = QualifiedNameSelectorMethod.search
    if getattr(original, "indexed", False):
        return

    def search(self, included_nodes, selector: str) -> Iterator:
        if not selector or any(mark in selector for mark in _NOT_A_BARE_NAME):
            yield from original(self, included_nodes, selector)
            return
        for unique_id, node in _index(self, included_nodes).get(selector, ()):
            if self.node_is_match(selector, node.fqn, node.is_versioned):
                yield unique_id

    search.indexed = True
    search.original = original
    QualifiedNameSelectorMethod.search = search
