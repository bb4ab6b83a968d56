"""What the Autopilot panel says, in the interface language (pure renderers over the catalogue).

The run's status line, the event table, the gate's question and the drafted prose with its
findings. The story's own text (prose, beats, the model's reasons) stays as written; everything
the panel adds around it is a catalogue text (``autopilot.*``) said here, in the page's
language. What the workflow recorded (a pause reason, an event's note) is data
(:func:`aizac.text.message.to_data`), never an English sentence read back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aizac.autopilot.names import gate_name, name
from aizac.export.render import escape_markdown_cell, escape_markdown_lines
from aizac.text import Text, Verbatim, render
from aizac.text.message import Clauses, from_data

BEAT_LABELS = (("characters", "autopilot.beat.characters", ", "),
               ("emotions", "autopilot.beat.emotions", ", "),
               ("conflicts", "autopilot.beat.conflicts", "; "),
               ("sets_up", "autopilot.beat.sets_up", "; "),
               ("pays_off", "autopilot.beat.pays_off", "; "))
"""A planned beat's labelled lines: field, label, how its items are joined."""


def status_line(run_id: str, status: str, message: Text | Verbatim | Clauses,
                gate: Mapping[str, Any] | None, error: Text | Verbatim | str,
                language: str) -> str:
    """``**RUN**: <where it stands>`` with the state said once (pure)."""
    said: Text | Verbatim | Clauses
    if status == "waiting" and gate:
        said = Text("autopilot.status.waiting", gate=gate_name(gate.get("gate")),
                    episode=gate.get("episode"))
    elif status == "paused":
        said = Text("autopilot.status.paused", reason=message)
    elif status == "failed":
        said = Text("autopilot.status.failed", message=message)
    elif status in ("running", "finished"):
        said = Text("autopilot.status.running" if status == "running"
                    else "autopilot.status.finished")
    else:
        said = Verbatim(status)
    problem = render(error, language) if isinstance(error, Text | Verbatim) else error
    # literal: a failure or a steering note may quote the model or the writer
    return f"**{escape_markdown_cell(run_id)}**: {escape_markdown_cell(render(said, language))} " \
        f"{escape_markdown_cell(problem)}".strip()


def event_note(node: str, kind: str, detail: Mapping[str, Any], language: str) -> str:
    """An event's note in ``language``: the check's counts, a verdict, a gate, a pause."""
    if node == "check" and kind == "end" and "findings" in detail:
        kinds = [name(k) for k in detail.get("kinds", [])]
        missed = ", ".join(str(m) for m in detail.get("missed", [])) or "-"
        note: Text | Verbatim | Clauses = Text(
            "autopilot.check_note_kinds" if kinds else "autopilot.check_note",
            n=detail["findings"], missed=missed, kinds=kinds)
        return render(note, language)
    if node == "review" and kind == "end" and detail.get("decision"):
        reasons = "; ".join(str(r) for r in detail.get("reasons", []))
        return f"{render(name(str(detail['decision'])), language)}: {reasons}"
    if kind == "gate":
        return render(name(str(detail.get("text") or "")), language)
    if "said" in detail:  # what the workflow recorded, said now
        return render(from_data(detail["said"]), language)
    # an older run's note (or the writer's own steering text): shown as it was written
    return str(detail.get("text") or detail.get("decision") or "")


def _cell(value: object) -> str:
    return escape_markdown_cell(str(value))


def event_table(events: Sequence[Any], language: str) -> str:
    """The events as a Markdown table with the headers in ``language`` (pure)."""
    if not events:
        return ""
    head = render(Text("autopilot.cols"), language).split("|")
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for e in events:
        note = event_note(e.node, e.kind, e.detail, language)[:90]
        if e.detail.get("replayed"):
            note = render(Text("autopilot.replayed", note=note), language)
        step = render(name(e.node), language)
        if e.kind not in ("end", e.node):  # an error, a warning, a gate: say which
            step = render(Text("autopilot.step_kind", step=step, kind=name(e.kind)), language)
        rows.append("| " + " | ".join(_cell(v) for v in (
            e.episode, step, f"{e.tokens} · {e.seconds:.2f}", note)) + " |")
    return "\n".join(rows)


def _beat_lines(beat: Mapping[str, Any], language: str) -> list[str]:
    """A planned beat as lines: the panel's labels in ``language``, the model's text literal."""
    place = f"{beat.get('location', '')} / {beat.get('time', '')}"
    lines = [escape_markdown_cell(f"[{beat.get('episode')}-{beat.get('index')}] {place}")]
    labelled = {field: (label, sep) for field, label, sep in BEAT_LABELS}
    label, sep = labelled["characters"]
    lines.append(f"{render(Text(label), language)}: "
                 f"{escape_markdown_cell(sep.join(beat.get('characters') or []))}")
    lines += [escape_markdown_cell(f"- {e}") for e in beat.get("events") or []]
    lines += [escape_markdown_cell(f'{d.get("speaker")}: "{d.get("line")}"')
              for d in beat.get("dialogue") or [] if isinstance(d, Mapping)]
    for field, (label, sep) in labelled.items():
        if field != "characters" and beat.get(field):
            lines.append(f"{render(Text(label), language)}: "
                         f"{escape_markdown_cell(sep.join(str(x) for x in beat[field]))}")
    return lines


def _memory_line(memory: Mapping[str, Any], language: str) -> str:
    """A candidate memory: ``[n] tag:`` in ``language``, the model's text after it literal."""
    tag = render(name(str(memory.get("tag"))), language)
    return f"\\[{memory.get('beat')}\\] {tag}: {escape_markdown_cell(str(memory.get('text')))}"


def gate_markdown(gate: Mapping[str, Any] | None, language: str = "en") -> str:
    """The gate's question as Markdown (pure). A gate recorded before its beats and memories
    were data shows their lines as they were written."""
    if not gate:
        return ""
    head = render(Text("autopilot.gate_head", gate=gate_name(gate.get("gate")),
                       episode=gate.get("episode")), language)
    # blocks apart (a bold line right under a list item would continue that item); the errors
    # the rewrites left open come first: they are why the gate waits
    out = [f"### {head}"]
    if gate.get("open"):
        title = render(Text("autopilot.open_errors", n=len(gate["open"])), language)
        out.append("\n".join([f"**{title}**",
                              *(f"- {_finding_text(f, language, True)}" for f in gate["open"])]))
    beats = gate.get("beat_data")
    if beats is None:
        beats = [str(b).splitlines() for b in gate.get("beats", []) or []]
        beat_lines = [[escape_markdown_cell(line) for line in b] for b in beats]
    else:
        beat_lines = [_beat_lines(b, language) for b in beats]
    if beat_lines:
        out.append("\n".join("\n".join(f"- {line}" if n == 0 else f"  {line}"
                                       for n, line in enumerate(lines))
                             for lines in beat_lines))
    memories = gate.get("memory_data")
    shown = ([_memory_line(m, language) for m in memories] if memories is not None
             else [escape_markdown_cell(str(line)) for line in gate.get("memories") or []])
    if shown:
        out.append("\n".join([f"**{render(Text('autopilot.memories'), language)}**",
                              *(f"- {line}" for line in shown)]))
    if gate.get("verdict"):
        verdict = gate["verdict"]
        reasons = escape_markdown_cell("; ".join(str(r) for r in verdict.get("reasons", [])))
        decision = render(name(str(verdict.get("decision"))), language)
        out.append(f"**{render(Text('autopilot.verdict'), language)}**: {decision}: {reasons}")
    return "\n\n".join(out)


def _finding(f: Mapping[str, Any], language: str, quote: bool) -> str:
    return "> " + _finding_text(f, language, quote)


def _finding_text(f: Mapping[str, Any], language: str, quote: bool) -> str:
    message = escape_markdown_cell(str(f.get("message")))
    said = (f"**{render(name(str(f.get('severity'))), language)}** "
            f"({render(name(str(f.get('kind'))), language)}): {message}")
    return f"{said} — “{escape_markdown_cell(str(f.get('quote', '')))}”" if quote else said


def prose_markdown(state: Mapping[str, Any], language: str = "en") -> str:
    """The open episode's drafted prose, each beat followed by the findings about it (pure)."""
    prose = state.get("prose") or {}
    if not prose:
        return ""
    findings = (state.get("report") or {}).get("findings", [])
    episode = render(Text("autopilot.episode", episode=state.get("episode")), language)
    out = [f"### {episode}"]
    for key in sorted(prose, key=int):
        # the prose literal, paragraph by paragraph (its '# Episode 2' is no heading)
        beat = render(Text("autopilot.beat", beat=key), language)
        out.append(f"**{beat}**\n\n{escape_markdown_lines(str(prose[key]))}")
        out += [_finding(f, language, True) for f in findings if str(f.get("beat")) == key]
    out += [_finding(f, language, False) for f in findings if f.get("beat") is None]
    return "\n\n".join(out)


__all__ = ["event_note", "event_table", "gate_markdown", "gate_name", "name", "prose_markdown",
           "status_line"]
