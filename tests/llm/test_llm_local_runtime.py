"""The embedded runtime adapter (xllamacpp): error replies, streaming through a callback, early
stop, and the same behaviour on the real model (``local_model``)."""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

import pytest

from aizac.errors import ModelError
from aizac.llm.providers.local import (
    ChatLocalLlama,
    _stream_parts,
    error_from_reply,
    resolve_model_path,
)
from aizac.settings import Settings

HAVE_RUNTIME = importlib.util.find_spec("xllamacpp") is not None
needs_runtime = pytest.mark.skipif(not HAVE_RUNTIME, reason="xllamacpp is not installed")

CONTEXT_HINT_EN = "Shorten the prompt or raise AIZAC_LOCAL_CONTEXT."


class CallbackServer:
    """Answers like xllamacpp's ``Server.handle_chat_completions(request, callback)``: calls back
    on the calling thread once per part and stops when the callback returns True."""

    def __init__(self, parts: int) -> None:
        self.parts = parts
        self.sent = 0
        self.thread: int | None = None

    def handle_chat_completions(self, request: dict[str, Any], callback: Any) -> None:
        self.thread = threading.get_ident()
        for i in range(self.parts):
            self.sent += 1
            part = {"choices": [{"index": 0, "delta": {"content": f"t{i} "}}]}
            if callback(part):
                return


def test_context_overflow_reply_names_what_helps() -> None:
    error = error_from_reply(
        {"error": {"code": 400, "type": "exceed_context_size_error",
                   "message": "request (2031 tokens) exceeds the available context size"}}
    )  # fmt: skip
    assert isinstance(error, ModelError)
    assert error.hint == CONTEXT_HINT_EN and "2031 tokens" in error.message
    other = error_from_reply({"error": {"message": "boom"}})
    assert other is not None and "boom" in other.message and other.hint != CONTEXT_HINT_EN
    assert error_from_reply({"choices": []}) is None


def test_stream_parts_come_in_order_from_a_worker_thread() -> None:
    server = CallbackServer(parts=5)
    texts = [p["choices"][0]["delta"]["content"] for p in _stream_parts(server, {})]
    assert texts == ["t0 ", "t1 ", "t2 ", "t3 ", "t4 "]
    assert server.thread != threading.get_ident()


def test_closing_the_stream_early_stops_generation() -> None:
    server = CallbackServer(parts=1000)
    parts = _stream_parts(server, {})
    next(parts)
    next(parts)
    parts.close()  # the consumer walked away: the runtime is told to stop
    assert server.sent < server.parts  # told to stop long before the end


def test_a_runtime_exception_reaches_the_consumer_as_an_error_part() -> None:
    class Broken:
        def handle_chat_completions(self, request: dict[str, Any], callback: Any) -> None:
            raise RuntimeError("runtime died")

    parts = list(_stream_parts(Broken(), {}))
    error = error_from_reply(parts[-1])
    assert error is not None and "runtime died" in error.message


def test_seed_and_repeat_window_are_sent_per_call() -> None:
    params = ChatLocalLlama(model_path="unused.gguf", seed=3)._params(None, {"seed": 11})
    assert params["seed"] == 11 and params["repeat_last_n"] == 256
    assert ChatLocalLlama(model_path="unused.gguf", seed=3)._params(None, {})["seed"] == 3


def test_a_broken_model_file_is_a_clear_error(tmp_path: Path) -> None:
    if not HAVE_RUNTIME:
        pytest.skip("xllamacpp is not installed")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf")
    with pytest.raises(ModelError, match=r"bad\.gguf could not be loaded"):
        ChatLocalLlama(model_path=str(bad), n_ctx=512).invoke("hi")


# --------------------------------------------------------------------------- the real model
@pytest.fixture(scope="module")
def small_context() -> ChatLocalLlama:
    return ChatLocalLlama(model_path=str(resolve_model_path(Settings())), n_ctx=512)


@pytest.mark.local_model
@needs_runtime
def test_overlong_prompt_says_shorten_it_streamed_or_not(small_context: ChatLocalLlama) -> None:
    prompt = "word " * 1500
    with pytest.raises(ModelError) as plain:
        small_context.invoke(prompt, max_tokens=4)
    with pytest.raises(ModelError) as streamed:
        list(small_context.stream(prompt, max_tokens=4))
    assert plain.value.hint == streamed.value.hint == CONTEXT_HINT_EN


@pytest.mark.local_model
@needs_runtime
def test_a_stream_left_early_frees_the_model(small_context: ChatLocalLlama) -> None:
    pieces = small_context.stream("Tell a long story about a dragon.", max_tokens=200)
    next(pieces)
    pieces.close()
    reply = small_context.invoke("Say hi.", max_tokens=6, seed=5)
    again = small_context.invoke("Say hi.", max_tokens=6, seed=5)
    assert reply.text == again.text  # same seed, same reply: the seed reaches the sampler
    usage = reply.usage_metadata
    assert usage is not None and usage["input_tokens"] > 0 and 0 < usage["output_tokens"] <= 6


def _spin_count_shown(code: str, env: dict[str, str]) -> str:
    """How long libgomp's threads spin at a barrier before sleeping, as it reports when the
    runtime is loaded by ``code`` in a child (``0``: they sleep at once)."""
    import os
    import subprocess
    import sys

    child_env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    child_env.update(env, OMP_DISPLAY_ENV="VERBOSE")
    out = subprocess.run(
        [sys.executable, "-c", code], env=child_env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    shown = [line for line in out.stderr.splitlines() if "GOMP_SPINCOUNT" in line]
    assert shown, "libgomp printed no settings: the runtime was not loaded"
    return shown[0].split("=", 1)[1].strip(" '")


LOAD_RUNTIME = (
    "from aizac.llm.providers.local import prepare_runtime_env\n"
    "prepare_runtime_env()\n"
    "import xllamacpp\n"
)


@needs_runtime
def test_the_runtime_threads_wait_passively_unless_the_user_chose() -> None:
    """Spinning OpenMP barriers made constrained decoding collapse on a busy 2-core machine:
    the runtime is loaded with OMP_WAIT_POLICY=PASSIVE, and a value the user set is kept."""
    assert _spin_count_shown(LOAD_RUNTIME, {}) == "0"
    assert int(_spin_count_shown(LOAD_RUNTIME, {"OMP_WAIT_POLICY": "ACTIVE"})) > 10**9
    # the control: loading the runtime without the preparation keeps libgomp's spinning default
    assert int(_spin_count_shown("import xllamacpp\n", {})) > 0
