"""``bench/call_trace.py`` (issue 40): its measurement of one web Accept counts something, and
the Accept it measures really happened. ``tests/test_benches.py`` runs the whole script; this
checks its figures are not empty (a trace or a lock proxy that no longer reaches aizac's code
would print zeros and still end without an error)."""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType

from acceptance.openai_server import OpenAIServer
from acceptance.story import KoreanStory

BENCH = Path(__file__).resolve().parents[1] / "bench" / "call_trace.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("aizac_bench_call_trace", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_one_web_accept_is_traced_and_the_beat_is_accepted(tmp_path: Path) -> None:
    real = threading.Lock, threading.RLock
    bench = _bench()
    with OpenAIServer(KoreanStory()) as server:
        figures, accepted = bench.web_accept(server.base_url, tmp_path)
    assert accepted
    # hops: the handler calls into other aizac modules, down to a commit of the project
    assert figures.calls > 0 and figures.edges > 0 and figures.depth > 1 and figures.files > 1
    assert figures.commits > 0 and figures.to_commit > 0 and figures.commit_chain
    assert figures.commit_chain[0] == "aizac.web.handlers.accept"
    # locks: the project's file lock (its own and aizac's thread locks are counted)
    assert figures.file > 0 and figures.thread > 0 and figures.project_same > 0
    assert (threading.Lock, threading.RLock) == real  # the counting proxies are gone again
