"""``aizac models`` (list, ``set``, ``use``, ``unset``, ``key``) and ``aizac ask-model``.

Specs and keys set here are stored in the data directory (:mod:`aizac.llm.model_config`, the same
files the web app's Models panel uses); an environment variable still wins over them. Keys are
read from a hidden prompt or stdin, stored with mode 0600 and never printed. ``aizac models``
also lists the local model servers that answer on 127.0.0.1 (:mod:`aizac.llm.discovery`), and
``aizac models use N --all-roles`` puts one of their models on every role in one step.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any

import typer

from aizac.cli.errors import fail, friendly
from aizac.cli.say import say, text
from aizac.errors import AizacError, IncompleteReplyError, InvalidInputError
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
    search = _search(settings)  # asked now, answered while the roles are described
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
        say("cli.models.stored_in", path=str(config.models_path), roles=", ".join(sorted(stored)))
        for role in sorted(stored):
            env = setting_env_name(f"{role}_model")
            if env in os.environ:
                say("cli.models.env_wins_role", role=role, env=env)
    keys = config.keys_set()
    if keys:
        say("cli.models.keys_stored", providers=", ".join(keys))
    if search is not None:
        servers = search.wait()
        show_servers(servers, search.ports)
        remember_listing(settings.data_dir, servers)


LISTING_FILE = "local-models.json"
"""The numbered local models ``aizac models`` showed last (in the data directory)."""
LISTING_SECONDS = 24 * 3600
"""How long the numbers it showed stand for ``aizac models use N`` (then it searches again)."""


def remember_listing(data_dir: Any, servers: list[Any]) -> None:
    """Keep the numbers just shown: ``aizac models use N`` means the model the writer saw as
    [N], even when the server is slower to answer the next time (under load it answered the
    listing and not, a second later, the search of ``use``)."""
    import time
    from pathlib import Path

    from aizac.llm.discovery import usable_specs
    from aizac.private_files import write_private_json

    path = Path(data_dir) / LISTING_FILE
    write_private_json(path, {"specs": usable_specs(servers), "listed_at": time.time()},
                       "error.model.config_write", folder=str(path.parent))


def remembered_listing(data_dir: Any) -> list[str] | None:
    """The numbered specs ``aizac models`` showed in the last :data:`LISTING_SECONDS`
    (``None``: none shown, too old, or unreadable: search again)."""
    import json
    import time
    from pathlib import Path

    try:
        data = json.loads((Path(data_dir) / LISTING_FILE).read_text(encoding="utf-8"))
        specs, listed = data["specs"], float(data["listed_at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(specs, list) or not 0 <= time.time() - listed <= LISTING_SECONDS:
        return None
    return [str(spec) for spec in specs]


def _search(settings: Any) -> Any:
    """The local-server search of ``settings``, started (``None`` when it is turned off)."""
    from aizac.llm.discovery import Discovery

    search = Discovery.from_settings(settings)
    return search.start() if search is not None else None


def show_servers(servers: list[Any], ports: tuple[int, ...]) -> None:
    """The local model servers that answered, each usable model numbered for
    ``aizac models use N --all-roles``."""
    typer.echo("")
    if not servers:
        say("cli.models.no_servers", ports=", ".join(str(p) for p in ports))
        return
    say("cli.models.servers")
    number = 0
    for server in servers:
        what = server.names or server.api
        if server.needs_key:
            say("cli.models.server_needs_key", names=what, url=server.url)
            continue
        if not server.models:
            say("cli.models.server_empty", names=what, url=server.url)
            continue
        say("cli.models.server", names=what, url=server.url)
        for found in server.models:
            if found.spec is None:
                say("cli.models.unusable_id", model=found.model)
                continue
            number += 1
            typer.echo(f"    [{number}] {found.spec}")
    if number:
        say("cli.models.use_hint")


@models_app.command("set")
@friendly
def set_command(
    role: Annotated[str, typer.Argument(help="planner, writer, extractor, reviewer or image.")],
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
    say("cli.models.stored", role=role, spec=redact(clean), path=str(config.models_path))
    env = setting_env_name(f"{role}_model")
    if env in os.environ:
        say("cli.models.env_wins", env=env)


@models_app.command("use")
@friendly
def use_command(
    spec: Annotated[
        str,
        typer.Argument(help="A model spec, or the number `aizac models` gave a local model."),
    ],
    all_roles: Annotated[
        bool, typer.Option("--all-roles", help="Use it for every role.")
    ] = False,
    roles: Annotated[
        list[str] | None, typer.Option("--role", help="A role to use it for (repeatable).")
    ] = None,
) -> None:
    """Use SPEC (or local model number N) for every role, or for the roles named, in one step."""
    from aizac.llm.model_config import ModelConfig, redact
    from aizac.settings import ROLES, load_settings, setting_env_name

    settings = load_settings()
    chosen = tuple(ROLES) if all_roles else tuple(dict.fromkeys(roles or ()))
    if not chosen:
        raise InvalidInputError("error.models.use_roles")
    if spec.strip().isdigit():
        spec = _found_spec(settings, int(spec))
    config = ModelConfig(settings.data_dir)
    clean = config.use_everywhere(spec, chosen)
    say("cli.models.used", roles=", ".join(chosen), spec=redact(clean),
        path=str(config.models_path))
    for role in chosen:
        env = setting_env_name(f"{role}_model")
        if env in os.environ:
            say("cli.models.env_wins", env=env)


def _found_spec(settings: Any, number: int) -> str:
    """The spec of local model ``number`` as ``aizac models`` numbered them: the listing it
    showed (:func:`remembered_listing`), else asked again now."""
    from aizac.llm.discovery import Discovery, usable_specs

    specs = remembered_listing(settings.data_dir)
    if specs is not None and 1 <= number <= len(specs):
        return specs[number - 1]
    search = Discovery.from_settings(settings, asked=True)
    specs = usable_specs(search.wait() if search is not None else [])
    if not 1 <= number <= len(specs):
        raise InvalidInputError("error.models.no_such_found", number=number, count=len(specs))
    return specs[number - 1]


@models_app.command("preset")
@friendly
def preset_command(
    name: Annotated[str, typer.Argument(help="light-local: extraction and summaries on a local "
                                             "model server, plot and prose in the cloud.")],
    local: Annotated[
        str | None,
        typer.Option("--local", help="The local model: a spec or the number `aizac models` "
                                     "gave it (default: the first local model that answers)."),
    ] = None,
    cloud: Annotated[
        str | None,
        typer.Option("--cloud", help="The cloud model spec (default: the planner's, if it is "
                                     "a cloud model), e.g. openai:gpt-4o."),
    ] = None,
) -> None:
    """Route the roles by a preset in one step (stored like `aizac models set`)."""
    from aizac.llm.model_config import ModelConfig, redact
    from aizac.llm.presets import CLOUD_PROVIDERS, PRESETS, assign
    from aizac.llm.specs import parse_spec
    from aizac.settings import load_settings

    if name not in PRESETS:
        raise InvalidInputError("error.models.no_such_preset", name=name,
                                presets=", ".join(PRESETS))
    settings = load_settings()
    if local is None or local.strip().isdigit():
        local = _found_spec(settings, int(local) if local else 1)
    if cloud is None:
        planner = settings.role_spec("planner")
        if parse_spec(planner, "AIZAC_PLANNER_MODEL").provider not in CLOUD_PROVIDERS:
            raise InvalidInputError("error.models.preset_needs_cloud")
        cloud = planner
    config = ModelConfig(settings.data_dir)
    stored = config.set_specs(assign(name, local, cloud))
    for role, spec in stored.items():
        typer.echo(f"{role} -> {redact(spec)}")
    say("cli.models.preset_set", name=name, path=str(config.models_path))


@models_app.command("unset")
@friendly
def unset_command(
    role: Annotated[str, typer.Argument(help="planner, writer, extractor, reviewer or image.")],
) -> None:
    """Forget ROLE's stored spec (the environment, aizac.toml or the default applies again)."""
    from aizac.llm.model_config import ModelConfig
    from aizac.settings import load_settings
    from aizac.settings_values import MODEL_ROLES

    if role not in MODEL_ROLES:  # every role `aizac models set` takes, the image role too
        raise InvalidInputError("error.model.role", role=role, roles=", ".join(MODEL_ROLES))
    ModelConfig(load_settings().data_dir).clear_spec(role)
    say("cli.models.spec_removed", role=role)


@models_app.command("key")
@friendly
def key_command(
    provider: Annotated[str, typer.Argument(help="openai, anthropic, clova or openai-compatible.")],
    delete: Annotated[bool, typer.Option("--delete", help="Forget the stored key.")] = False,
) -> None:
    """Store PROVIDER's API key, typed at a hidden prompt or piped on stdin; never printed."""
    from aizac.llm.model_config import ModelConfig
    from aizac.settings import load_settings
    from aizac.stored_models import KEY_FIELDS

    if provider not in KEY_FIELDS:
        raise InvalidInputError("error.model.no_key_provider", provider=provider,
                                providers=", ".join(KEY_FIELDS))
    config = ModelConfig(load_settings().data_dir)
    if delete:
        config.delete_key(provider)
        say("cli.models.key_removed", provider=provider)
        return
    if sys.stdin.isatty():
        value = typer.prompt(text("cli.models.ask_key", provider=provider), hide_input=True,
                             default="", show_default=False)
    else:
        value = sys.stdin.readline()
    config.set_key(provider, value)
    say("cli.models.key_stored", provider=provider, path=str(config.keys_path))


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
    except IncompleteReplyError as e:
        # Asked, not generating: a reply the token limit stopped is still the answer asked
        # for, and it is on screen already; say where it stopped instead of failing.
        if not (printed and e.reason == "length"):
            if printed:
                sys.stdout.write("\n")
            fail(e)
        sys.stdout.write("\n")
        say("cli.ask_model.cut", err=True, role=role)
    except AizacError as e:
        if printed:
            sys.stdout.write("\n")
        fail(e)
    else:
        sys.stdout.write("\n")
    sys.stdout.flush()
    if usage:
        for r in router.usage.records:
            approx = "~" if r.estimated else ""
            say("cli.models.usage", err=True, role=r.role, model=r.model,
                prompt=f"{approx}{r.prompt_tokens}", completion=f"{approx}{r.completion_tokens}",
                seconds=f"{r.latency_s:.2f}")


def register(app: typer.Typer) -> None:
    """Add ``models`` (with ``set``, ``use``, ``unset``, ``key``) and ``ask-model``."""
    app.add_typer(models_app, name="models")
    app.command("ask-model")(ask_model_command)
