"""The web app tells a Korean writer when the small embedded demo model writes the project
(issue 12 item 1: a visible note, not silence); injected (real) models get no note."""

from __future__ import annotations

from pathlib import Path

from aizac.application.service import ApplicationService
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.web.labels import labels
from aizac.web.runner import Ui
from aizac.web.tab_models import small_model_note
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel


def web(tmp_path: Path, cliche_db: ClicheDB, **models: ScriptedChatModel) -> Ui:
    studio = Studio(Settings(data_dir=tmp_path / "data"), models=dict(models),
                    embeddings=HashingEmbeddings(), cliches=cliche_db)
    service = ApplicationService(studio, export_dir=tmp_path / "exports")
    return Ui(service=service, L=labels("ko"), language="ko")


def test_a_korean_project_on_the_embedded_model_shows_the_note(
    tmp_path: Path, cliche_db: ClicheDB
) -> None:
    ui = web(tmp_path, cliche_db)  # the product's default: every role on the embedded model
    ui.service.studio.create("dawn", "회귀, 복수", language="ko")
    note = small_model_note(ui, "dawn")
    assert "데모 모델" in note and "실제 모델" in note
    ui.service.studio.create("dusk", "regression", language="en")
    assert small_model_note(ui, "dusk") == ""  # English projects: no note


def test_real_models_show_no_note(tmp_path: Path, cliche_db: ClicheDB) -> None:
    model = ScriptedChatModel()
    ui = web(tmp_path, cliche_db, planner=model, writer=model, extractor=model)
    ui.service.studio.create("dawn", "회귀, 복수", language="ko")
    assert small_model_note(ui, "dawn") == ""


def test_the_note_points_at_the_models_tab_by_its_name() -> None:
    """The note is shown on the Start tab too, where no role settings are "below": it names the
    Models tab by the label the writer sees, in Korean, English and Chinese."""
    for language in ("ko", "en", "zh"):
        L = labels(language)
        note = L.t("ui.m.small", lang="x")
        assert L["ui.tab.models"] in note
        assert "아래" not in note and "below" not in note and "下方" not in note
