"""The LLM layer's own lines around a structured request are in the project's language.

Every structured prompt kind of a Korean (Chinese) project is rendered, then sent through the
real structured-output helper to a recording fake model: the JSON note the helper adds (both the
constrained note of the embedded model and the schema lead-in of the prompt method) and the
repair follow-ups after a broken and a rejected reply must carry no English fixed line.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from aizac.llm import instructions
from aizac.llm.methods import apply_plan, plan_structured
from aizac.llm.router import ModelRouter
from aizac.llm.structured import generate_structured
from aizac.settings import Settings
from aizac.writer.prompts import KINDS, PromptLibrary
from aizac.writer.schemas import BeatSummary

from .test_prompt_language import (
    ACRONYM,
    LATIN_WORD,
    PLACEHOLDER,
    SAMPLES,
    json_vocabulary,
    values_for,
)

STRUCTURED_KINDS = [k for k in KINDS if k != "prose"]
ENGLISH_LINES = [
    "Reply with one JSON object only",
    "Your previous reply was rejected",
    "Reply again with only the corrected JSON object",
    "the reply is not valid JSON",
    "its content was rejected",
]


class Recording(FakeListChatModel):
    """A fake chat model that keeps every conversation it was sent."""

    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    def _call(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> str:
        self.prompts.append(list(messages))
        return super()._call(messages, *args, **kwargs)


def rendered(kind: str, language: str) -> list[BaseMessage]:
    library = PromptLibrary()
    template = library.get(kind, language)
    wanted = {a or b for a, b in PLACEHOLDER.findall(template.system + template.user)}
    base = values_for(language)
    filler = SAMPLES[language]["fact"]
    values = {name: base.get(name, filler) for name in wanted if name != "language_name"}
    return library.render(kind, language, **values)


def english_words(text: str) -> list[str]:
    words = set(LATIN_WORD.findall(text)) - json_vocabulary()
    return sorted(w for w in words if not ACRONYM.match(w))


@pytest.mark.parametrize("language", ["ko", "zh"])
@pytest.mark.parametrize("kind", STRUCTURED_KINDS)
def test_constrained_note_joins_the_prompt_in_its_language(kind: str, language: str) -> None:
    messages = rendered(kind, language)
    assert instructions.prompt_language(messages) == language
    plan = plan_structured(FakeListChatModel(responses=["{}"]), {"title": "X"}, "constrained")
    sent = apply_plan(messages, plan)
    text = "\n".join(m.text for m in sent)
    assert instructions.text("constrained", language) in text
    assert not english_words(text), f"{language}/{kind}: {english_words(text)}"


@pytest.mark.parametrize("language", ["ko", "zh"])
def test_schema_lead_in_is_in_the_prompt_language(language: str) -> None:
    messages = rendered("summary", language)
    schema = BeatSummary.model_json_schema()
    sent = apply_plan(messages, plan_structured(FakeListChatModel(responses=["{}"]), schema))
    note = sent[0].text.split("\n\n")[-1]
    lead = note[: note.index("{")]  # the schema itself is JSON (field names), not prose
    assert lead == instructions.text("schema", language)
    assert not english_words(lead)


def rejects_short(value: BeatSummary) -> None:
    if len(value.summary) < 3:
        raise ValueError(SAMPLES["ko"]["conflict"])


@pytest.mark.parametrize("language", ["ko", "zh"])
def test_repair_follow_ups_are_in_the_prompt_language(language: str) -> None:
    """A broken reply, then one the check rejects, then a good one: both follow-ups the helper
    writes are in the prompt's language, through the router as the writer calls it."""
    good = '{"summary": "' + SAMPLES[language]["event"] + '"}'
    model = Recording(responses=['{"summary": }', '{"summary": "x"}', good])
    router = ModelRouter(Settings(), models={"planner": model})
    messages = rendered("summary", language)

    value = router.structured("planner", BeatSummary, messages, check=rejects_short)

    assert value.summary == SAMPLES[language]["event"]
    assert len(model.prompts) == 3
    follow_ups = [m.text for m in model.prompts[-1] if isinstance(m, HumanMessage)][1:]
    assert len(follow_ups) == 2
    repair_lead = instructions.text("repair", language).split("{error}")[0]
    assert all(f.startswith(repair_lead) for f in follow_ups)
    assert instructions.text("not_json", language).split("{")[0] in follow_ups[0]
    assert instructions.text("rejected", language) in follow_ups[1]
    for conversation in model.prompts:
        text = "\n".join(m.text for m in conversation if not isinstance(m, AIMessage))
        assert not [line for line in ENGLISH_LINES if line in text], text


def test_english_prompts_keep_english_lines() -> None:
    model = Recording(responses=["not json", '{"summary": "The gate opens."}'])
    value = generate_structured(
        model, BeatSummary, [SystemMessage("You summarise."), HumanMessage("Summarise it.")]
    )
    assert value.summary == "The gate opens."
    text = "\n".join(m.text for m in model.prompts[-1])
    assert "Reply with one JSON object only" in text
    assert "Your previous reply was rejected because the reply is not valid JSON" in text


def test_prompt_language_reads_the_writers_turns_only() -> None:
    korean = HumanMessage("진도준이 할아버지 앞에서 주가 폭락을 예언한다. Name: Jin")
    assert instructions.prompt_language([korean]) == "ko"
    assert instructions.prompt_language([HumanMessage("林晚在祖父面前预言股市暴跌")]) == "zh"
    assert instructions.prompt_language([HumanMessage("Write the beat.")]) == "en"
    assert instructions.prompt_language([]) == "en"
    # an English reply of the model does not make a Korean conversation English
    reply = AIMessage("The mark confesses to a hidden offshore account " * 5)
    assert instructions.prompt_language([korean, reply]) == "ko"
