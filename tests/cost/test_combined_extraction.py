"""One structured call for the four memory tags and the summary (models that declare it)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import Field, SecretStr

from aizac.llm.router import ModelRouter
from aizac.memory.references import WORDS, build_offer
from aizac.settings import Settings
from aizac.writer.combined import BeatExtraction, combined_extraction_ok, extract_combined
from aizac.writer.extraction import run_sync
from aizac.writer.prompts import LANGUAGES, PromptLibrary
from aizac.writer.schemas import NovelBeat

BEAT = NovelBeat.model_validate({
    "episode": 3, "index": 2, "location": "북문 시장", "time": "밤",
    "characters": ["강준", "서유나"], "events": ["강준이 서유나에게서 열쇠를 받는다"],
    "dialogue": [{"speaker": "강준", "line": "이번에는 놓치지 않아."}],
})
OFFER = build_offer([("강준", []), ("서유나", []), ("백호", [])],
                    [("m-tired", ("강준",), "char|강준|condition", "condition", "강준은 멀쩡하다")])
REPLY = {
    "story": {"facts": [{"text": "강준이 북문의 열쇠를 얻었다.", "keyword": "열쇠",
                         "foreshadow": True}]},
    "characters": {"facts": [{"who": "c1", "aspect": "condition", "text": "강준은 지쳐 있다.",
                              "replaces": ["f1"]}]},
    "relations": {"facts": [{"a": "c1", "b": "c2", "text": "둘은 서로를 믿기 시작했다."}]},
    "settings": {"facts": [{"keyword": "북문", "text": "북문은 밤에만 열린다."}]},
    "summary": "강준이 서유나에게서 북문의 열쇠를 받았다.",
}


class Recording(GenericFakeChatModel):
    """A fake chat model that keeps the messages of every call."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def test_one_call_gives_every_tag_and_the_summary(tmp_path: Path) -> None:
    model = Recording(messages=iter([AIMessage(json.dumps(REPLY, ensure_ascii=False))]))
    router = ModelRouter(Settings(data_dir=tmp_path), models={"extractor": model})
    found = run_sync(extract_combined(
        router, BEAT, offer=OFFER, language="ko", prompts=PromptLibrary()
    ))
    assert len(model.seen) == 1
    prompt = "\n".join(str(m.content) for m in model.seen[0])
    assert prompt.count("강준이 서유나에게서 열쇠를 받는다") == 1  # the beat is sent once
    assert "c1 강준\nc2 서유나\nc3 백호" in prompt and "JSON 객체 하나로만" in prompt
    assert "f1 [c1 condition] 강준은 멀쩡하다" in prompt
    r = found.resolution
    assert r.story[0].foreshadow and r.story[0].keyword == "열쇠"
    assert (r.characters[0].name, r.characters[0].outdates) == ("강준", ("m-tired",))
    assert {r.relations[0].a, r.relations[0].b} == {"강준", "서유나"}
    assert r.settings[0].text == "북문은 밤에만 열린다."
    assert found.summary == REPLY["summary"] and found.repairs == 0


def test_missing_lists_are_empty_and_a_missing_summary_is_repaired(tmp_path: Path) -> None:
    model = Recording(messages=iter([
        AIMessage('{"story": {"facts": []}}'),
        AIMessage('{"summary": "아무 일도 없었다."}'),
    ]))
    router = ModelRouter(Settings(data_dir=tmp_path, structured_retries=1),
                         models={"extractor": model})
    found = run_sync(extract_combined(
        router, BEAT, offer=OFFER, language="ko", prompts=PromptLibrary()
    ))
    assert len(model.seen) == 2 and "summary" in str(model.seen[1][-1].content)
    assert found.summary == "아무 일도 없었다." and found.resolution.relations == []


def test_a_reference_that_matches_nothing_is_sent_back_with_the_ids(tmp_path: Path) -> None:
    """Issue 36 item 1: '서아'-like name forms and ids that were not offered are a repair turn
    quoting what may be used, not a new character."""
    wrong = {**REPLY, "characters": {"facts": [
        {"who": "유나", "aspect": "condition", "text": "유나는 지쳐 있다."}]}}
    model = Recording(messages=iter([AIMessage(json.dumps(wrong, ensure_ascii=False)),
                                     AIMessage(json.dumps(REPLY, ensure_ascii=False))]))
    router = ModelRouter(Settings(data_dir=tmp_path), models={"extractor": model})
    found = run_sync(extract_combined(
        router, BEAT, offer=OFFER, language="ko", prompts=PromptLibrary()
    ))
    assert len(model.seen) == 2 and found.repairs == 1
    repair = str(model.seen[1][-1].content)
    assert "'유나'" in repair and "c1 강준, c2 서유나, c3 백호" in repair
    assert found.resolution.characters[0].name == "강준"


@pytest.mark.parametrize("language", LANGUAGES)
def test_templates_exist_and_name_every_field(language: str) -> None:
    """The prompt explains each section and flag once; the outline an OpenAI-compatible model
    is sent with it names every field (a JSON schema carries them for the other methods)."""
    from aizac.llm.methods import apply_plan, plan_structured
    from aizac.llm.profiles import ModelProfile, attach

    messages = PromptLibrary().render(
        "extract_combined", language, beat="BEAT", characters="NAMES", offer="OFFER"
    )
    text = "\n".join(str(m.content) for m in messages)
    for key in ("story", "foreshadow", "pays_off", "characters", "who", "aspect",
                "replaces", "relations", "speech_level", "settings", "rule", "revises",
                "summary"):
        assert key in text, (language, key)
    assert "BEAT" in text and "OFFER" in text
    api = attach(GenericFakeChatModel(messages=iter([])), ModelProfile("openai", "json_object"))
    plan = plan_structured(api, BeatExtraction.model_json_schema(), language=language)
    sent = "\n".join(str(m.content) for m in apply_plan(messages, plan, language))
    for key in ("who", "replaces", "revises", "keyword", "listener", "catchphrases"):
        assert f"{key}" in sent, (language, key)
    # the prompt explains aspect and rule: the outline does not say it again
    assert "which part of the character changed" not in sent


@pytest.mark.parametrize("language", ["ko", "zh"])
def test_korean_and_chinese_templates_have_no_english_prose(language: str) -> None:
    import re

    messages = PromptLibrary().render("extract_combined", language, beat="", characters="",
                                      offer="")
    text = "\n".join(str(m.content) for m in messages)
    # Field names, aspect values and "JSON" are the schema's own words; nothing else is Latin.
    schema_words = set(BeatExtraction.model_json_schema(mode="serialization").__str__().split("'"))
    schema_words |= {"JSON", "true", "pays_off", "aspect", "rule", "condition", "whereabouts",
                     "allegiance", "status", "ability", "emotion", "goal", "other", *WORDS}
    latin = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text))
    assert latin <= schema_words, latin - schema_words


def test_capability_is_declared_not_guessed(tmp_path: Path) -> None:
    from langchain_openai import ChatOpenAI

    from aizac.llm.profiles import attach, profile_of
    from aizac.llm.registry import row

    api = ChatOpenAI(model="m", base_url="http://127.0.0.1:9/v1", api_key=SecretStr("k"))
    local = row("local")
    assert local is not None
    small = attach(GenericFakeChatModel(messages=iter([])), local.profile)
    fake = GenericFakeChatModel(messages=iter([]))
    router = ModelRouter(Settings(data_dir=tmp_path),
                         models={"extractor": api, "planner": small, "writer": fake})
    assert profile_of(router.model("planner")).small_local
    assert combined_extraction_ok(router) is True  # an API model declares it
    assert combined_extraction_ok(router, role="planner") is False  # the small local model
    assert combined_extraction_ok(router, role="writer") is False  # unknown: per-tag calls
    assert combined_extraction_ok(SimpleNamespace()) is False  # not a router at all
