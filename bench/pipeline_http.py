"""The pipeline against the loopback OpenAI-compatible server (the real SDK, real HTTP).

Two figures for ``bench/pipeline.py``:

- aizac's own CPU per beat (design + accept + prose) at beat 10 and at beat N (default 200) of
  one long-lived process; the server runs in a child process, so its CPU is not counted;
- HTTP embedding requests per accept (and per design / prose) with ``AIZAC_EMBEDDING=openai:*``
  pointed at the server.

    python bench/pipeline_http.py --beats 200
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from acceptance.openai_server import EMBEDDINGS, OpenAIServer  # noqa: E402
from acceptance.story import KoreanStory  # noqa: E402

from aizac.llm.embeddings import HashingEmbeddings  # noqa: E402
from aizac.settings import Settings  # noqa: E402
from aizac.writer.service import Studio  # noqa: E402

SERVE = (
    "import sys; sys.path[:0] = [{root!r}, {tests!r}]\n"
    "from acceptance.openai_server import OpenAIServer\n"
    "from acceptance.story import KoreanStory\n"
    "server = OpenAIServer(KoreanStory()).start()\n"
    "print(server.base_url, flush=True)\n"
    "sys.stdin.read()\n"
)


def _studio(base_url: str, data_dir: Path, **settings: Any) -> Studio:
    spec = f"openai-compatible:{base_url}:test-model"
    config = Settings(data_dir=data_dir, language="ko", planner_model=spec, writer_model=spec,
                      extractor_model=spec, **settings)
    embeddings = None if "embedding" in settings else HashingEmbeddings()
    return Studio(config, embeddings=embeddings)


def cpu_per_beat(beats: int, data_dir: Path) -> list[float]:
    """CPU seconds of this process for each beat (design, accept, prose) of one session."""
    server = subprocess.Popen(
        [sys.executable, "-c", SERVE.format(root=str(ROOT), tests=str(ROOT / "tests"))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
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
    finally:
        if server.stdin is not None:
            server.stdin.close()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


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


def report(beats: int, embed_beats: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        cpu = cpu_per_beat(beats, Path(d) / "cpu")
        embeds = embedding_requests(embed_beats, Path(d) / "embed")
    early = statistics.median(cpu[5:15])
    late = statistics.median(cpu[-10:])
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
    args = ap.parse_args()
    report(max(args.beats, 20), args.embed_beats)


if __name__ == "__main__":
    main()
