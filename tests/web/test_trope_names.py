"""Issue 23 item 7: 클리셰 추천 on a Korean page named each trope by its id
(``chaebol-regression``); every trope of the database has a name in each interface language."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from aizac.application.service import ApplicationService
from aizac.web import handlers as h

BEATS = Path(h.__file__).resolve().parents[1] / "cliches" / "beats.csv"


def test_every_trope_of_the_database_has_a_name_in_korean_and_chinese() -> None:
    with BEATS.open(encoding="utf-8") as f:
        tropes = {row["trope"] for row in csv.DictReader(f)}
    for language, script in (("ko", r"[가-힣]"), ("zh", r"[一-龥]")):
        names = {t: h.trope_name(t, language) for t in tropes}
        assert all(re.search(script, n) and not re.search(r"[A-Za-z]", n)
                   for n in names.values()), {t: n for t, n in names.items()
                                              if re.search(r"[A-Za-z]", n)}
    assert h.trope_name("chaebol-regression", "en") == "chaebol regression"


@pytest.mark.parametrize("language", ["ko", "zh"])
def test_suggestions_name_their_tropes_in_the_interface_language(
    service: ApplicationService, language: str
) -> None:
    name = h.create_project(service, "dawn", "fantasy", "regression, revenge", "en")
    h.generate_plot(service, name)
    view = h.next_beat(service, name)
    hits = h.suggest(service, name, view.beat_id, language)
    assert hits and not any(re.search(r"[A-Za-z]", s.trope) for s in hits), hits
    assert not any("-" in s.markdown.split("**")[1] for s in hits)
