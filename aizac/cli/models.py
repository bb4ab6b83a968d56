"""``aizac models`` (list, ``set``, ``unset``, ``key``) and ``aizac ask-model``.

Specs and keys set here are stored in the data directory (:mod:`aizac.llm.model_config`, the same
files the web app's Models panel uses); an environment variable still wins over them. Keys are
read from a hidden prompt or stdin, stored with mode 0600 and never printed.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from aizac.cli.errors import fail, friendly
from aizac.errors import AizacError, InvalidInputError
from aizac.text import render

models_app = typer.Typer(
    help="Which model serves each role; set a role's model or a provider's key.",
    invoke_without_command=True,
    no_args_is_help=False,
)


@models_app.callback()
@friendly
def models_command(ctx: typer.Context) -> None:
    """List the roles, the model spec each resolves to, and whether it is usable now."""
    if ctx.invoked_subcommand is not None:
        return
    from aizac.llm.model_config import ModelConfig, redact
    from aizac.llm.router import ModelRouter
    from aizac.settings import load_settings, setting_env_name

    settings = load_settings()
    statuses = ModelRouter(settings).describe()
    rows = [("ROLE", "SPEC", "PROVIDER", "USABLE", "REASON")]
    for s in statuses:
        spec = s.spec + (f" (fallback {s.fallback})" if s.fallback else "")
        usable = "yes" if s.usable else "no"
        rows.append((s.role, redact(spec), s.provider, usable, redact(render(s.reason, "en"))))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        cells = [row[i].ljust(widths[i]) for i in range(4)]
        typer.echo("  ".join([*cells, row[4]]).rstrip())
    config = ModelConfig(settings.data_dir)
    stored = config.specs()
    if stored:
        typer.echo(f"\nstored in {config.models_path}: {', '.join(sorted(stored))}")
        for role in sorted(stored):
            env = setting_env_name(f"{role}_model")
            if env in os.environ:
                typer.echo(f"  {role}: {env} in the environment wins over the stored spec")
    keys = config.keys_set()
    if keys:
        typer.echo(f"keys stored for: {', '.join(keys)} (never shown)")


@models_app.command("set")
@friendly
def set_command(
    role: Annotated[str, typer.Argument(help="planner, writer, extractor or reviewer.")],
    spec: Annotated[
        str,
        typer.Argument(help='e.g. local, openai:gpt-4o, "openai-compatible:http://host:8000/v1:m".'),
    ],
) -> None:
    """Store the model SPEC for ROLE in the data directory (the environment still wins)."""
    from aizac.llm.model_config import ModelConfig, redact
    from aizac.settings import load_settings, setting_env_name

    config = ModelConfig(load_settings().data_dir)
    clean = config.set_spec(role, spec)
    typer.echo(f"{role} -> {redact(clean)} (stored in {config.models_path})")
    env = setting_env_name(f"{role}_model")
    if env in os.environ:
        typer.echo(f"note: {env} is set in this environment and wins over the stored spec")


@models_app.command("unset")
@friendly
def unset_command(
    role: Annotated[str, typer.Argument(help="planner, writer, extractor or reviewer.")],
) -> None:
    """Forget ROLE's stored spec (the environment, aizac.toml or the default applies again)."""
    from aizac.llm.model_config import ModelConfig
    from aizac.settings import ROLES, load_settings

    if role not in ROLES:
        raise InvalidInputError("error.model.role", role=role, roles=", ".join(ROLES))
    ModelConfig(load_settings().data_dir).clear_spec(role)
    typer.echo(f"{role}: stored spec removed")


@models_app.command("key")
@friendly
def key_command(
    provider: Annotated[str, typer.Argument(help="openai, anthropic, clova or openai-compatible.")],
    delete: Annotated[bool, typer.Option("--delete", help="Forget the stored key.")] = False,
) -> None:
    """Store PROVIDER's API key, typed at a hidden prompt or piped on stdin; never printed."""
    from aizac.llm.model_config import KEY_FIELDS, ModelConfig
    from aizac.settings import load_settings

    if provider not in KEY_FIELDS:
        raise InvalidInputError("error.model.no_key_provider", provider=provider,
                                providers=", ".join(KEY_FIELDS))
    config = ModelConfig(load_settings().data_dir)
    if delete:
        config.delete_key(provider)
        typer.echo(f"{provider}: stored key removed")
        return
    if sys.stdin.isatty():
        value = typer.prompt(f"{provider} API key", hide_input=True, default="", show_default=False)
    else:
        value = sys.stdin.readline()
    config.set_key(provider, value)
    typer.echo(f"{provider}: key stored in {config.keys_path} (mode 0600; never shown)")


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
    from aizac.settings import load_settings

    messages: list[BaseMessage] = [HumanMessage(content=prompt)]
    if system:
        messages.insert(0, SystemMessage(content=system))
    printed = False
    try:
        router = ModelRouter(load_settings())
        for piece in router.stream(role, messages):
            sys.stdout.write(piece)
            sys.stdout.flush()
            printed = True
    except AizacError as e:
        if printed:
            sys.stdout.write("\n")
        fail(e)
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
    """Add ``models`` (with ``set``, ``unset``, ``key``) and ``ask-model`` to the CLI."""
    app.add_typer(models_app, name="models")
    app.command("ask-model")(ask_model_command)
