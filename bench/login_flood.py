"""A login flood from one address with random names against ``aizac serve`` on loopback, while
another signed-in user keeps reading: how many tries are refused (429), how much memory the
process gains, and the other user's latency before and during the flood.

The app is :func:`aizac.server.create_app` under uvicorn in this process (real argon2 at its
default cost, the server's default limits); the flood is N threads with httpx clients on
127.0.0.1, bounded in count.

    python bench/login_flood.py [--tries 200] [--threads 20]

It runs twice, side by side, each in a fresh process: with the shipped limits, and with the
per-address limit off and a hash slot per thread (every try hashed at once, as before them).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from aizac.server import ServerConfig, create_app  # noqa: E402
from aizac.settings import Settings  # noqa: E402
from bench.server_load import LiveServer  # noqa: E402

PASSWORD = "flood bench reader passphrase"


def rss_mib(field: str = "VmRSS") -> float:
    """The process's resident memory (``VmRSS``: now; ``VmHWM``: its peak), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reader_latencies(base: str, cookie: str, stop: threading.Event) -> list[float]:
    out = []
    with httpx.Client(base_url=base, cookies={"aizac_session": cookie}, timeout=60) as c:
        while not stop.is_set():
            start = time.perf_counter()
            c.get("/api/v1/projects")
            out.append(time.perf_counter() - start)
            time.sleep(0.05)
    return out


def flood(tries: int, threads: int, **limits: object) -> dict[str, str]:
    """One server with ``limits`` over the shipped defaults, a calm reader, then the flood."""
    with tempfile.TemporaryDirectory(prefix="aizac-flood-") as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", language="en", embedding="hash")
        config = ServerConfig(secret_key=SecretStr("f" * 40), **limits)  # type: ignore[arg-type]
        app = create_app(settings, config=config, ui=False)
        with LiveServer(app) as base:
            with httpx.Client(base_url=base, headers={"Origin": base}, timeout=60) as c:
                c.post("/api/v1/auth/signup", json={"name": "reader", "password": PASSWORD})
                cookie = c.cookies["aizac_session"]
            stop = threading.Event()
            with ThreadPoolExecutor(1) as one:
                calm = one.submit(reader_latencies, base, cookie, stop)
                time.sleep(3)
                stop.set()
                before = calm.result()
            stop.clear()
            memory_before = rss_mib()
            statuses: list[int] = []
            lock = threading.Lock()

            def attempt(_: int) -> None:
                with httpx.Client(base_url=base, headers={"Origin": base}, timeout=120) as c:
                    reply = c.post("/api/v1/auth/login", json={
                        "name": f"u{uuid.uuid4().hex[:10]}", "password": "whatever123"})
                with lock:
                    statuses.append(reply.status_code)

            with ThreadPoolExecutor(1) as one, ThreadPoolExecutor(threads) as pool:
                busy = one.submit(reader_latencies, base, cookie, stop)
                started = time.perf_counter()
                list(pool.map(attempt, range(tries)))
                took = time.perf_counter() - started
                stop.set()
                during = busy.result()
            memory_after = rss_mib()
            peak = rss_mib("VmHWM")
    return {
        "tries answered 429": f"{statuses.count(429)} of {len(statuses)}",
        "tries answered 401 (a password hashed)": str(statuses.count(401)),
        "tries answered 503 (hash slots busy)": str(statuses.count(503)),
        "flood wall time (s)": f"{took:.1f}",
        "process memory before / after / peak (MiB)":
            f"{memory_before:.0f} / {memory_after:.0f} / {peak:.0f}",
        "other user's GET p50 before (ms)": f"{statistics.median(before) * 1000:.0f}",
        "other user's GET p50 during (ms)": f"{statistics.median(during) * 1000:.0f}",
        "other user's GET max during (ms)": f"{max(during) * 1000:.0f}",
    }


CASES: dict[str, dict[str, object]] = {
    "shipped": {},
    # No per-address limit and a hash slot per thread: what the server did before the limits
    # (every try hashed, all at once).
    "unlimited": {"login_attempts_per_address": 10**6, "login_attempts_per_name": 10**6,
                  "hash_slots": 64, "hash_wait_s": 600},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=200)
    parser.add_argument("--threads", type=int, default=20)
    parser.add_argument("--case", choices=sorted(CASES), help=argparse.SUPPRESS)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, tries=8, threads=4)
    if args.case:  # one case in this process, its figures as JSON for the parent
        print(json.dumps(flood(args.tries, args.threads, **CASES[args.case])))
        return
    # Each case in a fresh process of its own, so memory figures do not carry over.
    results = {}
    for case in CASES:
        child = subprocess.run(
            [sys.executable, __file__, "--case", case, "--tries", str(args.tries),
             "--threads", str(args.threads)], capture_output=True, text=True, check=True)
        results[case] = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"login flood: {args.tries} tries with random names from one address, "
          f"{args.threads} at once, argon2 at its default cost, side by side\n")
    rows = [("", "shipped limits", "no address limit, all hashed")]
    rows += [(key, results["shipped"][key], results["unlimited"][key])
             for key in results["shipped"]]
    widths = [max(len(row[i]) for row in rows) + 2 for i in range(3)]
    for row in rows:
        print("".join(f"{cell:<{w}}" for cell, w in zip(row, widths, strict=True)).rstrip())


if __name__ == "__main__":
    main()
