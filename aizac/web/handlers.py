"""The web app's event handlers: plain functions over a :class:`WebService`.

Each takes the service and the values of the page's inputs and returns plain values (strings,
table rows, dataclasses) for the outputs; :mod:`aizac.web.ui` only wires them to components.
Errors meant for the writer are :class:`~aizac.errors.AizacError` subclasses; the UI layer shows
them as messages. Nothing here imports Gradio.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aizac.errors import InvalidInputError
from aizac.web import forms
from aizac.web.service import HistoryView, WebService
from aizac.writer.project import BeatRecord, PlotRecord
from aizac.writer.prompts import LANGUAGES

Progress = Callable[[str], None]
BEAT_HEADERS = ["#", "Status", "Place", "Time", "What happens"]
HISTORY_SHOWN = 12


# ------------------------------------------------------------------------------- views
@dataclass(frozen=True)
class StartView:
    """Everything the Start screen shows for a project."""

    project: str
    genre: str
    keywords: str
    language: str
    overview: str
    title: str
    logline: str
    characters: list[list[str]]
    settings: list[list[str]]
    acts: list[list[str]]
    cliches: str
    plot_version: int | None


@dataclass(frozen=True)
class EditorView:
    """Everything the beat editor shows: the episode, the draft, the history, prose targets."""

    heading: str
    draft_label: str
    beats: list[list[str]]
    fields: dict[str, str]
    beat_id: int | None
    version: int | None
    history: HistoryView
    accepted: list[tuple[str, int]] = field(default_factory=list)

    @property
    def history_markdown(self) -> str:
        if not self.history.path:
            return "_No steps yet. Press **Next beat** to design the first beat._"
        path = self.history.path
        start = max(0, len(path) - HISTORY_SHOWN)
        lines = [f"{i}. {label}" for i, label in enumerate(path[start:], start + 1)]
        lines[-1] += "  ← **you are here**"
        if start:
            lines.insert(0, f"_… {start} earlier step{'s' if start != 1 else ''}_")
        return "\n".join(lines)


# ---------------------------------------------------------------------------- projects
def project_names(service: WebService) -> list[str]:
    return service.list_projects()


def create_project(
    service: WebService, name: str | None, genre: str | None, keywords: str | None,
    language: str | None,
) -> str:
    """Create a project; returns its name. Empty keywords or a bad name: nothing is created."""
    words = forms.split_keywords(keywords)
    clean_name = forms.check_length("Project name", name, 64).strip()
    if not clean_name:
        raise InvalidInputError("Give the project a name.", hint="For example: second-dawn.")
    lang = language or "en"
    if lang not in LANGUAGES:
        raise InvalidInputError(f"Unknown language {lang!r}.", hint="Use ko, en or zh.")
    genre_text = forms.check_length("Genre", genre, 40).strip()
    agent = service.create_project(clean_name, genre=genre_text, keywords=words, language=lang)
    return agent.info.name


# ------------------------------------------------------------------------------- start
def start_view(service: WebService, project: str | None) -> StartView:
    agent = service.agent(project)
    info = agent.info
    record = agent.plot()
    return _start_view(info.name, info.genre, info.keywords, info.language, record)


def _start_view(
    name: str, genre: str, keywords: list[str], language: str, record: PlotRecord | None
) -> StartView:
    plot = record.plot if record else None
    chars, settings, acts = forms.plot_tables(plot)
    return StartView(
        project=name,
        genre=genre,
        keywords=", ".join(keywords),
        language=language,
        overview=forms.plot_markdown(plot),
        title=plot.title if plot else "",
        logline=plot.logline if plot else "",
        characters=chars,
        settings=settings,
        acts=acts,
        cliches=(record.tropes.strip() if record and record.tropes.strip() else "_None yet._"),
        plot_version=record.version if record else None,
    )


def generate_plot(
    service: WebService, project: str | None, progress: Progress | None = None
) -> StartView:
    service.generate_plot(project, progress)
    return start_view(service, project)


def save_plot(
    service: WebService, project: str | None, version: int | None, title: str | None,
    logline: str | None, characters: Any, settings: Any, acts: Any,
) -> StartView:
    record = service.plot(project)
    if record is None:
        raise InvalidInputError("There is no plot to save yet.", hint="Press Generate plot first.")
    plot = forms.tables_to_plot(record.plot, title, logline, characters, settings, acts)
    service.save_plot(project, plot, version)
    return start_view(service, project)


# ------------------------------------------------------------------------------ editor
def editor_view(service: WebService, project: str | None) -> EditorView:
    episode, beats, draft = service.beats(project)
    rows = [_beat_row(b) for b in beats]
    accepted = [
        (f"{b.episode}-{b.index} {b.beat.location}", b.id) for b in service.accepted(project)
    ]
    return EditorView(
        heading=f"### Episode {episode}",
        draft_label=(
            f"#### Draft beat {draft.episode}-{draft.index} · version {draft.version}"
            if draft else "#### No draft — press **Next beat** to design the next beat"
        ),
        beats=rows,
        fields=forms.beat_to_fields(draft.beat if draft else None),
        beat_id=draft.id if draft else None,
        version=draft.version if draft else None,
        history=service.history(project),
        accepted=accepted,
    )


def _beat_row(b: BeatRecord) -> list[str]:
    what = "; ".join(b.beat.events)
    return [f"{b.episode}-{b.index}", b.status, b.beat.location, b.beat.time, what]


def next_beat(
    service: WebService, project: str | None, progress: Progress | None = None
) -> EditorView:
    service.next_beat(project, progress)
    return editor_view(service, project)


def save_edit(
    service: WebService, project: str | None, beat_id: int | None, version: int | None,
    fields: dict[str, str | None],
) -> EditorView:
    if beat_id is None:
        raise InvalidInputError("There is no draft beat to edit.", hint="Press Next beat first.")
    base = service.agent(project).store.beat(int(beat_id)).beat
    beat = forms.fields_to_beat(base, fields)
    service.edit_beat(project, int(beat_id), version, beat)
    return editor_view(service, project)


def regenerate(
    service: WebService, project: str | None, beat_id: int | None, version: int | None,
    instruction: str | None, progress: Progress | None = None,
) -> EditorView:
    text = forms.check_length("The instruction", instruction, forms.MAX_INSTRUCTION_CHARS)
    service.regenerate(project, beat_id, version, text.strip(), progress)
    return editor_view(service, project)


def suggest(service: WebService, project: str | None, beat_id: int | None) -> str:
    hits = service.suggest(project, beat_id)
    if not hits:
        return "_No suggestions: the cliché database has nothing close._"
    lines = []
    for h in hits:
        summary = getattr(h, "summary", str(h))
        trope = getattr(h, "trope", "")
        hook = getattr(h, "hook", "")
        lines.append(f"- **{trope}** — {summary}" + (f" _(hook: {hook})_" if hook else ""))
    return "\n".join(lines)


def accept(
    service: WebService, project: str | None, beat_id: int | None, version: int | None,
    progress: Progress | None = None,
) -> EditorView:
    service.accept(project, beat_id, version, progress)
    return editor_view(service, project)


def undo(service: WebService, project: str | None) -> EditorView:
    service.undo(project)
    return editor_view(service, project)


def redo(service: WebService, project: str | None) -> EditorView:
    service.redo(project)
    return editor_view(service, project)


def switch_branch(service: WebService, project: str | None, node_id: str | None) -> EditorView:
    if not node_id:
        raise InvalidInputError("Pick a branch to switch to.", hint="Regenerate after an undo.")
    service.switch(project, node_id)
    return editor_view(service, project)


def load_prose(service: WebService, project: str | None, beat_id: int | None) -> str:
    if beat_id is None:
        return ""
    return service.agent(project).store.beat(int(beat_id)).prose or ""


def write_prose(service: WebService, project: str | None, beat_id: int | None) -> Iterator[str]:
    if beat_id is None:
        raise InvalidInputError("Pick an accepted beat first.", hint="Accept a beat, then pick it.")
    yield from service.write_prose(project, int(beat_id))


def save_prose(
    service: WebService, project: str | None, beat_id: int | None, prose: str | None
) -> str:
    text = forms.check_length("The prose", prose, forms.MAX_PROSE_CHARS)
    if not text.strip():
        raise InvalidInputError("The prose is empty.", hint="Write or generate it first.")
    record = service.save_prose(project, None if beat_id is None else int(beat_id), text)
    return f"Saved the prose of beat {record.episode}-{record.index} ({len(text):,} characters)."


# ------------------------------------------------------------------------------ export
def _episode_bound(value: float | int | None) -> int | None:
    if value is None or value == 0:
        return None
    if value < 0 or int(value) != value:
        raise InvalidInputError(f"Episode numbers are whole numbers from 1 up, got {value}.")
    return int(value)


def export_file(
    service: WebService, project: str | None, fmt: str | None, first: float | None,
    last: float | None, filename: str | None,
) -> str:
    """Write the export; returns the file's path (served to the browser)."""
    name = forms.check_length("The file name", filename, 200).strip() or None
    path = service.export(
        project, fmt or "txt", _episode_bound(first), _episode_bound(last), name
    )
    return str(path)


def send_email(
    service: WebService, project: str | None, address: str | None, fmt: str | None,
    first: float | None, last: float | None,
) -> str:
    to = service.email(
        project, address or "", fmt or "epub", _episode_bound(first), _episode_bound(last)
    )
    return f"Sent the {fmt or 'epub'} export to {to}."
