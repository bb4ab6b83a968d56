"""What every route of the server needs (kept on ``app.state.aizac``), below the gate, the
auth routes and the account lifecycle that all read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aizac.server.accounts import AccountStore, KnownAddresses, LoginLimiter, SessionStore
from aizac.server.config import ServerConfig
from aizac.server.sandbox import Sandboxes

SESSION_KEY = "sid"


@dataclass
class ServerState:
    """What every route needs; kept on ``app.state.aizac``."""

    config: ServerConfig
    accounts: AccountStore
    sessions: SessionStore
    sandboxes: Sandboxes
    limiter: LoginLimiter  # failed logins per (name, address)
    signups: LoginLimiter  # sign-ups per address
    per_address: LoginLimiter | None = None  # failed logins per address, any name
    per_name: LoginLimiter | None = None  # failed logins per name, any address
    known: KnownAddresses | None = None  # where each name logged in lately
    health: Any = None  # aizac.server.health.Readiness
