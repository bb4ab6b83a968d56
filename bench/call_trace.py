"""Hops and locks of one web Accept and one REST "next beat" (issue 40: folding layers).

Two operations, each on a project that has a plot and has accepted one beat already (so that
first-use work, lazy imports and caches, is not what is counted):

- **web accept**: the beat editor's Accept handler (``aizac.web.handlers.accept``, what the
  Gradio button calls; called directly, no browser) on a drafted beat;
- **REST next beat**: ``POST /api/v1/projects/{name}/beats/next`` through Starlette's
  ``TestClient``, signed in as a user.

The models are the loopback OpenAI-compatible server of ``bench/pipeline_http.py`` (in a child
process: real SDK, real HTTP; its calls are not aizac's), a fresh one for each tree. Each tree
is measured in a child process of its own (``PYTHONPATH=DIR``); ``--before DIR`` measures the
aizac package in DIR too and prints both side by side::

    git worktree add --detach ../aizac-before 6920d11
    python bench/call_trace.py --before ../aizac-before
    python bench/call_trace.py --edges          # + the cross-module edges of each operation

What is counted (printed under the table) is in :data:`DEFINITIONS`.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import inspect
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if "--code" in sys.argv:  # measure another tree's aizac package (before aizac is imported)
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--code") + 1]).resolve()))
elif str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_SPEC = importlib.util.find_spec("aizac")  # finds the package without importing it
assert _SPEC is not None and _SPEC.origin is not None
AIZAC = str(Path(_SPEC.origin).parent) + os.sep
"""The measured package's folder: a frame or a lock is aizac's when its code lives here."""

PASSWORD = "correct horse battery staple"
ROWS = [
    ("database commits (writes)", "commits"), ("hops to a commit", "to_commit"),
    ("  aizac frames at that commit", "frames_to_commit"),
    ("cross-module edges", "edges"), ("max module hops, one stack", "hops"),
    ("max aizac call depth", "depth"),
    ("aizac files entered", "files"), ("aizac calls", "calls"),
    ("lock acquisitions", "acquired"), ("  thread locks", "thread"),
    ("  file locks", "file"), ("max nesting, one lock", "same"),
    ("max nesting, project file lock", "project_same"), ("max locks held at once", "held"),
    ("objects whose state changed", "objects"), ("  their classes", "classes"),
]
DEFINITIONS = """\
setup   each operation runs once, on a project (ko, loopback model server) with a plot whose
        first beat was accepted already: first use (lazy imports, caches) is not counted.
        The REST request counts the server's middleware (session, gate) on its event-loop
        thread and the route on its worker thread; the web accept is the handler alone.
hops    sys.setprofile (and threading.setprofile for threads started during the operation)
        records every call into a function whose code is in the measured aizac package
        (comprehensions, lambdas and module bodies are skipped); a hop is a call from one
        aizac module into a function of another, the caller being the nearest aizac frame
        up the same thread's stack (a call back through a library counts too).
        hops to a commit: at each database commit that wrote (SQLAlchemy's, under every
        project store), the hops down the committing thread's aizac stack; the most of any
        commit (--edges prints that stack). cross-module edges: distinct (caller module ->
        callee module.function) hops. max module hops, one stack: the hops down one aizac
        stack, the most of any (a recursion is no hop). max aizac call depth: the most aizac
        frames on one thread's stack. aizac files entered: distinct files.
locks   threading.Lock/RLock made by aizac code (wrapped in a counting proxy when made) and
        every filelock.FileLock (aizac's cross-process project lock; nothing else here takes
        one): acquisitions during the operation; max nesting, one lock: the most times one
        lock object was held at once by one thread (a re-entrant lock taken again inside
        itself); project file lock: the same for the project's FileLock; max locks held at
        once: distinct locks one thread held together. PostgreSQL advisory locks are not
        taken (embedded SQLite store); SQLite's own file locking is not counted.
state   aizac objects that existed before the operation and whose instance attributes were
        rebound, or whose container attributes changed size, by the end of it (a snapshot
        comparison: a write of the same value or a change inside an element is not seen)."""


# --------------------------------------------------------------------------------- locks
@dataclass
class Ledger:
    """Lock acquisitions while :attr:`active`, and what each thread holds."""

    active: bool = False
    counts: Counter[str] = field(default_factory=Counter)
    sites: Counter[str] = field(default_factory=Counter)
    same: int = 0
    same_site: str = ""
    same_stack: list[str] = field(default_factory=list)
    same_outer: list[str] = field(default_factory=list)
    outer: dict[int, list[str]] = field(default_factory=dict)
    project_same: int = 0
    held_max: int = 0
    holding: dict[int, list[Any]] = field(default_factory=dict)

    def reset(self) -> None:
        self.counts.clear()
        self.sites.clear()
        self.same = self.project_same = self.held_max = 0
        self.same_site = ""
        self.same_stack, self.same_outer = [], []
        self.outer.clear()

    def acquired(self, lock: Any, kind: str, site: str) -> None:
        held = self.holding.setdefault(threading.get_ident(), [])
        held.append(lock)
        if not self.active:
            return
        self.counts[kind] += 1
        self.sites[site] += 1
        depth = sum(1 for x in held if x is lock)
        stack = [f"{m}.{q}" for m, q in _aizac_stack(sys._getframe(1))]
        if depth == 1:
            self.outer[id(lock)] = stack
        if depth > self.same:
            self.same, self.same_site, self.same_stack = depth, site, stack
            self.same_outer = self.outer.get(id(lock), [])
        if kind == "file":
            self.project_same = max(self.project_same, depth)
        self.held_max = max(self.held_max, len({id(x) for x in held}))

    def released(self, lock: Any, every: bool = False) -> None:
        mine = self.holding.get(threading.get_ident(), [])
        for held in [mine, *self.holding.values()]:  # a Lock may be released by another thread
            for i in range(len(held) - 1, -1, -1):
                if held[i] is lock:
                    del held[i]
                    if not every:
                        return
            if every:
                return


LEDGER = Ledger()
_REAL = {"Lock": threading.Lock, "RLock": threading.RLock}


def _maker_site() -> str | None:
    """``module:line`` of the aizac code making a lock, else ``None`` (not aizac's)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename.startswith("<")
                                 or frame.f_code.co_filename.endswith("dataclasses.py")):
        frame = frame.f_back  # a dataclass's generated __init__ (field default_factory)
    if frame is None or not frame.f_code.co_filename.startswith(AIZAC):
        return None
    return f"{_module(frame.f_code.co_filename)}:{frame.f_lineno}"


class CountedLock:
    """A thread lock that tells :data:`LEDGER` when it is taken and let go."""

    def __init__(self, lock: Any, site: str) -> None:
        self._lock, self._site = lock, site

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        ok = bool(self._lock.acquire(blocking, timeout))
        if ok:
            LEDGER.acquired(self, "thread", self._site)
        return ok

    def release(self) -> None:
        LEDGER.released(self)
        self._lock.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __getattr__(self, name: str) -> Any:  # locked(), and what Condition asks of an RLock
        return getattr(self._lock, name)


def _maker(kind: str) -> Callable[[], Any]:
    def make() -> Any:
        site = _maker_site()
        real = _REAL[kind]()
        return real if site is None else CountedLock(real, site)

    return make


@contextlib.contextmanager
def counting_locks() -> Iterator[Ledger]:
    """Count aizac's locks for the block (re-entrant: an inner use leaves the patches on).

    Locks are wrapped when they are made, so a lock made before the block (a module's, when
    aizac was imported first) is not counted: the command line enters this before it imports
    aizac."""
    import filelock

    if threading.Lock is not _REAL["Lock"]:
        yield LEDGER
        return
    base = filelock.BaseFileLock
    acquire, release = base.acquire, base.release

    def file_acquire(self: Any, *args: Any, **kwargs: Any) -> Any:
        proxy = acquire(self, *args, **kwargs)
        LEDGER.acquired(self, "file", "FileLock " + Path(self.lock_file).name)
        return proxy

    def file_release(self: Any, force: bool = False) -> None:
        LEDGER.released(self, every=force)
        release(self, force)

    for kind in _REAL:  # setattr: the stubs type them as classes
        setattr(threading, kind, _maker(kind))
    base.acquire, base.release = file_acquire, file_release  # type: ignore[method-assign]
    try:
        yield LEDGER
    finally:
        for kind, real in _REAL.items():
            setattr(threading, kind, real)
        base.acquire, base.release = acquire, release  # type: ignore[method-assign]


# ---------------------------------------------------------------------------------- hops
_MODULES: dict[str, str] = {}


def _module(filename: str) -> str:
    name = _MODULES.get(filename)
    if name is None:
        rel = Path(filename[len(AIZAC):]).with_suffix("")
        parts = ["aizac", *rel.parts]
        if parts[-1] == "__init__":
            parts.pop()
        name = _MODULES[filename] = ".".join(parts)
    return name


@dataclass
class Calls:
    """The aizac call tree of one operation (see :data:`DEFINITIONS`)."""

    calls: int = 0
    depth: int = 0
    edges: set[tuple[str, str]] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    hops: int = 0
    live: dict[FrameType, tuple[int, str, int]] = field(default_factory=dict)
    deepest: list[str] = field(default_factory=list)

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        code = frame.f_code
        if not code.co_filename.startswith(AIZAC) or code.co_name.startswith("<"):
            return
        if event == "return":
            self.live.pop(frame, None)
            return
        if event != "call":
            return
        module = _module(code.co_filename)
        depth, caller, hops = 1, None, 0
        up = frame.f_back
        while up is not None:
            found = self.live.get(up)
            if found is not None:
                depth, caller = found[0] + 1, found[1]
                hops = found[2] + (caller != module)
                break
            up = up.f_back
        self.live[frame] = (depth, module, hops)
        self.hops = max(self.hops, hops)
        self.calls += 1
        if depth > self.depth:
            self.depth = depth
            self.deepest = [f"{m}.{q}" for m, q in _aizac_stack(frame)]
        self.files.add(code.co_filename)
        if caller is not None and caller != module:
            self.edges.add((caller, f"{module}.{code.co_qualname}"))


def _aizac_stack(frame: FrameType | None) -> list[tuple[str, str]]:
    """(module, function) of the aizac frames from ``frame`` up, outermost first."""
    frames: list[tuple[str, str]] = []
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith(AIZAC) and not code.co_name.startswith("<"):
            frames.append((_module(code.co_filename), code.co_qualname))
        frame = frame.f_back
    return frames[::-1]


@dataclass
class Commits:
    """The aizac stack at each database commit (SQLAlchemy's, every project store's)."""

    count: int = 0
    chains: list[list[tuple[str, str]]] = field(default_factory=list)

    def seen(self) -> None:
        self.count += 1
        self.chains.append(_aizac_stack(sys._getframe(1)))

    def deepest(self) -> tuple[int, int, list[str]]:
        """(module switches, aizac frames, its functions) of the commit whose aizac stack
        switches module the most times."""
        best: tuple[int, int, list[str]] = (0, 0, [])
        for chain in self.chains:
            switches = sum(1 for a, b in itertools.pairwise(chain) if a[0] != b[0])
            best = max(best, (switches, len(chain), [f"{m}.{q}" for m, q in chain]))
        return best


WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER")


@contextlib.contextmanager
def watching_commits() -> Iterator[Commits]:
    """Record the commits of transactions that wrote (SQLAlchemy's connection events, on every
    engine: a read's transaction commits too, and is not the commit looked for)."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    commits = Commits()

    def executing(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().split(None, 1)[0].upper() in WRITES:
            conn.info["bench_wrote"] = True

    def committed(conn: Any) -> None:
        if conn.info.pop("bench_wrote", False):
            commits.seen()

    def rolled_back(conn: Any) -> None:
        conn.info.pop("bench_wrote", None)

    hooks: list[tuple[str, Callable[..., Any]]] = [
        ("before_cursor_execute", executing), ("commit", committed), ("rollback", rolled_back)]
    for name, fn in hooks:
        event.listen(Engine, name, fn)
    try:
        yield commits
    finally:
        for name, fn in hooks:
            event.remove(Engine, name, fn)


# --------------------------------------------------------------------------------- state
def _state() -> dict[int, tuple[Any, dict[str, tuple[int, int | None]]]]:
    """Every live aizac object's attributes: (identity, size if a container)."""
    out: dict[int, tuple[Any, dict[str, tuple[int, int | None]]]] = {}
    for obj in gc.get_objects():
        module = getattr(type(obj), "__module__", None)
        if not isinstance(module, str) or not module.startswith("aizac") \
                or isinstance(obj, type):
            continue
        attrs = getattr(obj, "__dict__", None)
        if not isinstance(attrs, dict):
            continue
        out[id(obj)] = (obj, {
            k: (id(v), len(v) if isinstance(v, dict | list | set) else None)
            for k, v in list(attrs.items())
        })
    return out


def _changed(before: dict[int, Any], after: dict[int, Any]) -> list[str]:
    return [type(obj).__qualname__ for key, (obj, attrs) in before.items()
            if key in after and after[key][1] != attrs]


@dataclass
class Figures:
    """What one operation did (see :data:`DEFINITIONS`)."""

    commits: int
    to_commit: int
    frames_to_commit: int
    commit_chain: list[str]
    calls: int
    hops: int
    depth: int
    edges: int
    files: int
    acquired: int
    thread: int
    file: int
    same: int
    same_site: str
    same_stack: list[str]
    same_outer: list[str]
    project_same: int
    held: int
    objects: int
    classes: int
    edge_list: list[str]
    deepest: list[str]
    state_classes: list[str]
    lock_sites: dict[str, int]


@contextlib.contextmanager
def traced() -> Iterator[dict[str, Figures]]:
    """Trace the block; the figures are in the yielded dict's ``"figures"`` afterwards."""
    out: dict[str, Figures] = {}
    calls = Calls()
    with counting_locks() as ledger, watching_commits() as commits:
        before = _state()
        ledger.reset()
        ledger.active = True
        threading.setprofile(calls.profile)
        sys.setprofile(calls.profile)
        try:
            yield out
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
            ledger.active = False
        changed = _changed(before, _state())
    switches, frames, chain = commits.deepest()
    out["figures"] = Figures(
        commits=commits.count, to_commit=switches, frames_to_commit=frames, commit_chain=chain,
        calls=calls.calls, hops=calls.hops, depth=calls.depth, edges=len(calls.edges),
        files=len(calls.files),
        acquired=sum(ledger.counts.values()), thread=ledger.counts["thread"],
        file=ledger.counts["file"], same=ledger.same, same_site=ledger.same_site,
        same_stack=ledger.same_stack, same_outer=ledger.same_outer,
        project_same=ledger.project_same, held=ledger.held_max, objects=len(changed),
        classes=len(set(changed)), edge_list=sorted(f"{a} -> {b}" for a, b in calls.edges),
        deepest=calls.deepest, state_classes=sorted(Counter(changed)),
        lock_sites=dict(ledger.sites.most_common()),
    )


# ---------------------------------------------------------------------------- operations
def _settings(base_url: str, data_dir: Path) -> Any:
    from aizac.settings import Settings

    spec = f"openai-compatible:{base_url}:test-model"
    return Settings(data_dir=data_dir, language="ko", planner_model=spec, writer_model=spec,
                    extractor_model=spec, structured_retries=1, transient_retries=0)


def _studio(settings: Any) -> Any:
    from aizac.cliches import ClicheDB
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.writer.service import Studio

    return Studio(settings, embeddings=HashingEmbeddings(),
                  cliches=ClicheDB(embeddings=HashingEmbeddings()))


def _web_service(studio: Any, data_dir: Path) -> Any:
    """The service the web app builds over a Studio (``aizac.web.app``). Tree shape: the
    ApplicationService of ``aizac.application.service`` (issue 40 and before)."""
    from aizac.application.service import ApplicationService

    return ApplicationService(studio, export_dir=data_dir / "exports")


def _web_accept(
    handlers: Any, service: Any, project: str, beat_id: int | None, version: int | None
) -> Any:
    """The Accept button's handler on an unedited draft. Tree shape: ``accept(service,
    project, beat_id, version, progress=None, *, fields=None)`` (``fields``: the form's unsaved
    edits, none here; a tree whose handler takes none is called without)."""
    edits = {"fields": None} if "fields" in inspect.signature(handlers.accept).parameters else {}
    return handlers.accept(service, project, beat_id, version, **edits)


def web_accept(base_url: str, data_dir: Path) -> tuple[Figures, bool]:
    """The figures of one web Accept, and whether the beat was accepted."""
    from aizac.web import handlers as h

    with counting_locks():
        service = _web_service(_studio(_settings(base_url, data_dir)), data_dir)
        name = h.create_project(service, "bench", "", "회귀, 복수", "ko")
        h.generate_plot(service, name)
        first = h.next_beat(service, name)
        _web_accept(h, service, name, first.beat_id, first.version)  # warm: first use
        draft = h.next_beat(service, name)
        with traced() as out:
            view = _web_accept(h, service, name, draft.beat_id, draft.version)
    return out["figures"], draft.beat_id in {i for _, i in view.accepted}


def rest_next_beat(base_url: str, data_dir: Path) -> tuple[Figures, bool]:
    """The figures of one REST "next beat", and whether it answered with a new draft."""
    from fastapi.testclient import TestClient
    from pydantic import SecretStr

    from aizac.server import ServerConfig, create_app

    with counting_locks():
        settings = _settings(base_url, data_dir)
        app = create_app(settings, config=ServerConfig(secret_key=SecretStr("bench-secret")),
                         studio_factory=lambda user_settings, _user: _studio(user_settings),
                         ui=False)
        origin = {"Origin": "http://testserver"}
        with TestClient(app, headers=origin) as c:
            api = "/api/v1/projects"
            assert c.post("/api/v1/auth/signup", json={"name": "bench", "password": PASSWORD}
                          ).status_code == 201
            assert c.post(api, json={"name": "bench", "keywords": "회귀, 복수",
                                     "language": "ko"}).status_code == 201
            assert c.post(f"{api}/bench/plot/generate").status_code == 200
            first = c.post(f"{api}/bench/beats/next").json()  # warm: first use
            assert c.post(f"{api}/bench/beats/{first['id']}/accept",
                          json={"version": first["version"]}).status_code == 200
            # A client outside the `with`: its request runs on a new portal thread and a new
            # worker thread, which threading.setprofile reaches (the warm ones it would not).
            fresh = TestClient(app, headers=origin, cookies=dict(c.cookies))
            with traced() as out:
                reply = fresh.post(f"{api}/bench/beats/next")
    ok = reply.status_code == 200 and reply.json()["status"] == "draft" \
        and reply.json()["id"] != first["id"]
    return out["figures"], ok


def measure(base_url: str) -> dict[str, Any]:
    """Both operations on the aizac package this process imports."""
    import aizac

    with tempfile.TemporaryDirectory() as d:
        web, accepted = web_accept(base_url, Path(d) / "web")
        rest, designed = rest_next_beat(base_url, Path(d) / "rest")
    return {"aizac": str(Path(aizac.__file__).parent), "web": asdict(web), "rest": asdict(rest),
            "ok": {"web": accepted, "rest": designed}}


# ------------------------------------------------------------------------------- printing
def measure_tree(directory: str) -> dict[str, Any]:
    """The figures of the aizac package in ``directory``, measured in a child process with a
    model server of its own (the scripted story moves on with every call: a shared server
    would answer the second tree differently)."""
    env = {**os.environ, "PYTHONPATH": str(Path(directory).resolve())}
    out = subprocess.run(
        [sys.executable, __file__, "--code", directory, "--json"],
        capture_output=True, text=True, env=env, check=False,
    )
    if out.returncode != 0:
        sys.exit(f"measuring {directory} failed:\n{out.stderr[-4000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def table(columns: list[tuple[str, dict[str, Any]]], edges: bool) -> None:
    width = max(14, *(len(name) + 2 for name, _ in columns))
    for op, title in (("web", "web accept (aizac.web.handlers.accept)"),
                      ("rest", "REST next beat (POST /api/v1/projects/{name}/beats/next)")):
        print(f"\n{title}\n")
        print(f"{'':<32}" + "".join(f"{name:>{width}}" for name, _ in columns))
        for label, key in ROWS:
            print(f"{label:<32}" + "".join(f"{c[op][key]:>{width}}" for _, c in columns))
        print(f"{'done (accepted / designed)':<32}"
              + "".join(f"{c['ok'][op]!s:>{width}}" for _, c in columns))
        for name, c in columns:
            print(f"  {name}: most nested lock: {c[op]['same_site']} "
                  f"(x{c[op]['same']}); aizac from {c['aizac']}")
        if edges:
            for name, c in columns:
                print(f"\n  {name}: the aizac stack at that commit\n    "
                      + "\n    ".join(c[op]["commit_chain"]))
                print(f"\n  {name}: the aizac stack where the most nested lock was first taken"
                      "\n    " + "\n    ".join(c[op]["same_outer"]))
                print(f"\n  {name}: the aizac stack where it was taken again\n    "
                      + "\n    ".join(c[op]["same_stack"]))
                print(f"\n  {name}: the deepest aizac stack\n    "
                      + "\n    ".join(c[op]["deepest"]))
                print(f"\n  {name}: classes of the objects whose state changed\n    "
                      + "\n    ".join(c[op]["state_classes"]))
                print(f"\n  {name}: cross-module edges\n    " + "\n    ".join(c[op]["edge_list"]))
                print(f"  {name}: lock acquisitions by site\n    " + "\n    ".join(
                    f"{n:>4}  {site}" for site, n in c[op]["lock_sites"].items()))
    print("\n" + DEFINITIONS)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", metavar="DIR", help="also measure the aizac package in DIR")
    ap.add_argument("--code", help="measure the aizac package in this directory")
    ap.add_argument("--base-url", help="with --json: a running model server (else one is started)")
    ap.add_argument("--edges", action="store_true", help="list the edges and lock sites")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap)  # one operation of each kind: the smoke run is the full run
    if args.json:
        from story_server import story_server  # bench/story_server.py

        with counting_locks(), contextlib.ExitStack() as stack:  # before aizac is imported
            print(json.dumps(measure(args.base_url or stack.enter_context(story_server()))))
        return
    # this tree in a child too: both columns measured alike, each in a fresh process
    columns = [("before", measure_tree(args.before))] if args.before else []
    columns.append(("this tree", measure_tree(str(ROOT))))
    table(columns, args.edges)


if __name__ == "__main__":
    main()
