"""The quality check's refusal rate on the embedded model, before and after (issue 30 item 1).

Runs the structured part of the pipeline a first session runs (plan the plot, design and accept
``--beats`` beats: each acceptance extracts memories and a summary) on the real embedded model
(SmolLM2-135M via xllamacpp), per language and seed, once with the code at ``--before REV``
(``git archive`` into a temporary folder) and once with the working tree, alternating, each in a
child process of its own. Every call of the quality check (:class:`aizac.writer.checked.
QualityCheck`) is counted, and whether it refused the reply.

Printed per tree and language: runs that completed / runs, checked replies, refused, the refusal
rate, structured calls that gave up (refused or invalid to the end), model calls per beat and the
median wall time of a run; then the refusal rate per schema. The seed is set on the embedded
model (``AIZAC_SEED`` after; the model's field before, which had no setting), so seeds vary the
first attempt of every call alike in both trees. Usage::

    python bench/grammar_quality.py [--before 2fbd7af] [--lang en --lang ko] [--seeds 5]
        [--json runs.jsonl]           # every run's record, appended as it ends
    python bench/grammar_quality.py --table runs.jsonl   # the table of those runs

A shared machine slows both trees alike; read the rates and completions, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEMOS = {
    "en": ("regression, revenge", "modern fantasy"),
    "ko": ("회귀, 복수", "현대판타지"),
    "zh": ("重生, 复仇", "现代奇幻"),
}
SEED_STEP = 1000
"""Seeds of the runs are this far apart: a call's retry sends seed + attempt."""


def child(lang: str, seed: int, beats: int) -> dict[str, Any]:
    """One run in this process (the tree under test is first on ``sys.path``)."""
    from aizac.errors import AizacError
    from aizac.llm.providers import local
    from aizac.settings import Settings, load_settings
    from aizac.writer import checked
    from aizac.writer.service import Studio

    stats: dict[str, dict[str, int]] = defaultdict(lambda: {"checked": 0, "refused": 0})
    original = checked.QualityCheck.__call__

    def counting(self: Any, value: Any) -> None:
        row = stats[self.schema]
        row["checked"] += 1
        try:
            original(self, value)
        except Exception:
            row["refused"] += 1
            raise

    checked.QualityCheck.__call__ = counting  # type: ignore[method-assign]
    build = local.build_local

    def seeded(*args: Any) -> Any:
        model = build(*args)
        model.seed = seed  # the tree before had no seed setting
        return model

    local.build_local = seeded  # type: ignore[assignment]
    keywords, genre = DEMOS[lang]
    started = time.perf_counter()
    error, done = "", 0
    with tempfile.TemporaryDirectory() as tmp:
        extra = {"seed": seed} if "seed" in Settings.model_fields else {}
        settings = load_settings(data_dir=Path(tmp), local_max_tokens=1536, **extra)
        studio = Studio(settings, beats_per_episode=beats)
        try:
            agent = studio.create(f"bench-{lang}", keywords, genre=genre, language=lang)
            agent.plan()
            for _ in range(beats):
                draft = agent.next_beat()
                agent.accept(draft.id)
                done += 1
        except AizacError as e:
            error = str(e)[:160]
        usage = studio.router.usage
        calls = {role: usage.totals(role).calls for role in ("planner", "extractor")}
    return {
        "lang": lang,
        "seed": seed,
        "completed": not error,
        "beats": done,
        "error": error,
        "seconds": time.perf_counter() - started,
        "calls": calls,
        "schemas": dict(stats),
    }


def run_child(code_dir: Path, lang: str, seed: int, beats: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIZAC_")}
    env["PYTHONPATH"] = str(code_dir)
    code = (
        f"import sys, json; sys.path.insert(0, {str(code_dir)!r}); "
        f"sys.path.insert(0, {str(ROOT / 'bench')!r})\n"
        "import grammar_quality as g\n"
        f"print('RESULT', json.dumps(g.child({lang!r}, {seed}, {beats})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, Any] = json.loads(line[7:])
            return result
    raise RuntimeError(f"the child failed:\n{done.stderr[-2000:]}")


def summarise(results: list[dict[str, Any]], beats: int) -> dict[str, Any]:
    checked = sum(s["checked"] for r in results for s in r["schemas"].values())
    refused = sum(s["refused"] for r in results for s in r["schemas"].values())
    calls = sum(sum(r["calls"].values()) for r in results)
    beats_done = sum(r["beats"] for r in results)
    return {
        "ok": sum(r["completed"] for r in results),
        "runs": len(results),
        "checked": checked,
        "refused": refused,
        "rate": refused / checked if checked else 0.0,
        "gave_up": sum(not r["completed"] for r in results),
        "calls_per_beat": calls / max(beats_done, 1),
        "beats": f"{beats_done}/{beats * len(results)}",
        "wall": statistics.median(r["seconds"] for r in results),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--before", default="2fbd7af", help='"": the working tree alone')
    parser.add_argument("--lang", action="append", choices=sorted(DEMOS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--beats", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also append every run's record here")
    parser.add_argument("--table", type=Path, help="only print the table of a --json file")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, before="", lang=["en"], seeds=1, beats=1)
    langs = args.lang or ["en", "ko", "zh"]
    if args.table is not None:
        results = from_lines(args.table)
        args.seeds = max(len(v) for v in results.values())
        print_table(args, [x for x in langs if any(k[1] == x for k in results)], results)
        return
    results: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="aizac-grammar-") as tmp:
        trees: dict[str, Path] = {}
        if args.before:  # "": the working tree alone
            trees["before"] = Path(tmp) / "before"
            trees["before"].mkdir()
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", args.before, "aizac", "data"],
                check=True, capture_output=True,
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(trees["before"])], input=archive, check=True)
        trees["after"] = Path(tmp) / "after"  # a copy: edits made while the bench runs stay out
        for part in ("aizac", "data"):
            shutil.copytree(ROOT / part, trees["after"] / part, symlinks=True)
        for i in range(args.seeds):  # seed by seed, so a run cut short covers every language
            for lang in langs:
                for label, code in trees.items():
                    got = run_child(code, lang, i * SEED_STEP, args.beats)
                    results[(label, lang)].append(got)
                    print(f"# {label} {lang} seed {got['seed']}: "
                          f"{'ok' if got['completed'] else got['error']} "
                          f"({got['seconds']:.0f} s)", file=sys.stderr, flush=True)
                    if args.json:  # one line per run, as it ends
                        with args.json.open("a", encoding="utf-8") as out:
                            out.write(json.dumps({"tree": label, **got}, ensure_ascii=False)
                                      + "\n")
    print_table(args, langs, results)


def from_lines(path: Path) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The runs a ``--json`` file recorded (``--table``: print the table of a cut run)."""
    results: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            results[(row.pop("tree"), row["lang"])].append(row)
    return results


def print_table(
    args: argparse.Namespace, langs: list[str], results: dict[tuple[str, str], list[Any]]
) -> None:
    print(f"before = {args.before}, after = working tree; {args.seeds} seeds x plot + "
          f"{args.beats} accepted beats per run; load {os.getloadavg()[0]:.1f}")
    print(f"{'tree':7}{'lang':5}{'runs ok':>8}{'checked':>9}{'refused':>9}{'rate':>7}"
          f"{'gave up':>9}{'beats':>7}{'calls/beat':>11}{'wall s':>8}")
    for lang in langs:
        for label in ("before", "after"):
            if not results.get((label, lang)):
                continue
            s = summarise(results[(label, lang)], args.beats)
            print(f"{label:7}{lang:5}{s['ok']:>4}/{s['runs']:<3}{s['checked']:>9}"
                  f"{s['refused']:>9}{s['rate']:>7.2f}{s['gave_up']:>9}{s['beats']:>7}"
                  f"{s['calls_per_beat']:>11.1f}{s['wall']:>8.0f}")
    print("\nrefusal rate per schema (refused / checked):")
    for lang in langs:
        for label in ("before", "after"):
            per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for r in results.get((label, lang), []):
                for schema, s in r["schemas"].items():
                    per[schema][0] += s["refused"]
                    per[schema][1] += s["checked"]
            cells = ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(per.items()))
            print(f"  {label:7}{lang:4} {cells}")
    print("\nwhy runs stopped:")
    for (label, lang), rs in results.items():
        for r in rs:
            if not r["completed"]:
                print(f"  {label} {lang} seed {r['seed']}: {r['error']}")


if __name__ == "__main__":
    main()
