"""Rolling outline: the next arc from what happened, stored atomically."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage

from aizac.autopilot.outline import ArcOutline, OutlineStore, outline_next_arc
from aizac.errors import InvalidInputError, StorageError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.writer.schemas import NovelPlot

PLOT = NovelPlot.model_validate({
    "title": "재벌집 막내", "logline": "회귀한 막내가 그룹을 되찾는다.", "genre": "현대 판타지",
    "characters": [{"name": "진도준", "role": "주인공", "profile": "회귀자"}],
    "acts": [{"stage": s, "goal": f"{s} 목표", "episodes": 3, "key_events": [f"{s} 사건"]}
             for s in ("exposition", "development", "crisis", "climax", "resolution")],
})


SEEN: list[list[BaseMessage]] = []


class Recording(GenericFakeChatModel):
    """A fake that records the conversations it was sent (in ``SEEN``)."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
        SEEN.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def arc(n: int) -> dict[str, object]:
    return {"title": "반격", "goal": "진도준이 반격한다",
            "episodes": [{"episode": 99, "goal": f"목표 {i}"} for i in range(n)]}


@pytest.fixture
def mem() -> Iterator[WriterMemory]:
    memory = WriterMemory(embeddings=HashingEmbeddings(),
                          settings=Settings(memory_threshold=1.0, short_term_tokens=256))
    with memory.stage() as b:
        b.remember("진도준이 순양 주식을 몰래 사들였다", "Story", chapter=3)
        b.remember("검은 반지의 주인은 누구인가", "Story", keyword="반지", foreshadow=True,
                   chapter=2)
    memory.short_term.add("3화: 진도준이 할아버지의 신임을 얻었다")
    yield memory
    memory.close()


def test_the_next_arc_comes_from_what_happened(mem: WriterMemory) -> None:
    model = Recording(messages=iter([AIMessage(content=json.dumps(arc(2))),
                                     AIMessage(content=json.dumps(arc(3), ensure_ascii=False))]))
    SEEN.clear()
    out = outline_next_arc(model, mem, PLOT, episodes=[4, 5, 6], language="ko")
    assert [(g.episode, g.goal) for g in out.episodes] == [(4, "목표 0"), (5, "목표 1"),
                                                            (6, "목표 2")]
    first = str(SEEN[0][-1].content)
    assert "진도준이 순양 주식을 몰래 사들였다" in first
    assert "진도준이 할아버지의 신임을 얻었다" in first
    assert "검은 반지의 주인은 누구인가" in first
    assert "4: [development] development 목표" in first
    assert len(SEEN) == 2  # two goals for three episodes was sent back


def test_bad_episode_ranges_are_refused(mem: WriterMemory) -> None:
    with pytest.raises(InvalidInputError):
        outline_next_arc(Recording(messages=iter([])), mem, PLOT, episodes=[], language="ko")


def test_the_store_replaces_goals_and_survives_reopening(tmp_path: Path) -> None:
    store = OutlineStore(tmp_path)
    store.add(ArcOutline.model_validate({"title": "A", "goal": "g", "episodes": [
        {"episode": 1, "goal": "하나"}, {"episode": 2, "goal": "둘"}]}))
    store.add(ArcOutline.model_validate({"title": "B", "goal": "g", "episodes": [
        {"episode": 2, "goal": "새 둘"}, {"episode": 3, "goal": "셋"}]}))
    again = OutlineStore(tmp_path)
    assert [again.goal_for(n) for n in (1, 2, 3, 4)] == ["하나", "새 둘", "셋", None]
    assert again.last_outlined() == 3
    assert [p.name for p in tmp_path.iterdir()] == ["outline.json"]  # no temporary left
    (tmp_path / "outline.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(StorageError, match="outline"):
        again.arcs()
