"""Send an export by email: address checks and message building (pure), SMTP delivery (edge).

``validate_address`` and ``build_message`` have no I/O; ``send_message``/``send_export`` talk to
the SMTP server configured with the ``AIZAC_SMTP_*`` settings (STARTTLS when enabled, implicit
TLS on port 465, login when a user is set) and turn every failure into an aizac error.
"""

from __future__ import annotations

import re
import smtplib
import ssl
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.errors import HeaderParseError
from email.header import decode_header, make_header
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from pydantic import SecretStr

from aizac.errors import ConfigError, DeliveryError, InvalidInputError
from aizac.export.files import default_export_name, safe_export_name
from aizac.export.manuscript import Manuscript
from aizac.export.render import MEDIA_TYPES, ExportFormat, check_format, render
from aizac.settings import Settings
from aizac.text import Text

MAX_SUBJECT_CHARS = 200
DEFAULT_TIMEOUT = 30.0

_LOCAL_PART = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
_DOMAIN_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def _has_control(text: str) -> bool:
    return any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in text)


def decoded_header_text(text: str) -> str:
    """``text`` as a mail reader shows it: RFC 2047 encoded words decoded, repeatedly (pure).

    ``=?utf-8?q?Evil=0D=0ABcc:_x@y.z?=`` decodes to a line break and a ``Bcc:`` line; Python
    3.11.7's email package decodes such words when a header is set and writes the line break out
    unquoted (CVE-2024-6923), so header text is checked in this decoded form.
    """
    current = text
    for _ in range(3):  # an encoded word may hide another one
        try:
            decoded = str(make_header(decode_header(current)))
        except (HeaderParseError, UnicodeError, LookupError, ValueError):
            return current
        if decoded == current:
            return current
        current = decoded
    return current


def header_safe(text: str) -> str:
    """Header text that cannot break out of its line: encoded words decoded, control characters
    and line breaks turned into spaces, whitespace collapsed (pure)."""
    decoded = decoded_header_text(text)
    cleaned = "".join(" " if _has_control(c) else c for c in decoded)
    return " ".join(cleaned.split())


def validate_address(address: str) -> str:
    """``address`` checked as one bare email address (``name@example.com``) and normalised.

    Display names, several addresses, quoted local parts and anything with a line break or
    other control character (a header-injection attempt such as ``"a@b.c\\r\\nBcc: x@y.z"``) are
    rejected. An internationalised domain is returned in its ASCII (punycode) form.

    Raises:
        InvalidInputError: the text is not exactly one valid address.
    """
    hint = "hint.email.address"
    if not isinstance(address, str):
        raise InvalidInputError("error.email.not_text", hint=hint)
    if _has_control(address):
        raise InvalidInputError("error.email.control", hint=hint)
    candidate = address.strip()
    if not candidate:
        raise InvalidInputError("error.email.empty", hint=hint)
    if len(candidate) > 254 or any(c.isspace() for c in candidate) or candidate.count("@") != 1:
        raise InvalidInputError("error.email.not_single", hint=hint, address=candidate)
    local, domain = candidate.split("@")
    if len(local) > 64 or not _LOCAL_PART.fullmatch(local):
        raise InvalidInputError("error.email.bad_local", hint=hint, address=candidate)
    try:
        ascii_domain = domain.encode("idna").decode("ascii") if not domain.isascii() else domain
    except UnicodeError as e:
        raise InvalidInputError("error.email.bad_idna", hint=hint, address=candidate) from e
    labels = ascii_domain.rstrip(".").split(".") if ascii_domain else []
    if len(labels) < 2 or not all(_DOMAIN_LABEL.fullmatch(label) for label in labels):
        raise InvalidInputError("error.email.bad_domain", hint=hint, address=candidate)
    return f"{local}@{'.'.join(labels).lower()}"


@dataclass(frozen=True)
class EmailSettings:
    """How to reach the SMTP server.

    Attributes:
        host: SMTP server host name.
        port: Server port (587 for STARTTLS, 465 for implicit TLS, 25 plain).
        sender: The From address.
        starttls: Upgrade the connection with STARTTLS (refused if the server cannot).
        implicit_tls: Speak TLS from the first byte (port 465 style) instead of STARTTLS.
        user: Login name; no login when empty.
        password: Login password.
        timeout: Seconds for connecting and for each server reply.
        ssl_context: TLS settings; the system's default verification when omitted.
    """

    host: str
    port: int
    sender: str
    starttls: bool = True
    implicit_tls: bool = False
    user: str | None = None
    password: SecretStr | None = field(default=None, repr=False)
    timeout: float = DEFAULT_TIMEOUT
    ssl_context: ssl.SSLContext | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> EmailSettings:
        """Email settings from aizac :class:`Settings`; :class:`ConfigError` if incomplete."""
        host = (settings.smtp_host or "").strip()
        if not host:
            raise ConfigError("error.email.no_server")
        sender_text = settings.smtp_sender or settings.smtp_user
        if not sender_text:
            raise ConfigError("error.email.no_sender")
        try:
            sender = validate_address(sender_text)
        except InvalidInputError as e:
            raise ConfigError("error.email.bad_sender", address=sender_text) from e
        user = settings.smtp_user or None
        if user and settings.smtp_password is None:
            raise ConfigError("error.email.no_password")
        implicit = settings.smtp_port == 465
        return cls(
            host=host,
            port=settings.smtp_port,
            sender=sender,
            starttls=settings.smtp_starttls and not implicit,
            implicit_tls=implicit,
            user=user,
            password=settings.smtp_password,
            timeout=min(settings.request_timeout, 60.0),
        )


@dataclass(frozen=True)
class Attachment:
    """An export ready to attach: file name, bytes and format."""

    filename: str
    data: bytes
    fmt: ExportFormat

    @property
    def media_type(self) -> str:
        """The MIME type, e.g. ``application/epub+zip``."""
        return MEDIA_TYPES[self.fmt]


def export_attachment(
    manuscript: Manuscript,
    fmt: str,
    name: str | None = None,
    *,
    modified: datetime | None = None,
) -> Attachment:
    """Render ``manuscript`` as ``fmt`` into an :class:`Attachment` (pure)."""
    checked = check_format(fmt)
    filename = (
        default_export_name(manuscript.title, checked)
        if name is None
        else safe_export_name(name, checked)
    )
    return Attachment(filename, render(manuscript, checked, modified=modified), checked)


def _check_subject(subject: str) -> str:
    if _has_control(subject) or _has_control(decoded_header_text(subject)):
        raise InvalidInputError("error.email.subject_control")
    cleaned = subject.strip()
    if not cleaned:
        raise InvalidInputError("error.email.subject_empty")
    if len(cleaned) > MAX_SUBJECT_CHARS:
        raise InvalidInputError("error.email.subject_long", n=len(cleaned),
                                limit=MAX_SUBJECT_CHARS)
    return cleaned


def build_message(
    content: Manuscript | Attachment,
    *,
    to: str,
    sender: str,
    subject: str | None = None,
    fmt: str = "epub",
    name: str | None = None,
    body: str | None = None,
    date: datetime | None = None,
) -> EmailMessage:
    """An email carrying the export as an attachment (pure: nothing is sent).

    Args:
        content: A manuscript (rendered here as ``fmt``, named ``name``) or a ready attachment.
        to: Recipient address (validated).
        sender: From address (validated).
        subject: Subject line; the title and format when omitted.
        fmt: Format used when ``content`` is a manuscript.
        name: File name used when ``content`` is a manuscript (default: from the title).
        body: Plain-text body; a one-line description when omitted.
        date: The Date header; now when omitted.

    Raises:
        InvalidInputError: a bad address, subject, format or name; nothing is built.
    """
    recipient = validate_address(to)
    from_address = validate_address(sender)
    if subject is not None:
        subject = _check_subject(subject)
    if isinstance(content, Attachment):
        attachment = Attachment(
            safe_export_name(content.filename, content.fmt), content.data, content.fmt
        )
        title = attachment.filename
    else:
        attachment = export_attachment(content, fmt, name)
        title = content.title
    if subject is None:  # from the title, which a model wrote: made safe, never rejected
        subject = _check_subject(
            f"{header_safe(title) or attachment.filename} (.{attachment.fmt})"[:MAX_SUBJECT_CHARS]
        )
    text = body if body is not None else f"{title}: {attachment.filename} is attached.\n"
    if "\x00" in text:
        raise InvalidInputError("error.email.body_nul")

    message = EmailMessage()
    message["From"] = from_address
    message["To"] = recipient
    message["Subject"] = subject
    message["Date"] = format_datetime((date or datetime.now(UTC)).astimezone(UTC))
    message["Message-ID"] = make_msgid(domain=from_address.split("@", 1)[1])
    message.set_content(text, subtype="plain", charset="utf-8")
    maintype, _, rest = attachment.media_type.partition("/")
    subtype = rest.split(";", 1)[0].strip()
    params = {"charset": "utf-8"} if maintype == "text" else None
    message.add_attachment(
        attachment.data,
        maintype=maintype,
        subtype=subtype,
        filename=attachment.filename,
        params=params,
    )
    _check_headers(message)
    return message


def _check_headers(message: EmailMessage) -> None:
    """Refuse a message whose header values, as parsed, hold a line break (defence in depth
    against header injection through encoded words; nothing is sent)."""
    for key, value in message.items():
        if _has_control(str(value)):
            raise InvalidInputError("error.email.header_break", header=key)


def send_message(message: EmailMessage, settings: EmailSettings) -> None:
    """Deliver ``message`` through the SMTP server in ``settings``.

    Raises:
        ConfigError: the server refused the login or cannot do STARTTLS/AUTH as configured.
        InvalidInputError: the server refused the recipient.
        DeliveryError: connecting, TLS, a timeout or the transfer failed.
    """
    where = f"{settings.host}:{settings.port}"
    context = settings.ssl_context or ssl.create_default_context()
    stage = "connect"
    try:
        client: smtplib.SMTP
        if settings.implicit_tls:
            client = smtplib.SMTP_SSL(
                settings.host, settings.port, timeout=settings.timeout, context=context
            )
        else:
            client = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
        with client:
            client.ehlo()
            if settings.starttls and not settings.implicit_tls:
                stage = "starttls"
                client.starttls(context=context)
                client.ehlo()
            if settings.user:
                stage = "login"
                password = settings.password.get_secret_value() if settings.password else ""
                client.login(settings.user, password)
            stage = "send"
            client.send_message(message)
    except smtplib.SMTPAuthenticationError as e:
        raise ConfigError("error.email.login_refused", server=where, user=settings.user) from e
    except smtplib.SMTPNotSupportedError as e:
        setting = "AIZAC_SMTP_STARTTLS" if stage == "starttls" else "AIZAC_SMTP_USER"
        raise ConfigError("error.email.unsupported", server=where, stage=Text(_STAGES[stage]),
                          cause=str(e), setting=setting) from e
    except smtplib.SMTPRecipientsRefused as e:
        refused = ", ".join(sorted(e.recipients))
        raise InvalidInputError("error.email.recipient_refused", server=where,
                                recipient=refused) from e
    except (smtplib.SMTPException, OSError) as e:
        raise DeliveryError("error.email.failed", stage=Text(_STAGES[stage]), server=where,
                            cause=f"{type(e).__name__}: {e}") from e


_STAGES = {"connect": "error.email.stage.connect", "starttls": "error.email.stage.starttls",
           "login": "error.email.stage.login", "send": "error.email.stage.send"}
"""What the SMTP client was doing when it failed (a catalogue key each)."""


def send_export(
    content: Manuscript | Attachment,
    *,
    to: str,
    settings: EmailSettings | Settings,
    subject: str | None = None,
    fmt: str = "epub",
    name: str | None = None,
    body: str | None = None,
) -> EmailMessage:
    """Validate, build and send an export by email; returns the message that was sent.

    The recipient is checked before the configuration, and everything before any connection,
    so bad input never reaches the server.
    """
    validate_address(to)
    email_settings = (
        settings if isinstance(settings, EmailSettings) else EmailSettings.from_settings(settings)
    )
    message = build_message(
        content,
        to=to,
        sender=email_settings.sender,
        subject=subject,
        fmt=fmt,
        name=name,
        body=body,
    )
    send_message(message, email_settings)
    return message
