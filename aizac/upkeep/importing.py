"""``aizac db import DATA_DIR``: move an embedded installation into the PostgreSQL database.

What moves, for every project of the installation (``DATA_DIR/projects/*`` of a single writer,
``DATA_DIR/users/<id>/projects/*`` of each ``aizac serve`` account) and for the accounts
(``DATA_DIR/server/accounts.sqlite3``):

* every row of the project's files (plot, episodes, beats, prose, undo tree, steps, pictures'
  rows, autopilot runs and events, continuity books, the memory's key index and commit journal)
  into the server database, **in one transaction per project**, each row under the project's
  key; ids are kept (rows are numbered per project), so the undo tree and picture slots stay
  true;
* the autopilot's LangGraph checkpoints into the database's saver (a paused run resumes on any
  process);
* the project's memory to the Chroma server when this installation uses one and the old one
  kept it embedded (rows copied by id: copying twice is copying once); with embedded Chroma it
  stays in the project folder;
* the folder's other files (pictures, exports, model settings) when the target data directory is
  another one.

**Resumable:** a project's key is derived from its owner, name and creation time, and every step
before its one transaction is idempotent, so a run killed anywhere is simply run again: projects
already moved are verified and skipped. **Verified:** after the move, the rows of every table
are counted on both sides, and the invariant checker (:mod:`aizac.upkeep.invariants`) runs on
the moved project as this installation opens it. The source is only read.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Table, func, select

from aizac.errors import AizacError, ConfigError
from aizac.settings import Settings
from aizac.storage.catalog import Catalog
from aizac.storage.database import EMBEDDED_FILES, Database, server_database, sqlite_file
from aizac.storage.tables import CONCERNS, PROJECT_CONCERNS, projects, users
from aizac.text import Text
from aizac.writer.project import ProjectStore

ACCOUNTS_FILE = Path("server") / "accounts.sqlite3"
"""An ``aizac serve`` installation's accounts file (see :mod:`aizac.server.accounts`)."""
STATUS_KEYS = {
    "imported": "progress.import.imported",
    "verified": "progress.import.verified",
    "conflict": "progress.import.conflict",
    "failed": "progress.import.failed",
}
"""The progress line of each way a project's import can end."""

KEY_SPACE = uuid.UUID("6f1e0c2a-29a1-4c1b-9d55-a12c0de29000")
"""The namespace of imported projects' keys (uuid5 of owner, name and creation time)."""
SKIP_FILES = {*EMBEDDED_FILES.values(), "autopilot_checkpoints.sqlite3", ".lock", ".owner",
              ".owner.lock"}
Say = Callable[[Text], None]


@dataclass
class Moved:
    """What happened to one project."""

    owner: str
    name: str
    status: str = "pending"  # imported, verified (already there), conflict, failed
    rows: int = 0
    checkpoints: int = 0
    memories: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass
class ImportReport:
    """The whole import: accounts moved and every project's outcome."""

    accounts: dict[str, int] = field(default_factory=dict)
    account_problems: list[str] = field(default_factory=list)
    projects: list[Moved] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.account_problems and all(
            p.status in ("imported", "verified") and not p.problems for p in self.projects)


def project_key(owner: str, name: str, created_at: float) -> str:
    """The key a moved project gets: the same on every run of the import (pure)."""
    return uuid.uuid5(KEY_SPACE, f"{owner}\x00{name}\x00{created_at!r}").hex


def embedded_projects(source: Path) -> Iterator[tuple[str, Path]]:
    """``(owner, folder)`` of every project of the installation in ``source``."""
    for name in ProjectStore.list_names(source / "projects"):
        yield "", source / "projects" / name
    users = source / "users"
    if users.is_dir():
        for user in sorted(p for p in users.iterdir() if p.is_dir() and p.name.isalnum()):
            for name in ProjectStore.list_names(user / "projects"):
                yield user.name, user / "projects" / name


def import_installation(
    source: Path, settings: Settings, *, say: Say | None = None,
    open_memory: Callable[[ProjectStore, str], Any] | None = None,
) -> ImportReport:
    """Move the embedded installation in ``source`` into ``settings``' server database.

    Args:
        source: the old ``AIZAC_DATA_DIR``.
        settings: this installation's settings (``AIZAC_DATABASE_URL`` must be set).
        say: progress lines.
        open_memory: ``(store, owner) -> memory`` as this installation opens a project's
            memory (for the invariant checker; the default is the Studio's way).

    Raises:
        ConfigError: no ``AIZAC_DATABASE_URL``.
    """
    url = settings.database
    if url is None:
        raise ConfigError("error.import.no_database")
    tell = say or (lambda _: None)
    db = server_database(url)
    report = ImportReport()
    opener = open_memory or _studio_memory(settings)
    accounts = source / ACCOUNTS_FILE
    if accounts.is_file():
        report.accounts, report.account_problems = _import_accounts(accounts, db)
        tell(Text("progress.import.accounts", **{t.name: report.accounts.get(t.name, 0)
                                                 for t in CONCERNS["accounts"]}))
    for owner, folder in embedded_projects(source):
        moved = Moved(owner, folder.name)
        report.projects.append(moved)
        try:
            _import_project(folder, owner, db, settings, moved, opener)
        except AizacError as e:
            moved.status = "failed"
            moved.problems.append(e.english())
        tell(Text(STATUS_KEYS[moved.status], name=moved.name, owner=owner or "-",
                  rows=moved.rows, problems=len(moved.problems)))
    return report


# ------------------------------------------------------------------------------ accounts
def _import_accounts(path: Path, db: Database) -> tuple[dict[str, int], list[str]]:
    """The accounts file's users, tokens and sessions into the database, in one transaction;
    a row already there is left as it is (a rerun moves nothing twice). Then every row of the
    file is looked for on the database by its key: the counts found, and what is missing (a
    name taken on the database by another account)."""
    source = sqlite_file(path, "accounts")
    tables = CONCERNS["accounts"]  # users first: tokens and sessions name them
    read: dict[str, list[dict[str, Any]]] = {}
    with source.read() as src:
        for table in tables:
            read[table.name] = [dict(r) for r in src.execute(select(table)).mappings()]
    with db.write("accounts") as conn:
        for table in tables:
            rows = read[table.name]
            if "user_id" in table.c:  # only for the users that are the file's on the database
                mine = _present(conn, users.c.id, [r["user_id"] for r in rows])
                rows = [r for r in rows if r["user_id"] in mine]
            if rows:
                conn.execute(db.insert(table).on_conflict_do_nothing(), rows)
    found: dict[str, int] = {}
    problems: list[str] = []
    with db.read() as conn:
        for table in tables:
            (key,) = table.primary_key.columns
            there = _present(conn, key, [r[key.name] for r in read[table.name]])
            found[table.name] = len(there)
            for row in read[table.name]:
                if row[key.name] not in there:
                    what = row.get("name") or row[key.name]
                    problems.append(f"account: {table.name} {what!r} is not on the database "
                                    "(another account holds its name or key)")
    return found, problems


def _present(conn: Connection, key: Any, ids: list[Any]) -> set[Any]:
    """Which of ``ids`` the column ``key`` holds."""
    there: set[Any] = set()
    wanted = sorted(set(ids))
    for start in range(0, len(wanted), 1000):
        there |= set(conn.execute(select(key).where(
            key.in_(wanted[start:start + 1000]))).scalars())
    return there


# --------------------------------------------------------------------------- one project
def _import_project(
    folder: Path, owner: str, db: Database, settings: Settings, moved: Moved,
    open_memory: Callable[[ProjectStore, str], Any],
) -> None:
    source = ProjectStore(folder)
    info = source.info()
    key = project_key(owner, info.name, info.created_at)
    catalog = Catalog(db, owner)
    found = catalog.find(info.name)
    if found is not None and found != key:
        moved.status = "conflict"
        moved.problems.append(f"conflict: the database has another project named {info.name!r}")
        return
    target_dir = _target_root(settings, owner) / info.name
    _copy_files(folder, target_dir)
    moved.memories = _copy_memory(source, owner, settings, info.name, info.created_at)
    moved.checkpoints = _copy_checkpoints(folder, key, settings)
    tables = _source_tables(folder)
    coll = _collection(settings, info.name, info.created_at)
    if found is None:
        with db.write(info.name) as conn:
            conn.execute(projects.insert().values(id=key, owner=owner, name=info.name,
                                                  created_at=info.created_at))
            for table, source_db in tables:
                _copy_table(source_db, conn, table, key, coll)
        moved.status = "imported"
    else:
        moved.status = "verified"
    moved.rows, wrong = _compare_counts(tables, db, key)
    moved.problems += wrong
    store = ProjectStore(target_dir, catalog=catalog, key=key)
    from aizac.upkeep.invariants import check_project

    checked = check_project(store, open_memory=lambda s: open_memory(s, owner))
    moved.problems += checked.problems


def _target_root(settings: Settings, owner: str) -> Path:
    return settings.data_dir / "users" / owner / "projects" if owner else (
        settings.data_dir / "projects")


def _source_tables(folder: Path) -> list[tuple[Table, Database]]:
    """Every table of the project's files that exist (a missing file is a concern never
    used), each with the file's database; nothing is created in the source."""
    out: list[tuple[Table, Database]] = []
    for concern in PROJECT_CONCERNS:
        path = folder / EMBEDDED_FILES[concern]
        if path.is_file():
            source_db = sqlite_file(path, concern)
            out += [(table, source_db) for table in CONCERNS[concern]]
    return out


def _collection(settings: Settings, name: str, created_at: float) -> str:
    """The memory collection this installation opens the project's memory in (the key index
    and the journal name it)."""
    from aizac.memory.chroma_client import project_collection, server_mode

    return project_collection(name, created_at) if server_mode(settings) else "novel"


def _copy_table(source: Database, conn: Connection, table: Table, key: str, coll: str) -> None:
    page, offset = 2000, 0
    order = list(table.primary_key.columns)
    renamed = {"coll": coll} if "coll" in table.c else {}
    with source.read() as src:
        while True:
            rows = src.execute(select(table).where(table.c.project == "").order_by(*order)
                               .limit(page).offset(offset)).mappings().all()
            if rows:
                conn.execute(table.insert(), [{**r, "project": key, **renamed} for r in rows])
            if len(rows) < page:
                return
            offset += page


def _compare_counts(tables: list[tuple[Table, Database]], db: Database,
                    key: str) -> tuple[int, list[str]]:
    total, wrong = 0, []
    for table, source_db in tables:
        with source_db.read() as src:
            have = int(src.execute(select(func.count()).select_from(table).where(
                table.c.project == "")).scalar() or 0)
        with db.read() as dst:
            moved = int(dst.execute(select(func.count()).select_from(table).where(
                table.c.project == key)).scalar() or 0)
        total += moved
        if have != moved:
            wrong.append(f"count: {table.name} has {have} rows in the file, {moved} moved")
    return total, wrong


# ------------------------------------------------------------------------------ files
def _copy_files(folder: Path, target: Path) -> None:
    """The project folder's own files (pictures, outline, an embedded Chroma), not its
    databases, when the target folder is another one."""
    if target.resolve() == folder.resolve():
        return

    def skip(_: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIP_FILES or n.endswith(("-wal", "-shm"))
                or n.startswith("aizac-")}

    shutil.copytree(folder, target, ignore=skip, dirs_exist_ok=True)


def _copy_checkpoints(folder: Path, key: str, settings: Settings) -> int:
    """The autopilot's checkpoints of the project, under its key's thread names (put twice is
    put once: the saver upserts by checkpoint id)."""
    from aizac.storage.checkpointer import (
        CHECKPOINTS_FILE,
        close_checkpointer,
        copy_checkpoints,
        open_checkpointer,
        thread_id,
    )

    path = folder / CHECKPOINTS_FILE
    if not path.is_file() or settings.database is None:
        return 0
    source = open_checkpointer(folder, "sqlite")
    target = open_checkpointer(folder, f"postgres:{settings.database}")
    try:
        return copy_checkpoints(source, target, lambda thread: thread_id(thread, key))
    finally:
        close_checkpointer(source)
        close_checkpointer(target)


def _copy_memory(source: ProjectStore, owner: str, settings: Settings, name: str,
                 created_at: float) -> int:
    """An embedded memory copied to the Chroma server this installation uses (by id, so a
    second copy changes nothing); ``0`` when there is nothing to copy."""
    from aizac.memory.chroma_client import server_mode

    chroma_file = source.memory_dir / "chroma.sqlite3"
    if not server_mode(settings) or not chroma_file.is_file():
        return 0
    from aizac.memory.chroma_client import ChromaClients, project_collection
    from aizac.memory.rows import HNSW
    from aizac.memory.state_file import current_state
    from aizac.memory.store import STATE_KEY

    embedded = settings.model_copy(update={"chroma_host": None})
    old = ChromaClients(embedded).client(path=source.memory_dir)
    try:
        origin = old.get_collection("novel", embedding_function=None)
    except Exception:
        return 0
    client = ChromaClients(settings).client(namespace=owner or None)
    target = client.get_or_create_collection(project_collection(name, created_at),
                                             embedding_function=None,
                                             configuration={"hnsw": dict(HNSW)})
    offset, page, copied = 0, 500, 0
    while True:
        got = origin.get(include=["embeddings", "documents", "metadatas"], limit=page,
                         offset=offset)
        if got["ids"]:
            target.upsert(ids=got["ids"], embeddings=got["embeddings"],
                          documents=got["documents"], metadatas=got["metadatas"])
            copied += len(got["ids"])
        if len(got["ids"]) < page:
            break
        offset += page
    state = {k: v for k, v in (origin.metadata or {}).items() if k.startswith("aizac_")}
    if state.get(STATE_KEY):  # the turn moved since Chroma's state was written: the file's
        state[STATE_KEY] = current_state(source.memory_dir, "novel", str(state[STATE_KEY]))
    if state:
        target.modify(metadata={**(target.metadata or {}), **state})
    return copied


def _studio_memory(settings: Settings) -> Callable[[ProjectStore, str], Any]:
    """How this installation opens a moved project's memory (for the invariant checker)."""
    cache: dict[str, Any] = {}

    def open_memory(store: ProjectStore, owner: str) -> Any:
        from aizac.writer.service import Studio

        studio = cache.get(owner)
        if studio is None:
            root = settings.data_dir / "users" / owner if owner else settings.data_dir
            studio = Studio(settings.model_copy(update={"data_dir": root}),
                            chroma_namespace=owner or None)
            cache[owner] = studio
        return studio.open_memory(store)

    return open_memory
