"""The packaged beats.csv is complete, valid and varied (a writer reads these suggestions)."""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from importlib import resources
from pathlib import Path

from aizac.cliches import COLUMNS, KO_COLUMNS, STAGES, BeatRow

REPO = Path(__file__).resolve().parents[2]
HANGUL = re.compile(r"[\uac00-\ud7af]")
LATIN = re.compile(r"[A-Za-z]")


def test_size_and_unique_ids(rows: list[BeatRow]) -> None:
    assert len(rows) >= 500
    assert len({r.trope for r in rows}) >= 40
    assert len({r.genre for r in rows}) >= 10
    ids = [r.id for r in rows]
    assert len(ids) == len(set(ids))
    assert all(r.id.startswith(r.trope + "-") for r in rows)


def test_every_trope_runs_through_all_five_stages_in_order(rows: list[BeatRow]) -> None:
    by_trope: dict[str, list[BeatRow]] = defaultdict(list)
    for r in rows:
        by_trope[r.trope].append(r)
    for trope, beats in by_trope.items():
        assert [b.order for b in beats] == list(range(1, len(beats) + 1)), trope
        stages = [b.stage for b in beats]
        assert set(stages) == set(STAGES), trope
        assert [STAGES.index(s) for s in stages] == sorted(STAGES.index(s) for s in stages), trope
        assert len(beats) >= 10, trope
        assert len({b.genre for b in beats}) == 1, trope


def test_raw_cells_are_filled_and_keywords_bilingual() -> None:
    path = REPO / "data" / "beats.csv"
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == COLUMNS + KO_COLUMNS
        for line, raw in enumerate(reader, start=2):
            for column in COLUMNS + KO_COLUMNS:
                assert raw[column].strip(), f"row {line}: empty {column}"
            words = raw["keywords"].split(";")
            assert any(HANGUL.search(w) for w in words), f"row {line}: no Korean keyword"
            assert any(LATIN.search(w) for w in words), f"row {line}: no English keyword"
            assert "," not in raw["keywords"], f"row {line}: keywords use ';' not ','"


def test_content_is_varied_not_templated(rows: list[BeatRow]) -> None:
    for field in ("summary", "hook"):
        values = [getattr(r, field) for r in rows]
        assert len(set(values)) == len(values), f"repeated {field}"
    assert len({r.event for r in rows}) > 0.8 * len(rows)
    assert len({r.location for r in rows}) > 0.7 * len(rows)
    assert min(len(r.summary.split()) for r in rows) >= 8


def test_covers_korean_web_novel_staples_and_general_genres(rows: list[BeatRow]) -> None:
    keywords = {k for r in rows for k in r.keywords}
    staples = (
        "회귀 빙의 환생 헌터 게이트 상태창 아카데미 악녀 계약결혼 복수 무협 탑 재벌 로판 "
        "아이돌 성좌 아포칼립스 던전 힐링 일상 먼치킨 사이다 후궁 궁중 암투 망나니 랭커 "
        "튜토리얼 레벨업 시스템 재벌집 회빙환"
    )
    assert not [w for w in staples.split() if w not in keywords]
    genres = Counter(r.genre for r in rows)
    for genre in ("mystery", "thriller", "sci-fi", "horror", "crime", "sports", "romance"):
        assert genres[genre] >= 12, genre
    assert "coming-of-age" in genres


def test_packaged_csv_is_the_canonical_file() -> None:
    packaged = resources.files("aizac.cliches").joinpath("beats.csv").read_bytes()
    assert packaged == (REPO / "data" / "beats.csv").read_bytes()
    link = REPO / "aizac" / "cliches" / "beats.csv"
    if link.is_symlink():  # a checkout: the package data is a relative link to data/
        assert Path(link.readlink()) == Path("../../data/beats.csv")
