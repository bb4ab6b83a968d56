"""Story commands: new, plot, beat, write, ask, export, projects, demo.

Commands act on the current project (the one last used, recorded in the data directory) or on
``--project NAME``. Errors print one line and a hint and exit with status 1
(:mod:`aizac.cli.errors`). Each command is a module-level function; :func:`register` adds them
to an app with the Studio factory in the click context (tests pass one that injects fakes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from aizac.cli.episode import BeatsOpt, LengthOpt
from aizac.cli.errors import friendly
from aizac.cli.say import cli_language, say
from aizac.cli.studio import StudioFactory, data_home, list_projects, make_studio, story_service
from aizac.errors import InvalidInputError
from aizac.text import Text, describe, render

if TYPE_CHECKING:  # the writer (Chroma, LangChain) is imported only by commands that use it
    from aizac.application.service import ApplicationService
    from aizac.settings import Settings
    from aizac.writer.project import BeatRecord
    from aizac.writer.service import Studio

ProjectOpt = Annotated[
    str | None, typer.Option("--project", "-p", help="Project name (default: the current one).")
]


def _show_beat(record: BeatRecord) -> None:
    say("cli.story.beat_head", id=record.id, status=record.status, version=record.version)
    typer.echo(record.beat.render())
    for p in record.new_characters:
        say("cli.story.new_character", character=p.render())


@friendly
def new_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Project name (letters, digits, - _ . space).")],
    keywords: Annotated[
        str, typer.Option("--keywords", "-k",
                          help='Comma-separated, in any language, e.g. "regression, revenge".')
    ],
    genre: Annotated[str, typer.Option(help="Genre, e.g. modern fantasy or romance.")] = "",
    lang: Annotated[str | None, typer.Option("--lang", help="ko, en or zh.")] = None,
    beats_per_episode: BeatsOpt = None,
    episode_length: LengthOpt = None,
) -> None:
    """Create a project and make it current (episode length: see `aizac length`)."""
    agent = make_studio(ctx).create(
        name, keywords, genre=genre, language=lang,
        beats_per_episode=beats_per_episode, episode_length=episode_length,
    )
    info = agent.info
    say("cli.story.created", name=info.name, lang=info.language, path=str(info.path))
    _notices(agent)
    say("cli.story.next_plot")


@friendly
def projects_command(ctx: typer.Context) -> None:
    """List projects (the current one is marked with *) and say where they are kept."""
    from aizac.settings_fast import where_data_lives

    if callable(ctx.obj):
        studio = make_studio(ctx)
        current, infos = studio.current_name(), studio.projects()
        data_dir = studio.settings.data_dir
    else:  # the product path reads the project folders only: no models, no Chroma imported
        current, infos = list_projects()
        data_dir = data_home()
    typer.echo(render(where_data_lives(data_dir), cli_language()), err=True)
    if not infos:
        say("cli.story.no_projects")
    hints: list[str] = []
    for info in infos:
        mark = "*" if info.name == current else " "
        if info.problem is not None:  # listed, said what is wrong; the others work
            said = describe(info.problem, cli_language(), surface="cli")
            say("cli.story.damaged" if info.damaged else "cli.story.unreadable",
                name=info.name, problem=said.message)
            if said.hint and said.hint not in hints:
                hints.append(said.hint)
            continue
        typer.echo(f"{mark} {info.name}\t{info.language}\t{', '.join(info.keywords)}")
    for hint in hints:
        say("cli.story.hint", err=True, hint=hint)


@friendly
def plot_command(
    ctx: typer.Context,
    project: ProjectOpt = None,
    force: Annotated[bool, typer.Option(help="Replace the existing plot.")] = False,
    from_story: Annotated[bool, typer.Option(
        "--from-story", help="Draft the plot of the story so far (an imported manuscript read "
                             "into memory) instead of a new one from the keywords.")] = False,
) -> None:
    """Generate the plot from the project's keywords (or show it)."""
    service, name = story_service(ctx, project)
    _notices(service.agent(name))
    record = service.plot(name)
    if from_story:
        record = service.draft_plot_from_story(name, _progress, force=force)
    elif record is None or force:
        record = service.generate_plot(name, _progress, replace=True)
    p = record.plot
    say("cli.story.plot_head", title=p.title, logline=p.logline, genre=p.genre,
        keywords=", ".join(p.keywords))
    for c in p.characters:
        typer.echo(f"- {c.name} ({c.role}): {c.profile}")
    for s in p.settings:
        typer.echo(f"* {s.name}: {s.description}")
    for act in p.acts:
        say("cli.story.act", stage=act.stage, episodes=act.episodes, goal=act.goal)
        for line in act.key_events:
            typer.echo(f"    - {line}")


FINDING_KEYS = {"error": "cli.story.finding.error", "warning": "cli.story.finding.warning"}
"""How the command line says what the check found in a draft: a finding of the draft, not a
failure of the command (an ``error:`` line always comes with a non-zero exit)."""


def _show_dialogue_findings(service: ApplicationService, name: str) -> None:
    """The draft's dialogue findings (a flipped speech level, a swapped form of address ...)."""
    report = service.draft_findings(name)
    language = str(service.studio.settings.ui_language)
    for finding in report.findings if report is not None else []:
        say(FINDING_KEYS.get(finding.severity, FINDING_KEYS["warning"]), language=language,
            message=finding.message)


@friendly
def beat_command(
    ctx: typer.Context,
    project: ProjectOpt = None,
    accept: Annotated[bool, typer.Option(help="Accept the beat into canon.")] = False,
    reject: Annotated[bool, typer.Option(help="Reject the current draft.")] = False,
    regenerate: Annotated[
        str | None, typer.Option(help="Design the draft again, with this instruction.")
    ] = None,
    plan_episode: Annotated[bool, typer.Option(
        "--plan-episode", help="Design every beat left in this episode (one call when the "
        "planner can; --regenerate gives the instruction); each is still accepted alone.",
    )] = False,
) -> None:
    """Design the next beat (or show the pending draft); --accept commits the draft shown
    before (it never designs one: a beat becomes canon only after the writer has read it)."""
    if accept and (plan_episode or regenerate is not None):
        raise InvalidInputError("error.beat.accept_unread")
    service, name = story_service(ctx, project)
    agent = service.agent(name)
    agent.require_plot()
    _notices(agent)
    draft = service.pending_draft(name)
    if accept and draft is None:
        raise InvalidInputError("error.beat.no_draft")
    if reject:
        if draft is None:
            say("cli.story.no_draft")
            return
        service.reject(name, draft.id, draft.version)
        say("cli.story.rejected", id=draft.id)
        return
    if plan_episode:
        drafts = service.plan_episode(name, regenerate or "", _progress)
        for later in drafts[1:]:
            _show_beat(later)
        draft = drafts[0]
    elif regenerate is not None and draft is not None:
        draft = service.regenerate(name, draft.id, draft.version, regenerate, _progress)
    elif draft is None:
        draft = service.next_beat(name, _progress, instruction=regenerate or "")
    _show_dialogue_findings(service, name)  # before it is accepted: the writer decides
    if accept:
        draft = service.accept(name, draft.id, draft.version, _progress)
    _show_beat(draft)
    if draft.status == "accepted":
        say("cli.story.summary_next", summary=draft.summary)


@friendly
def write_command(
    ctx: typer.Context,
    project: ProjectOpt = None,
    beat_id: Annotated[int | None, typer.Option("--beat", help="Beat id.")] = None,
    episode: Annotated[int | None, typer.Option(
        "--episode", min=1, help="Write the prose of this episode's accepted beats that have "
        "none (one call when the writer model declares larger replies).")] = None,
) -> None:
    """Write (stream) the prose of the last accepted beat, or of an episode (--episode)."""
    if episode is not None and beat_id is not None:
        raise InvalidInputError("error.prose.beat_or_episode")
    service, name = story_service(ctx, project)
    _notices(service.agent(name))
    texts = (service.write_prose(name, beat_id) if episode is None
             else service.write_episode(name, episode))
    _echo_stream(texts)


@friendly
def ask_command(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="A question about the story's memory.")],
    project: ProjectOpt = None,
) -> None:
    """Ask the project's memory (self-query: the model builds the filter)."""
    from aizac.writer.rules import check_question

    agent = make_studio(ctx).open(project)
    _notices(agent)
    docs = agent.ask(check_question(question))
    if not docs:
        say("cli.story.no_answer")
    for d in docs:
        meta = getattr(d, "metadata", {}) or {}
        typer.echo(f"- [{meta.get('tag', '?')}] {getattr(d, 'page_content', d)}")


@friendly
def export_command(
    ctx: typer.Context,
    out: Annotated[
        str, typer.Option("--out", "-o", help="File to write, or a folder (ending in /).")
    ],
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", help="txt, md, epub, docx or zip (default: --out's "
                                          "extension)."),
    ] = None,
    project: ProjectOpt = None,
) -> None:
    """Export the accepted prose as txt, md, epub, docx (Word) or zip (one text file per episode
    for upload, each episode's length checked against the project's target). The EPUB has the
    cover and the illustrations placed in the gallery (the free typographic cover when none is
    placed)."""
    from aizac.export.files import export_target

    directory, filename, kind = export_target(out, fmt)
    service, name = story_service(ctx, project)
    result = service.export(name, kind, None, None, filename, directory=directory)
    say("cli.story.wrote", path=result.target)
    for note in result.lengths.notes() if result.lengths is not None else []:
        say(note.key, **note.params)


def demo_defaults(language: str) -> tuple[str, str]:
    """``(keywords, genre)`` the demo writes about in ``language`` (``cli/demo.toml``;
    English otherwise)."""
    import tomllib
    from importlib import resources

    table = tomllib.loads(resources.files("aizac.cli").joinpath("demo.toml").read_text("utf-8"))
    row = table.get(language, table["en"])
    return str(row["keywords"]), str(row["genre"])


@friendly
def demo_command(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for data and output.")],
    keywords: Annotated[str | None, typer.Option(
        "--keywords", "-k", help="Default: the demo's own (cli/demo.toml).")] = None,
    genre: Annotated[str | None, typer.Option(help="Default: the demo's own.")] = None,
    lang: Annotated[str | None, typer.Option(
        "--lang", help="ko, en or zh (default: AIZAC_LANGUAGE, ko unless set).")] = None,
    # Two beats by default: the second is designed and written from what the first put in
    # memory, which is the pipeline the demo shows; on the embedded model a third beat added a
    # third to a run's time on a busy 2-core machine (bench/demo.py).
    beats: Annotated[int, typer.Option(min=1, max=12, help="Beats in the episode.")] = 2,
    seed: Annotated[
        int | None, typer.Option(min=0, help="Sampling seed of the embedded model.")
    ] = None,
) -> None:
    """Run the whole pipeline offline: keywords -> plot -> one episode -> prose -> text.

    On the embedded demo model, which writes English only, a Korean or Chinese demo says so
    first and runs the same pipeline in English."""

    start = time.perf_counter()
    studio = make_studio(ctx, data_dir=out / "aizac-data", beats_per_episode=beats)
    studio.settings = demo_settings(studio.settings, seed)
    # the story language's one rule: AIZAC_LANGUAGE (ko by default), as for `aizac new`
    lang, keywords, genre = _demo_language(studio, lang or str(studio.settings.language),
                                           keywords, genre)
    name = time.strftime("demo-%Y%m%d-%H%M%S")
    _progress(f"project {name} in {out / 'aizac-data'}")
    from aizac.application.exports import export_dir_for
    from aizac.application.service import ApplicationService
    from aizac.writer.service import parse_keywords

    service = ApplicationService(studio, export_dir=export_dir_for(studio.settings))
    agent = service.create_project(name, genre=genre, language=lang,
                                   keywords=parse_keywords(keywords))
    record = service.generate_plot(name, _progress)
    _progress(f"plot: {record.plot.title} — {record.plot.logline}")
    for i in range(beats):
        draft = service.next_beat(name, _progress)
        service.accept(name, draft.id, draft.version, _progress)
        _progress(f"beat {i + 1}/{beats} accepted; writing prose (writer)")
        _echo_stream(service.write_prose(name, draft.id))
    paths = [agent.export(f, out) for f in ("txt", "md")]
    elapsed = time.perf_counter() - start
    usage = getattr(studio.router, "usage", None)
    if usage is not None:
        for role in ("planner", "extractor", "writer"):
            t = usage.totals(role)
            _progress(
                f"{role}: {t.calls} calls, {t.prompt_tokens} prompt + "
                f"{t.completion_tokens} completion tokens, {t.latency_s:.1f} s"
            )
        calls = usage.totals().calls
        say("cli.demo.calls", err=True, calls=calls, beats=beats, per=f"{calls / beats:.1f}")
        show_split(usage)
    _progress(f"done in {elapsed:.1f} s: " + ", ".join(str(p) for p in paths))


def demo_settings(settings: Settings, seed: int | None) -> Settings:
    """The settings ``aizac demo`` runs with: ``settings`` with ``seed``, if given.

    The prose keeps the chat budget a first session has (``AIZAC_LOCAL_MAX_TOKENS``) and a
    plot its structured one (``AIZAC_STRUCTURED_MAX_TOKENS``, grown when a reply is cut). The
    demo once raised the chat budget to 1536 tokens for its plot, which by then had its own
    budget, so only the prose grew: on the embedded model that was about 800 s of a 1300 s run
    on this 2-core machine (bench/demo.py); a beat cut at its budget keeps its whole sentences.
    """
    return settings if seed is None else settings.model_copy(update={"seed": seed})


def show_split(usage: Any) -> None:
    """The usage log per model that answered (where a split routing sent the work)."""
    from aizac.llm.model_config import redact

    for model, (t, roles) in usage.by_model().items():
        say("cli.usage.model", err=True, model=redact(model), calls=t.calls,
            roles=", ".join(roles), prompt=t.prompt_tokens, completion=t.completion_tokens)


def _demo_language(
    studio: Studio, lang: str, keywords: str | None, genre: str | None
) -> tuple[str, str, str]:
    """``(language, keywords, genre)`` the demo runs with: ``lang`` and its defaults, or, when
    the bundled embedded model serves the planner or writer and cannot write ``lang``, English
    (said up front, in ``lang``, with a local model server that answered, if any)."""
    from aizac.text import Text
    from aizac.writer.model_policy import cannot_write

    settings = studio.settings
    if settings.local_model_path is not None or not cannot_write(studio.router, lang):
        default_keywords, default_genre = demo_defaults(lang)
        return lang, keywords or default_keywords, genre or default_genre
    english_keywords, english_genre = demo_defaults("en")
    keywords = keywords or english_keywords
    say("cli.demo.in_english", err=True, language=lang, lang=Text(f"language.{lang}"),
        keywords=keywords)
    from aizac.llm.discovery import Discovery, usable_specs

    search = Discovery.from_settings(settings)
    specs = usable_specs(search.wait()) if search is not None else []
    if specs:  # at most the search's time limit, once, before a run of minutes
        say("cli.demo.found_server", err=True, language=lang, spec=specs[0])
    return "en", keywords, genre or english_genre


def _echo_stream(texts: Iterator[str]) -> None:
    """Print a streamed generation as it comes (the service yields the text so far)."""
    shown = ""
    for text in texts:
        typer.echo(text[len(shown):], nl=False)
        shown = text
    typer.echo("")


def _progress(message: Text | str) -> None:
    said = render(message, "en") if isinstance(message, Text) else message  # the CLI: English
    typer.echo(f"» {said}", err=True)



def _notices(agent: Any) -> None:
    """Say, in the project's language, when a ko/zh project is written by the small embedded
    demo model (:func:`aizac.writer.model_policy.demo_model_note`); say what to run when its
    memory still uses other embeddings than the configured ones."""
    from aizac.text import render
    from aizac.writer.model_policy import demo_model_note
    from aizac.writer.service import memory_notice

    note = demo_model_note(agent.router, agent.info.language)
    if note is not None:  # the project's language: the note is for the one writing it
        typer.echo(render(note, agent.info.language), err=True)
    memory = memory_notice(agent)
    if memory is not None:
        typer.echo(render(memory, "en"), err=True)


@friendly
def reindex_command(ctx: typer.Context, project: ProjectOpt = None) -> None:
    """Re-embed the project's memory with AIZAC_EMBEDDING, in place (resumable: run it again
    after an interruption)."""
    from aizac.llm.embeddings import embedding_label

    studio = make_studio(ctx)
    name = studio.open(project).info.name
    result = studio.reindex(name, progress=lambda text: _progress(render(text, "en")))
    key = "ui.memory.reindex_done" if result.switched else "ui.memory.reindex_current"
    typer.echo(render(Text(key, project=name, rows=result.rows, embedded=result.embedded,
                           target=embedding_label(result.target)), "en"))


COMMANDS: dict[str, Callable[..., None]] = {
    "new": new_command,
    "projects": projects_command,
    "plot": plot_command,
    "beat": beat_command,
    "write": write_command,
    "ask": ask_command,
    "export": export_command,
    "demo": demo_command,
    "reindex": reindex_command,
}


def register(app: typer.Typer, studio_factory: StudioFactory | None = None) -> None:
    """Add the story commands to ``app``; tests pass a factory that injects fake models."""
    settings = {"obj": studio_factory} if studio_factory is not None else {}
    for name, command in COMMANDS.items():
        app.command(name, context_settings=settings)(command)
