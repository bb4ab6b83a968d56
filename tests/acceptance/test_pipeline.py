"""The whole pipeline in one long-lived process against a real wire-format server, in Korean.

Every role is an ``openai-compatible:`` spec pointing at the loopback server (the real OpenAI SDK
on the client side, streaming prose), as a writer's session would run it: 20 beats designed,
accepted and written through :class:`~aizac.writer.service.Studio`, with each fault kind once on
the way, then the invariant checker.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aizac.errors import AizacError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.agent import WriterAgent
from aizac.writer.service import Studio

from .invariants import check_project
from .openai_server import (
    EMBEDDINGS,
    OpenAIServer,
    cut,
    malformed,
    rate_limited,
    slow,
    truncated,
    unavailable,
)
from .story import complete_prose

KEYWORDS = "회귀, 복수, 헌터"


def studio_on(server: OpenAIServer, data_dir: Path, *, embeddings: bool = False) -> Studio:
    spec = f"openai-compatible:{server.base_url}:{server.model}"
    options: dict[str, object] = {}
    if embeddings:
        options = {"embedding": "openai:test-embedding", "openai_base_url": server.base_url,
                   "openai_api_key": "sk-loopback"}
    settings = Settings(
        data_dir=data_dir, language="ko", planner_model=spec, writer_model=spec,
        extractor_model=spec, **options,  # type: ignore[arg-type]
    )
    return Studio(settings, embeddings=None if embeddings else HashingEmbeddings())


def write_beat(agent: WriterAgent) -> str:
    draft = agent.next_beat()
    agent.accept(draft.id)
    return "".join(agent.write_prose(draft.id))


def test_twenty_beats_in_one_process_with_every_fault(
    story_server: OpenAIServer, tmp_path: Path
) -> None:
    studio = studio_on(story_server, tmp_path / "data")
    agent = studio.create("두번째삶", KEYWORDS, genre="현대판타지", language="ko")
    agent.plan()
    faults = {  # retried by the LLM layer: the writer sees nothing
        2: rate_limited(retry_after=0), 4: unavailable(), 8: slow(0.3),
        10: rate_limited(retry_after=0, path=EMBEDDINGS),
    }
    for n in range(1, 21):
        if n in faults:
            story_server.fault(faults[n])
        if n == 6:  # a malformed reply: a clear error, nothing stored; the writer tries again
            story_server.fault(malformed())
            with pytest.raises(AizacError, match="malformed"):
                agent.next_beat()
            assert agent.current_draft() is None
        if n == 12:  # a cut prose stream: an error, nothing saved; the retry writes it whole
            draft = agent.next_beat()
            agent.accept(draft.id)
            story_server.fault(cut(after=3))
            with pytest.raises(AizacError):
                "".join(agent.write_prose(draft.id))
            assert agent.store.beat(draft.id).prose is None
            "".join(agent.write_prose(draft.id))
            continue
        if n == 14:  # cut at max tokens ("length"): the same
            draft = agent.next_beat()
            agent.accept(draft.id)
            story_server.fault(truncated())
            with pytest.raises(AizacError):
                "".join(agent.write_prose(draft.id))
            "".join(agent.write_prose(draft.id))
            continue
        write_beat(agent)
    report = check_project(agent.store.directory, complete_prose=complete_prose)
    assert report.problems == []
    assert report.accepted == 20 and report.turn == 20
    assert all(b.prose and complete_prose(b.prose) for b in agent.store.beats(status="accepted"))


def test_a_cut_stream_never_replaces_whole_prose(
    story_server: OpenAIServer, tmp_path: Path
) -> None:
    agent = studio_on(story_server, tmp_path / "data").create("컷", KEYWORDS, language="ko")
    agent.plan()
    whole = write_beat(agent)
    beat_id = agent.store.last_accepted().id  # type: ignore[union-attr]
    saved = agent.store.beat(beat_id).prose
    for fault in (cut(after=2), cut(after=2, abrupt=True), truncated()):
        story_server.fault(fault)
        with pytest.raises(AizacError):
            "".join(agent.write_prose(beat_id))
        assert agent.store.beat(beat_id).prose == saved
    assert complete_prose(whole)


def test_embeddings_through_the_server_one_request_per_accept(
    story_server: OpenAIServer, tmp_path: Path
) -> None:
    studio = studio_on(story_server, tmp_path / "data", embeddings=True)
    agent = studio.create("임베딩", KEYWORDS, language="ko")
    agent.plan()
    per_accept = []
    for _ in range(3):
        draft = agent.next_beat()
        before = len(story_server.requests_to(EMBEDDINGS))
        agent.accept(draft.id)
        per_accept.append(len(story_server.requests_to(EMBEDDINGS)) - before)
        "".join(agent.write_prose(draft.id))
    report = check_project(agent.store.directory, complete_prose=complete_prose,
                           embeddings=studio.embeddings)
    assert report.problems == []
    # one request per accept (the batch); the slot examples (memory/slot_prototypes.toml) are
    # embedded only for the small embedded model, whose facts may come without a slot
    assert per_accept == [1, 1, 1]
