"""dbt's macro namespace of a node's context, built from a plan kept per parsed project.

Every node a build runs gets a fresh Jinja context, and each context a namespace of every macro
of the project (some 680: a ``MacroGenerator`` bound to the context for each), then copied into
the context's top-level names. dbt builds it macro by macro, placing each in its package, the
node's own package or the root project's, checking for duplicates, then resolves each name
through five dictionaries in turn for the copy: 5% of the study run's dbt child in a demo
profile, on every node. The placement depends on the parsed project only, so here it is
worked out once per project (the packages in dbt's order, each with its macros and whether it is
internal to the adapter), and a node's namespace is made package by package from it. The
namespace is dbt's own ``MacroNamespace`` that also holds the resolved names as a dictionary, so
copying it into the context is one dictionary merge. Same generators, same dictionaries, same
resolution (``tests/warehouse/test_dbt_macro_namespace.py`` compares the two on the project);
anything the plan does not cover (a builder already holding macros, a macro filed under another
package or name) takes dbt's own path, which raises what it raises.
"""

from __future__ import annotations

# (the manifest's macros by package, the internal package names, the packages' plan): one tuple,
# read and replaced whole (a build's threads share it)
_last: tuple | None = None


def _plan(builder, macros_by_package) -> list | None:
    """[(package, macro names, macros, internal)] in dbt's order, or None when dbt's own path must build."""
    if builder.globals or builder.locals or builder.internal_packages or builder.packages:
        return None
    global _last
    internal, last = frozenset(builder.internal_package_names), _last
    if last is not None and last[0] is macros_by_package and last[1] == internal:
        plan = last[2]
        if len(plan) == len(macros_by_package) and all(
            macros == tuple(package.values()) for (_, _, macros, _), package in zip(plan, macros_by_package.values())
        ):
            return plan
    plan = []
    for package in macros_by_package.values():
        macros = tuple(package.values())
        if not macros:
            continue
        name = macros[0].package_name
        if any(macro.package_name != name or macro.name != key for key, macro in package.items()):
            return None
        if any(name == earlier for earlier, _, _, _ in plan):
            return None
        plan.append((name, tuple(package), macros, name in internal))
    _last = (macros_by_package, internal, plan)
    return plan


def install() -> None:
    """Build macro namespaces from the kept plan (once per process; idempotent)."""
    from dbt.context import macros as dbt_macros
    from dbt.include.global_project import PROJECT_NAME as GLOBAL_PROJECT_NAME

    builder_class = dbt_macros.MacroNamespaceBuilder
    original = builder_class.build_namespace
    if getattr(original, "planned", False):
        return

    class ResolvedNamespace(dict, dbt_macros.MacroNamespace):
        """dbt's namespace (its four dictionaries, its package lookup) that is also the dictionary of
        what each name resolves to, in dbt's search order: the node's package, the root project, the
        packages by name, ``dbt``, the adapter's internal packages."""

        def __init__(self, global_namespace, local_namespace, global_project_namespace, packages) -> None:
            dbt_macros.MacroNamespace.__init__(
                self, global_namespace, local_namespace, global_project_namespace, packages
            )
            dict.__init__(self, global_project_namespace)
            self[GLOBAL_PROJECT_NAME] = global_project_namespace
            self.update(packages)
            self.update(global_namespace)
            self.update(local_namespace)

    def build_namespace(self, macros_by_package, ctx):
        plan = _plan(self, macros_by_package)
        if plan is None:
            return original(self, macros_by_package, ctx)
        generator, node, stack = dbt_macros.MacroGenerator, self.node, self.thread_ctx
        for package, names, macros, internal in plan:
            functions = dict(zip(names, [generator(macro, ctx, node, stack) for macro in macros]))
            if internal:
                self.internal_packages[package] = functions
                continue
            self.packages[package] = functions
            if package == self.search_package:
                self.locals.update(functions)
            elif package == self.root_package:
                self.globals.update(functions)
        global_project_namespace: dict = {}
        for package in reversed(self.internal_package_names_order):
            if package in self.internal_packages:
                global_project_namespace.update(self.internal_packages[package])
        return ResolvedNamespace(self.globals, self.locals, global_project_namespace, self.packages)

    build_namespace.planned = True
    build_namespace.original = original
    builder_class.build_namespace = build_namespace
