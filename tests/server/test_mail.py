"""The mail rules of ``aizac serve`` on their own, with a clock the test moves (issue 38 item
2; the whole flow in chromium against a real SMTP server is in test_browser_round_two): the
hourly and daily limits count codes and exports alike, a code expires and wears out, a mail
that could not be sent counts for nothing, and mail goes only to the verified address."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from aizac.errors import DeliveryError, InvalidInputError, LimitError
from aizac.server.errors import ForbiddenError
from aizac.server.mail import CODE_MINUTES, CODE_TRIES, MailBook


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _book(tmp_path: Path, clock: Clock, per_hour: int = 100, per_day: int = 100) -> MailBook:
    return MailBook(tmp_path, per_hour=per_hour, per_day=per_day, clock=clock)


def _verified(book: MailBook, address: str = "mina@example.com") -> str:
    codes: list[str] = []
    to = book.send_code(address, lambda to, code: codes.append(code))
    assert book.verify(codes[-1]) == to
    return to


def test_mail_goes_only_to_the_verified_address(tmp_path: Path) -> None:
    book = _book(tmp_path, Clock())
    with pytest.raises(ForbiddenError) as none, book.sending("mina@example.com"):
        pass
    assert none.value.key == "error.server.mail_unverified_none"
    _verified(book, "Mina@Example.COM")  # the domain's case does not matter
    assert book.address() == "Mina@example.com"
    with pytest.raises(ForbiddenError) as other, book.sending("someone@example.org"):
        pass
    assert other.value.key == "error.server.mail_unverified"
    with book.sending("") as to:  # empty: the verified address
        assert to == "Mina@example.com"
    assert stat.S_IMODE((tmp_path / "mail.json").stat().st_mode) == 0o600


def test_the_hourly_and_daily_limits_count_codes_and_exports(tmp_path: Path) -> None:
    clock = Clock()
    book = _book(tmp_path, clock, per_hour=2, per_day=3)
    _verified(book)  # one mail: the code
    with book.sending(""):
        pass
    with pytest.raises(LimitError) as hourly, book.sending(""):
        pass
    assert hourly.value.key == "error.server.mail_hourly"
    assert 3500 < hourly.value.retry_after <= 3600
    clock.now += 3600
    with book.sending(""):
        pass
    clock.now += 3600
    with pytest.raises(LimitError) as daily, book.sending(""):
        pass
    assert daily.value.key == "error.server.mail_daily"
    assert daily.value.retry_after == pytest.approx(86400 - 7200)
    clock.now += 86400 - 7200
    with book.sending(""):
        pass


def test_a_mail_that_failed_counts_for_nothing(tmp_path: Path) -> None:
    book = _book(tmp_path, Clock(), per_hour=1)

    def broken(to: str, code: str) -> None:
        raise DeliveryError("error.email.failed", stage="send", server="x", cause="down")

    with pytest.raises(DeliveryError):
        book.send_code("mina@example.com", broken)
    with pytest.raises(InvalidInputError) as none:
        book.verify("123456")  # no code is pending: none was sent
    assert none.value.key == "error.server.mail_no_code"
    _verified(book)  # the one mail of the hour is still there
    with pytest.raises(LimitError):
        _verified(book)


def test_a_code_expires_and_wears_out(tmp_path: Path) -> None:
    clock = Clock()
    book = _book(tmp_path, clock)
    codes: list[str] = []
    book.send_code("mina@example.com", lambda to, code: codes.append(code))
    clock.now += CODE_MINUTES * 60
    with pytest.raises(InvalidInputError) as expired:
        book.verify(codes[-1])
    assert expired.value.key == "error.server.mail_no_code"
    book.send_code("mina@example.com", lambda to, code: codes.append(code))
    wrong = "000000" if codes[-1] != "000000" else "111111"
    for left in range(CODE_TRIES - 1, -1, -1):
        with pytest.raises(InvalidInputError) as refused:
            book.verify(wrong)
        assert refused.value.params["left"] == left
    with pytest.raises(InvalidInputError) as spent:
        book.verify(codes[-1])  # the right code, after five wrong ones: spent
    assert spent.value.key == "error.server.mail_no_code"
    assert book.address() is None
