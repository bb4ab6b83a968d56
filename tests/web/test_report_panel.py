"""The Start tab's continuity report panel, through its handlers (no browser): a row per
finding with its key, category, subtype, episode-paragraph and beat, both quotes; Dismiss
takes the row away; a bad episode box is refused with its catalogue text."""

from __future__ import annotations

from pathlib import Path

import pytest

from aizac.application.service import ApplicationService
from aizac.errors import InvalidInputError
from aizac.web import handlers as h
from aizac.web.labels import labels
from tests.continuity.test_serial_service import NAME, remember_reading, write_serial


def test_the_panel_lists_findings_and_dismisses_one(service: ApplicationService,
                                                     tmp_path: Path) -> None:
    service.import_manuscript(NAME, [write_serial(tmp_path)])
    remember_reading(service)
    L = labels("ko")
    report = h.continuity_report(service, NAME, "", " ", reviewer=False)
    rows = h.report_rows(L, report)
    assert h.report_summary(L, report) == "1–3화: 발견 2건 (무시함 0건)."
    by_subtype = {row[2]: row for row in rows}
    assert set(by_subtype) == {"이름 표기", "죽은 인물의 행동"}
    key, category, _, where, quote, source, source_quote = by_subtype["이름 표기"]
    assert category == "사실 세부" and where.startswith("3-2 (#") and "백무신은" in quote
    assert source.startswith("1-1 (#") and "백무진은" in source_quote
    service.dismiss_finding(NAME, key)
    again = h.continuity_report(service, NAME, "3", "3", reviewer=False)
    assert [row[2] for row in h.report_rows(L, again)] == ["죽은 인물의 행동"]
    with pytest.raises(InvalidInputError) as bad:
        h.continuity_report(service, NAME, "셋", "", reviewer=False)
    assert bad.value.key == "error.report.episode"


def test_a_click_on_a_row_opens_the_beat_of_the_words_clicked() -> None:
    row = ["k", "분류", "종류", "3-2 (#17)", "백무신은 ...", "1-1 (#2)", "백무진은 ..."]
    assert h.report_jump(row, 4) == "17" and h.report_jump(row, 0) == "17"
    assert h.report_jump(row, 6) == "2"
    assert h.report_jump(["k", "c", "s", "3-2", "q", "", ""], 3) is None
