"""The one way aizac runs async model work from sync code: one event loop per process.

Design choice
-------------
aizac's callers are sync (CLI commands, Gradio handlers, the Python API), but some model work is
async (the five extraction calls of an accept run concurrently). Provider SDKs cache their async
HTTP clients (``ChatOpenAI``'s ``httpx.AsyncClient`` and its keep-alive connections), and those
connections belong to the event loop that opened them. ``asyncio.run()`` per call creates a loop
and *closes* it on return, so the next call in the same process finds pooled connections bound to
a closed loop and fails with ``RuntimeError: Event loop is closed`` (every second accept in the web
app, the demo and the Python API).

Two designs keep the clients valid: sync clients in a pool, or **one persistent loop**. aizac uses
the persistent loop: async code stays as it is (``asyncio.gather`` keeps the extraction calls
concurrent without a thread per call), and every cached async client lives on the same loop for the
life of the process. The loop runs in a daemon thread started on first use; :func:`run_sync`
submits a coroutine to it and blocks the calling thread until it is done, so it works from plain
sync code, from worker threads, and from code that already runs inside another event loop (that
loop's thread just waits, as it would for any blocking call). After ``os.fork()`` the child gets a
fresh loop (threads do not survive a fork).

Every sync entry point that runs model coroutines must use :func:`run_sync`; never ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
_pid: int | None = None


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    loop.run_forever()


def get_loop() -> asyncio.AbstractEventLoop:
    """The process's model loop (started on first use, restarted in a forked child)."""
    global _loop, _thread, _pid
    with _lock:
        alive = _thread is not None and _thread.is_alive()
        if _loop is None or _pid != os.getpid() or not alive or _loop.is_closed():
            _loop = asyncio.new_event_loop()
            _thread = threading.Thread(
                target=_serve, args=(_loop,), name="aizac-model-loop", daemon=True
            )
            _thread.start()
            _pid = os.getpid()
        return _loop


def run_sync(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run ``coro`` on the process's model loop and return its result (or raise its error).

    Args:
        coro: the coroutine (e.g. ``router.astructured(...)`` or an ``asyncio.gather``).
        timeout: seconds to wait; ``None`` waits as long as the coroutine runs (provider
            timeouts bound each HTTP call).

    Raises:
        RuntimeError: called from a coroutine already running on the model loop (it would wait
            for itself); ``await`` the coroutine there instead.
        TimeoutError: ``timeout`` passed (the coroutine is cancelled).
    """
    loop = get_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        coro.close()
        raise RuntimeError("run_sync() called on the model loop itself; await the coroutine.")
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError as e:
        future.cancel()
        raise TimeoutError(f"model work did not finish within {timeout} s") from e
    except BaseException:
        future.cancel()  # Ctrl-C in the caller: do not leave the call running
        raise


def _shutdown() -> None:
    """Stop the loop at interpreter exit (close idle connections politely)."""
    with _lock:
        loop, thread = _loop, _thread
    if loop is None or thread is None or not thread.is_alive() or _pid != os.getpid():
        return
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=2)


atexit.register(_shutdown)
