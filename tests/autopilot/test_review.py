"""The editor's verdict: prompt assembly, validation with retry, and blocking findings."""

from __future__ import annotations

import json

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from aizac.autopilot.review import Verdict, review_episode, review_messages
from aizac.continuity import ContinuityReport, Finding, NameResolution
from aizac.errors import StructuredOutputError

DEAD = Finding("dead_character", "error", "박철수는 이미 죽었습니다.", "m-dead", '박철수: "살려줘"',
               2)
FAR = Finding("wrong_location", "warning", "강미라는 부산에 있습니다.", "m-busan", "강미라", 1)


def fake(*replies: object) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(
        [AIMessage(content=r if isinstance(r, str) else json.dumps(r, ensure_ascii=False))
         for r in replies]))


def test_the_prompt_holds_prose_findings_missed_beats_and_unsure_names() -> None:
    report = ContinuityReport(findings=(DEAD, FAR), covered=(1,), missed=(2,),
                              names=(NameResolution("미라", "강미라", 0.85, False, ("강미라",)),))
    messages = review_messages(prose={1: "첫 장면", 2: "둘째 장면"}, report=report, language="ko")
    system, user = (str(m.content) for m in messages)
    assert "편집자" in system
    assert "[1]\n첫 장면" in user and "[2]\n둘째 장면" in user
    assert "오류 [2]: 박철수는 이미 죽었습니다." in user and "(memory m-dead)" in user
    assert "주의 [1]" in user
    assert "빠진 비트: 2" in user and "확인할 이름: 미라" in user


def test_the_prompt_lists_the_oldest_overdue_threads_and_counts_the_rest() -> None:
    # Twelve overdue threads by episode 20 were 1,155 characters of every review (issue 26).
    threads = tuple(Finding("foreshadowing_overdue", "warning", f"伏笔{n}仍未回收。", f"t-{n}", "",
                            None) for n in range(12))
    report = ContinuityReport(findings=(DEAD, *threads))
    user = str(review_messages(prose="原稿", report=report, language="zh")[1].content)
    assert [n for n in range(12) if f"伏笔{n}仍未回收" in user] == [0, 1, 2]
    assert "- 警告: … (+9)" in user and "박철수는 이미 죽었습니다." in user  # errors all stay
    few = ContinuityReport(findings=threads[:3])
    assert "(+" not in str(review_messages(prose="原稿", report=few, language="zh")[1].content)


def test_a_valid_verdict_after_one_repair() -> None:
    model = fake("좋아요, accept", {"decision": "polish", "reasons": ["문장이 길다"]})
    verdict = review_episode(model, prose="원고", report=ContinuityReport(), language="ko")
    assert verdict == Verdict(decision="polish", reasons=["문장이 길다"])


def test_extra_keys_are_refused_then_it_fails_clearly() -> None:
    bad = {"decision": "accept", "reasons": [], "score": 9}
    model = fake(bad, bad, bad)
    with pytest.raises(StructuredOutputError):
        review_episode(model, prose="원고", report=ContinuityReport(), language="ko")


def test_a_blocking_report_is_never_accepted() -> None:
    model = fake({"decision": "accept", "reasons": ["좋다"]})
    verdict = review_episode(model, prose={1: "원고"}, report=ContinuityReport(findings=(DEAD,)),
                             language="ko")
    assert verdict.decision == "rewrite"
    assert "박철수는 이미 죽었습니다." in verdict.reasons
    warn_only = ContinuityReport(findings=(FAR,))
    kept = review_episode(fake({"decision": "accept", "reasons": []}), prose="x",
                          report=warn_only, language="en")
    assert kept.decision == "accept"
