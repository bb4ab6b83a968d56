"""The reviewer role over real HTTP: the model check and the verdict against a loopback
OpenAI-compatible server speaking the real wire format (Korean content, one server, one
router, as in a long-lived process)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from acceptance.openai_server import OpenAIServer, rate_limited

from aizac.autopilot.review import review_episode
from aizac.continuity import check_episode
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.router import ModelRouter
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.writer.schemas import DialogueLine, NovelBeat


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as started:
        yield started


def test_check_and_review_through_the_reviewer_role(server: OpenAIServer) -> None:
    spec = f"openai-compatible:{server.base_url}:{server.model}"
    router = ModelRouter(Settings(reviewer_model=spec, transient_retries=1),
                         backoff_base=0.0, sleep=lambda _: None)
    mem = WriterMemory(embeddings=HashingEmbeddings(),
                       settings=Settings(memory_threshold=1.0, short_term_tokens=64))
    with mem.stage() as b:
        b.remember("박철수 — 해결사", "Character", character_name="박철수")
        b.remember("진도준 — 주인공", "Character", character_name="진도준")
        dead = b.note("박철수는 화재로 사망했다", "Character", character_name="박철수",
                      aspect="condition", chapter=2)
    prose = {1: "진도준은 사무실 문을 열었다. 박철수가 웃으며 말했다. \"오랜만이야.\""}
    beats = [NovelBeat(episode=3, index=1, location="서울 사무실", time="밤",
                       characters=["진도준"], events=["진도준이 사무실 문을 연다"],
                       dialogue=[DialogueLine(speaker="박철수", line="오랜만이야")])]
    server.script(
        {"findings": [{"memory_id": str(dead), "quote": "박철수가 웃으며 말했다",
                       "message": "죽은 박철수가 말한다", "beat": 1}]},
        {"decision": "accept", "reasons": ["문장이 좋다"]},
    )
    server.fault(rate_limited(retry_after=0))  # a provider fault is retried, not a failure
    reviewer = router.model("reviewer")
    report = check_episode(mem, episode=3, beats=beats, prose=prose, reviewer=reviewer,
                           language="ko")
    assert {(f.kind, f.severity, f.memory_id) for f in report.findings} == {
        ("dead_character", "error", dead), ("model", "error", dead)}
    verdict = review_episode(reviewer, prose=prose, report=report, language="ko")
    assert verdict.decision == "rewrite"  # the model said accept; errors block it
    asked = [r.body for r in server.chat_requests]
    assert len(asked) == 3  # 429, then the check, then the review
    shown = asked[1]["messages"][-1]["content"]
    assert f"[{dead}] 박철수는 화재로 사망했다" in shown
    assert "죽었습니다" in asked[2]["messages"][-1]["content"]
    mem.close()
