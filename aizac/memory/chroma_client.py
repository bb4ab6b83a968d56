"""Which Chroma holds a project's memory: embedded on disk, or a Chroma server (thin adapter).

With ``AIZAC_CHROMA_HOST`` unset, a project's memory is an embedded ``PersistentClient`` in its
``memory/`` folder, as it always was. With it set, memories go to that Chroma server over HTTP:

* a **namespace** (one per user sandbox of ``aizac serve``; ``None`` for a single-user install)
  is a Chroma *database* of its own in ``AIZAC_CHROMA_TENANT``, created on first use, so one
  user's client cannot even list another user's collections. No namespace means
  ``AIZAC_CHROMA_DATABASE``.
* each project is one collection in it, named from the project's name and creation time
  (:func:`project_collection`): Korean names are fine, and a project deleted and created again
  under the same name never sees the old one's memories.
* the exact-key index and the commit journal stay SQLite files in the project's ``memory/``
  folder, beside ``project.sqlite3``: they are caches and logs of what this project's one writer
  (see :func:`aizac.writer.project_dirs.claim_project`) wrote, rebuilt from Chroma when short.
  So a project is served by the node that holds its folder; see ``deploy/README.md``.
* the embedding fingerprint lives in the collection's metadata, on the server like the rest.
"""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Any

from aizac.errors import AizacError, InvalidInputError, StorageError
from aizac.settings import Settings

NAMESPACE_PREFIX = "aizac-"
COLLECTION_PREFIX = "novel-"
_NAMESPACE = re.compile(r"[^\s/\\]{1,200}")
_UNSAFE = re.compile(r"[^a-zA-Z0-9._-]+")


def server_mode(settings: Settings) -> bool:
    """True when memories live on a Chroma server (``AIZAC_CHROMA_HOST`` is set)."""
    return bool(settings.chroma_host)


def server_address(settings: Settings) -> str:
    """``http(s)://host:port`` of the configured Chroma server, for messages (pure)."""
    scheme = "https" if settings.chroma_ssl else "http"
    return f"{scheme}://{settings.chroma_host}:{settings.chroma_port}"


def _slug(text: str, limit: int) -> str:
    """ASCII letters, digits, '.', '_' and '-' of ``text`` (others become '-'), at most
    ``limit`` long, never starting or ending with punctuation (pure)."""
    return _UNSAFE.sub("-", text)[:limit].strip("-._")


def _digest(text: str, size: int) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:size]


def namespace_database(namespace: str) -> str:
    """The Chroma database of ``namespace`` (pure): ``aizac-<readable part>-<hash>``.

    The hash of the whole namespace keeps two namespaces apart even when their readable parts
    look alike (``Alice`` and ``alice``, ``김민`` and ``이민``).

    Raises:
        InvalidInputError: an empty namespace, or one with a space or path separator.
    """
    if not isinstance(namespace, str) or not _NAMESPACE.fullmatch(namespace):
        raise InvalidInputError("error.memory.namespace", namespace=namespace)
    slug = _slug(namespace, 40)
    return f"{NAMESPACE_PREFIX}{slug + '-' if slug else ''}{_digest(namespace, 16)}"


def project_collection(name: str, created_at: float) -> str:
    """The server collection of the project ``name`` created at ``created_at`` (pure)."""
    slug = _slug(name, 40)
    key = _digest(f"{name}\x00{created_at!r}", 20)
    return f"{COLLECTION_PREFIX}{slug + '-' if slug else ''}{key}"


SERVER_DOWN_HINT = "hint.memory.server_down"


def _unreachable(settings: Settings, error: Exception) -> StorageError:
    cause = error.text if isinstance(error, AizacError) else str(error)
    return StorageError("error.memory.unreachable", server=server_address(settings), cause=cause)


def _chroma_settings(settings: Settings | None = None) -> Any:
    """Chroma's client settings: embedded (``None``), or for the configured server."""
    from chromadb.config import Settings as ChromaSettings

    if settings is None:
        return ChromaSettings(anonymized_telemetry=False)
    extra: dict[str, Any] = {}
    if not settings.chroma_ssl:
        # Plain HTTP has no certificate to verify: skip loading the CA bundle, which costs
        # 0.2 s of CPU for every client (one per namespace) on a busy machine.
        extra["chroma_server_ssl_verify"] = False
    return ChromaSettings(
        anonymized_telemetry=False,
        chroma_api_impl="chromadb.api.fastapi.FastAPI",
        chroma_server_host=settings.chroma_host,
        chroma_server_http_port=settings.chroma_port,
        chroma_server_ssl_enabled=settings.chroma_ssl,
        **extra,
    )


class ChromaClients:
    """Chroma clients for one aizac process: one HTTP client per namespace on a server (made
    on first use, with its tenant and database), or embedded clients by path.

    Args:
        settings: aizac settings (``chroma_host``, ``chroma_port``, ``chroma_ssl``,
            ``chroma_tenant``, ``chroma_database``).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._clients: dict[str, Any] = {}
        self._admin_client: Any = None
        self._lock = threading.Lock()

    @property
    def server(self) -> bool:
        return server_mode(self.settings)

    def database(self, namespace: str | None) -> str:
        """The database that holds ``namespace``'s memories on the server."""
        return self.settings.chroma_database if namespace is None else namespace_database(
            namespace
        )

    def client(self, path: str | Path | None = None, namespace: str | None = None) -> Any:
        """An HTTP client for ``namespace`` on the server when ``AIZAC_CHROMA_HOST`` is set,
        else an embedded ``PersistentClient`` at ``path`` (``path`` is then required).

        Raises:
            StorageError: the server cannot be reached (says what to do), or the embedded
                store cannot be opened.
        """
        if not self.server:
            if path is None:
                raise InvalidInputError("error.memory.embedded_folder")
            return _embedded(Path(path))
        database = self.database(namespace)
        with self._lock:
            client = self._clients.get(database)
            if client is None:
                client = self._connect(database)
                self._clients[database] = client
            return client

    def _connect(self, database: str) -> Any:
        import chromadb

        tenant = self.settings.chroma_tenant
        try:
            self._ensure_database(tenant, database)
            return chromadb.HttpClient(
                host=str(self.settings.chroma_host), port=self.settings.chroma_port,
                ssl=self.settings.chroma_ssl, settings=_chroma_settings(self.settings),
                tenant=tenant, database=database,
            )
        except StorageError:
            raise
        except Exception as e:
            raise _unreachable(self.settings, e) from e

    def _admin(self) -> Any:
        """One admin client per process (each new one sets up its own HTTP session)."""
        import chromadb

        if self._admin_client is None:
            self._admin_client = chromadb.AdminClient(_chroma_settings(self.settings))
        return self._admin_client

    def _ensure_database(self, tenant: str, database: str) -> None:
        """Create ``tenant`` and ``database`` on the server unless they exist (several aizac
        nodes may race to create them: "already exists" is success)."""
        from chromadb.errors import NotFoundError as ChromaNotFound

        admin = self._admin()
        try:
            admin.get_tenant(tenant)
        except ChromaNotFound:
            _created_or_exists(lambda: admin.create_tenant(tenant))
        try:
            admin.get_database(database, tenant=tenant)
        except ChromaNotFound:
            _created_or_exists(lambda: admin.create_database(database, tenant=tenant))

    def drop_namespace(self, namespace: str) -> None:
        """Delete ``namespace``'s database with every collection in it (a deleted account).

        Raises:
            StorageError: the server cannot be reached, or refused the deletion.
        """

        database = namespace_database(namespace)
        with self._lock:
            self._clients.pop(database, None)
            try:
                admin = self._admin()
                admin.delete_database(database, tenant=self.settings.chroma_tenant)
            except Exception as e:
                if "not found" in str(e).lower():
                    return
                raise _unreachable(self.settings, e) from e


def _created_or_exists(create: Any) -> None:
    try:
        create()
    except Exception as e:
        if "already exists" not in str(e).lower():
            raise


def _embedded(path: Path) -> Any:
    import chromadb

    try:
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=_chroma_settings())
    except Exception as e:
        raise StorageError("error.memory.open_embedded", path=str(path), cause=str(e)) from e


def open_server_memory(
    clients: ChromaClients,
    namespace: str | None,
    *,
    memory_dir: Path,
    project: str,
    created_at: float,
    embeddings: Any,
    settings: Settings,
    tables: Any = None,
    adopt: Any = None,
) -> Any:
    """The ``WriterMemory`` of a project on the Chroma server: its collection in the
    namespace's database, its key index and commit journal in ``memory_dir`` (or, with
    ``tables``, the project's rows on the server database).

    Raises:
        StorageError: the server cannot be reached (says what to do), or the collection was
            written with other embeddings.
    """
    from aizac.memory.store import WriterMemory

    client = clients.client(namespace=namespace)
    try:
        memory_dir.mkdir(parents=True, exist_ok=True)  # the key index and journal live here
    except OSError as e:
        raise StorageError("error.memory.folder", path=str(memory_dir), cause=str(e)) from e
    try:
        return WriterMemory(
            path=memory_dir, collection=project_collection(project, created_at),
            client=client, embeddings=embeddings, settings=settings, tables=tables,
            adopt=adopt,
        )
    except StorageError as e:
        if _refused(e):
            raise _unreachable(settings, e) from e
        raise


def _refused(error: BaseException) -> bool:
    """Whether ``error`` or what it chains is a transport failure on the way to the server."""
    seen: BaseException | None = error
    while seen is not None:
        if is_transport_failure(seen):
            return True
        seen = seen.__cause__
    return False


def is_transport_failure(error: BaseException) -> bool:
    """Whether ``error`` is a failure to reach a Chroma server (refused, reset, timed out, name
    not resolved), as opposed to a refused request."""
    import httpx

    return isinstance(error, httpx.TransportError | ConnectionError)
