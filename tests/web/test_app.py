"""The app factory, the server entry points and the error presentation."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import gradio as gr
import httpx
import pytest
from typer.testing import CliRunner

from aizac.errors import InvalidInputError, ModelError
from aizac.settings import Settings
from aizac.web.app import create_app, serve
from aizac.writer.service import Studio


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_create_app_is_offline_and_english_by_default(studio: Studio) -> None:
    app, export_dir = create_app(studio)
    assert os.environ["GRADIO_ANALYTICS_ENABLED"] == "False"
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert export_dir == (studio.settings.data_dir / "exports").resolve() and export_dir.is_dir()
    labels = {getattr(b, "label", None) for b in app.blocks.values()}
    assert {"Project", "Keywords", "Instruction for regeneration (optional)"} <= labels
    assert isinstance(app, gr.Blocks)


def test_korean_interface_through_the_language_option(studio: Studio) -> None:
    app, _ = create_app(studio, language="ko")
    labels = {getattr(b, "label", None) for b in app.blocks.values()}
    assert {"프로젝트", "키워드", "작품 언어"} <= labels


def test_serve_uses_the_settings_host_and_port(studio: Studio) -> None:
    port = _free_port()
    settings = studio.settings.model_copy(update={"host": "127.0.0.1", "port": port})
    injected = Studio(settings, router=studio.router, embeddings=studio.embeddings,
                      cliches=studio.cliches)
    app = serve(studio=injected, prevent_thread_lock=True, quiet=True)
    try:
        assert app.local_url.rstrip("/").endswith(f"127.0.0.1:{port}")
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=30)
        assert page.status_code == 200 and "aizac" in page.text
    finally:
        app.close()


def test_status_messages_never_show_a_stack_trace(studio: Studio) -> None:
    from aizac.web.labels import labels
    from aizac.web.runner import Ui

    ui = Ui(service=None, L=labels("en"), language="en")  # type: ignore[arg-type]
    said = ui.message(InvalidInputError("Bad name.", hint="Use letters."))
    assert said.endswith("Bad name. Use letters.")
    text = ui.message(ZeroDivisionError("division by zero"))
    assert "ZeroDivisionError" in text and "Traceback" not in text and "try again" in text
    assert "The provider timed out." in ui.message(ModelError("The provider timed out."))

    run = ui.act(lambda project: (_ for _ in ()).throw(ModelError("Timed out.")), 2)
    values = run(None)
    assert values[:2] == [gr.skip(), gr.skip()]  # what the writer typed stays
    assert "Timed out." in values[2]


def test_cli_registers_the_ui_command(tmp_path: Path) -> None:
    from aizac.cli import _register, app

    _register.register_all(app)
    result = CliRunner().invoke(app, ["ui", "--help"])
    assert result.exit_code == 0
    assert "--host" in result.output and "--port" in result.output


def test_app_py_parses_host_and_port() -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "app.py"
    spec = importlib.util.spec_from_file_location("aizac_app_entry", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SystemExit) as info:
        module.main(["--help"])
    assert info.value.code == 0


def test_creating_a_project_fills_every_tab_in_its_own_event(studio: Studio) -> None:
    """Create opens the new project in the same event, and no event the project dropdown's
    value change sets off writes the Start tab: a second "open" event after Create overwrote a
    character row the writer had begun typing (chromium, embedded model, bench/korean_walk.py)."""
    app, _ = create_app(studio)
    config = app.config
    elem = {c["id"]: c.get("props", {}).get("elem_id") for c in config["components"]}
    ids = {v: k for k, v in elem.items() if v}
    tables = {ids["aizac-characters"], ids["aizac-settings"], ids["aizac-acts"]}

    def triggered_by(elem_id: str, event: str) -> list[dict[str, object]]:
        return [d for d in config["dependencies"]
                if [ids[elem_id], event] in [list(t) for t in d["targets"]]]

    [create] = triggered_by("aizac-create", "click")
    assert tables | {ids["aizac-project"], ids["aizac-status"], ids["aizac-location"]} <= set(
        create["outputs"])
    on_change = triggered_by("aizac-project", "change")
    assert all(tables.isdisjoint(d["outputs"]) for d in on_change)
    # the writer's own pick opens a project (one event; another keeps the pick for a reload)
    picked = [d for d in triggered_by("aizac-project", "input") if tables <= set(d["outputs"])]
    assert len(picked) == 1


def test_a_new_project_follows_the_one_story_language_rule(
    tmp_path: Path, studio: Studio
) -> None:
    """Issue 39 item 7: the README says the story language defaults to ``ko`` (AIZAC_LANGUAGE),
    and the first screen's *Story language* said English under an English interface."""
    from aizac.application.service import ApplicationService
    from aizac.web import handlers as h

    default = Studio(Settings(data_dir=tmp_path / "d"), router=studio.router,
                     embeddings=studio.embeddings, cliches=studio.cliches)
    app, _ = create_app(default, language="en")
    story = next(b for b in app.blocks.values() if getattr(b, "elem_id", "") == "aizac-language")
    assert story.value == "ko"
    service = ApplicationService(default, export_dir=tmp_path / "x")
    assert service.agent(h.create_project(service, "dawn", "", "회귀", None)).info.language == "ko"
    english = Studio(Settings(data_dir=tmp_path / "e", language="en"), router=studio.router,
                     embeddings=studio.embeddings, cliches=studio.cliches)
    app, _ = create_app(english, language="ko")
    story = next(b for b in app.blocks.values() if getattr(b, "elem_id", "") == "aizac-language")
    assert story.value == "en"  # AIZAC_LANGUAGE=en: the rule, whatever the interface speaks


def test_the_interface_language_chosen_on_the_first_screen_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aizac.web.app import interface_language
    from aizac.web.interface import store_language

    settings = Settings(data_dir=tmp_path)
    assert interface_language(settings) == "en"
    store_language(tmp_path, "ko")
    assert interface_language(Settings(data_dir=tmp_path)) == "ko"  # the writer's last choice
    assert interface_language(Settings(data_dir=tmp_path), "zh") == "zh"  # --ui-language
    monkeypatch.setenv("AIZAC_UI_LANGUAGE", "en")
    assert interface_language(Settings(data_dir=tmp_path)) == "en"  # a configured setting wins
    with pytest.raises(InvalidInputError):
        interface_language(settings, "fr")


def test_serve_says_where_it_is_and_keeps_gradios_hints_to_itself(
    studio: Studio, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 39 item 11: the first start printed Gradio's developer line ("set share=True in
    launch()"); it says where the app is, its interface language and where the data lives."""
    port = _free_port()
    settings = studio.settings.model_copy(update={"host": "127.0.0.1", "port": port})
    injected = Studio(settings, router=studio.router, embeddings=studio.embeddings,
                      cliches=studio.cliches)
    served = serve(studio=injected, prevent_thread_lock=True, language="ko")
    try:
        said = capsys.readouterr().out
    finally:
        served.close()
    assert f"aizac: 웹 앱 주소는 http://127.0.0.1:{port}/입니다(화면 언어: 한국어" in said
    assert f"프로젝트는 {settings.data_dir.resolve()}에 저장됩니다." in said
    assert "share=True" not in said and "Running on" not in said



def test_no_action_is_offered_before_the_pages_load_has_set_every_button(
        studio: Studio) -> None:
    """CI, chromium on a busy machine: Create clicked before the page's load had opened its
    project (none yet) made the project, then the load's late open of no project blanked the
    Start tab and disabled Generate plot. Every button the load's chain sets starts disabled
    (Create among them): nothing can be clicked before the page is what the store says."""
    app, _ = create_app(studio)
    config = app.config
    kinds = {c["id"]: (c.get("type"), c.get("props", {})) for c in config["components"]}
    deps = config["dependencies"]
    chain = [d for d in deps if any(t[1] == "load" for t in d["targets"])]
    while True:  # the events each load event sets off after it (.then)
        after = [d for d in deps if d not in chain
                 and d.get("trigger_after") in {deps.index(x) for x in chain}]
        if not after:
            break
        chain += after
    set_by_load = {i for d in chain for i in d["outputs"] if kinds[i][0] == "button"}
    named = {kinds[i][1].get("elem_id") for i in set_by_load}
    assert {"aizac-create", "aizac-generate-plot", "aizac-refresh"} <= named
    enabled = sorted(str(kinds[i][1].get("elem_id")) for i in set_by_load
                     if kinds[i][1].get("interactive") is not False)
    assert enabled == []
