"""Issue 11: the beat editor never loses, silently changes or corrupts the writer's work.

Handlers over a real Studio (SQLite, WriterMemory, cliché DB) with the scripted model.
"""

from __future__ import annotations

import io
import threading
import warnings

import pytest

from aizac.application.service import ApplicationService
from aizac.errors import AizacError, CancelledError, ConflictError, NotFoundError
from aizac.web import handlers as h
from aizac.web import inspector
from aizac.web.labels import labels
from aizac.web.runner import Ui
from aizac.web.states import button_states
from tests.fakes import ScriptedChatModel


def _planned(service: ApplicationService, *, genre: str = "fantasy", lang: str = "en") -> str:
    name = h.create_project(service, "dawn", genre, "regression, revenge", lang)
    h.generate_plot(service, name)
    return name


def _characters(service: ApplicationService, name: str) -> set[str]:
    return set(service.agent(name).memory.characters())


# ------------------------------------------------------------------------- work is kept
def test_accept_saves_unsaved_field_edits_first(service: ApplicationService) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    typed = dict(view.fields, location="The burned chapel")  # typed, Save edit not pressed
    after = h.accept(service, name, view.beat_id, view.version, fields=typed)
    [accepted] = service.accepted(name)
    assert accepted.beat.location == "The burned chapel"
    assert after.beats[0][2] == "The burned chapel"
    assert [step.kind for step in after.history.path] == ["generate", "edit", "accept"]


def test_regenerate_keeps_edited_fields_and_follows_the_instruction(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    model.speak_korean()
    name = _planned(service, lang="ko")
    view = h.next_beat(service, name)
    edited = h.save_edit(service, name, view.beat_id, view.version,
                         dict(view.fields, location="불탄 예배당", time="자정"))
    assert edited.edited == ["location", "time"]  # ticked by default in the UI
    model.react("긴장감을 높여줘", {"conflicts": ["칼끝이 목에 닿는다."]})
    regen = h.regenerate(service, name, edited.beat_id, edited.version, "긴장감을 높여줘",
                         locked=edited.edited)
    assert regen.fields["location"] == "불탄 예배당" and regen.fields["time"] == "자정"
    assert regen.fields["conflicts"] == "칼끝이 목에 닿는다."  # the instruction mattered
    assert regen.fields["events"] != ""  # the rest was designed again
    prompt = model.prompts[-1]
    assert "긴장감을 높여줘" in prompt and "불탄 예배당" in prompt and "자정" in prompt
    assert "Writer's instruction" not in prompt  # a ko prompt asks in Korean
    # Unticked, the model's values come back.
    free = h.regenerate(service, name, regen.beat_id, regen.version, "", locked=[])
    assert free.fields["location"] != "불탄 예배당"


def test_filler_in_a_locked_field_does_not_refuse_the_regeneration(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    """The embedded model wrote "12345678" as the place of every regenerated beat; the quality
    check refused each one, though the writer had locked the place (bench/korean_walk.py)."""
    model.speak_korean()
    name = _planned(service, lang="ko")
    view = h.next_beat(service, name)
    edited = h.save_edit(service, name, view.beat_id, view.version,
                         dict(view.fields, location="불탄 예배당"))
    model.react("긴장감을 높여줘", {"location": "12345678", "conflicts": ["칼끝이 목에 닿는다."]})
    regen = h.regenerate(service, name, edited.beat_id, edited.version, "긴장감을 높여줘",
                         locked=["location"])
    assert regen.fields["location"] == "불탄 예배당"
    assert regen.fields["conflicts"] == "칼끝이 목에 닿는다."
    with pytest.raises(AizacError, match="12345678"):  # unlocked, the filler is refused
        h.regenerate(service, name, regen.beat_id, regen.version, "긴장감을 높여줘", locked=[])


def test_switching_branches_never_commits_the_abandoned_cast(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    h.accept(service, name, view.beat_id, view.version)
    h.undo(service, name)
    model.cast_next(["Aren", "Lord Kestrel"])
    other = h.regenerate(service, name, view.beat_id, None, "other cast")
    assert "Lord Kestrel" in other.fields["characters"]
    [(_, accepted_branch)] = other.history.siblings
    back = h.switch_branch(service, name, accepted_branch)
    assert back.beats[0][1] == "accepted"
    assert "Lord Kestrel" not in _characters(service, name)
    assert not any("Kestrel" in m.text for m in service.all_memories(name))


def test_a_plot_written_by_hand_is_saved_without_any_generation(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    model.speak_korean()
    name = h.create_project(service, "hand", "현대 판타지", "회귀, 복수", "ko")
    acts = [[stage, f"{stage} 목표", "1", "사건"] for stage in
            ("exposition", "development", "crisis", "climax", "resolution")]
    view = h.save_plot(service, name, None, "두 번째 새벽", "배신당한 기사가 돌아온다.",
                       [["진도준", "주인공", "회귀한 재벌가 막내"]], [["순양", "재벌 그룹"]], acts)
    assert model.calls == []  # nothing was generated
    assert view.title == "두 번째 새벽" and view.plot_version == 1
    assert view.genre == "현대 판타지" and view.keywords == "회귀, 복수"
    assert "진도준" in _characters(service, name)
    assert h.next_beat(service, name).beat_id is not None  # the writer can go on


def test_generating_over_an_existing_plot_needs_the_writers_confirmation(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    """A hand-written Korean plot was replaced by the embedded model's English plot with one
    click and no warning (docs/screens/korean-walk-embedded/03-plot-generated.png)."""
    model.speak_korean()
    name = h.create_project(service, "hand", "현대 판타지", "회귀, 복수", "ko")
    acts = [[stage, f"{stage} 목표", "1", "사건"] for stage in
            ("exposition", "development", "crisis", "climax", "resolution")]
    h.save_plot(service, name, None, "손으로 쓴 플롯", "배신당한 기사가 돌아온다.",
                [["진도준", "주인공", "회귀한 재벌가 막내"]], [["순양", "재벌 그룹"]], acts)
    with pytest.raises(ConflictError, match="already has a plot") as refused:
        h.generate_plot(service, name)
    kept = h.start_view(service, name)
    assert kept.title == "손으로 쓴 플롯" and kept.plot_version == 1 and model.calls == []
    said = Ui(service, labels("ko"), "ko").message(refused.value)
    assert "이미 플롯이 있" in said and "바꾸기" in said and "already" not in said
    replaced = h.generate_plot(service, name, replace=True)  # the writer confirmed
    assert replaced.title == "두 번째 새벽" and model.calls == ["NovelPlot"]
    fresh = h.create_project(service, "fresh", "현대 판타지", "회귀", "ko")
    assert h.generate_plot(service, fresh).title == "두 번째 새벽"  # no plot yet: one click


def test_the_writers_genre_and_keywords_are_never_replaced(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    model.speak_korean()
    name = h.create_project(service, "mine", "현대 판타지", "회귀, 복수", "ko")
    view = h.generate_plot(service, name)  # the model answers genre "판타지"
    assert view.genre == "현대 판타지" and view.keywords == "회귀, 복수"
    assert "현대 판타지" in view.overview() and "** 판타지" not in view.overview()
    assert service.plot(name).plot.genre == "현대 판타지"  # type: ignore[union-attr]
    edited = h.update_project(service, name, "무협", "복수, 검")
    assert edited.genre == "무협" and edited.keywords == "복수, 검"
    assert service.plot(name).plot.keywords == ["복수", "검"]  # type: ignore[union-attr]
    assert service.agent(name).info.genre == "무협"


def test_next_beat_with_a_draft_pending_says_so(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    name = _planned(service)
    first = h.next_beat(service, name)
    assert not first.reused_draft
    again = h.next_beat(service, name)
    assert again.reused_draft and again.beat_id == first.beat_id
    assert model.calls.count("BeatDesign") == 1


def test_export_names_the_accepted_beats_without_prose(service: ApplicationService) -> None:
    name = _planned(service)
    for _ in range(2):
        view = h.next_beat(service, name)
        view = h.accept(service, name, view.beat_id, view.version)
    list(h.write_prose(service, name, view.accepted[0][1]))
    result = h.export_file(service, name, "txt", 0, 0, "")
    assert result.without_prose == ["1-2"]
    steps = [s for s in service.agent(name).store.steps() if s.kind == "export"]
    assert steps[0].detail["without_prose"] == ["1-2"]


# --------------------------------------------------------------------- cancel really stops
def test_cancel_stops_the_model_midway_and_stores_nothing(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    name = _planned(service)
    model.slow(0.05)  # a beat design is ~60 chunks: 3 s if nobody stops it
    model.started.clear()
    streamed = model.streamed
    errors: list[BaseException] = []

    def press_next() -> None:
        try:
            service.next_beat(name)
        except BaseException as e:
            errors.append(e)

    worker = threading.Thread(target=press_next)
    worker.start()
    assert model.started.wait(10)
    assert service.cancel(name) == 1
    worker.join(10)
    assert not worker.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], CancelledError)
    assert model.streamed - streamed < 15  # stopped within a few tokens, not the whole reply
    assert service.agent(name).store.beats() == []  # not even as a rejected beat
    assert not service.history(name).path


# ---------------------------------------------------------------------- readable screens
def test_curves_draw_hangul_without_missing_glyphs(service: ApplicationService) -> None:
    name = h.create_project(service, "hangul", "현대 판타지", "회귀", "ko")
    acts = [[s, "목표", "1", "사건"] for s in
            ("exposition", "development", "crisis", "climax", "resolution")]
    h.save_plot(service, name, None, "제목", "한 줄", [["진도준", "주인공", "회귀한 막내"]],
                [["순양", "재벌 그룹"]], acts)
    ids = [m.id for m in service.all_memories(name)]
    fig = inspector.curve_figure(service, name, ids, labels("ko"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(io.BytesIO(), format="png")
    assert not [w for w in caught if "Glyph" in str(w.message)]


def test_plot_edits_remove_not_forget_and_never_duplicate(service: ApplicationService) -> None:
    name = _planned(service)
    for _ in range(2):  # saving twice must not list the unchanged setting twice
        view = h.start_view(service, name)
        chars = [list(r) for r in view.characters]
        chars[2] = ["Lady Ash", "antagonist", "The duke's heir."]
        h.save_plot(service, name, view.plot_version, view.title, view.logline, chars,
                    view.settings, view.acts)
    rows = inspector.memory_table(service, name)
    settings = [r for r in rows if r[1] == "NovelSetting"]
    assert len(settings) == 1
    veil = [r for r in rows if r[2].startswith("Duke Veil")]
    assert veil and {r[8] for r in veil} == {"removed"}
    ko = inspector.memory_table(service, name, L=labels("ko"))
    assert {r[8] for r in ko if r[2].startswith("Duke Veil")} == {"삭제됨"}


def test_an_empty_editor_offers_only_what_can_be_done(service: ApplicationService) -> None:
    nothing_open = button_states(service, None)
    assert nothing_open["create"] and not nothing_open.get("next-beat")
    name = h.create_project(service, "empty", "fantasy", "regression", "en")
    states = button_states(service, name)
    for off in ("next-beat", "accept", "save-edit", "regenerate", "undo", "redo", "switch",
                "write-prose", "download", "cancel-beat"):
        assert states[off] is False, off
    h.generate_plot(service, name)
    assert button_states(service, name)["next-beat"] is True
    view = h.next_beat(service, name)
    states = button_states(service, name)
    assert states["accept"] and states["regenerate"] and states["undo"]
    assert view.beat_id is not None


def test_web_errors_never_name_cli_flags() -> None:
    from aizac.web.runner import Ui

    ui = Ui(service=None, L=labels("en"), language="en")  # type: ignore[arg-type]
    error = NotFoundError("error.project.none_selected")
    said = ui.message(error)
    assert "--project" not in said and "aizac new" not in said
    assert "No project selected." in said
    assert "--project" in str(error)  # the command line's own hint names its flag
    ko = Ui(service=None, L=labels("ko"), language="ko")  # type: ignore[arg-type]
    assert "열린 프로젝트가 없습니다" in ko.message(error)


def test_a_cliche_suggestion_can_be_used_with_one_click(service: ApplicationService) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    hits = h.suggest(service, name, view.beat_id)
    assert hits
    form = h.use_suggestion(view.fields, hits[0])
    assert form["events"].splitlines()[-1] == hits[0].summary
    assert form["location"] == view.fields["location"]


@pytest.mark.parametrize("kind", ["designed", "edited", "regenerated", "accepted"])
def test_history_entries_read_in_korean(service: ApplicationService, kind: str) -> None:
    from aizac.web import tab_beats
    from aizac.web.runner import Ui

    name = _planned(service)
    view = h.next_beat(service, name)
    view = h.save_edit(service, name, view.beat_id, view.version, dict(view.fields, time="밤"))
    view = h.regenerate(service, name, view.beat_id, view.version, "")
    view = h.accept(service, name, view.beat_id, view.version)
    ui = Ui(service=service, L=labels("ko"), language="ko")
    history = tab_beats.values(ui, view)[3 + 9 + 3]
    assert kind not in history


def _memory_state(service: ApplicationService, name: str) -> dict[str, tuple[str, str]]:
    return {m.id: (m.text, str(m.metadata.get("superseded_by", "")))
            for m in service.all_memories(name)}


def test_redo_and_switch_put_back_the_exact_commit_without_a_model_call(
    service: ApplicationService, model: ScriptedChatModel
) -> None:
    name = _planned(service)
    view = h.next_beat(service, name)
    h.accept(service, name, view.beat_id, view.version)
    agent = service.agent(name)
    accepted = _memory_state(service, name)
    [beat] = service.accepted(name)
    turn, summary = agent.memory.turn, beat.summary
    h.undo(service, name)
    assert _memory_state(service, name) != accepted
    calls = len(model.calls)
    h.redo(service, name)
    assert len(model.calls) == calls  # no extraction, no summary: nothing was asked again
    assert _memory_state(service, name) == accepted  # same ids, texts and marks
    [again] = service.accepted(name)
    assert again.memory_ids == beat.memory_ids and again.summary == summary
    assert agent.memory.turn == turn

    h.undo(service, name)
    other = h.regenerate(service, name, view.beat_id, None, "")
    calls = len(model.calls)
    [(_, accepted_branch)] = other.history.siblings
    h.switch_branch(service, name, accepted_branch)
    assert len(model.calls) == calls
    assert _memory_state(service, name) == accepted


def test_while_an_operation_runs_a_page_that_opens_the_project_offers_only_cancel(
    service: ApplicationService,
) -> None:
    """A page reloaded during a long operation is drawn with the project's button states: they
    must wait too (they were the idle states, so the reloaded page offered "Next beat" while
    the design still ran, seen in chromium under load)."""
    from aizac.web.runner import Ui

    name = _planned(service)
    ui = Ui(service, labels("en"), "en")
    for button in ("next-beat", "accept", "cancel-beat", "write-episode"):
        ui.button(button, button)
    idle = dict(zip(ui.button_names, (b.interactive for b in ui.states(name)), strict=True))
    assert idle["next-beat"] and not idle["cancel-beat"]
    ui.live[ui.key(name)] = ("ui.busy.next", "")
    busy = dict(zip(ui.button_names, (b.interactive for b in ui.states(name)), strict=True))
    assert busy == {"next-beat": False, "accept": False, "cancel-beat": True,
                    "write-episode": False}
    ui.live.pop(ui.key(name))
    assert ui.states(name)[0].interactive
