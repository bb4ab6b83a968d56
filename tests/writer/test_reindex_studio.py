"""A project written with the hash, opened after the default embedding changed: it opens with its
own embedding and says what to run (CLI, web); `aizac reindex` (Studio, CLI, the Memory tab's
service) converts it in place and the project goes on: recall, undo and redo of an accept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from aizac.application.service import ApplicationService
from aizac.cli.story import register
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings, embedding_fingerprint
from aizac.settings import Settings
from aizac.text import render
from aizac.web import inspector
from aizac.writer.service import Studio, memory_notice
from tests.fakes import fake_models

ASK_REPLY = '```json\n{"query": "gate", "filter": "NO_FILTER"}\n```'


def studio_for(data_dir: Path, cliches: ClicheDB, embeddings: Any) -> Studio:
    settings = Settings(data_dir=data_dir, language="en", structured_retries=1)
    models = fake_models(extractor={"unknown": ASK_REPLY})
    return Studio(settings, models=dict(models), embeddings=embeddings, cliches=cliches,
                  beats_per_episode=2)


def hash_era_project(tmp_path: Path, cliches: ClicheDB) -> tuple[str, list[str]]:
    studio = studio_for(tmp_path, cliches, HashingEmbeddings())
    agent = studio.create("old novel", "회귀, 복수", language="en")
    agent.plan()
    for _ in range(2):
        agent.accept(agent.next_beat().id)
    ids = sorted(h.id for h in agent.memory.all())  # type: ignore[attr-defined]
    studio.close()
    return "old novel", ids


def test_an_old_project_opens_with_its_own_embedding_and_reindex_converts_it(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    name, ids = hash_era_project(tmp_path, cliches)
    new = HashingEmbeddings(64)  # stands in for the new default (another size, other vectors)
    studio = studio_for(tmp_path, cliches, new)
    agent = studio.open(name)
    notice = memory_notice(agent)
    assert notice is not None and notice.key == "notice.memory.reindex"
    said = render(notice, "en")
    assert "hash:256" in said and "hash:64" in said and f"aizac reindex --project {name}" in said
    assert "다시 색인" in render(notice, "ko")
    assert agent.memory.embeddings.dim == 256  # type: ignore[attr-defined]

    lines: list[str] = []
    result = studio.reindex(name, progress=lambda t: lines.append(render(t, "en")))
    assert result.switched and result.rows == len(ids) == result.embedded
    assert lines[-1] == f"Re-embedding memories: {len(ids)} of {len(ids)}"
    again = studio.open(name)
    assert again is not agent and memory_notice(again) is None
    memory: Any = again.memory
    assert memory.fingerprint == embedding_fingerprint(new)
    assert sorted(h.id for h in memory.all()) == ids
    # the project goes on: the last accept's commit is undone and redone with the new vectors
    last = [r for r in memory.commits.journal.with_status("done") if r.ids][-1]
    memory.undo_commit(last.batch)
    assert memory.redo_commit(last.batch) == last.ids
    assert {len(v) for v in memory.rows.collection.get(include=["embeddings"])["embeddings"]} \
        == {64}
    assert memory.recall(memory.get(last.ids[0]).text, k=1, reinforce=False)[0].id == last.ids[0]
    studio.close()
    fresh = studio_for(tmp_path, cliches, new).open(name)
    assert memory_notice(fresh) is None
    assert fresh.memory.turn == 2


def test_the_cli_says_what_to_run_then_reindexes(tmp_path: Path, cliches: ClicheDB) -> None:
    name, ids = hash_era_project(tmp_path, cliches)
    studio = studio_for(tmp_path, cliches, HashingEmbeddings(64))
    app = typer.Typer()
    register(app, studio_factory=lambda **_: studio)
    runner = CliRunner()
    shown = runner.invoke(app, ["beat", "--project", name])
    assert shown.exit_code == 0, shown.output
    assert f"Run `aizac reindex --project {name}`" in shown.stderr
    done = runner.invoke(app, ["reindex", "--project", name])
    assert done.exit_code == 0, done.output
    assert f"Project {name}'s {len(ids)} memories now use hash:64" in done.stdout
    assert f"Re-embedding memories: {len(ids)} of {len(ids)}" in done.stderr
    again = runner.invoke(app, ["reindex", "--project", name])
    assert "already uses hash:64" in again.stdout
    quiet = runner.invoke(app, ["beat", "--project", name])
    assert "aizac reindex" not in quiet.stderr


def test_the_memory_tab_shows_the_note_and_its_button_reindexes(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    name, ids = hash_era_project(tmp_path, cliches)
    studio = studio_for(tmp_path, cliches, HashingEmbeddings(64))
    service = ApplicationService(studio, export_dir=tmp_path / "exports")
    note = inspector.reindex_notice(service, name, "ko")
    assert "다시 색인" in note and name in note
    lines: list[str] = []
    said = inspector.reindex_memory(service, name, "ko", lines.append)
    n = len(ids)
    assert said == f"프로젝트 {name}의 기억 {n}개가 이제 hash:64를 씁니다(이번에 {n}개 임베딩)."
    assert lines[-1] == f"기억 다시 임베딩 중: {len(ids)}개 중 {len(ids)}개"
    assert inspector.reindex_notice(service, name, "ko") == ""
    assert sorted(h.id for h in service.all_memories(name)) == ids


def test_the_trope_index_keeps_the_hash_under_an_in_process_model(tmp_path: Path) -> None:
    from aizac.llm.local_embeddings import E5Embeddings

    studio = Studio(Settings(data_dir=tmp_path), embeddings=E5Embeddings())
    assert type(studio.cliches.embeddings) is HashingEmbeddings  # type: ignore[attr-defined]
    other = HashingEmbeddings(64)  # an API embedding stands here: it is kept
    kept = Studio(Settings(data_dir=tmp_path), embeddings=other).cliches
    assert kept.embeddings is other  # type: ignore[attr-defined]
