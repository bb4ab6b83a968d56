"""``--out`` of ``aizac export``: a folder writes into it, ``x.md`` stays ``x.md``."""

from __future__ import annotations

from pathlib import Path

import pytest

from aizac.errors import InvalidInputError
from aizac.export.files import export_target


def test_folder_with_trailing_slash(tmp_path: Path) -> None:
    out = str(tmp_path / "exports") + "/"
    assert export_target(out) == (Path(out), None, "txt")


def test_existing_folder(tmp_path: Path) -> None:
    assert export_target(str(tmp_path), "md") == (tmp_path, None, "md")


def test_extension_gives_the_format(tmp_path: Path) -> None:
    assert export_target(str(tmp_path / "x.md")) == (tmp_path, "x.md", "md")
    assert export_target(str(tmp_path / "x.epub"), "epub") == (tmp_path, "x.epub", "epub")


def test_plain_name_takes_the_format(tmp_path: Path) -> None:
    assert export_target(str(tmp_path / "novel"), "md") == (tmp_path, "novel", "md")


def test_conflicting_format_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="--format"):
        export_target(str(tmp_path / "x.md"), "txt")
