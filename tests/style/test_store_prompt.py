"""Style evidence on disk, few-shot selection and the style notes' token budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from aizac.errors import InvalidInputError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.style import StyleBook, WriterStyle, build_profile
from aizac.style.fewshot import nearest
from aizac.style.prompt import profile_lines, style_block
from aizac.tokens import count_tokens

SEA = "바다가 울었어. 파도가 방파제를 때렸어. 수아는 젖은 머리를 넘겼어… 쏴아, 쏴아."
FIRE = "불길이 치솟았어. 민호는 연기 속으로 뛰어들었어. 쾅! 천장이 무너졌어."
SCHOOL = "종이 울렸어. 민호는 가방을 챙겼어. 복도는 텅 비어 있었어. 수아가 기다렸어."


def book(tmp: Path, name: str = "novel") -> StyleBook:
    return StyleBook(tmp / name, name, writer_dir=tmp / "data")


def test_an_edit_is_kept_against_the_draft_and_a_new_draft_keeps_it_as_history(
        tmp_path: Path) -> None:
    b = book(tmp_path)
    b.record_model(7, "prose", "모델의 초고였다.", episode=2, index=1, language="ko")
    assert b.passages() == []  # the model's text is not the writer's
    b.record_writer(7, "prose", "작가가 고쳤어.", episode=2, index=1, language="ko")
    b.record_writer(7, "prose", "작가가 고쳤어.", episode=2, index=1, language="ko")  # no-op
    b.record_model(7, "prose", "다시 쓴 초고였다.", episode=2, index=1, language="ko")
    kept = b.passages()
    assert [(p.model_text, p.writer_text) for p in kept] == [("모델의 초고였다.", "작가가 고쳤어.")]
    assert [p.model_text for p in b.drafts(2)] == ["다시 쓴 초고였다."]  # drift: the current
    assert b.episodes() == [2]
    b.record_writer(8, "prose", "처음부터 내가 썼어.", episode=2, index=2, language="ko")
    assert {p.writer_text for p in b.passages("ko")} == {"작가가 고쳤어.", "처음부터 내가 썼어."}
    assert b.passages("en") == []


def test_the_writer_decides_whether_their_style_follows_them_across_projects(
        tmp_path: Path) -> None:
    first, second = book(tmp_path, "one"), book(tmp_path, "two")
    first.record_writer(1, "prose", SEA, episode=1, index=1, language="ko")
    second.record_writer(1, "prose", FIRE, episode=1, index=1, language="ko")
    assert [p.writer_text for p in second.passages()] == [FIRE]
    assert first.set_scope("writer") == "writer" and second.set_scope("writer") == "writer"
    assert {p.writer_text for p in second.passages()} == {SEA, FIRE}
    second.set_scope("project")
    assert [p.writer_text for p in second.passages()] == [FIRE]
    with pytest.raises(InvalidInputError):
        second.set_scope("everyone")
    alone = StyleBook(tmp_path / "three", "three")
    with pytest.raises(InvalidInputError):
        alone.set_scope("writer")


def test_the_nearest_passages_are_chosen_with_the_embedding_and_cached(tmp_path: Path) -> None:
    b = book(tmp_path)
    for n, text in enumerate([SEA, FIRE, SCHOOL], 1):
        b.record_writer(n, "prose", text, episode=1, index=n, language="ko")

    class Counting(HashingEmbeddings):
        calls: int = 0

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            type(self).calls += len(texts)
            return super().embed_documents(texts)

    emb = Counting()
    found = nearest(b.passages(), "파도가 방파제를 때리는 바다", emb, b, k=1)
    assert [p.writer_text for p in found] == [SEA]
    nearest(b.passages(), "불길 속의 천장", emb, b, k=2)
    assert Counting.calls == 3  # the passages were embedded once


@pytest.mark.parametrize("budget", [30, 60, 120, 400])
def test_the_style_notes_fit_their_budget_profile_first(tmp_path: Path, budget: int) -> None:
    b = book(tmp_path)
    for n, text in enumerate([SEA, FIRE, SCHOOL], 1):
        b.record_model(n, "prose", text.replace("었어", "었다"), episode=1, index=n,
                       language="ko")
        b.record_writer(n, "prose", text, episode=1, index=n, language="ko")
    style = WriterStyle(b, "ko", HashingEmbeddings())
    notes = style.notes("바다와 파도", budget)
    assert notes.tokens == count_tokens(notes.text) <= budget
    lines = profile_lines(style.profile(), "ko")
    assert lines and ("작가의 문체" in notes.text) == (budget >= 30)
    if budget >= 400:
        assert len(notes.examples) == 3 and notes.examples[0].startswith("바다가 울었어")
        assert "서술 어미: -어/-야 9" in notes.text  # 했어 narration; 쾅! is a fragment
    if budget <= 60:
        assert notes.examples == ()


def test_no_writer_text_no_notes() -> None:
    empty = build_profile([], "ko")
    assert profile_lines(empty, "ko") == [] and style_block(empty, [], "ko", 500).text == ""
