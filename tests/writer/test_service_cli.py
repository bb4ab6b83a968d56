"""The Studio service and the CLI on the real memory, retrieval and SQLite (fake models)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from aizac.cli.story import register
from aizac.cliches import ClicheDB
from aizac.errors import ConflictError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.router import ModelRouter
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.writer.agent import WriterAgent
from aizac.writer.project import BeatStatus, ProjectStore
from aizac.writer.service import Studio
from tests.fakes import fake_models
from tests.fakes.routed import beat_json

ASK_REPLY = '```json\n{"query": "gate", "filter": "NO_FILTER"}\n```'


def studio_for(data_dir: Path, cliches: ClicheDB, database_url: str | None = None,
               **options: Any) -> Studio:
    settings = Settings(data_dir=data_dir, language="en", structured_retries=1,
                        database_url=database_url)
    models = fake_models(extractor={"unknown": ASK_REPLY})
    return Studio(
        settings, models=dict(models), embeddings=HashingEmbeddings(), cliches=cliches, **options
    )


def test_studio_pipeline_persists_across_reopen(
    tmp_path: Path, cliches: ClicheDB, database_url: str | None
) -> None:
    studio = studio_for(tmp_path, cliches, database_url, beats_per_episode=2)
    agent = studio.create("my novel", "회귀, 복수", genre="modern fantasy", language="en")
    agent.plan()
    for _ in range(3):
        agent.accept(agent.next_beat().id)
    "".join(agent.write_prose())
    assert [(b.episode, b.index) for b in agent.beats()] == [(1, 1), (1, 2), (2, 1)]

    again = studio_for(tmp_path, cliches, database_url).open()  # the current one, reopened
    assert again.info.name == "my novel"
    assert again.memory.turn == 3
    assert len(again.memory.short_term.items()) == 3
    assert again.next_position() == (2, 2)
    assert "Kang Jun" in again.memory.characters()
    docs = again.ask("what happened at the gate?")
    assert docs and all(d.page_content for d in docs)
    manuscript = again.manuscript()
    assert [e.number for e in manuscript.episodes] == [2]


class KillOnAccept(ProjectStore):
    """A store whose process 'dies' right after the memory commit of an accept."""

    def set_status(self, beat_id: int, status: BeatStatus, **kw: Any) -> Any:
        if status == "accepted":
            raise KeyboardInterrupt("killed")
        return super().set_status(beat_id, status, **kw)


def test_an_interrupt_after_the_memory_commit_undoes_the_accept(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    """Ctrl-C (or any error) between the memory commit and the beat update: the accept is one
    unit of work, so it is undone; a real kill there is finished by recovery instead
    (tests/acceptance kill trials, step accept:committed)."""
    settings = Settings(data_dir=tmp_path, language="en", structured_retries=1)
    root = tmp_path / "projects"
    ProjectStore.create(root, "n", language="en", genre="modern fantasy", keywords=["회귀"])

    def agent(store_cls: type[ProjectStore]) -> tuple[WriterAgent, Any]:
        store = store_cls(root / "n")
        memory = WriterMemory(store.memory_dir, embeddings=HashingEmbeddings(), settings=settings)
        models = fake_models()
        router = ModelRouter(settings, models=dict(models))
        return WriterAgent(store, memory, router, cliches, settings=settings), models

    first, _ = agent(KillOnAccept)
    first.plan()
    draft = first.next_beat()
    seeded = len(first.memory)
    with pytest.raises(KeyboardInterrupt):
        first.accept(draft.id)
    assert first.store.beat(draft.id).status == "draft"
    assert len(first.memory) == seeded  # the memory commit was taken back
    assert first.memory.turn == 0 and first.memory.short_term.items() == []

    second, _ = agent(ProjectStore)  # the next command accepts it once
    record = second.accept(draft.id)
    assert record.memory_ids and all(second.memory.get(i) for i in record.memory_ids)
    assert second.memory.turn == 1
    assert second.memory.short_term.items() == ["Kang Jun cleared a gate with Yuna."]
    assert (second.next_beat().episode, second.next_beat().index) == (1, 2)


def test_killed_before_accept_keeps_the_draft_without_a_new_model_call(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    studio = studio_for(tmp_path, cliches)
    agent = studio.create("n", "회귀", language="en")
    agent.plan()
    draft = agent.next_beat()
    later = studio_for(tmp_path, cliches)
    again = later.open("n")
    assert again.next_beat().id == draft.id
    assert again.router.model("planner") is not None
    planner = again.router._injected["planner"]  # type: ignore[attr-defined]
    assert planner.calls == []


def test_unaccept_reverts_the_memory_commit(tmp_path: Path, cliches: ClicheDB) -> None:
    agent = studio_for(tmp_path, cliches).create("n", "회귀", language="en")
    agent.plan()
    before = len(agent.memory)
    accepted = agent.accept(agent.next_beat().id)
    assert len(agent.memory) > before and agent.memory.turn == 1
    with pytest.raises(ConflictError):
        agent.unaccept(accepted.id, expected_version=accepted.version - 1)
    back = agent.unaccept(accepted.id)
    assert back.status == "draft" and back.memory_ids == []
    memory: Any = agent.memory
    assert len(memory.recall("gate", k=20, reinforce=False)) == before
    assert agent.memory.turn == 0 and agent.memory.short_term.items() == []


# ------------------------------------------------------------------------------------ CLI
@pytest.fixture
def cli(tmp_path: Path, cliches: ClicheDB) -> tuple[typer.Typer, Path]:
    app = typer.Typer()

    def factory(data_dir: Path | None = None, **options: Any) -> Studio:
        return studio_for(data_dir or tmp_path / "data", cliches, **options)

    register(app, factory)
    return app, tmp_path


def test_cli_commands_end_to_end(cli: tuple[typer.Typer, Path]) -> None:
    app, tmp = cli
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return result.output

    assert "created project 'saga'" in run("new", "saga", "-k", "회귀, 복수", "--lang", "en")
    assert "* saga" in run("projects")
    out = run("plot")
    assert "The Second Life" in out and "[climax]" in out
    out = run("beat")
    assert "[draft" in out and "Seoul gate" in out
    out = run("beat", "--accept")
    assert "[accepted" in out and "summary: Kang Jun cleared a gate" in out
    assert "Kang Jun stepped in" in run("write")
    assert "- [" in run("ask", "what happened at the gate?")
    out_file = tmp / "out" / "saga.txt"
    assert "wrote" in run("export", "--format", "txt", "--out", str(out_file))
    assert "Kang Jun stepped in" in out_file.read_text(encoding="utf-8")
    assert "(1-2)" not in run("beat") and "[draft" in run("beat")
    assert "rejected beat #" in run("beat", "--reject")
    assert "no draft to reject" in run("beat", "--reject")


def test_cli_plan_episode_drafts_the_beats_left_and_accepts_the_first(
    cli: tuple[typer.Typer, Path],
) -> None:
    app, _ = cli
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return result.output

    run("new", "saga", "-k", "회귀, 복수", "--lang", "en")
    run("plot")
    out = run("beat", "--plan-episode")
    shown = out.count("beat #")
    assert shown > 1 and out.count("[draft") == shown
    assert "[accepted" in run("beat", "--accept")  # the first, read above
    assert "[draft" in run("beat")  # the next planned draft, shown without a new design


def test_cli_write_episode_writes_every_accepted_beat_left(cli: tuple[typer.Typer, Path]) -> None:
    app, _ = cli
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return result.output

    run("new", "saga", "-k", "회귀, 복수", "--lang", "en")
    run("plot")
    for _ in range(2):
        run("beat")
        run("beat", "--accept")
    assert run("write", "--episode", "1").count("Kang Jun stepped in") == 2  # both beats
    again = runner.invoke(app, ["write", "--episode", "1"])
    assert again.exit_code == 1 and "has its prose already" in again.output
    both = runner.invoke(app, ["write", "--episode", "1", "--beat", "1"])
    assert both.exit_code == 1 and "not both" in both.output


def test_accept_without_a_draft_designs_nothing_and_fails(cli: tuple[typer.Typer, Path]) -> None:
    """Issue 39 item 8: ``beat --accept`` with no draft designed a beat, accepted it unseen and
    exited 0; it now does nothing and says what to run."""
    app, tmp = cli
    runner = CliRunner()
    assert runner.invoke(app, ["new", "saga", "-k", "회귀", "--lang", "en"]).exit_code == 0
    assert runner.invoke(app, ["plot"]).exit_code == 0
    result = runner.invoke(app, ["beat", "--accept"])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: There is no draft beat.")
    assert "`aizac beat`" in result.stderr
    unread = runner.invoke(app, ["beat", "--regenerate", "darker", "--accept"])
    assert unread.exit_code == 1 and "--accept takes the draft you have read" in unread.stderr
    agent = studio_for(tmp / "data", ClicheDB(embeddings=HashingEmbeddings())).open("saga")
    assert agent.beats() == [] and agent.memory.turn == 0  # nothing designed, nothing canon


def test_a_finding_of_the_draft_is_no_error_line(tmp_path: Path, cliches: ClicheDB) -> None:
    """A draft whose speaker is not in the scene: the check's finding is shown before the
    writer accepts, worded as the draft's finding; a line starting ``Error:`` (or ``error:``)
    comes only with a non-zero exit."""
    app = typer.Typer()

    def factory(data_dir: Path | None = None, **options: Any) -> Studio:
        settings = Settings(data_dir=data_dir or tmp_path / "data", language="en",
                            structured_retries=1)
        models = fake_models(planner={"beat": beat_json(characters=["Seo Yuna"])},
                             extractor={"unknown": ASK_REPLY})
        return Studio(settings, models=dict(models), embeddings=HashingEmbeddings(),
                      cliches=cliches, **options)

    register(app, factory)
    runner = CliRunner()
    for args in (["new", "saga", "-k", "회귀", "--lang", "en"], ["plot"]):
        assert runner.invoke(app, args).exit_code == 0
    for args in (["beat"], ["beat", "--accept"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert "the check found an error in the draft: " in result.stdout
        assert not [line for line in result.output.splitlines()
                    if line.lower().startswith("error:")], result.output


def test_an_epub_from_the_command_line_has_a_cover(cli: tuple[typer.Typer, Path]) -> None:
    """Issue 39 item 13: ``aizac export`` of an EPUB had no cover unless the writer had placed
    one in the web app's Gallery; it gets the free typographic one."""
    import zipfile

    app, tmp = cli
    runner = CliRunner()
    for args in (["new", "saga", "-k", "회귀", "--lang", "en"], ["plot"], ["beat"],
                 ["beat", "--accept"], ["write"], ["export", "--out", str(tmp / "saga.epub")]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    with zipfile.ZipFile(tmp / "saga.epub") as book:
        names = book.namelist()
        opf = book.read(next(n for n in names if n.endswith(".opf"))).decode()
    assert 'properties="cover-image"' in opf and any(n.endswith("cover.xhtml") for n in names)


def test_cli_errors_are_one_line_and_a_hint(cli: tuple[typer.Typer, Path]) -> None:
    app, _ = cli
    runner = CliRunner()
    result = runner.invoke(app, ["plot"])
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == "error: No project selected."
    assert result.output.splitlines()[1].startswith("hint: Create one with `aizac new")
    result = runner.invoke(app, ["new", "../x", "-k", "a"])
    assert result.exit_code == 1 and "not a valid project name" in result.output
    result = runner.invoke(app, ["new", "x", "-k", " , "])
    assert result.exit_code == 1 and "No keywords" in result.output


def test_cli_demo_runs_the_whole_pipeline(cli: tuple[typer.Typer, Path]) -> None:
    app, tmp = cli
    result = CliRunner().invoke(app, ["demo", "--out", str(tmp / "demo"), "--lang", "en"])
    assert result.exit_code == 0, result.output
    texts = list((tmp / "demo").glob("*.txt"))
    assert len(texts) == 1
    body = texts[0].read_text(encoding="utf-8")
    assert body.count("Kang Jun stepped in") == 2  # two beats of prose in one episode (default)
    assert "» done in" in result.output


def test_cli_demo_in_korean_on_the_embedded_model_says_so_and_runs_in_english(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    """The bundled SmolLM2 declares it writes English only (its registry row): a Korean demo
    on it says so first, in Korean, and runs the whole pipeline in English instead of failing
    half-way; a model that writes Korean runs the Korean demo as asked."""
    from aizac.llm.profiles import attach
    from aizac.llm.registry import row

    local = row("local")
    assert local is not None and local.profile.writes == ("en",)
    # the fakes answer JSON text and end their streams without a finish reason
    embedded = replace(local.profile, structured_method="prompt", reports_finish=False)

    def studio(data_dir: Path | None = None, *, small: bool = True, **options: Any) -> Studio:
        settings = Settings(data_dir=data_dir or tmp_path / "data", language="en",
                            structured_retries=1)
        models = fake_models(extractor={"unknown": ASK_REPLY})
        if small:
            for model in models.values():
                attach(model, embedded)
        made.append(Studio(settings, models=dict(models), embeddings=HashingEmbeddings(),
                           cliches=cliches, **options))
        return made[-1]

    made: list[Studio] = []
    app = typer.Typer()
    register(app, studio)
    result = CliRunner().invoke(app, ["demo", "--out", str(tmp_path / "demo"), "--seed", "7",
                                      "--lang", "ko"])
    assert result.exit_code == 0, result.output
    # The seed reaches the embedded model; its prose keeps a first session's chat budget (the
    # demo once raised it to 1536 tokens, most of a run's time on this machine: bench/demo.py).
    assert made[0].settings.seed == 7
    assert made[0].settings.local_max_tokens == Settings().local_max_tokens == 512
    assert "내장 데모 모델(SmolLM2-135M)은 한국어를 쓰지 못해" in result.stderr
    assert "키워드: regression, revenge" in result.stderr  # the English defaults
    assert result.stderr.index("쓰지 못해") < result.stderr.index("planning the plot")  # first
    assert "model calls for 2 beats" in result.stderr
    (project,) = (tmp_path / "demo" / "aizac-data" / "projects").iterdir()
    info = ProjectStore(project).info()
    assert info.language == "en" and info.keywords == ["regression", "revenge"]

    # A model that declares no language limit (a real one) runs the Korean demo as asked,
    # with the Korean defaults (cli/demo.toml).
    from aizac.cli.story import _demo_language

    assert _demo_language(studio(small=False), "ko", None, None) == ("ko", "회귀, 복수",
                                                                     "현대판타지")
    assert _demo_language(studio(), "zh", None, None) == ("en", "regression, revenge",
                                                          "modern fantasy")
    assert _demo_language(studio(), "en", "a, b", None)[0] == "en"
