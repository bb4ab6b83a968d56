"""Settings of ``aizac serve`` (``AIZAC_SERVER_*``): accounts, sessions, per-user limits.

They sit beside :class:`aizac.settings.Settings` (which stays the writer's settings, shared by
every user's sandbox) and are read the same way: environment, ``.env``, then defaults.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Annotated

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from aizac.errors import ConfigError, StorageError


class ServerConfig(BaseSettings):
    """What the multi-user server can be configured with (see README "Server").

    Attributes:
        secret_key: signs session cookies; unset, a random key is kept in
            ``<data_dir>/server/secret_key`` (mode 0600) so sessions survive restarts.
        signup: whether anyone may create an account (off: only ``aizac users add``).
        https_only: session cookies only over HTTPS (set it behind an HTTPS proxy).
        session_days: how long a session cookie is valid.
        max_projects, max_storage_mb, max_generations_per_user: per-user limits.
        max_generations: model generations running at once over all users.
        max_body_bytes: larger request bodies (and uploads) are refused with 413.
        login_attempts, login_window_s: failed logins allowed per name and address per window.
        login_attempts_per_address: failed logins allowed from one address per window, whatever
            the names (a flood of random names is refused before any password is hashed).
        login_attempts_per_name: failed logins allowed for one name per window, from any
            address (guessing spread over many addresses).
        hash_slots, hash_wait_s: password hashes computed at once, and how long a login or
            sign-up waits for one before a 503 (argon2 is costly on purpose: bounded work).
        min_password_score: the zxcvbn score (0-4) a new password needs (0: length only).
        max_tokens_per_user: API tokens a user may hold at once.
        signup_attempts, signup_window_s: sign-ups allowed per address per window.
        generation_wait_s: how long a generation waits for a free slot before a 503.
        allowed_origins: origins (``https://aizac.example``) besides the request's own host
            that state-changing browser requests may come from (a proxy that rewrites Host).
        shutdown_timeout_s: on SIGTERM, how long open requests and streams get to finish.
        mail_per_hour, mail_per_day: mails (exports and verification codes) the server sends
            for one user per hour and per day at most.
        export_keep_s: how long a user's whole-account export may wait for its download in
            their sandbox (one at a time per user; removed once downloaded).
        credential_check_s: how often an open stream (a prose stream, a web-app event) checks
            that its session or token still holds (then ends with an error event).
    """

    model_config = SettingsConfigDict(
        env_prefix="AIZAC_SERVER_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    secret_key: SecretStr | None = None
    signup: bool = True
    https_only: bool = False
    session_days: float = Field(default=14.0, gt=0, le=365)
    max_projects: int = Field(default=20, ge=1)
    max_storage_mb: float = Field(default=500.0, gt=0)
    max_generations_per_user: int = Field(default=2, ge=1)
    max_generations: int = Field(default=4, ge=1)
    generation_wait_s: float = Field(default=30.0, ge=0)
    max_body_bytes: int = Field(default=1_000_000, ge=1024)
    login_attempts: int = Field(default=5, ge=1)
    login_window_s: float = Field(default=60.0, gt=0)
    login_attempts_per_address: int = Field(default=20, ge=1)
    login_attempts_per_name: int = Field(default=30, ge=1)
    hash_slots: int = Field(default=2, ge=1, le=64)
    hash_wait_s: float = Field(default=10.0, gt=0)
    min_password_score: int = Field(default=3, ge=0, le=4)
    max_tokens_per_user: int = Field(default=20, ge=1, le=1000)
    allowed_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    shutdown_timeout_s: float = Field(default=15.0, gt=0, le=600)
    credential_check_s: float = Field(default=1.0, gt=0, le=60)
    export_keep_s: float = Field(default=900.0, ge=10)
    mail_per_hour: int = Field(default=5, ge=1)
    mail_per_day: int = Field(default=20, ge=1)
    signup_attempts: int = Field(default=30, ge=1)  # sign-ups per address per window
    signup_window_s: float = Field(default=3600.0, gt=0)
    # Proxies whose X-Forwarded-For/-Proto uvicorn trusts (the client address feeds the login
    # limit; the scheme, secure cookies).
    forwarded_allow_ips: str = "127.0.0.1"

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _origins(cls, value: object) -> object:
        """``a, b`` in the environment is two origins."""
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    def session_secret(self, data_dir: Path) -> str:
        """The cookie-signing key: the setting, else one kept under ``data_dir``."""
        if self.secret_key is not None:
            return self.secret_key.get_secret_value()
        path = data_dir / "server" / "secret_key"
        try:
            return path.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            pass
        except OSError as e:
            raise StorageError("error.server.secret_unreadable", detail=str(e)[:200]) from e
        key = secrets.token_urlsafe(48)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(key)
            os.replace(tmp, path)
        except OSError as e:
            raise StorageError("error.server.secret_unwritable", detail=str(e)[:200]) from e
        return key


def load_server_config(**overrides: object) -> ServerConfig:
    """``ServerConfig(**overrides)`` with a bad value reported as one :class:`ConfigError`
    naming the variable (``AIZAC_SERVER_MAX_PROJECTS='x' is not valid: ...``)."""
    try:
        return ServerConfig(**overrides)  # type: ignore[arg-type]
    except ValidationError as e:
        parts = []
        for item in e.errors():
            field = str(item["loc"][0]) if item["loc"] else ""
            shown = "" if field == "secret_key" else f"={str(item.get('input'))[:80]!r}"
            parts.append(f"AIZAC_SERVER_{field.upper()}{shown}: {item['msg']}")
        raise ConfigError("error.server.config_invalid", problems="; ".join(parts)) from e
