"""Issue 23 item 10 in the browser, on a Korean page: the mail server is set in the Export tab
(host, port, login, password, sender, STARTTLS), stored like the model keys (owner-only file,
the password never shown back, only "set"), and the send button waits, with the reason beside
it, until mail is set up; then the export reaches an SMTP server on loopback (aiosmtpd).
"""

from __future__ import annotations

import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.export.smtp_config import SMTP_FILE, SmtpConfig
from aizac.settings import Settings
from aizac.text import t
from aizac.web import states
from tests.fakes import ScriptedChatModel
from tests.web.browser_kit import (
    CHROMIUM,
    browser_page,
    click,
    field,
    served,
    shot,
    status_says,
    tab,
    wait_enabled,
)

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "korean-views"
PASSWORD = "s3cret-pass"


def say(key: str, **params: Any) -> str:
    return t(key, "ko", **params)


@pytest.fixture
def smtp_inbox() -> Iterator[tuple[int, list[Any]]]:
    from aiosmtpd.controller import Controller

    received: list[Any] = []

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            received.append(envelope)
            return "250 OK"

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, received
    finally:
        controller.stop()


def test_stored_settings_are_private_kept_and_checked(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, smtp_host=None)
    config = SmtpConfig(tmp_path)
    assert config.problem(settings) is not None and not states.mail_ready(settings)
    for bad in ({"host": ""}, {"port": "70000"}, {"port": "x"}, {"sender": "not an address"},
                {"user": "a\r\nb"}):
        with pytest.raises(Exception):  # noqa: B017 - each an InvalidInputError
            config.save(**{"host": "127.0.0.1", "port": "2525", "user": "", "password": "",
                           "sender": "a@b.co", "starttls": False, **bad})
    assert not (tmp_path / SMTP_FILE).exists()  # bad input stored nothing
    config.save(host="127.0.0.1", port="2525", user="writer", password=PASSWORD,
                sender="writer@example.com", starttls=False)
    assert stat.S_IMODE((tmp_path / SMTP_FILE).stat().st_mode) == 0o600
    view = config.view(settings)
    assert view.password_set and PASSWORD not in repr(view)
    config.save(host="127.0.0.1", port="2525", user="writer", password="",  # the page's empty box
                sender="writer@example.com", starttls=False)
    assert config.apply(settings).smtp_password.get_secret_value() == PASSWORD  # type: ignore[union-attr]
    assert states.mail_ready(settings)


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent")
def test_mail_is_set_up_in_the_export_tab_and_sends(
    tmp_path: Path, cliche_db: ClicheDB, smtp_inbox: tuple[int, list[Any]]
) -> None:
    port, inbox = smtp_inbox
    model = ScriptedChatModel()
    model.speak_korean()
    with served(tmp_path, cliche_db, model, language="ko") as url, browser_page(url) as page:
        field(page, "aizac-new-name").fill("새벽")
        field(page, "aizac-keywords").fill("회귀, 복수")
        click(page, "aizac-create")
        wait_enabled(page, "aizac-generate-plot")
        click(page, "aizac-generate-plot")
        status_says(page, say("ui.plot_generated"))
        tab(page, say("ui.tab.beats"))
        click(page, "aizac-next-beat")
        status_says(page, say("ui.designed"))
        click(page, "aizac-accept")
        status_says(page, say("ui.accepted_done"))
        click(page, "aizac-write-prose")
        status_says(page, say("ui.prose_done"))
        tab(page, say("ui.tab.export"))
        waiting = say("ui.smtp.not_ready", reason="").split(":")[0]
        page.locator("#aizac-smtp-state").get_by_text(waiting).wait_for()
        assert not page.locator("#aizac-send").is_enabled()  # with its reason beside it
        page.locator("#aizac-smtp").get_by_text(say("ui.smtp.title")).click()
        field(page, "aizac-smtp-host").fill("127.0.0.1")
        field(page, "aizac-smtp-port").fill(str(port))
        field(page, "aizac-smtp-user").fill("")
        field(page, "aizac-smtp-password").fill(PASSWORD)
        field(page, "aizac-smtp-sender").fill("writer@example.com")
        page.locator("#aizac-smtp-starttls input").uncheck()
        click(page, "aizac-smtp-save")
        status_says(page, say("ui.smtp.saved").split(" (")[0])
        wait_enabled(page, "aizac-send")
        assert field(page, "aizac-smtp-password").input_value() == ""  # never shown back
        assert say("ui.smtp.password_set") in page.locator("#aizac-smtp-state").inner_text()
        assert PASSWORD not in page.content()
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.locator("#aizac-smtp").scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENS / "mail-settings-saved.png"))
        field(page, "aizac-email").fill("reader@example.com")
        click(page, "aizac-send")
        try:
            page.locator("#aizac-note-send").get_by_text("reader@example.com").wait_for()
        except Exception:
            shot(page, "failure")
            raise
    [envelope] = inbox
    assert envelope.rcpt_tos == ["reader@example.com"]
    stored = tmp_path / "data" / SMTP_FILE
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
