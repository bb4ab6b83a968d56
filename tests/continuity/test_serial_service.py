"""The continuity report of an imported serial through the one way in (issue 42 item 3):
``ApplicationService.continuity_report`` reads the project's beats and memory, cites episode,
paragraph and beat; a dismissed finding stays dismissed for a new service; ``aizac report``
writes the Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from aizac.application.continuity_report import (
    memory_context,
    memory_notes,
    numbers,
    serial_input,
)
from aizac.application.service import ApplicationService
from aizac.cli.report import register
from aizac.writer.service import Studio
from tests.web.conftest import cliche_db, model, service, settings, studio

__all__ = ["cliche_db", "model", "service", "settings", "studio"]

NAME = "북문의 검"
PAD = "바람이 차가웠고 하늘은 낮게 내려앉아 있었다. 성벽 위로 까마귀가 날았다. " * 3
EPISODES = {
    1: [["백무진은 북문 수비대를 이끌었다. " + PAD, PAD], [PAD, "백무진이 웃었다. " + PAD]],
    2: [[PAD, "흑랑의 칼이 가슴을 꿰뚫었다. 백무진은 그렇게 죽었다."], [PAD, PAD]],
    3: [[PAD, "백무신은 바람의 방향을 살폈다. " + PAD],
        [PAD, "문이 열리고 백무진이 들어왔다. " + PAD]],
}


def write_serial(root: Path) -> Path:
    """A three-episode serial: 백무진 dies in episode 2, comes in and is misspelt in 3."""
    folder = root / "원고"
    folder.mkdir()
    for n, scenes in EPISODES.items():
        body = "\n\n***\n\n".join("\n\n".join(paras) for paras in scenes)
        (folder / f"{n}화.txt").write_text(f"{n}화\n\n{body}\n", encoding="utf-8")
    return folder


@pytest.fixture
def imported(service: ApplicationService, tmp_path: Path) -> ApplicationService:
    service.import_manuscript(NAME, [write_serial(tmp_path)])
    remember_reading(service)
    return service


def remember_reading(service: ApplicationService) -> None:
    """What the reading leaves in memory (the reading itself is another part of issue 42)."""
    memory = service.agent(NAME).memory
    memory.remember("백무진은 북문 수비대장이다", "Character", character_name="백무진",
                    aliases=["무진"], chapter=1)
    memory.remember("백무진은 흑랑의 칼에 죽었다", "Character", character_name="백무진",
                    aspect="condition", chapter=2)


def test_the_report_cites_episode_paragraph_and_beat(imported: ApplicationService) -> None:
    report = imported.continuity_report(NAME, reviewer=False)
    assert not report.reviewed and (report.first, report.last) == (1, 3)
    found = {f.subtype: f for f in report.findings}
    assert set(found) == {"nomenclature", "dead_character"}
    name, dead = found["nomenclature"], found["dead_character"]
    assert (name.at.episode, name.at.paragraph) == (3, 2) and "백무신은" in name.at.quote
    assert name.source is not None and (name.source.episode, name.source.paragraph) == (1, 1)
    assert (dead.at.episode, dead.at.paragraph) == (3, 4) and "백무진이 들어왔다" in dead.at.quote
    assert dead.source is not None and (dead.source.episode, dead.source.paragraph) == (2, 2)
    beats = {b.id: b for b in imported.accepted(NAME)}
    assert name.at.beat is not None and dead.at.beat is not None
    assert name.at.quote in (beats[name.at.beat].prose or "")
    assert beats[dead.at.beat].episode == 3 and dead.at.quote in (beats[dead.at.beat].prose or "")
    window = imported.continuity_report(NAME, 1, 2, reviewer=False)
    assert window.findings == ()  # both are in episode 3


def test_a_dismissed_finding_stays_dismissed_for_a_new_service(
        imported: ApplicationService, studio: Studio, tmp_path: Path) -> None:
    report = imported.continuity_report(NAME, reviewer=False)
    key = next(f.key for f in report.findings if f.subtype == "nomenclature")
    assert imported.dismiss_finding(NAME, key) == [key]
    again = ApplicationService(studio, export_dir=tmp_path / "exports")
    later = again.continuity_report(NAME, reviewer=False)
    assert [f.subtype for f in later.findings] == ["dead_character"]
    assert [f.key for f in later.dismissed] == [key]
    assert again.dismiss_finding(NAME, key, dismissed=False) == []
    assert len(again.continuity_report(NAME, reviewer=False).findings) == 2


def test_aizac_report_writes_markdown(imported: ApplicationService, studio: Studio,
                                      tmp_path: Path) -> None:
    app = typer.Typer()
    register(app, lambda **_: studio)
    app.command("noop")(lambda: None)
    target = tmp_path / "report.md"
    out = CliRunner().invoke(app, ["report", "--project", NAME, "--no-reviewer",
                                   "--markdown", str(target)])
    assert out.exit_code == 0, out.output
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# ") and NAME in text
    assert "3화 2문단" in text and "백무신은 바람의 방향을 살폈다" in text
    assert "죽은 인물의 행동" in text and "{" not in text


def test_numbers_in_words_and_digits() -> None:
    assert numbers("금화는 삼백 냥뿐이었다") == [300.0]
    assert numbers("이천오백 명, 12,000 coins") == [12000.0, 2500.0]
    assert numbers("천천히 걸었다") == []


def test_with_the_reviewer_the_checks_still_report(imported: ApplicationService) -> None:
    # the scripted model answers an empty review: nothing is invented, the checks stand
    report = imported.continuity_report(NAME, reviewer=True)
    assert report.reviewed and report.refused == 0 and report.failed == ()
    assert {f.subtype for f in report.findings} == {"nomenclature", "dead_character"}


def test_the_reviewer_is_shown_the_memory_read_before_the_episode(
        imported: ApplicationService) -> None:
    agent = imported.agent(NAME)
    data = serial_input(agent, "ko")
    notes = memory_notes(agent, data)
    death = next(n for n in notes if "죽었다" in n.text)
    assert (death.at.episode, death.at.paragraph) == (2, 2)
    assert death in memory_context(data, 3, notes)
    assert death not in memory_context(data, 2, notes)  # not read yet in episode 2
