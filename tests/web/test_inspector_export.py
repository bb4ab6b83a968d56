"""Memory inspector and export handlers (real WriterMemory, real files, loopback SMTP)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest

from aizac.application.service import ApplicationService
from aizac.errors import CancelledError, InvalidInputError
from aizac.memory.forgetting import memory_factor
from aizac.settings import Settings
from aizac.web import handlers as h
from aizac.web import inspector
from aizac.writer.service import Studio
from tests.web.markdown_kit import HEADING, MARKUP, assert_literal, tags_of


def _written(service: ApplicationService, beats: int = 1) -> tuple[str, list[int]]:
    """A project with ``beats`` accepted beats that all have prose."""
    name = h.create_project(service, "dawn", "fantasy", "regression", "en")
    h.generate_plot(service, name)
    ids = []
    for _ in range(beats):
        view = h.next_beat(service, name)
        view = h.accept(service, name, view.beat_id, view.version)
        beat_id = view.accepted[-1][1]
        list(h.write_prose(service, name, beat_id))
        ids.append(beat_id)
    return name, ids


# ------------------------------------------------------------------------------ memory
def test_memory_table_shows_tags_strength_factor_and_pins(service: ApplicationService) -> None:
    name, _ = _written(service)
    rows = inspector.memory_table(service, name)
    assert {r[1] for r in rows} == {"Story", "Character", "CharacterRelation", "NovelSetting"}
    assert [r[1] for r in rows] == sorted(
        (r[1] for r in rows), key=inspector.TAGS.index
    )  # grouped by tag
    story = next(r for r in rows if r[1] == "Story")
    assert len(story[0]) == inspector.SHORT_ID  # a short id: the column never wraps
    hit = next(m for m in service.all_memories(name) if m.id.startswith(story[0]))
    assert story[5] == round(hit.strength, 1) >= service.agent(name).settings.strength_story
    assert 0 < story[6] <= 10 and story[7] == "—"
    relation = inspector.memory_table(service, name, tag="CharacterRelation")
    assert relation and all(r[3] == "Aren — Mira" for r in relation)
    about_veil = inspector.memory_table(service, name, character="Duke Veil")
    assert about_veil and all("Veil" in r[2] or "Veil" in r[3] for r in about_veil)


def test_a_flagged_fact_is_marked_checked_and_a_fact_struck_out(
        service: ApplicationService) -> None:
    """The Look column says why the extraction kept a fact aside; Looks right clears it;
    Strike is the writer's retcon: never true, what it replaced current again (issue 36)."""
    name, _ = _written(service)
    memory = service.agent(name).memory
    with memory.stage() as batch:
        was = batch.note("Aren is well.", "Character", character_name="Aren",
                         aspect="condition")
    with memory.stage() as batch:
        odd = batch.note("Aren hurt a leg.", "Character", character_name="Aren",
                         aspect="condition", flag="language")
    row = next(r for r in inspector.memory_table(service, name) if r[2] == "Aren hurt a leg.")
    assert row[9] == "another language"
    assert "1 fact" in inspector.confirm(service, name, [str(odd)])
    row = next(r for r in inspector.memory_table(service, name) if r[2] == "Aren hurt a leg.")
    assert row[9] == ""
    assert "Struck out: 1" in inspector.strike(service, name, [str(odd)])
    assert [h.id for h in memory.character_state("Aren")
            if h.metadata.get("aspect") == "condition"] == [was]
    with pytest.raises(InvalidInputError, match="Select"):
        inspector.strike(service, name, [])


def test_pin_and_unpin(service: ApplicationService) -> None:
    name, _ = _written(service)
    story_id = inspector.memories(service, name, tag="Story")[0].id
    short = story_id[:inspector.SHORT_ID]
    assert "Pinned 1 memory" in inspector.set_pinned(service, name, [story_id], True)
    row = next(r for r in inspector.memory_table(service, name) if r[0] == short)
    assert row[7] == "pinned"
    inspector.set_pinned(service, name, [story_id], False)
    row = next(r for r in inspector.memory_table(service, name) if r[0] == short)
    assert row[7] == "—"
    with pytest.raises(InvalidInputError, match="Select"):
        inspector.set_pinned(service, name, [], True)


def test_forgetting_curves_follow_the_memory_factor(service: ApplicationService) -> None:
    name, _ = _written(service)
    hits = inspector.memories(service, name, tag="Story")
    [curve] = inspector.curves(hits[:1], turn=1, threshold=1.0, horizon=12)
    hit = hits[0]
    last = int(hit.metadata["last_turn"])
    assert curve.turns[0] == last
    assert curve.factors == [memory_factor(t - last, hit.strength) for t in curve.turns]
    assert curve.factors[0] == 10.0 and curve.factors[-1] < curve.factors[0]
    other = inspector.memories(service, name, tag="NovelSetting")[0]
    fig = inspector.curve_figure(service, name, [hit.id, other.id])
    assert len(fig.axes[0].lines) == 2 + 2  # two curves, threshold and "now"
    pinned = inspector.curves(
        [type("H", (), {"strength": 5.0, "pinned": True, "tag": "Story", "text": "x",
                        "metadata": {"last_turn": 0}})()], 3, 1.0, 10,
    )[0]
    assert set(pinned.factors) == {10.0}


def test_relation_matrix_and_ask_memory(service: ApplicationService) -> None:
    name, _ = _written(service)
    headers, rows = inspector.relation_table(service, name)
    assert headers == ["", "Aren", "Mira", "Duke Veil"]
    aren = rows[0]
    assert aren[1] == "—" and aren[2] == "Wary allies." and aren[3] == "·"
    answer = inspector.ask_memory(service, name, "What does Aren remember?")
    assert answer.startswith("- ")
    with pytest.raises(InvalidInputError):
        inspector.ask_memory(service, name, "  ")


def test_a_long_relation_is_a_short_matrix_cell(service: ApplicationService) -> None:
    """Issue 39 item 12: a relation written as a sentence made the matrix too wide to read;
    a cell shows its first words (the memory table has the whole text)."""
    name, _ = _written(service)
    long = ("Mira owes the Duke her post at court and reports on Aren to him every night, "
            "though she begins to doubt him.")
    service.agent(name).memory.remember(long, "CharacterRelation", character1="Mira",
                                        character2="Duke Veil")
    _, rows = inspector.relation_table(service, name)
    cell = rows[1][3]
    assert cell.startswith("Mira owes the Duke") and cell.endswith("…")
    assert len(cell) <= inspector.MATRIX_CELL
    assert rows[0][2] == "Wary allies."  # a short one is shown whole


def test_cancelled_accept_leaves_memory_unchanged(service: ApplicationService) -> None:
    name = h.create_project(service, "dawn", "fantasy", "regression", "en")
    h.generate_plot(service, name)
    view = h.next_beat(service, name)
    before = {m.id for m in service.all_memories(name)}
    with pytest.raises(CancelledError):
        service.accept(name, view.beat_id, view.version, lambda _: service.cancel(name))
    assert {m.id for m in service.all_memories(name)} == before
    assert h.editor_view(service, name).beats[0][1] == "draft"
    assert service.agent(name).memory.turn == 0


# ------------------------------------------------------------------------------ export
def test_export_txt_md_epub_match_the_accepted_prose(service: ApplicationService) -> None:
    name, ids = _written(service, beats=4)  # 3 beats per episode -> two episodes
    prose = [h.load_prose(service, name, i) for i in ids]
    txt = Path(h.export_file(service, name, "txt", 0, 0, "").target)
    assert txt.parent == service.export_dir / name and txt.suffix == ".txt"
    text = txt.read_text(encoding="utf-8")
    for p in prose:
        for paragraph in p.split("\n\n"):
            assert paragraph.strip() in text
    md = Path(h.export_file(service, name, "md", 2, 2, "episode-two").target)
    assert md.name == "episode-two.md"
    assert "Aren" in md.read_text(encoding="utf-8")
    epub = Path(h.export_file(service, name, "epub", 1, 1, "first.epub").target)
    assert epub.read_bytes()[:2] == b"PK"


@pytest.mark.parametrize(
    ("filename", "first", "last", "message"),
    [
        ("../escape", 0, 0, "separator|not allowed|invalid|\\.\\."),
        ("sub/dir", 0, 0, "cannot hold"),
        ("ok", 5, 2, "reversed"),
        ("ok", 7, 9, "No episode"),
        ("ok", 1.5, 0, "whole number"),
    ],
)
def test_bad_export_requests_write_nothing(
    service: ApplicationService, filename: str, first: float, last: float, message: str
) -> None:
    name, _ = _written(service)
    with pytest.raises(InvalidInputError, match=message):
        h.export_file(service, name, "txt", first, last, filename)
    assert not service.export_dir.exists() or not any(service.export_dir.rglob("*.*"))


# ------------------------------------------------------------------------------- email
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def smtp_inbox() -> Iterator[tuple[int, list[Any]]]:
    from aiosmtpd.controller import Controller

    received: list[Any] = []

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            received.append(envelope)
            return "250 OK"

    port = _free_port()
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, received
    finally:
        controller.stop()


def test_email_sends_the_export_as_an_attachment(
    studio: Studio, tmp_path: Path, smtp_inbox: tuple[int, list[Any]]
) -> None:
    port, inbox = smtp_inbox
    settings: Settings = studio.settings.model_copy(update={
        "smtp_host": "127.0.0.1", "smtp_port": port, "smtp_starttls": False,
        "smtp_sender": "aizac@example.com",
    })
    mailing = ApplicationService(
        Studio(settings, router=studio.router, embeddings=studio.embeddings,
               cliches=studio.cliches, beats_per_episode=3),
        export_dir=tmp_path / "exports",
    )
    name, _ = _written(mailing)
    with pytest.raises(InvalidInputError, match=r"line break|control"):
        h.send_email(mailing, name, "a@b.c\r\nBcc: x@y.z", "txt", 0, 0)
    with pytest.raises(InvalidInputError):
        h.send_email(mailing, name, "not-an-address", "txt", 0, 0)
    assert inbox == []
    sent = h.send_email(mailing, name, "writer@example.com", "txt", 0, 0)
    assert sent.target == "writer@example.com" and sent.without_prose == []
    [envelope] = inbox
    assert envelope.rcpt_tos == ["writer@example.com"]
    mail: Message = message_from_bytes(envelope.original_content)
    assert mail["To"] == "writer@example.com" and "Bcc" not in mail
    [attachment] = [p for p in mail.walk() if p.get_filename()]
    assert attachment.get_filename().endswith(".txt")
    payload = attachment.get_payload(decode=True)
    assert isinstance(payload, bytes) and b"Red light" in payload


class _Doc:
    def __init__(self, text: str, tag: str) -> None:
        self.page_content, self.metadata = text, {"tag": tag}


class _Service:
    def ask(self, project: str | None, question: str) -> list[_Doc]:
        return [_Doc(f"{MARKUP}\n{HEADING}\n- not a list", "story"), _Doc("<name>", "summary")]


def test_a_memory_answer_names_each_tag_in_the_interface_language() -> None:
    """Issue 23 item 7: a Korean page's memory answer said "Character", "Story"."""
    from aizac.web.labels import Labels

    ko = Labels("ko")
    answer = inspector.ask_memory(_Tagged(), "dawn", "Who?", ko)  # type: ignore[arg-type]
    assert f"**{ko['tag.Character']}**" in answer and f"**{ko['tag.Story']}**" in answer
    assert "Character" not in answer and "Story" not in answer


class _Tagged:
    def ask(self, project: str | None, question: str) -> list[_Doc]:
        return [_Doc("Aren draws the sword.", "Character"), _Doc("The gate fell.", "Story")]


def test_a_memory_answer_shows_the_models_markup_literally() -> None:
    answer = inspector.ask_memory(_Service(), "dawn", "Who?")  # type: ignore[arg-type]
    assert_literal(answer, f"story {MARKUP} {HEADING} - not a list", "summary <name>")
    assert tags_of(answer) == ["ul", "li", "strong", "li", "strong"], answer  # two items
