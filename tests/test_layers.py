"""Every package imports only itself and the layers below it (:mod:`aizac.layers`).

The imports are :func:`tests.import_graph.import_graph`'s: module level, inside functions and
under ``TYPE_CHECKING`` alike, so a deferred import cannot hide a wrong direction. A package
cycle (writer <-> dialogue, say) fails here even when no two modules form a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from aizac.layers import LAYERS, SAME_LAYER, UPWARD
from tests.import_graph import PACKAGE, Graph, import_graph, module_names

Edges = dict[str, dict[str, list[str]]]
"""package -> {imported package: ``file:line module -> module`` of each import}."""


def package_of(module: str) -> str:
    """``aizac.writer.project`` -> ``writer``; ``aizac.settings`` -> ``settings``; the root
    ``aizac`` -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def package_edges(graph: Graph, package: Path) -> Edges:
    """The imports between packages, each with where it stands."""
    modules = module_names(package)
    edges: Edges = {}
    for source, targets in graph.items():
        for target, line in sorted(targets.items()):
            a, b = package_of(source), package_of(target)
            if a != b:
                where = modules[source].relative_to(package.parent)
                edges.setdefault(a, {}).setdefault(b, []).append(
                    f"{where}:{line} {source} -> {target}")
    return edges


def wrong_imports(package: str, edges: Edges, layers: Iterable[Iterable[str]],
                  same_layer: Iterable[tuple[str, str]] = (),
                  upward: Mapping[tuple[str, str], str] | None = None) -> list[str]:
    """The imports from ``package`` to its own layer (unless declared) or above (unless known)."""
    level = {name: i for i, layer in enumerate(layers) for name in layer}
    allowed = set(same_layer) | set(upward or {})
    wrong = []
    for target, where in sorted(edges.get(package, {}).items()):
        if level[target] < level[package] or (package, target) in allowed:
            continue
        side = "same layer" if level[target] == level[package] else "higher layer"
        wrong += [f"{line}  ({target}: {side})" for line in where]
    return wrong


GRAPH = import_graph(PACKAGE)
EDGES = package_edges(GRAPH, PACKAGE)
PLACED = [name for layer in LAYERS for name in layer]


def test_every_package_has_one_place() -> None:
    found = {package_of(m) for m in GRAPH}
    assert len(found) > 20  # the whole package was read
    assert sorted(PLACED) == sorted(set(PLACED)), "a package is in two layers"
    assert found == set(PLACED), (f"not placed in aizac.layers: {sorted(found - set(PLACED))}; "
                                  f"placed but not in aizac: {sorted(set(PLACED) - found)}")


@pytest.mark.parametrize("package", PLACED)
def test_a_package_imports_only_lower_layers(package: str) -> None:
    wrong = wrong_imports(package, EDGES, LAYERS, SAME_LAYER, UPWARD)
    assert not wrong, (f"{package} imports against aizac.layers.LAYERS (move the code where it "
                       "belongs; deferring the import does not help):\n" + "\n".join(wrong))


@pytest.mark.parametrize("edge", sorted(SAME_LAYER | set(UPWARD)))
def test_each_declared_exception_is_still_used(edge: tuple[str, str]) -> None:
    assert edge[1] in EDGES.get(edge[0], {}), f"{edge} imports no more: remove it from aizac.layers"


def test_a_deferred_import_upward_is_found(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "",
        "pkg/low/a.py": "def f():\n    from pkg.high.b import g\n",  # deferred, upward
        "pkg/low/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                        "    from pkg.mid import M\n",  # TYPE_CHECKING, upward
        "pkg/mid.py": "from pkg.low import a\n",  # downward: fine
        "pkg/high/__init__.py": "",
        "pkg/high/b.py": "import pkg.mid\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    root = tmp_path / "pkg"
    edges = package_edges(import_graph(root), root)
    layers = (("low",), ("mid",), ("high",), ("__init__",))
    assert wrong_imports("low", edges, layers) == [
        "pkg/low/a.py:2 pkg.low.a -> pkg.high.b  (high: higher layer)",
        "pkg/low/c.py:3 pkg.low.c -> pkg.mid  (mid: higher layer)",
    ]
    assert wrong_imports("mid", edges, layers) == []
    assert wrong_imports("high", edges, layers) == []
    assert wrong_imports("low", edges, (("low", "mid", "high"),), upward={("low", "high"): ""}) == [
        "pkg/low/c.py:3 pkg.low.c -> pkg.mid  (mid: same layer)"]
