from __future__ import annotations

from aizac.memory import WriterMemory
from aizac.retrieval.context import Scene, build_context, overlap_score

Story = tuple[WriterMemory, dict[str, str]]


def scene() -> Scene:
    return Scene(characters=["강미라", "Lee Youngmin"], location="Jade Gate",
                 query="Mira confronts Youngmin at the gate", act_goal="Reveal the seal")


def test_pack_holds_each_section_in_priority_order(story: Story) -> None:
    mem, ids = story
    pack = build_context(mem, scene(), 2000, reinforce=False)
    by_section = {s: [i.memory_id for i in pack.section(s)] for s in
                  ("characters", "relations", "settings", "summary", "foreshadowing", "core")}
    assert set(by_section["characters"]) == {ids["mira"], ids["youngmin"]}
    assert by_section["relations"] == [ids["rel_new"]]  # current relation only
    assert ids["gate"] in by_section["settings"]
    assert len(by_section["summary"]) == 2
    # the pinned omen is open foreshadowing; it is kept once, in the higher section
    assert by_section["foreshadowing"] == [ids["omen"]] and by_section["core"] == []
    text = pack.render()
    assert text.startswith("Act goal: Reveal the seal\nLocation: Jade Gate")
    assert "old friends" not in text and "plum wine" not in text  # superseded, forgotten
    assert pack.tokens <= 2000


def test_tight_budget_keeps_the_pinned_fact_and_drops_the_rest_first(story: Story) -> None:
    mem, ids = story
    full = build_context(mem, scene(), 2000, reinforce=False)
    tight = build_context(mem, scene(), full.tokens // 3, reinforce=False)
    kept = {i.memory_id for i in tight.items}
    assert ids["omen"] in kept
    assert tight.tokens <= full.tokens // 3
    assert len(tight.items) < len(full.items)


def test_building_a_pack_reinforces_what_it_used(story: Story) -> None:
    mem, ids = story
    before = mem.get(ids["gate"]).strength
    build_context(mem, scene(), 2000)
    assert mem.get(ids["gate"]).strength == before + 1
    before_trivia = mem.get(ids["trivia"]).strength
    assert mem.get(ids["trivia"]).strength == before_trivia  # not in the pack


def test_overlap_score() -> None:
    assert overlap_score("The Jade Gate closes", ["jade gate"]) == 1.0
    assert overlap_score("nothing here", ["jade gate"]) == 0.0
    assert overlap_score("anything", []) == 0.0


def test_ties_are_ordered_by_chapter_then_text_whatever_the_store_order() -> None:
    from dataclasses import dataclass, field
    from typing import Any

    from aizac.retrieval.context import _top

    @dataclass
    class H:
        text: str
        metadata: dict[str, Any] = field(default_factory=dict)
        id: str = ""
        tag: str = "Story"
        pinned: bool = True
        memory_factor: float = 10.0

    hits = [H("b seal", {"chapter": 1}), H("a seal", {"chapter": 1}), H("c", {"chapter": 2}),
            H("d seal", {"chapter": 0})]
    for order in (hits, hits[::-1]):
        top = [h.text for h, _ in _top(order, ["seal"], 3)]
        assert top == ["a seal", "b seal", "d seal"]  # by score, later chapter, then text
