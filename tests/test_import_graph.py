"""The package's import graph has no cycle.

Every ``import`` statement counts: at module level, inside a function (a lazy import that hides
a cycle is still a cycle) and under ``if TYPE_CHECKING:`` (a type one module borrows from a
module that imports it is a seam in the wrong place: a Protocol in the lower module or the type
moved down breaks it). The graph is :func:`tests.import_graph.import_graph`.
"""

from __future__ import annotations

from pathlib import Path

from tests.import_graph import PACKAGE, Graph, cycles, describe, import_graph


def test_aizac_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert len(graph) > 100  # the whole package was read, not an empty folder
    found = cycles(graph)
    assert not found, "import cycles (break each where the concept is):\n" + "\n".join(
        describe(graph, c, PACKAGE) for c in found
    )


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_the_graph_sees_lazy_type_checking_and_relative_imports(tmp_path: Path) -> None:
    package = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    from pkg.b import g\n",  # a function-level import
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n",
        "pkg/c.py": "from . import a\nimport os\n",  # relative, and a module outside the package
        "pkg/sub/__init__.py": "from .. import a\n",
        "pkg/sub/d.py": "import pkg.sub\nfrom pkg.sub import e\n",
        "pkg/sub/e.py": "",
    })
    graph = import_graph(package)
    assert graph["pkg.a"] == {"pkg.b": 2}
    assert graph["pkg.b"] == {"pkg.c": 3}
    assert graph["pkg.c"] == {"pkg.a": 1}
    assert graph["pkg.sub"] == {"pkg.a": 1}
    assert graph["pkg.sub.d"] == {"pkg.sub": 1, "pkg.sub.e": 2}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    message = describe(graph, ["pkg.a", "pkg.b", "pkg.c"], package)
    assert "pkg/a.py:2 pkg.a -> pkg.b" in message


def test_separate_cycles_are_reported_apart() -> None:
    graph: Graph = {"a": {"b": 1}, "b": {"a": 1, "c": 1}, "c": {"d": 1}, "d": {"c": 1, "e": 1},
                    "e": {}}
    assert cycles(graph) == [["a", "b"], ["c", "d"]]
    assert cycles({"a": {"b": 1}, "b": {}}) == []
