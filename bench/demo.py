"""``aizac demo`` with its defaults on the embedded model, per language and seed (issue 30 item 2).

Runs the real command (``aizac demo --out DIR --lang L --seed S``, nothing else set: the README's
offline path) in a child process per run, on a copy of the working tree, and prints per
language: runs that finished (exit 0 with a manuscript) / runs, the language it ran in (a
Korean or Chinese demo on the embedded model says so and runs in English), the median wall time
and its range, model calls per beat (the demo's own count, the plot's calls included), and then
the first lines each language's first finished run wrote. Usage::

    python bench/demo.py [--lang ko --lang en --lang zh] [--seeds 5] [--lines 6]

A shared machine slows every run; read completions and calls per beat, not the seconds.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_STEP = 1000
LANG_SEED = {"en": 0, "ko": 100, "zh": 200}
"""Each language's seeds are its own: a Korean demo on the embedded model runs the English
pipeline, and with the English demo's seeds it would repeat the English runs exactly."""
CALLS = re.compile(r"(\d+) model calls for (\d+) beats")
STOPPED = re.compile(r"^error: (.*)$", re.M)


@dataclass
class Run:
    lang: str
    seed: int
    finished: bool
    seconds: float
    ran_in: str
    calls: int = 0
    beats: int = 0
    error: str = ""
    lines: list[str] = field(default_factory=list)
    log: str = ""


def run_demo(code: Path, lang: str, seed: int, out: Path) -> Run:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIZAC_")}
    env["PYTHONPATH"] = str(code)
    boot = f"import sys; sys.path.insert(0, {str(code)!r}); from aizac.cli import main; main()"
    argv = ["demo", "--out", str(out), "--lang", lang, "--seed", str(seed)]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", boot, *argv], env=env, capture_output=True,
                          text=True, check=False, cwd=out.parent)
    seconds = time.perf_counter() - started
    texts = sorted(out.glob("*.txt"))
    projects = out / "aizac-data" / "projects"
    ran_in = "?"
    for project in projects.iterdir() if projects.is_dir() else []:
        ran_in = project_language(project / "project.sqlite3")
    calls = CALLS.search(done.stderr)
    error = STOPPED.search(done.stderr)
    lines = []
    if texts:
        lines = [ln for ln in texts[0].read_text(encoding="utf-8").splitlines() if ln.strip()]
    return Run(
        lang=lang, seed=seed, finished=done.returncode == 0 and bool(texts), seconds=seconds,
        ran_in=ran_in,
        calls=int(calls.group(1)) if calls else 0, beats=int(calls.group(2)) if calls else 0,
        error=(error.group(1) if error else done.stderr.strip()[-200:])[:200],
        lines=lines, log=done.stderr,
    )


def project_language(db: Path) -> str:
    """The language a demo project was created in (read from its SQLite file)."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'language'").fetchone()
    return str(row[0]) if row else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lang", action="append", choices=["ko", "en", "zh"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--lines", type=int, default=6)
    parser.add_argument("--logs", type=Path, help="keep each run's stderr here")
    args = parser.parse_args()
    langs = args.lang or ["ko", "en", "zh"]
    runs: list[Run] = []
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="aizac-demo-bench-") as tmp:
        code = Path(tmp) / "tree"  # a copy: edits made while the bench runs do not leak in
        for part in ("aizac", "data"):
            shutil.copytree(ROOT / part, code / part, symlinks=True)
        for i in range(args.seeds):
            for lang in langs:
                out = Path(tmp) / f"{lang}-{i}"
                out.mkdir()
                run = run_demo(code, lang, i * SEED_STEP + LANG_SEED[lang], out)
                runs.append(run)
                if args.logs is not None:
                    args.logs.mkdir(parents=True, exist_ok=True)
                    (args.logs / f"{lang}-{run.seed}.log").write_text(run.log, encoding="utf-8")
                print(f"# {lang} seed {run.seed}: {'ok' if run.finished else run.error} "
                      f"({run.seconds:.0f} s)", file=sys.stderr, flush=True)
    load = os.getloadavg()
    print_table(args, langs, runs, load_start, load)


def print_table(
    args: argparse.Namespace, langs: list[str], runs: list[Run],
    load_start: tuple[float, float, float], load: tuple[float, float, float],
) -> None:
    print(f"`aizac demo --out DIR --lang L --seed S` (defaults otherwise), {args.seeds} seeds; "
          f"load {load_start[0]:.1f} at the start, {load[0]:.1f} at the end")
    print(f"{'lang':5}{'finished':>9}{'ran in':>8}{'wall s median':>15}{'(min-max)':>13}"
          f"{'calls/beat':>12}")
    for lang in langs:
        mine = [r for r in runs if r.lang == lang]
        done = [r for r in mine if r.finished]
        walls = [r.seconds for r in done] or [float("nan")]
        per = [r.calls / r.beats for r in done if r.beats]
        ran = ",".join(sorted({r.ran_in for r in mine}))
        print(f"{lang:5}{len(done):>5}/{len(mine):<3}{ran:>8}{statistics.median(walls):>15.0f}"
              f"{f'({min(walls):.0f}-{max(walls):.0f})':>13}"
              f"{(statistics.median(per) if per else float('nan')):>12.1f}")
    for run in runs:
        if not run.finished:
            print(f"  stopped: {run.lang} seed {run.seed}: {run.error}")
    for lang in langs:
        first = next((r for r in runs if r.lang == lang and r.finished), None)
        if first is None:
            continue
        print(f"\n--- {lang} (seed {first.seed}, ran in {first.ran_in}): first lines")
        for line in first.lines[: args.lines]:
            print(f"  {line[:160]}")


if __name__ == "__main__":
    main()
