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

from aizac.llm.model_config import KEY_FIELDS, ModelConfig
from aizac.settings import ROLES, Settings
from aizac.web.runner import Ui

TEXT = {
    "en": {
        "intro": "Which model serves each role. Specs: `local`, `openai:gpt-4o`, "
                 "`anthropic:claude-sonnet-4-5`, `clova:HCX-005`, `ollama:qwen2.5:7b`, "
                 "`openai-compatible:http://host:8000/v1:model`.",
        "h_roles": "Role|Model|Provider|Ready|Why",
        "role": "Role", "spec": "Model spec", "set": "Use this model",
        "provider": "Provider", "key": "API key (stored in the data folder, never shown again)",
        "save_key": "Save key", "test": "Test connection", "keys": "Keys stored for: {p}",
        "no_keys": "No keys stored.", "spec_set": "The {role} role now uses {spec}.",
        "key_saved": "Saved the {provider} key.", "yes": "yes", "no": "no",
        "ok": "The {role} model answered in {s:.1f} s: “{reply}”",
        "small": "⚠️ This {lang} project is written by the small embedded model, an "
                 "English-first demo model: expect weak {lang}. Set a real model for the "
                 "planner and writer roles below (a key for a paid provider, or a local "
                 "Ollama or OpenAI-compatible server).",
        "lang_ko": "Korean", "lang_zh": "Chinese",
    },
    "ko": {
        "intro": "역할마다 어떤 모델이 일하는지 보여 줍니다. 모델 지정 예: `local`, "
                 "`openai:gpt-4o`, "
                 "`anthropic:claude-sonnet-4-5`, `clova:HCX-005`, `ollama:qwen2.5:7b`, "
                 "`openai-compatible:http://host:8000/v1:model`.",
        "h_roles": "역할|모델|제공자|사용 가능|이유",
        "role": "역할", "spec": "모델 지정", "set": "이 모델 쓰기",
        "provider": "제공자", "key": "API 키 (데이터 폴더에 저장, 다시 표시하지 않음)",
        "save_key": "키 저장", "test": "연결 시험", "keys": "키가 저장된 제공자: {p}",
        "no_keys": "저장된 키가 없습니다.", "spec_set": "{role} 역할이 이제 {spec}을(를) 씁니다.",
        "key_saved": "{provider} 키를 저장했습니다.", "yes": "예", "no": "아니오",
        "ok": "{role} 모델이 {s:.1f}초 만에 답했습니다: “{reply}”",
        "small": "⚠️ 이 {lang} 프로젝트는 작은 내장 모델로 쓰고 있습니다. 영어 위주의 데모 모델이라 "
                 "{lang} 품질이 낮습니다. 아래에서 기획·집필 역할에 실제 모델을 지정하세요 "
                 "(유료 제공자의 키, 또는 로컬 Ollama·OpenAI 호환 서버).",
        "lang_ko": "한국어", "lang_zh": "중국어",
    },
}
ROLE_NAMES = {"ko": {"planner": "기획", "writer": "집필", "extractor": "추출", "reviewer": "검토"}}


def with_stored(settings: Settings, config: ModelConfig) -> Settings:
    """``settings`` with the specs and keys just stored in the panel laid over them (the
    writer's explicit choice; at start-up :class:`Settings` reads them under the environment)."""
    secret = set(KEY_FIELDS.values())
    update = {k: SecretStr(v) if k in secret else v for k, v in config.settings_values().items()}
    return settings.model_copy(update=update)


def small_model_note(ui: Ui, project: str | None) -> str:
    """The warning shown when a ko/zh project's writing roles run on the embedded model."""
    if not project:
        return ""
    t = TEXT["ko" if ui.language == "ko" else "en"]
    agent = ui.service.agent(project)
    language = agent.info.language
    if language not in ("ko", "zh"):
        return ""
    statuses = {s.role: s for s in agent.router.describe()}  # type: ignore[attr-defined]
    embedded = [r for r in ("planner", "writer") if r in statuses
                and statuses[r].provider == "local"]
    return t["small"].format(lang=t[f"lang_{language}"]) if embedded else ""


def build(ui: Ui) -> Callable[[], None]:
    """Lay out the tab (inside an open ``gr.Tab``); returns its wiring."""
    t = TEXT["ko" if ui.language == "ko" else "en"]
    names = ROLE_NAMES.get(ui.language, {})
    note = gr.Markdown("", elem_id="aizac-model-note")
    gr.Markdown(t["intro"])
    roles = gr.Dataframe(headers=t["h_roles"].split("|"), interactive=False, wrap=True,
                         type="array", elem_id="aizac-roles")
    with gr.Row():
        role = gr.Dropdown(label=t["role"], choices=[(names.get(r, r), r) for r in ROLES],
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
        router: Any = studio.router
        return [[names.get(s.role, s.role), s.spec, s.provider, t["yes" if s.usable else "no"],
                 s.reason] for s in router.describe()]

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
        said = t["spec_set"].format(role=names.get(role_v, role_v), spec=clean)
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
        reply = router.model(role_v).invoke([HumanMessage(content="Reply with the word OK.")])
        text = str(reply.text).strip().replace("\n", " ")[:80]
        return [], t["ok"].format(role=names.get(role_v, role_v),
                                  s=time.perf_counter() - started, reply=text)

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
