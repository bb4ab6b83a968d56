"""The PostgreSQL database's own dump (``pg_dump``), taken before ``aizac db upgrade`` migrates
it (thin adapter).

``pg_dump`` reads the whole database in one snapshot (a ``REPEATABLE READ`` transaction) while
the replicas keep serving; its custom format is restored with ``pg_restore --clean
--single-transaction -d URL FILE`` (all of it or none of it). The dump is written under a
hidden temporary name and renamed into place when whole; the password travels in the
environment (``PGPASSWORD``), never on the command line other users can read.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from pathlib import Path

from aizac.errors import ConfigError, StorageError
from aizac.storage.database import libpq_url, redact
from aizac.storage.leftovers import fsync_dir, remove_stale, temporary_name


def pg_dump_binary() -> Path:
    """``pg_dump`` on the ``PATH``, else the newest of Debian's ``/usr/lib/postgresql/*/bin``.

    Raises:
        ConfigError: none is installed.
    """
    found = shutil.which("pg_dump")
    if found:
        return Path(found)
    installed = sorted((d / "bin" / "pg_dump" for d in Path("/usr/lib/postgresql").glob("*")
                        if d.name.isdigit() and (d / "bin" / "pg_dump").is_file()),
                       key=lambda p: int(p.parent.parent.name))
    if installed:
        return installed[-1]
    raise ConfigError("error.db.no_pg_dump")


def dump_database(url: str, folder: Path, reason: str = "before-migration",
                  timeout: float = 3600.0) -> Path:
    """Dump the PostgreSQL database at ``url`` into ``folder`` (custom format); returns the
    file, ``<database>.<YYYYmmdd-HHMMSS>.<reason>.dump``.

    Raises:
        ConfigError: no ``pg_dump`` here.
        StorageError: ``pg_dump`` failed (nothing is left of its file).
    """
    from sqlalchemy.engine import make_url

    parsed = make_url(libpq_url(url))
    password = parsed.password
    plain = parsed.set(password=None).render_as_string(hide_password=False)
    binary = pg_dump_binary()
    folder.mkdir(parents=True, exist_ok=True)
    remove_stale(folder)
    name = f"{parsed.database or 'aizac'}.{time.strftime('%Y%m%d-%H%M%S')}.{reason}.dump"
    target = folder / name
    temporary = folder / temporary_name(name)
    env = {**os.environ, **({"PGPASSWORD": str(password)} if password else {})}
    try:
        done = subprocess.run(
            [str(binary), "--format=custom", "--no-password", f"--file={temporary}",
             f"--dbname={plain}"],
            env=env, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            raise StorageError("error.db.dump_failed", where=redact(url),
                               cause=(done.stderr.strip().splitlines() or ["?"])[-1][:300])
        with open(temporary, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(temporary, target)
        fsync_dir(folder)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise StorageError("error.db.dump_failed", where=redact(url), cause=str(e)) from e
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()
    return target
