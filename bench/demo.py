"""``aizac demo`` with its defaults on the embedded model, per language and seed (issue 30 item 2).

Runs the real command (``aizac demo --out DIR --lang L --seed S``, nothing else set: the README's
offline path) in a child process per run, on a copy of the working tree, and prints per
language: runs that finished (exit 0 with a manuscript) / runs, the language it ran in (a
Korean or Chinese demo on the embedded model says so and runs in English), the median wall time
and its range, model calls per beat (the demo's own count, the plot's calls included), and then
the quality check's refusals (every check of a structured reply on the embedded model,
:class:`aizac.writer.checked.QualityCheck`, counted in the child), and then the first lines
each language's first finished run wrote. Usage::

    python bench/demo.py [--lang ko --lang en --lang zh] [--seeds 5] [--lines 6] [--logs DIR]
    python bench/demo.py --part 0/2 --json runs.jsonl &   # the runs split over two processes
    python bench/demo.py --part 1/2 --json runs.jsonl &   # (at most two at once on 2 cores)
    python bench/demo.py --table runs.jsonl              # one table of every run there

A shared machine slows every run; read completions, calls per beat and the child's CPU seconds
(which load disturbs far less than the wall clock), not the wall seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_STEP = 1000
LANG_SEED = {"en": 0, "ko": 100, "zh": 200}
"""Each language's seeds are its own: a Korean demo on the embedded model runs the English
pipeline, and with the English demo's seeds it would repeat the English runs exactly."""
CALLS = re.compile(r"(\d+) model calls for (\d+) beats")
STOPPED = re.compile(r"^error: (.*)$", re.M)
CHECKS = re.compile(r"^BENCH-CHECKS (.*)$", re.M)
BOOT = """
import atexit, json, sys
sys.path.insert(0, {code!r})
from aizac.writer import checked
counts = {{}}
check = checked.QualityCheck.__call__
def counting(self, value):
    row = counts.setdefault(self.schema, [0, 0])
    row[0] += 1
    try:
        check(self, value)
    except Exception:
        row[1] += 1
        raise
checked.QualityCheck.__call__ = counting
atexit.register(lambda: print("BENCH-CHECKS " + json.dumps(counts), file=sys.stderr))
from aizac.cli import main
main()
"""
"""The child: ``aizac demo`` with every quality check counted ([checked, refused] per schema)."""


@dataclass
class Run:
    lang: str
    seed: int
    finished: bool
    seconds: float
    ran_in: str
    cpu: float = 0.0
    calls: int = 0
    beats: int = 0
    error: str = ""
    lines: list[str] = field(default_factory=list)
    checks: dict[str, list[int]] = field(default_factory=dict)
    log: str = ""


def run_demo(code: Path, lang: str, seed: int, out: Path, beats: int = 0) -> Run:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIZAC_")}
    env["PYTHONPATH"] = str(code)
    boot = BOOT.format(code=str(code))
    argv = ["demo", "--out", str(out), "--lang", lang, "--seed", str(seed)]
    argv += ["--beats", str(beats)] if beats else []
    started = time.perf_counter()
    used = _children_cpu()
    done = subprocess.run([sys.executable, "-c", boot, *argv], env=env, capture_output=True,
                          text=True, check=False, cwd=out.parent)
    seconds = time.perf_counter() - started
    cpu = _children_cpu() - used
    texts = sorted(out.glob("*.txt"))
    finished = done.returncode == 0 and bool(texts)
    projects = out / "aizac-data" / "projects"
    ran_in = "?"
    for project in projects.iterdir() if projects.is_dir() else []:
        ran_in = project_language(project / "project.sqlite3")
    calls = CALLS.search(done.stderr)
    error = STOPPED.search(done.stderr)
    checks = CHECKS.search(done.stderr)
    lines = []
    if texts:
        lines = [ln for ln in texts[0].read_text(encoding="utf-8").splitlines() if ln.strip()]
    return Run(
        lang=lang, seed=seed, finished=finished, seconds=seconds,
        ran_in=ran_in, cpu=cpu,
        calls=int(calls.group(1)) if calls else 0, beats=int(calls.group(2)) if calls else 0,
        error="" if finished else (error.group(1) if error else done.stderr.strip()[-200:])[:200],
        lines=lines, checks=json.loads(checks.group(1)) if checks else {}, log=done.stderr,
    )


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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
    parser.add_argument("--from-seed", type=int, default=0,
                        help="start at this seed index (the runs before it are in a --json file)")
    parser.add_argument("--lines", type=int, default=6)
    parser.add_argument("--beats", type=int, default=0, help="the demo's --beats (0: its own)")
    parser.add_argument("--logs", type=Path, help="keep each run's stderr here")
    parser.add_argument("--part", default="0/1",
                        help="K/M: run every M-th run from the K-th (seed-major order)")
    parser.add_argument("--json", type=Path, help="append every run's record here as it ends")
    parser.add_argument("--table", type=Path, help="only print the table of a --json file")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, lang=["en"], seeds=1, lines=2, beats=1)
    langs = args.lang or ["ko", "en", "zh"]
    if args.table is not None:
        records = [json.loads(ln) for ln in args.table.read_text("utf-8").splitlines() if ln]
        loads = [r.pop("load") for r in records]
        kept = [Run(**r) for r in records]
        langs = [lang for lang in ("ko", "en", "zh") if any(r.lang == lang for r in kept)]
        print_table(args, langs, kept, tuple(loads[0][0]), tuple(loads[-1][1]))
        return
    part, parts = (int(n) for n in args.part.split("/"))
    plan = [(i, lang) for i in range(args.from_seed, args.seeds)
            for lang in langs][part::parts]
    runs: list[Run] = []
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="aizac-demo-bench-") as tmp:
        code = Path(tmp) / "tree"  # a copy: edits made while the bench runs do not leak in
        for folder in ("aizac", "data"):
            shutil.copytree(ROOT / folder, code / folder, symlinks=True)
        for i, lang in plan:
            out = Path(tmp) / f"{lang}-{i}"
            out.mkdir()
            before = os.getloadavg()
            run = run_demo(code, lang, i * SEED_STEP + LANG_SEED[lang], out, args.beats)
            runs.append(run)
            if args.logs is not None:
                args.logs.mkdir(parents=True, exist_ok=True)
                (args.logs / f"{lang}-{run.seed}.log").write_text(run.log, encoding="utf-8")
            if args.json is not None:
                record = {**asdict(run), "log": "", "load": [before, os.getloadavg()]}
                with args.json.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(record, ensure_ascii=False) + "\n")
            print(f"# {lang} seed {run.seed}: {'ok' if run.finished else run.error} "
                  f"({run.seconds:.0f} s, {run.cpu:.0f} s CPU)", file=sys.stderr, flush=True)
    load = os.getloadavg()
    print_table(args, langs, runs, load_start, load)


def print_table(
    args: argparse.Namespace, langs: list[str], runs: list[Run],
    load_start: tuple[float, float, float], load: tuple[float, float, float],
) -> None:
    print(f"`aizac demo --out DIR --lang L --seed S` (defaults otherwise), {len(runs)} runs; "
          f"load {load_start[0]:.1f} at the start, {load[0]:.1f} at the end")
    print(f"{'lang':5}{'finished':>9}{'ran in':>8}{'wall s median':>15}{'(min-max)':>13}"
          f"{'cpu s median':>14}{'(min-max)':>13}{'calls/beat':>12}{'checks refused':>17}")
    for lang in langs:
        mine = [r for r in runs if r.lang == lang]
        done = [r for r in mine if r.finished]
        walls = [r.seconds for r in done] or [float("nan")]
        cpus = [r.cpu for r in done] or [float("nan")]
        per = [r.calls / r.beats for r in done if r.beats]
        ran = ",".join(sorted({r.ran_in for r in mine}))
        print(f"{lang:5}{len(done):>5}/{len(mine):<3}{ran:>8}{statistics.median(walls):>15.0f}"
              f"{f'({min(walls):.0f}-{max(walls):.0f})':>13}"
              f"{statistics.median(cpus):>14.0f}{f'({min(cpus):.0f}-{max(cpus):.0f})':>13}"
              f"{(statistics.median(per) if per else float('nan')):>12.1f}"
              f"{refusals(mine):>17}")
    schemas = sorted({name for r in runs for name in r.checks})
    if schemas:
        print("refused / checked per schema: " + ", ".join(
            f"{name} {sum(r.checks.get(name, [0, 0])[1] for r in runs)}/"
            f"{sum(r.checks.get(name, [0, 0])[0] for r in runs)}" for name in schemas))
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


def refusals(runs: list[Run]) -> str:
    """``refused/checked (rate)`` of the quality check over ``runs``."""
    checked = sum(row[0] for r in runs for row in r.checks.values())
    refused = sum(row[1] for r in runs for row in r.checks.values())
    return f"{refused}/{checked} ({refused / checked:.0%})" if checked else "-"


if __name__ == "__main__":
    main()
