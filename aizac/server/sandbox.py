"""Per-user sandboxes: each user's projects, exports and memory under their own root.

A :class:`Sandbox` is one user's :class:`~aizac.writer.service.Studio` (its data directory is
``<data_dir>/users/<user id>/``) and the :class:`~aizac.application.service.ApplicationService`
the API and the web app both call (its generations admitted by :class:`UserSlots`), plus the
user's generation runs and limits. A name a user gives (project,
export file, memory id, run id) is only ever looked up inside their own sandbox, so another
user's ids are simply "not found".
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aizac.application.service import ApplicationService
from aizac.errors import LimitError, NotFoundError
from aizac.server.accounts import User
from aizac.server.config import ServerConfig
from aizac.server.mail import MailBook, ServerExports
from aizac.settings import Settings
from aizac.writer.service import Studio

StudioFactory = Callable[[Settings, str], Studio]
"""Builds a user's Studio from the user's settings (``data_dir`` is the user's root) and the
user's id (the namespace of their memory on a Chroma server)."""

MAX_RUNS_KEPT = 50
_HELD: ContextVar[bool] = ContextVar("aizac_generation_held", default=False)


def hold_slot() -> None:
    """Mark the current context (a worker thread) as already holding a generation slot."""
    _HELD.set(True)


class UserSlots:
    """The slot policy of one user's service
    (:class:`~aizac.application.ports.GenerationSlots`): each model generation takes one of the
    user's slots and one of the server's (:meth:`Sandboxes.generation`), so the web app and the
    API count against the same limits."""

    def __init__(self, sandboxes: Sandboxes, box: Sandbox) -> None:
        self._sandboxes = sandboxes
        self._box = box

    def generation(self) -> contextlib.AbstractContextManager[None]:
        return self._sandboxes.generation(self._box)


def shared_studio_factory(settings: Settings) -> StudioFactory:
    """Studios that share the server's model router, embeddings and cliché index (one local
    model and one trope index per process), each over its own user root."""
    server = Studio(settings)

    def make(user_settings: Settings, user_id: str) -> Studio:
        # On a Chroma server (AIZAC_CHROMA_HOST) the user's memories live in a database of
        # their own, named from the user id; the HTTP clients are shared.
        return Studio(user_settings, router=server.router, embeddings=server.embeddings,
                      cliches=server.cliches, chroma_namespace=user_id,
                      chroma_clients=server.chroma_clients)

    make.shared = server  # type: ignore[attr-defined]  # the start-up work warms it
    return make


@dataclass
class Run:
    """One generation streamed to a client (prose); ``text`` is what it wrote so far."""

    id: str
    kind: str
    project: str
    beat_id: int | None
    status: str = "running"  # running | done | failed | cancelled
    text: str = ""
    error: str = ""


@dataclass
class Sandbox:
    """One user's studio, application service, runs and generation slots."""

    user: User
    root: Path
    studio: Studio
    slots: threading.BoundedSemaphore
    runs: dict[str, Run] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    service: ApplicationService = field(init=False)
    """Built over the studio with the sandbox's own slot policy (:meth:`Sandboxes.of`)."""

    @property
    def export_dir(self) -> Path:
        return self.service.export_dir

    def new_run(self, kind: str, project: str, beat_id: int | None) -> Run:
        run = Run(uuid.uuid4().hex, kind, project, beat_id)
        with self.lock:
            self.runs[run.id] = run
            while len(self.runs) > MAX_RUNS_KEPT:  # the oldest finished runs go first
                old = next((k for k, r in self.runs.items() if r.status != "running"), None)
                if old is None:
                    break
                del self.runs[old]
        return run

    def run(self, run_id: str) -> Run:
        with self.lock:
            run = self.runs.get(run_id)
        if run is None:
            raise NotFoundError("error.server.run_not_found")
        return run

    def storage_bytes(self) -> int:
        total = 0
        for folder, _, files in os.walk(self.root):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(folder, name)).st_size
        return total


class Sandboxes:
    """Every user's sandbox, built on first use; the server-wide generation slots.

    Args:
        settings: the server's settings (``data_dir`` holds ``users/`` and ``server/``).
        config: the server's limits.
        studio_factory: builds a user's Studio (default: :func:`shared_studio_factory`).
    """

    def __init__(
        self, settings: Settings, config: ServerConfig,
        studio_factory: StudioFactory | None = None,
    ) -> None:
        self.settings = settings
        self.config = config
        self.users_root = (settings.data_dir / "users").resolve()
        self._factory = studio_factory
        self._boxes: dict[str, Sandbox] = {}
        self._lock = threading.Lock()
        self.capacity = threading.BoundedSemaphore(config.max_generations)
        self.hooks: list[Callable[[Sandbox], None]] = []

    def factory(self) -> StudioFactory:
        with self._lock:
            if self._factory is None:
                self._factory = shared_studio_factory(self.settings)
            return self._factory

    def root_of(self, user: User) -> Path:
        # User ids are server-made hex uuids; a hand-made one never leaves users_root.
        if not user.id.isalnum() or not user.id.isascii():
            raise NotFoundError("error.server.user_not_found")
        return self.users_root / user.id

    def cached(self, user_id: str) -> Sandbox | None:
        """The sandbox of ``user_id`` if it was built already."""
        with self._lock:
            return self._boxes.get(user_id)

    def of(self, user: User) -> Sandbox:
        """The sandbox of ``user`` (built on first use, then kept)."""
        factory = self.factory()
        with self._lock:
            box = self._boxes.get(user.id)
            if box is not None:
                return box
            root = self.root_of(user)
            root.mkdir(parents=True, exist_ok=True)
            studio = factory(self.settings.model_copy(update={"data_dir": root}), user.id)
            studio.owner = user.id  # on the server database, the user's projects are theirs
            box = Sandbox(user, root, studio,
                          threading.BoundedSemaphore(self.config.max_generations_per_user))
            box.service = ApplicationService(studio, export_dir=root / "exports",
                                             slots=UserSlots(self, box))
            # Mail only to the user's own verified address, within their limits.
            box.service.exports = ServerExports(
                box.service.agent, box.service.export_dir,
                book=MailBook(root, per_hour=self.config.mail_per_hour,
                              per_day=self.config.mail_per_day),
                settings=studio.settings, language=user.language or self.settings.ui_language)
            self._boxes[user.id] = box
        self.on_new_box(box)
        return box

    def on_new_box(self, box: Sandbox) -> None:
        """Called once per sandbox built (the web app registers its export folder)."""
        for hook in self.hooks:
            hook(box)

    def close(self) -> None:
        with self._lock:
            boxes = list(self._boxes.values())
            self._boxes.clear()
        for box in boxes:
            box.studio.close()

    def evict(self, user_id: str) -> Sandbox | None:
        """Forget ``user_id``'s sandbox (its projects closed and released)."""
        with self._lock:
            box = self._boxes.pop(user_id, None)
        if box is not None:
            box.studio.close()
        return box

    # ----------------------------------------------------------------------------- limits
    def check_new_project(self, box: Sandbox) -> None:
        have = len(box.service.list_projects())
        if have >= self.config.max_projects:
            raise LimitError("error.server.project_limit", count=have,
                             limit=self.config.max_projects)
        self.check_storage(box)

    def check_storage(self, box: Sandbox) -> None:
        used = box.storage_bytes() / 1e6
        if used >= self.config.max_storage_mb:
            raise LimitError("error.server.storage_limit", used=f"{used:.0f}",
                             limit=f"{self.config.max_storage_mb:.0f}")

    def acquire(self, box: Sandbox) -> Callable[[], None]:
        """A slot for one model generation of ``box``'s user; returns its release.

        At most ``max_generations_per_user`` at once per user (more: :class:`LimitError` at
        once) and ``max_generations`` over all users (waits up to ``generation_wait_s``)."""
        self.check_storage(box)
        if not box.slots.acquire(blocking=False):
            raise LimitError("error.server.generation_limit", retry_after=5.0,
                             count=self.config.max_generations_per_user)
        if not self.capacity.acquire(timeout=self.config.generation_wait_s):
            box.slots.release()
            raise LimitError("error.server.capacity", retry_after=10.0, capacity=True)
        released = threading.Event()

        def release() -> None:
            if not released.is_set():
                released.set()
                self.capacity.release()
                box.slots.release()

        return release

    @contextlib.contextmanager
    def generation(self, box: Sandbox) -> Iterator[None]:
        """:meth:`acquire` for a block; a block inside one already holding a slot (an API
        route around a service call) takes no second slot."""
        if _HELD.get():
            yield
            return
        release = self.acquire(box)
        token = _HELD.set(True)
        try:
            yield
        finally:
            with contextlib.suppress(ValueError):  # a stream closed from another context
                _HELD.reset(token)
            release()


def describe(box: Sandbox) -> dict[str, Any]:
    """What a user may see of their own sandbox (no paths)."""
    return {"projects": len(box.service.list_projects()),
            "storage_mb": round(box.storage_bytes() / 1e6, 3)}
