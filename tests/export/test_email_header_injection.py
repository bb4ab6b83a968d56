"""CVE-2024-6923: an RFC 2047 encoded word in a plot title must not become a header.

Python 3.11.7's email package decodes ``=?utf-8?q?...=0D=0A...?=`` when a header is set and
writes the decoded line break out unquoted, so a model-written title could add ``Bcc:``. The
message is delivered to aiosmtpd on 127.0.0.1 and parsed as a mail reader would.
"""

from __future__ import annotations

import email
import socket
from email.message import EmailMessage
from email.policy import default as default_policy
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope, Session

from aizac.errors import InvalidInputError
from aizac.export.email import (
    EmailSettings,
    build_message,
    decoded_header_text,
    header_safe,
    send_export,
)
from aizac.export.manuscript import EpisodeText, Manuscript


class Recorder:
    """Keeps what arrives, parsed as a mail reader would."""

    def __init__(self) -> None:
        self.received: list[tuple[Envelope, EmailMessage]] = []

    async def handle_DATA(self, server: Any, session: Session, envelope: Envelope) -> str:
        message = email.message_from_bytes(envelope.original_content or b"",
                                           policy=default_policy)
        assert isinstance(message, EmailMessage)
        self.received.append((envelope, message))
        return "250 Message accepted for delivery"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])

EVIL = "=?utf-8?q?Evil=0D=0ABcc:_spy@x.com?="
SENDER = "aizac@example.com"
TO = "reader@example.org"


def _manuscript(title: str) -> Manuscript:
    return Manuscript(title=title, language="ko", episodes=[EpisodeText(1, "시작", "첫 문단.")])


def test_decoding_reveals_the_line_break() -> None:
    assert decoded_header_text(EVIL) == "Evil\r\nBcc: spy@x.com"
    assert header_safe(EVIL) == "Evil Bcc: spy@x.com"
    assert header_safe("달빛 검객") == "달빛 검객"


def test_title_with_encoded_word_builds_no_bcc_header() -> None:
    message = build_message(_manuscript(EVIL), to=TO, sender=SENDER, fmt="txt")
    assert message["Bcc"] is None
    raw = message.as_bytes()
    assert b"\nBcc:" not in raw and b"\r\nBcc" not in raw
    assert "\r" not in str(message["Subject"]) and "\n" not in str(message["Subject"])


def test_explicit_subject_with_encoded_line_break_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="line break"):
        build_message(_manuscript("달빛"), to=TO, sender=SENDER, subject=EVIL, fmt="txt")


def test_received_message_has_no_bcc() -> None:
    handler = Recorder()
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        settings = EmailSettings(
            host="127.0.0.1", port=port, sender=SENDER, starttls=False, timeout=10
        )
        send_export(_manuscript(EVIL), to=TO, settings=settings, fmt="txt")
    finally:
        controller.stop()
    assert len(handler.received) == 1
    envelope, message = handler.received[0]
    assert envelope.rcpt_tos == [TO]  # spy@x.com never became a recipient
    assert message["Bcc"] is None
    assert "Bcc" not in message
    assert "Evil" in str(message["Subject"])
