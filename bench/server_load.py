"""Load on ``aizac serve``: N users at once, each signing up, creating a project, planning it
and accepting B beats over the REST API, on scripted fast models; embedded Chroma vs a Chroma
server side by side.

Everything runs on loopback: the app is :func:`aizac.server.create_app` served by uvicorn on a
real socket (127.0.0.1, in this process), each user is a thread with its own ``httpx`` client
and session cookie, the Chroma server is a ``chroma run`` child process bounded by ``timeout``.
Models are the tests' scripted chat model (one per user, no network), so what is measured is
aizac's own work: accounts, sandboxes, SQLite, memory commits, the generation slots.

Printed: wall time, throughput (requests/s, accepted beats/s), p50/p95 of every non-model
endpoint and of the model endpoints, and what the invariant checker
(``tests/acceptance/invariants.py``) finds in every user's project once the server has stopped:
lost or duplicated memories, turns and summaries (all must be 0).

    python bench/server_load.py [--users 20] [--beats 5] [--modes embedded,chroma-server]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from aizac.cliches import ClicheDB  # noqa: E402
from aizac.llm.embeddings import HashingEmbeddings  # noqa: E402
from aizac.memory.chroma_client import ChromaClients, open_server_memory  # noqa: E402
from aizac.server import create_app  # noqa: E402
from aizac.server.config import ServerConfig  # noqa: E402
from aizac.settings import Settings  # noqa: E402
from aizac.writer.project import ProjectStore  # noqa: E402
from aizac.writer.service import Studio  # noqa: E402
from tests.acceptance.invariants import Report, check_project  # noqa: E402
from tests.fakes import ScriptedChatModel  # noqa: E402

ROLES = ("planner", "writer", "extractor", "reviewer")
MODEL_CALLS = ("POST plot/generate", "POST beats/next", "POST beats/accept")
SLOW_BY_DESIGN = ("POST auth/signup",)  # an argon2 password hash: costly on purpose
CHROMA_LIFETIME = 1800  # seconds; the child dies with its `timeout` whatever happens here


@dataclass
class Timings:
    """Latency samples (seconds) by endpoint label; thread-safe."""

    samples: dict[str, list[float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, label: str, seconds: float) -> None:
        with self.lock:
            self.samples.setdefault(label, []).append(seconds)

    def count(self) -> int:
        return sum(len(v) for v in self.samples.values())


@dataclass
class Result:
    mode: str
    wall: float = 0.0
    users_done: int = 0
    accepted: int = 0
    timings: Timings = field(default_factory=Timings)
    reports: list[Report] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_chroma(path: Path) -> tuple[subprocess.Popen[bytes], int]:
    """``chroma run`` on a free loopback port, once its heartbeat answers."""
    from tests.memory_server.conftest import chroma_command

    port = free_port()
    path.parent.mkdir(parents=True, exist_ok=True)
    log = (path.parent / "chroma.log").open("wb")
    proc = subprocess.Popen(
        ["timeout", str(CHROMA_LIFETIME), *chroma_command(), "run", "--host", "127.0.0.1",
         "--port", str(port), "--path", str(path)], stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2).is_success:
                return proc, port
        except httpx.TransportError:
            time.sleep(0.3)
    stop_process(proc)
    raise SystemExit("chroma run did not start; see " + str(path.parent / "chroma.log"))


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


class LiveServer:
    """uvicorn serving ``app`` on 127.0.0.1 in a thread of this process."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                lifespan="on", timeout_keep_alive=30)  # fmt: skip
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise SystemExit("uvicorn did not start")
            time.sleep(0.05)
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True  # the lifespan closes every sandbox's Studio
        self.thread.join(timeout=60)


def timed(client: httpx.Client, timings: Timings, label: str, method: str, url: str,
          **kw: Any) -> Any:
    start = time.perf_counter()
    reply = client.request(method, url, **kw)
    timings.add(label, time.perf_counter() - start)
    if reply.status_code >= 400:
        raise RuntimeError(f"{label}: HTTP {reply.status_code} {reply.text[:300]}")
    return reply.json() if reply.content else None


def one_user(base: str, n: int, beats: int, timings: Timings) -> int:
    """One writer's session over the API; returns the beats accepted."""
    project = f"두번째 삶 {n}"
    # The page's Origin rides along, as a browser's would (the server's origin check).
    with httpx.Client(base_url=base, timeout=600, headers={"Origin": base}) as client:
        call: Callable[..., Any] = lambda label, method, url, **kw: timed(  # noqa: E731
            client, timings, label, method, url, **kw
        )
        call("POST auth/signup", "POST", "/api/v1/auth/signup",
             json={"name": f"writer{n}", "password": f"load bench writer {n} passphrase"})
        call("GET auth/me", "GET", "/api/v1/auth/me")
        call("POST projects", "POST", "/api/v1/projects",
             json={"name": project, "keywords": "회귀, 복수", "language": "en"})  # fmt: skip
        path = f"/api/v1/projects/{project}"
        call("POST plot/generate", "POST", f"{path}/plot/generate")
        call("GET plot", "GET", f"{path}/plot")
        accepted = 0
        for _ in range(beats):
            beat = call("POST beats/next", "POST", f"{path}/beats/next")
            done = call("POST beats/accept", "POST", f"{path}/beats/{beat['id']}/accept",
                        json={"version": beat["version"]})  # fmt: skip
            accepted += done["status"] == "accepted"
            call("GET beats", "GET", f"{path}/beats")
            call("GET memories", "GET", f"{path}/memories")
        call("GET projects", "GET", "/api/v1/projects")
        return accepted


def run_mode(mode: str, users: int, beats: int, cliches: ClicheDB) -> Result:
    result = Result(mode)
    with tempfile.TemporaryDirectory(prefix=f"aizac-load-{mode}-") as tmp:
        root = Path(tmp)
        chroma: subprocess.Popen[bytes] | None = None
        settings = Settings(data_dir=root / "data", language="en", structured_retries=1,
                            transient_retries=0)  # fmt: skip
        if mode == "chroma-server":
            chroma, port = start_chroma(root / "chroma" / "data")
            settings = settings.model_copy(update={"chroma_host": "127.0.0.1",
                                                   "chroma_port": port})  # fmt: skip
        try:
            drive(result, settings, users, beats, cliches)
            check_all(result, settings)
        finally:
            if chroma is not None:
                stop_process(chroma)
    return result


def drive(result: Result, settings: Settings, users: int, beats: int, cliches: ClicheDB) -> None:
    """Serve the app, run every user at once, stop the server (sandboxes closed)."""
    embeddings = HashingEmbeddings()
    clients = ChromaClients(settings)

    def studio(user_settings: Settings, user_id: str) -> Studio:
        return Studio(
            user_settings, models=dict.fromkeys(ROLES, ScriptedChatModel()),
            embeddings=embeddings, cliches=cliches, beats_per_episode=3,
            chroma_namespace=user_id, chroma_clients=clients,
        )

    # Twenty sign-ups at one instant: each waits its turn for one of the two password-hash
    # slots (argon2 at its default cost) instead of the server's default 10 s, then a 503.
    config = ServerConfig(secret_key=SecretStr("load-bench-" + "x" * 32), generation_wait_s=600,
                          max_projects=5, hash_wait_s=300)  # fmt: skip
    app = create_app(settings, config=config, studio_factory=studio, ui=False)
    with LiveServer(app) as base, ThreadPoolExecutor(users) as pool:
        start = time.perf_counter()
        futures = [pool.submit(one_user, base, n, beats, result.timings)
                   for n in range(1, users + 1)]  # fmt: skip
        for future in futures:
            try:
                result.accepted += future.result(timeout=1800)
                result.users_done += 1
            except Exception as e:  # reported in the table, the run goes on
                result.errors.append(f"{type(e).__name__}: {e}"[:300])
        result.wall = time.perf_counter() - start


def check_all(result: Result, settings: Settings) -> None:
    """The invariant checker on every user's project, memory read where it was written."""
    clients = ChromaClients(settings)
    embeddings = HashingEmbeddings()
    for user_dir in sorted((settings.data_dir / "users").iterdir()):
        for name in ProjectStore.list_names(user_dir / "projects"):
            directory = user_dir / "projects" / name
            opener = None
            if settings.chroma_host:
                user_id = user_dir.name

                def opener(store: ProjectStore, user_id: str = user_id) -> Any:
                    info = store.info()
                    return open_server_memory(
                        clients, user_id, memory_dir=store.memory_dir, project=info.name,
                        created_at=info.created_at, embeddings=embeddings, settings=settings,
                    )
            result.reports.append(check_project(directory, open_memory=opener))


def api_samples(result: Result) -> list[float]:
    """Latencies of the endpoints that call no model and hash no password."""
    skip = MODEL_CALLS + SLOW_BY_DESIGN
    return [v for k, vs in result.timings.samples.items() if k not in skip for v in vs]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def rows_of(result: Result) -> dict[str, str]:
    samples = result.timings.samples
    plain = api_samples(result)
    out = {
        "users finished / errors": f"{result.users_done} / {len(result.errors)}",
        "beats accepted (API replies)": str(result.accepted),
        "accepted beats in the projects": str(sum(r.accepted for r in result.reports)),
        "story turns (memory)": str(sum(r.turn for r in result.reports)),
        "wall time (s)": f"{result.wall:.1f}",
        "requests / s": f"{result.timings.count() / max(result.wall, 1e-9):.2f}",
        "accepted beats / s": f"{result.accepted / max(result.wall, 1e-9):.2f}",
        "API p50 / p95 (ms), no model, no signup": f"{pct(plain, 0.5):.0f} / "
        f"{pct(plain, 0.95):.0f}" if plain else "-",
    }
    for label in sorted(samples):
        values = samples[label]
        out[f"  {label} p50 / p95 (ms)"] = f"{pct(values, 0.5):.0f} / {pct(values, 0.95):.0f}"
    reports = result.reports
    out["projects checked"] = str(len(reports))
    out["projects with lost data"] = str(sum(r.lost for r in reports))
    out["projects with duplicates"] = str(sum(r.duplicated for r in reports))
    out["invariant problems"] = str(sum(len(r.problems) for r in reports))
    out["memories (total)"] = str(sum(r.memories for r in reports))
    return out


def print_table(results: list[Result]) -> None:
    tables = [rows_of(r) for r in results]
    labels = list(dict.fromkeys(k for t in tables for k in t))
    width = max(len(label) for label in labels) + 2
    print(f"{'':<{width}}" + "".join(f"{r.mode:>18}" for r in results))
    for label in labels:
        print(f"{label:<{width}}" + "".join(f"{t.get(label, '-'):>18}" for t in tables))
    for r in results:
        for error in r.errors[:5]:
            print(f"[{r.mode}] error: {error}")
        for report in r.reports:
            for problem in report.problems[:3]:
                print(f"[{r.mode}] invariant: {problem}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--beats", type=int, default=5)
    parser.add_argument("--modes", default="embedded,chroma-server")
    args = parser.parse_args()
    cliches = ClicheDB(embeddings=HashingEmbeddings())
    cliches.rows()  # built once, before anything is timed
    run_mode("embedded", 1, 1, cliches)  # warm-up (first imports, first model calls): untimed
    results = []
    for mode in args.modes.split(","):
        print(f"running {mode}: {args.users} users x {args.beats} beats ...", flush=True)
        results.append(run_mode(mode, args.users, args.beats, cliches))
    print()
    print(f"aizac serve under load: {args.users} users at once, each signs up, creates a "
          f"project, plans it and accepts {args.beats} beats (scripted models, loopback)")
    print_table(results)
    if len(results) == 2 and all(api_samples(r) for r in results):
        a, b = (statistics.median(api_samples(r)) for r in results)
        print(f"\nAPI median (no model, no signup), {results[1].mode} / {results[0].mode}: "
              f"{b / a:.2f}x")


if __name__ == "__main__":
    main()
