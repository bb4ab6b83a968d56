"""Rules of the package's code that no linter checks.

There is no line limit: a module holds one concept (see the design brief, "seams, not caps").
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _asserts_in(package: Path) -> list[str]:
    import ast

    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(package.parent)}:{node.lineno}"
                  for node in ast.walk(tree) if isinstance(node, ast.Assert)]
    return found


def test_the_package_never_uses_assert_for_control_flow() -> None:
    # `python -O` drops asserts: a check that matters must be an `if` that raises.
    assert _asserts_in(ROOT / "aizac") == []


def test_the_assert_finder_finds_one(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "m.py").write_text("def f(x):\n    assert x\n", encoding="utf-8")
    assert _asserts_in(package) == ["pkg/m.py:2"]
