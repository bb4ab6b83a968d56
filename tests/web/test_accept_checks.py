"""Issue 39 item 6: what the checks find in a draft is shown beside Accept, before the beat
becomes canon (it was shown only in the Style & voices tab)."""

from __future__ import annotations

from aizac.application.service import ApplicationService
from aizac.web import handlers as h
from aizac.web import tab_beats
from aizac.web.labels import labels
from aizac.web.runner import Ui


def test_a_speaker_not_in_the_scene_is_said_beside_accept(service: ApplicationService) -> None:
    name = h.create_project(service, "dawn", "fantasy", "regression, revenge", "en")
    h.generate_plot(service, name)
    view = h.next_beat(service, name)
    clean = tab_beats.checks_markdown(Ui(service, labels("en"), "en"), view)
    assert clean == "No dialogue problem in the draft."
    fields = dict(view.fields, dialogue="Bel: Who goes there?")
    view = h.save_edit(service, name, view.beat_id, view.version, fields)
    assert [f.kind for f in view.findings.findings] == ["speaker_absent"]
    said = tab_beats.checks_markdown(Ui(service, labels("ko"), "ko"), view)
    assert said.startswith("**확정하기 전에 점검에서 찾은 것:**\n- 오류: ") and "Bel" in said
    # nothing was accepted by looking
    assert service.accepted(name) == []
