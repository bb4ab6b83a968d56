"""The web app's event handlers: plain functions over a :class:`ApplicationService`.

Each takes the service and the values of the page's inputs and returns plain values (strings,
table rows, dataclasses) for the outputs; the ``aizac.web.tab_*`` builders only wire them to
components. Errors meant for the writer are :class:`~aizac.errors.AizacError` subclasses; the UI
layer shows them in the status area. Nothing here imports Gradio.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aizac.application.exports import ExportResult
from aizac.application.service import ApplicationService, HistoryView, ImportReport
from aizac.errors import InvalidInputError
from aizac.export.render import escape_markdown, escape_markdown_cell, escape_markdown_lines
from aizac.text import Text, Verbatim
from aizac.web import forms
from aizac.web.labels import Labels
from aizac.writer.project import BeatRecord
from aizac.writer.prompts import LANGUAGES
from aizac.writer.schemas import STAGES

if TYPE_CHECKING:
    from aizac.continuity.serial_report import SerialReport, Spot
    from aizac.manuscript.preview import Adjustment, ManuscriptPreview

log = logging.getLogger(__name__)

Progress = Callable[[Text], None]
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
    title: str
    logline: str
    characters: list[list[str]]
    settings: list[list[str]]
    acts: list[list[str]]
    cliches: str
    plot_version: int | None
    planned_episodes: int = 0

    def overview(self, L: Labels | None = None) -> str:
        """The read-only summary atop the Start screen (the writer's genre and keywords)."""
        L = L or Labels()
        if self.plot_version is None:
            return L["ui.plot_none"]
        # the model's title and logline and the writer's words literal ('# Episode 2', '<name>')
        title = escape_markdown(" ".join(self.title.split()), heading=True)
        return (
            f"### {title}\n\n{escape_markdown_lines(self.logline)}\n\n"
            f"**{L['ui.plot_genre']}** {escape_markdown_cell(self.genre) or '—'} · "
            f"**{L['ui.plot_keywords']}** {escape_markdown_cell(self.keywords) or '—'} · "
            f"**{L['ui.plot_episodes']}** {self.planned_episodes}"
        )


@dataclass(frozen=True)
class EditorView:
    """Everything the beat editor shows: the episode, the draft, the history, prose targets.

    ``edited`` names the draft's fields the writer wrote (:attr:`BeatRecord.written`, stored
    with the draft): they are kept (locked) when the beat is regenerated, until the writer
    unticks them. The page's checkboxes show this state; they do not hold it.
    """

    episode: int
    draft_position: str | None
    beats: list[list[str]]
    fields: dict[str, str]
    beat_id: int | None
    version: int | None
    history: HistoryView
    accepted: list[tuple[str, int]] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    has_plot: bool = True
    reused_draft: bool = False  # Next beat found a draft waiting and designed nothing
    findings: Any = None  # what the checks find in the draft (shown beside Accept)

    def history_text(self, L: Labels | None = None) -> str:
        """The path from the first step to the current one, as a numbered Markdown list."""
        L = L or Labels()
        if not self.history.path:
            return L["ui.history_empty"]
        # a step quotes the beat's first event as the model wrote it: literal
        path = [L.say(step.text(escape_markdown_cell)) for step in self.history.path]
        start = max(0, len(path) - HISTORY_SHOWN)
        # numbered lines, not a Markdown list: a list that starts at 10 drew "10." as ".0."
        # (the marker's box is as wide as one digit) and renumbered from 1 where it restarted
        lines = [f"{i}\\. {label}" for i, label in enumerate(path[start:], start + 1)]
        lines[-1] += " " + L["ui.history_here"]
        if start:
            lines.insert(0, L.t("ui.history_earlier", n=start))
        return "  \n".join(lines)

    @property
    def draft_revision(self) -> int | None:
        """The draft's revision as the writer counts it: its design, then each edit and
        regeneration on the current branch (1, 2, 3...). The stored version also counts
        every write the writer does not see as a revision (a box ticked, a lock kept), so it
        jumped (3 -> 7)."""
        if self.draft_position is None:
            return None
        kinds = ("generate", "edit", "regenerate")
        steps = sum(1 for s in self.history.path
                    if s.where == self.draft_position and s.kind in kinds)
        return steps or self.version

    @property
    def history_markdown(self) -> str:
        return self.history_text()


# ---------------------------------------------------------------------------- projects
def revision(service: ApplicationService, project: str) -> tuple[int, int]:
    """Where the project's stored state stands (:meth:`ApplicationService.revision`). A page
    whose views were drawn at another revision draws them again (:func:`aizac.web.ui.watch`)."""
    return service.revision(project)


def project_names(service: ApplicationService) -> list[str]:
    return service.list_projects()


def project_choices(service: ApplicationService, L: Labels) -> list[tuple[str, str]]:
    """The project box's choices: ``(label, name)``, a project that cannot be opened (a
    damaged file) labelled so; every other project as it is."""
    return [(L.t("ui.project_damaged", name=info.name) if info.problem is not None
             else info.name, info.name) for info in service.projects()]


def check_text(service: ApplicationService, project: str | None, L: Labels) -> str:
    """What Check found in the project, as Markdown for the status area: each damaged file
    or disagreement, and the newest backup."""
    from aizac.text import render

    report = service.check_project(project)
    if report.ok:
        lines = [L.t("ui.check.ok", name=escape_markdown_cell(report.project),
                     files=report.files, memories=report.memories)]
    else:
        lines = [L.t("ui.check.found", name=escape_markdown_cell(report.project),
                     count=len(report.findings))]
        lines += [f"- {escape_markdown_cell(render(f.text, L.language))}"
                  for f in report.findings[:20]]
    if report.newest_backup is not None:
        lines.append(L.t("ui.check.backup", file=escape_markdown_cell(report.newest_backup.name)))
    return "  \n".join(lines)


def backup_file(service: ApplicationService, project: str | None) -> str:
    """A backup of the project taken now, as the file to download."""
    return str(service.backup_project(project))


def reopened(names: Sequence[str], last: str | None) -> str | None:
    """The project a page opens on load: the one this browser had open (``last``, kept per
    browser session) while it still exists, else the newest."""
    if last and last in names:
        return last
    return names[-1] if names else None


def create_project(
    service: ApplicationService, name: str | None, genre: str | None, keywords: str | None,
    language: str | None, beats: Any = None, length: Any = None,
) -> str:
    """Create a project; returns its name. Empty keywords, a bad name or an episode length out
    of range (``beats``, ``length``: empty for the default): nothing is created."""
    from aizac.web.episodes import parse

    beats_n, length_n = parse(beats, length)
    words = forms.split_keywords(keywords)
    clean_name = forms.check_length("form.project_name", name, 64).strip()
    if not clean_name:
        raise InvalidInputError("error.project.no_name")
    lang = language or str(service.studio.settings.language)  # AIZAC_LANGUAGE, ko by default
    if lang not in LANGUAGES:
        raise InvalidInputError("error.project.language", language=lang,
                                choices=", ".join(LANGUAGES))
    genre_text = forms.check_length("form.genre", genre, 40).strip()
    try:
        agent = service.create_project(clean_name, genre=genre_text, keywords=words,
                                       language=lang, beats_per_episode=beats_n,
                                       episode_length=length_n)
    except InvalidInputError as e:
        if e.key != "error.project.exists" or not _just_made(
            service, clean_name, genre_text, words, lang
        ):
            raise
        return clean_name  # the same request again (a double click): one project, opened
    return agent.info.name


def import_files(files: Any) -> list[Path]:
    """The manuscript files an upload box holds (Gradio gives paths; nothing uploaded: none)."""
    if not files:
        return []
    items = files if isinstance(files, list) else [files]
    return [Path(str(getattr(f, "name", f))) for f in items]


def import_step(steps: Sequence[Sequence[Any]] | None) -> list[Adjustment]:
    """The writer's boundary adjustments as kept in the page (``["merge", 3]``,
    ``["split", 5, 12]``), in the order they were made."""
    from aizac.manuscript.preview import Merge, SplitAt

    out: list[Adjustment] = []
    for step in steps or []:
        out.append(Merge(int(step[1])) if step[0] == "merge" else SplitAt(int(step[1]),
                                                                          int(step[2])))
    return out


def import_adjusted(steps: Sequence[Sequence[Any]] | None, kind: str, episode: Any,
                    paragraph: Any = None) -> list[list[Any]]:
    """``steps`` with one more adjustment; an episode or paragraph that is not a whole number
    from 1 is refused here (the preview then refuses one the manuscript does not have)."""
    step: list[Any] = [kind, _from_one("ui.import.episode", episode)]
    if kind == "split":
        step.append(_from_one("ui.import.paragraph", paragraph))
    return [*map(list, steps or []), step]


def _from_one(what: str, value: Any) -> int:
    from aizac.web.episodes import parse_count

    number = parse_count(what, value)
    if number is None or number < 1:
        raise InvalidInputError("error.form.whole", field=Text(what), got=str(value or ""))
    return number


def import_preview(service: ApplicationService, files: Any,
                   steps: Sequence[Sequence[Any]] | None) -> ManuscriptPreview | None:
    """How the uploaded manuscript splits after the writer's adjustments (nothing saved);
    None when nothing is uploaded."""
    paths = import_files(files)
    if not paths:
        return None
    return service.preview_manuscript(paths, import_step(steps))


def _episode_number(value: Any) -> int | None:
    text = str(value or "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise InvalidInputError("error.report.episode", value=Verbatim(text))
    return int(text)


def continuity_report(service: ApplicationService, project: str | None, first: Any, last: Any,
                      *, reviewer: bool) -> SerialReport:
    """The continuity report of the typed episode range (empty boxes: every episode)."""
    return service.continuity_report(project, _episode_number(first), _episode_number(last),
                                     reviewer=reviewer)


def report_summary(L: Labels, report: SerialReport) -> str:
    """The line above the findings: the range, how many, how many dismissed."""
    return L.t("ui.report.summary", first=report.first, last=report.last,
               count=len(report.findings), dismissed=len(report.dismissed))


def report_rows(L: Labels, report: SerialReport) -> list[list[Any]]:
    """A row per finding: its key, category, subtype, where (episode-paragraph, beat), the
    quote, where it contradicts and that quote."""
    from aizac.continuity.serial_report import CATEGORY_KEYS, SUBTYPE_KEYS

    def where(spot: Spot | None) -> str:
        if spot is None:
            return ""
        beat = f" (#{spot.beat})" if spot.beat is not None else ""
        return f"{spot.episode}-{spot.paragraph}{beat}"

    return [[f.key, L[CATEGORY_KEYS[f.category]], L[SUBTYPE_KEYS[f.subtype]], where(f.at),
             f.at.quote, where(f.source), f.source.quote if f.source else ""]
            for f in report.findings]


def report_jump(row: Sequence[Any], column: int) -> str | None:
    """The beat id (as the prose picker holds it) a click on a report row opens: the
    contradicted words' beat when the click is on them (columns 5 and 6), else the finding's;
    ``None`` when the row names no beat."""
    cell = str(row[5] if column >= 5 else row[3]) if len(row) > 5 else ""
    found = re.search(r"\(#(\d+)\)", cell)
    return found.group(1) if found else None


def import_rows(preview: ManuscriptPreview | None) -> list[list[Any]]:
    """The preview table: episode, heading, characters, scenes, first line."""
    if preview is None:
        return []
    return [[e.number, e.heading or e.file, f"{e.characters:,}", e.scenes, e.first_line]
            for e in preview.episodes]


def import_manuscript(
    service: ApplicationService, name: str | None, genre: str | None, keywords: str | None,
    language: str | None, beats: Any, length: Any, files: Any,
    steps: Sequence[Sequence[Any]] | None,
) -> ImportReport:
    """Save the uploaded manuscript, as the preview shows it, as the new project ``name``
    (the New project form's name, genre, keywords and episode shape; an empty length takes
    the manuscript's own)."""
    from aizac.web.episodes import parse

    paths = import_files(files)
    if not paths:
        raise InvalidInputError("error.manuscript.no_text")
    clean_name = forms.check_length("form.project_name", name, 64).strip()
    if not clean_name:
        raise InvalidInputError("error.project.no_name")
    beats_n, length_n = parse(beats, length)
    genre_text = forms.check_length("form.genre", genre, 40).strip()
    return service.import_manuscript(
        clean_name, paths, import_step(steps), genre=genre_text,
        keywords=forms.split_keywords(keywords) if (keywords or "").strip() else [],
        language=language if language in LANGUAGES else None,
        beats_per_episode=beats_n, episode_length=length_n)


def _just_made(
    service: ApplicationService, name: str, genre: str, words: list[str], lang: str
) -> bool:
    """Whether project ``name`` is what this request would create and nothing was done in it
    yet (no plot): then a repeated "create" is the same creation, not a clash."""
    try:
        agent = service.agent(name)
    except Exception:  # not openable: the clash stands
        return False
    info = agent.info
    return (info.genre, info.keywords, info.language) == (genre, words, lang) and (
        agent.plot() is None)


def update_project(
    service: ApplicationService, project: str | None, genre: str | None, keywords: str | None
) -> StartView:
    """The writer changes the project's genre or keywords (the plot shows the new ones)."""
    words = forms.split_keywords(keywords)
    genre_text = forms.check_length("form.genre", genre, 40).strip()
    service.update_project(project, genre=genre_text, keywords=words)
    return start_view(service, project)


# ------------------------------------------------------------------------------- start
def start_view(service: ApplicationService, project: str | None) -> StartView:
    agent = service.agent(project)
    info = agent.info
    record = agent.plot()
    plot = record.plot if record else None
    chars, settings, acts = forms.plot_tables(plot)
    if plot is None:  # one row per stage, ready to be written by hand
        acts = [[stage, "", "1", ""] for stage in STAGES]
    return StartView(
        project=info.name,
        genre=info.genre,
        keywords=", ".join(info.keywords),
        language=info.language,
        title=plot.title if plot else "",
        logline=plot.logline if plot else "",
        characters=chars,
        settings=settings,
        acts=acts,
        cliches=record.tropes.strip() if record and record.tropes.strip() else "",
        plot_version=record.version if record else None,
        planned_episodes=plot.planned_episodes if plot else 0,
    )


def generate_plot(
    service: ApplicationService, project: str | None, progress: Progress | None = None, *,
    replace: bool = False,
) -> StartView:
    """Generate the plot; an existing plot is replaced only when the writer confirmed
    (``replace``), otherwise :class:`~aizac.errors.ConflictError` and nothing changes."""
    service.generate_plot(project, progress, replace=replace)
    return start_view(service, project)


def save_plot(
    service: ApplicationService, project: str | None, version: int | None, title: str | None,
    logline: str | None, characters: Any, settings: Any, acts: Any,
) -> StartView:
    """Save the plot tables: an edit of the generated plot, or a plot written by hand."""
    info = service.agent(project).info
    record = service.plot(project)
    plot = forms.tables_to_plot(
        record.plot if record else None, title, logline, characters, settings, acts,
        genre=info.genre or (record.plot.genre if record else ""), keywords=info.keywords,
    )
    service.save_plot(project, plot, version if record else None)
    return start_view(service, project)


# ------------------------------------------------------------------------------ editor
def editor_view(service: ApplicationService, project: str | None) -> EditorView:
    episode, beats, draft = service.beats(project)
    accepted = [
        (f"{b.episode}-{b.index} {b.beat.location}", b.id) for b in service.accepted(project)
    ]
    fields = forms.beat_to_fields(draft.beat if draft else None)
    edited = list(draft.written) if draft is not None else []
    return EditorView(
        episode=episode,
        draft_position=f"{draft.episode}-{draft.index}" if draft else None,
        beats=[_beat_row(b) for b in beats],
        fields=fields,
        beat_id=draft.id if draft else None,
        version=draft.version if draft else None,
        history=service.history(project),
        accepted=accepted,
        edited=edited,
        has_plot=service.plot(project) is not None,
        findings=_draft_findings(service, project) if draft is not None else None,
    )


def _draft_findings(service: ApplicationService, project: str | None) -> Any:
    try:
        return service.draft_findings(project)
    except Exception:  # the editor is drawn all the same; the Style tab says what failed
        log.exception("could not check the draft of %s", project)
        return None


def beat_fields(service: ApplicationService, project: str | None,
                beat_id: int) -> dict[str, str] | None:
    """The stored fields of draft ``beat_id`` as the form shows them; ``None`` when it is no
    longer a draft."""
    record = service.beat(project, beat_id)
    return forms.beat_to_fields(record.beat) if record.status == "draft" else None


def _beat_row(b: BeatRecord) -> list[str]:
    what = "; ".join(b.beat.events)
    return [f"{b.episode}-{b.index}", b.status, b.beat.location, b.beat.time, what]


def next_beat(
    service: ApplicationService, project: str | None, progress: Progress | None = None
) -> EditorView:
    """Design the next beat; a pending draft is returned as it is (``reused_draft``)."""
    from dataclasses import replace

    pending = service.pending_draft(project)
    if pending is None:
        service.next_beat(project, progress)
    return replace(editor_view(service, project), reused_draft=pending is not None)


def plan_episode(
    service: ApplicationService, project: str | None, beat_id: int | None, version: int | None,
    instruction: str | None, progress: Progress | None = None, *,
    fields: dict[str, str | None] | None = None,
) -> tuple[EditorView, list[BeatRecord]]:
    """"Plan this episode": the draft's unsaved form edits are saved first (they become the
    writer's fields, kept), then every beat left in the episode is designed as a draft; the
    view and the drafts designed."""
    text = forms.check_length("form.instruction", instruction, forms.MAX_INSTRUCTION_CHARS)
    if beat_id is not None:
        _save_pending(service, project, beat_id, version, fields)
    records = service.plan_episode(project, text.strip(), progress)
    return editor_view(service, project), records


def _save_pending(
    service: ApplicationService, project: str | None, beat_id: int | None, version: int | None,
    fields: dict[str, str | None] | None,
) -> int | None:
    """Store the form's unsaved edits of the draft first; returns the draft's version."""
    if beat_id is None:
        raise InvalidInputError("error.beat.no_draft")
    if fields is None:
        return version
    base = service.beat(project, int(beat_id)).beat
    record = service.edit_beat(project, int(beat_id), version, forms.fields_to_beat(base, fields))
    return record.version


def save_edit(
    service: ApplicationService, project: str | None, beat_id: int | None, version: int | None,
    fields: dict[str, str | None],
) -> EditorView:
    if beat_id is None:
        raise InvalidInputError("error.beat.no_draft")
    _save_pending(service, project, beat_id, version, fields)
    return editor_view(service, project)


def regenerate(
    service: ApplicationService, project: str | None, beat_id: int | None, version: int | None,
    instruction: str | None, progress: Progress | None = None, *,
    fields: dict[str, str | None] | None = None, locked: Sequence[str] | None = None,
) -> EditorView:
    """Design the draft again: unsaved form edits are saved first (they become the writer's
    fields), ``locked`` fields are kept as the writer has them (``None``: the fields the
    writer wrote, stored with the draft), and the instruction goes into the prompt."""
    text = forms.check_length("form.instruction", instruction, forms.MAX_INSTRUCTION_CHARS)
    version = _save_pending(service, project, beat_id, version, fields)
    service.regenerate(project, beat_id, version, text.strip(), progress,
                       locked=None if locked is None else list(locked))
    return editor_view(service, project)


def set_locks(
    service: ApplicationService, project: str | None, beat_id: int | None, version: int | None,
    locked: Sequence[str] | None, fields: dict[str, str | None] | None = None,
) -> EditorView:
    """The writer ticks or unticks a field to keep: unsaved form edits are saved first (a field
    typed in is the writer's, so it stays ticked), then exactly these fields are the draft's."""
    if beat_id is None:
        raise InvalidInputError("error.beat.no_draft")
    before = service.beat(project, int(beat_id)).written
    version = _save_pending(service, project, beat_id, version, fields)
    typed = [f for f in service.beat(project, int(beat_id)).written
             if f not in before]
    service.set_written(project, int(beat_id), version, [*(locked or []), *typed])
    return editor_view(service, project)


@dataclass(frozen=True)
class Suggestion:
    """A cliché database suggestion the writer can apply to the draft."""

    trope: str
    summary: str
    hook: str

    @property
    def markdown(self) -> str:
        trope, summary, hook = (escape_markdown_cell(x) for x in (self.trope, self.summary,
                                                                   self.hook))
        return f"**{trope}** — {summary}" + (f" _({hook})_" if hook else "")


def trope_name(trope: str, language: str) -> str:
    """A trope id (``chaebol-regression``) as the interface names it: its name in
    ``tropes.toml`` for ``ko``/``zh``, the id in words otherwise (or for a trope not listed)."""
    return _trope_names().get(language, {}).get(trope) or trope.replace("-", " ")


@functools.cache
def _trope_names() -> dict[str, dict[str, str]]:
    import tomllib
    from pathlib import Path

    with (Path(__file__).with_name("tropes.toml")).open("rb") as f:
        return tomllib.load(f)


def suggest(service: ApplicationService, project: str | None, beat_id: int | None,
            language: str = "en") -> list[Suggestion]:
    """The cliché database's next beats for the draft, each trope named in ``language``."""
    return [
        Suggestion(trope_name(str(getattr(h, "trope", "")), language),
                   str(getattr(h, "summary", h)), str(getattr(h, "hook", "") or ""))
        for h in service.suggest(project, beat_id)
    ]


def use_suggestion(fields: dict[str, str], suggestion: Suggestion) -> dict[str, str]:
    """The form with the suggestion added as an event (and its hook as a set-up), unsaved."""
    out = dict(fields)
    for name, item in (("events", suggestion.summary), ("sets_up", suggestion.hook)):
        lines = [x for x in (out.get(name) or "").splitlines() if x.strip()]
        if item and item not in lines:
            out[name] = "\n".join([*lines, item])
    return out


def accept(
    service: ApplicationService, project: str | None, beat_id: int | None, version: int | None,
    progress: Progress | None = None, *, fields: dict[str, str | None] | None = None,
) -> EditorView:
    """Make the draft canon; unsaved form edits are saved first so they are what is accepted."""
    version = _save_pending(service, project, beat_id, version, fields)
    service.accept(project, beat_id, version, progress)
    return editor_view(service, project)


def undo(service: ApplicationService, project: str | None) -> EditorView:
    service.undo(project)
    return editor_view(service, project)


def redo(service: ApplicationService, project: str | None) -> EditorView:
    service.redo(project)
    return editor_view(service, project)


def switch_branch(
    service: ApplicationService, project: str | None, node_id: str | None
) -> EditorView:
    if not node_id:
        raise InvalidInputError("error.history.pick_branch")
    service.switch(project, node_id)
    return editor_view(service, project)


def load_prose(service: ApplicationService, project: str | None, beat_id: int | None) -> str:
    if beat_id is None:
        return ""
    return service.beat(project, int(beat_id)).prose or ""


def write_prose(
    service: ApplicationService, project: str | None, beat_id: int | None
) -> Iterator[str]:
    if beat_id is None:
        raise InvalidInputError("error.prose.pick_beat")
    yield from service.write_prose(project, int(beat_id))


def write_episode(
    service: ApplicationService, project: str | None, beat_id: int | None
) -> Iterator[str]:
    """"Write this episode": the prose of the selected beat's episode (its accepted beats
    that have none), the text so far after each chunk."""
    if beat_id is None:
        raise InvalidInputError("error.prose.pick_beat")
    yield from service.write_episode(project, service.beat(project, int(beat_id)).episode)


def save_prose(
    service: ApplicationService, project: str | None, beat_id: int | None, prose: str | None
) -> BeatRecord:
    text = forms.check_length("form.prose", prose, forms.MAX_PROSE_CHARS)
    if not text.strip():
        raise InvalidInputError("error.prose.empty_save")
    return service.save_prose(project, None if beat_id is None else int(beat_id), text)


# ------------------------------------------------------------------------------ export
def _episode_bound(value: float | int | None) -> int | None:
    if value is None or value == 0:
        return None
    if value < 0 or int(value) != value:
        raise InvalidInputError("error.export.episode_bound", got=value)
    return int(value)


def export_file(
    service: ApplicationService, project: str | None, fmt: str | None, first: float | None,
    last: float | None, filename: str | None,
) -> ExportResult:
    """Write the export (``.target`` is the file's path, served to the browser)."""
    name = forms.check_length("form.file_name", filename, 200).strip() or None
    return service.export(
        project, fmt or "txt", _episode_bound(first), _episode_bound(last), name
    )


def send_email(
    service: ApplicationService, project: str | None, address: str | None, fmt: str | None,
    first: float | None, last: float | None,
) -> ExportResult:
    return service.email(
        project, address or "", fmt or "epub", _episode_bound(first), _episode_bound(last)
    )
