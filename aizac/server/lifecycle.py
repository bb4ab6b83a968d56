"""An account's data as a whole: exporting it (one zip) and deleting it (sandbox, memory
database on a Chroma server, its projects' rows and checkpoints on the server database,
account rows), over HTTP and from ``aizac users``. Both engines export the same archive: a
project on the server database is written out as the files an embedded one keeps.

Deleting is ordered so that a failure half way is never a silent loss: the account is disabled
first (its sessions end, its tokens stop working), its open projects are closed, its Chroma
database is dropped (a server that is down stops here with a 503: the account stays disabled
and its files stay, and deleting again finishes), then its projects on the server database
(``AIZAC_DATABASE_URL``), then its folder (renamed aside, then
removed), then its rows.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import tempfile
import time
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.responses import FileResponse
from starlette.types import Receive, Scope, Send

from aizac.errors import AizacError, ConflictError, LimitError
from aizac.server.accounts import AccountStore, User
from aizac.server.errors import UnavailableError, clip
from aizac.settings import Settings
from aizac.writer.server_projects import drop_owner_projects

if TYPE_CHECKING:
    from aizac.server.sandbox import Sandboxes
    from aizac.server.state import ServerState

SKIP = {".lock", ".owner", ".owner.lock"}
"""Files of a project folder that are this process's, not the writer's."""
DATABASES = (".sqlite3", ".sqlite")


def _memory_rows(hits: list[Any]) -> list[dict[str, Any]]:
    return [{"id": str(h.id), "text": str(h.text), "tag": str(h.tag), "pinned": bool(h.pinned),
             "strength": float(h.strength), "live": bool(h.live),
             "metadata": {k: v for k, v in dict(getattr(h, "metadata", {})).items()
                          if isinstance(v, str | int | float | bool)}}
            for h in hits]


def _add_database(archive: zipfile.ZipFile, path: Path, name: str) -> None:
    """A consistent copy of a SQLite file (the backup API), even while it is being written."""
    with tempfile.NamedTemporaryFile(suffix=".sqlite3") as copy:
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        target = sqlite3.connect(copy.name)
        try:
            source.backup(target)
        finally:
            target.close()
            source.close()
        archive.write(copy.name, name)


def _add_project(archive: zipfile.ZipFile, folder: Path, prefix: str) -> None:
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not path.is_file() or path.name in SKIP or relative.parts[0] == "memory":
            continue  # memory is exported as memories.json (embedded or on a server)
        if path.name.endswith(("-wal", "-shm", "-journal")):
            continue
        name = f"{prefix}/{relative.as_posix()}"
        if path.suffix in DATABASES:
            _add_database(archive, path, name)
        else:
            archive.write(path, name)


SPOOL = "spool"
"""The folder of a user's sandbox where their whole-account export is written: it counts
against their storage limit while it is there."""
EXPORT_FILE = "account.zip"
RUNNING_RETRY_S = 10.0
"""The ``Retry-After`` of an export refused because another of the user's is under way (at
most: less when that one's time limit ends sooner)."""


class ExportSpool:
    """One whole-account export of a user at a time, spooled in their own sandbox.

    The export is a file made exclusively (``O_EXCL``), so a second export of the same user
    (this process, another one, another replica on the same data volume) is refused while the
    first is written or downloaded; it is removed once downloaded, or by :meth:`sweep` once
    it is ``keep_s`` old (a download that never finished, a process that died).

    Args:
        root: the user's sandbox folder.
        keep_s: how long a spooled file may stay.
        clock: the wall clock (file times are wall-clock times).
    """

    def __init__(self, root: Path, keep_s: float, clock: Callable[[], float] = time.time
                 ) -> None:
        self.folder = root / SPOOL
        self.keep_s = keep_s
        self.clock = clock

    def claim(self) -> Path:
        """The file to write this export to, now the user's one export under way.

        Raises:
            LimitError: another export of the user's is under way (429, ``Retry-After``).
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        self.sweep()
        target = self.folder / EXPORT_FILE
        for _ in range(2):  # the other export may end between the two calls
            try:
                os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                return target
            except FileExistsError:
                try:
                    age = self.clock() - target.stat().st_mtime
                except FileNotFoundError:
                    continue
                wait = min(RUNNING_RETRY_S, max(1.0, self.keep_s - age))
                raise LimitError("error.server.export_running", retry_after=wait) from None
        raise LimitError("error.server.export_running", retry_after=1.0)

    def sweep(self) -> int:
        """Remove what was spooled ``keep_s`` ago or earlier; how many went."""
        return sweep_folder(self.folder, self.keep_s, self.clock())


def sweep_folder(folder: Path, keep_s: float, now: float) -> int:
    """Remove the files and folders of ``folder`` last changed ``keep_s`` before ``now`` or
    earlier; how many went (a file being written stays: writing changes it)."""
    gone = 0
    try:
        entries = list(folder.iterdir())
    except OSError:
        return 0
    for entry in entries:
        try:
            if now - entry.lstat().st_mtime < keep_s:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            gone += 1
        except OSError:
            continue
    return gone


def sweep_spools(settings: Settings, keep_s: float) -> int:
    """:meth:`ExportSpool.sweep` for every user of the installation, and the server-wide spool
    earlier versions wrote exports to."""
    now = time.time()
    gone = sweep_folder(settings.data_dir / "server" / SPOOL, keep_s, now)
    users = settings.data_dir / "users"
    try:
        roots = [p for p in users.iterdir() if p.is_dir()]
    except OSError:
        return gone
    return gone + sum(sweep_folder(root / SPOOL, keep_s, now) for root in roots)


class SpooledZip(FileResponse):
    """A spooled export as a download; the file goes once it was sent, or the client went
    away (the export slot is free again), whatever happened on the way."""

    def __init__(self, path: Path, filename: str) -> None:
        super().__init__(path, media_type="application/zip", filename=filename)
        self.spooled = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.spooled.unlink(missing_ok=True)


def export_user(accounts: AccountStore, sandboxes: Sandboxes, user: User) -> Path:
    """A zip of everything of ``user``'s, spooled in their sandbox (see :class:`ExportSpool`;
    the caller removes it): ``account.json``; per project its folder's files (databases copied
    consistently) and ``memories.json`` (every memory, from wherever memory lives); the export
    folder.

    Raises:
        LimitError: another export of the user's is under way.
    """
    box = sandboxes.of(user)
    spooled = ExportSpool(box.root, sandboxes.config.export_keep_s)
    target = spooled.claim()
    spool = spooled.folder
    tokens = [{"id": t.id, "label": t.label, "scope": t.scope, "created_at": t.created_at,
               "expires_at": t.expires_at} for t in accounts.tokens(user.id)]
    account: dict[str, Any] = {
        "id": user.id, "name": user.name, "role": user.role, "language": user.language,
        "created_at": user.created_at, "exported_at": time.time(), "tokens": tokens}
    try:
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            damaged = [i for i in box.service.projects() if i.problem is not None]
            left = {i.name for i in damaged}
            account["damaged_projects"] = sorted(left)
            archive.writestr("account.json", json.dumps(account, ensure_ascii=False, indent=1))
            for info in damaged:  # its files as they are: nothing of a writer's is left out
                for path in sorted(info.path.rglob("*")) if info.path.is_dir() else []:
                    if path.is_file() and path.name not in SKIP:
                        archive.write(path, f"projects/{info.name}/"
                                            f"{path.relative_to(info.path).as_posix()}")
            for name in box.service.list_projects():
                if name in left:
                    continue
                with box.service.project_folder(name) as folder:
                    _add_project(archive, folder, f"projects/{name}")
                    with tempfile.TemporaryDirectory(dir=spool) as rows:
                        # a project on the server database: its rows as an embedded one's files
                        for path in box.service.embedded_rows(name, Path(rows)):
                            _add_database(archive, path,
                                          f"projects/{name}/{path.relative_to(rows).as_posix()}")
                    hits = box.service.all_memories(name)
                archive.writestr(f"projects/{name}/memories.json",
                                 json.dumps(_memory_rows(hits), ensure_ascii=False, indent=1))
            if box.export_dir.is_dir():
                for path in sorted(box.export_dir.rglob("*")):
                    if path.is_file():
                        archive.write(path, f"exports/{path.relative_to(box.export_dir)}")
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return target


def _drop_folder(root: Path) -> None:
    from aizac.storage.database import forget_folder

    forget_folder(root)  # a pooled connection would outlive the removed files
    if not root.exists():
        return
    aside = root.parent / f".deleted-{root.name}-{uuid.uuid4().hex[:8]}"
    root.rename(aside)
    shutil.rmtree(aside, ignore_errors=True)


def _drop_memory(settings: Settings, user_id: str) -> None:
    from aizac.memory.chroma_client import ChromaClients, server_mode

    if not server_mode(settings):
        return  # embedded memory lives in the project folders
    try:
        ChromaClients(settings).drop_namespace(user_id)
    except AizacError as e:
        raise UnavailableError("error.server.delete_incomplete",
                               detail=clip(e.message, 200)) from e


def delete_user(state: ServerState, user_id: str) -> None:
    """Delete the account ``user_id`` with its sandbox and memory (see the module)."""
    accounts = state.accounts
    user = accounts.user(user_id)
    if user.role == "admin" and not user.disabled and accounts.count_admins() <= 1:
        raise ConflictError("error.server.last_admin")
    accounts.set_disabled(user_id, True)
    accounts.revoke_tokens(user_id)
    box = state.sandboxes.cached(user_id)
    if box is not None:
        for name in box.service.list_projects():
            box.service.cancel(name)
    state.sandboxes.evict(user_id)
    _drop_memory(state.sandboxes.settings, user_id)
    drop_owner_projects(state.sandboxes.settings, user_id)
    _drop_folder(state.sandboxes.root_of(user))
    accounts.delete_user(user_id)


def delete_user_offline(accounts: AccountStore, settings: Settings, user_id: str) -> None:
    """:func:`delete_user` from ``aizac users delete`` (no server state): refused while a
    running server holds one of the user's projects open."""
    from aizac.writer.project import ProjectStore
    from aizac.writer.project_dirs import claim_project, release_project

    user = accounts.user(user_id)
    if user.role == "admin" and not user.disabled and accounts.count_admins() <= 1:
        raise ConflictError("error.server.last_admin")
    root = (settings.data_dir / "users" / user.id).resolve()
    projects = root / "projects"
    claimed: list[Path] = []
    try:
        for name in ProjectStore.list_names(projects):
            try:
                claim_project(projects / name, wait=1.0)
            except ConflictError as e:
                raise ConflictError("error.server.user_busy", name=user.name) from e
            claimed.append(projects / name)
        accounts.set_disabled(user_id, True)
        accounts.revoke_tokens(user_id)
        _drop_memory(settings, user_id)
        drop_owner_projects(settings, user_id)
        for folder in claimed:
            release_project(folder)
        claimed.clear()
        _drop_folder(root)
        accounts.delete_user(user_id)
    finally:
        for folder in claimed:
            with contextlib.suppress(Exception):
                release_project(folder)


__all__ = ["ExportSpool", "SpooledZip", "delete_user", "delete_user_offline", "export_user",
           "sweep_spools"]
