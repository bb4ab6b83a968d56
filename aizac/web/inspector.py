"""The memory inspector: memories by tag with strength, memory factor and pinned state.

Plain handler functions (:func:`memory_table`, :func:`set_pinned`, :func:`curve_figure`,
:func:`relation_table`, :func:`ask_memory`) over the :class:`WebService`, and :func:`build`, which
lays out the Memory tab and wires them. Curves are computed by :mod:`aizac.memory.forgetting`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from aizac.errors import InvalidInputError
from aizac.memory.forgetting import memory_factor
from aizac.web.service import WebService

TAGS = ("Story", "Character", "CharacterRelation", "NovelSetting")
MEMORY_HEADERS = ["ID", "Tag", "Memory", "Who", "Ch.", "Strength", "Factor", "Pinned", "Live"]
MAX_CURVES = 8
MAX_ROWS = 300  # the table and the selection box show the most vivid memories first
MAX_QUESTION_CHARS = 500


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


def memories(
    service: WebService, project: str | None, tag: str | None = None,
    character: str | None = None,
) -> list[Any]:
    """Current (not superseded) memories, optionally of one tag and about one character."""
    hits = service.all_memories(project)
    out = [h for h in hits if not h.metadata.get("superseded_by")]
    if tag and tag in TAGS:
        out = [h for h in out if h.tag == tag]
    if character:
        out = [h for h in out if _mentions(h, character)]
    return sorted(out, key=lambda h: (TAGS.index(h.tag) if h.tag in TAGS else 9, -h.memory_factor))


def memory_table(
    service: WebService, project: str | None, tag: str | None = None,
    character: str | None = None,
) -> list[list[Any]]:
    """Rows of the inspector table."""
    rows = []
    for h in memories(service, project, tag, character)[:MAX_ROWS]:
        rows.append([
            h.id, h.tag, h.text, _who(h), int(h.metadata.get("chapter", 0)),
            round(float(h.strength), 1), round(float(h.memory_factor), 2),
            "pinned" if h.pinned else "—", "yes" if h.live else "forgotten",
        ])
    return rows


def character_names(service: WebService, project: str | None) -> list[str]:
    return sorted(service.agent(project).memory.characters())


def memory_choices(service: WebService, project: str | None) -> list[tuple[str, str]]:
    """(label, id) for the selection box."""
    return [
        (f"[{h.tag}] {h.text[:60]}", h.id) for h in memories(service, project)[:MAX_ROWS]
    ]


def set_pinned(
    service: WebService, project: str | None, ids: Sequence[str] | None, pinned: bool
) -> str:
    chosen = list(ids or [])
    if not chosen:
        raise InvalidInputError("Select at least one memory first.",
                                hint="Pick memories in the Selected memories box.")
    service.set_pinned(project, chosen, pinned)
    verb = "Pinned" if pinned else "Unpinned"
    return f"{verb} {len(chosen)} memor{'y' if len(chosen) == 1 else 'ies'}."


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
        out.append(Curve(f"[{h.tag}] {h.text[:30]}", xs, ys, bool(h.pinned)))
    return out


def curve_figure(service: WebService, project: str | None, ids: Sequence[str] | None) -> Any:
    """A matplotlib figure of the selected memories' forgetting curves."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    chosen = set(ids or [])
    if not chosen:
        raise InvalidInputError("Select the memories to plot first.")
    agent = service.agent(project)
    hits = [h for h in service.all_memories(project) if h.id in chosen]
    threshold = float(agent.settings.memory_threshold)
    turn = int(agent.memory.turn)
    fig, ax = plt.subplots(figsize=(8, 3.6), dpi=100)
    for c in curves(hits, turn, threshold):
        ax.plot(c.turns, c.factors, linestyle="--" if c.pinned else "-",
                label=c.label + (" (pinned)" if c.pinned else ""))
    ax.axhline(threshold, color="grey", linewidth=1, linestyle=":", label="forgetting threshold")
    ax.axvline(turn, color="black", linewidth=1, alpha=0.5, label=f"now (turn {turn})")
    ax.set_xlabel("turn (accepted beats)")
    ax.set_ylabel("memory factor")
    ax.set_ylim(0, 11)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    plt.close(fig)
    return fig


# --------------------------------------------------------------------- relations / ask
def relation_table(service: WebService, project: str | None) -> tuple[list[str], list[list[str]]]:
    """(headers, rows) of the relationship matrix of the plot's main characters."""
    from aizac.retrieval.matrix import relation_matrix

    agent = service.agent(project)
    record = agent.plot()
    names = [c.name for c in record.plot.characters] if record else []
    names = names or sorted(agent.memory.characters())[:6]
    if len(names) < 2:
        return ["", "—"], [["—", "No two characters known yet."]]
    matrix = relation_matrix(agent.memory, names)  # type: ignore[arg-type]
    shown = list(matrix.names)
    rows = []
    for a in shown:
        row = [a]
        for b in shown:
            cell = matrix.get(a, b)
            row.append("—" if a == b else (cell.text if cell and cell.text else "·"))
        rows.append(row)
    return ["", *shown], rows


def ask_memory(service: WebService, project: str | None, question: str | None) -> str:
    text = (question or "").strip()
    if not text:
        raise InvalidInputError("Type a question first.", hint="e.g. Who is Mira's enemy?")
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidInputError(f"The question is longer than {MAX_QUESTION_CHARS} characters.")
    docs = service.agent(project).ask(text)
    if not docs:
        return "_Memory has nothing on that._"
    lines = []
    for d in docs:
        meta = getattr(d, "metadata", {}) or {}
        tag = meta.get("tag", "")
        lines.append(f"- **{tag}** {getattr(d, 'page_content', str(d))}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------- UI
@dataclass
class MemoryTab:
    refresh_fn: Callable[..., Any]
    refresh_inputs: list[Any]
    refresh_outputs: list[Any]


def build(service: WebService, project: Any, status: Any, L: dict[str, str]) -> MemoryTab:
    """Lay out the Memory tab (inside an open ``gr.Tab``) and wire its buttons."""
    from aizac.web.ui import safe

    with gr.Row():
        tag = gr.Dropdown(label=L["tag"], choices=[(L["all"], ""), *[(t, t) for t in TAGS]],
                          value="", elem_id="aizac-tag")
        character = gr.Dropdown(label=L["character_filter"], choices=[(L["all"], "")],
                                value="", elem_id="aizac-character")
        refresh = gr.Button(L["refresh"], scale=0)
    table = gr.Dataframe(headers=MEMORY_HEADERS, label=L["memories"], interactive=False,
                         wrap=True, type="array", max_height=360, elem_id="aizac-memories",
                         column_widths=["9%", "10%", "35%", "12%", "5%", "7%", "7%", "7%", "8%"])
    with gr.Row():
        selected = gr.Dropdown(label=L["selected"], choices=[], multiselect=True, scale=3,
                               elem_id="aizac-selected")
        pin_btn = gr.Button(L["pin"], elem_id="aizac-pin")
        unpin_btn = gr.Button(L["unpin"], elem_id="aizac-unpin")
        curve_btn = gr.Button(L["curves"], elem_id="aizac-curves")
    with gr.Row():
        with gr.Column(scale=3):
            plot = gr.Plot(label=L["curve_plot"], elem_id="aizac-curve-plot")
        with gr.Column(scale=2):
            matrix = gr.Dataframe(label=L["relations"], interactive=False, wrap=True,
                                  type="array", elem_id="aizac-relations")
    with gr.Row():
        question = gr.Textbox(label=L["ask"], placeholder=L["ask_hint"], scale=4,
                              elem_id="aizac-question")
        ask_btn = gr.Button(L["ask_button"], scale=0, elem_id="aizac-ask")
    answer = gr.Markdown("", elem_id="aizac-answer")

    @safe
    def on_refresh(
        name: str | None, tag_v: str, who: str, keep: list[str] | None = None
    ) -> list[Any]:
        if not name:
            return [gr.skip()] * 4
        headers, rows = relation_table(service, name)
        people = character_names(service, name)
        return [
            memory_table(service, name, tag_v or None, who or None),
            gr.Dropdown(choices=[(L["all"], ""), *[(p, p) for p in people]],
                        value=who if who in people else ""),
            gr.Dropdown(choices=memory_choices(service, name), value=keep or []),
            gr.Dataframe(value=rows, headers=headers),
        ]

    outputs = [table, character, selected, matrix]
    inputs = [project, tag, character]

    def pinner(pinned: bool) -> Callable[..., Any]:
        @safe
        def run(name: str | None, ids: list[str], tag_v: str, who: str) -> list[Any]:
            message = set_pinned(service, name, ids, pinned)
            return [*on_refresh(name, tag_v, who, ids), message]

        return run

    @safe
    def on_curves(name: str | None, ids: list[str]) -> Any:
        return curve_figure(service, name, ids)

    @safe
    def on_ask(name: str | None, q: str) -> str:
        return ask_memory(service, name, q)

    refresh.click(on_refresh, inputs, outputs)
    tag.change(on_refresh, inputs, outputs)
    character.input(on_refresh, inputs, outputs)
    pin_btn.click(pinner(True), [project, selected, tag, character], [*outputs, status])
    unpin_btn.click(pinner(False), [project, selected, tag, character], [*outputs, status])
    curve_btn.click(on_curves, [project, selected], plot)
    ask_btn.click(on_ask, [project, question], answer)
    question.submit(on_ask, [project, question], answer)
    return MemoryTab(on_refresh, inputs, outputs)
