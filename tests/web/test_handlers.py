"""Handlers over the application service with a real Studio (SQLite, WriterMemory) and a
scripted model."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import pytest

from aizac.application.service import ApplicationService
from aizac.errors import CancelledError, ConflictError, InvalidInputError
from aizac.text import render
from aizac.web import handlers as h
from aizac.web.labels import labels
from aizac.writer.schemas import STAGES
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel
from tests.web.markdown_kit import (
    BEAT_MARKUP,
    HEADING,
    MARKUP,
    assert_literal,
    html_of,
    tags_of,
    text_of,
)


def _project(service: ApplicationService, name: str = "dawn") -> str:
    return h.create_project(service, name, "fantasy", "regression, revenge", "en")


def _planned(service: ApplicationService) -> str:
    name = _project(service)
    h.generate_plot(service, name)
    return name


def _memory_ids(service: ApplicationService, name: str) -> set[str]:
    return {m.id for m in service.all_memories(name)}


# ------------------------------------------------------------------------------ projects
def test_create_project_rejects_bad_input_without_side_effects(service: ApplicationService) -> None:
    with pytest.raises(InvalidInputError, match="keyword"):
        h.create_project(service, "dawn", "fantasy", "  ,  ", "en")
    with pytest.raises(InvalidInputError, match="not a valid project name"):
        h.create_project(service, "../escape", "fantasy", "revenge", "en")
    with pytest.raises(InvalidInputError, match="limit"):
        h.create_project(service, "dawn", "x" * 41, "revenge", "en")
    assert h.project_names(service) == []
    assert _project(service) == "dawn"
    assert h.project_names(service) == ["dawn"]
    assert _project(service) == "dawn"  # the same request again (a double click): opened
    with pytest.raises(InvalidInputError, match="already exists"):
        h.create_project(service, "dawn", "fantasy", "another story", "en")


def test_generate_plot_shows_acts_characters_settings_and_cliches(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    name = _project(service)
    empty = h.start_view(service, name)
    assert empty.plot_version is None and [r[0] for r in empty.acts] == list(STAGES)
    view = h.generate_plot(service, name)
    assert view.title == "The Second Dawn"
    assert [row[0] for row in view.acts] == [
        "exposition", "development", "crisis", "climax", "resolution"
    ]
    assert view.characters[0][:2] == ["Aren", "protagonist"]
    assert view.settings[0][0] == "Eastwall"
    assert "None yet" not in view.cliches and len(view.cliches) > 50
    assert model.calls == ["NovelPlot"]


def test_plot_edits_are_saved_and_stale_tabs_are_refused(service: ApplicationService) -> None:
    name = _planned(service)
    view = h.start_view(service, name)
    chars = [list(r) for r in view.characters]
    chars[1][2] = "A court mage who knows everything."
    saved = h.save_plot(service, name, view.plot_version, "Dawn Again", view.logline, chars,
                        view.settings, view.acts)
    assert saved.title == "Dawn Again"
    assert saved.characters[1][2] == "A court mage who knows everything."
    assert h.start_view(service, name).title == "Dawn Again"
    with pytest.raises(ConflictError):  # the other tab still has the old version
        h.save_plot(service, name, view.plot_version, "Other tab", view.logline, chars,
                    view.settings, view.acts)
    assert h.start_view(service, name).title == "Dawn Again"


# -------------------------------------------------------------------------------- beats
def test_next_beat_edit_undo_redo(service: ApplicationService) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    assert view.beat_id is not None
    assert view.fields["location"] == "Eastwall gate"
    assert view.history.path and view.history.can_undo and not view.history.can_redo
    fields = dict(view.fields, location="The burned chapel")
    edited = h.save_edit(service, name, view.beat_id, view.version, fields)
    assert edited.fields["location"] == "The burned chapel"
    assert len(edited.history.path) == 2

    undone = h.undo(service, name)
    assert undone.fields["location"] == "Eastwall gate"
    assert undone.history.can_redo
    redone = h.redo(service, name)
    assert redone.fields["location"] == "The burned chapel"

    h.undo(service, name)
    first = h.undo(service, name)  # undoing the generation drops the draft
    assert first.beat_id is None and not first.history.can_undo
    back = h.redo(service, name)
    assert back.beat_id == view.beat_id and back.fields["location"] == "Eastwall gate"


def test_plan_this_episode_keeps_the_typed_place_and_each_draft_is_undone_alone(
    service: ApplicationService,
) -> None:
    """Issue 26: the Beat tab's 'Plan this episode' saves the form's edits first (the writer's
    fields), designs every beat left in the episode, and each draft is a history step."""
    name = _planned(service)
    view = h.next_beat(service, name)
    fields = dict(view.fields, location="The burned chapel")
    planned, drafts = h.plan_episode(service, name, view.beat_id, view.version, "faster",
                                     fields=fields)
    assert len(drafts) > 1 and all(d.status == "draft" for d in drafts)
    assert planned.beat_id == view.beat_id and planned.fields["location"] == "The burned chapel"
    assert [d.index for d in drafts] == list(range(1, len(drafts) + 1))
    steps = len(planned.history.path)
    assert steps == 2 + len(drafts)  # designed, edited, then one step per planned draft
    back = h.undo(service, name)  # the last planned draft goes; the first stays as planned
    assert len(back.history.path) == steps - 1 and back.beat_id == view.beat_id
    with pytest.raises(InvalidInputError):
        h.plan_episode(service, name, None, None, "x" * 5000)


def test_regenerate_after_undo_makes_a_branch_and_switching_restores_it(
    service: ApplicationService,
) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    a = h.regenerate(service, name, view.beat_id, view.version, "more tension")
    a_location = a.fields["location"]
    assert a_location != view.fields["location"]
    h.undo(service, name)
    b = h.regenerate(service, name, view.beat_id, None, "")
    assert b.fields["location"] not in (a_location, view.fields["location"])
    assert len(b.history.siblings) == 1
    label, other = b.history.siblings[0]
    assert "regenerated" in render(label, "en")
    switched = h.switch_branch(service, name, other)
    assert switched.fields["location"] == a_location
    assert switched.history.path == a.history.path


def test_accept_commits_memory_and_undo_reverts_it(service: ApplicationService) -> None:
    name = _planned(service)
    before = _memory_ids(service, name)
    turn0 = service.agent(name).memory.turn
    view = h.next_beat(service, name)
    accepted = h.accept(service, name, view.beat_id, view.version)
    assert accepted.beat_id is None  # no draft: the next position is free
    assert accepted.beats[0][1] == "accepted"
    after = _memory_ids(service, name)
    assert after > before
    assert service.agent(name).memory.turn == turn0 + 1

    undone = h.undo(service, name)
    assert undone.beat_id == view.beat_id  # back to the draft
    assert _memory_ids(service, name) == before
    assert service.agent(name).memory.turn == turn0

    redone = h.redo(service, name)
    assert redone.beats[0][1] == "accepted"
    assert len(_memory_ids(service, name)) == len(after)
    assert service.agent(name).memory.turn == turn0 + 1


def test_prose_streams_then_saves_and_can_be_edited(service: ApplicationService) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    view = h.accept(service, name, view.beat_id, view.version)
    label, beat_id = view.accepted[-1]
    assert label.startswith("1-1")
    chunks = list(h.write_prose(service, name, beat_id))
    assert len(chunks) > 3 and chunks[-1].startswith("Red light")
    assert all(b.startswith(a) for a, b in itertools.pairwise(chunks))
    assert h.load_prose(service, name, beat_id) == chunks[-1].strip()
    record = h.save_prose(service, name, beat_id, "My own words.")
    assert (record.episode, record.index) == (1, 1)
    assert h.load_prose(service, name, beat_id) == "My own words."
    with pytest.raises(InvalidInputError, match="empty"):
        h.save_prose(service, name, beat_id, "   ")


def test_failed_generation_leaves_the_project_as_it_was(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    model.fail_next(5)
    with pytest.raises(Exception, match=r"unavailable|failed"):
        h.regenerate(service, name, view.beat_id, view.version, "")
    after = h.editor_view(service, name)
    assert after.fields == view.fields and after.version == view.version
    assert after.history == view.history
    model.fail_next(10)
    with pytest.raises(Exception, match=r"unavailable|failed"):
        h.accept(service, name, view.beat_id, view.version)
    assert h.editor_view(service, name).beats[0][1] == "draft"
    assert service.agent(name).memory.turn == 0


def test_cancelled_generation_is_thrown_away(service: ApplicationService) -> None:
    name = _planned(service)

    def cancel_midway(message: str) -> None:
        service.cancel(name)

    with pytest.raises(CancelledError):
        service.next_beat(name, cancel_midway)
    view = h.editor_view(service, name)
    assert view.beat_id is None and view.beats == [] and not view.history.path
    assert service.cancel(name) == 0  # nothing left running


def test_a_stale_tab_cannot_overwrite_a_newer_edit(service: ApplicationService) -> None:
    name = _planned(service)
    tab1 = h.next_beat(service, name)
    tab2 = h.editor_view(service, name)
    h.save_edit(service, name, tab1.beat_id, tab1.version, dict(tab1.fields, time="Noon"))
    with pytest.raises(ConflictError, match="changed"):
        h.save_edit(service, name, tab2.beat_id, tab2.version, dict(tab2.fields, time="Dusk"))
    assert h.editor_view(service, name).fields["time"] == "Noon"


def test_two_tabs_pressing_next_beat_at_once_make_one_draft(service: ApplicationService) -> None:
    name = _planned(service)
    results: list[int | None] = []
    errors: list[BaseException] = []

    def press() -> None:
        try:
            results.append(h.next_beat(service, name).beat_id)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=press) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(results)) == 1
    assert len(h.editor_view(service, name).beats) == 1
    assert len(service.history(name).path) == 1


def test_history_survives_a_server_restart(
    service: ApplicationService, studio: Studio, tmp_path: Path
) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    h.save_edit(service, name, view.beat_id, view.version, dict(view.fields, time="Night"))
    restarted = ApplicationService(
        Studio(studio.settings, router=studio.router, embeddings=studio.embeddings,
               cliches=studio.cliches, beats_per_episode=3),
        export_dir=tmp_path / "exports",
    )
    again = h.editor_view(restarted, name)
    assert again.fields["time"] == "Night" and len(again.history.path) == 2
    assert h.undo(restarted, name).fields["time"] == view.fields["time"]


def test_suggestions_come_from_the_cliche_database(service: ApplicationService) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    hits = h.suggest(service, name, view.beat_id)
    assert len(hits) >= 3 and all(s.summary and s.markdown.startswith("**") for s in hits)


def test_oversized_fields_are_refused_before_anything_is_written(
    service: ApplicationService,
) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    with pytest.raises(InvalidInputError, match="limit"):
        h.save_edit(service, name, view.beat_id, view.version,
                    dict(view.fields, events="x" * 10_000))
    with pytest.raises(InvalidInputError, match="limit"):
        h.regenerate(service, name, view.beat_id, view.version, "y" * 1_000)
    assert h.editor_view(service, name) == view


def test_long_histories_show_the_latest_steps(service: ApplicationService) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    for i in range(h.HISTORY_SHOWN + 2):
        view = h.save_edit(service, name, view.beat_id, view.version,
                           dict(view.fields, time=f"Hour {i}"))
    text = view.history_markdown
    assert text.startswith("_… 3 earlier step(s)_")
    assert text.count("\n") == h.HISTORY_SHOWN
    assert text.endswith("← **you are here**")
    # as the page shows it: "15. edited", no Markdown list (one starting at 10 drew ".0.")
    shown = text_of(text)
    assert f"{h.HISTORY_SHOWN + 3}. edited" in shown and "10. edited" in shown, shown
    assert "<ol" not in html_of(text)


def test_a_drafts_version_counts_the_writers_revisions_not_every_write(
    service: ApplicationService,
) -> None:
    """Issue 23 item 7: the draft line said 버전 3 then 버전 7: the stored version counts every
    write, undo and redo too. It counts the draft's steps on the history list instead: undo
    goes back to the revision it shows."""
    name = _planned(service)
    view = h.next_beat(service, name)
    revisions, versions = [view.draft_revision], [view.version]
    for act in (lambda v: h.save_edit(service, name, v.beat_id, v.version,
                                      dict(v.fields, time="dawn")),
                lambda v: h.save_edit(service, name, v.beat_id, v.version,
                                      dict(v.fields, time="dusk")),
                lambda v: h.undo(service, name), lambda v: h.undo(service, name),
                lambda v: h.redo(service, name)):
        view = act(view)
        revisions.append(view.draft_revision)
        versions.append(view.version)
    assert revisions == [1, 2, 3, 2, 1, 2], (revisions, versions)
    assert versions == sorted(versions) and versions[-1] == 6  # what the line said


# ------------------------------------------------------------------- literal model text
def test_the_models_markup_shows_literally_in_history_overview_and_suggestions(
    service: ApplicationService, model: ScriptedChatModel,
) -> None:
    name = _planned(service)
    model.react("", {"events": [BEAT_MARKUP]})
    view = h.next_beat(service, name)
    text = view.history_text(labels("ko"))
    assert_literal(text, f"설계 {view.draft_position}: {BEAT_MARKUP}")
    assert tags_of(text) == ["p", "strong"], text  # numbered lines and "you are here" stay
    plot = h.start_view(service, name)
    start = h.StartView(**{**plot.__dict__, "title": f"{HEADING} <name>",
                           "logline": f"{MARKUP}\n{HEADING}", "genre": "**dark** fantasy",
                           "keywords": "[x](y), a|b"})
    text = start.overview()
    assert_literal(text, f"{HEADING} <name>", MARKUP, HEADING, "**dark** fantasy", "[x](y), a|b")
    assert tags_of(text) == ["h3", "p", "p", "strong", "strong", "strong"], text
    hint = h.Suggestion(trope=f"{HEADING} <name>", summary=MARKUP, hook="**hook** a|b")
    text = "\n".join(f"{i}. {s.markdown}" for i, s in enumerate([hint, hint], 1))
    assert_literal(text, f"{HEADING} <name> — {MARKUP} (**hook** a|b)", em=2)
    assert tags_of(text) == ["ol", "li", "strong", "em", "li", "strong", "em"], text
