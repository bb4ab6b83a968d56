"""Spec parsing, provider building and role routing (no network: builders only construct)."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_openai import ChatOpenAI

from aizac.errors import ConfigError, InvalidInputError
from aizac.llm.providers import build_chat_model
from aizac.llm.resilient import ResilientChatModel
from aizac.llm.router import ModelRouter
from aizac.llm.specs import ModelSpec, parse_spec
from aizac.settings import Settings
from aizac.text import render


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("local", ModelSpec("local", "")),
        ("  LOCAL ", ModelSpec("local", "")),
        ("openai:gpt-4o", ModelSpec("openai", "gpt-4o")),
        ("anthropic:claude-sonnet-4-5", ModelSpec("anthropic", "claude-sonnet-4-5")),
        ("clova:HCX-005", ModelSpec("clova", "HCX-005")),
        ("ollama:qwen2.5:7b", ModelSpec("ollama", "qwen2.5:7b")),
        (
            "openai-compatible:http://127.0.0.1:8000/v1:my-model",
            ModelSpec("openai-compatible", "my-model", "http://127.0.0.1:8000/v1"),
        ),
        (
            "openai-compatible:https://vllm.example/v1/:qwen2.5:7b",
            ModelSpec("openai-compatible", "qwen2.5:7b", "https://vllm.example/v1"),
        ),
    ],
)
def test_parse_spec(text: str, expected: ModelSpec) -> None:
    assert parse_spec(text, "AIZAC_PLANNER_MODEL") == expected


def test_spec_round_trips_through_str() -> None:
    for text in [
        "local",
        "openai:gpt-4o",
        "ollama:qwen2.5:7b",
        "openai-compatible:http://h:1/v1:m",
    ]:
        assert str(parse_spec(text, "x")) == text


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("gemini:pro", "unknown provider 'gemini'"),
        ("openai", "names no model"),
        ("openai:", "names no model"),
        ("", "is empty"),
        ("openai-compatible:not-a-url", "not openai-compatible:URL:MODEL"),
        ("openai-compatible:http://127.0.0.1:8000/v1", "not openai-compatible:URL:MODEL"),
    ],
)
def test_bad_specs_name_the_setting(text: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_spec(text, "planner_model")
    assert "AIZAC_PLANNER_MODEL" in str(info.value)
    assert fragment in str(info.value)


def test_unknown_provider_in_settings_names_the_role_setting() -> None:
    router = ModelRouter(Settings(writer_model="gemini:pro"))
    with pytest.raises(ConfigError, match="AIZAC_WRITER_MODEL='gemini:pro'"):
        router.model("writer")
    [writer] = [s for s in router.describe() if s.role == "writer"]
    assert not writer.usable and "unknown provider" in render(writer.reason, "en")


@pytest.mark.parametrize(
    ("spec", "env"),
    [("openai:gpt-4o", "OPENAI_API_KEY"), ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY")],
)
def test_missing_key_names_env_var_and_setting(spec: str, env: str) -> None:
    router = ModelRouter(Settings(extractor_model=spec))
    with pytest.raises(ConfigError) as info:
        router.model("extractor")
    assert f"{env} is not set" in str(info.value)
    assert "AIZAC_EXTRACTOR_MODEL" in str(info.value)
    [status] = [s for s in router.describe() if s.role == "extractor"]
    assert (status.usable, render(status.reason, "en")) == (False, f"{env} is not set")


def test_missing_fallback_key_names_the_fallback_setting() -> None:
    settings = Settings(
        planner_model="openai:gpt-4o", openai_api_key="sk-x", planner_fallback="anthropic:c"
    )
    with pytest.raises(ConfigError, match="AIZAC_PLANNER_FALLBACK"):
        ModelRouter(settings).model("planner")


def test_openai_builder_configures_the_client_and_keeps_the_key_secret() -> None:
    settings = Settings(openai_api_key="sk-secret-123456", request_timeout=7)
    model = build_chat_model(ModelSpec("openai", "gpt-4o"), settings, "AIZAC_PLANNER_MODEL")
    assert isinstance(model, ChatOpenAI)
    assert (model.model_name, model.max_retries, model.request_timeout) == ("gpt-4o", 0, 7)
    assert "sk-secret-123456" not in repr(model)


def test_router_builds_lazily_caches_and_wraps() -> None:
    settings = Settings(planner_model="openai:gpt-4o", openai_api_key="sk-x", transient_retries=5)
    router = ModelRouter(settings)
    model = router.model("planner")
    assert model is router.model("planner")
    assert isinstance(model, ResilientChatModel)
    assert model.retries == 5
    assert isinstance(model.primary, ChatOpenAI)
    # Other roles are untouched until asked for (their local model is not even looked up).
    assert set(router._cache) == {"planner"}


def test_injected_models_and_unknown_roles() -> None:
    fake = FakeListChatModel(responses=["a"])
    router = ModelRouter(Settings(), models={"writer": fake})
    assert router.model("writer").primary is fake  # type: ignore[attr-defined]
    [writer] = [s for s in router.describe() if s.role == "writer"]
    assert writer.provider == "injected" and writer.usable
    with pytest.raises(InvalidInputError, match="Use one of: planner"):
        router.model("poet")
    with pytest.raises(ConfigError, match="unknown role 'poet'"):
        ModelRouter(Settings(), models={"poet": fake})


def test_describe_reports_remote_providers_without_network() -> None:
    settings = Settings(
        planner_model="openai:gpt-4o",
        openai_api_key="sk-live-abcdef123456",
        writer_model="ollama:qwen2.5:7b",
        extractor_model="openai-compatible:http://127.0.0.1:9/v1:m",
        reviewer_model="clova:HCX-005",
        reviewer_fallback="openai:gpt-4o-mini",
    )
    statuses = {s.role: s for s in ModelRouter(settings).describe()}
    planner = statuses["planner"]
    assert planner.usable and render(planner.reason, "en") == "OPENAI_API_KEY is set"
    writer = statuses["writer"]
    assert writer.usable and "reachability not checked" in render(writer.reason, "en")
    assert statuses["extractor"].provider == "openai-compatible"
    reviewer = statuses["reviewer"]
    assert reviewer.usable and "fallback usable" in render(reviewer.reason, "en")
    assert reviewer.fallback == "openai:gpt-4o-mini"
    assert "sk-live-abcdef123456" not in repr(statuses)
