"""The gate of the mounted beat editor (Gradio): what of Gradio's own routes a user reaches.

Gradio serves many routes of its own under the mount (``/ui/gradio_api/...``); none of them
knows the account. This gate, called by :class:`~aizac.server.gate.Gate` for every request
under ``/ui``, lets through only what the page needs and denies the rest (404):

* **static assets** (``/ui/assets``, ``/ui/static``, the theme): the same for everyone, public;
* **the page and its config**, for a signed-in user (without one, ``/ui/`` goes to ``/login``);
  the page's inline scripts (Gradio's) get a nonce made for that response, and its
  Content-Security-Policy runs those and no other inline script (:func:`nonce_scripts`);
* **events**: ``queue/join``, ``queue/data``, ``heartbeat`` and ``cancel`` name a *session
  hash* the page makes up; Gradio binds event streams to it and nothing else. The gate replaces
  it, before Gradio sees it, with a keyed hash of the account and the page's hash
  (:func:`bound_hash`), so a hash copied from another user's page names a session of one's own:
  another account's events can be neither read nor cancelled. A ``queue/join`` or ``cancel``
  body Gradio could not take (an unknown ``fn_index``, a malformed body, a value its
  component refuses) is answered here, 404/422 in the server's shape;
* **files** (``gradio_api/file=...`` and the ``file/...`` form): served by the gate itself,
  only from the signed-in user's own export folder, or a file of Gradio's cache that the gate
  saw go to this very account in one of its event streams (the gallery's pictures: Gradio
  writes an image it shows into its cache); Gradio's file route (which serves its shared cache
  and every allowed path to anyone signed in) is never reached;
* **uploads** are refused: the app has no upload component.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import mimetypes
import re
import secrets
import threading
import urllib.parse
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import FileResponse, JSONResponse, RedirectResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from aizac.errors import AizacError, InvalidInputError, NotFoundError
from aizac.server.errors import ForbiddenError, UnauthorizedError, clip, fields_of
from aizac.server.gate import UNSAFE, Caller, content_policy, refuse

if TYPE_CHECKING:
    from aizac.server.state import ServerState

API = "/gradio_api"
PUBLIC_PREFIXES = ("/assets/", "/static/", "/svelte/")
PUBLIC_FILES = frozenset({"/theme.css", f"{API}/theme.css", "/favicon.ico", "/manifest.json",
                          "/robots.txt"})
PAGE = frozenset({"", "/", "/config", "/config/"})
SENT_FILES = 20_000
"""Files of Gradio's cache remembered as sent to an account (the oldest are forgotten)."""
_PATH = re.compile(rb'"path":\s*"((?:[^"\\]|\\.)+)"')


def bound_hash(key: bytes, user_id: str, session_hash: str) -> str:
    """The session hash Gradio sees for ``session_hash`` sent by ``user_id`` (pure): keyed,
    so nobody can make another account's from the page's hash."""
    mac = hmac.new(key, f"{user_id}\x00{session_hash}".encode(), hashlib.sha256)
    return "u" + mac.hexdigest()[:40]


class UiGate:
    """Called for every request under the mount (see the module docstring).

    Args:
        state: the server's state (sandboxes: where each user's exports are).
        path: the mount path (``/ui``).
        key: the secret the session hashes are bound with.
        blocks: the Gradio app (its queue: which events belong to which session).
    """

    def __init__(self, state: ServerState, path: str, key: bytes, blocks: Any = None,
                 cache: Path | None = None) -> None:
        self.state = state
        self.path = path
        self.key = key
        self.blocks = blocks
        self.cache = cache.resolve() if cache is not None else None
        self._sent: OrderedDict[Path, str] = OrderedDict()
        self._sent_lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send, caller: Caller,
                       app: ASGIApp) -> None:
        """Answer a request under the mount; ``app`` is the rest of the server (the mount is
        among its routes)."""
        method = str(scope["method"])
        sub = str(scope["path"])[len(self.path):]
        if method in ("GET", "HEAD") and (sub.startswith(PUBLIC_PREFIXES) or sub in PUBLIC_FILES):
            await app(scope, receive, send)
            return
        user = caller.user
        if user is None:
            if method == "GET" and sub in ("", "/"):
                await RedirectResponse("/login", status_code=303)(scope, receive, send)
            else:
                await refuse(scope, receive, send, UnauthorizedError("error.server.not_signed_in"))
            return
        if method in UNSAFE and not caller.writes:
            await refuse(scope, receive, send, ForbiddenError("error.server.token_read_only"))
            return
        if method in ("GET", "HEAD") and sub in PAGE:
            nonced = method == "GET" and sub in ("", "/")
            await app(scope, receive, _nonced(send) if nonced else send)
        elif method in ("GET", "HEAD") and sub.startswith((f"{API}/file=", f"{API}/file/")):
            await self.file(scope, receive, send, user.id, sub)
        elif method == "GET" and sub.startswith(f"{API}/heartbeat/"):
            raw = sub[len(f"{API}/heartbeat/"):].strip("/")
            path = f"{self.path}{API}/heartbeat/{bound_hash(self.key, user.id, raw)}"
            await app({**scope, "path": path, "raw_path": path.encode()}, receive, send)
        elif method == "GET" and sub == f"{API}/queue/data":
            bound = self._bound_query(scope, user.id)
            if not self._session_open(bound):  # Gradio would fail half way into its stream
                await refuse(scope, receive, send, NotFoundError("error.server.no_events"))
                return
            await app(bound, receive, self._noting(send, user.id))
        elif method == "POST" and sub in (f"{API}/queue/join", f"{API}/cancel"):
            await self.event(scope, receive, send, user.id, app, cancel=sub.endswith("cancel"))
        elif sub.startswith((f"{API}/upload", f"{API}/process_recording")):
            await refuse(scope, receive, send, ForbiddenError("error.server.upload_refused"))
        else:
            await refuse(scope, receive, send,
                         NotFoundError("error.server.no_route", path=clip(scope["path"], 200)))

    # ------------------------------------------------------------------------------ files
    async def file(self, scope: Scope, receive: Receive, send: Send, user_id: str,
                   sub: str) -> None:
        """A file of the user's own export folder, or 404 (whoever else's it is)."""
        asked = sub[len(f"{API}/file") + 1:]
        found = self._export_file(user_id, asked)
        if found is None:
            await refuse(scope, receive, send, NotFoundError("error.server.file_not_found"))
            return
        media = mimetypes.guess_type(found.name)[0] or "application/octet-stream"
        await FileResponse(found, media_type=media, filename=found.name,
                           content_disposition_type="attachment")(scope, receive, send)

    def _export_file(self, user_id: str, asked: str) -> Path | None:
        exports = (self.state.sandboxes.users_root / user_id / "exports").resolve()
        try:
            path = Path(asked)
            if not path.is_absolute():
                return None
            resolved = path.resolve(strict=True)  # symlinks followed: the target must be inside
        except (OSError, ValueError, RuntimeError):
            return None
        if not resolved.is_file():
            return None
        if resolved.is_relative_to(exports):
            return resolved
        with self._sent_lock:
            return resolved if self._sent.get(resolved) == user_id else None

    def _noting(self, send: Send, user_id: str) -> Send:
        """``send`` that notes which files of Gradio's cache an event stream hands this user."""
        carry = b""

        async def noting(message: Message) -> None:
            nonlocal carry
            if message["type"] == "http.response.body" and self.cache is not None:
                chunk = carry + message.get("body", b"")
                for found in _PATH.finditer(chunk):
                    self._note(found.group(1), user_id)
                carry = chunk[-2048:]  # a path cut between two chunks is found in the next
            await send(message)

        return noting

    def _note(self, raw: bytes, user_id: str) -> None:
        try:
            text = json.loads(b'"' + raw + b'"')
            path = Path(text).resolve()
        except (ValueError, OSError, RuntimeError):
            return
        if self.cache is None or not path.is_relative_to(self.cache):
            return
        with self._sent_lock:
            self._sent[path] = self._sent.get(path, user_id)  # the first account it went to
            self._sent.move_to_end(path)
            while len(self._sent) > SENT_FILES:
                self._sent.popitem(last=False)

    # ----------------------------------------------------------------------------- events
    def _bound_query(self, scope: Scope, user_id: str) -> Scope:
        pairs = urllib.parse.parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                                       keep_blank_values=True)
        bound = [(k, bound_hash(self.key, user_id, v) if k == "session_hash" else v)
                 for k, v in pairs]
        return {**scope, "query_string": urllib.parse.urlencode(bound).encode("latin-1")}

    async def event(self, scope: Scope, receive: Receive, send: Send, user_id: str,
                    app: ASGIApp, *, cancel: bool) -> None:
        """``queue/join`` or ``cancel`` with the session hash bound to the account (a cancel
        of an event that is not this session's does nothing)."""
        body = await _read_body(receive)
        try:
            data = json.loads(body or b"{}")
            if not isinstance(data, dict):
                raise ValueError("not an object")
        except ValueError:
            await refuse(scope, receive, send, InvalidInputError(
                "error.server.invalid_request", fields="body (json_invalid)"))
            return
        malformed = self._malformed(data, cancel=cancel)
        raw = data.get("session_hash")
        if isinstance(raw, str) and raw:
            data["session_hash"] = bound_hash(self.key, user_id, raw)
        if malformed is None and not cancel:
            malformed = await anyio.to_thread.run_sync(self._refused_value, data)
        if malformed is not None:
            await refuse(scope, receive, send, malformed)
            return
        if cancel and not self._owns(str(data.get("session_hash", "")),
                                     str(data.get("event_id", ""))):
            await JSONResponse({"success": True})(scope, receive, send)
            return
        new_body = json.dumps(data).encode()
        headers = [(k, v) for k, v in scope.get("headers", []) if k != b"content-length"]
        headers.append((b"content-length", str(len(new_body)).encode()))
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": new_body, "more_body": False}
            return await receive()

        await app({**scope, "headers": headers}, replay, send)

    def _malformed(self, data: dict[str, Any], *, cancel: bool) -> AizacError | None:
        """Why Gradio could not take this ``queue/join`` or ``cancel`` body (``None``: it
        can): checked here against Gradio's own body models and the app's events, so a
        malformed request is a 4xx in the server's error shape, not a failure inside Gradio
        (an unknown ``fn_index`` was a plain-text 500 with a traceback in the log)."""
        from gradio.data_classes import CancelBody, PredictBody
        from pydantic import ValidationError

        try:
            if cancel:
                CancelBody.model_validate(data, strict=True)
                return None
            body = PredictBody.model_validate(data, strict=True)
        except ValidationError as e:
            problems = [dict(item) for item in e.errors(include_input=False)]
            return InvalidInputError("error.server.invalid_request", fields=fields_of(problems))
        fn_index = body.fn_index
        missing = [f"body.{name} (missing)" for name, value in
                   (("fn_index", fn_index), ("session_hash", body.session_hash)) if not
                   (value or value == 0)]
        if missing:
            return InvalidInputError("error.server.invalid_request", fields="; ".join(missing))
        fns = getattr(self.blocks, "fns", None)
        fn = fns.get(fn_index) if isinstance(fns, dict) else None
        if isinstance(fns, dict) and (fn is None or fn.fn is None):
            return NotFoundError("error.server.unknown_event", fn=clip(fn_index, 20))
        if body.batched and not getattr(fn, "batch", False):
            return InvalidInputError("error.server.invalid_request", fields="body.batched")
        wanted = len(getattr(fn, "inputs", None) or ())
        if not body.batched and len(body.data) < wanted:
            return InvalidInputError("error.server.invalid_request",
                                     fields=f"body.data ({len(body.data)} of {wanted} values)")
        return None

    def _refused_value(self, data: dict[str, Any]) -> AizacError | None:
        """Whether one of the event's values is one its component refuses (a number that is no
        number, a choice a dropdown of this page does not offer, a table that is no table),
        checked as Gradio will check it (the component as this page's session holds it, its
        data model, its ``preprocess``), without changing the session: refused here it is a
        422, where inside Gradio it was a failure with a traceback in the log."""
        fns = getattr(self.blocks, "fns", None)
        fn = fns.get(data.get("fn_index")) if isinstance(fns, dict) else None
        if fn is None or not getattr(fn, "preprocess", True) or data.get("batched"):
            return None
        holder = getattr(self.blocks, "state_holder", None)
        session_hash = data.get("session_hash")
        session = (holder.session_data.get(session_hash) if holder is not None and
                   isinstance(session_hash, str) else None)
        props = set(getattr(fn, "component_prop_inputs", None) or ())
        for i, block in enumerate(fn.inputs):
            if getattr(block, "stateful", False) or i in props:
                continue
            if session is not None and block._id in session:
                block = session[block._id]
            value = data["data"][i]
            try:
                model = getattr(block, "data_model", None)
                if model is not None and value is not None:
                    value = model.model_validate(value, context={"validate_meta": True})
                block.preprocess(value)
            except Exception:  # whatever the component raises: the page sent a bad value
                return InvalidInputError("error.server.invalid_request",
                                         fields=f"body.data.{i} ({type(block).__name__})")
        return None

    def _session_open(self, scope: Scope) -> bool:
        """Whether the (bound) session hash of a ``queue/data`` request has events waiting."""
        queue = getattr(self.blocks, "_queue", None)
        waiting = getattr(queue, "pending_messages_per_session", None)
        if not isinstance(waiting, dict):
            return True  # not a queue this gate knows: let Gradio answer
        pairs = dict(urllib.parse.parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        return pairs.get("session_hash", "") in waiting

    def _owns(self, session_hash: str, event_id: str) -> bool:
        queue = getattr(self.blocks, "_queue", None)
        pending = getattr(queue, "pending_event_ids_session", None)
        if not isinstance(pending, dict):
            return False
        return event_id in pending.get(session_hash, ())


_SCRIPT_TAG = re.compile(rb"<script(?=[\s>])", re.IGNORECASE)


def nonce_scripts(page: bytes, nonce: str) -> bytes:
    """``page`` (Gradio's HTML) with ``nonce`` on every script element (pure). Every
    ``<script`` in it is a tag of Gradio's template: the values it fills in (the app's
    configuration) are JSON with ``<`` escaped, so no text of a user's opens one."""
    return _SCRIPT_TAG.sub(b'<script nonce="' + nonce.encode() + b'"', page)


def _nonced(send: Send) -> Send:
    """``send`` for the web app's page: its inline scripts get a fresh nonce and the response
    a Content-Security-Policy that runs those (and no other inline script)."""
    nonce = secrets.token_urlsafe(18)
    start: Message | None = None
    parts: list[bytes] = []

    async def sending(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            headers = Headers(raw=message.get("headers", []))
            if not headers.get("content-type", "").startswith("text/html") or \
                    headers.get("content-encoding"):
                await send(message)  # not the page (a redirect, an error): as it is
                return
            start = message
            return
        if start is None or message["type"] != "http.response.body":
            await send(message)
            return
        parts.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        page = nonce_scripts(b"".join(parts), nonce)
        headers = MutableHeaders(raw=list(start.get("headers", [])))
        headers["content-length"] = str(len(page))
        headers["content-security-policy"] = content_policy(nonce)
        await send({**start, "headers": headers.raw})
        await send({"type": "http.response.body", "body": page, "more_body": False})

    return sending


async def _read_body(receive: Receive) -> bytes:
    parts = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(parts)


__all__ = ["UiGate", "bound_hash", "nonce_scripts"]
