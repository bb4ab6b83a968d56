"""``aizac models`` and ``aizac ask-model``: what each role runs on, and a quick streamed reply."""

from __future__ import annotations

import sys

import typer

from aizac.errors import AizacError


def _fail(error: AizacError) -> None:
    """Print one clear line (message + hint) and exit with status 1."""
    typer.echo(f"error: {error}", err=True)
    raise typer.Exit(1)


def models_command() -> None:
    """List the roles, the model spec each resolves to, and whether it is usable now."""
    from aizac.llm.router import ModelRouter
    from aizac.settings import Settings

    try:
        statuses = ModelRouter(Settings()).describe()
    except AizacError as e:
        _fail(e)
        return
    rows = [("ROLE", "SPEC", "PROVIDER", "USABLE", "REASON")]
    for s in statuses:
        spec = s.spec + (f" (fallback {s.fallback})" if s.fallback else "")
        rows.append((s.role, spec, s.provider, "yes" if s.usable else "no", s.reason))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        cells = [row[i].ljust(widths[i]) for i in range(4)]
        typer.echo("  ".join([*cells, row[4]]).rstrip())


def ask_model_command(
    role: str = typer.Argument(..., help="planner, writer, extractor or reviewer."),
    prompt: str = typer.Argument(..., help="What to ask the role's model."),
    system: str | None = typer.Option(None, "--system", "-s", help="An optional system prompt."),
    usage: bool = typer.Option(
        True, "--usage/--no-usage", help="Print tokens and latency to stderr at the end."
    ),
) -> None:
    """Stream the reply of ROLE's model to PROMPT, token by token."""
    from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

    from aizac.llm.router import ModelRouter
    from aizac.settings import Settings

    messages: list[BaseMessage] = [HumanMessage(content=prompt)]
    if system:
        messages.insert(0, SystemMessage(content=system))
    printed = False
    try:
        router = ModelRouter(Settings())
        for piece in router.stream(role, messages):
            sys.stdout.write(piece)
            sys.stdout.flush()
            printed = True
    except AizacError as e:
        if printed:
            sys.stdout.write("\n")
        _fail(e)
        return
    sys.stdout.write("\n")
    sys.stdout.flush()
    if usage:
        for r in router.usage.records:
            approx = "~" if r.estimated else ""
            typer.echo(
                f"[{r.role} · {r.model} · {approx}{r.prompt_tokens} prompt + "
                f"{approx}{r.completion_tokens} completion tokens · {r.latency_s:.2f} s]",
                err=True,
            )


def register(app: typer.Typer) -> None:
    """Add ``models`` and ``ask-model`` to the CLI."""
    app.command("models")(models_command)
    app.command("ask-model")(ask_model_command)
