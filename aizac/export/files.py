"""Export file names and atomic export writes (the only module here that touches the disk)."""

from __future__ import annotations

import contextlib
import os
import tempfile
import unicodedata
from datetime import datetime
from pathlib import Path

from aizac.errors import InvalidInputError, StorageError
from aizac.export.manuscript import Manuscript
from aizac.export.render import FORMATS, IMAGE_DIR, check_format, figures, render
from aizac.storage.killpoints import checkpoint

#: Longest accepted file name in UTF-8 bytes, extension included (file systems allow 255).
MAX_NAME_BYTES = 200
# Characters that are separators or reserved on some file system (Windows included).
_FORBIDDEN = set('/\\<>:"|?*')
# Characters a download URL cannot carry as they are (a fragment, a query, brackets, quotes,
# white space): an export's file name replaces them with "_" so its link works unescaped.
_URL_UNSAFE = set("#`[]%?&+'\"")


def url_safe_name(name: str) -> str:
    """``name`` with URL-unsafe characters and runs of white space as ``_`` (pure)."""
    out: list[str] = []
    for c in unicodedata.normalize("NFC", name).strip():
        bad = c in _URL_UNSAFE or c.isspace()
        if not (bad and out and out[-1] == "_"):
            out.append("_" if bad else c)
    return "".join(out)
_WINDOWS_RESERVED = {"CON", "PRN", "AUX", "NUL"} | {
    f"{port}{i}" for port in ("COM", "LPT") for i in range(1, 10)
}


def safe_export_name(name: str, ext: str) -> str:
    """A safe file name for an export: ``name`` (without or with its extension) + ``.ext``.

    Pure check, no side effect. The name is NFC-normalised and stripped of surrounding spaces.

    Raises:
        InvalidInputError: the name is empty, contains a path separator, ``..``, a control
            character or a character reserved by common file systems, starts with a dot, or is
            longer than :data:`MAX_NAME_BYTES` bytes; or ``ext`` is not an export format.
    """
    fmt = check_format(ext)
    if not isinstance(name, str):
        raise InvalidInputError("error.export.name_not_text", type=type(name).__name__)
    cleaned = unicodedata.normalize("NFC", name).strip()
    if cleaned.lower().endswith(f".{fmt}"):
        cleaned = cleaned[: -len(fmt) - 1].rstrip()
    hint = "hint.export.name"
    if not cleaned:
        raise InvalidInputError("error.export.name_empty", hint=hint)
    bad = sorted({c for c in cleaned if c in _FORBIDDEN})
    if bad:
        raise InvalidInputError("error.export.name_forbidden", hint=hint, name=name,
                                chars=" ".join(bad))
    if ".." in cleaned:
        raise InvalidInputError("error.export.name_dots", hint=hint, name=name)
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in cleaned):
        raise InvalidInputError("error.export.name_control", hint=hint, name=name)
    if cleaned.startswith("."):
        raise InvalidInputError("error.export.name_hidden", hint=hint, name=name)
    if cleaned.endswith("."):
        raise InvalidInputError("error.export.name_trailing_dot", hint=hint, name=name)
    if cleaned.split(".")[0].upper() in _WINDOWS_RESERVED:
        raise InvalidInputError("error.export.name_reserved", hint=hint, name=name)
    result = f"{cleaned}.{fmt}"
    size = len(result.encode("utf-8"))
    if size > MAX_NAME_BYTES:
        raise InvalidInputError("error.export.name_long", size=size, limit=MAX_NAME_BYTES)
    return result


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same folder, then rename.

    Readers see the old file or the new one, never half of one; on failure the temporary file
    is removed and :class:`StorageError` is raised.
    """
    clean_leftovers(path)
    try:
        descriptor, temp_name = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp"
        )
    except OSError as e:
        raise StorageError("error.export.write", path=str(path), cause=e.strerror or str(e)) from e
    try:
        # mkstemp creates 0600; an export is an ordinary document, readable like any other.
        os.fchmod(descriptor, 0o644)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        checkpoint("export:written")
        os.replace(temp_name, path)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        if isinstance(e, OSError):
            raise StorageError("error.export.write", path=str(path),
                               cause=e.strerror or str(e)) from e
        raise


def clean_leftovers(path: Path) -> list[Path]:
    """Remove what killed writes of ``path`` left beside it: its hidden temporary files whose
    writer is gone (``.NAME.<pid>-<random>.tmp``, :mod:`aizac.storage.leftovers`), and those of
    older versions, which named no process (``.NAME.<random>.tmp``). A temporary file of a
    running export (another thread, another process) is left alone."""
    from aizac.storage.leftovers import stale, writer_pid

    removed: list[Path] = []
    prefix = f".{path.name}."
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(".tmp")) or not entry.is_file():
            continue
        middle = name[len(prefix):-len(".tmp")]
        legacy = writer_pid(name) is None and "." not in middle and "-" not in middle
        if legacy or stale(name):
            with contextlib.suppress(OSError):
                entry.unlink()
                removed.append(entry)
    return removed


def default_export_name(title: str, fmt: str) -> str:
    """A safe file name derived from a title: unsafe characters become ``_``, long ones are cut.

    Unlike :func:`safe_export_name` this never rejects a title; it is what an export is called
    when the writer does not name it.
    """
    check_format(fmt)
    text = unicodedata.normalize("NFC", title)
    chars = [
        "_" if c in _FORBIDDEN or unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c
        for c in text
    ]
    cleaned = url_safe_name("".join(chars))  # its download link works as it is
    while ".." in cleaned:
        cleaned = cleaned.replace("..", ".")
    cleaned = cleaned.strip().strip(".").strip()
    budget = MAX_NAME_BYTES - len(fmt) - 1
    while len(cleaned.encode("utf-8")) > budget:
        cleaned = cleaned[:-1]
    cleaned = cleaned.rstrip().rstrip(".")
    if not cleaned or cleaned.split(".")[0].upper() in _WINDOWS_RESERVED:
        cleaned = f"novel-{cleaned}" if cleaned else "novel"
    return safe_export_name(cleaned, fmt)


def export_target(out: str, fmt: str | None = None) -> tuple[Path, str | None, str]:
    """Where ``--out`` asks an export to go: ``(folder, file name or None, format)`` (pure).

    ``DIR/`` (or an existing folder) writes into that folder under the title's name;
    ``x.md`` writes ``x.md`` in Markdown (the extension gives the format when ``fmt`` is not
    given; a different ``fmt`` is an error rather than ``x.md.txt``); ``x`` writes ``x.<fmt>``.
    """
    if not out.strip():
        raise InvalidInputError("error.export.out_empty")
    path = Path(out)
    if out.endswith(("/", os.sep)) or path.is_dir():
        return path, None, check_format(fmt or "txt")
    suffix = path.suffix.lower().lstrip(".")
    if suffix in FORMATS:
        if fmt is not None and check_format(fmt) != suffix:
            raise InvalidInputError("error.export.out_format", file=path.name, suffix=suffix,
                                    fmt=fmt, wanted=check_format(fmt))
        return path.parent, path.name, suffix
    return path.parent, path.name, check_format(fmt or "txt")


def write_export(
    manuscript: Manuscript,
    fmt: str,
    directory: str | os.PathLike[str],
    name: str | None = None,
    *,
    modified: datetime | None = None,
) -> Path:
    """Render ``manuscript`` as ``fmt`` and write it atomically into ``directory``.

    Everything is checked before anything is written: a bad name, format or empty manuscript
    raises :class:`InvalidInputError` and leaves the disk untouched. An existing file of the
    same name is replaced.

    Args:
        manuscript: What to export.
        fmt: one of :data:`~aizac.export.render.FORMATS`.
        directory: The folder to write into (created if missing).
        name: File name with or without extension; the manuscript's title when omitted.
        modified: Passed to the renderer (EPUB's ``dcterms:modified``, the zip entries' time).

    Returns:
        The path of the written file.
    """
    if name is None:
        filename = default_export_name(manuscript.title, fmt)
    else:
        filename = safe_export_name(name, fmt)
    data = render(manuscript, fmt, modified=modified)
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StorageError("error.export.folder", folder=str(folder),
                           cause=e.strerror or str(e)) from e
    if check_format(fmt) == "md":  # its picture links point into images/ beside it
        pictures = figures(manuscript)
        if pictures:
            try:
                (folder / IMAGE_DIR).mkdir(exist_ok=True)
            except OSError as e:
                raise StorageError("error.export.picture_folder", folder=str(folder / IMAGE_DIR),
                                   reason=e.strerror or str(e)) from e
        for figure in pictures:  # named by content id: a file already there is the same picture
            atomic_write_bytes(folder / IMAGE_DIR / figure.name, figure.data)
    target = folder / filename
    atomic_write_bytes(target, data)
    return target
