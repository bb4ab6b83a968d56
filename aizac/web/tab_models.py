"""The Models tab: which model serves each role, set a role's model, store a key, test it.

Keys go to the data directory (mode 0600) through :class:`~aizac.llm.model_config.ModelConfig`
(shared with ``aizac models set``) and are never shown again: the key box is emptied after
saving and the page only lists which providers have one. A note says when a Korean or Chinese
project is written by the small embedded model. The local model servers that answer on
127.0.0.1 (:mod:`aizac.llm.discovery`, asked in the background when the tab is built) are listed,
and one button puts a found model on every role (the same ``models.json`` as ``aizac models use
SPEC --all-roles``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import gradio as gr
from pydantic import SecretStr

from aizac.export.render import escape_markdown_cell
from aizac.llm.discovery import Discovery, FoundServer, usable_specs
from aizac.llm.errors import role_name
from aizac.llm.model_config import ModelConfig
from aizac.settings import Settings
from aizac.settings_values import IMAGE_ROLE, ROLES
from aizac.stored_models import KEY_FIELDS
from aizac.text import language_name
from aizac.text import t as text
from aizac.web.labels import Labels
from aizac.web.runner import Ui


def with_stored(settings: Settings, config: ModelConfig) -> Settings:
    """``settings`` with the specs and keys just stored in the panel laid over them (the
    writer's explicit choice; at start-up :class:`Settings` reads them under the environment)."""
    secret = set(KEY_FIELDS.values())
    update = {k: SecretStr(v) if k in secret else v for k, v in config.settings_values().items()}
    return settings.model_copy(update=update)


def role_rows(router: Any, L: Labels) -> list[list[str]]:
    """The roles table: role, model, provider, ready, why (in the interface language)."""
    def why(status: Any) -> str:
        if status.role == IMAGE_ROLE and status.provider == "typographic" and status.usable:
            return L["ui.models.image_offline"]
        return L.say(status.reason)

    return [[L.say(role_name(s.role)), s.spec, s.provider,
             L["ui.m.yes" if s.usable else "ui.m.no"], why(s)]
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
    return L.t("ui.m.small", lang=language_name(language)) if embedded else ""


def answered(L: Labels, role: str, seconds: float, reply: str) -> str:
    """What "test connection" says: the model's first words, literal in the Markdown status
    (a model answering '<name>' or '**OK**' is shown as it answered)."""
    text = escape_markdown_cell(reply.strip()[:80])
    return L.t("ui.m.ok", role=role, s=f"{seconds:.1f}", reply=text)


def server_lines(found: list[FoundServer] | None, ports: tuple[int, ...], language: str) -> str:
    """The local model servers that answered, as Markdown in the interface language
    (``None``: the search has not finished)."""
    if found is None:
        return text("ui.models.searching", language)
    if not found:
        return text("ui.models.no_servers", language, ports=", ".join(map(str, ports)))
    lines = []
    for server in found:
        names = escape_markdown_cell(server.names or server.api)
        if server.needs_key:
            lines.append("- " + text("ui.models.server_needs_key", language, names=names,
                                     url=server.url))
            continue
        models = ", ".join(f"`{m.spec or m.model}`" for m in server.models) or "—"
        lines.append("- " + text("ui.models.server", language, names=names, url=server.url,
                                 models=models))
    return "\n".join(lines)


def build(ui: Ui, first_note: Any = None) -> Callable[[], None]:
    """Lay out the tab (inside an open ``gr.Tab``); returns its wiring. ``first_note``: the
    first screen's note about the embedded model (hidden once a role uses another)."""
    L = ui.L
    names = {r: L.say(role_name(r)) for r in (*ROLES, IMAGE_ROLE)}
    note = gr.Markdown("", elem_id="aizac-model-note")
    gr.Markdown(L["ui.m.intro"])
    roles = gr.Dataframe(headers=L["ui.h.roles"].split("|"), interactive=False, wrap=True,
                         type="array", elem_id="aizac-roles")
    with gr.Row():
        role = gr.Dropdown(label=L["ui.m.role"],
                           choices=[(names.get(r, r), r) for r in (*ROLES, IMAGE_ROLE)],
                           value="writer", elem_id="aizac-model-role")
        spec = gr.Textbox(label=L["ui.m.spec"], elem_id="aizac-model-spec", scale=2)
        ui.button("set-model", L["ui.m.set"])
        ui.button("test-model", L["ui.m.test"])
    with gr.Row():
        provider = gr.Dropdown(label=L["ui.m.provider"], choices=list(KEY_FIELDS), value="openai",
                               elem_id="aizac-key-provider")
        key = gr.Textbox(label=L["ui.m.key"], type="password", elem_id="aizac-key", scale=2)
        ui.button("save-key", L["ui.m.save_key"])
    keys = gr.Markdown("", elem_id="aizac-keys")
    studio: Any = ui.service.studio
    config = ModelConfig(studio.settings.data_dir)
    lang = ui.language
    # The writer's own model servers on 127.0.0.1: asked now, in the background (start-up does
    # not wait); the tab shows what answered when it is refreshed.
    search: dict[str, Discovery | None] = {"now": Discovery.from_settings(studio.settings)}
    if search["now"] is not None:
        search["now"].start()
    gr.Markdown(f"#### {text('ui.models.servers_title', lang)}")
    servers = gr.Markdown("", elem_id="aizac-servers")
    with gr.Row():
        found = gr.Dropdown(label=text("ui.models.found_model", lang), choices=[],
                            value=None, allow_custom_value=False, elem_id="aizac-found-model",
                            scale=2)
        ui.button("use-all", text("ui.models.use_all", lang))
        ui.button("search-servers", text("ui.models.search_again", lang))

    def table() -> list[list[str]]:
        return role_rows(studio.router, L)

    def key_list() -> str:
        stored = config.keys_set()
        return L.t("ui.m.keys", p=", ".join(stored)) if stored else L["ui.m.no_keys"]

    def found_now() -> tuple[str, Any, int]:
        """What the search found (waiting at most its time limit: a page load or a click,
        never the app's start), the dropdown of its models, and how many servers answered."""
        now = search["now"]
        if now is None:
            return text("ui.models.search_off", lang), gr.Dropdown(choices=[], value=None), 0
        got = now.result(wait=now.timeout + 0.5)
        specs = usable_specs(got or [])
        return (server_lines(got, now.ports, lang),
                gr.Dropdown(choices=specs, value=specs[0] if specs else None), len(got or []))

    def refresh(project: str | None) -> list[Any]:
        try:
            return [small_model_note(ui, project), table(), key_list(), *found_now()[:2]]
        except Exception:
            return [gr.skip()] * 5

    def search_again(project: str | None) -> tuple[list[Any], str]:
        search["now"] = Discovery.from_settings(studio.settings, asked=True)
        if search["now"] is not None:
            search["now"].start()
        said, choices, count = found_now()
        return [said, choices], text("ui.models.searched", lang, count=count)

    def use_all(project: str | None, spec_v: str | None) -> tuple[list[Any], str]:
        if not spec_v:
            return [gr.skip()] * 3, text("ui.models.nothing_found", lang)
        clean = config.use_everywhere(spec_v)
        router: Any = studio.router
        router.reconfigure(with_stored(router.settings, config))
        said = text("ui.models.used_all", lang, spec=escape_markdown_cell(clean))
        return [small_model_note(ui, project), table(), first_hidden()], said

    def first_hidden() -> Any:
        """The first screen's note, shown while the embedded model still writes."""
        if first_note is None:
            return gr.skip()
        from aizac.writer.model_policy import NOTE_ROLES, serves_embedded

        router: Any = studio.router
        return gr.Row(visible=any(serves_embedded(router, r) for r in NOTE_ROLES))

    def set_model(project: str | None, role_v: str, spec_v: str) -> tuple[list[Any], str]:
        clean = config.set_spec(role_v, spec_v)
        router: Any = studio.router
        router.reconfigure(with_stored(router.settings, config))
        said = L.t("ui.m.spec_set", role=names.get(role_v, role_v),
                                    spec=escape_markdown_cell(clean))  # as typed
        return [small_model_note(ui, project), table(), first_hidden()], said

    def save_key(project: str | None, provider_v: str, key_v: str) -> tuple[list[Any], str]:
        config.set_key(provider_v, key_v or "")
        router: Any = studio.router
        router.reconfigure(with_stored(router.settings, config))
        return ["", table(), key_list()], L.t("ui.m.key_saved", provider=provider_v)

    def test(project: str | None, role_v: str) -> tuple[list[Any], str]:
        from langchain_core.messages import HumanMessage

        router: Any = studio.router
        started = time.perf_counter()
        if role_v == IMAGE_ROLE:  # reaches the image server; makes no picture
            said = router.image_model().check()
            return [], L.t("ui.models.image_ok", role=names[IMAGE_ROLE],
                           s=f"{time.perf_counter() - started:.1f}",
                           reply=escape_markdown_cell(said))
        reply = router.model(role_v).invoke([HumanMessage(content="Reply with the word OK.")])
        return [], answered(L, names.get(role_v, role_v), time.perf_counter() - started,
                            str(reply.text))

    def wire() -> None:
        after = [ui.status, *ui.button_list]
        b = ui.buttons
        firsts = [first_note] if first_note is not None else [gr.State()]
        b["set-model"].click(ui.act(set_model, 3), [ui.project, role, spec],
                             [note, roles, *firsts, *after])
        b["save-key"].click(ui.act(save_key, 3), [ui.project, provider, key],
                            [key, roles, keys, *after])
        b["test-model"].click(ui.act(test, 0), [ui.project, role], after)
        b["use-all"].click(ui.act(use_all, 3), [ui.project, found], [note, roles, *firsts, *after])
        b["search-servers"].click(ui.act(search_again, 2), [ui.project], [servers, found, *after])
        listed = [note, roles, keys, servers, found]
        ui.project.change(refresh, ui.project, listed)
        ui.buttons["refresh"].click(refresh, ui.project, listed)

    return wire
