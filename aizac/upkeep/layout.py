"""A project folder's files, where its backups live, and what a quick look finds damaged.

A project is ``<data_dir>/projects/<name>/`` (under ``aizac serve``:
``<data_dir>/users/<id>/projects/<name>/``) and its backups are
``<data_dir>/backups/<name>/`` beside ``projects/`` (``users/<id>/backups/<name>/``), one
zip file each, named ``<name>.<YYYYmmdd-HHMMSS>[.<reason>].zip`` so that they sort by time.
:func:`quick_damage` looks at every SQLite file of an embedded project and at its Chroma store
without opening them (sizes and headers: a listing of many projects stays fast); the deep
look is :mod:`aizac.upkeep.check`'s.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from aizac.errors import AizacError, DamagedError, damage_of
from aizac.memory.chroma_health import CHROMA_FILE, chroma_damage
from aizac.storage.health import Damage, ask_sqlite, sqlite_damage
from aizac.text import Text
from aizac.writer.project_rows import ProjectInfo

if TYPE_CHECKING:  # `aizac projects` looks at folders without SQLAlchemy (the store's import)
    from aizac.storage.catalog import Catalog
    from aizac.writer.project import ProjectStore

BACKUP_SUFFIX = ".zip"
PROCESS_FILES = {".lock", ".owner", ".owner.lock"}
"""Files of a project folder that are the running process's, never a writer's."""
SIDECARS = ("-wal", "-shm", "-journal")
"""SQLite's files beside a database (a backup copies the database whole instead)."""
SQLITE_SUFFIXES = (".sqlite3", ".sqlite")
_STAMP = re.compile(r"\.(\d{8}-\d{6}(?:-\d+)?)(?:\.([a-z-]+))?\.zip$")
"""A backup's name: ``<project>.<YYYYmmdd-HHMMSS>[-NN][.<reason>].zip``."""


def backups_dir(project_dir: Path) -> Path:
    """Where the backups of the project in ``project_dir`` go (see the module docstring)."""
    return project_dir.parent.parent / "backups" / project_dir.name


def backup_name(project: str, reason: str = "", when: float | None = None,
                taken: int = 0) -> str:
    """The file name of a backup of ``project`` taken at ``when`` (pure but for the clock);
    ``taken``: how many were taken in that second already."""
    moment = time.localtime(time.time() if when is None else when)
    stamp = time.strftime("%Y%m%d-%H%M%S", moment) + (f"-{taken:02d}" if taken else "")
    return f"{project}.{stamp}{'.' + reason if reason else ''}{BACKUP_SUFFIX}"


def new_backup_path(project_dir: Path, project: str, reason: str = "") -> Path:
    """Where a backup of ``project`` taken now goes: a name no backup has yet."""
    folder = backups_dir(project_dir)
    now = time.time()
    for taken in range(100):
        path = folder / backup_name(project, reason, now, taken)
        if not path.exists():
            return path
    return folder / backup_name(project, reason, now, 100)


def backups(project_dir: Path) -> list[Path]:
    """The finished backups of the project in ``project_dir``, oldest first (a backup being
    written is a hidden temporary file, never listed)."""
    folder = backups_dir(project_dir)
    try:
        found = [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
                 and p.name.endswith(BACKUP_SUFFIX)]
    except OSError:
        return []
    return sorted(found, key=lambda p: (_stamp_of(p), p.name))


def _stamp_of(path: Path) -> str:
    found = _STAMP.search(path.name)
    return found.group(1) if found else ""


def reason_of(path: Path) -> str:
    """The reason in a backup's name (``before-reindex``; ``""`` for one taken by hand)."""
    found = _STAMP.search(path.name)
    return (found.group(2) or "") if found else ""


DAMAGED_REASON = "damaged-before-restore"
"""The reason of the backup a restore on the database takes of a damaged project: its files
as they were, damaged ones too (never the backup a damaged project's message points to)."""


def newest_backup(project_dir: Path) -> Path | None:
    """The newest backup of the project in ``project_dir`` (not one of a damaged project), if
    there is one."""
    found = [p for p in backups(project_dir) if reason_of(p) != DAMAGED_REASON]
    return found[-1] if found else None


def with_backup(error: BaseException, project_dir: Path) -> DamagedError | None:
    """The :class:`DamagedError` in ``error``'s chain, its hint pointing to the project's newest
    backup; ``None`` when ``error`` is not about a damaged file."""
    damage = damage_of(error)
    if damage is None:
        return None
    return damage.with_backup(newest_backup(project_dir))


def is_sqlite(path: Path) -> bool:
    """Whether ``path`` is one of a project's SQLite files (by its name)."""
    return path.suffix in SQLITE_SUFFIXES


def project_files(folder: Path) -> Iterator[Path]:
    """Every file of a project folder a backup keeps: not the process's lock files, not
    SQLite's sidecar files, not hidden temporary files."""
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        relative = path.relative_to(folder)
        if path.name in PROCESS_FILES or path.name.endswith(SIDECARS):
            continue
        if any(part.startswith(".") for part in relative.parts):
            continue  # a temporary file being written (".x.tmp") or the process's own
        yield path


def quick_damage(folder: Path) -> list[Damage]:
    """What a quick look finds damaged in an embedded project folder: each SQLite file (empty,
    not SQLite, cut short; ``project.sqlite3`` missing) and the Chroma store in ``memory/``
    (``chroma.sqlite3`` missing beside the project's index and journal, or damaged; a vector
    index that lost a file). Nothing is opened or changed."""
    found: list[Damage] = []
    project = folder / "project.sqlite3"
    damage = sqlite_damage(project)
    if damage is not None:
        found.append(damage)
    for path in project_files(folder):
        if is_sqlite(path) and path != project and path.name != CHROMA_FILE:
            damage = sqlite_damage(path)
            if damage is not None:
                found.append(damage)
    memory = folder / "memory"
    if memory.is_dir():
        damage = chroma_damage(memory)
        if damage is not None:
            found.append(damage)
    return found


def memory_expected(store: ProjectStore) -> bool:
    """Whether the project of ``store`` has written memories (a plot's seeds, an accepted
    beat's): its memory store must then be there, and one that is not is missing, never
    made anew and empty. The scenes of an imported manuscript are accepted before the memory
    has read them (it then holds nothing of them)."""
    plot = store.plot()
    return bool(plot is not None and plot.memory_ids) or store.count_beats(
        "accepted", imported=False) > 0


def damaged_error(folder: Path) -> DamagedError | None:
    """The error of the first damage :func:`quick_damage` finds (its hint naming the newest
    backup), else ``None``."""
    found = quick_damage(folder)
    if not found:
        return None
    return found[0].error(newest_backup(folder))



def memory_damage(store: ProjectStore) -> DamagedError | None:
    """What a quick look finds wrong with the embedded memory of a project on the database
    (its rows are not files; its Chroma store is): the store damaged, or gone while the
    project has memories (its hint naming the newest backup), else ``None``."""
    memory = store.memory_dir
    found = chroma_damage(memory) if memory.is_dir() else None
    if found is None and not (memory / CHROMA_FILE).exists() and memory_expected(store):
        found = Damage(memory / CHROMA_FILE, "missing")
    return found.error(newest_backup(store.directory)) if found is not None else None


DAMAGE_NOTE = ".damaged.json"
"""A note in a project folder: the damage an open found that a quick look cannot see (a page
of ``chroma.sqlite3`` overwritten), so the next listing still says it."""


def note_damage(folder: Path, error: DamagedError) -> None:
    """Keep ``error``'s damage in ``folder``'s note (best effort: a folder that cannot be
    written keeps none)."""
    import json

    note = {"file": str(error.params.get("file", "")), "problem": error.params.get("problem")}
    problem = note["problem"]
    if isinstance(problem, Text):
        note["problem"] = {"key": problem.key, "detail": str(problem.params.get("detail", ""))}
    else:
        note["problem"] = {"key": "damage.malformed", "detail": str(problem or "")}
    path = folder / DAMAGE_NOTE
    with contextlib.suppress(OSError, TypeError, ValueError):
        if folder.is_dir():
            temporary = path.with_name(path.name + ".tmp")
            temporary.write_text(json.dumps(note), encoding="utf-8")
            os.replace(temporary, path)


def noted_damage(folder: Path) -> DamagedError | None:
    """The damage ``folder``'s note keeps, when its file is still damaged (SQLite asked, or
    the Chroma store looked at again); a note whose file is whole again is removed."""
    import json

    path = folder / DAMAGE_NOTE
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
        file = Path(str(note["file"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    memory = folder / "memory"
    if note["problem"]["key"] == "damage.missing" and not file.exists():
        found: Damage | None = Damage(file, "missing")
    elif file.is_relative_to(memory) and not file.name.startswith("aizac-"):
        found = chroma_damage(memory, deep=True)
    else:
        found = ask_sqlite(file)
    if found is None:
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    return found.error(newest_backup(folder))


def project_info(root: Path, name: str, catalog: Catalog | None = None) -> ProjectInfo:
    """The project ``name`` as a list shows it: read from its store or, when it cannot be
    read, with what is wrong (:meth:`ProjectInfo.unreadable`; a damaged file first, its hint
    naming the newest backup)."""
    directory = root / name
    try:
        damage = damaged_error(directory) if catalog is None else None
        damage = damage or noted_damage(directory)
        if damage is not None:
            return ProjectInfo.unreadable(name, directory, damage)
        from aizac.writer.project import ProjectStore

        return ProjectStore.open(root, name, catalog=catalog).info()
    except AizacError as e:
        return ProjectInfo.unreadable(name, directory, with_backup(e, directory) or e)
