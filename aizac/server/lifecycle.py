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
import shutil
import sqlite3
import tempfile
import time
import uuid
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aizac.errors import AizacError, ConflictError
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


def export_user(accounts: AccountStore, sandboxes: Sandboxes, user: User) -> Path:
    """A zip of everything of ``user``'s (a temporary file the caller removes): ``account.json``;
    per project its folder's files (databases copied consistently) and ``memories.json``
    (every memory, from wherever memory lives); the export folder."""
    box = sandboxes.of(user)
    spool = sandboxes.settings.data_dir / "server" / "spool"
    spool.mkdir(parents=True, exist_ok=True)
    target = spool / f"export-{user.id}-{uuid.uuid4().hex[:8]}.zip"
    tokens = [{"id": t.id, "label": t.label, "scope": t.scope, "created_at": t.created_at,
               "expires_at": t.expires_at} for t in accounts.tokens(user.id)]
    account = {"id": user.id, "name": user.name, "role": user.role, "language": user.language,
               "created_at": user.created_at, "exported_at": time.time(), "tokens": tokens}
    try:
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("account.json", json.dumps(account, ensure_ascii=False, indent=1))
            for name in box.service.list_projects():
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


__all__ = ["delete_user", "delete_user_offline", "export_user"]
