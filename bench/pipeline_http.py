"""The pipeline against the loopback OpenAI-compatible server (the real SDK, real HTTP).

Two figures for ``bench/pipeline.py``:

- aizac's own CPU per beat (design + accept + prose) at beat 10 and at beat N (default 200) of
  one long-lived process; the server runs in a child process, so its CPU is not counted;
- HTTP embedding requests per accept (and per design / prose) with ``AIZAC_EMBEDDING=openai:*``
  pointed at the server.

    python bench/pipeline_http.py --beats 200
    python bench/pipeline_http.py --beats 200 --before HEAD~3   # + that commit, side by side

``--before REV`` measures the aizac package of commit REV too (``git archive`` into a temporary
directory, run in a child process with ``--code DIR``) and prints both, with the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
if "--code" in sys.argv:  # measure another checkout's aizac package (before the imports below)
    CODE = str(Path(sys.argv[sys.argv.index("--code") + 1]).resolve())
    sys.path.insert(0, CODE)

from acceptance.openai_server import EMBEDDINGS, OpenAIServer  # noqa: E402
from acceptance.story import KoreanStory  # noqa: E402

from aizac.llm.embeddings import HashingEmbeddings  # noqa: E402
from aizac.settings import Settings  # noqa: E402
from aizac.writer.service import Studio  # noqa: E402


def _studio(base_url: str, data_dir: Path, **settings: Any) -> Studio:
    spec = f"openai-compatible:{base_url}:test-model"
    config = Settings(data_dir=data_dir, language="ko", planner_model=spec, writer_model=spec,
                      extractor_model=spec, **settings)
    embeddings = None if "embedding" in settings else HashingEmbeddings()
    return Studio(config, embeddings=embeddings)


def cpu_per_beat(beats: int, data_dir: Path) -> list[float]:
    """CPU seconds of this process for each beat (design, accept, prose) of one session."""
    from story_server import story_server  # bench/story_server.py

    with story_server() as base_url:
        agent = _studio(base_url, data_dir).create("벤치", "회귀, 복수", language="ko")
        agent.plan()
        cpu: list[float] = []
        for _ in range(beats):
            start = time.process_time()
            draft = agent.next_beat()
            agent.accept(draft.id)
            "".join(agent.write_prose(draft.id))
            cpu.append(time.process_time() - start)
        return cpu


def embedding_requests(beats: int, data_dir: Path) -> dict[str, float]:
    """Mean HTTP embedding requests per design, accept and prose."""
    counts: dict[str, list[int]] = {"design": [], "accept": [], "prose": []}
    with OpenAIServer(KoreanStory()) as server:
        studio = _studio(server.base_url, data_dir, embedding="openai:test-embedding",
                         openai_base_url=server.base_url, openai_api_key="sk-loopback")
        agent = studio.create("임베딩", "회귀, 복수", language="ko")
        agent.plan()

        def seen() -> int:
            return len(server.requests_to(EMBEDDINGS))

        for _ in range(beats):
            n = seen()
            draft = agent.next_beat()
            counts["design"].append(seen() - n)
            n = seen()
            agent.accept(draft.id)
            counts["accept"].append(seen() - n)
            n = seen()
            "".join(agent.write_prose(draft.id))
            counts["prose"].append(seen() - n)
    return {k: statistics.mean(v) for k, v in counts.items()}


def measure(beats: int, embed_beats: int) -> dict[str, Any]:
    """The figures of this process's aizac package (see :func:`report`)."""
    with tempfile.TemporaryDirectory() as d:
        cpu = cpu_per_beat(beats, Path(d) / "cpu")
        embeds = embedding_requests(embed_beats, Path(d) / "embed")
    return {"early": statistics.median(cpu[5:15]), "late": statistics.median(cpu[-10:]),
            "embeds": embeds}


def measure_commit(rev: str, beats: int, embed_beats: int) -> dict[str, Any]:
    """The figures of commit ``rev``'s aizac package, measured in a child process."""
    with tempfile.TemporaryDirectory() as d:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "aizac", "data"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", d], input=archive, check=True)
        out = subprocess.run(
            [sys.executable, __file__, "--code", d, "--beats", str(beats), "--embed-beats",
             str(embed_beats), "--json"], capture_output=True, text=True, check=True,
        ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def side_by_side(rev: str, before: dict[str, Any], after: dict[str, Any], beats: int) -> None:
    print(f"\naizac's own CPU per beat, {rev} vs the working tree (one process each, {beats} "
          "beats, loopback server in a child process; median of 10 beats around each mark)\n")
    print(f"{'beat':<12}{rev[:12]:>14}{'now':>10}")
    print(f"{'10':<12}{before['early']:>14.3f}{after['early']:>10.3f}")
    print(f"{beats:<12}{before['late']:>14.3f}{after['late']:>10.3f}")
    print(f"{'ratio':<12}{before['late'] / before['early']:>14.2f}"
          f"{after['late'] / after['early']:>10.2f}   (goal <= 1.2)")
    print(f"\n{'embedding requests':<20}{rev[:12]:>14}{'now':>10}")
    for step in after["embeds"]:
        print(f"{'  ' + step:<20}{before['embeds'][step]:>14.2f}{after['embeds'][step]:>10.2f}")


def report(beats: int, embed_beats: int) -> None:
    figures = measure(beats, embed_beats)
    early, late, embeds = figures["early"], figures["late"], figures["embeds"]
    print(f"\naizac's own CPU per beat, one process, loopback OpenAI-compatible server in a "
          f"child process ({beats} beats; median of 10 beats around each mark)\n")
    print(f"{'beat':<12}{'cpu s':>10}")
    print(f"{'10':<12}{early:>10.3f}")
    print(f"{beats:<12}{late:>10.3f}")
    print(f"{'ratio':<12}{late / early:>10.2f}   (goal <= 1.2)")
    print(f"\nHTTP embedding requests (AIZAC_EMBEDDING=openai:*, {embed_beats} beats, mean)\n")
    print(f"{'step':<12}{'requests':>10}")
    for step, value in embeds.items():
        print(f"{step:<12}{value:>10.2f}")
    print("(goal: 1 per accept)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--beats", type=int, default=200, help="beats of the CPU run (>= 20)")
    ap.add_argument("--embed-beats", type=int, default=5)
    ap.add_argument("--before", metavar="REV", help="also measure this commit, side by side")
    ap.add_argument("--code", help="measure the aizac package in this directory")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap, beats=6, embed_beats=1)
    beats = max(args.beats, 6 if args.smoke else 20)  # the early mark is beats 6-15
    if args.json:
        print(json.dumps(measure(beats, args.embed_beats)))
    elif args.before:
        before = measure_commit(args.before, beats, args.embed_beats)
        side_by_side(args.before, before, measure(beats, args.embed_beats), beats)
    else:
        report(beats, args.embed_beats)


if __name__ == "__main__":
    main()
