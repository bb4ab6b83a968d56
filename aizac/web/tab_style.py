"""The Style & voices tab: the writer's style and every character's voice.

* **Style** — what the profile comes from, where the style is learned from (this project or all
  the writer's projects), a chart of the writer against the model's drafts and each drafted
  episode's drift, the measures side by side, the words the writer keeps deleting and adding.
* **Voices** — how each character speaks (voice cards) and how each speaks to each other one
  (speech level, form of address, the earlier versions), the dialogue findings of the draft beat
  (refreshed as the beat editor changes it, so the writer sees them before accepting), and a
  row to set a pair's voice by hand.

Handlers are plain functions over the service; every word comes from the catalogue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from aizac.dialogue.cards import LEVEL_KEYS
from aizac.text import Text, t
from aizac.web.runner import Ui

LEVEL_CHOICES = ("formal", "polite", "plain")
BUTTONS = ("style-refresh", "voice-check", "voice-save")
"""This tab's action buttons (enabled once a project is open, see aizac.web.states)."""

__all__ = ["BUTTONS", "build", "dialogue_findings", "style_view", "voices_view"]


def style_view(service: Any, project: str | None, language: str) -> list[Any]:
    """[summary, scope, chart figure, table rows, words and drift] of ``project``."""
    from aizac.style.chart import style_figure
    from aizac.style.view import chart_labels, drift_lines, profile_table, summary, word_lines

    if not project:
        return ["", "project", None, [], ""]
    style = service.agent(project).style
    profile = style.profile()
    reports = style.drifts()
    latest = reports[-1] if reports else None
    _, rows = profile_table(profile, latest, language)
    notes = [*word_lines(profile, language), f"**{t('ui.style.drift', language)}**",
             *(f"- {line}" for line in drift_lines(reports, language))]
    figure = style_figure(latest, reports, chart_labels(language)) if profile.ready else None
    return [summary(profile, style.book.scope, language), style.book.scope, figure, rows,
            "\n\n".join(notes) if profile.ready else ""]


def voices_view(service: Any, project: str | None, language: str) -> list[Any]:
    """[card rows, pair rows, speaker choices, listener choices] of ``project``."""
    from aizac.dialogue.view import voice_rows

    if not project:
        return [[], [], gr.Dropdown(choices=[]), gr.Dropdown(choices=[])]
    agent = service.agent(project)
    cards, pairs = voice_rows(agent.memory, language)
    names = sorted(agent.memory.characters())
    return [cards, pairs, gr.Dropdown(choices=names), gr.Dropdown(choices=names)]


def dialogue_findings(service: Any, project: str | None, language: str) -> str:
    """The dialogue findings of the draft beat, one line each (Markdown)."""
    from aizac.dialogue.view import finding_lines

    if not project:
        return ""
    agent = service.agent(project)
    draft = agent.current_draft()
    if draft is None:
        return t("ui.voices.no_draft", language)
    return "\n".join(f"- {line}" for line in finding_lines(agent.check_dialogue(draft.id),
                                                            language))


def build(ui: Ui, beats: Any = None, tab: Any = None) -> Callable[[], None]:
    """Lay out the tab (inside an open ``gr.Tab``); returns its wiring. ``beats``: the Beat
    tab, whose history changes re-check the draft's dialogue; ``tab``: this ``gr.Tab``, drawn
    from the store each time it is shown (it opened with "no text yet" and empty voice
    tables after the writer's first accepted beats, until Refresh)."""
    lang, service = ui.language, ui.service
    levels = [(t(LEVEL_KEYS[lv], lang), lv) for lv in LEVEL_CHOICES]
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, elem_id="aizac-style-panel"):
            gr.Markdown(f"### {t('ui.style.heading', lang)}")
            said = gr.Markdown("", elem_id="aizac-style-summary")
            with gr.Row():
                scope = gr.Radio([(t("style.scope.project", lang), "project"),
                                  (t("style.scope.writer", lang), "writer")],
                                 value="project", label=t("ui.style.scope", lang),
                                 elem_id="aizac-style-scope", scale=3)
                ui.button("style-refresh", t("ui.style.refresh", lang), scale=0, size="sm")
            chart = gr.Plot(elem_id="aizac-style-chart", show_label=False)
            table = gr.Dataframe(headers=[t("ui.style.metric", lang), t("ui.style.writer", lang),
                                          t("ui.style.drafts", lang)],
                                 interactive=False, wrap=True, elem_id="aizac-style-table")
            notes = gr.Markdown("", elem_id="aizac-style-notes")
        with gr.Column(scale=2, elem_id="aizac-voices-panel"):
            gr.Markdown(f"### {t('ui.voices.heading', lang)}")
            from aizac.dialogue.view import card_headers, pair_headers

            gr.Markdown(f"#### {t('ui.voices.cards', lang)}")
            cards = gr.Dataframe(headers=card_headers(lang), interactive=False, wrap=True,
                                 elem_id="aizac-voice-cards")
            gr.Markdown(f"#### {t('ui.voices.pairs', lang)}")
            pairs = gr.Dataframe(headers=pair_headers(lang), interactive=False, wrap=True,
                                 elem_id="aizac-voice-pairs")
            ui.button("voice-check", t("ui.voices.check", lang), size="sm")
            findings = gr.Markdown("", elem_id="aizac-voice-findings")
            gr.Markdown(f"#### {t('ui.voices.set', lang)}")
            with gr.Row():
                speaker = gr.Dropdown(label=t("ui.voices.speaker", lang), choices=[],
                                      elem_id="aizac-voice-speaker")
                listener = gr.Dropdown(label=t("ui.voices.listener", lang), choices=[],
                                       elem_id="aizac-voice-listener")
            with gr.Row():
                level = gr.Dropdown(levels, label=t("ui.voices.level", lang), value="polite",
                                    elem_id="aizac-voice-level")
                address = gr.Textbox(label=t("ui.voices.address", lang),
                                     elem_id="aizac-voice-address")
            ui.button("voice-save", t("ui.voices.save", lang), size="sm")

    style_out = [said, scope, chart, table, notes]
    voice_out = [cards, pairs, speaker, listener]

    def load(project: str | None) -> list[Any]:
        try:
            return [*style_view(service, project, lang), *voices_view(service, project, lang),
                    dialogue_findings(service, project, lang)]
        except Exception as e:
            return [ui.message(e), *[gr.skip()] * (len(style_out) + len(voice_out))]

    def set_scope(project: str | None, value: str) -> tuple[list[Any], str]:
        done = service.set_style_scope(project, value)
        return style_view(service, project, lang), t(
            "ui.style.scope_set", lang, scope=Text(f"style.scope.{done}"))

    def check(project: str | None) -> tuple[list[Any], str]:
        return [dialogue_findings(service, project, lang)], ""

    def save(project: str | None, who: str | None, to: str | None, lv: str | None,
             called: str) -> tuple[list[Any], str]:
        agent = service.agent(project)
        ids = service.set_voice(project, who or "", to or "", level=lv or "",
                                address=called or "")
        said_now = (t("ui.voices.saved", lang, text=agent.memory.get(ids[0]).text) if ids
                    else t("ui.voices.unchanged", lang))
        return [*voices_view(service, project, lang), dialogue_findings(service, project, lang)
                ], said_now

    everything = [*style_out, *voice_out, findings]

    def wire() -> None:
        if tab is not None:
            tab.select(load, ui.project, everything, show_progress="hidden")
        ui.project.change(load, ui.project, everything)
        ui.buttons["refresh"].click(load, ui.project, everything)
        ui.buttons["style-refresh"].click(load, ui.project, everything)
        scope.input(ui.act(set_scope, len(style_out)), [ui.project, scope],
                    [*style_out, ui.status, *ui.button_list])
        ui.buttons["voice-check"].click(ui.act(check, 1), [ui.project],
                                        [findings, ui.status, *ui.button_list])
        ui.buttons["voice-save"].click(
            ui.act(save, len(voice_out) + 1), [ui.project, speaker, listener, level, address],
            [*voice_out, findings, ui.status, *ui.button_list])
        if beats is not None:  # the draft changed in the beat editor: check it again
            beats.history.change(lambda p: dialogue_findings(service, p, lang), ui.project,
                                 findings)

    return wire
