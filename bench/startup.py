"""Start-up of the command line, before and after, side by side (issue 10 item 6).

Whole-process timings (median of ``--runs``, wall clock and the child's CPU time, which load on
a shared machine disturbs less) of:

- ``aizac --help``
- ``aizac projects`` (two projects in the data directory)
- ``aizac plot`` up to its first model call: the planner is an ``openai-compatible`` server on
  127.0.0.1 that notes when the first request arrives; the process is stopped there.
- ``aizac beat`` up to its first model call, the same way (the project has a stored plot, so
  the beat designer's context is built from memory and clichés first).

"before" is ``git archive REV`` (default: this session's starting commit) in a temporary
directory, "after" the working tree; each runs in a child process with its code first on
``sys.path``. ``-X importtime`` then lists the heaviest top-level imports of ``aizac beat``.
Usage::

    python bench/startup.py [--runs 5] [--before-rev 8e9f3ce]

CPU time is the figure to read on a shared machine (load inflates wall time far more); the
load average is printed with the table.
"""

from __future__ import annotations

import argparse
import http.server
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _script(code_dir: Path, argv: list[str]) -> list[str]:
    boot = (
        f"import sys; sys.path.insert(0, {str(code_dir)!r}); sys.argv = {['aizac', *argv]!r}\n"
        "from aizac.cli import main\nmain()"
    )
    return [sys.executable, "-c", boot]


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_command(code_dir: Path, argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """``(wall s, CPU s)`` of one whole process running ``aizac ARGV``."""
    cpu = _cpu_children()
    started = time.perf_counter()
    subprocess.run(_script(code_dir, argv), env=env, capture_output=True, check=False)
    return time.perf_counter() - started, _cpu_children() - cpu


class _FirstCall(http.server.BaseHTTPRequestHandler):
    arrived: list[float] = []  # noqa: RUF012  (shared by the handler instances on purpose)

    def do_POST(self) -> None:  # the first model request: note the time, answer an error
        type(self).arrived.append(time.perf_counter())
        self.send_response(500)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


def time_to_first_call(code_dir: Path, env: dict[str, str], argv: list[str]) -> tuple[float, float]:
    """``(wall s, CPU s)`` from process start to its first model request (then it is killed)."""
    _FirstCall.arrived.clear()
    cpu = _cpu_children()
    started = time.perf_counter()
    child = subprocess.Popen(
        _script(code_dir, argv),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while not _FirstCall.arrived and child.poll() is None:
        time.sleep(0.005)
    wall = (_FirstCall.arrived[0] if _FirstCall.arrived else float("nan")) - started
    child.kill()
    child.wait()
    return wall, _cpu_children() - cpu  # CPU includes the few ms until the kill


def _environment(data_dir: Path, port: int) -> dict[str, str]:
    spec = f"openai-compatible:http://127.0.0.1:{port}/v1:bench"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIZAC_")}
    env.pop("TYPER_USE_RICH", None)
    env.update(
        AIZAC_DATA_DIR=str(data_dir),
        AIZAC_PLANNER_MODEL=spec,
        AIZAC_WRITER_MODEL=spec,
        AIZAC_EXTRACTOR_MODEL=spec,
        AIZAC_REVIEWER_MODEL=spec,
        AIZAC_TRANSIENT_RETRIES="0",
    )
    return env


PLOT = {
    "title": "두 번째 삶",
    "logline": "십 년 전으로 돌아온 헌터의 복수.",
    "genre": "현대판타지",
    "keywords": ["회귀", "복수"],
    "characters": [{"name": "강준", "role": "protagonist", "profile": "회귀한 헌터."}],
    "settings": [{"name": "게이트", "description": "괴물이 나오는 문."}],
    "acts": [
        {"stage": s, "goal": f"{s} 목표", "episodes": 1, "key_events": [f"{s} 사건"]}
        for s in ("exposition", "development", "crisis", "climax", "resolution")
    ],
}


PLOT_ARGV = ["plot", "--project", "second"]
BEAT_ARGV = ["beat", "--project", "saga"]


def store_plot(code_dir: Path, env: dict[str, str], project: Path) -> None:
    """Give ``project`` a plot (no model), so that ``aizac beat`` designs a beat."""
    code = (
        f"import sys, json; sys.path.insert(0, {str(code_dir)!r})\n"
        "from pathlib import Path\nfrom aizac.writer.project import ProjectStore\n"
        "from aizac.writer.schemas import NovelPlot\n"
        f"ProjectStore(Path({str(project)!r})).save_plot(NovelPlot.model_validate({PLOT!r}))"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)


def heaviest_imports(
    code_dir: Path, env: dict[str, str], argv: list[str], top: int = 8
) -> list[tuple[str, float]]:
    """The top-level imports of ``aizac ARGV`` with the largest cumulative time
    (``-X importtime``), up to the first model call (stopped by the server's error reply)."""
    cmd = [sys.executable, "-X", "importtime", *_script(code_dir, argv)[1:]]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    rows = []
    for line in done.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S+)$", line)  # top level only
        if m:
            rows.append((m[2], int(m[1]) / 1e6))
    return sorted(rows, key=lambda r: -r[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before-rev", default="8e9f3ce")
    args = parser.parse_args()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FirstCall)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    results: dict[str, dict[str, tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="aizac-startup-") as tmp:
        before = Path(tmp) / "before"
        before.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.before_rev, "aizac"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
        for label, code_dir in (("before", before), ("after", ROOT)):
            env = _environment(Path(tmp) / f"data-{label}", port)
            for name in ("saga", "second"):  # the projects `projects` lists
                subprocess.run(
                    _script(code_dir, ["new", name, "--keywords", "회귀, 복수"]),
                    env=env,
                    capture_output=True,
                    check=True,
                )
            store_plot(code_dir, env, Path(tmp) / f"data-{label}" / "projects" / "saga")
            cases = {
                "aizac --help": lambda c=code_dir, e=env: time_command(c, ["--help"], e),
                "aizac projects": lambda c=code_dir, e=env: time_command(c, ["projects"], e),
                "aizac plot -> 1st model call": lambda c=code_dir, e=env: time_to_first_call(
                    c, e, PLOT_ARGV
                ),
                "aizac beat -> 1st model call": lambda c=code_dir, e=env: time_to_first_call(
                    c, e, BEAT_ARGV
                ),
            }
            results[label] = {}
            for case, run in cases.items():
                samples = [run() for _ in range(args.runs)]
                results[label][case] = (
                    statistics.median(s[0] for s in samples),
                    statistics.median(s[1] for s in samples),
                )
            if label == "after":
                imports = heaviest_imports(code_dir, env, BEAT_ARGV)
    server.shutdown()

    print(f"median of {args.runs} whole-process runs; before = {args.before_rev}, after = tree")
    head = f"{'command':<30}{'before wall':>12}{'after wall':>12}{'ratio':>7}"
    print(head + f"{'before CPU':>12}{'after CPU':>11}{'ratio':>7}")
    for case in results["after"]:
        (bw, bc), (aw, ac) = results["before"][case], results["after"][case]
        print(
            f"{case:<30}{bw:>11.2f}s{aw:>11.2f}s{aw / bw:>6.2f}x"
            f"{bc:>11.2f}s{ac:>10.2f}s{ac / bc:>6.2f}x"
        )
    load = os.getloadavg()
    print(f"\nload average (1, 5, 15 min) at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("heaviest imports of `aizac beat` (after, -X importtime, cumulative):")
    for module, seconds in imports:
        print(f"  {module:<40}{seconds:>7.3f} s")


if __name__ == "__main__":
    main()
