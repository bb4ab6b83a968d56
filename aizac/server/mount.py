"""The Gradio beat editor inside the server, one app for every user.

The app is built once over a :class:`~aizac.web.per_user.UserScopedService`; Gradio's
``auth_dependency`` names the user the gate found (``gr.Request.username``), and every event
runs against that user's own ApplicationService. What of Gradio's own routes a request reaches is
decided by :class:`~aizac.server.ui_gate.UiGate`: files are served only from the user's own
export folder (each user's folder is one of Gradio's *static* paths, so an export is linked
where it was written, never copied into Gradio's shared cache), uploads are refused, and event
streams are bound to the account.
"""

from __future__ import annotations

import hashlib
import hmac
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import cast

from fastapi import FastAPI, Request

from aizac.application.service import ApplicationService
from aizac.server.gate import Caller, UiSlot
from aizac.server.pages import ASSETS
from aizac.server.sandbox import Sandbox
from aizac.server.state import ServerState
from aizac.server.ui_gate import UiGate
from aizac.server.watch import ENDED, CredentialWatch
from aizac.text import describe


def session_hash_key(secret: str) -> bytes:
    """The key Gradio session hashes are bound to accounts with (derived from the session
    secret: it changes when the secret is rotated)."""
    return hmac.new(secret.encode(), b"aizac gradio session hash", hashlib.sha256).digest()


def mount_ui(app: FastAPI, state: ServerState, slot: UiSlot, *, language: str,
             secret: str) -> None:
    """Build the beat editor once and mount it at ``slot.path``, bound to the signed-in user;
    its gate goes into ``slot``."""
    from aizac.offline import apply_offline_defaults

    apply_offline_defaults()  # before Gradio builds anything
    import gradio as gr

    from aizac.web.per_user import CredentialEndedError, UserScopedService, bind_request_user
    from aizac.web.ui import CSS, build_app, theme
    from aizac.writer.service import Studio

    def service_of(user_id: str) -> ApplicationService:
        box = state.sandboxes.cached(user_id)
        if box is None:
            box = state.sandboxes.of(state.accounts.user(user_id))
        return box.service

    def who(request: Request) -> str | None:
        user = (request.scope.get("aizac") or {}).get("user")
        return user.id if user is not None else None

    def serve_exports(box: Sandbox) -> None:
        box.export_dir.mkdir(parents=True, exist_ok=True)
        gr.set_static_paths([box.export_dir])  # linked where written; served by the gate

    state.sandboxes.hooks.append(serve_exports)
    scoped = UserScopedService(service_of)
    template_root = state.sandboxes.settings.data_dir / "server" / "template"
    # The template only answers what the page shows before anyone signs in (defaults): its
    # models, embeddings and trope index are never built.
    template = Studio(state.sandboxes.settings.model_copy(update={"data_dir": template_root}))
    with scoped.building(ApplicationService(template, export_dir=template_root / "exports")):
        blocks = build_app(cast(ApplicationService, scoped), language=language, models_tab=False)
    blocks.queue(default_concurrency_limit=state.config.max_generations)

    def watch(request: gr.Request) -> Callable[[], str | None] | None:
        """The credential check of an event: ends it once its session or token ends."""
        joined = getattr(request, "request", None)  # the queue/join request, past the gate
        caller = ((getattr(joined, "scope", None) or {}).get("aizac") or {}).get("caller")
        if not isinstance(caller, Caller):
            return None
        credential = CredentialWatch(state, caller, state.config.credential_check_s,
                                     checked=False)

        def check() -> str | None:
            if credential.ended() is None:
                return None
            return describe(CredentialEndedError(ENDED), language, "web").line()

        return check

    bind_request_user(blocks, watch)
    # The log-out button is a script file of this server: the page runs no inline script
    # but Gradio's own, which the gate nonces (aizac.server.ui_gate).
    head = f'<script src="{ASSETS}/logout.js?lang={urllib.parse.quote(language)}"></script>'
    gr.mount_gradio_app(
        app, blocks, path=slot.path, auth_dependency=who, allowed_paths=[], theme=theme(), css=CSS,
        head=head, footer_links=[], show_error=False, ssr_mode=False,
        max_file_size=state.config.max_body_bytes,
    )
    from gradio.utils import get_upload_folder

    slot.gate = UiGate(state, slot.path, session_hash_key(secret), blocks,
                       cache=Path(get_upload_folder()))


__all__ = ["mount_ui", "session_hash_key"]
