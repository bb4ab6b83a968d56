"""Prompts from memory: a character's look as the story stood at the beat (superseded looks never
reach a later picture, a later look never an earlier one) and no spoiler in any prompt."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aizac.illustration.drafting import prompt_for_beat, prompt_for_cover
from aizac.illustration.looks import Fact, holds_at, look_at, standing
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.writer.schemas import Act, NovelBeat, NovelPlot, PlotCharacter

SEO = "한서아"


@pytest.fixture
def mem() -> Iterator[WriterMemory]:
    memory = WriterMemory(embeddings=HashingEmbeddings(), settings=Settings())
    yield memory
    memory.close()


def _look(memory: WriterMemory, text: str, keyword: str, chapter: int, beat: int = 1) -> None:
    """An appearance fact as the extraction writes it (a candidate batch, its one rule)."""
    batch = memory.stage()
    batch.note(text, "Character", character_name=SEO, aspect="appearance", keyword=keyword,
               chapter=chapter, beat=beat)
    batch.commit()


def _beat(episode: int, index: int = 1, **changes: object) -> NovelBeat:
    fields: dict[str, object] = {
        "location": "검의 탑 3층", "time": "새벽", "characters": [SEO, "백도현"],
        "events": ["서아가 검을 뽑는다"], "emotions": ["긴장"],
        "sets_up": ["탑주의 정체가 드러날 복선"], "pays_off": ["첫 화의 약속"],
    }
    fields.update(changes)
    return NovelBeat(episode=episode, index=index, **fields)  # type: ignore[arg-type]


def _story(memory: WriterMemory) -> None:
    _look(memory, "허리까지 오는 검은 머리", "머리", 1)
    _look(memory, "회색 눈동자", "눈", 1)
    _look(memory, "새하얗게 센 짧은 머리", "머리", 30)  # supersedes the black hair
    _look(memory, "왼뺨을 가로지르는 흉터", "흉터", 40)


def test_a_superseded_look_never_reaches_a_later_prompt(mem: WriterMemory) -> None:
    _story(mem)
    old = next(h for h in mem.all() if "검은 머리" in h.text)
    assert old.superseded  # the memory's own rule replaced it (same slot: 머리)
    for episode in (30, 31, 45, 200):
        text = prompt_for_beat(mem, _beat(episode), language="ko").text
        assert "검은 머리" not in text, episode
        assert "새하얗게 센 짧은 머리" in text and "회색 눈동자" in text


def test_a_look_appears_from_its_episode_on_and_not_before(mem: WriterMemory) -> None:
    _story(mem)
    early = prompt_for_beat(mem, _beat(12), language="ko").text  # drawn after ep 40 was written
    assert "검은 머리" in early and "회색 눈동자" in early
    assert "흉터" not in early and "새하얗게" not in early
    assert "흉터" not in prompt_for_beat(mem, _beat(39), language="ko").text
    assert "왼뺨을 가로지르는 흉터" in prompt_for_beat(mem, _beat(40), language="ko").text


def test_two_pictures_of_one_moment_draw_a_character_alike(mem: WriterMemory) -> None:
    _story(mem)
    first = prompt_for_beat(mem, _beat(41, 1), language="ko")
    second = prompt_for_beat(mem, _beat(41, 2, location="폐허가 된 성문", characters=[SEO]),
                             language="ko")
    line = next(x for x in first.text.splitlines() if x.startswith(f"- {SEO}"))
    assert line in second.text.splitlines()
    assert line == f"- {SEO}: 회색 눈동자; 새하얗게 센 짧은 머리; 왼뺨을 가로지르는 흉터"


def test_a_look_does_not_fade_with_the_memory(mem: WriterMemory) -> None:
    _look(mem, "허리까지 오는 검은 머리", "머리", 1)
    mem.advance(2000)  # far past the Character memory's forgetting bound
    (held,) = mem.character_state(SEO)  # a current look is held: it faded, it is not gone
    assert not held.vivid  # the writer's context is no longer offered it unasked ...
    assert "검은 머리" in prompt_for_beat(mem, _beat(300), language="ko").text  # ... the look not


def test_a_look_the_writer_forgot_is_not_drawn(mem: WriterMemory) -> None:
    _look(mem, "허리까지 오는 검은 머리", "머리", 1)
    mem.forget(mem.all()[0].id)
    assert "검은 머리" not in prompt_for_beat(mem, _beat(5), language="ko").text


def test_an_alias_in_the_cast_reads_the_characters_look(mem: WriterMemory) -> None:
    mem.remember(f"{SEO} — 검사", "Character", character_name=SEO, aliases=["서아"], chapter=0)
    _look(mem, "회색 눈동자", "눈", 1)
    text = prompt_for_beat(mem, _beat(2, characters=["서아"]), language="ko").text
    assert f"- {SEO}: 회색 눈동자" in text


def _plot() -> NovelPlot:
    def act(stage: str, goal: str, event: str) -> Act:
        return Act(stage=stage, goal=goal, episodes=10, key_events=[event])  # type: ignore[arg-type]

    return NovelPlot(
        title="검의 탑", logline="서아는 사실 탑주의 딸이다", genre="판타지",
        keywords=["회귀", "복수"],
        characters=[PlotCharacter(name=SEO, role="주인공", profile="탑주의 숨겨진 딸"),
                    PlotCharacter(name="백도현", role="조력자", profile="끝내 배신한다")],
        acts=[act("exposition", "탑에 오른다", "입탑 시험"),
              act("development", "동료를 얻는다", "도현과 계약"),
              act("crisis", "탑이 무너진다", "스승의 죽음"),
              act("climax", "도현의 배신", "탑주와의 결전"),
              act("resolution", "새 탑주", "왕좌에 오른다")],
    )


def test_no_spoiler_reaches_a_scene_or_cover_prompt(mem: WriterMemory) -> None:
    _story(mem)
    plot = _plot()
    mem.remember("검의 탑: 백 층짜리 시험의 탑", "NovelSetting", keyword="검의 탑", chapter=0)
    mem.remember("검의 탑의 꼭대기는 감옥이다", "NovelSetting", keyword="검의 탑", chapter=45)
    later_acts = [w for a in plot.acts[1:] for w in (a.goal, *a.key_events)]
    scene = prompt_for_beat(mem, _beat(3), language="ko")
    cover = prompt_for_cover(mem, plot, language="ko", keywords=plot.keywords)
    for prompt in (scene, cover):
        for secret in [*later_acts, plot.logline, "숨겨진 딸", "배신", "감옥", "흉터", "새하얗게",
                       "복선", "첫 화의 약속"]:
            assert secret not in prompt.text, (prompt.kind, secret)
    assert "백 층짜리 시험의 탑" in scene.text  # the world fact the scene touches, as of then
    assert "검은 머리" in cover.text and "회색 눈동자" in cover.text  # the cast as it opens
    assert cover.card.title == "검의 탑" and cover.card.genre == "판타지"
    assert set(scene.sources) <= {h.id for h in mem.all()}


def test_facts_hold_from_where_they_were_established_until_replaced() -> None:
    meta = {"tag": "Character", "character_name": SEO, "aspect": "appearance",
            "keyword": "머리", "chapter": 3, "beat": 2}
    fact = Fact("a", "검은 머리", meta, replaced_at=(7, 1))
    assert not holds_at(fact, (3, 1)) and holds_at(fact, (3, 2)) and holds_at(fact, (7, 0))
    assert not holds_at(fact, (7, 1))
    newer = Fact("b", "흰 머리", {**meta, "chapter": 7, "beat": 1})
    twin = Fact("c", "붉은 머리", {**meta, "chapter": 5})  # older data: never superseded
    assert [f.id for f in standing([fact, newer, twin], (6, 0))] == ["c"]
    assert look_at(SEO, [fact, newer], (9, 9)).texts == ["흰 머리"]
    assert look_at(SEO, [fact, newer], (9, 9), limit=0).texts == []


def test_looks_and_style_written_as_sentences_join_cleanly(mem: WriterMemory) -> None:
    """Issue 39 item 12: a look or a style the model or writer closed with a full stop made
    "..", and ".," between two looks."""
    _look(mem, "허리까지 오는 검은 머리.", "머리", 1)
    _look(mem, "회색 눈동자.", "눈", 1)
    scene = prompt_for_beat(mem, _beat(3), language="ko", style="수채화 풍.")
    cover = prompt_for_cover(mem, _plot(), language="ko", keywords=["회귀."], style="유화.")
    for prompt in (scene, cover):
        assert ".." not in prompt.text and ".," not in prompt.text, prompt.text
    assert scene.text.startswith("수채화 풍.\n") and cover.text.startswith("유화.\n")
    looks = next(line for line in cover.text.splitlines() if line.startswith(f"- {SEO}: "))
    assert sorted(looks.split(": ", 1)[1].split("; ")) == ["허리까지 오는 검은 머리", "회색 눈동자"]
