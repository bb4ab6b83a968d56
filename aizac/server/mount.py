"""The Gradio beat editor inside the server, one app for every user.

The app is built once over a :class:`~aizac.web.per_user.UserScopedService`; Gradio's
``auth_dependency`` names the user from the session cookie (``gr.Request.username``), and every
event runs against that user's own WebService. Files a user may download are served only from
their own sandbox: a ``/file=`` request for a path in another user's root is 404.
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import cast

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from aizac.server.auth import ServerState, user_from_request
from aizac.web.service import WebService

_LOGOUT_HEAD = """<script>
(function addLogout() {
  // Gradio inserts head scripts after the page has loaded: add the link now (or once the
  // body exists), not on the 'load' event.
  if (!document.body) { setTimeout(addLogout, 100); return; }
  if (document.getElementById('aizac-logout')) return;
  const a = document.createElement('a');
  a.href = '/logout'; a.id = 'aizac-logout'; a.textContent = 'Log out';
  a.style.cssText = 'position:fixed;bottom:10px;right:14px;z-index:1000;font-size:0.9em;'
    + 'padding:4px 10px;border-radius:6px;background:var(--background-fill-secondary);';
  document.body.appendChild(a);
})();
</script>"""


class UiGuard:
    """In front of the mounted app: ``/ui`` without a session goes to ``/login``; a file
    request naming another user's sandbox is 404."""

    def __init__(self, app: ASGIApp, state: ServerState, path: str) -> None:
        self.app = app
        self.state = state
        self.path = path
        self.users_root = state.sandboxes.users_root

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = str(scope.get("path", ""))
        if scope["type"] != "http" or not route.startswith(self.path):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        user = user_from_request(request, self.state)
        if user is None and route in (self.path, self.path + "/"):
            await RedirectResponse("/login", status_code=303)(scope, receive, send)
            return
        if "/file=" in route and not self._may_read(route, user.id if user else None):
            await PlainTextResponse("Not found", status_code=404)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _may_read(self, route: str, user_id: str | None) -> bool:
        asked = urllib.parse.unquote(route.split("/file=", 1)[1])
        try:
            path = Path(asked).resolve()
        except (OSError, ValueError):
            return False
        if not path.is_relative_to(self.users_root):
            return True  # Gradio's own checks apply (cache, static files)
        return user_id is not None and path.is_relative_to(self.users_root / user_id)


def mount_ui(app: FastAPI, state: ServerState, *, path: str, language: str) -> None:
    """Build the beat editor once and mount it at ``path``, bound to the signed-in user."""
    from aizac.offline import apply_offline_defaults

    apply_offline_defaults()  # before Gradio builds anything
    import gradio as gr

    from aizac.web.per_user import UserScopedService, bind_request_user
    from aizac.web.ui import CSS, build_app, theme

    def service_of(user_id: str) -> WebService:
        box = state.sandboxes.cached(user_id)
        if box is None:
            box = state.sandboxes.of(state.accounts.user(user_id))
        return box.service

    def who(request: Request) -> str | None:
        user = user_from_request(request, state)
        return user.id if user is not None else None

    scoped = UserScopedService(service_of)
    template_root = state.sandboxes.settings.data_dir / "server" / "template"
    template = state.sandboxes.factory()(
        state.sandboxes.settings.model_copy(update={"data_dir": template_root}), "template")
    with scoped.building(WebService(template, export_dir=template_root / "exports")):
        blocks = build_app(cast(WebService, scoped), language=language, models_tab=False)
    blocks.queue(default_concurrency_limit=state.config.max_generations)
    bind_request_user(blocks)
    state.sandboxes.users_root.mkdir(parents=True, exist_ok=True)
    gr.mount_gradio_app(
        app, blocks, path=path, auth_dependency=who,
        allowed_paths=[str(state.sandboxes.users_root)], theme=theme(), css=CSS,
        head=_LOGOUT_HEAD, footer_links=[], show_error=False, ssr_mode=False,
        max_file_size=state.config.max_body_bytes,
    )
    app.add_middleware(UiGuard, state=state, path=path)
