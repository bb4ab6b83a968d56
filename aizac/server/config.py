"""Settings of ``aizac serve`` (``AIZAC_SERVER_*``): accounts, sessions, per-user limits.

They sit beside :class:`aizac.settings.Settings` (which stays the writer's settings, shared by
every user's sandbox) and are read the same way: environment, ``.env``, then defaults.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

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
        signup_attempts, signup_window_s: sign-ups allowed per address per window.
        generation_wait_s: how long a generation waits for a free slot before a 503.
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
    signup_attempts: int = Field(default=30, ge=1)  # sign-ups per address per window
    signup_window_s: float = Field(default=3600.0, gt=0)
    # Proxies whose X-Forwarded-For/-Proto uvicorn trusts (the client address feeds the login
    # limit; the scheme, secure cookies).
    forwarded_allow_ips: str = "127.0.0.1"

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
            raise StorageError(f"Cannot read the session key {path}: {e}.") from e
        key = secrets.token_urlsafe(48)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(key)
            os.replace(tmp, path)
        except OSError as e:
            raise StorageError(f"Cannot store the session key in {path}: {e}.") from e
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
            shown = "" if field == "secret_key" else f"={item.get('input')!r}"
            parts.append(f"AIZAC_SERVER_{field.upper()}{shown} is not valid: {item['msg']}")
        raise ConfigError("; ".join(parts) + ".") from e
