"""The serial report's model (taxonomy, stable keys, dismissal split), its Markdown, and the
reviewer's findings held to the text: a quote not in the episode is refused, never reported."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from aizac.continuity.serial_report import (
    CATEGORY,
    TAXONOMY,
    SerialFinding,
    SerialReport,
    Spot,
    report_markdown,
    split_dismissed,
)
from aizac.continuity.serial_review import (
    REVIEWED,
    ReviewFinding,
    SerialReview,
    accept_review,
    quote_errors,
    review_episode,
)
from aizac.text import Text, Verbatim

AT = Spot(3, 4, "백무신은 바람의 방향을 살폈다.")
SOURCE = Spot(1, 2, "수비대를 이끄는 것은 백무진이었다.")
FINDING = SerialFinding("nomenclature", AT, SOURCE,
                        Text("report.note.nomenclature", variant=Verbatim("백무신"),
                             name=Verbatim("백무진")))


def test_every_constory_category_and_subtype_is_named() -> None:
    assert set(TAXONOMY) == {"characterization", "factual", "narrative_style",
                             "timeline_plot", "world_building"}
    assert CATEGORY["geography"] == "world_building" and CATEGORY["quantity"] == "factual"
    assert len(CATEGORY) == 19 and set(REVIEWED) < set(CATEGORY)


def test_the_key_is_stable_and_ignores_paragraph_numbers() -> None:
    moved = SerialFinding("nomenclature", Spot(3, 9, AT.quote), Spot(1, 5, SOURCE.quote),
                          Verbatim("x"))
    assert FINDING.key == moved.key and len(FINDING.key) == 16
    other = SerialFinding("quantity", AT, SOURCE, Verbatim("x"))
    assert other.key != FINDING.key
    kept, dismissed = split_dismissed([FINDING, other, moved], {FINDING.key})
    assert kept == (other,) and dismissed == (FINDING,)


@pytest.mark.parametrize("language", ["en", "ko", "zh"])
def test_markdown_names_category_subtype_quotes_and_places(language: str) -> None:
    report = SerialReport(1, 5, (FINDING,), (), reviewed=False)
    text = report_markdown(report, language, title="검은 달")
    assert text.startswith("# ") and "검은 달" in text and "## " in text
    assert AT.quote in text and SOURCE.quote in text and FINDING.key in text
    assert "{" not in text
    if language == "ko":
        assert "3화 4문단" in text and "1화 2문단" in text and "이름 표기" in text
    if language == "en":
        assert "episode 3, paragraph 4" in text and "Factual detail" in text
    empty = report_markdown(SerialReport(1, 5), language)
    assert "{" not in empty and "##" not in empty


TEXT = {1: {1: "서아와 하린은 달우물 사원의 우물가에서 처음 만났다."},
        2: {1: "바람이 불었다.", 2: "서아는 하린을 처음 만났던 은빛 항구의 부둣가를 떠올렸다."}}


def _finding(quote: str, source: str = "달우물 사원의 우물가에서 처음 만났다") -> ReviewFinding:
    return ReviewFinding(subtype="memory_contradiction", paragraph=1, quote=quote,
                         source_episode=1, source_paragraph=1, source_quote=source,
                         note="만난 곳이 다르다")


def test_a_reviewer_quote_must_be_in_the_text() -> None:
    good = _finding("은빛 항구의 부둣가를 떠올렸다")
    made_up = _finding("서아는 하린을 바닷가에서 만났다")
    bad_source = _finding("은빛 항구의 부둣가", "둘은 항구에서 만났다")
    found, refused = accept_review(SerialReview(findings=[good, made_up, bad_source]), 2, TEXT)
    assert refused == 2 and len(found) == 1
    assert (found[0].at.episode, found[0].at.paragraph) == (2, 2)  # found where it is
    assert found[0].source == Spot(1, 1, good.source_quote or "")
    assert found[0].origin == "reviewer" and found[0].category == "characterization"
    assert len(quote_errors(SerialReview(findings=[made_up, bad_source]), 2, TEXT)) == 2


def _reply(review: SerialReview) -> AIMessage:
    return AIMessage(content=review.model_dump_json())


def test_the_reviewer_is_asked_again_with_the_error_and_never_invents() -> None:
    wrong = SerialReview(findings=[_finding("서아는 하린을 바닷가에서 만났다")])
    right = SerialReview(findings=[_finding("은빛 항구의 부둣가를 떠올렸다")])
    model = GenericFakeChatModel(messages=iter([_reply(wrong), _reply(right)]))
    found, refused = review_episode(model, 2, TEXT, [], language="ko")
    assert refused == 0 and [f.at.quote for f in found] == ["은빛 항구의 부둣가를 떠올렸다"]
    stubborn = GenericFakeChatModel(messages=iter([_reply(wrong)] * 4))
    found, refused = review_episode(stubborn, 2, TEXT, [], language="ko", retries=2)
    assert found == [] and refused == 1
