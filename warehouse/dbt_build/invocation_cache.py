"""What dbt recomputes on every call in a process although it depends only on the parsed project
or on its arguments: the project's graph, the installed dbt plugin modules and the type testers of
query results, kept for the process after the first call.

Every ``dbt build`` links the whole project's graph (some 300 nodes and their test edges), writes
two diagnostic summaries of it, and lists every module on ``sys.path`` for plugins: 0.26 s of CPU
per call measured in the study run's dbt child, whose warm-up build already paid them once
(:mod:`~biaswh.warehouse.dbt_build.build_child`). Here the graph is kept per parsed project (the same
``Manifest`` object, unchanged in size) and the plugin modules per ``sys.path``; a call gets a copy
of the kept graph, which dbt's own compile would have built edge for edge
(``tests/warehouse/test_dbt_invocation_cache.py``). What the compile also did and later calls
still see is kept: the target folder made, the "Found N models" event. Only ``graph_summary.json``
(dbt's diagnostics, read by nothing here) keeps the first call's invocation id.

Every query whose rows a node reads (a data test's failures, a model's column listing) builds an
agate type tester for its text columns, seven data types with their date parsers: 2 ms each, 64 per
results build. dbt itself shares one tester for results without text columns; here each tester is
kept per text columns and null spellings, as that one is.
"""

from __future__ import annotations

import sys
import weakref

# The manifest's collections whose size a later change to the manifest (a node added) would change.
_SHAPE = ("nodes", "sources", "exposures", "metrics", "semantic_models", "saved_queries", "unit_tests", "macros")

# id(manifest) -> (a weak reference to it, {(write, add_test_edges, shape): networkx graph})
_GRAPHS: dict[int, tuple[weakref.ref, dict]] = {}
_PLUGIN_MODULES: dict[tuple[str, ...], dict] = {}
_TYPE_TESTERS: dict[tuple, object] = {}


def _shape(manifest) -> tuple[int, ...]:
    return tuple(len(getattr(manifest, name, None) or ()) for name in _SHAPE)


def _kept_graphs(manifest) -> dict:
    entry = _GRAPHS.get(id(manifest))
    if entry is None or entry[0]() is not manifest:
        for key in [key for key, (ref, _) in _GRAPHS.items() if ref() is None]:
            del _GRAPHS[key]
        entry = _GRAPHS[id(manifest)] = (weakref.ref(manifest), {})
    return entry[1]


def install() -> None:
    """Keep the graph per parsed project, the plugin modules per ``sys.path`` and the type testers
    per their arguments (once per process; idempotent)."""
    from dbt.compilation import Compiler, _generate_stats, print_compile_stats
    from dbt.graph import Graph
    from dbt.plugins.manager import PluginManager
    from dbt_common.clients import agate_helper

    original_compile = Compiler.compile
    if getattr(original_compile, "kept", False):
        return

    def compile(self, manifest, write=True, add_test_edges=False):
        graphs = _kept_graphs(manifest)
        key = (bool(write), bool(add_test_edges), _shape(manifest))
        if key not in graphs:
            graph = compile.original(self, manifest, write=write, add_test_edges=add_test_edges)
            graphs[key] = graph.graph.copy()
            return graph
        self.initialize()
        if self.config.args.which != "list":
            print_compile_stats(_generate_stats(manifest))
        return Graph(graphs[key].copy())

    def get_prefixed_modules(cls):
        key = tuple(sys.path)
        if key not in _PLUGIN_MODULES:
            _PLUGIN_MODULES[key] = get_prefixed_modules.original.__func__(cls)
        return dict(_PLUGIN_MODULES[key])

    def build_type_tester(text_columns, string_null_values=("null", "")):
        key = (tuple(text_columns), None if string_null_values is None else tuple(string_null_values))
        if key not in _TYPE_TESTERS:
            _TYPE_TESTERS[key] = build_type_tester.original(key[0], string_null_values)
        return _TYPE_TESTERS[key]

    compile.kept = True
    compile.original = original_compile
    get_prefixed_modules.original = PluginManager.get_prefixed_modules
    build_type_tester.original = agate_helper.build_type_tester
    Compiler.compile = compile
    PluginManager.get_prefixed_modules = classmethod(get_prefixed_modules)
    agate_helper.build_type_tester = build_type_tester
