"""An exported EPUB reads back as the same serial through the manuscript import, and neither
way loads EbookLib (AGPL-3.0, which an Apache-2.0 program cannot ship)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from aizac.export.files import write_export
from aizac.export.manuscript import EpisodeText, Figure, Manuscript
from aizac.manuscript.preview import preview

PARA = "서연은 검을 거두고 북문을 향해 천천히 걸었다. 바람이 차가웠고 하늘은 낮게 내려앉아 있었다."


def _serial() -> Manuscript:
    scene = Figure("img-scene0001.png", "image/png", b"\x89PNG\r\n\x1a\n", "새벽", before=1)
    cover = Figure("img-cover0001.png", "image/png", b"\x89PNG\r\n\x1a\n", "표지")
    episodes = [
        EpisodeText(n, title, "\n\n".join(f"{n}화의 {k}번째 문단. {PARA}" for k in range(1, 6)),
                    [scene] if n == 2 else [])
        for n, title in ((1, "귀환"), (2, ""), (3, "재회 & 이별"), (4, "끝"))
    ]
    return Manuscript("달빛 검객", "김작가", "ko", episodes, cover=cover)


def test_an_exported_epub_previews_as_the_same_episodes(tmp_path: Path) -> None:
    book = _serial()
    path = write_export(book, "epub", tmp_path, modified=datetime(2026, 1, 2, tzinfo=UTC))
    seen = preview([path])
    assert [e.number for e in seen.episodes] == [1, 2, 3, 4]
    assert [e.title for e in seen.episodes] == ["귀환", "", "재회 & 이별", "끝"]
    assert [e.paragraphs for e in seen.episodes] == [5, 5, 5, 5]
    assert seen.episodes[2].first_line.startswith("3화의 1번째 문단.")


def test_writing_and_reading_an_epub_load_no_ebooklib(tmp_path: Path) -> None:
    code = (
        "import json, sys\nfrom pathlib import Path\n"
        "from aizac.export.files import write_export\n"
        "from aizac.manuscript.formats import read_file\n"
        "from aizac.export.manuscript import EpisodeText, Manuscript\n"
        "book = Manuscript('t', '', 'ko', [EpisodeText(1, '', '본문.')])\n"
        f"read_file(write_export(book, 'epub', Path({str(tmp_path)!r})))\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "lxml" in loaded and "ebooklib" not in loaded


def test_an_exported_word_document_previews_as_the_same_episodes(tmp_path: Path) -> None:
    """The book's title (Word's Title style) and author (Subtitle) are front matter, not an
    episode: only the Heading 1 paragraphs start one."""
    path = write_export(_serial(), "docx", tmp_path)
    seen = preview([path])
    assert [e.number for e in seen.episodes] == [1, 2, 3, 4]
    assert [e.title for e in seen.episodes] == ["귀환", "", "재회 & 이별", "끝"]
    assert [e.paragraphs for e in seen.episodes] == [5, 5, 5, 5]
