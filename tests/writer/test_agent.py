from __future__ import annotations

import pytest

from aizac.errors import InvalidInputError, StructuredOutputError
from tests.fakes import SPOILER, beat_json, fake_models

from .conftest import AgentFactory


def test_plan_puts_retrieved_cliches_in_the_prompt_and_seeds_memory(
    make_agent: AgentFactory,
) -> None:
    agent, models, memory = make_agent()
    record = agent.plan()
    assert record.plot.title == "The Second Life"
    kind, prompt = models["planner"].calls[0]
    assert kind == "plot"
    # The modern-fantasy trope that carries both 회귀 and 복수 in the database is in the prompt.
    assert "chaebol-regression" in prompt
    assert "회귀" in prompt
    assert record.tropes and record.tropes in prompt
    assert set(memory.characters()) == {"Kang Jun", "Seo Yuna"}
    assert len(record.memory_ids) == 3
    # A second plan() returns the stored plot without calling the model again.
    agent.plan()
    assert models["planner"].kinds() == ["plot"]


def test_routing_each_step_goes_to_its_role(make_agent: AgentFactory) -> None:
    agent, models, _ = make_agent()
    agent.plan()
    draft = agent.next_beat()
    agent.accept(draft.id)
    "".join(agent.write_prose())
    assert models["planner"].kinds() == ["plot", "beat"]
    assert sorted(models["extractor"].kinds()) == sorted(
        ["extract_Story", "extract_Character", "extract_CharacterRelation",
         "extract_NovelSetting", "summary"]
    )
    assert models["writer"].kinds() == ["prose"]


def test_extraction_calls_run_concurrently(make_agent: AgentFactory) -> None:
    agent, models, _ = make_agent()
    agent.plan()
    agent.accept(agent.next_beat().id)
    assert models["extractor"].max_in_flight == 5


def test_serial_extraction_when_asked(make_agent: AgentFactory) -> None:
    agent, models, _ = make_agent(concurrent_extraction=False)
    agent.plan()
    agent.accept(agent.next_beat().id)
    assert models["extractor"].max_in_flight == 1


def test_information_hiding_climax_spoiler_never_reaches_earlier_prompts(
    make_agent: AgentFactory,
) -> None:
    # One beat per episode and one episode per act: episodes 1-3 are the acts before the climax.
    agent, models, _ = make_agent(beats_per_episode=1)
    agent.plan()
    for _episode in (1, 2, 3):
        draft = agent.next_beat()
        agent.accept(draft.id)
        "".join(agent.write_prose(draft.id))
    seen = [(k, p) for m in models.values() for k, p in m.calls if k in ("beat", "prose")]
    assert len(seen) == 6
    assert all(SPOILER not in p for _, p in seen)
    # Nor does any other prompt after planning (extraction, summaries, characters).
    others = [p for m in models.values() for k, p in m.calls if k != "plot"]
    assert len(others) == 6 + 3 * 5 and all(SPOILER not in p for p in others)
    stages = [p for k, p in models["planner"].calls if k == "beat"]
    assert "exposition goal" in stages[0] and "crisis goal" in stages[2]
    assert "development goal" not in stages[0]  # only the current act, not the whole plan
    # The climax act's beat does get its own goal: the check above can fail.
    agent.accept(agent.next_beat().id)
    climax_prompt = [p for k, p in models["planner"].calls if k == "beat"][-1]
    assert SPOILER in climax_prompt


def test_rejected_beat_leaves_memory_unchanged(make_agent: AgentFactory) -> None:
    agent, models, memory = make_agent()
    agent.plan()
    before = memory.snapshot()
    draft = agent.next_beat()
    rejected = agent.reject(draft.id)
    assert rejected.status == "rejected"
    assert memory.snapshot() == before
    assert models["extractor"].calls == []
    # The next draft takes the same position; accepting it changes memory.
    again = agent.next_beat()
    assert (again.episode, again.index) == (1, 1) and again.id != draft.id
    accepted = agent.accept(again.id)
    assert memory.turn == 1 and memory.short_term.lines == ["Kang Jun cleared a gate with Yuna."]
    assert accepted.memory_ids and all(i in memory.items for i in accepted.memory_ids)
    tags = sorted(memory.items[i].tag for i in accepted.memory_ids)
    assert tags == ["Character", "CharacterRelation", "NovelSetting", "Story"]
    # the self-relation the extractor produced was dropped, not stored
    assert all(memory.items[i].text != "self" for i in accepted.memory_ids)


def test_relation_that_changes_is_superseded(make_agent: AgentFactory) -> None:
    agent, _, memory = make_agent(beats_per_episode=3)
    agent.plan()
    agent.accept(agent.next_beat().id)
    first = memory.relation("Seo Yuna", "Kang Jun")
    assert first is not None
    agent.accept(agent.next_beat().id)
    second = memory.relation("Kang Jun", "Seo Yuna")
    assert second is not None and second.id != first.id
    assert memory.items[first.id].superseded_by == second.id


def test_dynamic_character_profile_is_created_and_stored_on_accept(
    make_agent: AgentFactory,
) -> None:
    models = fake_models(planner={"beat": beat_json(["Kang Jun", "Stranger"])})
    agent, models, memory = make_agent(models)
    agent.plan()
    draft = agent.next_beat()
    assert [p.name for p in draft.new_characters] == ["Stranger"]
    # "Kang Jun" as an alias would clash with an existing character: dropped.
    assert draft.new_characters[0].aliases == ["The Masked"]
    character_prompt = next(p for k, p in models["planner"].calls if k == "character")
    assert "Kang Jun" in character_prompt  # told which names exist
    assert "Stranger" not in memory.characters()  # a draft does not touch memory
    agent.accept(draft.id)
    assert memory.characters()["Stranger"] == ["The Masked"]
    # Known now: the next beat naming Stranger creates no new profile.
    nxt = agent.next_beat()
    assert nxt.new_characters == []
    assert [k for k, _ in models["planner"].calls].count("character") == 1


def test_sentences_in_the_beat_cast_do_not_become_characters(make_agent: AgentFactory) -> None:
    cast = ["Kang Jun", "The team pays off the damage.", "An alien ship arrives, and the team",
            "Dr. Seo"]
    models = fake_models(planner={"beat": beat_json(cast)})
    agent, models, _ = make_agent(models)
    agent.plan()
    draft = agent.next_beat()
    assert draft.beat.characters == ["Kang Jun", "Dr. Seo"]
    assert [p.name for p in draft.new_characters] == ["Dr. Seo"]


def test_a_writer_edit_keeps_every_name_as_typed(make_agent: AgentFactory) -> None:
    agent, _, _ = make_agent(fake_models())
    agent.plan()
    draft = agent.next_beat()
    edited = draft.beat.model_copy(update={"characters": ["Kang Jun", "The Man, Who Waits"]})
    agent.edit_beat(draft.id, edited, expected_version=draft.version)
    assert agent.store.beat(draft.id).beat.characters == ["Kang Jun", "The Man, Who Waits"]


def test_malformed_plot_is_a_clear_error_and_changes_nothing(make_agent: AgentFactory) -> None:
    models = fake_models(planner={"plot": "I cannot do JSON, sorry"})
    agent, models, memory = make_agent(models)
    with pytest.raises(StructuredOutputError) as err:
        agent.plan()
    assert "NovelPlot" in err.value.message
    assert agent.plot() is None and len(memory) == 0
    assert models["planner"].kinds() == ["plot", "plot"]  # retried once with the error


def test_malformed_extraction_leaves_beat_draft_and_memory_unchanged(
    make_agent: AgentFactory,
) -> None:
    models = fake_models(extractor={"extract_NovelSetting": '{"facts": [{"oops": 1}]}'})
    agent, _, memory = make_agent(models)
    agent.plan()
    draft = agent.next_beat()
    before = memory.snapshot()
    with pytest.raises(StructuredOutputError):
        agent.accept(draft.id)
    assert memory.snapshot() == before
    assert agent.store.beat(draft.id).status == "draft"


def test_edit_and_regenerate_a_draft(make_agent: AgentFactory) -> None:
    models = fake_models(planner={"beat": [beat_json(), beat_json(event="A calmer scene")]})
    agent, models, _ = make_agent(models)
    agent.plan()
    draft = agent.next_beat()
    edited = agent.edit_beat(
        draft.id, {**draft.beat.model_dump(), "location": "Busan"},
        expected_version=draft.version,
    )
    assert edited.beat.location == "Busan" and edited.version == draft.version + 1
    with pytest.raises(InvalidInputError):
        agent.edit_beat(draft.id, {**draft.beat.model_dump(), "characters": []})
    regen = agent.regenerate(draft.id, "less action")
    assert regen.beat.events == ["A calmer scene"]
    assert "less action" in [p for k, p in models["planner"].calls if k == "beat"][-1]


def test_accept_in_order_and_prose_only_for_accepted(make_agent: AgentFactory) -> None:
    agent, _, _ = make_agent()
    agent.plan()
    draft = agent.next_beat()
    with pytest.raises(InvalidInputError):
        "".join(agent.write_prose(draft.id))
    agent.accept(draft.id)
    text = "".join(agent.write_prose())
    assert "Kang Jun stepped in" in text
    assert agent.store.beat(draft.id).prose == text.strip()


def test_plot_edit_reseeds_memory_and_replanning_is_guarded(make_agent: AgentFactory) -> None:
    from aizac.errors import ConflictError

    agent, _, memory = make_agent()
    record = agent.plan()
    plot = record.plot.model_copy(deep=True)
    plot.characters[1].name = "Seo Mina"
    edited = agent.update_plot(plot, expected_version=record.version)
    assert edited.version == record.version + 1
    assert set(memory.characters()) == {"Kang Jun", "Seo Mina"}  # old seeds forgotten
    with pytest.raises(ConflictError):
        agent.update_plot(plot, expected_version=record.version)
    agent.accept(agent.next_beat().id)
    with pytest.raises(InvalidInputError, match="already accepted"):
        agent.plan(force=True)


def test_suggestions_come_from_the_cliche_database(make_agent: AgentFactory) -> None:
    agent, models, _ = make_agent()
    agent.plan()
    hits = agent.suggest()
    assert hits and all(h.stage in ("exposition", "development") for h in hits)
    agent.next_beat()
    beat_prompt = next(p for k, p in models["planner"].calls if k == "beat")
    assert hits[0].summary in beat_prompt  # the designer was offered the same development


def test_cancelled_prose_stream_saves_nothing(make_agent: AgentFactory) -> None:
    agent, _, _ = make_agent()
    agent.plan()
    accepted = agent.accept(agent.next_beat().id)
    stream = agent.write_prose(accepted.id)
    assert next(stream)
    stream.close()  # the writer pressed "cancel"
    assert agent.store.beat(accepted.id).prose is None
    "".join(agent.write_prose(accepted.id))
    assert agent.store.beat(accepted.id).prose


def test_names_match_like_memory_does(make_agent: AgentFactory) -> None:
    import json

    odd = json.dumps({"facts": [
        {"a": "Kang  Jun", "b": "kang jun", "text": "self"},
        {"a": "SEO YUNA", "b": "Kang Jun", "text": "Allies now."},
    ]})
    models = fake_models(
        extractor={"extract_CharacterRelation": odd},
        planner={"beat": beat_json(["Kang  Jun", "seo yuna"])},
    )
    agent, models, memory = make_agent(models)
    agent.plan()
    draft = agent.next_beat()
    assert draft.new_characters == []  # spacing and case variants are the known characters
    agent.accept(draft.id)
    relation = memory.relation("Kang Jun", "Seo Yuna")
    assert relation is not None and relation.text == "Allies now."
    assert not any(i.text == "self" for i in memory.items.values())
