"""Autopilot: calls and prompt tokens per episode by node, the rewrite rate, and aizac's own CPU
per episode early vs late in the run.

Three ways to run the models (``--mode``):

- ``per-tag`` (default): every role is a scripted in-process chat model
  (``tests/autopilot/fakes.py``: valid JSON for every schema, a verdict script with a rewrite
  every ``--rewrite-every`` reviews). Such a model declares no capability, so extraction is five
  calls per beat, as for the small embedded model.
- ``combined``: the same scripted model, with the combined calls forced on (one design call that
  also profiles new characters, one extraction call per beat), as aizac does for the models
  whose profile declares them.
- ``wire``: every role on a loopback OpenAI-compatible server (127.0.0.1, the real
  chat-completions wire format through the real SDK, SSE for prose) that logs every request; the
  capability comes from the real provider's declaration. Calls and prompt tokens per node are
  counted from the server's log (a node's calls are the requests between its start and its end).

What is measured is aizac: the graph, the store, memory, the context pack, the checks. CPU is
this process's CPU time per episode (``time.process_time`` between checkpoints; in ``wire``
mode it includes the server's threads, so it is not printed). The goal is the episodes late in
the run within 1.2x of the early ones: the median of ``--window`` episodes from episode 2 on
against the median of the last ``--window`` episodes, episodes with a rewrite or an outline call
left out of both (they do more work by design); ``--repeat`` runs it again and prints each.

    python bench/autopilot.py [--episodes 20] [--beats 2] [--rewrite-every 4] [--mode wire]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # acceptance helpers

from aizac.autopilot.events import Event
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from tests.autopilot.fakes import JudgingModel, WireStory, make_studio

NODES = ("plan", "draft", "extract", "check", "review", "rewrite", "commit", "outline")
GOAL_CALLS = 8  # issue 13: calls per episode in autopilot mode


@dataclass
class Result:
    events: list[Event]
    cpu: dict[int, float]
    # (episode, node) -> [calls, prompt tokens], from the server's log (wire mode only)
    wire: dict[tuple[int, str], list[int]] = field(default_factory=dict)


def verdict_script(episodes: int, rewrite_every: int) -> list[str]:
    return ["rewrite" if (n + 1) % rewrite_every == 0 else "accept"
            for n in range(episodes * 3)] if rewrite_every else []


def _drive(agent: Any, episodes: int, on_event: Any) -> list[Event]:
    autopilot = Autopilot(agent)
    try:
        result = autopilot.start(Options(episodes=episodes, every=0), on_event=on_event)
        if result.status != "finished":
            raise SystemExit(f"the run stopped: {result.status} {result.message}")
        return autopilot.runs.events(result.run_id)
    finally:
        autopilot.close()


class _CpuClock:
    """CPU time per episode, read at every checkpoint's end."""

    def __init__(self) -> None:
        self.cpu: dict[int, float] = {}
        self.mark = time.process_time()

    def __call__(self, event: Event) -> None:
        if event.node == "checkpoint" and event.kind == "end":
            now = time.process_time()
            self.cpu[event.episode] = now - self.mark
            self.mark = now


def run_scripted(episodes: int, beats: int, rewrite_every: int, combined: bool) -> Result:
    model = JudgingModel()
    model.verdicts(*verdict_script(episodes, rewrite_every))
    clock = _CpuClock()
    with tempfile.TemporaryDirectory() as tmp:
        studio = make_studio(Path(tmp), model, beats_per_episode=beats,
                             combined_extraction=True if combined else None)
        agent = studio.create("bench", "regression, revenge", genre="fantasy", language="en")
        agent.plan()
        clock.mark = time.process_time()
        events = _drive(agent, episodes, clock)
        studio.close()
    return Result(events, clock.cpu)


# ------------------------------------------------------------------------------------ wire
class _WireLog:
    """Attributes the server's requests to nodes: those logged between a node's start and its
    end (events arrive after every graph step, and nodes run one at a time)."""

    def __init__(self, server: Any) -> None:
        self.server, self.seen = server, 0
        self.table: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0])

    def __call__(self, event: Event) -> None:
        from acceptance.openai_server import prompt_text

        from aizac.tokens import count_tokens

        if event.kind != "end":
            return
        requests = self.server.chat_requests
        for seen in requests[self.seen:]:
            cell = self.table[(event.episode, event.node)]
            cell[0] += 1
            cell[1] += count_tokens(prompt_text(seen.body))
        self.seen = len(requests)


def run_wire(episodes: int, beats: int, rewrite_every: int) -> Result:
    from acceptance.openai_server import OpenAIServer

    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.settings import Settings
    from aizac.writer.service import Studio

    model = WireStory(verdict_script(episodes, rewrite_every))
    with OpenAIServer(model, chunk_chars=64) as server, tempfile.TemporaryDirectory() as tmp:
        spec = f"openai-compatible:{server.base_url}:{server.model}"
        roles = {f"{r}_model": spec for r in ("planner", "writer", "extractor", "reviewer")}
        settings = Settings(data_dir=Path(tmp), language="ko", embedding="hash",
                            openai_compatible_api_key="bench", transient_retries=0, **roles)
        studio = Studio(settings, embeddings=HashingEmbeddings(), beats_per_episode=beats)
        agent = studio.create("bench", "회귀, 복수", genre="현대판타지", language="ko")
        agent.plan()
        log, clock = _WireLog(server), _CpuClock()
        log.seen = len(server.chat_requests)

        def on_event(event: Event) -> None:
            log(event)
            clock(event)

        events = _drive(agent, episodes, on_event)
        studio.close()
    return Result(events, clock.cpu, dict(log.table))


# ------------------------------------------------------------------------------- reporting
def by_node(result: Result, key: str) -> dict[int, dict[str, int]]:
    """Per episode and node: ``calls`` or ``prompt_tokens`` (the server's log in wire mode,
    else the router's usage log carried by the events)."""
    table: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    if result.wire:
        column = 0 if key == "calls" else 1
        for (episode, node), cell in result.wire.items():
            table[episode][node] += cell[column]
        return table
    for e in result.events:
        if e.kind == "end" and e.node in NODES:
            table[e.episode][e.node] += int(e.detail.get(key, 0))
    return table


def print_table(title: str, table: dict[int, dict[str, int]], episodes: list[int],
                marks: dict[int, str]) -> None:
    nodes = list(NODES) + sorted({n for row in table.values() for n in row} - set(NODES))
    print(f"\n{title}\n")
    print("| episode | " + " | ".join(nodes) + " | total |")
    print("| --- |" + " --- |" * (len(nodes) + 1))
    for ep in episodes:
        row = table.get(ep, {})
        cells = [str(row.get(n, 0)) for n in nodes]
        print(f"| {ep}{marks.get(ep, '')} | " + " | ".join(cells) + f" | {sum(row.values())} |")


def special_episodes(events: list[Event]) -> tuple[set[int], set[int]]:
    """Episodes with a rewrite, and episodes with an outline model call."""
    rewritten = {e.episode for e in events if e.node == "rewrite" and e.kind == "end"}
    outlined = {e.episode for e in events if e.node == "outline" and e.kind == "end"
                and int(e.detail.get("calls", 0))}
    return rewritten, outlined


def print_goal(calls: dict[int, dict[str, int]], rewritten: set[int], outlined: set[int]) -> None:
    totals = {ep: sum(row.values()) for ep, row in calls.items() if ep >= 1}
    plain = [n for ep, n in totals.items() if ep not in rewritten | outlined]
    within = sum(1 for n in totals.values() if n <= GOAL_CALLS)
    print(f"\ncalls per episode (goal <= {GOAL_CALLS}): {within}/{len(totals)} episodes within; "
          f"median {statistics.median(totals.values()):.0f}, max {max(totals.values())}; "
          f"episodes without a rewrite or an outline: median "
          f"{statistics.median(plain) if plain else float('nan'):.0f}, "
          f"max {max(plain, default=0)}")


def cpu_ratio(cpu: dict[int, float], skip: set[int], window: int) -> tuple[float, float, str]:
    """Median CPU of ``window`` plain episodes from episode 2 on vs the last ``window``."""
    plain = [ep for ep in sorted(cpu) if ep >= 2 and ep not in skip]
    if len(plain) < 2:
        return float("nan"), float("nan"), "too few episodes"
    w = max(1, min(window, len(plain) // 2))
    early, late = plain[:w], plain[-w:]
    return (statistics.median(cpu[e] for e in early), statistics.median(cpu[e] for e in late),
            f"episodes {early} vs {late}")


def print_cpu(runs: list[Result], episodes: int, window: int) -> None:
    print(f"\n| aizac CPU per episode (s) | episode 2 | episode {episodes} | ratio "
          f"| median early | median late | ratio (goal <= 1.2) | windows |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for n, result in enumerate(runs, 1):
        cpu = result.cpu
        rewritten, outlined = special_episodes(result.events)
        first, last = cpu.get(2, float("nan")), cpu.get(episodes, float("nan"))
        early, late, which = cpu_ratio(cpu, rewritten | outlined, window)
        print(f"| run {n} | {first:.3f} | {last:.3f} | {last / first:.2f}x | {early:.3f} | "
              f"{late:.3f} | {late / early:.2f}x | {which} |")


def report(runs: list[Result], args: argparse.Namespace, wall: float) -> None:
    result = runs[0]
    shown = sorted({1, 2, 5, 10, args.episodes} & set(range(1, args.episodes + 1)))
    rewritten, outlined = special_episodes(result.events)
    marks = {ep: " (rewritten)" if ep in rewritten else " (outline)" for ep in rewritten | outlined}
    source = "the loopback server's log" if result.wire else "the router's usage log"
    print(f"{args.episodes} episodes x {args.beats} beats, mode {args.mode}, {wall:.1f} s; "
          f"calls and tokens from {source}")
    calls = by_node(result, "calls")
    print_table("model calls per episode by node", calls, shown, marks)
    print_table("prompt tokens per episode by node", by_node(result, "prompt_tokens"), shown,
                marks)
    print_goal(calls, rewritten, outlined)
    rewrites = sum(1 for e in result.events if e.node == "rewrite" and e.kind == "end")
    print(f"\nrewrite rate: {len(rewritten)}/{args.episodes} episodes "
          f"({len(rewritten) / args.episodes:.0%}), {rewrites} rewrites; outline calls in "
          f"episodes {sorted(outlined)}")
    if not result.wire:
        print_cpu(runs, args.episodes, args.window)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--beats", type=int, default=2)
    parser.add_argument("--rewrite-every", type=int, default=4)
    parser.add_argument("--mode", choices=("per-tag", "combined", "wire"), default="per-tag")
    parser.add_argument("--window", type=int, default=5,
                        help="episodes per CPU window (median), early and late")
    parser.add_argument("--repeat", type=int, default=1, help="runs (CPU ratio per run)")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, episodes=2, beats=1, window=1)
    started = time.perf_counter()
    runs = []
    for _ in range(max(1, args.repeat if args.mode != "wire" else 1)):
        if args.mode == "wire":
            runs.append(run_wire(args.episodes, args.beats, args.rewrite_every))
        else:
            runs.append(run_scripted(args.episodes, args.beats, args.rewrite_every,
                                     args.mode == "combined"))
    report(runs, args, time.perf_counter() - started)


if __name__ == "__main__":
    main()
