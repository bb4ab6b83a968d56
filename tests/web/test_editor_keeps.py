"""Issue 23: the beat editor keeps the writer's work: the fields the writer wrote belong to the
draft (stored, versioned, in the undo tree), and every accepted beat, the autopilot's too, is a
node of the history.

Handlers over a real Studio (SQLite, WriterMemory, cliché DB) with the scripted model.
"""

from __future__ import annotations

from pathlib import Path

from aizac.application.service import ApplicationService
from aizac.web import handlers as h
from tests.fakes import ScriptedChatModel

TIME = "회귀 첫날 새벽 4시"


def _planned(service: ApplicationService, lang: str = "ko") -> str:
    name = h.create_project(service, "dawn", "판타지", "회귀, 복수", lang)
    h.generate_plot(service, name)
    return name


def test_an_edit_stands_through_every_regeneration_until_it_is_unticked(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    model.speak_korean()
    name = _planned(service)
    view = h.next_beat(service, name)
    # typed, then straight to regenerate (no save, no tick): the typed field is the writer's
    regen = h.regenerate(service, name, view.beat_id, view.version, "",
                         fields=dict(view.fields, time=TIME))
    for _ in range(2):
        assert regen.fields["time"] == TIME and regen.edited == ["time"]  # still ticked
        regen = h.regenerate(service, name, regen.beat_id, regen.version, "")
    assert regen.fields["time"] == TIME
    # unticked: the draft holds that too (a reload shows it), and the model may change it
    free = h.set_locks(service, name, regen.beat_id, regen.version, [], dict(regen.fields))
    assert free.edited == [] and h.editor_view(service, name).edited == []
    again = h.regenerate(service, name, free.beat_id, free.version, "")
    assert again.fields["time"] != TIME and again.edited == []
    # undo puts back the lock with the text; a branch regenerated from there keeps both
    h.undo(service, name)
    back = h.undo(service, name)
    assert back.fields["time"] == TIME and back.edited == ["time"]
    branch = h.regenerate(service, name, back.beat_id, back.version, "")
    assert branch.fields["time"] == TIME and branch.edited == ["time"]
    assert branch.history.siblings  # the unlocked regeneration is the other branch


def test_ticking_a_field_the_model_wrote_keeps_it(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    model.speak_korean()
    name = _planned(service)
    view = h.next_beat(service, name)
    kept = h.set_locks(service, name, view.beat_id, view.version, ["location"],
                       dict(view.fields))
    assert kept.edited == ["location"]
    model.react("", {"location": "다른 곳"})
    regen = h.regenerate(service, name, kept.beat_id, kept.version, "")
    assert regen.fields["location"] == view.fields["location"]


def test_two_novels_with_the_same_title_export_distinct_epub_identifiers(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    model.speak_korean()
    ids = []
    for name in ("first", "second"):
        h.create_project(service, name, "판타지", "회귀, 복수", "ko")
        h.generate_plot(service, name)
        view = h.next_beat(service, name)
        h.accept(service, name, view.beat_id, view.version)
        agent = service.agent(name)
        beat = agent.store.beats(status="accepted")[0]
        agent.save_prose(beat.id, "\u3000그는 눈을 떴다.")
        book = agent.manuscript()
        assert book.episodes[0].paragraphs == ["\u3000그는 눈을 떴다."]
        ids.append((book.title, book.identifier))
    assert ids[0][0] == ids[1][0] and ids[0][1] != ids[1][1]
    named = service.export("second", "epub", None, None, "#1 `final` [v2] draft")
    assert Path(named.target).name == "_1_final_v2_draft.epub"  # its download URL works


def test_the_relationship_matrix_covers_the_characters_the_story_has(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    """Issue 23 item 12: it listed only the plot's characters; one met in a beat is there too."""
    from aizac.web import inspector

    name = h.create_project(service, "dawn", "fantasy", "regression", "en")
    h.generate_plot(service, name)
    model.cast_next(["Aren", "Lord Kestrel"])
    view = h.next_beat(service, name)
    h.accept(service, name, view.beat_id, view.version)
    assert "Lord Kestrel" in service.agent(name).memory.characters()
    headers, rows = inspector.relation_table(service, name)
    assert headers[:4] == ["", "Aren", "Mira", "Duke Veil"] and "Lord Kestrel" in headers
    assert len(rows) == len(headers) - 1


def test_create_twice_is_one_project_but_a_real_clash_is_refused(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    """Issue 23 item 5: a double click on 프로젝트 만들기 said "이미 있습니다" and left the
    plot buttons disabled."""
    import pytest

    from aizac.errors import InvalidInputError

    model.speak_korean()
    first = h.create_project(service, "새벽", "판타지", "회귀, 복수", "ko")
    again = h.create_project(service, "새벽", "판타지", "회귀, 복수", "ko")
    assert first == again == "새벽" and h.project_names(service) == ["새벽"]
    with pytest.raises(InvalidInputError) as other:  # another request under the same name
        h.create_project(service, "새벽", "판타지", "재벌", "ko")
    assert other.value.key == "error.project.exists"
    h.generate_plot(service, "새벽")
    with pytest.raises(InvalidInputError):  # once work began, a repeat is a clash
        h.create_project(service, "새벽", "판타지", "회귀, 복수", "ko")


def test_a_page_reopens_the_project_its_browser_had_open() -> None:
    assert h.reopened(["a", "b"], "a") == "a"
    assert h.reopened(["a", "b"], "gone") == "b" and h.reopened(["a", "b"], None) == "b"
    assert h.reopened([], "a") is None
