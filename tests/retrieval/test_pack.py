from aizac.retrieval.pack import (
    SECTIONS,
    TRIM_ORDER,
    PackItem,
    assemble_pack,
    trim_order,
)
from aizac.tokens import count_tokens


def item(section: str, text: str, *, pinned: bool = False, relevance: float = 0.0,
         mid: str | None = None) -> PackItem:
    return PackItem(section=section, text=text, pinned=pinned, relevance=relevance,
                    memory_id=mid)


def sample() -> list[PackItem]:
    return [
        item("characters", "Mira: a swordswoman who distrusts the guild.", mid="c1"),
        item("relations", "Mira and Jun: sworn rivals since chapter 3.", mid="r1"),
        item("settings", "The Jade Gate closes at dusk.", relevance=0.9, mid="s1"),
        item("settings", "Hanseong markets sell river fish.", relevance=0.1, mid="s2"),
        item("summary", "Mira left the guild hall.", relevance=1.0),
        item("summary", "Jun followed her to the gate.", relevance=2.0),
        item("foreshadowing", "A cracked jade seal waits in the well.", mid="f1"),
        item("core", "The One Ring must be destroyed in the end.", pinned=True, mid="p1"),
        item("story", "Mira once ate dumplings at the pier.", relevance=0.2, mid="t1"),
    ]


def test_trim_order_is_explicit_and_pinned_goes_last() -> None:
    assert TRIM_ORDER == (
        "story", "settings", "summary", "foreshadowing", "relations", "characters", "core"
    )
    assert set(TRIM_ORDER) == set(SECTIONS)
    order = [i.memory_id or i.text for i in trim_order(sample())]
    assert order[0] == "t1"  # trivia first
    assert order.index("s2") < order.index("s1")  # least relevant setting first
    assert order.index("Mira left the guild hall.") < order.index("Jun followed her to the gate.")
    assert order[-1] == "p1"  # pinned core memory last


def test_pinned_item_outranks_every_unpinned_item_in_any_section() -> None:
    pinned_story = item("story", "Episode one: the ring was hidden.", pinned=True, mid="ps")
    ordered = trim_order([*sample(), pinned_story])
    unpinned = [i for i in ordered if not i.pinned]
    assert ordered.index(pinned_story) > max(ordered.index(i) for i in unpinned)


def test_everything_fits_with_a_large_budget_and_renders_in_priority_order() -> None:
    pack = assemble_pack(sample(), 10_000, act_goal="Reach the gate", location="Hanseong")
    assert len(pack.items) == len(sample()) and not pack.dropped
    text = pack.render()
    assert text.startswith("Act goal: Reach the gate\nLocation: Hanseong")
    positions = [text.index(h) for h in ("Characters present", "Relationships", "world facts",
                                         "Recent summary", "foreshadowing", "Core facts",
                                         "earlier events")]
    assert positions == sorted(positions)
    assert pack.tokens == count_tokens(text)


def test_trimming_drops_trivia_first_and_keeps_core_facts() -> None:
    full = assemble_pack(sample(), 10_000).tokens
    for budget in range(full - 1, 0, -3):
        pack = assemble_pack(sample(), budget)
        assert pack.tokens <= budget
        kept = {i.memory_id for i in pack.items}
        # trivia is the first thing to go (at most cut short)
        assert all(i.truncated for i in pack.items if i.memory_id == "t1")
        assert "p1" in kept or not kept  # core goes only when nothing else is left
    assert "p1" in {i.memory_id for i in assemble_pack(sample(), 25).items}


def test_within_a_section_dropped_items_never_rank_above_kept_ones() -> None:
    ranks = {i.memory_id or i.text: n for n, i in enumerate(trim_order(sample()))}
    for budget in (40, 60, 80, 100):
        pack = assemble_pack(sample(), budget)
        for section in SECTIONS:
            kept = [ranks[i.memory_id or i.text] for i in pack.items
                    if i.section == section and not i.truncated]
            dropped = [ranks[i.memory_id or i.text] for i in pack.dropped
                       if i.section == section]
            if kept and dropped:
                assert max(dropped) < min(kept)


def test_a_long_summary_cannot_starve_world_rules() -> None:
    """Issue 16: the Korean recent summary (up to 1,200 tokens) used to fill a 900-token pack
    and push every rule out."""
    summary = [item("summary", f"{n}번째 장면: 진도준은 순양그룹 본사에서 회장과 맞섰고 모두가 "
                    "숨을 죽였다.", relevance=n) for n in range(60)]
    rules = [item("settings", f"규칙 {n}: 마나는 달이 뜰 때만 회복된다.", relevance=1 - n,
                  mid=f"rule{n}") for n in range(3)]
    states = [item("characters", f"인물{n}: 다리를 다쳤다", relevance=-n, mid=f"c{n}")
              for n in range(4)]
    pack = assemble_pack([*summary, *rules, *states], 900)
    assert pack.tokens <= 900
    assert {i.memory_id for i in pack.section("settings")} == {"rule0", "rule1", "rule2"}
    assert len(pack.section("characters")) == 4
    assert pack.section("summary")
    assert pack.section("summary")[-1].text.startswith("59번째")  # the newest lines stay


def test_first_item_that_does_not_fit_is_cut_then_the_rest_dropped() -> None:
    long_core = item("core", "The seal " + "binds the sea king " * 40, pinned=True, mid="p")
    pack = assemble_pack([long_core, item("story", "trivia", mid="t")], 30)
    assert [i.memory_id for i in pack.items] == ["p"]
    assert pack.items[0].truncated
    assert pack.tokens <= 30
    assert [i.memory_id for i in pack.dropped] == ["t"]


def test_duplicate_memory_is_kept_once_in_the_higher_section_and_stays_pinned() -> None:
    items = [
        item("core", "Mira carries the ring.", pinned=True, mid="x"),
        item("characters", "Mira carries the ring.", mid="x"),
    ]
    pack = assemble_pack(items, 1000)
    assert [(i.section, i.pinned) for i in pack.items] == [("characters", True)]


def test_zero_budget_gives_an_empty_pack() -> None:
    pack = assemble_pack(sample(), 0)
    assert pack.items == [] and pack.tokens == 0 and len(pack.dropped) == len(sample())
