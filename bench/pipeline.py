"""Writer pipeline benchmark: calls and wall time per beat, serial vs concurrent extraction,
and prompt tokens per beat at episode 1 vs episode N of a synthetic serial.

Models are fakes that sleep a fixed latency per call (so the figures measure the pipeline, not a
model); memory, retrieval, the cliché database and SQLite are the real ones.

    python bench/pipeline.py                  # 50 ms per call, 5 beats, a 100-episode serial
    python bench/pipeline.py --latency 0.2 --beats 3 --episodes 50
    python bench/pipeline.py --http-beats 200   # + CPU per beat and embedding requests over HTTP

With ``--http-beats N`` it also runs :mod:`bench.pipeline_http` against the loopback
OpenAI-compatible server: aizac's own CPU per beat at beat 10 vs beat N (goal <= 1.2x) and HTTP
embedding requests per accept (goal 1).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.router import ModelRouter
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.tokens import count_tokens
from aizac.writer.agent import WriterAgent
from aizac.writer.project import ProjectStore

CAST = ["Kang Jun", "Seo Yuna", "Baek Ho", "Min Seri", "Cha Doyun"]
EXTRAS = [f"Extra {i}" for i in range(1, 40)]
KINDS = {
    "Design the novel": "plot",
    "Design one beat": "beat",
    "Write this beat as prose": "prose",
    "plot events later episodes": "extract_Story",
    "changes of a character": "extract_Character",
    "relationships as they stand": "extract_CharacterRelation",
    "places, objects, organisations": "extract_NovelSetting",
    "Summarize what happened": "summary",
    "Create a profile for": "character",
}


class Serial:
    """Deterministic synthetic replies: each beat brings two cast members, sometimes a new
    extra, a story event, a state change, a relation update and a world fact."""

    def __init__(self) -> None:
        self.beat = 0

    def reply(self, kind: str, prompt: str) -> str:
        n = self.beat
        a, b = CAST[n % len(CAST)], CAST[(n + 2) % len(CAST)]
        people = [a, b] + ([EXTRAS[n // 3]] if n % 3 == 0 and n // 3 < len(EXTRAS) else [])
        if kind == "plot":
            acts = [{"stage": s, "goal": f"{s} goal", "episodes": 10,
                     "key_events": [f"{s} event {i}" for i in (1, 2)]}
                    for s in ("exposition", "development", "crisis", "climax", "resolution")]
            return json.dumps({
                "title": "Bench Serial", "logline": "A synthetic serial.", "genre": "fantasy",
                "keywords": ["regression"], "acts": acts,
                "characters": [{"name": c, "role": "lead", "profile": f"{c} profile."}
                               for c in CAST],
                "settings": [{"name": "Gate", "description": "Portals."}],
            })
        if kind == "beat":
            self.beat += 1
            return json.dumps({
                "location": f"place {n % 7}", "time": f"day {n}", "characters": people,
                "events": [f"{a} and {b} face trial {n}"],
                "dialogue": [{"speaker": a, "line": f"Line {n}."}], "emotions": ["tension"],
                "conflicts": [f"conflict {n}"], "sets_up": [f"hint {n}"], "pays_off": [],
            })
        if kind == "character":
            name = re.search(r"appears: (.+)", prompt)
            return json.dumps({"name": name.group(1).strip() if name else "X", "aliases": [],
                               "role": "extra", "profile": "Someone.", "goal": "To live."})
        if kind == "extract_Story":
            return json.dumps({"facts": [{"text": f"Event {n}: {a} met {b}.", "keyword": "ev",
                                          "foreshadow": n % 10 == 0}]})
        # cast members by the ids the prompt lists (``c1 Kang Jun``), as the store asks
        listed = {m.group(2).split(" (", 1)[0].strip(): m.group(1)
                  for m in re.finditer(r"^\s*(c\d+) (.+)$", prompt, re.MULTILINE)}
        if kind == "extract_Character":
            who = {"who": listed[a]} if a in listed else {"who": "new", "name": a}
            return json.dumps({"facts": [{**who, "aspect": "condition",
                                          "text": f"{a} state {n}."}]})
        if kind == "extract_CharacterRelation":
            return json.dumps({"facts": [{"a": listed.get(a, "new"), "b": listed.get(b, "new"),
                                          "text": f"{a} and {b} stand at {n}."}]})
        if kind == "extract_NovelSetting":
            return json.dumps({"facts": [{"keyword": f"k{n}", "text": f"World fact {n}."}]})
        if kind == "summary":
            return json.dumps({"summary": f"Beat {n}: {a} and {b} faced trial {n}."})
        return "Prose. " * 40


class SleepyChatModel(BaseChatModel):
    """A fake chat model that sleeps ``latency`` seconds per call and records prompts."""

    serial: Any
    latency: float = 0.05
    calls: list[tuple[str, int]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "sleepy-fake"

    def _answer(self, messages: list[BaseMessage]) -> str:
        text = "\n".join(str(m.content) for m in messages)
        kind = next((k for marker, k in KINDS.items() if marker in text), "unknown")
        self.calls.append((kind, count_tokens(text)))
        return str(self.serial.reply(kind, text))

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        time.sleep(self.latency)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self._answer(messages)))])

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None,
                         run_manager: Any = None, **kwargs: Any) -> ChatResult:
        await asyncio.sleep(self.latency)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self._answer(messages)))])


def build(tmp: Path, latency: float, concurrent: bool, beats_per_episode: int,
          cliches: ClicheDB) -> tuple[WriterAgent, dict[str, SleepyChatModel]]:
    settings = Settings(data_dir=tmp, language="en")
    serial = Serial()
    models = {r: SleepyChatModel(serial=serial, latency=latency, calls=[])
              for r in ("planner", "extractor", "writer")}
    name = f"p{len(list(tmp.iterdir())) if tmp.exists() else 0}"
    store = ProjectStore.create(tmp / "projects", name, language="en", keywords=["regression"])
    memory = WriterMemory(None, embeddings=HashingEmbeddings(), settings=settings)
    router = ModelRouter(settings, models=dict(models))
    agent = WriterAgent(store, memory, router, cliches, settings=settings,
                        beats_per_episode=beats_per_episode, concurrent_extraction=concurrent)
    return agent, models


def per_beat(tmp: Path, latency: float, beats: int, concurrent: bool,
             cliches: ClicheDB) -> dict[str, Any]:
    agent, models = build(tmp, latency, concurrent, beats, cliches)
    agent.plan()
    for m in models.values():
        m.calls.clear()
    times: dict[str, list[float]] = {"design": [], "accept": [], "prose": []}
    for _ in range(beats):
        t = time.perf_counter()
        draft = agent.next_beat()
        times["design"].append(time.perf_counter() - t)
        t = time.perf_counter()
        agent.accept(draft.id)
        times["accept"].append(time.perf_counter() - t)
        t = time.perf_counter()
        "".join(agent.write_prose(draft.id))
        times["prose"].append(time.perf_counter() - t)
    calls = {r: Counter(k for k, _ in m.calls) for r, m in models.items()}
    return {"times": {k: statistics.median(v) for k, v in times.items()}, "calls": calls}


def serial_tokens(tmp: Path, episodes: int, cliches: ClicheDB) -> dict[str, dict[int, int]]:
    agent, models = build(tmp, 0.0, True, 1, cliches)
    agent.plan()
    out: dict[str, dict[int, int]] = {"beat": {}, "prose": {}, "all-summaries": {}}
    summaries: list[str] = []
    for ep in range(1, episodes + 1):
        models["planner"].calls.clear()
        models["writer"].calls.clear()
        draft = agent.next_beat()
        record = agent.accept(draft.id)
        "".join(agent.write_prose(draft.id))
        summaries.append(record.summary)
        out["beat"][ep] = sum(t for k, t in models["planner"].calls if k == "beat")
        out["prose"][ep] = sum(t for k, t in models["writer"].calls if k == "prose")
        out["all-summaries"][ep] = count_tokens("\n".join(summaries))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.05, help="seconds per fake model call")
    ap.add_argument("--beats", type=int, default=5)
    ap.add_argument("--episodes", type=int, default=100)
    ap.add_argument("--http-beats", type=int, default=0,
                    help="also measure CPU per beat over HTTP up to this beat (e.g. 200)")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap, latency=0.0, beats=2, episodes=3)
    cliches = ClicheDB(embeddings=HashingEmbeddings())
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        conc = per_beat(tmp / "c", args.latency, args.beats, True, cliches)
        ser = per_beat(tmp / "s", args.latency, args.beats, False, cliches)
        toks = serial_tokens(tmp / "t", args.episodes, cliches)

    beats = args.beats
    print(f"\nwriter pipeline, fake models sleeping {args.latency * 1000:.0f} ms per call, "
          f"{beats} beats (medians per beat)\n")
    print(f"{'step':<26}{'planner':>8}{'extractor':>10}{'writer':>8}{'wall s':>10}")
    c = conc["calls"]
    rows = [
        ("design beat", c["planner"]["beat"] + c["planner"]["character"], 0, 0,
         conc["times"]["design"]),
        ("accept (concurrent)", 0, sum(c["extractor"].values()), 0, conc["times"]["accept"]),
        ("accept (serial)", 0, sum(ser["calls"]["extractor"].values()), 0,
         ser["times"]["accept"]),
        ("write prose", 0, 0, c["writer"]["prose"], conc["times"]["prose"]),
    ]
    for name, p, e, w, s in rows:
        print(f"{name:<26}{p / beats:>8.1f}{e / beats:>10.1f}{w / beats:>8.1f}{s:>10.3f}")
    total = conc["times"]["design"] + conc["times"]["accept"] + conc["times"]["prose"]
    print(f"{'whole beat (concurrent)':<26}{'':>26}{total:>10.3f}")
    ratio = conc["times"]["accept"] / ser["times"]["accept"]
    print(f"\nconcurrent / serial extraction wall time: {ratio:.2f} (target <= 0.5)")

    last = args.episodes
    marks = sorted({1, max(1, last // 5), max(1, last // 2), last})
    print(f"\nprompt tokens per beat, synthetic serial (1 beat per episode, {last} episodes; "
          "context-pack budget 900)\n")
    print(f"{'prompt':<26}" + "".join(f"{f'ep {m}':>9}" for m in marks) + f"{'last/1st':>10}")
    for name in ("beat", "prose", "all-summaries"):
        label = "all summaries (baseline)" if name == "all-summaries" else f"{name} prompt"
        row = [toks[name][m] for m in marks]
        growth = row[-1] / max(row[0], 1)
        print(f"{label:<26}" + "".join(f"{v:>9}" for v in row) + f"{growth:>10.2f}")

    if args.http_beats:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from pipeline_http import report

        report(max(args.http_beats, 20), 5)


if __name__ == "__main__":
    main()
