"""Accept's last writes: the beat summary and the turn advance are ONE write, and the commit's
single update also carries the reinforcement of what the accepted design used.

Against the loopback OpenAI-compatible server, in one process, as a writer's session runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aizac.errors import StorageError
from aizac.memory.store import STATE_KEY
from aizac.writer.agent import WriterAgent

from .invariants import check_project
from .openai_server import OpenAIServer
from .story import complete_prose
from .test_pipeline import KEYWORDS, studio_on, write_beat


def _watch(agent: WriterAgent, method: str, fail_on: int | None = None) -> list[dict[str, Any]]:
    """Record the keyword arguments of every call of the memory collection's ``method``
    (``fail_on``: the n-th call, from 1, raises as a full disk would)."""
    collection: Any = agent.memory.collection  # type: ignore[attr-defined]
    original = getattr(collection, method)
    calls: list[dict[str, Any]] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        if fail_on is not None and len(calls) == fail_on:
            raise OSError(28, "No space left on device")
        return original(*args, **kwargs)

    setattr(collection, method, watched)
    return calls


def test_summary_and_turn_are_one_state_write(
    story_server: OpenAIServer, tmp_path: Path
) -> None:
    agent = studio_on(story_server, tmp_path / "data").create("한번", KEYWORDS, language="ko")
    agent.plan()
    write_beat(agent)
    draft = agent.next_beat()
    writes = _watch(agent, "modify")
    done = agent.accept(draft.id)
    assert len(writes) == 1  # the story state is written once per accept
    state = json.loads(writes[0]["metadata"][STATE_KEY])
    assert state["turn"] == 2 and state["short"][-1] == done.summary


def test_a_failed_state_write_leaves_neither_summary_nor_turn(
    story_server: OpenAIServer, tmp_path: Path
) -> None:
    studio = studio_on(story_server, tmp_path / "data")
    agent = studio.create("디스크", KEYWORDS, language="ko")
    agent.plan()
    write_beat(agent)
    draft = agent.next_beat()
    short_before = agent.memory.short_term.items()
    _watch(agent, "modify", fail_on=1)  # the one write of summary + turn fails
    with pytest.raises(StorageError):
        agent.accept(draft.id)
    assert agent.memory.turn == 1 and agent.memory.short_term.items() == short_before
    assert agent.store.beat(draft.id).status == "draft"
    # The next accept (this process) finishes cleanly: the summary is in once.
    done = agent.accept(draft.id)
    items = agent.memory.short_term.items()
    assert agent.memory.turn == 2 and items.count(done.summary) == 1
    report = check_project(agent.store.directory, complete_prose=None)
    assert report.problems == [] and report.turn == 2


def test_the_commit_reinforces_the_design_context_in_its_one_update(
    story_server: OpenAIServer, tmp_path: Path
) -> None:
    agent = studio_on(story_server, tmp_path / "data").create("강화", KEYWORDS, language="ko")
    agent.plan()
    for _ in range(3):
        write_beat(agent)
    draft = agent.next_beat()
    used = json.loads(agent.store.kv_get(f"context:{draft.id}")[0])  # type: ignore[index]
    assert used  # the design was written from memories
    before = {i: agent.memory.get(i).strength for i in used}
    updates = _watch(agent, "update")
    agent.accept(draft.id)
    assert len(updates) <= 1  # supersede marks and reinforcement: one Chroma update
    after = {i: agent.memory.get(i) for i in used}
    raised = [i for i in used if after[i].strength > before[i] or after[i].superseded]
    assert raised == used
    # Undoing the accept puts the strengths back (the reinforcement was part of the commit).
    agent.unaccept(draft.id)
    assert {i: agent.memory.get(i).strength for i in used} == before
    report = check_project(agent.store.directory, complete_prose=complete_prose)
    assert [p for p in report.problems if not p.startswith("cut-prose")] == []
