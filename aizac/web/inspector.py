"""The memory inspector: memories by tag with strength, memory factor and pinned state.

Plain handler functions (:func:`memory_table`, :func:`set_pinned`, :func:`curve_figure`,
:func:`relation_table`, :func:`ask_memory`, :func:`conflict_choices`, :func:`settle_pair`) over the
:class:`ApplicationService`, and :func:`build`, which lays out the Memory tab and wires them. The
pairs of facts the memory kept side by side ("these two may conflict: keep which?") are settled with
three buttons (keep the newer, the earlier, or both). Curves are computed by
:mod:`aizac.memory.forgetting`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from aizac.application.service import ApplicationService
from aizac.errors import InvalidInputError
from aizac.export.render import escape_markdown_cell, escape_markdown_lines
from aizac.memory.forgetting import memory_factor
from aizac.plotting import use_cjk_fonts
from aizac.text import Text, Verbatim, render, t
from aizac.web.labels import TAG_KEYS, Labels
from aizac.writer.rules import check_question

TAGS = ("Story", "Character", "CharacterRelation", "NovelSetting")
MEMORY_HEADERS = ["ID", "Tag", "Memory", "Who", "Ch.", "Strength", "Factor", "Pinned", "Live",
                  "Look"]
SHORT_ID = 8
FLAG_KEYS = {"language": "ui.flag.language", "unplaced": "ui.flag.unplaced",
             "merged": "ui.flag.merged"}
"""Why a memory waits for the writer's look (its ``flag``), as the Look column says it."""
MAX_CURVES = 8
MAX_ROWS = 300  # the table and the selection box show the most vivid memories first


# ------------------------------------------------------------------------------ reading
def _who(hit: Any) -> str:
    meta = hit.metadata
    if meta.get("character1"):
        return f"{meta.get('character1')} — {meta.get('character2')}"
    return str(meta.get("character_name", ""))


def _mentions(hit: Any, name: str) -> bool:
    key = name.casefold()
    meta = hit.metadata
    fields = (meta.get("character_name", ""), meta.get("character1", ""),
              meta.get("character2", ""), meta.get("aliases", ""), hit.text)
    return any(key in str(f).casefold() for f in fields)


def removed(hit: Any) -> bool:
    """Whether the memory was taken out on purpose (a plot edit), not faded by forgetting."""
    return bool(hit.metadata.get("forgotten"))


def memories(
    service: ApplicationService, project: str | None, tag: str | None = None,
    character: str | None = None,
) -> list[Any]:
    """Current (not superseded) memories, optionally of one tag and about one character.

    A memory removed by a plot edit is left out when the same fact is live again (a re-seeded
    character or setting), so the table never lists it twice.
    """
    hits = service.all_memories(project)
    out = [h for h in hits if not h.metadata.get("superseded_by")]
    live_texts = {(h.tag, h.text) for h in out if not removed(h)}
    out = [h for h in out if not (removed(h) and (h.tag, h.text) in live_texts)]
    if tag and tag in TAGS:
        out = [h for h in out if h.tag == tag]
    if character:
        out = [h for h in out if _mentions(h, character)]
    return sorted(out, key=lambda h: (TAGS.index(h.tag) if h.tag in TAGS else 9, -h.memory_factor))


def memory_table(
    service: ApplicationService, project: str | None, tag: str | None = None,
    character: str | None = None, L: Labels | None = None,
) -> list[list[Any]]:
    """Rows of the inspector table (ids shortened to their first characters)."""
    L = L or Labels()
    rows = []
    for h in memories(service, project, tag, character)[:MAX_ROWS]:
        live = ("ui.live.struck" if h.metadata.get("struck") else "ui.live.removed"
                if removed(h) else "ui.live.yes" if h.live else "ui.live.faded")
        flag = str(h.metadata.get("flag") or "")
        rows.append([
            h.id[:SHORT_ID], _tag(L, h.tag), h.text, _who(h),
            int(h.metadata.get("chapter", 0)), round(float(h.strength), 1),
            round(float(h.memory_factor), 2), L["ui.pinned_yes"] if h.pinned else "—", L[live],
            L[FLAG_KEYS[flag]] if flag in FLAG_KEYS else flag,
        ])
    return rows


def _tag(L: Labels, tag: str) -> str:
    return L[TAG_KEYS[tag]] if tag in TAG_KEYS else tag


def strike(service: ApplicationService, project: str | None, ids: Sequence[str] | None,
           language: str = "en") -> str:
    """Strike the chosen facts out (never true); what was done."""
    chosen = list(ids or [])
    if not chosen:
        raise InvalidInputError("error.memory.select")
    service.strike(project, chosen)
    return t("ui.memory.struck", language, count=len(chosen))


def confirm(service: ApplicationService, project: str | None, ids: Sequence[str] | None,
            language: str = "en") -> str:
    """The chosen flagged facts look right to the writer: their flags are cleared."""
    chosen = list(ids or [])
    if not chosen:
        raise InvalidInputError("error.memory.select")
    service.checked(project, chosen)
    return t("ui.memory.checked", language, count=len(chosen))


def character_names(service: ApplicationService, project: str | None) -> list[str]:
    return sorted(service.agent(project).memory.characters())


def memory_choices(
    service: ApplicationService, project: str | None, L: Labels | None = None
) -> list[tuple[str, str]]:
    """(label, id) for the selection box."""
    L = L or Labels()
    return [
        (f"[{_tag(L, h.tag)}] {h.text[:60]}", h.id)
        for h in memories(service, project)[:MAX_ROWS]
    ]


def set_pinned(
    service: ApplicationService, project: str | None, ids: Sequence[str] | None, pinned: bool,
    L: Labels | None = None,
) -> str:
    chosen = list(ids or [])
    if not chosen:
        raise InvalidInputError("error.memory.select")
    service.set_pinned(project, chosen, pinned)
    return (L or Labels()).t("ui.pinned_n" if pinned else "ui.unpinned_n", n=len(chosen))


# ------------------------------------------------------------------------------ curves
@dataclass(frozen=True)
class Curve:
    label: str
    turns: list[int]
    factors: list[float]
    pinned: bool


def curves(
    hits: Sequence[Any], turn: int, threshold: float, horizon: int | None = None
) -> list[Curve]:
    """Memory factor of each memory from its last reinforcement to past its forgetting (pure)."""
    out = []
    for h in hits[:MAX_CURVES]:
        strength = float(h.strength)
        last = int(h.metadata.get("last_turn", turn))
        retention = strength * math.log(10 / threshold)
        span = horizon if horizon is not None else math.ceil(retention * 1.3)
        end = max(turn, last) + max(span - (turn - last), 3)
        xs = list(range(last, end + 1))
        ys = [10.0 if h.pinned else memory_factor(x - last, strength) for x in xs]
        out.append(Curve(h.text[:30], xs, ys, bool(h.pinned)))
    return out


def curve_figure(
    service: ApplicationService, project: str | None, ids: Sequence[str] | None,
    L: Labels | None = None,
) -> Any:
    """A matplotlib figure of the selected memories' forgetting curves."""
    use_cjk_fonts()
    import matplotlib.pyplot as plt

    L = L or Labels()
    chosen = set(ids or [])
    if not chosen:
        raise InvalidInputError("error.memory.select_plot")
    agent = service.agent(project)
    hits = [h for h in service.all_memories(project) if h.id in chosen]
    threshold = float(agent.settings.memory_threshold)
    turn = int(agent.memory.turn)
    fig, ax = plt.subplots(figsize=(8, 3.6), dpi=100)
    for c in curves(hits, turn, threshold):
        ax.plot(c.turns, c.factors, linestyle="--" if c.pinned else "-",
                label=c.label + (L["ui.curve.pinned"] if c.pinned else ""))
    ax.axhline(threshold, color="grey", linewidth=1, linestyle=":", label=L["ui.curve.threshold"])
    ax.axvline(turn, color="black", linewidth=1, alpha=0.5, label=L.t("ui.curve.now", turn=turn))
    ax.set_xlabel(L["ui.curve.x"])
    ax.set_ylabel(L["ui.curve.y"])
    ax.set_ylim(0, 11)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    plt.close(fig)
    return fig


# ------------------------------------------------------------------- facts to settle
KEEP = {"keep-newer": "flagged", "keep-older": "other", "keep-both": "both"}
"""The Memory tab's buttons for a flagged pair -> what :meth:`WriterMemory.settle` keeps."""
KEEP_LABELS = {"keep-newer": "ui.memory.keep_newer", "keep-older": "ui.memory.keep_older",
               "keep-both": "ui.memory.keep_both"}
"""Each of those buttons' label."""


def conflict_choices(
    service: ApplicationService, project: str | None, language: str = "en"
) -> list[tuple[str, str]]:
    """(label, "<newer id>|<earlier id>") of each pair of facts the memory kept side by side
    because it could not tell whether the newer replaces the earlier."""
    return [
        (t("ui.memory.conflict_pair", language, newer=Verbatim(a.text[:60]),
           older=Verbatim(b.text[:60])), f"{a.id}|{b.id}")
        for a, b in service.conflicts(project)
    ]


def settle_pair(
    service: ApplicationService, project: str | None, pair: str | None, keep: str,
    language: str = "en",
) -> str:
    """Settle the chosen pair as the writer said (a button of :data:`KEEP`); what was kept."""
    newer, _, older = (pair or "").partition("|")
    if not newer or not older:
        raise InvalidInputError("error.memory.pick_conflict")
    pairs = {(a.id, b.id): (a, b) for a, b in service.conflicts(project)}
    service.settle(project, newer, older, KEEP[keep])
    a, b = pairs.get((newer, older), (None, None))
    said = {"keep-newer": a, "keep-older": b}.get(keep)
    if said is not None:
        return t("ui.memory.settled", language, kept=Verbatim(said.text[:80]))
    return t("ui.memory.settled_both", language, newer=Verbatim(a.text[:60] if a else newer),
             older=Verbatim(b.text[:60] if b else older))


# --------------------------------------------------------------------- relations / ask
MATRIX_NAMES = 12
"""Characters the relationship matrix shows at most (a table a writer can still read)."""
MATRIX_CELL = 24
"""The characters of a relation a matrix cell shows (the whole text is in the memory table:
a cell holding a sentence made the matrix too wide to read)."""


def relation_label(text: str) -> str:
    """A relation as a matrix cell shows it: at most :data:`MATRIX_CELL` characters."""
    said = " ".join(text.split())
    return said if len(said) <= MATRIX_CELL else said[: MATRIX_CELL - 1].rstrip() + "…"


def relation_table(
    service: ApplicationService, project: str | None, none_text: str | None = None
) -> tuple[list[str], list[list[str]]]:
    """(headers, rows) of the relationship matrix of the story's characters: the plot's
    first, then everyone memory knows (characters met in accepted beats), at most
    :data:`MATRIX_NAMES`."""
    from aizac.retrieval.matrix import relation_matrix

    agent = service.agent(project)
    record = agent.plot()
    planned = [c.name for c in record.plot.characters] if record else []
    known = list(agent.memory.characters())  # newest first
    names = list(dict.fromkeys([*planned, *known]))[:MATRIX_NAMES]
    if len(names) < 2:
        return ["", "—"], [["—", none_text or Labels()["ui.no_two"]]]
    matrix = relation_matrix(agent.memory, names)  # type: ignore[arg-type]
    shown = list(matrix.names)
    rows = []
    for a in shown:
        row = [a]
        for b in shown:
            cell = matrix.get(a, b)
            row.append("—" if a == b else (relation_label(cell.text) if cell and cell.text
                                           else "·"))
        rows.append(row)
    return ["", *shown], rows


def ask_memory(
    service: ApplicationService, project: str | None, question: str | None,
    labels: Labels | None = None,
) -> str:
    """The memories that answer ``question``, each under its tag as the interface names it
    (``labels``: the interface language's, English by default)."""
    L = labels or Labels()
    text = check_question(question or "")
    docs = service.ask(project, text)  # as the API asks: one generation slot in the server
    if not docs:
        return L["ui.memory_nothing"]
    lines = []
    for d in docs:
        meta = getattr(d, "metadata", {}) or {}
        tag = _tag(L, str(meta.get("tag", "")))
        said = escape_markdown_lines(str(getattr(d, "page_content", d)))  # literal, indented
        lines.append(f"- **{escape_markdown_cell(tag)}** " + said.replace("\n", "\n  "))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- reindex
def reindex_notice(service: ApplicationService, project: str | None, language: str) -> str:
    """The Memory tab's note when the project's memory still uses other embeddings than
    the configured ones ("" otherwise): what it uses, and that Reindex converts it."""
    notice = service.memory_notice(project) if project else None
    return render(notice, language) if notice is not None else ""


def reindex_memory(
    service: ApplicationService, project: str | None, language: str,
    progress: Callable[[str], None] | None = None,
) -> str:
    """Re-embed the project's memory with the configured embeddings; what was done."""

    def said(text: Text) -> None:
        if progress is not None:
            progress(render(text, language))

    return render(service.reindex(project, progress=said), language)


# --------------------------------------------------------------------------------- UI
@dataclass
class MemoryTab:
    refresh_fn: Callable[..., Any]
    refresh_inputs: list[Any]
    refresh_outputs: list[Any]


def _refresher(service: ApplicationService, L: Labels, language: str) -> Callable[..., list[Any]]:
    """The Memory tab's refresh: table, character filter, selection box, relationship matrix,
    the reindex note, the pairs of facts waiting to be settled."""

    def refresh(name: str | None, tag_v: str, who: str,
                keep: list[str] | None = None) -> list[Any]:
        if not name:
            return [gr.skip()] * 6
        try:
            heads, rows = relation_table(service, name, L["ui.no_two"])
            people = character_names(service, name)
            pairs = conflict_choices(service, name, language)
            return [
                memory_table(service, name, tag_v or None, who or None, L),
                gr.Dropdown(choices=[(L["ui.all"], ""), *[(p, p) for p in people]],
                            value=who if who in people else ""),
                gr.Dropdown(choices=memory_choices(service, name, L), value=keep or []),
                gr.Dataframe(value=rows, headers=heads),
                reindex_notice(service, name, language),
                gr.Dropdown(choices=pairs, value=pairs[0][1] if pairs else None,
                            info=None if pairs else t("ui.memory.no_conflicts", language)),
            ]
        except Exception:
            return [gr.skip()] * 6

    return refresh


def build(ui: Any) -> tuple[MemoryTab, Callable[[], None]]:
    """Lay out the Memory tab (inside an open ``gr.Tab``); returns its refresh and wiring."""
    from aizac.web.labels import headers

    service, L = ui.service, ui.L
    with gr.Row():
        notice = gr.Markdown("", elem_id="aizac-reindex-notice")
        ui.button("reindex", L["ui.memory.reindex"], scale=0, size="sm")
    with gr.Row():
        tag = gr.Dropdown(label=L["ui.tag"], value="", elem_id="aizac-tag",
                          choices=[(L["ui.all"], ""), *[(L[TAG_KEYS[t]], t) for t in TAGS]])
        character = gr.Dropdown(label=L["ui.character_filter"], choices=[(L["ui.all"], "")],
                                value="", elem_id="aizac-character")
        ui.button("mem-refresh", L["ui.refresh"], scale=0)
    table = gr.Dataframe(headers=headers(L, "ui.h.memories"), label=L["ui.memories"],
                         interactive=False, wrap=True, type="array", max_height=360,
                         elem_id="aizac-memories",
                         column_widths=["6%", "8%", "34%", "11%", "5%", "6%", "6%", "6%", "8%",
                                        "10%"])
    with gr.Row():
        selected = gr.Dropdown(label=L["ui.selected"], choices=[], multiselect=True, scale=3,
                               elem_id="aizac-selected")
        ui.button("pin", L["ui.pin"])
        ui.button("unpin", L["ui.unpin"])
        ui.button("curves", L["ui.curves"])
        ui.button("looks-right", t("ui.memory.looks_right", ui.language))
        ui.button("strike", t("ui.memory.strike", ui.language))
    plot = gr.Plot(label=L["ui.curve.plot"], elem_id="aizac-curve-plot")
    # the whole width: a row per character and a column per character
    matrix = gr.Dataframe(label=L["ui.relations"], interactive=False, wrap=True,
                          type="array", max_height=420, elem_id="aizac-relations")
    with gr.Row():
        pair = gr.Dropdown(label=t("ui.memory.conflicts", ui.language), choices=[], scale=3,
                           info=t("ui.memory.no_conflicts", ui.language),
                           elem_id="aizac-conflicts")
        for name, label in KEEP_LABELS.items():
            ui.button(name, t(label, ui.language), scale=0)
    with gr.Row():
        question = gr.Textbox(label=L["ui.ask"], placeholder=L["ui.ask_hint"], scale=4,
                              elem_id="aizac-question")
        ui.button("ask", L["ui.ask_button"], scale=0)
    answer = gr.Markdown("", elem_id="aizac-answer")

    refresh = _refresher(service, L, ui.language)
    outputs = [table, character, selected, matrix, notice, pair]
    inputs = [ui.project, tag, character]

    def wire() -> None:
        b = ui.buttons

        def pinner(pinned: bool) -> Callable[..., Any]:
            def run(name: str | None, ids: list[str], tag_v: str, who: str) -> Any:
                said = set_pinned(service, name, ids, pinned, L)
                return refresh(name, tag_v, who, ids), said

            return ui.act(run, len(outputs))

        def marker(act: Callable[..., str]) -> Callable[..., Any]:
            def run(name: str | None, ids: list[str], tag_v: str, who: str) -> Any:
                said = act(service, name, ids, ui.language)
                return refresh(name, tag_v, who), said

            return ui.act(run, len(outputs))

        def settler(keep: str) -> Callable[..., Any]:
            def run(name: str | None, chosen: str | None, tag_v: str, who: str) -> Any:
                said = settle_pair(service, name, chosen, keep, ui.language)
                return refresh(name, tag_v, who), said

            return ui.act(run, len(outputs))

        def on_curves(name: str | None, ids: list[str]) -> Any:
            return [curve_figure(service, name, ids, L)], ""

        def on_ask(name: str | None, q: str) -> Any:
            return [ask_memory(service, name, q, L)], ""

        def on_reindex(name: str | None, tag_v: str, who: str, *,
                       progress: Callable[[str], None]) -> Any:
            said = reindex_memory(service, name, ui.language, progress)
            return refresh(name, tag_v, who), said

        after = [ui.status, *ui.button_list]
        b["mem-refresh"].click(refresh, inputs, outputs)
        tag.change(refresh, inputs, outputs)
        character.input(refresh, inputs, outputs)
        b["pin"].click(pinner(True), [ui.project, selected, tag, character], [*outputs, *after])
        b["unpin"].click(pinner(False), [ui.project, selected, tag, character],
                         [*outputs, *after])
        for name, act in (("strike", strike), ("looks-right", confirm)):
            b[name].click(marker(act), [ui.project, selected, tag, character],
                          [*outputs, *after])
        for name in KEEP:
            b[name].click(settler(name), [ui.project, pair, tag, character],
                          [*outputs, *after])
        b["curves"].click(ui.act(on_curves, 1), [ui.project, selected], [plot, *after])
        b["ask"].click(ui.act(on_ask, 1), [ui.project, question], [answer, *after])
        question.submit(ui.act(on_ask, 1), [ui.project, question], [answer, *after])
        b["reindex"].click(ui.long(on_reindex, len(outputs), "ui.memory.reindex"),
                           [ui.project, tag, character], [*outputs, *after])

    return MemoryTab(refresh, inputs, outputs), wire
