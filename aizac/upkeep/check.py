"""Verify every store of a project (``aizac check``); nothing is changed but what any open of
the project repairs (an embedded memory finishes a commit a kill cut off, as the next command
would).

In the order a writer needs the answers:

1. **every SQLite file** of the folder (the project's rows, the journal, the key index, the
   autopilot's files, the style evidence) with SQLite's ``PRAGMA integrity_check``, and the
   Chroma store in ``memory/`` (``chroma.sqlite3`` checked the same way, the files of each
   persisted vector index there); on PostgreSQL the project's rows are read back whole;
2. **the memory against itself**: it opens (whatever embeddings it was written with: only its
   stored vectors are read), its vector index answers a search with one of its own vectors,
   every memory has its row in the key index (a cache that may hold more, never less), and the
   commit journal agrees with the rows (a finished commit's memories are there, an undone
   one's are not; on the database, a commit cut off by a kill is named: the next step
   finishes it);
3. **the invariant checker** (:mod:`aizac.upkeep.invariants`): the turn equals the accepted
   beats, no duplicate or orphan memory, one current relation per pair, the short-term
   summaries, prose only on accepted beats.

A project whose files are damaged stops after step 1 (nothing else can be trusted); the report
names each file, what is wrong, and the newest backup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from aizac.errors import AizacError, damage_of
from aizac.memory.chroma_health import CHROMA_FILE, chroma_damage
from aizac.storage.health import Damage, sqlite_damage
from aizac.storage.tables import CONCERNS, PROJECT_CONCERNS
from aizac.text import Text, Verbatim
from aizac.upkeep.layout import is_sqlite, newest_backup, project_files
from aizac.writer.project import ProjectStore


@dataclass(frozen=True)
class Finding:
    """One thing the check found wrong.

    Attributes:
        kind: ``damaged`` (a file), ``memory`` (the memory disagrees with itself),
            ``invariant`` (the project's rows and memory disagree), ``unreadable``.
        text: what it is, as the catalogue says it.
    """

    kind: str
    text: Text | Verbatim


@dataclass
class CheckReport:
    """What :func:`check_project` found (nothing: the project is whole)."""

    project: str
    path: Path
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    rows: int = 0
    memories: int = 0
    newest_backup: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def damaged(self) -> bool:
        return any(f.kind == "damaged" for f in self.findings)


MemoryOpener = Callable[[ProjectStore], tuple[Any, bool]]
"""Opens a project's memory to be read: ``(memory, owned)``, ``owned`` when the check opened
it and releases it afterwards (see :meth:`aizac.writer.service.Studio.check`)."""


def check_project(
    root: Path, name: str, *, catalog: Any = None, open_memory: MemoryOpener | None = None,
) -> CheckReport:
    """Check the project ``name`` in ``root`` (on ``catalog``'s database when given); see the
    module docstring. ``open_memory`` opens its memory to be read (without it, only the files
    are checked)."""
    directory = root / name
    report = CheckReport(name, directory, newest_backup=newest_backup(directory))
    store: ProjectStore | None = None
    try:
        store = ProjectStore.open(root, name, catalog=catalog)
    except AizacError as e:
        if damage_of(e) is None:
            report.findings.append(Finding("unreadable", e.text))
            return report
    _check_files(directory, report, server=catalog is not None)
    if store is not None and catalog is not None:
        _check_rows(store, report)
    if report.findings or store is None or open_memory is None:
        return report
    with store.lock():  # held still: no step of another process runs half-seen
        try:
            memory, owned = open_memory(store)
        except AizacError as e:
            damage = damage_of(e)
            report.findings.append(Finding("damaged" if damage else "unreadable",
                                           _damage_text(damage) if damage else e.text))
            return report
        try:
            _check_memory(memory, report)
            if not report.findings:
                _check_invariants(store, memory, report)
        finally:
            release = getattr(memory, "release", None)
            if owned and callable(release):
                release()
    return report


def _damage_text(damage: Any) -> Text:
    return Text("check.damaged", file=str(damage.params.get("file", "")),
                problem=damage.params.get("problem", ""))


def _said(found: Damage) -> Finding:
    return Finding("damaged", Text("check.damaged", file=str(found.path), problem=found.text()))


def _check_files(directory: Path, report: CheckReport, *, server: bool) -> None:
    """Step 1 for the folder's files (the project's rows are the database's on a server)."""
    project = directory / "project.sqlite3"
    if not server:
        found = sqlite_damage(project, deep=True)
        if found is not None:
            report.findings.append(_said(found))
    for path in project_files(directory) if directory.is_dir() else []:
        report.files += 1
        if is_sqlite(path) and path != project and path.name != CHROMA_FILE:
            found = sqlite_damage(path, deep=True)
            if found is not None:
                report.findings.append(_said(found))
    memory = directory / "memory"
    if memory.is_dir():
        found = chroma_damage(memory, deep=True)
        if found is not None:
            report.findings.append(_said(found))


def _check_rows(store: ProjectStore, report: CheckReport) -> None:
    """On the database: every row of the project's tables read back (a failure names it)."""
    try:
        for concern in PROJECT_CONCERNS:
            scope = store.scope(concern)
            with scope.db.read() as conn:
                for table in CONCERNS[concern]:
                    for _ in conn.execute(select(table).where(table.c.project == scope.project)):
                        report.rows += 1
    except AizacError as e:
        report.findings.append(Finding("unreadable", e.text))


def _check_memory(memory: Any, report: CheckReport) -> None:
    """Step 2 (see the module docstring)."""
    from aizac.memory.journal import DONE, PENDING, UNDONE

    try:
        rows = memory.rows.get_paged(None)
        ids: list[str] = rows["ids"]
        report.memories = len(ids)
        present = set(ids)
        if ids:
            first = memory.rows.fetch([ids[0]], ["embeddings"])["embeddings"][0]
            memory.rows.chroma(lambda: memory.collection.query(
                query_embeddings=[list(first)], n_results=min(10, len(ids)), include=[]))
    except AizacError as e:
        damage = damage_of(e)
        report.findings.append(Finding("damaged" if damage else "memory",
                                       _damage_text(damage) if damage else Text(
                                           "check.memory_unsearchable", cause=e.text)))
        return
    index = memory.rows.index
    if index is not None:
        indexed = set(index.ids({}, live_from=None))
        missing = sorted(present - indexed)
        if missing:
            report.findings.append(Finding("memory", Text(
                "check.index_short", count=len(missing), first=missing[0])))
    for snap, status in memory.commits.journal.records():
        if status == PENDING:
            report.findings.append(Finding("memory", Text("check.commit_pending",
                                                          batch=snap.batch)))
        elif status == DONE and snap.ids and not set(snap.ids) <= present:
            report.findings.append(Finding("memory", Text(
                "check.commit_lost", batch=snap.batch,
                count=len(set(snap.ids) - present))))
        elif status == UNDONE and set(snap.ids) & present:
            report.findings.append(Finding("memory", Text(
                "check.commit_undone_present", batch=snap.batch,
                count=len(set(snap.ids) & present))))


def _check_invariants(store: ProjectStore, memory: Any, report: CheckReport) -> None:
    """Step 3: the invariant checker over the memory opened here."""
    from aizac.upkeep.invariants import check_project as invariants

    found = invariants(store, open_memory=lambda _: _Kept(memory))
    for problem in found.problems:
        report.findings.append(Finding("invariant", Verbatim(problem)))


class _Kept:
    """The memory as the invariant checker reads it, without closing it (the check does)."""

    def __init__(self, memory: Any) -> None:
        self._memory = memory

    def all(self) -> Any:
        return self._memory.all()

    @property
    def turn(self) -> int:
        return int(self._memory.turn)

    @property
    def short_term(self) -> Any:
        return self._memory.short_term

    def close(self) -> None:
        """Closed by the check."""
