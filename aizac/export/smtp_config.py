"""The writer's own SMTP settings, stored like the model keys: ``smtp.json`` in the data
directory, owner-only (mode 0600), written atomically, the password never read back to a page.

The environment (``AIZAC_SMTP_*``) still configures a server for everyone; what the writer saved
in the app is laid over it (their explicit choice), as the Models tab does with keys.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from aizac.errors import AizacError, ConfigError, InvalidInputError
from aizac.private_files import write_private_json
from aizac.settings import Settings
from aizac.text import Text

SMTP_FILE = "smtp.json"
MAX_FIELD_CHARS = 320
FIELD_KEYS = {"host": "ui.smtp.host", "user": "ui.smtp.user", "sender": "ui.smtp.sender",
              "password": "ui.smtp.password"}
"""Each setting's name as the form says it (an error names the box to fix)."""


@dataclass(frozen=True)
class SmtpView:
    """What a page may show of the stored settings: everything but the password, which is
    only "set" or not."""

    host: str
    port: int
    user: str
    sender: str
    starttls: bool
    password_set: bool


class SmtpConfig:
    """The SMTP settings stored under ``data_dir``."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / SMTP_FILE

    def _stored(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise ConfigError("error.smtp.read", file=self.path.name,
                              type=type(e).__name__) from e
        return data if isinstance(data, dict) else {}

    def view(self, settings: Settings) -> SmtpView:
        """The settings in force (stored over the environment's), password only as "set"."""
        s = self.apply(settings)
        return SmtpView(host=s.smtp_host or "", port=s.smtp_port, user=s.smtp_user or "",
                        sender=s.smtp_sender or "", starttls=s.smtp_starttls,
                        password_set=s.smtp_password is not None)

    def save(self, *, host: str | None, port: Any, user: str | None, password: str | None,
             sender: str | None, starttls: bool) -> None:
        """Store the writer's settings; an empty password keeps the stored one (the page never
        has it to send back). Bad input stores nothing.

        Raises:
            InvalidInputError: no host, a port that is not 1-65535, a bad sender address, a
                field too long or with a line break.
        """
        from aizac.export.email import validate_address

        clean = {name: _text(name, value) for name, value in
                 (("host", host), ("user", user), ("sender", sender))}
        if not clean["host"]:
            raise InvalidInputError("error.smtp.no_host")
        number = _port(port)
        if clean["sender"]:
            clean["sender"] = validate_address(clean["sender"])
        stored = self._stored()
        secret = (password or "").strip()
        if any(c in secret for c in "\r\n"):
            raise InvalidInputError("error.smtp.field", field=Text(FIELD_KEYS["password"]))
        data: dict[str, Any] = {**clean, "port": number, "starttls": bool(starttls)}
        kept = stored.get("password")
        if secret or (kept and clean["user"]):
            data["password"] = secret or kept
        _write_private(self.path, data)

    def apply(self, settings: Settings) -> Settings:
        """``settings`` with the stored SMTP settings laid over them."""
        stored = self._stored()
        if not stored:
            return settings
        update: dict[str, Any] = {
            "smtp_host": stored.get("host") or None, "smtp_port": int(stored.get("port", 587)),
            "smtp_user": stored.get("user") or None, "smtp_sender": stored.get("sender") or None,
            "smtp_starttls": bool(stored.get("starttls", True)),
            "smtp_password": SecretStr(stored["password"]) if stored.get("password") else None,
        }
        return settings.model_copy(update=update)

    def problem(self, settings: Settings) -> AizacError | None:
        """Why mail cannot be sent with these settings (``None``: it can be tried)."""
        from aizac.export.email import EmailSettings

        try:
            EmailSettings.from_settings(self.apply(settings))
        except AizacError as e:
            return e
        return None


def _text(name: str, value: str | None) -> str:
    text = (value or "").strip()
    if len(text) > MAX_FIELD_CHARS or any(c in text for c in "\r\n"):
        raise InvalidInputError("error.smtp.field", field=Text(FIELD_KEYS[name]))
    return text


def _port(value: Any) -> int:
    try:
        number = float(str(value).strip() or "587")
        whole = int(number)
    except (ValueError, OverflowError):
        whole, number = -1, -1.0
    if number != whole or not 1 <= whole <= 65535:
        raise InvalidInputError("error.smtp.port", got=str(value))
    return whole


def _write_private(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically, readable by the owner only (0600)."""
    write_private_json(path, data, "error.smtp.write")
