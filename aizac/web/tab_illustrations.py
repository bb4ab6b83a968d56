"""Illustrations in the web app: the Beat tab's illustration panel and the Gallery tab.

One panel per slot kind (a beat's illustration; the cover), built by :func:`_slot_panel`: the
prompt drawn from the story (editable, copyable; the writer's edit is kept), *Generate…* that
first shows what the generation costs (the image model, the budget left) and makes the picture
only on *Confirm*, the pictures made for the slot, *Place* and *Remove* (nodes of the undo tree:
the Beat tab's Undo takes a placement back). The Gallery tab also holds the project's art style,
author and image budget, and every picture made. Every word comes from the catalogue
(``ui.illustration.*``).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from aizac.illustration.service import Illustrator
from aizac.illustration.store import COVER, ImageRecord, beat_slot
from aizac.text import t
from aizac.web.runner import SPINNER, Ui

SlotOf = Callable[[Any], str | None]


def _picture(ill: Illustrator, record: ImageRecord | None) -> Any:
    if record is None:
        return None
    from PIL import Image

    return Image.open(io.BytesIO(ill.data(record)))


@dataclass
class SlotPanel:
    prompt: Any
    quote: Any
    confirm_row: Any
    made: Any
    preview: Any
    placed: Any

    @property
    def outputs(self) -> list[Any]:
        return [self.prompt, self.made, self.preview, self.placed]


def _slot_panel(ui: Ui, prefix: str, selector: Any, slot_of: SlotOf) -> Callable[[], None]:
    """Lay out one slot's panel; returns its wiring. ``selector`` is the input that names the
    slot (the Beat tab's accepted-beat box; the project box for the cover)."""
    lang = ui.language
    service = ui.service
    with gr.Row():
        with gr.Column(scale=3):
            prompt = gr.Textbox(label=t("ui.illustration.prompt", lang), lines=7,
                                buttons=["copy"], elem_id=f"aizac-{prefix}-prompt",
                                info=t("ui.illustration.prompt_info", lang))
            with gr.Row():
                ui.button(f"{prefix}-generate", t("ui.illustration.generate", lang),
                          variant="primary")
                ui.button(f"{prefix}-reset", t("ui.illustration.reset", lang))
            with gr.Row(visible=False, elem_id=f"aizac-{prefix}-confirm-row") as confirm_row:
                quote = gr.Markdown("", elem_id=f"aizac-{prefix}-quote")
                ui.button(f"{prefix}-confirm", t("ui.illustration.confirm", lang),
                          variant="primary")
                ui.button(f"{prefix}-cancel", t("ui.illustration.cancel", lang))
        with gr.Column(scale=2):
            preview = gr.Image(label=t("ui.illustration.preview", lang), type="pil",
                               interactive=False, height=300, elem_id=f"aizac-{prefix}-preview")
            made = gr.Dropdown(label=t("ui.illustration.made", lang), choices=[],
                               elem_id=f"aizac-{prefix}-made")
            placed = gr.Markdown("", elem_id=f"aizac-{prefix}-placed")
            with gr.Row():
                ui.button(f"{prefix}-place", t("ui.illustration.place", lang))
                ui.button(f"{prefix}-remove", t("ui.illustration.remove", lang))
    panel = SlotPanel(prompt, quote, confirm_row, made, preview, placed)

    def view(project: str | None, key: Any, pick: str | None = None) -> list[Any]:
        slot = slot_of(key)
        if not project or slot is None:
            return ["", gr.Dropdown(choices=[], value=None), None,
                    t("ui.illustration.no_slot", lang)]
        ill = service.illustrator(project)
        shown = ill.prompt(slot)
        records = ill.of_slot(slot)
        placed_record = ill.placed(slot)
        choices = [(f"{r.model} · {r.id[4:12]}", r.id) for r in records]
        chosen = pick or (placed_record.id if placed_record else (records[0].id if records
                                                                   else None))
        current = next((r for r in records if r.id == chosen), None)
        note = (t("ui.illustration.placed_note", lang, image=placed_record.id[4:12])
                if placed_record else t("ui.illustration.not_placed", lang))
        return [shown.text, gr.Dropdown(choices=choices, value=chosen),
                _picture(ill, current), note]

    def load(project: str | None, key: Any) -> list[Any]:
        try:
            return view(project, key)
        except Exception as e:
            return ["", gr.skip(), None, ui.message(e)]

    def ask(project: str | None, key: Any, text_v: str) -> tuple[list[Any], str]:
        slot = slot_of(key)
        if slot is None:
            return [gr.skip(), gr.Row(visible=False)], t("ui.illustration.no_slot", lang)
        service.save_image_prompt(project, slot, text_v)
        q = service.illustrator(project).quote()
        said = (t("ui.illustration.quote_billable", lang, model=q.model, left=q.left,
                  budget=q.budget) if q.billable
                else t("ui.illustration.quote_free", lang, model=q.model))
        return [said, gr.Row(visible=True)], t("ui.illustration.confirm_first", lang)

    def generate(project: str | None, key: Any, text_v: str, progress: Any = None
                 ) -> tuple[list[Any], str]:
        slot = slot_of(key)
        record = service.generate_image(project, slot or "", text_v)
        return ([gr.Row(visible=False), *view(project, key, record.id)],
                t("ui.illustration.made_one", lang, model=record.model))

    def cancel(project: str | None) -> tuple[list[Any], str]:
        return [gr.Row(visible=False)], t("ui.illustration.cancelled", lang)

    def reset(project: str | None, key: Any) -> tuple[list[Any], str]:
        slot = slot_of(key)
        if slot is None:
            return [gr.skip()], t("ui.illustration.no_slot", lang)
        return ([service.save_image_prompt(project, slot, None).text],
                t("ui.illustration.reset_done", lang))

    def place(project: str | None, key: Any, pick: str | None) -> tuple[list[Any], str]:
        slot = slot_of(key)
        if slot is None or not pick:
            return [gr.skip()] * 4, t("ui.illustration.pick_first", lang)
        service.place_image(project, slot, pick)
        return view(project, key, pick), t("ui.illustration.placed_done", lang)

    def remove(project: str | None, key: Any) -> tuple[list[Any], str]:
        slot = slot_of(key)
        if slot is None:
            return [gr.skip()] * 4, t("ui.illustration.no_slot", lang)
        service.place_image(project, slot, None)
        return view(project, key), t("ui.illustration.removed_done", lang)

    def pick_view(project: str | None, key: Any, pick: str | None) -> Any:
        try:
            slot = slot_of(key)
            if not project or slot is None or not pick:
                return None
            ill = service.illustrator(project)
            return _picture(ill, ill.picture(pick))
        except Exception:
            return None

    def wire() -> None:
        b, after = ui.buttons, [ui.status, *ui.button_list]
        inputs = [ui.project, selector]
        selector.change(load, inputs, panel.outputs)
        b[f"{prefix}-generate"].click(ui.act(ask, 2), [*inputs, prompt],
                                      [quote, confirm_row, *after])
        b[f"{prefix}-confirm"].click(
            _slow(ui, generate, 5), [*inputs, prompt],
            [confirm_row, *panel.outputs, *after], show_progress="hidden")
        b[f"{prefix}-cancel"].click(ui.act(cancel, 1), [ui.project], [confirm_row, *after])
        b[f"{prefix}-reset"].click(ui.act(reset, 1), inputs, [prompt, *after])
        b[f"{prefix}-place"].click(ui.act(place, 4), [*inputs, made], [*panel.outputs, *after])
        b[f"{prefix}-remove"].click(ui.act(remove, 4), inputs, [*panel.outputs, *after])
        made.input(pick_view, [*inputs, made], preview)
        ui.buttons["refresh"].click(load, inputs, panel.outputs)

    panel_wire = wire
    _PANELS[prefix] = (panel, load, selector)
    return panel_wire


_PANELS: dict[str, tuple[SlotPanel, Callable[..., list[Any]], Any]] = {}


def _slow(ui: Ui, work: Callable[..., tuple[list[Any], str]], n: int
          ) -> Callable[..., Any]:
    """A generation: the spinner and every button but Cancel disabled while the image model
    works, then the outputs (or the error in the status line)."""

    def run(project: str | None, *args: Any) -> Any:
        yield [*[gr.skip()] * n, f"{SPINNER} {t('ui.illustration.busy', ui.language)}",
               *ui.busy()]
        try:
            values, said = work(project, *args)
        except Exception as e:
            yield [*[gr.skip()] * n, ui.message(e), *ui.states(project)]
            return
        yield [*values, said, *ui.states(project)]

    return run


def _beat_slot(key: Any) -> str | None:
    return beat_slot(int(key)) if key not in (None, "") else None


def build_beat_panel(ui: Ui, beats: Any) -> Callable[[], None]:
    """The Beat tab's illustration panel for the accepted beat picked in its prose box."""
    with gr.Accordion(t("ui.illustration.beat_panel", ui.language), open=True,
                      elem_id="aizac-illustration"):
        wire = _slot_panel(ui, "img-beat", beats.prose_beat, _beat_slot)

    def wired() -> None:
        wire()
        panel, load, selector = _PANELS["img-beat"]
        def placements(project: str | None, key: Any) -> list[Any]:
            # the prompt box is left as the writer has it: the history text also changes when
            # the page redraws after a placement, a second after the writer began typing
            return [gr.skip(), *load(project, key)[1:]]

        # Undo/redo change the history text: a placement may have been taken back
        beats.history.change(placements, [ui.project, selector], panel.outputs)

    return wired


def build_gallery(ui: Ui, tab: Any = None) -> Callable[[], None]:
    """The Gallery tab: the cover's panel, the project's picture settings, every picture.
    ``tab``: the Gallery's ``gr.Tab``; each time it is shown it is drawn from the store (a plot
    generated since the page loaded gives the cover its prompt)."""
    lang, service = ui.language, ui.service
    gr.Markdown(t("ui.illustration.gallery_intro", lang))
    gr.Markdown(f"#### {t('ui.illustration.cover', lang)}")
    wire_cover = _slot_panel(ui, "img-cover", ui.project, lambda project: COVER
                             if project else None)
    gr.Markdown(f"#### {t('ui.illustration.settings', lang)}")
    with gr.Row():
        style = gr.Textbox(label=t("ui.illustration.style", lang), scale=3,
                           elem_id="aizac-img-style")
        author = gr.Textbox(label=t("ui.illustration.author", lang), elem_id="aizac-img-author")
        budget = gr.Number(label=t("ui.illustration.budget", lang), precision=0, minimum=0,
                           elem_id="aizac-img-budget")
        ui.button("img-save", t("ui.illustration.save", lang))
    usage = gr.Markdown("", elem_id="aizac-img-usage")
    gallery = gr.Gallery(label=t("ui.illustration.all", lang), columns=4, height=360,
                         elem_id="aizac-gallery")

    def pictures(project: str | None) -> list[Any]:
        if not project:
            return ["", "", None, "", []]
        ill = service.illustrator(project)
        q = ill.quote()
        placed = {v: k for k, v in ill.placements().items()}
        items = []
        for r in ill.pictures():
            where = placed.get(r.id, "")
            label = (t("ui.illustration.on_cover", lang) if where == COVER else
                     t("ui.illustration.in_beat", lang, where=f"{r.episode}-{r.beat}")
                     if where else t("ui.illustration.unplaced", lang))
            items.append((_picture(ill, r), f"{label} · {r.model}"))
        said = t("ui.illustration.usage", lang, used=q.used, budget=q.budget, model=q.model)
        return [*ill.look(), q.budget, said, items]

    def load(project: str | None) -> list[Any]:
        try:
            return pictures(project)
        except Exception as e:
            return [gr.skip()] * 3 + [ui.message(e), gr.skip()]

    def save(project: str | None, style_v: str, author_v: str, budget_v: Any
             ) -> tuple[list[Any], str]:
        service.set_image_look(project, style_v or "", author_v or "", int(budget_v or 0))
        return pictures(project), t("ui.illustration.saved", lang)

    cover_panel, cover_load, _ = _PANELS["img-cover"]  # this app's (built just above)

    def shown(project: str | None) -> list[Any]:
        return [*cover_load(project, project), *load(project)]

    def wire() -> None:
        wire_cover()
        outputs = [style, author, budget, usage, gallery]
        if tab is not None:
            tab.select(shown, ui.project, [*cover_panel.outputs, *outputs],
                       show_progress="hidden")
        ui.project.change(load, ui.project, outputs)
        ui.buttons["refresh"].click(load, ui.project, outputs)
        ui.buttons["img-save"].click(ui.act(save, 5), [ui.project, style, author, budget],
                                     [*outputs, ui.status, *ui.button_list])
        for name in ("img-cover-confirm", "img-cover-place", "img-cover-remove",
                     "img-beat-confirm", "img-beat-place", "img-beat-remove"):
            ui.buttons[name].click(load, ui.project, outputs)

    return wire


__all__ = ["build_beat_panel", "build_gallery"]
