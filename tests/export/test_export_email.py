"""Email export against a real SMTP server (aiosmtpd) on 127.0.0.1: plain, STARTTLS + login,
implicit TLS; bad input and header injection are refused before any connection is made."""

from __future__ import annotations

import email
import io
import shutil
import socket
import ssl
import subprocess
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session
from pydantic import SecretStr

from aizac.errors import ConfigError, DeliveryError, InvalidInputError
from aizac.export.email import (
    Attachment,
    EmailSettings,
    build_message,
    export_attachment,
    send_export,
    validate_address,
)
from aizac.export.manuscript import Manuscript
from aizac.export.render import render_md, render_txt
from aizac.settings import Settings

SENDER = "aizac@example.com"
TO = "reader@example.org"


@dataclass
class Received:
    envelope: Envelope
    message: EmailMessage
    tls: bool
    authenticated: bool


@dataclass
class RecordingHandler:
    """Keeps every message and counts EHLOs (a client that never says EHLO sent nothing)."""

    refuse: set[str] = field(default_factory=set)
    received: list[Received] = field(default_factory=list)
    ehlos: int = 0

    async def handle_EHLO(
        self, server: Any, session: Session, envelope: Envelope, hostname: str, responses: list[str]
    ) -> list[str]:
        self.ehlos += 1
        session.host_name = hostname
        return responses

    async def handle_RCPT(
        self, server: Any, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if address in self.refuse:
            return "550 5.1.1 No such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        message = email.message_from_bytes(raw, policy=default_policy)
        assert isinstance(message, EmailMessage)
        self.received.append(
            Received(envelope, message, session.ssl is not None, bool(session.authenticated))
        )
        return "250 Message accepted for delivery"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _authenticator(
    server: Any, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
) -> AuthResult:
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (
        b"writer",
        b"s3cret",
    )
    return AuthResult(success=ok, handled=False)  # failure: the server answers 535


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A throwaway self-signed certificate for 127.0.0.1 (made with the openssl CLI)."""
    openssl = shutil.which("openssl")
    assert openssl, "the TLS email tests need the openssl command"
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def server_tls(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certificate)
    return context


@pytest.fixture
def client_tls(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(certificate[0]))


ServerFactory = Callable[..., tuple[RecordingHandler, int]]


@pytest.fixture
def smtp_server() -> Iterator[ServerFactory]:
    """Start aiosmtpd servers on free loopback ports; all are stopped after the test."""
    controllers: list[Controller] = []

    def start(**kwargs: Any) -> tuple[RecordingHandler, int]:
        handler = RecordingHandler(refuse=kwargs.pop("refuse", set()))
        port = _free_port()
        controller = Controller(handler, hostname="127.0.0.1", port=port, **kwargs)
        controller.start()
        controllers.append(controller)
        return handler, port

    yield start
    for controller in controllers:
        controller.stop()


def _plain(port: int) -> EmailSettings:
    return EmailSettings(host="127.0.0.1", port=port, sender=SENDER, starttls=False, timeout=10)


def _attachment_part(message: EmailMessage) -> EmailMessage:
    parts = list(message.iter_attachments())
    assert len(parts) == 1
    part = parts[0]
    assert isinstance(part, EmailMessage)
    return part


class TestDelivery:
    def test_epub_attachment_and_headers_arrive(
        self, smtp_server: ServerFactory, korean_manuscript: Manuscript
    ) -> None:
        handler, port = smtp_server()
        attachment = export_attachment(korean_manuscript, "epub", "달빛 검객 1-3화")
        send_export(attachment, to=TO, settings=_plain(port), subject="달빛 검객 원고")

        assert len(handler.received) == 1
        got = handler.received[0]
        assert got.envelope.mail_from == SENDER
        assert got.envelope.rcpt_tos == [TO]
        message = got.message
        assert message["From"] == SENDER
        assert message["To"] == TO
        assert message["Subject"] == "달빛 검객 원고"
        assert message["Date"] and message["Message-ID"].endswith("@example.com>")
        assert message["Bcc"] is None
        assert message.get_content_type() == "multipart/mixed"
        body = message.get_body(preferencelist=("plain",))
        assert body is not None and "달빛 검객 1-3화.epub" in body.get_content()

        part = _attachment_part(message)
        assert part.get_content_type() == "application/epub+zip"
        assert part.get_content_disposition() == "attachment"
        assert part.get_filename() == "달빛 검객 1-3화.epub"
        data = part.get_payload(decode=True)
        assert data == attachment.data
        assert zipfile.ZipFile(io.BytesIO(data)).read("mimetype") == b"application/epub+zip"

    @pytest.mark.parametrize(
        ("fmt", "content_type", "renderer"),
        [("txt", "text/plain", render_txt), ("md", "text/markdown", render_md)],
    )
    def test_text_attachments_are_utf8(
        self,
        smtp_server: ServerFactory,
        korean_manuscript: Manuscript,
        fmt: str,
        content_type: str,
        renderer: Callable[[Manuscript], str],
    ) -> None:
        handler, port = smtp_server()
        send_export(korean_manuscript, to=TO, settings=_plain(port), fmt=fmt)
        message = handler.received[0].message
        assert message["Subject"] == f"달빛 검객: 서연의 길 (.{fmt})"
        part = _attachment_part(message)
        assert part.get_content_type() == content_type
        assert part.get_content_charset() == "utf-8"
        assert part.get_filename() == f"달빛_검객_서연의_길.{fmt}"  # no spaces (issue 23)
        payload = part.get_payload(decode=True)
        assert isinstance(payload, bytes)
        assert payload.decode("utf-8") == renderer(korean_manuscript)

    def test_starttls_and_login(
        self,
        smtp_server: ServerFactory,
        server_tls: ssl.SSLContext,
        client_tls: ssl.SSLContext,
        chinese_manuscript: Manuscript,
    ) -> None:
        handler, port = smtp_server(
            tls_context=server_tls, require_starttls=True, authenticator=_authenticator
        )
        settings = EmailSettings(
            host="127.0.0.1", port=port, sender=SENDER, user="writer",
            password=SecretStr("s3cret"), ssl_context=client_tls, timeout=10,
        )  # fmt: skip
        send_export(chinese_manuscript, to=TO, settings=settings, fmt="txt")
        assert [(r.tls, r.authenticated) for r in handler.received] == [(True, True)]
        assert "「你是谁？」她问。" in (_attachment_part(handler.received[0].message).get_content())

    def test_implicit_tls(
        self,
        smtp_server: ServerFactory,
        server_tls: ssl.SSLContext,
        client_tls: ssl.SSLContext,
        chinese_manuscript: Manuscript,
    ) -> None:
        handler, port = smtp_server(ssl_context=server_tls)
        settings = EmailSettings(
            host="127.0.0.1", port=port, sender=SENDER, starttls=False, implicit_tls=True,
            ssl_context=client_tls, timeout=10,
        )  # fmt: skip
        send_export(chinese_manuscript, to=TO, settings=settings, fmt="md")
        assert len(handler.received) == 1


class TestFailures:
    def test_wrong_password_is_a_config_error(
        self,
        smtp_server: ServerFactory,
        server_tls: ssl.SSLContext,
        client_tls: ssl.SSLContext,
        chinese_manuscript: Manuscript,
    ) -> None:
        handler, port = smtp_server(tls_context=server_tls, authenticator=_authenticator)
        settings = EmailSettings(
            host="127.0.0.1", port=port, sender=SENDER, user="writer",
            password=SecretStr("wrong"), ssl_context=client_tls, timeout=10,
        )  # fmt: skip
        with pytest.raises(ConfigError, match="refused the login") as info:
            send_export(chinese_manuscript, to=TO, settings=settings)
        assert "AIZAC_SMTP_PASSWORD" in info.value.hint
        assert "wrong" not in str(info.value)
        assert handler.received == []

    def test_starttls_not_offered_is_a_config_error(
        self, smtp_server: ServerFactory, chinese_manuscript: Manuscript
    ) -> None:
        handler, port = smtp_server()
        settings = EmailSettings(host="127.0.0.1", port=port, sender=SENDER, timeout=10)
        with pytest.raises(ConfigError, match="starting TLS") as info:
            send_export(chinese_manuscript, to=TO, settings=settings)
        assert "AIZAC_SMTP_STARTTLS" in info.value.hint
        assert handler.received == []

    def test_untrusted_certificate_is_a_delivery_error(
        self, smtp_server: ServerFactory, server_tls: ssl.SSLContext, chinese_manuscript: Manuscript
    ) -> None:
        handler, port = smtp_server(tls_context=server_tls)
        settings = EmailSettings(host="127.0.0.1", port=port, sender=SENDER, timeout=10)
        with pytest.raises(DeliveryError, match="starting TLS") as info:
            send_export(chinese_manuscript, to=TO, settings=settings)
        assert "AIZAC_SMTP_" in info.value.hint
        assert handler.received == []

    def test_no_server_listening_is_a_delivery_error(self, chinese_manuscript: Manuscript) -> None:
        port = _free_port()
        with pytest.raises(DeliveryError, match=f"connecting to 127.0.0.1:{port}"):
            send_export(chinese_manuscript, to=TO, settings=_plain(port))

    def test_refused_recipient_is_invalid_input(
        self, smtp_server: ServerFactory, chinese_manuscript: Manuscript
    ) -> None:
        handler, port = smtp_server(refuse={TO})
        with pytest.raises(InvalidInputError, match="refused the recipient"):
            send_export(chinese_manuscript, to=TO, settings=_plain(port))
        assert handler.received == []


class TestInjection:
    @pytest.mark.parametrize(
        "to",
        [
            "a@b.c\r\nBcc: x@y.z",
            "a@b.c\nBcc: x@y.z",
            "a@b.c\rBcc: x@y.z",
            "a@b.c, x@y.z",
            "Reader <a@b.c>",
            "a@b.c\x00",
        ],
    )
    def test_recipient_injection_sends_nothing(
        self, smtp_server: ServerFactory, chinese_manuscript: Manuscript, to: str
    ) -> None:
        handler, port = smtp_server()
        with pytest.raises(InvalidInputError):
            send_export(chinese_manuscript, to=to, settings=_plain(port))
        assert handler.received == []
        assert handler.ehlos == 0  # no SMTP conversation was even started

    @pytest.mark.parametrize(
        "kwargs",
        [
            {"subject": "원고\r\nBcc: x@y.z"},
            {"subject": "  "},
            {"name": "x\r\nBcc: y"},
            {"name": "../../etc/passwd"},
            {"fmt": "exe"},
        ],
    )
    def test_other_bad_fields_send_nothing(
        self, smtp_server: ServerFactory, chinese_manuscript: Manuscript, kwargs: dict[str, str]
    ) -> None:
        handler, port = smtp_server()
        with pytest.raises(InvalidInputError):
            send_export(chinese_manuscript, to=TO, settings=_plain(port), **kwargs)
        assert handler.received == []
        assert handler.ehlos == 0

    def test_attachment_with_unsafe_filename_is_refused(self) -> None:
        with pytest.raises(InvalidInputError):
            build_message(Attachment("../x.txt", b"x", "txt"), to=TO, sender=SENDER)


class TestValidateAddress:
    @pytest.mark.parametrize(
        ("address", "expected"),
        [
            ("a@b.c", "a@b.c"),
            ("  Writer.Name+novel@Example.COM ", "Writer.Name+novel@example.com"),
            ("o'brien@mail.example.co.kr", "o'brien@mail.example.co.kr"),
            ("작가@한국.kr".replace("작가", "writer"), "writer@xn--3e0b707e.kr"),
        ],
    )
    def test_valid(self, address: str, expected: str) -> None:
        assert validate_address(address) == expected

    @pytest.mark.parametrize(
        "address",
        [
            "",
            "   ",
            "plainaddress",
            "@example.com",
            "a@",
            "a@localhost",
            "a@@b.c",
            "a@b@c.d",
            "a b@c.d",
            ".a@b.c",
            "a.@b.c",
            "a..b@c.d",
            "a@-b.c",
            "a@b..c",
            "작가@example.com",
            '"quoted"@b.c',
            "a@b.c\r\nBcc: x@y.z",
            "a@b.c\u2028",
            "x" * 65 + "@b.c",
        ],
    )
    def test_invalid(self, address: str) -> None:
        with pytest.raises(InvalidInputError) as info:
            validate_address(address)
        assert "writer@example.com" in info.value.hint

    def test_line_breaks_are_called_out(self) -> None:
        with pytest.raises(InvalidInputError, match="line break"):
            validate_address("a@b.c\r\nBcc: x@y.z")


class TestEmailSettings:
    def test_no_host_names_the_setting(self) -> None:
        with pytest.raises(ConfigError) as info:
            EmailSettings.from_settings(Settings())
        assert "AIZAC_SMTP_HOST" in str(info.value)

    def test_send_export_without_host_sends_nothing(self, chinese_manuscript: Manuscript) -> None:
        with pytest.raises(ConfigError, match="AIZAC_SMTP_HOST"):
            send_export(chinese_manuscript, to=TO, settings=Settings())

    def test_recipient_is_checked_before_the_configuration(
        self, chinese_manuscript: Manuscript
    ) -> None:
        with pytest.raises(InvalidInputError):
            send_export(chinese_manuscript, to="a@b.c\r\nBcc: x@y.z", settings=Settings())

    def test_from_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("AIZAC_SMTP_HOST", "smtp.example.com")
        monkeypatch.setenv("AIZAC_SMTP_USER", "writer@example.com")
        monkeypatch.setenv("AIZAC_SMTP_PASSWORD", "hunter22")
        settings = EmailSettings.from_settings(Settings())
        assert (settings.host, settings.port, settings.starttls) == ("smtp.example.com", 587, True)
        assert settings.sender == "writer@example.com"  # falls back to the login name
        assert settings.password is not None
        assert "hunter22" not in repr(settings)

    def test_port_465_means_implicit_tls(self) -> None:
        settings = EmailSettings.from_settings(
            Settings(smtp_host="h.example.com", smtp_port=465, smtp_sender="a@b.co")
        )
        assert (settings.implicit_tls, settings.starttls) == (True, False)

    @pytest.mark.parametrize(
        ("kwargs", "named"),
        [
            ({"smtp_host": "h.example.com"}, "AIZAC_SMTP_SENDER"),
            ({"smtp_host": "h.example.com", "smtp_sender": "nobody"}, "AIZAC_SMTP_SENDER"),
            ({"smtp_host": "h.example.com", "smtp_user": "a@b.co"}, "AIZAC_SMTP_PASSWORD"),
        ],
    )
    def test_incomplete_configuration(self, kwargs: dict[str, str], named: str) -> None:
        with pytest.raises(ConfigError) as info:
            EmailSettings.from_settings(Settings(**kwargs))  # type: ignore[arg-type]
        assert named in str(info.value)


def test_message_is_built_without_a_server(korean_manuscript: Manuscript) -> None:
    message = build_message(korean_manuscript, to=TO, sender=SENDER, fmt="md", name="원고")
    raw = message.as_bytes()
    assert b"\r\nBcc" not in raw
    parsed = email.message_from_bytes(raw, policy=default_policy)
    assert isinstance(parsed, EmailMessage)
    part = _attachment_part(parsed)
    assert part.get_filename() == "원고.md"
    assert part.get_content_type() == "text/markdown"
    headers = raw.split(b"\n\n", 1)[0]
    assert headers.isascii()  # non-ASCII subject/filename are encoded, not raw 8-bit
