"""``aizac serve`` (the multi-user server) and ``aizac users`` (its accounts, for admins)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from aizac.cli.errors import friendly

users_app = typer.Typer(help="Accounts of the multi-user server (aizac serve).",
                        no_args_is_help=True)


@friendly
def serve_command(
    host: Annotated[
        str | None,
        typer.Option("--host", help="Interface to bind (default: AIZAC_HOST, 127.0.0.1)."),
    ] = None,
    port: Annotated[
        int | None, typer.Option("--port", help="Port to listen on (default: AIZAC_PORT, 7860).")
    ] = None,
    ui_language: Annotated[
        str | None,
        typer.Option("--ui-language", help="Web app language: en, ko or zh (default: English)."),
    ] = None,
    no_signup: Annotated[
        bool, typer.Option("--no-signup", help="Only admins create accounts (aizac users add).")
    ] = False,
) -> None:
    """Serve aizac to several writers: accounts, a sandbox per user, the REST API under
    /api/v1 (docs at /docs) and the web app at /ui."""
    import uvicorn

    from aizac.server import create_app
    from aizac.server.config import load_server_config
    from aizac.settings import get_settings

    settings = get_settings()
    config = load_server_config(**({"signup": False} if no_signup else {}))
    app = create_app(settings, config=config, ui_language=ui_language)
    where_host, where_port = host or settings.host, port or settings.port
    typer.echo(f"aizac serve: http://{where_host}:{where_port}/ (API docs at /docs)")
    uvicorn.run(app, host=where_host, port=where_port, proxy_headers=True,
                forwarded_allow_ips=config.forwarded_allow_ips, log_level="info")


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    return str(typer.prompt("Password", hide_input=True, confirmation_prompt=True))


@users_app.command("add")
@friendly
def users_add(
    name: Annotated[str, typer.Argument(help="The user name to create.")],
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from stdin.")
    ] = False,
) -> None:
    """Create an account (works when sign-up is turned off)."""
    from aizac.server.accounts import AccountStore
    from aizac.settings import get_settings

    store = AccountStore.open(get_settings())
    user = store.add_user(name, _password(password_stdin))
    typer.echo(f"created user {user.name} ({user.id})")


@users_app.command("list")
@friendly
def users_list() -> None:
    """The server's accounts (name and id; the id names the user's folder under users/)."""
    from aizac.server.accounts import AccountStore
    from aizac.settings import get_settings

    store = AccountStore.open(get_settings())
    for user in store.users():
        typer.echo(f"{user.name}\t{user.id}")


def register(app: typer.Typer) -> None:
    """Add ``aizac serve`` and ``aizac users``."""
    app.command("serve")(serve_command)
    app.add_typer(users_app, name="users")
