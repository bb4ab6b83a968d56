"""The small-model policy: the serving model's declared profile decides how strict the check is.

Fake chat models go through the real router (:class:`~aizac.llm.router.ModelRouter`) and the
real :class:`~aizac.writer.checked.CheckedRouter`; one is tagged with the embedded model's
profile (``small_local``), the other is a model aizac cannot recognise (a real model's strict
policy). English values in a Korean project pass for the small model (the writer is told why)
and are refused for the other; degenerate values are asked again once for the small model and
twice for the other. The CLI prints the note, in the project's language, on the small model only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from pydantic import Field
from typer.testing import CliRunner

from aizac.cli.story import register
from aizac.cliches import ClicheDB
from aizac.errors import StructuredOutputError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.profiles import ModelProfile, attach
from aizac.llm.router import ModelRouter
from aizac.settings import Settings
from aizac.text import Text, language_name, render
from aizac.writer.checked import CheckedRouter
from aizac.writer.model_policy import SMALL, STRICT, demo_model_note, policy_for
from aizac.writer.schemas import BeatDesign
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel

SMALL_PROFILE = ModelProfile("local", structured_method="prompt", small_local=True)
ENGLISH = {
    "location": "The chairman's office",
    "time": "A winter night in 1987",
    "characters": ["Jin Dojun"],
    "events": ["Jin Dojun predicts the stock crash in front of his grandfather"],
}
DEGENERATE = {**ENGLISH, "characters": ["An alien ship arrives, and the team is a"]}


class Counting(FakeListChatModel):
    """A fake chat model that counts the calls it answered."""

    calls: list[list[BaseMessage]] = Field(default_factory=list)

    def _call(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> str:
        self.calls.append(list(messages))
        return super()._call(messages, *args, **kwargs)


def checked(
    reply: dict[str, Any], *, small: bool, small_retries: int = 5
) -> tuple[CheckedRouter, Counting]:
    model = Counting(responses=[json.dumps(reply)] * 10)
    if small:
        attach(model, SMALL_PROFILE)
    settings = Settings(structured_retries=4, structured_small_retries=small_retries)
    router = ModelRouter(settings, models={"planner": model})
    return CheckedRouter(router, lambda: "ko"), model


def ask(router: CheckedRouter) -> BeatDesign:
    return router.structured("planner", BeatDesign, [HumanMessage("다음 비트를 설계하세요.")])


def test_the_profile_decides_the_policy() -> None:
    assert policy_for(SMALL_PROFILE) is SMALL
    assert policy_for(ModelProfile("openai", structured_method="json_schema")) is STRICT
    # The small model: lenient on script, and asked again more often (a call costs it
    # seconds; a fresh seed is what turns its degenerate reply into a usable one).
    assert SMALL.min_script_share < STRICT.min_script_share and SMALL.retries > STRICT.retries
    assert policy_for(SMALL_PROFILE, small_retries=8).retries == 8
    assert policy_for(ModelProfile("openai"), small_retries=8) is STRICT


def test_small_model_english_values_pass_in_a_korean_project() -> None:
    router, model = checked(ENGLISH, small=True)
    assert ask(router).location == "The chairman's office"
    assert len(model.calls) == 1


def test_real_model_english_values_are_refused_in_a_korean_project() -> None:
    router, model = checked(ENGLISH, small=False)
    with pytest.raises(StructuredOutputError, match="unusable after 3 attempts") as err:
        ask(router)
    assert "not written in Korean" in str(err.value)
    assert len(model.calls) == 3  # asked again twice (the strict policy)


def test_small_model_degenerate_output_is_asked_again_five_times_then_fails_saying_why() -> None:
    router, model = checked(DEGENERATE, small=True)
    with pytest.raises(StructuredOutputError, match="embedded demo model") as err:
        ask(router)
    # the small model's own bound (AIZAC_STRUCTURED_SMALL_RETRIES=5), past the LLM layer's four
    assert len(model.calls) == 6
    for sent in model.calls[1:]:  # each try is the original question (it copies repair text)
        assert sent == model.calls[0]
    assert "is not a name" in str(err.value)
    assert "aizac models set" in (err.value.hint or "")


def test_small_model_policy_also_bounds_a_router_without_a_check_hook() -> None:
    class Plain:
        def __init__(self) -> None:
            self.calls = 0

        def model(self, role: str) -> Any:
            return attach(FakeListChatModel(responses=["x"]), SMALL_PROFILE)

        def structured(self, role: str, schema: type[Any], messages: Any) -> Any:
            self.calls += 1
            return BeatDesign.model_validate(DEGENERATE)

    inner = Plain()
    with pytest.raises(StructuredOutputError, match="embedded demo model"):
        CheckedRouter(inner, lambda: "ko").structured("planner", BeatDesign, [])
    assert inner.calls == 6  # the small model's five more tries, not the three of a real one


NOTE_KO = Text("note.demo_model", language=language_name("ko"))
KO_NOTE = render(NOTE_KO, "ko")  # as the CLI prints it for a Korean project


def test_the_note_is_in_the_projects_language_and_only_for_the_small_model() -> None:
    small = ModelRouter(
        Settings(), models={"planner": attach(Counting(responses=["x"]), SMALL_PROFILE)}
    )
    real = ModelRouter(
        Settings(),
        models={"planner": Counting(responses=["x"]), "writer": Counting(responses=["x"])},
    )
    assert demo_model_note(small, "ko") == NOTE_KO and "aizac models set" in KO_NOTE
    assert "데모 모델" in KO_NOTE and "한국어" in KO_NOTE
    assert "演示模型" in render(demo_model_note(small, "zh") or Text("x"), "zh")
    assert demo_model_note(small, "en") is None  # English projects: the model is English-first
    assert demo_model_note(real, "ko") is None
    # The product's default router serves planner and writer with the embedded model.
    assert demo_model_note(ModelRouter(Settings()), "ko") == NOTE_KO


def test_the_note_follows_the_serving_models_provider() -> None:
    """The embedded model is recognised by its declared provider (``local``), not by a name or
    size: a local GGUF declared ``local`` gets the note, a served model that is not gets none."""
    def router(profile: ModelProfile) -> ModelRouter:
        model = attach(Counting(responses=["x"], name="smollm2-135m"), profile)
        return ModelRouter(Settings(), models={"planner": model, "writer": model})

    assert demo_model_note(router(ModelProfile("local", "constrained")), "ko") == NOTE_KO
    assert demo_model_note(router(ModelProfile("ollama", "format")), "ko") is None


@pytest.mark.parametrize("small", [True, False], ids=["small-model", "real-model"])
def test_cli_plot_of_a_korean_project(tmp_path: Path, small: bool) -> None:
    model = ScriptedChatModel()  # answers by the schema asked for, in English
    if small:
        attach(model, SMALL_PROFILE)
    models = {role: model for role in ("planner", "writer", "extractor")}
    settings = Settings(data_dir=tmp_path, structured_retries=1)
    cliches = ClicheDB(embeddings=HashingEmbeddings())

    def factory(**options: Any) -> Studio:
        return Studio(
            settings,
            models=dict(models),
            embeddings=HashingEmbeddings(),
            cliches=cliches,
            **options,
        )

    app = typer.Typer()
    register(app, factory)
    runner = CliRunner()
    created = runner.invoke(app, ["new", "saga", "-k", "회귀, 복수", "--lang", "ko"])
    assert created.exit_code == 0, created.output
    result = runner.invoke(app, ["plot"])
    if small:
        assert result.exit_code == 0, result.output
        assert KO_NOTE in created.output and KO_NOTE in result.output
        assert "The Second Dawn" in result.output
    else:
        assert result.exit_code == 1
        assert "데모 모델" not in created.output + result.output
        # the script rule, strict; the CLI speaks English, so does its account of the refusal
        assert "is not written in Korean" in result.output
