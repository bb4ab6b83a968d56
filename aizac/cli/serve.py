"""``aizac serve`` (the multi-user server) and ``aizac users`` (its accounts, for admins).

``aizac users`` works on the accounts database directly, with or without a server running
(several processes share it through SQLite's locking): the first admin is made here
(``aizac users add NAME --admin``). Deleting a user whose projects a running server holds open
is refused (delete over HTTP then, ``DELETE /api/v1/admin/users/{id}``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from aizac.cli.errors import friendly
from aizac.cli.say import text
from aizac.text import t

if TYPE_CHECKING:
    from aizac.server.accounts import AccountStore, User
    from aizac.settings import Settings

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
    /api/v1 (docs at /docs), the web app at /ui, /healthz and /readyz for operators."""
    started = time.monotonic()
    import uvicorn

    from aizac.server import create_app
    from aizac.server.config import load_server_config
    from aizac.server.logs import configure
    from aizac.settings import get_settings

    settings = get_settings()
    config = load_server_config(**({"signup": False} if no_signup else {}))
    where_host, where_port = host or settings.host, port or settings.port
    url = f"http://{where_host}:{where_port}/"
    language = settings.ui_language

    def ready(seconds: float) -> None:
        typer.echo(t("cli.serve.ready", language, url=url, seconds=f"{seconds:.1f}"))

    configure()
    app = create_app(settings, config=config, ui_language=ui_language, on_ready=ready,
                     started=started)
    typer.echo(t("cli.serve.listening", language, url=url))
    uvicorn.run(app, host=where_host, port=where_port, proxy_headers=True, server_header=False,
                forwarded_allow_ips=config.forwarded_allow_ips, log_config=None,
                access_log=False, timeout_graceful_shutdown=int(config.shutdown_timeout_s))


# ----------------------------------------------------------------------------------- users
def _settings() -> Settings:
    from aizac.settings import get_settings

    return get_settings()


def _store() -> AccountStore:
    from aizac.server.accounts import AccountStore
    from aizac.server.config import load_server_config

    config = load_server_config()
    return AccountStore.open(_settings(), min_password_score=config.min_password_score)


def _say(key: str, **params: object) -> None:
    typer.echo(t(key, _settings().ui_language, **params))


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    return str(typer.prompt(text("cli.serve.ask_password"), hide_input=True,
                            confirmation_prompt=True))


def _user(store: AccountStore, name: str) -> User:
    return store.by_name(name)


PasswordStdin = Annotated[
    bool, typer.Option("--password-stdin", help="Read the password from stdin.")]
Name = Annotated[str, typer.Argument(help="The user's name.")]


@users_app.command("add")
@friendly
def users_add(
    name: Annotated[str, typer.Argument(help="The user name to create.")],
    password_stdin: PasswordStdin = False,
    admin: Annotated[bool, typer.Option("--admin", help="Make the user an administrator.")]
    = False,
) -> None:
    """Create an account (works when sign-up is turned off); the first admin is made so."""
    store = _store()
    user = store.add_user(name, _password(password_stdin), role="admin" if admin else "user")
    _say("cli.users.created", name=user.name, id=user.id, role=user.role)


@users_app.command("list")
@friendly
def users_list() -> None:
    """The server's accounts: name, id (the folder under users/), role, status."""
    for user in _store().users():
        state = "disabled" if user.disabled else "active"
        typer.echo(f"{user.name}\t{user.id}\t{user.role}\t{state}")


@users_app.command("passwd")
@friendly
def users_passwd(name: Name, password_stdin: PasswordStdin = False) -> None:
    """Set a new password for a user: their sessions end and their API tokens are revoked."""
    store = _store()
    user = _user(store, name)
    sessions, tokens = store.set_password(user.id, _password(password_stdin))
    _say("cli.users.password_set", name=user.name, sessions=sessions, tokens=tokens)


@users_app.command("disable")
@friendly
def users_disable(name: Name) -> None:
    """Disable an account: no login; its sessions end and its tokens stop working."""
    store = _store()
    user = _user(store, name)
    store.set_disabled(user.id, True)
    _say("cli.users.disabled", name=user.name)


@users_app.command("enable")
@friendly
def users_enable(name: Name) -> None:
    """Enable a disabled account again."""
    store = _store()
    user = _user(store, name)
    store.set_disabled(user.id, False)
    _say("cli.users.enabled", name=user.name)


@users_app.command("role")
@friendly
def users_role(name: Name, role: Annotated[str, typer.Argument(help="admin or user.")]) -> None:
    """Make a user an administrator, or an ordinary user again."""
    store = _store()
    user = _user(store, name)
    store.set_role(user.id, role)
    _say("cli.users.role_set", name=user.name, role=role)


@users_app.command("logout")
@friendly
def users_logout(name: Name) -> None:
    """End every session of a user (log out everywhere)."""
    store = _store()
    user = _user(store, name)
    _say("cli.users.logged_out", name=user.name, count=store.end_sessions(user.id))


@users_app.command("delete")
@friendly
def users_delete(
    name: Name,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a user for good: their projects, exports and memory, then the account."""
    from aizac.server.lifecycle import delete_user_offline

    store = _store()
    user = _user(store, name)
    if not yes:
        typer.confirm(t("cli.users.delete_confirm", _settings().ui_language, name=user.name),
                      abort=True)
    delete_user_offline(store, _settings(), user.id)
    _say("cli.users.deleted", name=user.name)


@users_app.command("export")
@friendly
def users_export(
    name: Name,
    output: Annotated[Path, typer.Option("--output", "-o", help="The zip file to write.")],
) -> None:
    """Write everything of a user's (projects, memories, exports, account) to one zip."""
    import shutil

    from aizac.server.config import load_server_config
    from aizac.server.lifecycle import export_user
    from aizac.server.sandbox import Sandboxes

    store = _store()
    user = _user(store, name)
    sandboxes = Sandboxes(_settings(), load_server_config())
    try:
        made = export_user(store, sandboxes, user)
    finally:
        sandboxes.close()
    try:
        shutil.move(made, output)
    finally:
        made.unlink(missing_ok=True)  # the user's export slot is free again
    _say("cli.users.exported", name=user.name, file=str(output))


def register(app: typer.Typer) -> None:
    """Add ``aizac serve`` and ``aizac users``."""
    app.command("serve")(serve_command)
    app.add_typer(users_app, name="users")
