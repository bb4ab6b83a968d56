"""An accept through Studio and the real memory, with an extractor that refers by id
(issue 36): a name form it wrote is sent back and then learned, a value in the wrong language
never ends the serial, and an existing character is never re-profiled."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import Field

from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.profiles import ModelProfile, attach
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel, character_json, fake_models


class Extractor(GenericFakeChatModel):
    """An API-like extractor (one combined reply per beat) that answers from a list and keeps
    every conversation it was sent."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def extractor(*replies: dict[str, Any]) -> Extractor:
    model = Extractor(messages=iter([AIMessage(json.dumps(r, ensure_ascii=False))
                                     for r in replies]))
    attach(model, ModelProfile("openai-compatible", "prompt", combined_extraction_ok=True))
    return model


class NoCliches:
    def expand_keywords(self, keywords: list[str], k_tropes: int = 3, *,
                        genre: str | None = None) -> list[Any]:
        return []

    def suggest_next(self, current_beat: str, stage: str, *, trope: str | None = None,
                     k: int = 5) -> list[Any]:
        return []

    def genres(self) -> list[str]:
        return []


@pytest.fixture
def studio_for(tmp_path: Path) -> Iterator[Any]:
    made: list[Studio] = []

    def make(models: dict[str, Any], language: str = "en") -> Studio:
        settings = Settings(data_dir=tmp_path / "data", language=language,
                            structured_retries=2)
        studio = Studio(settings, models=models, embeddings=HashingEmbeddings(),
                        cliches=NoCliches(), concurrent_extraction=False)
        made.append(studio)
        return studio

    yield make


def test_a_name_form_is_an_alias_and_a_pronoun_is_sent_back_with_the_ids(
        studio_for: Any) -> None:
    """Before: 'Yuna' (Seo Yuna's given name, as the planner wrote it) became a new
    character, and her change replaced nothing. Now the profile call says whose name it is, the
    store learns it as her alias, and a reply that writes 'she' is asked to use an id."""
    profile = json.loads(character_json("Yuna", aliases=[]))
    models = fake_models(planner={"beat": json.dumps({
        "location": "Seoul gate", "time": "night", "characters": ["Kang Jun", "Yuna"],
        "events": ["Yuna leaves for the north gate"], "dialogue": []}),
        "character": json.dumps({**profile, "same_as": "Seo Yuna"})})
    said = {"summary": "Yuna left for the north gate."}
    wrong = {**said, "characters": {"facts": [
        {"who": "she", "aspect": "whereabouts", "text": "She went to the north gate."}]}}
    right = {**said, "characters": {"facts": [
        {"who": "c2", "aspect": "whereabouts", "text": "She went to the north gate."}]}}
    model = extractor(wrong, right)
    studio = studio_for({**models, "extractor": model})
    agent = studio.create("saga", "regression", genre="fantasy", language="en")
    agent.plan()
    agent.accept(agent.next_beat().id)
    assert len(model.seen) == 2
    assert "c1 Kang Jun\nc2 Seo Yuna (Yuna)" in str(model.seen[0][-1].content)
    repair = str(model.seen[1][-1].content)
    assert "'she' is not in the cast" in repair and "c2 Seo Yuna" in repair
    cast = agent.memory.characters()
    assert "Yuna" not in cast and "Yuna" in cast["Seo Yuna"]  # no new character: an alias
    assert [h.text for h in agent.memory.character_state("Yuna")
            if h.metadata.get("aspect") == "whereabouts"] == ["She went to the north gate."]


def test_a_value_in_another_language_never_ends_the_serial(studio_for: Any) -> None:
    """Before: a Korean extraction under 50% Hangul was refused three times with a complaint
    that quoted no value, and the accept failed. Now the value is named; after the repair
    turns the rest is kept and that one is kept flagged."""
    planner = ScriptedChatModel()
    planner.speak_korean()
    english = {"summary": "아렌이 미라 앞에서 선택했다.", "characters": {"facts": [
        {"who": "c1", "aspect": "condition", "text": "Aren badly hurt his left leg today."},
        {"who": "c2", "aspect": "goal", "text": "미라는 아렌의 비밀을 캐내려 한다."}]}}
    model = extractor(english, english, english)
    studio = studio_for({"planner": planner, "writer": planner, "extractor": model},
                        language="ko")
    agent = studio.create("귀환", "회귀", genre="판타지", language="ko")
    agent.plan()
    done = agent.accept(agent.next_beat().id)
    assert done.status == "accepted" and len(model.seen) == 3
    assert "Aren badly hurt his left leg today." in str(model.seen[1][-1].content)
    facts = {h.text: str(h.metadata.get("flag")) for h in agent.memory.all()}
    assert facts["Aren badly hurt his left leg today."] == "language"
    assert facts["미라는 아렌의 비밀을 캐내려 한다."] == ""


def test_an_existing_character_is_never_re_profiled(tmp_path: Path) -> None:
    from aizac.memory import WriterMemory
    from aizac.writer import extraction
    from aizac.writer.schemas import CharacterProfile, NovelBeat

    mem = WriterMemory(embeddings=HashingEmbeddings(), settings=Settings(data_dir=tmp_path))
    with mem.stage() as b:
        old = b.remember("Gu Heng — the antagonist.", "Character", character_name="Gu Heng",
                         aspect="profile")
    beat = NovelBeat(episode=19, index=1, location="hall", time="night",
                     characters=["Gu Heng"], events=["A bystander watches."])
    bystander = CharacterProfile(name="Gu Heng", role="extra", profile="A bystander.",
                                 goal="To watch.")
    batch, _ = extraction.stage(mem, extraction.Extracted(), beat, new_characters=[bystander])
    batch.commit()
    assert [h.id for h in mem.character_state("Gu Heng")
            if h.metadata.get("aspect") == "profile"] == [old]
