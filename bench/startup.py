"""Start-up of the command line, before and after, side by side (issue 10 item 6).

Whole-process timings (median of ``--runs``, wall clock and the child's CPU time, which load on
a shared machine disturbs less) of:

- ``aizac --help``
- ``aizac projects`` (two projects in the data directory)
- ``aizac plot`` up to its first model call: the planner is an ``openai-compatible`` server on
  127.0.0.1 that notes when the first request arrives; the process is stopped there.
- ``aizac beat`` up to its first model call, the same way (the project has a stored plot, so
  the beat designer's context is built from memory and clichés first).
- the import floor: a process that only imports ``langchain_core.language_models``,
  ``chromadb`` and ``langchain_openai``, which a plot or a beat must import before its first
  call. ``plot - floor`` and ``beat - floor`` (printed under the table) are aizac's own share.
- that share measured inside one process too (``own (in-process, after floor)``): the child
  imports the floor first and the clocks start there, so machine load, which moves two
  separate processes' times apart by tenths of a second, cancels out.

"before" is ``git archive REV`` (``--before``, default: this session's starting commit) in a
temporary directory, "after" the working tree; each runs in a child process with its code first
on ``sys.path``. Before and after samples alternate, so a change of load hits both alike.
``-X importtime`` then lists the heaviest top-level imports of ``aizac beat``. Two cases ask
for local model servers over one hung port and nine closed ones (issue 30): ``aizac models``,
which lists what answered (so it waits at most the search's time limit, 0.5 s) and the web app's
build, which searches in the background (it must not wait). Usage::

    python bench/startup.py [--runs 5] [--before 8e9f3ce]

Compiled bytecode: the children write and read ``.pyc`` files under a temporary
``PYTHONPYCACHEPREFIX`` (one untimed run per case first), as a user's installed aizac does from
its second run on; without it (``PYTHONDONTWRITEBYTECODE=1`` in this sandbox) every run would
compile aizac's sources again. ``aizac --help`` and ``aizac projects`` run with only
``AIZAC_DATA_DIR`` set (a user with no other configuration); ``aizac projects (configured)``
with the role models set in the environment too, which makes every setting be read and
validated.

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
from collections.abc import Callable
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


FLOOR_IMPORTS = "langchain_core.language_models, chromadb, langchain_openai"
FLOOR = "import floor (langchain_core + chromadb + langchain_openai)"


def time_floor(code_dir: Path, env: dict[str, str]) -> tuple[float, float]:
    """``(wall s, CPU s)`` of a whole process importing only :data:`FLOOR_IMPORTS` (the same
    interpreter, environment and bytecode cache as the aizac commands)."""
    boot = f"import sys; sys.path.insert(0, {str(code_dir)!r})\nimport {FLOOR_IMPORTS}"
    cpu = _cpu_children()
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", boot], env=env, capture_output=True, check=True)
    return time.perf_counter() - started, _cpu_children() - cpu


class _FirstCall(http.server.BaseHTTPRequestHandler):
    arrived: list[float] = []  # noqa: RUF012  (shared by the handler instances on purpose)

    def do_POST(self) -> None:  # the first model request: note the time, answer an error
        type(self).arrived.append(time.perf_counter())
        self.send_response(500)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


def time_to_first_call(
    code_dir: Path, env: dict[str, str], argv: list[str], after_floor: bool = False
) -> tuple[float, float]:
    """``(wall s, CPU s)`` from process start to its first model request (then it is killed).

    ``after_floor``: the child imports :data:`FLOOR_IMPORTS` first and reports its clocks
    there; the times returned run from that point (aizac's own share, measured in one process,
    which load disturbs far less than the difference of two processes)."""
    _FirstCall.arrived.clear()
    cpu = _cpu_children()
    started = time.perf_counter()
    script = _script(code_dir, argv)
    if after_floor:  # perf_counter is the system-wide monotonic clock on Linux
        mark = f"import {FLOOR_IMPORTS}, time\nprint(time.perf_counter(), time.process_time())\n"
        script[-1] = script[-1].replace("from aizac.cli", mark + "from aizac.cli", 1)
    child = subprocess.Popen(script, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    while not _FirstCall.arrived and child.poll() is None:
        time.sleep(0.005)
    wall = (_FirstCall.arrived[0] if _FirstCall.arrived else float("nan")) - started
    child.kill()
    out, _ = child.communicate()
    cpu = _cpu_children() - cpu  # CPU includes the few ms until the kill
    if after_floor:
        at_wall, at_cpu = (float(v) for v in out.split(b"\n", 1)[0].split())
        return wall + started - at_wall, cpu - at_cpu
    return wall, cpu


def _environment(data_dir: Path, port: int, pyc: Path, models: bool = True) -> dict[str, str]:
    spec = f"openai-compatible:http://127.0.0.1:{port}/v1:bench"
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("AIZAC_")}
    for name in ("TYPER_USE_RICH", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    env.update(AIZAC_DATA_DIR=str(data_dir), PYTHONPYCACHEPREFIX=str(pyc))
    if models:
        env.update(
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


class _Hung(http.server.BaseHTTPRequestHandler):
    """A port that accepts and never answers in time (a hung local model server)."""

    def do_GET(self) -> None:
        time.sleep(30)

    def log_message(self, format: str, *args: object) -> None:
        return


HUNG: list[int] = []  # the hung server's port (set in main)
CLOSED_PORTS = 9
"""Ports nothing listens on, asked with the hung one (as many as the usual list's others)."""


def _closed_ports(n: int) -> list[int]:
    import socket

    ports = []
    for _ in range(n):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            ports.append(int(sock.getsockname()[1]))
    return ports


def _searching(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the local-server search turned on over one hung port and closed ones."""
    ports = [*HUNG, *_closed_ports(CLOSED_PORTS)]
    return {**env, "AIZAC_DISCOVER": "true", "AIZAC_DISCOVER_PORTS": ",".join(map(str, ports))}


def time_web_app(code_dir: Path, env: dict[str, str]) -> tuple[float, float]:
    """``(wall s, CPU s)`` of a process that builds the web app (Studio + every tab) and exits:
    the local-server search runs in the background, so a hung port must not show here."""
    boot = (
        f"import sys; sys.path.insert(0, {str(code_dir)!r})\n"
        "from aizac.settings import get_settings\nfrom aizac.writer.service import Studio\n"
        "from aizac.web.app import create_app\ncreate_app(Studio(get_settings()))"
    )
    cpu = _cpu_children()
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", boot], env=_searching(env), capture_output=True,
                   check=True)
    return time.perf_counter() - started, _cpu_children() - cpu


Case = Callable[[Path, dict[str, str]], tuple[float, float]]
CASES: dict[str, tuple[Case, bool]] = {  # name: (run, with the role models in the environment)
    "aizac --help": (lambda c, e: time_command(c, ["--help"], e), False),
    "aizac projects": (lambda c, e: time_command(c, ["projects"], e), False),
    "aizac projects (configured)": (lambda c, e: time_command(c, ["projects"], e), True),
    "aizac plot -> 1st model call": (lambda c, e: time_to_first_call(c, e, PLOT_ARGV), True),
    "aizac beat -> 1st model call": (lambda c, e: time_to_first_call(c, e, BEAT_ARGV), True),
    FLOOR: (time_floor, True),
    "plot, own (in-process, after floor)": (
        lambda c, e: time_to_first_call(c, e, PLOT_ARGV, after_floor=True), True
    ),
    "beat, own (in-process, after floor)": (
        lambda c, e: time_to_first_call(c, e, BEAT_ARGV, after_floor=True), True
    ),
    # The local-server search (issue 30): one hung port and nine closed ones. `aizac models`
    # lists what answered, so it waits for the search, at most its time limit (0.5 s); the web
    # app searches in the background and must not wait at all. Before: no search.
    "aizac models (1 hung + 9 closed ports)": (
        lambda c, e: time_command(c, ["models"], _searching(e)), False
    ),
    "web app built (1 hung + 9 closed ports)": (time_web_app, False),
}
SHARES = ("aizac plot -> 1st model call", "aizac beat -> 1st model call")
"""The rows whose time over the import floor is printed as aizac's own share."""


def _prepare(code_dir: Path, tmp: Path, label: str, port: int) -> dict[bool, dict[str, str]]:
    """Two projects (one with a plot) in a data directory of ``label``; its environments."""
    data = tmp / f"data-{label}"
    envs = {m: _environment(data, port, tmp / f"pyc-{label}", models=m) for m in (False, True)}
    for name in ("saga", "second"):  # the projects `projects` lists
        subprocess.run(
            _script(code_dir, ["new", name, "--keywords", "회귀, 복수"]),
            env=envs[True],
            capture_output=True,
            check=True,
        )
    store_plot(code_dir, envs[True], data / "projects" / "saga")
    return envs


def measure_all(
    trees: dict[str, Path], envs: dict[str, dict[bool, dict[str, str]]], runs: int,
    cases: list[str] | None = None,
) -> dict[str, dict[str, tuple[float, float]]]:
    """Median ``(wall, CPU)`` per tree and case (``cases``: only these); before and after
    samples alternate."""
    results: dict[str, dict[str, tuple[float, float]]] = {label: {} for label in trees}
    for case, (run, models) in CASES.items():
        if cases is not None and case not in cases:
            continue
        for label, code_dir in trees.items():
            run(code_dir, envs[label][models])  # untimed: writes the .pyc files
        samples: dict[str, list[tuple[float, float]]] = {label: [] for label in trees}
        for _ in range(runs):
            for label, code_dir in trees.items():
                samples[label].append(run(code_dir, envs[label][models]))
        for label, got in samples.items():
            results[label][case] = (
                statistics.median(s[0] for s in got),
                statistics.median(s[1] for s in got),
            )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", "--before-rev", dest="before", default="8e9f3ce")
    parser.add_argument("--cases", help="only these rows (comma-separated names, as printed)")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, runs=1, before="HEAD", cases="aizac --help,aizac projects")

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FirstCall)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hung = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hung)
    hung.daemon_threads = True
    HUNG.append(int(hung.server_address[1]))
    threading.Thread(target=hung.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory(prefix="aizac-startup-") as tmp:
        before = Path(tmp) / "before"
        before.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.before, "aizac", "data"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
        trees = {"before": before, "after": ROOT}
        envs = {label: _prepare(code, Path(tmp), label, port) for label, code in trees.items()}
        load_start = os.getloadavg()
        cases = None if args.cases is None else [c.strip() for c in args.cases.split(",")]
        results = measure_all(trees, envs, args.runs, cases)
        load = os.getloadavg()
        beat = cases is None or "aizac beat -> 1st model call" in cases
        imports = heaviest_imports(ROOT, envs["after"][True], BEAT_ARGV) if beat else []
    server.shutdown()
    hung.shutdown()
    print_table(args, results, load_start, load, imports)


def print_table(
    args: argparse.Namespace,
    results: dict[str, dict[str, tuple[float, float]]],
    load_start: tuple[float, float, float],
    load: tuple[float, float, float],
    imports: list[tuple[str, float]],
) -> None:
    print(f"median of {args.runs} whole-process runs; before = {args.before}, after = tree")
    width = max(len(case) for case in results["after"]) + 2
    head = f"{'command':<{width}}{'before wall':>12}{'after wall':>12}{'ratio':>7}"
    print(head + f"{'before CPU':>12}{'after CPU':>11}{'ratio':>7}")
    for case in results["after"]:
        (bw, bc), (aw, ac) = results["before"][case], results["after"][case]
        print(
            f"{case:<{width}}{bw:>11.2f}s{aw:>11.2f}s{aw / bw:>6.2f}x"
            f"{bc:>11.2f}s{ac:>10.2f}s{ac / bc:>6.2f}x"
        )
    print("\naizac's own share (command - import floor):")
    for case in [c for c in SHARES if c in results["after"] and FLOOR in results["after"]]:
        own = {
            label: tuple(a - f for a, f in zip(got[case], got[FLOOR], strict=True))
            for label, got in results.items()
        }
        (bw, bc), (aw, ac) = own["before"], own["after"]
        name = case.split(" ->")[0] + " - floor"
        print(f"{name:<{width}}{bw:>11.2f}s{aw:>11.2f}s{'':>7}{bc:>11.2f}s{ac:>10.2f}s")
    print(
        f"\nload average (1, 5, 15 min) at the start: {load_start[0]:.2f} {load_start[1]:.2f} "
        f"{load_start[2]:.2f}; at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print("heaviest imports of `aizac beat` (after, -X importtime, cumulative):")
    for module, seconds in imports:
        print(f"  {module:<40}{seconds:>7.3f} s")


if __name__ == "__main__":
    main()
