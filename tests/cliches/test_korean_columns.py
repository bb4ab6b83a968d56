"""The database speaks Korean: every beat carries Korean text of its own, and Korean projects
get it (prompt rendering, suggestions); unrelated tropes are not offered."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aizac.cliches import (
    KO_COLUMNS,
    BeatRow,
    ClicheDB,
    load_beats,
    relevant_arcs,
    relevant_hits,
    render_tropes_for_prompt,
)
from aizac.errors import InvalidInputError
from aizac.writer.prompt_words import prompt_words

from .conftest import row_dict, write_csv

HANGUL = re.compile(r"[\uac00-\ud7af]")
LATIN_WORD = re.compile(r"[A-Za-z]+")
ACRONYM = re.compile(r"^[A-Z]{1,6}$")  # F급, SSS급, VIP, NPC, IMF: how Korean writers spell them


def test_every_beat_has_korean_text_in_every_text_column(rows: list[BeatRow]) -> None:
    for row in rows:
        assert row.has_korean, row.id
        for column in KO_COLUMNS:
            value = getattr(row, column)
            text = value if isinstance(value, str) else " ".join(value)
            assert HANGUL.search(text), f"{row.id}.{column}"
            # Korean prose, not English left in place: Latin only as acronyms (F급, VIP, NPC).
            assert all(ACRONYM.match(w) for w in LATIN_WORD.findall(text)), f"{row.id}.{column}"


def test_korean_text_is_varied_and_written_for_each_row(rows: list[BeatRow]) -> None:
    for column in ("summary_ko", "hook_ko"):
        values = [getattr(r, column) for r in rows]
        assert len(set(values)) == len(values), f"repeated {column}"
    assert len({r.event_ko for r in rows}) > 0.8 * len(rows)
    assert min(len(r.summary_ko) for r in rows) >= 15
    # The role lists are as long as the English ones (same cast, named in Korean).
    assert all(len(r.roles_ko) == len(r.roles) for r in rows)


def test_korean_staple_tropes_exist(rows: list[BeatRow]) -> None:
    tropes = {r.trope for r in rows}
    for trope in ("munchkin-sida", "game-world-possession", "imperial-harem-intrigue",
                  "trash-noble-regression"):
        assert trope in tropes


def test_localized_reads_korean_for_ko_and_english_otherwise(rows: list[BeatRow]) -> None:
    row = rows[0]
    ko = row.localized("ko")
    assert ko.summary == row.summary_ko and ko.hook == row.hook_ko and ko.roles == row.roles_ko
    assert row.localized("en") is row
    assert row.localized("zh") is row  # no Chinese columns: English


def test_korean_render_has_korean_labels_and_no_english(db: ClicheDB) -> None:
    arcs = db.expand_keywords(["회귀", "복수", "재벌"], 2)
    ko = prompt_words("ko")  # the prompt language's words, as the writer passes them
    text = render_tropes_for_prompt(arcs, max_tokens=100_000, language="ko", labels=ko.cliches,
                                    stages=ko.stages)
    assert "[발단]" in text and "갈등:" in text
    assert "exposition" not in text and "conflict:" not in text
    assert all(ACRONYM.match(w) for w in LATIN_WORD.findall(text)), LATIN_WORD.findall(text)
    english = render_tropes_for_prompt(arcs, max_tokens=100_000)
    assert "[exposition]" in english and arcs[0].beats[0].summary in english


def test_zh_render_labels_chinese_around_english_text(db: ClicheDB) -> None:
    arcs = db.expand_keywords(["regression", "revenge"], 1)
    zh = prompt_words("zh")
    text = render_tropes_for_prompt(arcs, max_tokens=100_000, language="zh", labels=zh.cliches,
                                    stages=zh.stages)
    assert "[开端]" in text and "冲突：" in text and arcs[0].beats[0].summary in text


def test_csv_without_korean_columns_still_loads(tmp_path: Path, rows: list[BeatRow]) -> None:
    loaded = load_beats(write_csv(tmp_path / "en.csv", [row_dict(r) for r in rows[:12]]))
    assert loaded[0].summary_ko == "" and loaded[0].localized("ko").summary == rows[0].summary


def test_a_korean_cell_without_hangul_is_refused(tmp_path: Path, rows: list[BeatRow]) -> None:
    data = [{**row_dict(r), "summary_ko": "English text"} for r in rows[:1]]
    with pytest.raises(InvalidInputError, match="summary_ko"):
        load_beats(write_csv(tmp_path / "bad.csv", data, [*row_dict(rows[0]), "summary_ko"]))


def test_unrelated_keywords_get_no_tropes_related_ones_do(db: ClicheDB) -> None:
    assert relevant_arcs(db.expand_keywords(["修仙", "宗门", "飞升"], 3)) == []
    assert relevant_arcs(db.expand_keywords(["quantum", "bakery"], 3)) == []
    found = relevant_arcs(db.expand_keywords(["회귀", "복수", "재벌"], 3))
    assert found and "chaebol-regression" in {a.trope for a in found}
    hunter = relevant_arcs(db.expand_keywords(["헌터", "게이트", "상태창"], 3))
    assert {a.trope for a in hunter} & {"hunter-gate-awakening", "status-window-levelup"}


def test_next_beat_suggestions_need_a_minimum_relevance(db: ClicheDB) -> None:
    hits = db.suggest_next("그는 회귀한 뒤 배신자의 연회에 참석해 순진한 척 웃었다.", "development")
    assert relevant_hits(hits, "ko")
    villainess = db.suggest_next("악녀로 빙의한 그녀가 황태자에게 파혼을 요청한다", "exposition")
    assert relevant_hits(villainess, "ko")[0].trope == "villainess-possession"
    unrelated = db.suggest_next("진도준이 할아버지 앞에서 주가 폭락을 예언한다", "development")
    assert unrelated[0].trope == "villainess-possession"  # the nearest, but unrelated
    assert relevant_hits(unrelated, "ko") == []
    chinese = db.suggest_next("星际舰队在银河边缘建立了新的殖民地。", "development")
    assert relevant_hits(chinese, "zh") == []
    english = db.suggest_next("A spaceship lands in a field.", "development")
    assert {h.trope for h in relevant_hits(english, "en")} == {"first-contact"}



def test_a_korean_project_sees_relevant_korean_clichés_only(db: ClicheDB) -> None:
    from aizac.cliches import ProjectCliches
    from aizac.writer.tropes import plot_tropes, suggestion_lines

    ko = ProjectCliches(db, "ko")
    arcs = ko.expand_keywords(["회귀", "복수", "재벌"], 3)
    assert arcs and arcs[0].beats[0].summary == arcs[0].beats[0].summary_ko
    text = plot_tropes(ko, ["회귀", "복수", "재벌"], "현대 판타지", max_tokens=450)
    assert "[발단]" in text and "exposition" not in text
    assert plot_tropes(ProjectCliches(db, "zh"), ["重生", "复仇", "豪门"], "", max_tokens=450) == ""
    hints = suggestion_lines(ko, "악녀로 빙의한 그녀가 황태자에게 파혼을 요청한다", "exposition")
    assert HANGUL.search(hints) and not re.search(r"[a-z]{4,}", hints)
    unrelated = "진도준이 할아버지 앞에서 주가 폭락을 예언한다"
    assert suggestion_lines(ko, unrelated, "development") == "-"
    assert ko.tropes() == db.tropes()  # everything else passes through
