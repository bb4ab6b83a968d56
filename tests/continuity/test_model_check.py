"""The model check: findings must quote the prose and cite a memory the model was shown."""

from __future__ import annotations

import json

from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from aizac.continuity import check_episode
from aizac.writer.schemas import NovelBeat

from .conftest import Seeded


def fake(*replies: object) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(
        [AIMessage(content=json.dumps(r, ensure_ascii=False)) for r in replies]))


BEATS = [NovelBeat(episode=3, index=1, location="부산 본가", time="밤",
                   characters=["진도준", "강미라"], events=["진도준이 강미라를 찾아간다"])]
PROSE = {1: "진도준은 부산 본가로 강미라를 찾아갔다. 둘은 오랜 친구처럼 웃었다."}


def test_model_findings_are_held_to_citations_and_quotes(seeded: Seeded) -> None:
    reply = {"findings": [
        {"memory_id": seeded.ids["enemies"], "quote": "둘은 오랜 친구처럼 웃었다",
         "message": "원수 사이인데 친구처럼 웃는다", "beat": 1},
        {"memory_id": "no-such-id", "quote": "부산 본가로 강미라를 찾아갔다",
         "message": "확인 필요"},
        {"memory_id": seeded.ids["pin"], "quote": "원고에 없는 문장", "message": "지어낸 인용"},
    ]}
    report = check_episode(seeded.mem, episode=3, beats=BEATS, prose=PROSE,
                           reviewer=fake(reply), language="ko")
    model = [(f.severity, f.memory_id, f.quote) for f in report.findings if f.kind == "model"]
    assert model == [("error", seeded.ids["enemies"], "둘은 오랜 친구처럼 웃었다"),
                     ("warning", None, "부산 본가로 강미라를 찾아갔다")]


def test_an_invalid_reply_is_retried_with_the_error(seeded: Seeded) -> None:
    bad = {"findings": [], "verdict": "ok"}  # extra key: the schema is closed
    good = {"findings": []}
    model = fake(bad, good)
    report = check_episode(seeded.mem, episode=3, beats=BEATS, prose=PROSE, reviewer=model,
                           language="ko")
    assert [f for f in report.findings if f.kind == "model"] == []
    assert next(model.messages, None) is None  # both replies were used: the bad one was retried


def test_a_model_that_never_answers_the_schema_leaves_the_rules_standing(seeded: Seeded) -> None:
    beats = [NovelBeat(episode=3, index=1, location="부산 본가", time="밤", characters=["진도준"],
                       events=["대화"], dialogue=[{"speaker": "박철수", "line": "돌아왔다"}])]
    model = fake("몰라요", "몰라요", "몰라요")
    report = check_episode(seeded.mem, episode=3, beats=beats, prose=PROSE, reviewer=model,
                           language="ko")
    assert [(f.kind, f.severity) for f in report.findings] == [
        ("dead_character", "error"), ("model", "warning")]
    assert report.findings[1].message.startswith("모델 점검을 건너뛰었습니다")
    assert report.findings[1].memory_id is None
