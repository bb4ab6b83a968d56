"""Autopilot on scripted fake models: calls and prompt tokens per episode by node, the rewrite
rate, and aizac's own CPU per episode early vs late in the run.

Every role is a scripted in-process chat model (``tests/autopilot/fakes.py``: valid JSON for
every schema, a verdict script with a rewrite every ``--rewrite-every`` reviews), so what is
measured is aizac: the graph, the store, memory, the context pack, the checks. CPU is this
process's CPU time per episode (``time.process_time`` between checkpoints); the goal is episode
20 within 1.2x of episode 2 (the cost of an episode must not grow with the story).

    python bench/autopilot.py [--episodes 20] [--beats 2] [--rewrite-every 4]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aizac.autopilot.events import Event
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from tests.autopilot.fakes import JudgingModel, make_studio

NODES = ("plan", "draft", "extract", "check", "review", "rewrite", "commit", "outline")


def run(episodes: int, beats: int, rewrite_every: int) -> tuple[list[Event], dict[int, float]]:
    model = JudgingModel()
    script = ["rewrite" if (n + 1) % rewrite_every == 0 else "accept"
              for n in range(episodes * 3)] if rewrite_every else []
    model.verdicts(*script)
    cpu: dict[int, float] = {}
    mark = [time.process_time()]

    def on_event(event: Event) -> None:
        if event.node == "checkpoint" and event.kind == "end":
            now = time.process_time()
            cpu[event.episode] = now - mark[0]
            mark[0] = now

    with tempfile.TemporaryDirectory() as tmp:
        studio = make_studio(Path(tmp), model, beats_per_episode=beats)
        agent = studio.create("bench", "regression, revenge", genre="fantasy", language="en")
        agent.plan()
        autopilot = Autopilot(agent)
        mark[0] = time.process_time()
        result = autopilot.start(Options(episodes=episodes, every=0), on_event=on_event)
        if result.status != "finished":
            raise SystemExit(f"the run stopped: {result.status} {result.message}")
        events = autopilot.runs.events(result.run_id)
        autopilot.close()
        studio.close()
    return events, cpu


def by_node(events: list[Event], key: str) -> dict[int, dict[str, int]]:
    table: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for e in events:
        if e.kind == "end" and e.node in NODES:
            table[e.episode][e.node] += int(e.detail.get(key, 0))
    return table


def print_table(title: str, table: dict[int, dict[str, int]], episodes: list[int]) -> None:
    print(f"\n{title}\n")
    print("| episode | " + " | ".join(NODES) + " | total |")
    print("| --- |" + " --- |" * (len(NODES) + 1))
    for ep in episodes:
        row = table.get(ep, {})
        cells = [str(row.get(n, 0)) for n in NODES]
        print(f"| {ep} | " + " | ".join(cells) + f" | {sum(row.values())} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--beats", type=int, default=2)
    parser.add_argument("--rewrite-every", type=int, default=4)
    args = parser.parse_args()
    started = time.perf_counter()
    events, cpu = run(args.episodes, args.beats, args.rewrite_every)
    wall = time.perf_counter() - started
    shown = sorted({1, 2, 5, 10, args.episodes} & set(range(1, args.episodes + 1)))
    print(f"{args.episodes} episodes x {args.beats} beats, scripted fake models, {wall:.1f} s")
    print_table("model calls per episode by node", by_node(events, "calls"), shown)
    print_table("prompt tokens per episode by node", by_node(events, "prompt_tokens"), shown)
    rewritten = {e.episode for e in events if e.node == "rewrite" and e.kind == "end"}
    rewrites = sum(1 for e in events if e.node == "rewrite" and e.kind == "end")
    print(f"\nrewrite rate: {len(rewritten)}/{args.episodes} episodes "
          f"({len(rewritten) / args.episodes:.0%}), {rewrites} rewrites")
    late = args.episodes
    early = min(2, late)
    print(f"\n| aizac CPU per episode | episode 2 | episode {late} | ratio (goal <= 1.2) |")
    print("| --- | --- | --- | --- |")
    ratio = cpu[late] / cpu[early] if cpu.get(early) else float("nan")
    print(f"| seconds | {cpu[early]:.3f} | {cpu[late]:.3f} | {ratio:.2f}x |")
    steady = [cpu[e] for e in sorted(cpu) if e >= 2]
    if len(steady) >= 4:
        half = len(steady) // 2
        first, second = sum(steady[:half]) / half, sum(steady[half:]) / (len(steady) - half)
        print(f"| mean of the first / second half | {first:.3f} | {second:.3f} | "
              f"{second / first:.2f}x |")


if __name__ == "__main__":
    main()


