"""Episode boundaries of an imported manuscript (issue 42, "Measure it"): the generated Korean
serial (``bench/manuscript_gen.py``) written as txt (UTF-8 and CP949), docx, EPUB and a folder
of one file per episode, each with its own heading form and scene break, read back and split
by ``aizac.manuscript`` (the preview the application service shows the writer, no adjustment).

Per format: episodes found / expected; boundaries exactly right (an episode's heading, first
paragraph and paragraph count all as written: its start and its end are right); first lines
right; scenes as written; the encoding a txt was read in; the planted contradictions found at
the episode and paragraph the truth gives them (what the continuity report will cite); and the
read + split time per episode (median of ``--repeat`` runs, wall clock).

    python bench/manuscript_import.py                     # 100 episodes, the dirty twin
    python bench/manuscript_import.py --episodes 30 --seeds 1,2,3 --twin both --out /tmp/s
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import manuscript_gen as gen  # bench/manuscript_gen.py

from aizac.manuscript import formats, preview, splitting


@dataclass
class Row:
    seed: int
    fmt: str
    twin: str
    heading: str
    scene_break: str
    found: int
    expected: int
    boundaries: int
    first_lines: int
    scenes: int
    encoding: str
    plants_at: int
    plants: int
    ms_per_episode: float


def measure(serial: gen.Serial, twin: str, fmt: str, path: Path, repeat: int) -> Row:
    """Read and split ``path`` (the twin ``twin`` in ``fmt``) and compare with what was written."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        seen = preview.preview([path])
        times.append(time.perf_counter() - start)
    layout = gen.layouts(serial.seed)[fmt]
    expected = serial.episodes
    boundaries = first_lines = scenes = 0
    for index, ep in enumerate(expected):
        if index >= len(seen.episodes):
            break
        got = seen.episodes[index]
        paragraphs = ep.paragraphs(twin)
        first = got.first_line == paragraphs[0][:preview.FIRST_LINE]
        first_lines += first
        boundaries += (first and got.heading == layout.heading_text(ep)
                       and got.paragraphs == len(paragraphs))
        scenes += got.scenes == len(ep.scenes)
    plants = serial.plants() if twin == "dirty" else []
    at = 0
    if plants:
        split = splitting.split([formats.read_file(p) for p in formats.expand([path])])
        episodes = split.episodes()
        for plant in plants:
            if plant.episode <= len(episodes):
                got_paragraphs = episodes[plant.episode - 1].paragraphs
                at += (plant.paragraph <= len(got_paragraphs)
                       and got_paragraphs[plant.paragraph - 1] == plant.quote)
    encoding = ",".join(sorted({f.encoding for f in seen.files})) or "-"
    return Row(serial.seed, fmt, twin, layout.heading + ("+title" if layout.titled else ""),
               layout.scene_break, len(seen.episodes), len(expected), boundaries, first_lines,
               scenes, encoding, at, len(plants), statistics.median(times) * 1000 / len(expected))


def table(rows: list[Row]) -> str:
    head = ("| seed | format | twin | heading | scene break | episodes found / expected "
            "| boundaries exactly right | first line right | scenes right | read as "
            "| plants at their paragraph | read + split ms / episode |\n|" + "---|" * 12)
    out = [head]
    for r in rows:
        out.append(
            f"| {r.seed} | {r.fmt} | {r.twin} | {r.heading} | {r.scene_break} "
            f"| {r.found} / {r.expected} "
            f"| {100 * r.boundaries / r.expected:.0f}% ({r.boundaries}) "
            f"| {100 * r.first_lines / r.expected:.0f}% | {100 * r.scenes / r.expected:.0f}% "
            f"| {r.encoding} | {f'{r.plants_at} / {r.plants}' if r.plants else '-'} "
            f"| {r.ms_per_episode:.2f} |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seeds", default="42",
                        help="comma-separated seeds (each gives each format another heading "
                        "form and scene break)")
    parser.add_argument("--twin", choices=("dirty", "clean", "both"), default="dirty")
    parser.add_argument("--repeat", type=int, default=3, help="runs per format (median time)")
    parser.add_argument("--formats", default=",".join(gen.FORMATS))
    parser.add_argument("--out", type=Path, default=None,
                        help="write the serial here (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, episodes=5, repeat=1)
    out = args.out or Path(tempfile.mkdtemp(prefix="aizac-import-"))
    try:
        twins = ("dirty", "clean") if args.twin == "both" else (args.twin,)
        rows = []
        for seed in (int(s) for s in args.seeds.split(",")):
            serial = gen.generate(args.episodes, seed)
            gen.write_all(serial, out / str(seed))
            for twin in twins:
                paths = gen.outputs(out / str(seed) / twin)
                for fmt in args.formats.split(","):
                    rows.append(measure(serial, twin, fmt, paths[fmt], args.repeat))
        print(f"{args.episodes} episodes of about {gen.TARGET:,} characters, seeds {args.seeds} "
              f"(written to {out})")
        print(table(rows))
    finally:
        if args.out is None and not args.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
