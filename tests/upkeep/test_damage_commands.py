"""Every command a writer may type at a damaged project (issue 37, "Done when": each corrupted
variant gets a clear message naming the file, and no command deletes or silently empties a
project): listing, checking, backing up, writing, exporting, reindexing and creating its name
each name the damaged file and leave every byte of the project as it was; the message points
to the project's newest backup, and restoring that backup keeps the damaged folder aside."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from aizac.cli import story, upkeep
from aizac.upkeep.layout import backups, backups_dir
from aizac.writer.service import Studio
from tests.upkeep.conftest import DAMAGE, SERVER_ROWS, damage, fingerprint, settle, written


def _app(make_studio: Callable[..., Studio]) -> typer.Typer:
    def factory(data_dir: Path | None = None, **options: Any) -> Studio:
        return make_studio(**options)

    app = typer.Typer()
    story.register(app, factory)
    upkeep.register(app, factory)
    return app


@pytest.mark.parametrize("variant", sorted(DAMAGE))
def test_no_command_deletes_or_empties_a_damaged_project(
    variant: str, tmp_path: Path, make_studio: Callable[..., Studio], engine: str
) -> None:
    if engine == "postgresql" and DAMAGE[variant][0] in SERVER_ROWS:
        pytest.skip("rows on the database: no such file")
    folder = written(make_studio(), "bad")
    make_studio().backup("bad")
    newest = make_studio().backup("bad").path
    assert backups(folder)[-1] == newest
    broken = damage(folder, variant)
    settle(folder)
    before = fingerprint(folder)
    app, runner = _app(make_studio), CliRunner()

    # a backup first (nothing opened the project yet: a page of chroma.sqlite3 overwritten is
    # found in its copy); the listing after a command that opened it: a quick look finds most
    # damage, what only an open finds is noted then
    commands: list[tuple[list[str], int]] = [
        (["backup", "-p", "bad"], 1),
        (["check", "-p", "bad"], 1),
        (["beat", "-p", "bad"], 1),
        (["projects"], 0),
        (["export", "-p", "bad", "-o", str(tmp_path / "out") + "/"], 1),
        (["reindex", "-p", "bad"], 1),
        (["new", "bad", "-k", "x"], 1),
    ]
    for args, status in commands:
        done = runner.invoke(app, args)
        said = done.output
        assert done.exit_code == status, (args, said, done.exception)
        assert "Traceback" not in said and "RustBindings" not in said, (args, said)
        if args[0] != "new" or broken.name == "project.sqlite3":
            assert broken.name in said, (args, said)  # the damaged file is named
        # (a create of the name is refused: "exists" when the project's own file reads)
        if args[0] in ("backup", "check", "beat", "export", "reindex"):
            assert str(newest) in said, (args, said)  # and the newest backup
        settle(folder)
        assert fingerprint(folder) == before, args  # nothing changed, nothing deleted
    assert backups(folder)[-1] == newest  # a damaged project's backup was refused

    restored = runner.invoke(app, ["restore", str(newest)])
    assert restored.exit_code == 0, restored.output
    settle(folder)
    (kept,) = [p for p in backups_dir(folder).iterdir() if p.name.startswith("replaced-")]
    assert fingerprint(kept) == before  # the damaged folder, every byte, set aside
    assert make_studio().check("bad").ok
    agent = make_studio().open("bad")
    assert agent.memory.turn == 2 and len(agent.store.beats(status="accepted")) == 2
