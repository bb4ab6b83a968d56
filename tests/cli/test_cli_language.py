"""The command line's notes speak ``AIZAC_UI_LANGUAGE`` (its errors stay English, as the README
says): every line a command prints is a catalogue key, never an English literal."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "aizac" / "cli"
WORD = re.compile(r"[A-Za-z]{2,}")
PRINTERS = {"echo", "secho", "prompt", "confirm"}
KEPT = {("errors.py", "error"), ("errors.py", "hint")}
"""The error boundary's two prefixes stay as they are: scripts read ``error:`` and ``hint:``."""


def _english_printed(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            parts = ([first.value] if isinstance(first, ast.Constant)
                     and isinstance(first.value, str) else
                     [v.value for v in first.values if isinstance(v, ast.Constant)]
                     if isinstance(first, ast.JoinedStr) else [])
            words = {w for part in parts for w in WORD.findall(part)}
            if name in PRINTERS and words - {w for f, w in KEPT if f == path.name}:
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_command_prints_an_english_literal() -> None:
    assert _english_printed(sorted(CLI.rglob("*.py"))) == []


def test_the_scan_finds_an_english_line(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('import typer\ntyper.echo("no runs yet")\ntyper.echo(f"  {x}")\n'
                      'typer.prompt(f"{p} API key")\n', encoding="utf-8")
    assert _english_printed([module]) == ["m.py:2", "m.py:4"]


@pytest.mark.parametrize(("language", "said"), [
    ("ko", "아직 프로젝트가 없습니다: aizac new NAME --keywords ..."),
    ("zh", "还没有项目：aizac new NAME --keywords ..."),
    ("en", "no projects yet: aizac new NAME --keywords ..."),
])
def test_a_note_is_said_in_the_interface_language(tmp_path: Path, language: str,
                                                  said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from aizac.cli import main; main()", "projects"],
        capture_output=True, text=True, timeout=300, cwd=CLI.parents[1],  # this tree's aizac
        env={**os.environ, "AIZAC_DATA_DIR": str(tmp_path), "AIZAC_UI_LANGUAGE": language},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == said
