"""Open streams check their credential while they run.

A prose stream (Server-Sent Events) or a web-app event can run for minutes; the gate checked
its credential once, when it started. :class:`CredentialWatch` asks again, at most every
``CREDENTIAL_CHECK_S`` (1 s): a session that ended (log-out, "log out everywhere", a password
change elsewhere, expiry), an API token that was revoked, or an account that was disabled ends
the stream with an error event, and its model stops working for that user.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from aizac.errors import AizacError
from aizac.server.errors import UnauthorizedError
from aizac.server.gate import Caller
from aizac.server.state import ServerState

ENDED = "error.auth.credential_ended"


class CredentialWatch:
    """Whether the credential a request came with still holds (thread-safe).

    Args:
        state: the server's accounts and sessions.
        caller: who the request speaks for, as the gate found it (its session id or token).
        every_s: the least time between two looks at the accounts database.
        checked: the gate has just checked it (else the first look is due at once: a web-app
            event may have waited in Gradio's queue since the gate saw it).
        clock: a monotonic clock.
    """

    def __init__(self, state: ServerState, caller: Caller, every_s: float, *,
                 checked: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.state = state
        self.caller = caller
        self.every_s = every_s
        self.clock = clock
        self._last = clock() if checked else float("-inf")
        self._ended: AizacError | None = None
        self._lock = threading.Lock()

    def due(self) -> bool:
        """Whether a look at the database is due (cheap: call it as often as you like)."""
        return self._ended is None and self.clock() - self._last >= self.every_s

    def ended(self, *, now: bool = False) -> AizacError | None:
        """Why the credential no longer holds (``None``: it holds); looks at the database
        when one is due (or ``now``), else answers what it last found."""
        with self._lock:
            if self._ended is not None or not (now or self.due()):
                return self._ended
            self._last = self.clock()
            if not self._holds():
                self._ended = UnauthorizedError(ENDED)
            return self._ended

    def _holds(self) -> bool:
        caller, secret = self.caller, self.caller.secret
        if caller.user is None or not secret:
            return False
        if caller.via == "token":
            found = self.state.accounts.token_user(secret)
            return found is not None and found[0].id == caller.user.id
        user = self.state.sessions.user(secret)
        return user is not None and user.id == caller.user.id


__all__ = ["ENDED", "CredentialWatch"]
