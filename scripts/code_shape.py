"""Print the modules and functions of a package that are over the team's size limits.

Usage: ``python scripts/code_shape.py [PACKAGE_DIR] [--max-module 450] [--max-function 80]``
(default package: ``aizac`` next to this script). Exits 1 when anything is over, 0 otherwise.
A function's length runs from its ``def`` (decorators included) to its last line, nested
functions counted in their parent too; a module's length is its number of lines.
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass
from pathlib import Path

MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80
PACKAGE = Path(__file__).resolve().parent.parent / "aizac"


@dataclass(frozen=True)
class Offender:
    """One module or function over its limit."""

    path: str
    """The file, relative to the package's parent (``aizac/writer/agent.py``)."""
    name: str
    """``""`` for a module, else the function's qualified name (``WriterAgent.accept``)."""
    first: int
    last: int

    @property
    def lines(self) -> int:
        return self.last - self.first + 1

    def key(self) -> str:
        """``path`` for a module, ``path:name`` for a function (what an allowlist names)."""
        return f"{self.path}:{self.name}" if self.name else self.path

    def __str__(self) -> str:
        return f"{self.key()}  {self.lines} lines ({self.first}-{self.last})"


def _functions(tree: ast.AST) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((prefix + child.name, child))
                walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def shape(
    package: Path = PACKAGE,
    *,
    max_module: int = MAX_MODULE_LINES,
    max_function: int = MAX_FUNCTION_LINES,
) -> tuple[list[Offender], list[Offender]]:
    """The modules over ``max_module`` lines and the functions over ``max_function`` lines."""
    modules: list[Offender] = []
    functions: list[Offender] = []
    for file in sorted(package.rglob("*.py")):
        rel = file.relative_to(package.parent).as_posix()
        text = file.read_text(encoding="utf-8")
        count = len(text.splitlines())
        if count > max_module:
            modules.append(Offender(rel, "", 1, count))
        for name, node in _functions(ast.parse(text, filename=rel)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            last = node.end_lineno or node.lineno
            if last - first + 1 > max_function:
                functions.append(Offender(rel, name, first, last))
    return modules, functions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", nargs="?", type=Path, default=PACKAGE)
    parser.add_argument("--max-module", type=int, default=MAX_MODULE_LINES)
    parser.add_argument("--max-function", type=int, default=MAX_FUNCTION_LINES)
    args = parser.parse_args(argv)
    modules, functions = shape(
        args.package, max_module=args.max_module, max_function=args.max_function
    )
    print(f"modules over {args.max_module} lines: {len(modules)}")
    for m in sorted(modules, key=lambda o: -o.lines):
        print(f"  {m}")
    print(f"functions over {args.max_function} lines: {len(functions)}")
    for f in sorted(functions, key=lambda o: -o.lines):
        print(f"  {f}")
    return 1 if modules or functions else 0


if __name__ == "__main__":
    sys.exit(main())
