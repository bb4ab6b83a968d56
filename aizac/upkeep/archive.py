"""A backup file: a zip of a project folder as an embedded project keeps it, and its manifest.

The zip holds the folder's files (``project.sqlite3``, ``memory/`` with Chroma's files and the
commit journal, pictures, the autopilot's files ...) and ``aizac-backup.json``: what the backup
is of (the project's name and creation time, the engine it came from, why it was taken) and
every file's size and SHA-256. :func:`write_archive` writes it under a hidden temporary name,
fsyncs it and renames it into place, so a killed backup leaves no file that looks finished;
:func:`read_manifest` and :func:`verify` check one before anything is restored from it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from aizac.errors import InvalidInputError, StorageError
from aizac.storage.leftovers import fsync_dir, remove_stale, temporary_name

MANIFEST = "aizac-backup.json"
FORMAT = 1
CHUNK = 1 << 20


@dataclass
class Manifest:
    """What a backup holds (``aizac-backup.json``).

    Attributes:
        project: the project's name.
        created_at: when the project was created (its memory collection's name on a Chroma
            server derives from it).
        taken_at: when the backup was taken.
        reason: why (``""`` by hand; ``before-reindex``, ``before-migration``,
            ``before-restore`` ...).
        engine: where its rows came from (``sqlite`` or ``postgresql``).
        memory: where its memory came from (``embedded`` or ``server``).
        collection: a memory from a Chroma server: the collection the backup's embedded store
            holds it in (and its journal names).
        files: relative path -> ``{"size", "sha256"}``.
    """

    project: str
    created_at: float
    taken_at: float = field(default_factory=time.time)
    reason: str = ""
    engine: str = "sqlite"
    memory: str = "embedded"
    collection: str = ""
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    format: int = FORMAT

    def to_json(self) -> str:
        return json.dumps(self.__dict__, ensure_ascii=False, indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str) -> Manifest:
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not an aizac backup manifest of a format this aizac reads")
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


def digest(path: Path) -> str:
    """The SHA-256 of the file ``path``."""
    found = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            found.update(chunk)
    return found.hexdigest()


def write_archive(folder: Path, manifest: Manifest, target: Path) -> Path:
    """Zip every file under ``folder`` with ``manifest`` (sizes and digests filled in) into
    ``target``, whole or not at all: a hidden temporary file beside it, fsynced, renamed into
    place. Leftovers of killed backups in that folder are removed first.

    Raises:
        StorageError: the file could not be written (a full disk ...); nothing is left.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(target.parent)
    temporary = target.with_name(temporary_name(target.name))
    try:
        manifest.files = {}
        with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED,
                             allowZip64=True) as archive:
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                name = path.relative_to(folder).as_posix()
                manifest.files[name] = {"size": path.stat().st_size, "sha256": digest(path)}
                archive.write(path, name)
            archive.writestr(MANIFEST, manifest.to_json())
        with open(temporary, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(temporary, target)
        fsync_dir(target.parent)
    except OSError as e:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise StorageError("error.backup.write", path=str(target),
                           cause=e.strerror or str(e)) from e
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    return target


def _safe_name(name: str) -> bool:
    """Whether a member name stays inside the folder it is extracted to (pure)."""
    path = PurePosixPath(name)
    return bool(name) and not path.is_absolute() and ".." not in path.parts and "\\" not in name


def read_manifest(archive: Path) -> Manifest:
    """The manifest of the backup ``archive``, checked to be one aizac can restore.

    Raises:
        InvalidInputError: not a file, not a zip, no manifest, or a member named outside the
            folder it would be restored to.
    """
    try:
        with zipfile.ZipFile(archive) as found:
            names = found.namelist()
            raw = found.read(MANIFEST).decode("utf-8")
    except FileNotFoundError as e:
        raise InvalidInputError("error.backup.not_found", path=str(archive)) from e
    except (OSError, zipfile.BadZipFile, KeyError, UnicodeDecodeError) as e:
        raise InvalidInputError("error.backup.not_a_backup", path=str(archive),
                                cause=type(e).__name__) from e
    try:
        manifest = Manifest.from_json(raw)
    except (ValueError, TypeError) as e:
        raise InvalidInputError("error.backup.not_a_backup", path=str(archive),
                                cause=str(e)[:200]) from e
    if any(not _safe_name(n) for n in names):
        raise InvalidInputError("error.backup.not_a_backup", path=str(archive),
                                cause="a member named outside its folder")
    return manifest


def verify(archive: Path) -> Manifest:
    """Read every file of ``archive`` and check it against the manifest (its size and its
    SHA-256), and that nothing is missing or added: a backup cut short or changed is refused
    before anything is restored from it.

    Raises:
        InvalidInputError: see :func:`read_manifest`, or a file that does not match.
    """
    manifest = read_manifest(archive)
    try:
        with zipfile.ZipFile(archive) as found:
            members = {i.filename for i in found.infolist() if not i.is_dir()} - {MANIFEST}
            if members != set(manifest.files):
                raise InvalidInputError("error.backup.damaged", path=str(archive),
                                        detail=", ".join(sorted(members ^ set(manifest.files))[:5]))
            for name, expected in manifest.files.items():
                hashed, size = hashlib.sha256(), 0
                with found.open(name) as f:
                    while chunk := f.read(CHUNK):
                        hashed.update(chunk)
                        size += len(chunk)
                if size != expected.get("size") or hashed.hexdigest() != expected.get("sha256"):
                    raise InvalidInputError("error.backup.damaged", path=str(archive),
                                            detail=name)
    except (OSError, zipfile.BadZipFile, EOFError) as e:
        raise InvalidInputError("error.backup.damaged", path=str(archive),
                                detail=type(e).__name__) from e
    return manifest


def extract(archive: Path, folder: Path) -> None:
    """Every file of ``archive`` (the manifest aside) into ``folder``, each fsynced (call
    :func:`verify` first)."""
    with zipfile.ZipFile(archive) as found:
        for info in found.infolist():
            if info.is_dir() or info.filename == MANIFEST or not _safe_name(info.filename):
                continue
            target = folder / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            with found.open(info) as source, open(target, "wb") as out:
                while chunk := source.read(CHUNK):
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
    for directory in _folders(folder):
        fsync_dir(directory)


def _folders(folder: Path) -> Iterator[Path]:
    yield folder
    yield from (p for p in folder.rglob("*") if p.is_dir())
