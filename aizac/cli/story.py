"""Story commands: new, plot, beat, write, ask, export, projects, demo.

Commands act on the current project (the one last used, recorded in the data directory) or on
``--project NAME``. Errors print one line and a hint and exit with status 1
(:mod:`aizac.cli.errors`). Each command is a module-level function; :func:`register` adds them
to an app with the Studio factory in the click context (tests pass one that injects fakes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from aizac.cli.episode import BeatsOpt, LengthOpt
from aizac.cli.errors import friendly
from aizac.text import Text, render

if TYPE_CHECKING:  # the writer (Chroma, LangChain) is imported only by commands that use it
    from aizac.writer.project import BeatRecord, ProjectInfo
    from aizac.writer.service import Studio

StudioFactory = Callable[..., "Studio"]
DEMO_MAX_TOKENS = 1536

ProjectOpt = Annotated[
    str | None, typer.Option("--project", "-p", help="Project name (default: the current one).")
]


def default_studio(data_dir: Path | None = None, **options: Any) -> Studio:
    """The product Studio: settings from the environment, models from the settings."""
    from aizac.settings import get_settings
    from aizac.writer.service import Studio

    settings = get_settings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    return Studio(settings, **options)


def _make(ctx: typer.Context, **options: Any) -> Studio:
    """The Studio from the factory :func:`register` put in the context (else the product one)."""
    factory = ctx.obj if callable(ctx.obj) else default_studio
    studio: Studio = factory(**options)
    return studio


def _list_projects() -> tuple[str | None, list[ProjectInfo]]:
    """``(current project, every project)`` read straight from the data directory, as
    :meth:`Studio.current_name` and :meth:`Studio.projects` do, without building a Studio."""
    from aizac.settings_fast import quick_data_dir
    from aizac.writer.project import ProjectStore

    data_dir = quick_data_dir()
    database: str | None = None
    if data_dir is None:  # something else is configured: read (and validate) every setting
        from aizac.settings import get_settings

        settings = get_settings()
        data_dir, database = settings.data_dir, settings.database
    root = data_dir / "projects"
    if database is not None:  # the projects of the PostgreSQL database (AIZAC_DATABASE_URL)
        from aizac.storage.catalog import Catalog
        from aizac.storage.database import server_database

        catalog = Catalog(server_database(database))
        stores = [ProjectStore.open(root, n, catalog=catalog) for n in catalog.names()]
    else:
        stores = [ProjectStore(root / n) for n in ProjectStore.list_names(root)]
    infos = sorted((store.info() for store in stores), key=lambda i: i.created_at)
    try:
        current: str | None = (data_dir / "current_project").read_text(encoding="utf-8").strip()
    except OSError:
        current = None
    names = {i.name for i in infos}
    return (current if current in names else None), infos


def _show_beat(record: BeatRecord) -> None:
    typer.echo(f"beat #{record.id} [{record.status}, v{record.version}]")
    typer.echo(record.beat.render())
    for p in record.new_characters:
        typer.echo(f"new character: {p.render()}")


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
    agent = _make(ctx).create(
        name, keywords, genre=genre, language=lang,
        beats_per_episode=beats_per_episode, episode_length=episode_length,
    )
    info = agent.info
    typer.echo(f"created project {info.name!r} ({info.language}) in {info.path}")
    _notices(agent)
    typer.echo("next: aizac plot")


@friendly
def projects_command(ctx: typer.Context) -> None:
    """List projects (the current one is marked with *)."""
    if callable(ctx.obj):
        studio = _make(ctx)
        current, infos = studio.current_name(), studio.projects()
    else:  # the product path reads the project folders only: no models, no Chroma imported
        current, infos = _list_projects()
    if not infos:
        typer.echo("no projects yet: aizac new NAME --keywords ...")
    for info in infos:
        mark = "*" if info.name == current else " "
        typer.echo(f"{mark} {info.name}\t{info.language}\t{', '.join(info.keywords)}")


@friendly
def plot_command(
    ctx: typer.Context,
    project: ProjectOpt = None,
    force: Annotated[bool, typer.Option(help="Replace the existing plot.")] = False,
) -> None:
    """Generate the plot from the project's keywords (or show it)."""
    agent = _make(ctx).open(project)
    _notices(agent)
    record = agent.plan(force=force, progress=_progress)
    p = record.plot
    typer.echo(f"# {p.title}\n{p.logline}\ngenre: {p.genre}  keywords: {', '.join(p.keywords)}")
    for c in p.characters:
        typer.echo(f"- {c.name} ({c.role}): {c.profile}")
    for s in p.settings:
        typer.echo(f"* {s.name}: {s.description}")
    for act in p.acts:
        typer.echo(f"[{act.stage}] ({act.episodes} episodes) {act.goal}")
        for line in act.key_events:
            typer.echo(f"    - {line}")


def _show_dialogue_findings(agent: Any, draft: Any) -> None:
    """The draft's dialogue findings (a flipped speech level, a swapped form of address ...)."""
    from aizac.dialogue.view import finding_lines

    report = agent.check_dialogue(draft.id)
    if report.findings:
        for line in finding_lines(report, str(getattr(agent.settings, "ui_language", "en"))):
            typer.echo(line)


@friendly
def beat_command(
    ctx: typer.Context,
    project: ProjectOpt = None,
    accept: Annotated[bool, typer.Option(help="Accept the beat into canon.")] = False,
    reject: Annotated[bool, typer.Option(help="Reject the current draft.")] = False,
    regenerate: Annotated[
        str | None, typer.Option(help="Design the draft again, with this instruction.")
    ] = None,
) -> None:
    """Design the next beat (or show the pending draft); --accept commits it."""
    agent = _make(ctx).open(project)
    agent.require_plot()
    _notices(agent)
    draft = agent.current_draft()
    if reject:
        if draft is None:
            typer.echo("no draft to reject")
            return
        agent.reject(draft.id)
        typer.echo(f"rejected beat #{draft.id}; memory unchanged")
        return
    if regenerate is not None and draft is not None:
        draft = agent.regenerate(draft.id, regenerate, progress=_progress)
    elif draft is None:
        draft = agent.next_beat(regenerate or "", progress=_progress)
    _show_dialogue_findings(agent, draft)  # before it is accepted: the writer decides
    if accept:
        draft = agent.accept(draft.id, progress=_progress)
    _show_beat(draft)
    if draft.status == "accepted":
        typer.echo(f"summary: {draft.summary}\nnext: aizac write")


@friendly
def write_command(
    ctx: typer.Context,
    project: ProjectOpt = None,
    beat_id: Annotated[int | None, typer.Option("--beat", help="Beat id.")] = None,
) -> None:
    """Write (stream) the prose of the last accepted beat."""
    agent = _make(ctx).open(project)
    _notices(agent)
    for chunk in agent.write_prose(beat_id):
        typer.echo(chunk, nl=False)
    typer.echo("")


@friendly
def ask_command(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="A question about the story's memory.")],
    project: ProjectOpt = None,
) -> None:
    """Ask the project's memory (self-query: the model builds the filter)."""
    from aizac.writer.service import check_question

    agent = _make(ctx).open(project)
    _notices(agent)
    docs = agent.ask(check_question(question))
    if not docs:
        typer.echo("nothing current in memory answers that")
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
        typer.Option("--format", "-f", help="txt, md or epub (default: --out's extension)."),
    ] = None,
    project: ProjectOpt = None,
) -> None:
    """Export the accepted prose as txt, md or epub (with the cover and the illustrations
    placed in the web app's gallery)."""
    from aizac.export.files import export_target, write_export
    from aizac.illustration.book import illustrated

    directory, name, kind = export_target(out, fmt)
    agent = _make(ctx).open(project)
    path = write_export(illustrated(agent.manuscript(), agent.store), kind, directory, name)
    agent.store.log_step("export", {"format": kind, "path": str(path)})
    typer.echo(f"wrote {path}")


@friendly
def demo_command(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for data and output.")],
    keywords: Annotated[str | None, typer.Option(
        "--keywords", "-k", help="Default: the demo's own (cli/demo.toml).")] = None,
    genre: Annotated[str | None, typer.Option(help="Default: the demo's own.")] = None,
    lang: Annotated[str, typer.Option("--lang")] = "ko",
    beats: Annotated[int, typer.Option(min=3, max=12, help="Beats in the episode.")] = 3,
) -> None:
    """Run the whole pipeline offline: keywords -> plot -> one episode -> prose -> text."""
    start = time.perf_counter()
    studio = _make(ctx, data_dir=out / "aizac-data", beats_per_episode=beats)
    if studio.settings.local_max_tokens < DEMO_MAX_TOKENS:
        # A whole plot in JSON needs more room than one chat reply's default budget.
        studio.settings = studio.settings.model_copy(update={"local_max_tokens": DEMO_MAX_TOKENS})
    name = time.strftime("demo-%Y%m%d-%H%M%S")
    _progress(f"project {name} in {out / 'aizac-data'}")
    story = _demo_story(lang)
    agent = studio.create(name, keywords or story["keywords"], genre=genre or story["genre"],
                          language=lang)
    record = agent.plan(progress=_progress)
    _progress(f"plot: {record.plot.title} — {record.plot.logline}")
    for i in range(beats):
        draft = agent.next_beat(progress=_progress)
        agent.accept(draft.id, progress=_progress)
        _progress(f"beat {i + 1}/{beats} accepted; writing prose (writer)")
        for chunk in agent.write_prose(draft.id):
            typer.echo(chunk, nl=False)
        typer.echo("")
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
    _progress(f"done in {elapsed:.1f} s: " + ", ".join(str(p) for p in paths))


def _progress(message: Text | str) -> None:
    said = render(message, "en") if isinstance(message, Text) else message  # the CLI: English
    typer.echo(f"» {said}", err=True)


def _demo_story(language: str) -> dict[str, str]:
    """The demo's keywords and genre for ``language`` (``cli/demo.toml``; English otherwise)."""
    import tomllib
    from importlib import resources

    with (resources.files("aizac.cli") / "demo.toml").open("rb") as handle:
        stories = tomllib.load(handle)
    return dict(stories.get(language, stories["en"]))


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

    studio = _make(ctx)
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
