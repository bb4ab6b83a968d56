"""The writer's style and the speakers' voices reach the prose prompt within its budget; edits
become style evidence; a beat with three or more speakers is planned before its prose."""

from __future__ import annotations

import json
from typing import Any

from aizac.dialogue.cards import PairVoice, VoiceCard
from aizac.dialogue.memory import note_card, note_pair
from aizac.llm.embeddings import HashingEmbeddings
from aizac.style import WriterStyle
from aizac.tokens import count_tokens

from .conftest import AgentFactory

WRITER_PROSE = ("Kang Jun ran. The gate hissed.\n\"Move,\" he said.\nThud. Thud.\n"
                "He did not look back. Yuna followed.")
TRIO = ["Kang Jun", "Seo Yuna", "Han Rok"]


def _style(agent: Any) -> WriterStyle:
    style = WriterStyle(agent.style.book, "en", HashingEmbeddings())
    agent.style = agent.prose_writer.style = style
    return style


def _prose_prompts(models: dict[str, Any]) -> list[str]:
    return [p for k, p in models["writer"].calls if k == "prose"]


def test_an_edited_draft_is_evidence_and_the_writers_style_reaches_the_next_prompt(
        make_agent: AgentFactory) -> None:
    agent, models, _ = make_agent(context_tokens=400)
    style = _style(agent)
    agent.plan()
    first = agent.next_beat()
    agent.accept(first.id)
    "".join(agent.write_prose(first.id))
    assert "The author's style" not in _prose_prompts(models)[0]  # nothing of theirs yet
    drafted = agent.store.beat(first.id).prose
    assert drafted and not style.profile().ready  # the model's prose is not the writer's
    agent.save_prose(first.id, WRITER_PROSE)
    profile = style.profile()
    assert profile.ready and profile.edits == 1
    second = agent.next_beat()
    agent.accept(second.id)
    "".join(agent.write_prose(second.id))
    prompt = _prose_prompts(models)[-1]
    assert "## The author's style" in prompt and "sentences average" in prompt
    assert "Kang Jun ran. The gate hissed." in prompt  # the writer's own passage, few-shot
    notes = agent.prose_writer.last_notes
    block = "## The author's style" + prompt.split("## The author's style")[1].split(
        "\n\nThe story so far")[0]
    assert notes.style == count_tokens(block.strip()) > 0
    assert notes.style + notes.dialogue + notes.context <= 400  # the budget they had before


def test_a_beat_edit_is_style_evidence_too(make_agent: AgentFactory) -> None:
    agent, _, _ = make_agent()
    agent.plan()
    draft = agent.next_beat()
    edited = draft.beat.model_dump()
    edited["events"] = ["Kang Jun walks in. Alone."]
    agent.edit_beat(draft.id, edited)
    passage = next(p for p in agent.style.book.passages() if p.kind == "beat")
    assert "Kang Jun enters a gate" in passage.model_text
    assert "Kang Jun walks in. Alone." in passage.writer_text


def _trio_beat() -> str:
    return json.dumps({
        "location": "Guild hall", "time": "night", "characters": TRIO,
        "events": ["The three argue over the gate"],
        "dialogue": [{"speaker": "Kang Jun", "line": "We go in tonight."},
                     {"speaker": "Seo Yuna", "line": "Not without a healer, sir."},
                     {"speaker": "Han Rok", "line": "Whatever, boss."}],
    })


PLAN = json.dumps({"turns": [
    {"speaker": "Kang Jun", "to": "Seo Yuna", "wants": "her help", "gist": "go tonight"},
    {"speaker": "Seo Yuna", "to": "Kang Jun", "wants": "safety", "gist": "needs a healer"},
    {"speaker": "Han Rok", "to": "Kang Jun", "wants": "a fight", "gist": "mocks the plan"},
    {"speaker": "Nobody", "to": "Kang Jun", "wants": "-", "gist": "not in the scene"},
]})


def test_three_speakers_get_a_dialogue_plan_and_only_the_speakers_voices(
        make_agent: AgentFactory) -> None:
    from tests.fakes import fake_models

    models = fake_models(planner={"beat": _trio_beat(), "dialogue_plan": PLAN})
    agent, models, memory = make_agent(models=models)
    agent.plan()
    batch = memory.stage()
    for name in ("Seo Yuna", "Han Rok", "Old Mentor"):
        batch.remember(f"{name} — a hunter", "Character", character_name=name)
    note_pair(batch, PairVoice("Seo Yuna", "Kang Jun", "polite", "sir"), "en")
    note_card(batch, VoiceCard("Han Rok", "blunt", catchphrases=("whatever, boss",)), "en")
    note_card(batch, VoiceCard("Old Mentor", "archaic", catchphrases=("mark my words",)), "en")
    batch.commit()
    draft = agent.next_beat()
    agent.accept(draft.id)
    "".join(agent.write_prose(draft.id))
    assert "dialogue_plan" in models["planner"].kinds()
    prompt = _prose_prompts(models)[-1]
    assert "## Dialogue plan" in prompt and "1. Kang Jun to Seo Yuna: go tonight" in prompt
    assert "Nobody" not in prompt  # the plan's turns are the scene's speakers only
    assert "Seo Yuna to Kang Jun: polite speech; calls them 'sir'" in prompt
    assert "How Han Rok speaks: blunt" in prompt
    assert "Old Mentor" not in prompt  # not a speaker of this beat
    assert agent.prose_writer.last_notes.planned
    "".join(agent.write_prose(draft.id))  # written again: the plan is not asked for twice
    assert models["planner"].kinds().count("dialogue_plan") == 1


def test_two_speakers_get_no_plan_step(make_agent: AgentFactory) -> None:
    agent, models, _ = make_agent()
    agent.plan()
    draft = agent.next_beat()
    agent.accept(draft.id)
    "".join(agent.write_prose(draft.id))
    assert "dialogue_plan" not in models["planner"].kinds()
    assert not agent.prose_writer.last_notes.planned


def test_accept_logs_the_dialogue_findings_the_writer_was_shown(
        make_agent: AgentFactory) -> None:
    beat = json.dumps({
        "location": "Seoul gate", "time": "night", "characters": ["Kang Jun", "Seo Yuna"],
        "events": ["Yuna snaps"],
        "dialogue": [{"speaker": "Seo Yuna", "line": "Hey Jun, you gonna move or what?"}],
    })
    from tests.fakes import fake_models

    agent, _, memory = make_agent(models=fake_models(planner={"beat": beat}))
    agent.plan()
    batch = memory.stage()
    note_pair(batch, PairVoice("Seo Yuna", "Kang Jun", "polite", "sir"), "en")
    batch.commit()
    draft = agent.next_beat()
    report = agent.check_dialogue(draft.id)
    assert [f.kind for f in report.findings] == ["address_form", "speech_level"]
    agent.accept(draft.id)
    logged = [s for s in agent.store.steps() if s.kind == "dialogue-check"]
    assert logged and logged[0].detail["findings"][0][0] == "address_form"
