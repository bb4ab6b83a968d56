"""Models declare what they can do: one provider table, profiles instead of class-name guesses."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_openai import ChatOpenAI
from pydantic import BaseModel

from aizac.llm import registry
from aizac.llm.methods import default_method
from aizac.llm.profiles import GENERIC, ModelProfile, profile_of
from aizac.llm.providers import build, check_usable
from aizac.llm.router import ModelRouter
from aizac.llm.specs import parse_spec
from aizac.settings import Settings
from aizac.text import render

ROOT = Path(__file__).resolve().parents[2]


class Hero(BaseModel):
    name: str
    age: int


def test_added_provider_needs_one_module_and_one_row(monkeypatch: pytest.MonkeyPatch) -> None:
    profile = ModelProfile("echo", "prompt", combined_extraction_ok=False)
    row = registry.ProviderRow(
        "echo", "echo_provider:build", "echo_provider:status", profile, "echo_provider:EchoChat"
    )
    monkeypatch.setattr(registry, "ROWS", (*registry.ROWS, row))
    spec = parse_spec("echo:Ari", "AIZAC_PLANNER_MODEL")
    usable, reason = check_usable(spec, Settings())
    assert (usable, render(reason, "en")) == (True, "always")
    router = ModelRouter(Settings(planner_model="echo:Ari"))
    assert router.structured("planner", Hero, "x") == Hero(name="Ari", age=1)
    assert profile_of(router.model("planner")) == profile.as_routed()
    assert router.describe()[0].provider == "echo"


def test_built_models_carry_their_rows_profile() -> None:
    settings = Settings(openai_api_key="sk-test-0123456789")  # type: ignore[arg-type]
    for text in ("openai:gpt-4o", "openai-compatible:http://127.0.0.1:9/v1:m", "ollama:q:7b"):
        built = build(parse_spec(text, "AIZAC_WRITER_MODEL"), settings, "AIZAC_WRITER_MODEL")
        assert profile_of(built.model) is built.profile
        assert built.profile.structured_method == "json_object"
        assert built.profile.reports_finish and built.profile.combined_extraction_ok
        assert not built.profile.small_local
    local = registry.row("local")
    assert local is not None
    assert local.profile.small_local and not local.profile.combined_extraction_ok
    assert local.profile.structured_method == "constrained"


def test_models_built_directly_are_recognised_by_their_declared_class() -> None:
    openai = ChatOpenAI(model="m", api_key="sk-x", base_url="http://127.0.0.1:9/v1")  # type: ignore[arg-type]
    anthropic = ChatAnthropic(model="c", api_key="k")  # type: ignore[call-arg,arg-type]
    assert default_method(openai) == "json_object"
    assert default_method(anthropic) == "tool"
    assert profile_of(FakeListChatModel(responses=[])) is GENERIC
    assert profile_of(openai.bind(temperature=0)).provider == "openai"  # bindings looked through


def test_routed_models_are_marked_routed_and_injected_ones_keep_their_own() -> None:
    fake = FakeListChatModel(responses=["{}"])
    router = ModelRouter(Settings(), models={"writer": fake})
    assert profile_of(router.model("writer")) == GENERIC.as_routed()


@pytest.mark.parametrize(
    "path",
    [
        "aizac/llm/methods.py",
        "aizac/llm/structured.py",
        "aizac/retrieval/self_query.py",
        "aizac/writer/output.py",
    ],
)
def test_no_class_name_checks_are_left(path: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert "__mro__" not in text and "_llm_type" not in text
    assert '"ChatAnthropic"' not in text and '"ResilientChatModel"' not in text
