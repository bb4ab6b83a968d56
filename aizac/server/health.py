"""Health and readiness for operators: ``/healthz`` (the process answers) and ``/readyz``
(the data folder is writable, the accounts database reads, the memory server answers, the
trope index is built), and the start-up line that says when the server became ready.

The heavy part of start-up (the shared models' router, the embeddings, the trope index and
its cliché collection) runs in a thread once the server listens, so ``/healthz`` answers at
once and ``/readyz`` is 503 until everything is in place.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from aizac.server.errors import UnavailableError, clip, for_request
from aizac.server.openapi import responses

if TYPE_CHECKING:
    from aizac.server.state import ServerState

log = logging.getLogger("aizac.server")
CHECK_EVERY_S = 2.0
"""A readiness answer is reused this long (a probe every second costs no Chroma call each)."""
PROBE_TIMEOUT_S = 3.0


class Readiness:
    """The server's start-up work and what ``/readyz`` checks.

    Args:
        state: the server's state.
        started: when the process began (``time.monotonic()``), for the start-up line.
        on_ready: called once with the seconds start-up took (``aizac serve`` prints a line).
    """

    def __init__(self, state: ServerState, *, started: float | None = None,
                 on_ready: Callable[[float], None] | None = None) -> None:
        self.state = state
        self.started = time.monotonic() if started is None else started
        self.on_ready = on_ready
        self.warm = threading.Event()
        self.warm_error = ""
        self._last: tuple[float, dict[str, str]] | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Begin the start-up work in a thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._warm_up, daemon=True,
                                            name="aizac-warm-up")
            self._thread.start()

    def _warm_up(self) -> None:
        try:
            factory: Any = self.state.sandboxes.factory()
            shared = getattr(factory, "shared", None)
            if shared is not None:
                shared.cliches.rows()  # builds the trope index and its collection if needed
        except Exception as e:  # reported by /readyz, and in the log
            self.warm_error = clip(e, 300)
            log.error("start-up failed: %s", e)
            return
        self.warm.set()
        checks = self.checks(force=True)
        took = time.monotonic() - self.started
        log.info("ready", extra={"seconds": round(took, 1), "checks": checks})
        if self.on_ready is not None:
            self.on_ready(took)

    def checks(self, force: bool = False) -> dict[str, str]:
        """Each check's state: ``"ok"``, or what is wrong."""
        with self._lock:
            if not force and self._last and time.monotonic() - self._last[0] < CHECK_EVERY_S:
                return self._last[1]
        found = {"data_dir": self._data_dir(), "accounts": self._accounts(),
                 "memory": self._memory(), "trope_index": self._tropes()}
        with self._lock:
            self._last = (time.monotonic(), found)
        return found

    def _tropes(self) -> str:
        if self.warm.is_set():
            return "ok"
        return self.warm_error or "building"

    def _data_dir(self) -> str:
        probe = self.state.sandboxes.settings.data_dir / "server" / ".ready-probe"
        try:
            probe.parent.mkdir(parents=True, exist_ok=True)
            probe.write_text("ok", encoding="utf-8")
            probe.unlink()
        except OSError as e:
            return clip(f"not writable: {e.strerror or e}", 200)
        return "ok"

    def _accounts(self) -> str:
        try:
            self.state.accounts.users()
        except Exception as e:
            return clip(e, 200)
        return "ok"

    def _memory(self) -> str:
        from aizac.memory.chroma_client import server_address, server_mode

        settings = self.state.sandboxes.settings
        if not server_mode(settings):
            return "ok"  # embedded, in each project's folder
        import httpx

        try:
            reply = httpx.get(f"{server_address(settings)}/api/v2/heartbeat",
                              timeout=PROBE_TIMEOUT_S)
        except httpx.HTTPError as e:
            return clip(f"the Chroma server does not answer: {type(e).__name__}", 200)
        return "ok" if reply.is_success else f"the Chroma server answers {reply.status_code}"


router = APIRouter(tags=["operations"])


@router.get("/healthz", responses=responses())
def healthz() -> dict[str, str]:
    """The process is up and answers (nothing else is checked)."""
    return {"status": "ok"}


@router.get("/readyz", responses=responses(503))
def readyz(request: Request) -> JSONResponse:
    """Ready to serve: the data folder, the accounts, the memory server and the trope index.
    503 (with what is not ready) until then."""
    state: ServerState = request.app.state.aizac
    readiness: Readiness | None = state.health
    checks = readiness.checks() if readiness is not None else {}
    waiting = {k: v for k, v in checks.items() if v != "ok"}
    if waiting or readiness is None:
        said = "; ".join(f"{k}: {v}" for k, v in waiting.items()) or "starting"
        return for_request(request, UnavailableError("error.server.not_ready", waiting=said,
                                                     retry_after=2.0))
    return JSONResponse({"status": "ready", "checks": checks})


__all__ = ["Readiness", "router"]
