"""aizac's import graph from its source, for the tests that check it (shared, not a test).

Every ``import`` statement counts: at module level, inside a function and under
``if TYPE_CHECKING:``. The graph is built with :mod:`ast` from the source, nothing is imported,
and the strongly connected components are Tarjan's. ``importlib.import_module`` with a string
(``aizac/cli/_register.py``) is not an import statement and is not counted.
:mod:`tests.test_import_graph` checks the modules for cycles, :mod:`tests.test_layers` the
packages against :mod:`aizac.layers`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import aizac

PACKAGE = Path(aizac.__file__).parent

Graph = dict[str, dict[str, int]]
"""module -> {imported module: the line of its first import there}."""


def module_names(package: Path) -> dict[str, Path]:
    """Dotted module name -> source file, for every ``.py`` file under ``package``."""
    names: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom,
             modules: dict[str, Path]) -> list[str]:
    """The modules of ``modules`` one import statement names (its longest known prefixes)."""
    if isinstance(node, ast.Import):
        wanted = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join([*package, base] if base else package)
        # ``from aizac.writer import episode`` imports the module aizac.writer.episode.
        wanted = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                  for alias in node.names]
    found = []
    for name in wanted:
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in modules:
            found.append(name)
    return found


def import_graph(package: Path) -> Graph:
    """Who imports whom inside ``package``: every import statement, wherever it stands."""
    modules = module_names(package)
    graph: Graph = {name: {} for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in _targets(name, path, node, modules):
                    if target != name:
                        graph[name].setdefault(target, node.lineno)
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def describe(graph: Graph, component: list[str], package: Path) -> str:
    """The imports inside one cycle, as ``file:line a -> b`` lines."""
    modules = module_names(package)
    members = set(component)
    lines = [f"{len(component)} modules: {', '.join(component)}"]
    for source in component:
        for target, line in sorted(graph[source].items()):
            if target in members:
                where = modules[source].relative_to(package.parent)
                lines.append(f"  {where}:{line} {source} -> {target}")
    return "\n".join(lines)
