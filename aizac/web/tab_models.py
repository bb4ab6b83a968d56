"""The Models tab: which model serves each role, set a role's model, store a key, test it.

Keys go to the data directory (mode 0600) through :class:`~aizac.llm.model_config.ModelConfig`
(shared with ``aizac models set``) and are never shown again: the key box is emptied after
saving and the page only lists which providers have one. A note says when a Korean or Chinese
project is written by the small embedded model.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import gradio as gr
from pydantic import SecretStr

from aizac.export.render import escape_markdown_cell
from aizac.llm.model_config import KEY_FIELDS, ModelConfig
from aizac.settings import IMAGE_ROLE, ROLES, Settings
from aizac.text import t as text
from aizac.web.labels import translate
from aizac.web.runner import Ui


def with_stored(settings: Settings, config: ModelConfig) -> Settings:
    """``settings`` with the specs and keys just stored in the panel laid over them (the
    writer's explicit choice; at start-up :class:`Settings` reads them under the environment)."""
    secret = set(KEY_FIELDS.values())
    update = {k: SecretStr(v) if k in secret else v for k, v in config.settings_values().items()}
    return settings.model_copy(update=update)


def role_rows(router: Any, L: dict[str, str], language: str) -> list[list[str]]:
    """The roles table: role, model, provider, ready, why (in the interface language)."""
    def name(role: str) -> str:
        if role == IMAGE_ROLE:
            return text("ui.models.role_image", language)
        return L.get(f"role_{role}", role)

    def why(status: Any) -> str:
        if status.role == IMAGE_ROLE and status.provider == "typographic" and status.usable:
            return text("ui.models.image_offline", language)
        return translate(status.reason, language)

    return [[name(s.role), s.spec, s.provider, L["m_yes" if s.usable else "m_no"], why(s)]
            for s in router.describe()]


def small_model_note(ui: Ui, project: str | None) -> str:
    """The warning shown when a ko/zh project's writing roles run on the embedded model."""
    if not project:
        return ""
    L = ui.L
    agent = ui.service.agent(project)
    language = agent.info.language
    if language not in ("ko", "zh"):
        return ""
    statuses = {s.role: s for s in agent.router.describe()}  # type: ignore[attr-defined]
    embedded = [r for r in ("planner", "writer") if r in statuses
                and statuses[r].provider == "local"]
    return L["m_small"].format(lang=L[f"m_lang_{language}"]) if embedded else ""


def answered(t: dict[str, str], role: str, seconds: float, reply: str) -> str:
    """What "test connection" says: the model's first words, literal in the Markdown status
    (a model answering '<name>' or '**OK**' is shown as it answered)."""
    text = escape_markdown_cell(reply.strip()[:80])
    return t["ok"].format(role=role, s=seconds, reply=text)


def build(ui: Ui) -> Callable[[], None]:
    """Lay out the tab (inside an open ``gr.Tab``); returns its wiring."""
    L = ui.L
    t = {k[2:]: v for k, v in L.items() if k.startswith("m_")}
    names = {r: L[f"role_{r}"] for r in ROLES}
    names[IMAGE_ROLE] = text("ui.models.role_image", ui.language)
    note = gr.Markdown("", elem_id="aizac-model-note")
    gr.Markdown(t["intro"])
    roles = gr.Dataframe(headers=L["h_roles"].split("|"), interactive=False, wrap=True,
                         type="array", elem_id="aizac-roles")
    with gr.Row():
        role = gr.Dropdown(label=t["role"],
                           choices=[(names.get(r, r), r) for r in (*ROLES, IMAGE_ROLE)],
                           value="writer", elem_id="aizac-model-role")
        spec = gr.Textbox(label=t["spec"], elem_id="aizac-model-spec", scale=2)
        ui.button("set-model", t["set"])
        ui.button("test-model", t["test"])
    with gr.Row():
        provider = gr.Dropdown(label=t["provider"], choices=list(KEY_FIELDS), value="openai",
                               elem_id="aizac-key-provider")
        key = gr.Textbox(label=t["key"], type="password", elem_id="aizac-key", scale=2)
        ui.button("save-key", t["save_key"])
    keys = gr.Markdown("", elem_id="aizac-keys")
    studio: Any = ui.service.studio
    config = ModelConfig(studio.settings.data_dir)

    def table() -> list[list[str]]:
        return role_rows(studio.router, L, ui.language)

    def key_list() -> str:
        stored = config.keys_set()
        return t["keys"].format(p=", ".join(stored)) if stored else t["no_keys"]

    def refresh(project: str | None) -> list[Any]:
        try:
            return [small_model_note(ui, project), table(), key_list()]
        except Exception:
            return [gr.skip()] * 3

    def set_model(project: str | None, role_v: str, spec_v: str) -> tuple[list[Any], str]:
        clean = config.set_spec(role_v, spec_v)
        router: Any = studio.router
        router.reconfigure(with_stored(router.settings, config))
        said = t["spec_set"].format(role=names.get(role_v, role_v),
                                    spec=escape_markdown_cell(clean))  # as typed
        return [small_model_note(ui, project), table()], said

    def save_key(project: str | None, provider_v: str, key_v: str) -> tuple[list[Any], str]:
        config.set_key(provider_v, key_v or "")
        router: Any = studio.router
        router.reconfigure(with_stored(router.settings, config))
        return ["", table(), key_list()], t["key_saved"].format(provider=provider_v)

    def test(project: str | None, role_v: str) -> tuple[list[Any], str]:
        from langchain_core.messages import HumanMessage

        router: Any = studio.router
        started = time.perf_counter()
        if role_v == IMAGE_ROLE:  # reaches the image server; makes no picture
            said = router.image_model().check()
            return [], text("ui.models.image_ok", ui.language, role=names[IMAGE_ROLE],
                            s=f"{time.perf_counter() - started:.1f}",
                            reply=escape_markdown_cell(said))
        reply = router.model(role_v).invoke([HumanMessage(content="Reply with the word OK.")])
        return [], answered(t, names.get(role_v, role_v), time.perf_counter() - started,
                            str(reply.text))

    def wire() -> None:
        after = [ui.status, *ui.button_list]
        b = ui.buttons
        b["set-model"].click(ui.act(set_model, 2), [ui.project, role, spec],
                             [note, roles, *after])
        b["save-key"].click(ui.act(save_key, 3), [ui.project, provider, key],
                            [key, roles, keys, *after])
        b["test-model"].click(ui.act(test, 0), [ui.project, role], after)
        ui.project.change(refresh, ui.project, [note, roles, keys])
        ui.buttons["refresh"].click(refresh, ui.project, [note, roles, keys])

    return wire
