"""``aizac style`` (the writer's style profile and the drafts' drift) and ``aizac voices`` (the
voice cards and how each character speaks to each other one; ``--set`` records the writer's
own word on a pair). Text comes from the catalogue in ``--lang`` (default: the UI language)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from aizac.cli.errors import friendly

if TYPE_CHECKING:
    from aizac.cli.story import StudioFactory

ProjectOpt = Annotated[
    str | None, typer.Option("--project", "-p", help="Project (default: the current one).")
]
LangOpt = Annotated[
    str | None, typer.Option("--lang", help="Language of the output: en, ko or zh.")
]


def _open(ctx: typer.Context, project: str | None, lang: str | None) -> tuple[Any, str]:
    from aizac.cli.story import default_studio

    factory: Any = ctx.obj if callable(ctx.obj) else default_studio
    studio = factory()
    agent = studio.open(project)
    return agent, lang or str(getattr(studio.settings, "ui_language", "en"))


@friendly
def style_command(
    ctx: typer.Context,
    project: ProjectOpt = None,
    scope: Annotated[
        str | None,
        typer.Option(help="Learn the style from 'project' (this one) or 'writer' (all yours)."),
    ] = None,
    chart: Annotated[
        Path | None, typer.Option(help="Save the style chart as a PNG file.")
    ] = None,
    lang: LangOpt = None,
) -> None:
    """Show your style profile (from your own text and edits) and how far the model's drafts
    of each episode drift from it."""
    from aizac.style.view import drift_lines, profile_table, summary, word_lines
    from aizac.text import Text, t

    agent, language = _open(ctx, project, lang)
    style = agent.style
    if scope is not None:
        done = style.book.set_scope(scope)
        typer.echo(t("ui.style.scope_set", language, scope=Text(f"style.scope.{done}")))
    profile = style.profile()
    reports = style.drifts()
    typer.echo(t("cli.style.heading", language, project=agent.info.name,
                 summary=summary(profile, style.book.scope, language)))
    headers, rows = profile_table(profile, reports[-1] if reports else None, language)
    if rows:
        width = max(len(r[0]) for r in [headers, *rows]) + 2
        for row in [headers, *rows]:
            typer.echo(f"  {row[0]:<{width}} {row[1]:>8} {row[2]:>10}")
        for line in word_lines(profile, language):
            typer.echo(line)
        typer.echo(t("ui.style.drift", language))
        for line in drift_lines(reports, language):
            typer.echo(f"  {line}")
    if chart is not None:
        from aizac.style.chart import style_figure
        from aizac.style.view import chart_labels

        fig = style_figure(reports[-1] if reports else None, reports, chart_labels(language))
        fig.savefig(chart, format="png")
        typer.echo(t("cli.style.chart_saved", language, path=str(chart)))


@friendly
def voices_command(
    ctx: typer.Context,
    project: ProjectOpt = None,
    set_pair: Annotated[
        tuple[str, str] | None,
        typer.Option("--set", help="SPEAKER LISTENER: set how one speaks to the other."),
    ] = None,
    level: Annotated[
        str, typer.Option(help="With --set: formal, polite or plain.")
    ] = "",
    address: Annotated[str, typer.Option(help="With --set: what the speaker calls them.")] = "",
    history: Annotated[bool, typer.Option(help="Show each pair's earlier voices.")] = False,
    lang: LangOpt = None,
) -> None:
    """Show the voice cards and how each character speaks to each other one (speech level and
    form of address), learned from accepted dialogue; --set records your own word on a pair."""
    from aizac.dialogue.cards import PairVoice, pair_text
    from aizac.dialogue.memory import set_voice
    from aizac.dialogue.view import card_headers, history_lines, pair_headers, voices
    from aizac.text import t

    agent, language = _open(ctx, project, lang)
    if set_pair is not None:
        ids = set_voice(agent.memory, set_pair[0], set_pair[1], level=level, address=address,
                        language=agent.info.language, chapter=agent.next_position()[0])
        if ids:
            typer.echo(t("ui.voices.saved", language, text=agent.memory.get(ids[0]).text))
        else:
            typer.echo(t("ui.voices.unchanged", language))
    cards, pairs = voices(agent.memory)
    typer.echo(t("cli.voices.heading", language, project=agent.info.name))
    if not cards and not pairs:
        typer.echo(t("ui.voices.none", language))
        return
    if cards:
        typer.echo(t("ui.voices.cards", language) + "  (" + " | ".join(
            card_headers(language)) + ")")
        for c in cards:
            typer.echo("  " + " | ".join([c.name, c.register or "-", ", ".join(c.tics) or "-",
                                          ", ".join(c.catchphrases) or "-", c.dialect or "-"]))
    if pairs:
        typer.echo(t("ui.voices.pairs", language) + "  (" + " | ".join(
            pair_headers(language)[:4]) + ")")
        for p in pairs:
            current = PairVoice(p.speaker, p.listener, p.level, p.address)
            typer.echo(f"  {pair_text(current, language)}")
            if history:
                for line in history_lines(p, language):
                    typer.echo(f"      {line}")


def register(app: typer.Typer, studio_factory: StudioFactory | None = None) -> None:
    """Add ``aizac style`` and ``aizac voices``; tests pass a factory that injects models."""
    settings = {"obj": studio_factory} if studio_factory is not None else {}
    app.command("style", context_settings=settings)(style_command)
    app.command("voices", context_settings=settings)(voices_command)
