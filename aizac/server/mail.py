"""Mail from the multi-user server: only to an address of the user's own that they verified.

With ``AIZAC_SMTP_*`` set, the web app sends exports by mail from the operator's sender. On
``aizac serve`` a user first proves an address is theirs: the server mails a six-digit code
to it (:meth:`MailBook.send_code`; the mail holds nothing a user wrote, only the code) and the
user types it back (:meth:`MailBook.verify`). Exports then go to that address only
(:class:`ServerExports`). Every mail the server sends for a user, codes included, counts
against their hourly and daily limits (``AIZAC_SERVER_MAIL_PER_HOUR``, ``MAIL_PER_DAY``);
a code works for :data:`CODE_MINUTES` minutes and :data:`CODE_TRIES` wrong tries.

The state is a small private file in the user's sandbox (``mail.json``, mode 0600, written
atomically under a file lock), so every process and replica on the data volume sees one count.
The single-writer app keeps its free address field: it never uses this module.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import math
import secrets
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

from aizac.application.exports import ExportResult, ExportService
from aizac.errors import InvalidInputError, LimitError
from aizac.private_files import write_private_json
from aizac.server.errors import ForbiddenError
from aizac.settings import Settings
from aizac.text import t
from aizac.writer.agent import WriterAgent

MAIL_FILE = "mail.json"
CODE_MINUTES = 30
CODE_TRIES = 5
HOUR_S = 3600.0
DAY_S = 86400.0


def _digest(address: str, code: str) -> str:
    return hashlib.sha256(f"{address}\x00{code}".encode()).hexdigest()


class MailBook:
    """One user's verified address, pending code and mail sent lately (thread- and
    process-safe: every change is made under a file lock).

    Args:
        root: the user's sandbox folder.
        per_hour, per_day: mails the server sends for the user per hour and per day at most.
        clock: the wall clock.
    """

    def __init__(self, root: Path, *, per_hour: int, per_day: int,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = Path(root) / MAIL_FILE
        self.per_hour = per_hour
        self.per_day = per_day
        self.clock = clock

    # -------------------------------------------------------------------------- the file
    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    @contextlib.contextmanager
    def _changing(self) -> Iterator[dict[str, Any]]:
        """The state, written back when the block ends without an error."""
        from filelock import FileLock

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.path) + ".lock", timeout=60):
            data = self._read()
            yield data
            write_private_json(self.path, data, "error.server.mail_state")

    # ---------------------------------------------------------------------------- reading
    def address(self) -> str | None:
        """The user's verified address, if any."""
        found = self._read().get("address")
        return found if isinstance(found, str) and found else None

    # ----------------------------------------------------------------------------- limits
    def _take(self, data: dict[str, Any]) -> None:
        """Count one mail now in ``data``, or raise :class:`LimitError`."""
        now = self.clock()
        sent = [float(x) for x in data.get("sent", []) if isinstance(x, int | float)
                and now - float(x) < DAY_S]
        hour = [x for x in sent if now - x < HOUR_S]
        if len(hour) >= self.per_hour:
            wait = HOUR_S - (now - hour[-self.per_hour])
            raise LimitError("error.server.mail_hourly", retry_after=wait, count=len(hour),
                             minutes=max(1, math.ceil(wait / 60)))
        if len(sent) >= self.per_day:
            wait = DAY_S - (now - sent[-self.per_day])
            raise LimitError("error.server.mail_daily", retry_after=wait, count=len(sent),
                             hours=max(1, math.ceil(wait / 3600)))
        data["sent"] = [*sent, now]

    # ------------------------------------------------------------------------- the code
    def send_code(self, address: str, send: Callable[[str, str], None]) -> str:
        """Mail a new code to ``address`` (``send(address, code)``) and keep it pending;
        returns the address as checked. A code counts as a mail; one that could not be
        sent counts for nothing.

        Raises:
            InvalidInputError: not one valid address.
            LimitError: the user's hourly or daily mail limit is reached.
        """
        from aizac.export.email import validate_address

        to = validate_address(address)
        code = f"{secrets.randbelow(10**6):06d}"
        with self._changing() as data:  # nothing is written if the mail fails
            self._take(data)
            send(to, code)
            data["pending"] = {"address": to, "digest": _digest(to, code), "tries": 0,
                               "expires": self.clock() + CODE_MINUTES * 60}
        return to

    def verify(self, code: str) -> str:
        """Verify the pending address with the ``code`` mailed to it; returns the address.

        Raises:
            InvalidInputError: no code is pending (none sent, expired, too many wrong tries),
                or this is not it.
        """
        typed = "".join(code.split()) if isinstance(code, str) else ""
        with self._changing() as data:
            pending = data.get("pending")
            if not isinstance(pending, dict) or float(pending.get("expires", 0)) <= self.clock():
                data.pop("pending", None)
                error = InvalidInputError("error.server.mail_no_code", minutes=CODE_MINUTES)
            else:
                to = str(pending.get("address", ""))
                if hmac.compare_digest(_digest(to, typed), str(pending.get("digest", ""))):
                    data["address"] = to
                    data.pop("pending", None)
                    return to
                pending["tries"] = int(pending.get("tries", 0)) + 1
                left = CODE_TRIES - pending["tries"]
                if left <= 0:
                    data.pop("pending", None)
                error = InvalidInputError("error.server.mail_code_wrong", address=to,
                                          left=max(0, left))
        raise error  # after the state (the wrong try counted) is written

    # ---------------------------------------------------------------------- sending mail
    @contextlib.contextmanager
    def sending(self, address: str) -> Iterator[str]:
        """Around one export mail to ``address`` (empty: the verified address): the address
        must be the verified one, and the mail is counted (not when the block fails: nothing
        is written then; the user's mails wait for each other on the file lock).

        Raises:
            ForbiddenError: no verified address, or another one.
            LimitError: the user's hourly or daily mail limit is reached.
        """
        from aizac.export.email import validate_address

        with self._changing() as data:
            verified = data.get("address")
            if not isinstance(verified, str) or not verified:
                raise ForbiddenError("error.server.mail_unverified_none")
            to = validate_address(address) if address.strip() else verified
            if to != verified:
                raise ForbiddenError("error.server.mail_unverified", address=to,
                                     verified=verified)
            self._take(data)
            yield to


class ServerExports(ExportService):
    """The export service of one user on ``aizac serve``: exports by mail go only to the
    user's verified address, within their mail limits (see the module).

    Args:
        agent_of, export_dir: as for :class:`ExportService`.
        book: the user's :class:`MailBook`.
        settings: the user's settings (the server's SMTP settings among them).
        language: the language of the code mail.
    """

    def __init__(self, agent_of: Callable[[str | None], WriterAgent], export_dir: Path, *,
                 book: MailBook, settings: Settings, language: str) -> None:
        super().__init__(agent_of, export_dir)
        self.book = book
        self.settings = settings
        self.language = language

    def email(self, name: str | None, address: str, fmt: str, first: int | None,
              last: int | None) -> ExportResult:
        with self.book.sending(address) as to:
            return super().email(name, to, fmt, first, last)

    def verified_address(self) -> str | None:
        return self.book.address()

    def send_code(self, address: str) -> str:
        return self.book.send_code(address, self._mail_code)

    def verify(self, code: str) -> str:
        return self.book.verify(code)

    def _mail_code(self, to: str, code: str) -> None:
        from datetime import UTC, datetime

        from aizac.export.email import EmailSettings, send_message
        from aizac.export.smtp_config import SmtpConfig

        smtp = EmailSettings.from_settings(SmtpConfig(self.settings.data_dir).apply(
            self.settings))
        message = EmailMessage()
        message["From"] = smtp.sender
        message["To"] = to
        message["Subject"] = t("mail.code.subject", self.language)
        message["Date"] = format_datetime(datetime.now(UTC))
        message["Message-ID"] = make_msgid(domain=smtp.sender.split("@", 1)[1])
        message.set_content(t("mail.code.body", self.language, code=code,
                              minutes=CODE_MINUTES), subtype="plain", charset="utf-8")
        send_message(message, smtp)


__all__ = ["CODE_MINUTES", "CODE_TRIES", "MailBook", "ServerExports"]
