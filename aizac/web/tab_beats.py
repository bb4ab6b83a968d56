"""The Beat editor tab: design, edit, regenerate, accept beats; history; prose."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from aizac.errors import ConflictError, InvalidInputError
from aizac.export.render import escape_markdown_cell
from aizac.web import episodes
from aizac.web import handlers as h
from aizac.web.forms import BEAT_FIELDS, BEAT_LABELS
from aizac.web.labels import UNIT_KEYS, UNIT_NAME_KEYS, headers
from aizac.web.runner import Ui

FIELD_LABELS = {
    "location": "ui.location", "time": "ui.time", "characters": "ui.beat_characters",
    "events": "ui.events", "dialogue": "ui.dialogue", "emotions": "ui.emotions",
    "conflicts": "ui.conflicts", "sets_up": "ui.sets_up", "pays_off": "ui.pays_off",
}


@dataclass
class BeatsTab:
    episode: Any
    draft: Any
    beats: Any
    fields: list[Any]
    locked: Any
    history: Any
    branches: Any
    prose_beat: Any
    instruction: Any
    suggestions: Any
    suggestion_pick: Any
    prose: Any
    beat_id: Any
    version: Any
    hits: Any
    ep_beats: Any = None
    ep_length: Any = None
    ep_note: Any = None
    drawn: Any = None  # the fields as last drawn from the store (the form's base)
    checks: Any = None  # what the checks found in the draft, beside Accept
    conflict: Any = None  # both versions of a draft two tabs saved, and the choice
    conflict_box: Any = None

    @property
    def outputs(self) -> list[Any]:
        return [self.episode, self.draft, self.beats, *self.fields, self.locked, self.beat_id,
                self.version, self.history, self.branches, self.prose_beat, self.drawn,
                self.conflict, self.conflict_box, self.checks]


def values(ui: Ui, view: h.EditorView | None, *, shown: tuple[Any, Any] | None = None,
           prose_pick: str | None = None, typing: bool = False) -> list[Any]:
    """The editor's outputs for ``view`` (blank without a project).

    ``shown`` is the (draft id, version) the page holds: when the view's draft is the same,
    its fields and boxes are left as the page has them (what the writer is typing is not the
    store's yet). ``typing``: the page's form differs from what was drawn in it; when the
    same draft changed elsewhere (another tab saved it), the form and the version it was made
    from stay as they are, so its save meets the other tab's as a conflict, never silently
    over it. ``prose_pick`` is the accepted beat the prose box shows: kept while it is
    still accepted."""
    L = ui.L
    if view is None:
        return [gr.skip()] * (3 + len(BEAT_FIELDS) + 10)
    status = {"draft": L["beat.status.draft"], "accepted": L["beat.status.accepted"],
              "rejected": L["beat.status.rejected"]}
    rows = [[r[0], status.get(r[1], r[1]), *r[2:]] for r in view.beats]
    draft = (L.t("ui.draft_at", where=view.draft_position, version=view.draft_revision)
             if view.draft_position else L["ui.no_draft"])
    if not view.has_plot:
        draft = L["ui.no_plot_yet"]
    history = view.history_text(L)
    accepted = [(label, str(i)) for label, i in view.accepted]
    siblings = [(L.say(label), nid) for label, nid in view.history.siblings]
    same = shown is not None and (view.beat_id, view.version) == shown
    held = (typing and shown is not None and view.beat_id is not None
            and view.beat_id == shown[0] and not same)
    fields = ([gr.skip()] * (len(BEAT_FIELDS) + 1) if same or held else
              [*[view.fields[f] for f in BEAT_FIELDS], gr.CheckboxGroup(value=view.edited)])
    base = ([gr.skip()] * 3 if held else
            [view.beat_id, view.version, gr.skip() if same else _drawn(view)])
    if held:
        draft = L.t("ui.draft_changed_elsewhere", where=view.draft_position,
                    version=view.draft_revision)
    kept = prose_pick if prose_pick in {i for _, i in accepted} else None
    conflict = [gr.skip(), gr.skip()] if same or held else ["", gr.Column(visible=False)]
    return [
        f"### {L.t('ui.episode', n=view.episode)}", draft, rows, *fields,
        *base[:2], history,
        gr.Dropdown(choices=siblings, value=None),
        gr.Dropdown(choices=accepted, value=kept or (accepted[-1][1] if accepted else None)),
        base[2], *conflict, checks_markdown(ui, view),
    ]


def checks_markdown(ui: Ui, view: h.EditorView) -> str:
    """What the checks found in the draft, shown beside Accept before it becomes canon
    (Markdown; empty without a draft)."""
    from aizac.dialogue.view import finding_lines

    if view.beat_id is None or view.findings is None:
        return ""
    lines = finding_lines(view.findings, ui.language)
    if not view.findings.findings:
        return lines[0]
    # the messages quote the model's names: literal
    said = [f"- {escape_markdown_cell(line)}" for line in lines]
    return "\n".join([f"**{ui.L['ui.accept_checks']}**", *said])


def _drawn(view: h.EditorView) -> list[str]:
    """The draft's fields as the form is drawn with them (what the page compares its form to:
    a difference is the writer's typing)."""
    return [view.fields[f] for f in BEAT_FIELDS] if view.beat_id is not None else []


def typing(fields: Sequence[Any], drawn: Any) -> bool:
    """Whether the form's ``fields`` differ from the ``drawn`` ones (the writer typed)."""
    return bool(drawn) and [str(v or "").strip() for v in fields] != [
        str(v or "").strip() for v in drawn]


def conflict_markdown(ui: Ui, stored: dict[str, str], mine: dict[str, str | None]) -> str:
    """Both versions of a draft two tabs saved, field by field where they differ (pure)."""
    L = ui.L
    head = f"| {L['ui.conflict.field']} | {L['ui.conflict.theirs']} | {L['ui.conflict.mine']} |"
    rows = [head, "|---|---|---|"]
    for f in BEAT_FIELDS:
        theirs, own = stored.get(f, ""), str(mine.get(f) or "")
        if theirs.strip() != own.strip():
            rows.append(f"| {L[BEAT_LABELS[f]]} | {_cell(theirs)} | {_cell(own)} |")
    return "\n".join([f"**{L['ui.conflict.head']}**", "", *rows])


def _cell(text: str) -> str:
    return escape_markdown_cell(text).replace("\n", "<br>") or "—"


def build(ui: Ui) -> tuple[BeatsTab, Callable[[], None]]:
    """Lay out the tab (inside an open ``gr.Tab``); returns its parts and its wiring."""
    L = ui.L
    with gr.Row():
        with gr.Column(scale=2, min_width=320):
            episode = gr.Markdown("", elem_id="aizac-episode")
            beats = gr.Dataframe(
                headers=headers(L, "ui.h.beats"), label=L["ui.episode_beats"], interactive=False,
                wrap=True, type="array", elem_id="aizac-beats",
                column_widths=["8%", "14%", "22%", "22%", "34%"],
            )
            gr.Markdown(f"#### {L['ui.history']}")
            with gr.Row():
                ui.button("undo", L["ui.undo"])
                ui.button("redo", L["ui.redo"])
            ui.note("history")
            history = gr.Markdown("", elem_id="aizac-history")
            branches = gr.Dropdown(label=L["ui.branches"], choices=[], elem_id="aizac-branches")
            ui.button("switch", L["ui.switch"])
            with gr.Accordion(L["ui.ep.title"], open=False, elem_id="aizac-episode-length"):
                ep_note = gr.Markdown("", elem_id="aizac-ep-note")
                with gr.Row():
                    ep_beats = gr.Textbox(label=L["ui.ep.beats"], elem_id="aizac-ep-beats")
                    ep_length = gr.Textbox(label=L.t("ui.ep.length", unit="…"),
                                           elem_id="aizac-ep-length")
                ui.button("save-episode", L["ui.ep.save"])
        with gr.Column(scale=3):
            draft = gr.Markdown("", elem_id="aizac-draft")
            boxes: dict[str, Any] = {}
            for row in (("location", "time"), ("characters",), ("events",), ("dialogue",),
                        ("emotions", "conflicts"), ("sets_up", "pays_off")):
                with gr.Row():
                    for name in row:
                        lines = 3 if name in ("events", "dialogue") else (
                            2 if name in ("conflicts", "sets_up", "pays_off") else 1)
                        elem = "beat-characters" if name == "characters" else name
                        boxes[name] = gr.Textbox(label=L[FIELD_LABELS[name]], lines=lines,
                                                 elem_id=f"aizac-{elem.replace('_', '-')}")
            locked = gr.CheckboxGroup(
                label=L["ui.locked"], elem_id="aizac-locked",
                choices=[(L[BEAT_LABELS[f]], f) for f in BEAT_FIELDS],
            )
            with gr.Row(elem_classes="aizac-actions"):
                ui.button("next-beat", L["ui.next_beat"], variant="primary")
                ui.button("save-edit", L["ui.save_edit"])
                ui.button("accept", L["ui.accept"], variant="primary")
                ui.button("cancel-beat", L["ui.cancel"], variant="stop", scale=0)
            checks = gr.Markdown("", elem_id="aizac-accept-checks")
            # a save another tab's save made stale: both versions, and the writer keeps one
            with gr.Column(visible=False, elem_id="aizac-conflict-box") as conflict_box:
                conflict = gr.Markdown("", elem_id="aizac-conflict")
                with gr.Row():
                    ui.button("keep-mine", L["ui.conflict.keep_mine"], variant="primary")
                    ui.button("keep-theirs", L["ui.conflict.keep_theirs"])
            with gr.Row(elem_classes="aizac-actions"):
                instruction = gr.Textbox(label=L["ui.instruction"],
                                         placeholder=L["ui.instruction_hint"],
                                         scale=3, elem_id="aizac-instruction")
                ui.button("regenerate", L["ui.regenerate"])
                ui.button("plan-episode", L["ui.plan_episode"])
                ui.button("suggest", L["ui.suggest"])
            ui.note("beat")  # under the draft's buttons: progress and outcome in view
            suggestions = gr.Markdown("", elem_id="aizac-suggestions")
            with gr.Row():
                suggestion_pick = gr.Dropdown(label=L["ui.suggestion_pick"], choices=[], scale=3,
                                              elem_id="aizac-suggestion-pick")
                ui.button("use-this", L["ui.use_this"], scale=0)
    gr.Markdown(f"#### {L['ui.prose']}")
    with gr.Row():
        # a value the page still holds after its beat was undone is no Gradio error (its
        # English toast): the handlers find the beat gone and say so in the status
        prose_beat = gr.Dropdown(label=L["ui.prose_beat"], choices=[], scale=2,
                                 allow_custom_value=True, elem_id="aizac-prose-beat")
        ui.button("write-prose", L["ui.write_prose"], variant="primary")
        ui.button("write-episode", L["ui.write_episode"])
        ui.button("cancel-prose", L["ui.cancel"], variant="stop", scale=0)
        ui.button("save-prose", L["ui.save_prose"])
    ui.note("prose")
    prose = gr.Textbox(label=L["ui.prose"], lines=12, max_lines=40, elem_id="aizac-prose",
                       buttons=["copy"])
    tab = BeatsTab(episode, draft, beats, [boxes[f] for f in BEAT_FIELDS], locked, history,
                   branches, prose_beat, instruction, suggestions, suggestion_pick, prose,
                   gr.State(None), gr.State(None), gr.State([]), ep_beats, ep_length, ep_note,
                   drawn=gr.State([]), conflict=conflict, conflict_box=conflict_box,
                   checks=checks)
    return tab, lambda: _wire(ui, tab)


def _fields(args: tuple[Any, ...]) -> dict[str, str | None]:
    return dict(zip(BEAT_FIELDS, args, strict=True))


def _wire(ui: Ui, tab: BeatsTab) -> None:
    """Wire the draft's actions (design, edit, regenerate, accept, history moves)."""
    service, L, b = ui.service, ui.L, ui.buttons
    n = len(tab.outputs)
    out = ui.outputs(tab.outputs, "beat")
    moved = ui.outputs(tab.outputs, "history")
    draft_in = [ui.project, tab.beat_id, tab.version, *tab.fields]

    def view_of(view: h.EditorView, key: str) -> tuple[list[Any], str]:
        return values(ui, view), L[key]

    def next_beat(project: str | None, progress: Any) -> tuple[list[Any], str]:
        view = h.next_beat(service, project, progress)
        if not view.reused_draft:
            return view_of(view, "ui.designed")
        return values(ui, view), L.t("ui.draft_pending", where=view.draft_position)

    def save_edit(project: str | None, bid: int | None, ver: int | None,
                  *fields: str) -> tuple[list[Any], str]:
        try:
            return view_of(h.save_edit(service, project, bid, ver, _fields(fields)),
                           "ui.edit_saved")
        except ConflictError:  # another tab saved first: show both, nothing written
            if bid is None:
                raise
            stored = h.beat_fields(service, project, int(bid))
            if stored is None:  # no longer a draft: the error says what it is now
                raise
            said = conflict_markdown(ui, stored, _fields(fields))
            drawn: list[Any] = [gr.skip()] * n  # only the conflict is drawn
            drawn[n - 3:n - 1] = [said, gr.Column(visible=True)]  # (conflict, its box)
            return drawn, L["ui.conflict.said"]

    def keep_mine(project: str | None, bid: int | None, _ver: int | None,
                  *fields: str) -> tuple[list[Any], str]:
        """The form's version over the one another tab saved (at the stored version)."""
        if bid is None:
            raise InvalidInputError("error.beat.no_draft")
        now = service.beat(project, int(bid)).version
        return view_of(h.save_edit(service, project, bid, now, _fields(fields)),
                       "ui.conflict.kept_mine")

    def keep_theirs(project: str | None) -> tuple[list[Any], str]:
        """The stored version (another tab's) drawn in the form; the form's edits dropped."""
        return view_of(h.editor_view(service, project), "ui.conflict.kept_theirs")

    def accept(project: str | None, bid: int | None, ver: int | None, *fields: str,
               progress: Any) -> Any:
        view = h.accept(service, project, bid, ver, progress, fields=_fields(fields))
        return view_of(view, "ui.accepted_done")

    def regenerate(project: str | None, bid: int | None, ver: int | None, *rest: Any,
                   progress: Any) -> Any:
        *fields, instr = rest  # the locks are the draft's own (set by ticking, below)
        view = h.regenerate(service, project, bid, ver, instr, progress,
                            fields=_fields(tuple(fields)))
        return view_of(view, "ui.regenerated")

    def plan_episode(project: str | None, bid: int | None, ver: int | None, *rest: Any,
                     progress: Any) -> Any:
        *fields, instr = rest
        view, drafts = h.plan_episode(service, project, bid, ver, instr, progress,
                                      fields=_fields(tuple(fields)) if bid is not None else None)
        episode = drafts[0].episode if drafts else ""
        return values(ui, view), L.t("ui.planned", count=len(drafts), episode=episode)

    def set_locks(project: str | None, bid: int | None, ver: int | None, *rest: Any
                  ) -> tuple[list[Any], str]:
        *fields, locked = rest
        view = h.set_locks(service, project, bid, ver, locked, _fields(tuple(fields)))
        return view_of(view, "ui.edit_saved")

    def mover(fn: Callable[..., h.EditorView], key: str) -> Callable[..., Any]:
        def run(project: str | None, *args: Any) -> tuple[list[Any], str]:
            return view_of(fn(service, project, *args), key)

        return run

    def cancel(project: str | None) -> str:
        return L["ui.cancel_sent"] if service.cancel(project) else L["ui.nothing_running"]

    hidden = {"show_progress": "hidden"}
    beat = "beat"
    b["next-beat"].click(ui.long(next_beat, n, "ui.busy.next", beat), ui.project, out, **hidden)
    b["save-edit"].click(ui.act(save_edit, n, beat), draft_in, out)
    b["keep-mine"].click(ui.act(keep_mine, n, beat), draft_in, out)
    b["keep-theirs"].click(ui.act(keep_theirs, n, beat), ui.project, out)
    b["accept"].click(ui.long(accept, n, "ui.busy.accept", beat), draft_in, out, **hidden)
    b["regenerate"].click(ui.long(regenerate, n, "ui.busy.regen", beat),
                          [*draft_in, tab.instruction], out, **hidden)
    b["plan-episode"].click(ui.long(plan_episode, n, "ui.busy.plan", beat),
                            [*draft_in, tab.instruction], out, **hidden)
    tab.locked.input(ui.act(set_locks, n, beat), [*draft_in, tab.locked], out)
    b["cancel-beat"].click(cancel, ui.project, ui.status, **hidden)
    b["undo"].click(ui.act(mover(h.undo, "ui.undone"), n, "history"), ui.project, moved)
    b["redo"].click(ui.act(mover(h.redo, "ui.redone"), n, "history"), ui.project, moved)
    b["switch"].click(ui.act(mover(h.switch_branch, "ui.switched"), n, "history"),
                      [ui.project, tab.branches], moved)
    _wire_suggestions(ui, tab)
    _wire_prose(ui, tab, cancel)
    _wire_episode(ui, tab)


def episode_values(ui: Ui, view: episodes.EpisodeView | None) -> list[Any]:
    """The episode-length boxes (the project's own values; empty: the default) and the line
    saying what is in force."""
    if view is None:
        return [gr.skip()] * 3
    L = ui.L

    def amount(n: int) -> str:
        return L.t("ui.ep.amount", n=f"{n:,}", unit=L[UNIT_KEYS[view.unit]])

    own = view.own_beats is not None or view.own_length is not None
    source = L.t("ui.ep.own" if own else "ui.ep.base", beats=view.default_beats,
                 amount=amount(view.default_length))
    note = L.t("ui.ep.now", beats=view.beats, amount=amount(view.length),
                              per_beat=amount(view.per_beat), source=source)
    return [
        gr.Textbox(value="" if view.own_beats is None else str(view.own_beats),
                   info=L.t("ui.ep.default_beats", beats=view.default_beats),
                   placeholder=str(view.default_beats)),
        gr.Textbox(value="" if view.own_length is None else f"{view.own_length:,}",
                   label=L.t("ui.ep.length", unit=L[UNIT_NAME_KEYS[view.unit]]),
                   info=L.t("ui.ep.default", amount=amount(view.default_length)),
                   placeholder=f"{view.default_length:,}"),
        note,
    ]


def _wire_episode(ui: Ui, tab: BeatsTab) -> None:
    """Wire the episode-length accordion: filled when a project opens, saved on request."""
    service, L = ui.service, ui.L
    boxes = [tab.ep_beats, tab.ep_length, tab.ep_note]

    def load(project: str | None) -> list[Any]:
        try:
            return episode_values(ui, episodes.episode_view(service, project) if project
                                  else None)
        except Exception:  # the editor's own refresh reports what is wrong
            return [gr.skip()] * 3

    def save(project: str | None, beats: Any, length: Any) -> tuple[list[Any], str]:
        view = episodes.set_episode_length(service, project, beats, length)
        said = L.t("ui.ep.saved", beats=view.beats, amount=L.t("ui.ep.amount",
            n=f"{view.length:,}", unit=L[UNIT_KEYS[view.unit]]))
        return [*values(ui, h.editor_view(service, project)), *episode_values(ui, view)], said

    ui.project.change(load, ui.project, boxes)
    ui.buttons["refresh"].click(load, ui.project, boxes)
    ui.buttons["save-episode"].click(
        ui.act(save, len(tab.outputs) + 3), [ui.project, tab.ep_beats, tab.ep_length],
        [*tab.outputs, *boxes, ui.status, *ui.button_list])


def _wire_suggestions(ui: Ui, tab: BeatsTab) -> None:
    """Wire the cliché suggestions (shown, then put into the unsaved form with Use this)."""
    service, L, b = ui.service, ui.L, ui.buttons

    def suggest(project: str | None, bid: int | None) -> tuple[list[Any], str]:
        hits = h.suggest(service, project, bid, ui.language)
        text = "\n".join(f"{i}. {s.markdown}" for i, s in enumerate(hits, 1))
        choices = [(f"{i}. {s.summary[:70]}", str(i - 1)) for i, s in enumerate(hits, 1)]
        return [text or L["ui.suggestions_none"],
                gr.Dropdown(choices=choices, value=choices[0][1] if choices else None),
                [s.__dict__ for s in hits]], ""

    def use_this(project: str | None, pick: str | None, hits: list[dict[str, str]],
                 *fields: str) -> tuple[list[Any], str]:
        if pick is None or not hits:
            raise InvalidInputError("error.beat.pick_suggestion")
        new = h.use_suggestion(dict(_fields(fields)), h.Suggestion(**hits[int(pick)]))  # type: ignore[arg-type]
        return [new[f] for f in BEAT_FIELDS], L["ui.suggestion_used"]

    b["suggest"].click(ui.act(suggest, 3), [ui.project, tab.beat_id],
                       [tab.suggestions, tab.suggestion_pick, tab.hits, ui.status,
                        *ui.button_list])
    b["use-this"].click(ui.act(use_this, len(BEAT_FIELDS)),
                        [ui.project, tab.suggestion_pick, tab.hits, *tab.fields],
                        [*tab.fields, ui.status, *ui.button_list])


def _wire_prose(ui: Ui, tab: BeatsTab, cancel: Callable[[str | None], str]) -> None:
    """Wire the prose of an accepted beat: load, stream, cancel, save."""
    service, L, b = ui.service, ui.L, ui.buttons

    def prose(project: str | None, bid: str | None) -> Iterator[list[Any]]:
        for text in h.write_prose(service, project, int(bid) if bid else None):
            yield [text]

    def episode(project: str | None, bid: str | None) -> Iterator[list[Any]]:
        for text in h.write_episode(service, project, int(bid) if bid else None):
            yield [text]
        # the box holds one beat's prose (what "save prose" saves): the selected beat's own
        yield [load_prose(project, bid)]

    def save_prose(project: str | None, bid: str | None, text: str) -> tuple[list[Any], str]:
        record = h.save_prose(service, project, int(bid) if bid else None, text)
        return [], L.t("ui.prose_saved", where=f"{record.episode}-{record.index}",
                                           n=f"{len(text):,}")

    def load_prose(project: str | None, bid: str | None) -> str:
        try:
            return h.load_prose(service, project, int(bid) if bid else None)
        except Exception:
            return ""

    hidden = {"show_progress": "hidden"}
    tab.prose_beat.change(load_prose, [ui.project, tab.prose_beat], tab.prose)
    b["write-prose"].click(ui.stream(prose, 1, "ui.busy.prose", "ui.prose_done", "prose"),
                           [ui.project, tab.prose_beat], ui.outputs([tab.prose], "prose"),
                           **hidden)
    b["write-episode"].click(ui.stream(episode, 1, "ui.busy.episode_prose",
                                       "ui.episode_prose_done", "prose"),
                             [ui.project, tab.prose_beat], ui.outputs([tab.prose], "prose"),
                             **hidden)
    b["cancel-prose"].click(cancel, ui.project, ui.status, **hidden)
    b["save-prose"].click(ui.act(save_prose, 0, "prose"), [ui.project, tab.prose_beat, tab.prose],
                          ui.outputs([], "prose"))
