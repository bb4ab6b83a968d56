"""The few plain pages of the server: the sign-in page, log-out, and ``/`` (no framework: the
page posts JSON to ``/api/v1/auth/...`` and goes to the beat editor)."""

from __future__ import annotations

import html

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from aizac.server.auth import SESSION_KEY, state_of, user_from_request

router = APIRouter(include_in_schema=False)

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>aizac — sign in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{font-family: system-ui, 'Noto Sans KR', sans-serif; max-width: 26em; margin: 4em auto;
  padding: 0 1em; color: #1e293b;}}
label {{display: block; margin-top: 1em;}}
input {{width: 100%; padding: 0.5em; font-size: 1em; box-sizing: border-box;}}
button {{margin-top: 1.2em; padding: 0.55em 1.2em; font-size: 1em;}}
#message {{min-height: 1.5em; margin-top: 1em; color: #b91c1c;}}
</style></head><body>
<h1>aizac</h1>
<form id="auth" onsubmit="return false;">
<label>User name <input id="name" name="name" autocomplete="username" required></label>
<label>Password <input id="password" name="password" type="password"
  autocomplete="current-password" required></label>
<button id="login" type="submit" data-action="login">Log in</button>
{signup}
</form>
<div id="message" role="alert"></div>
<script>
async function send(action) {{
  const body = {{name: document.getElementById('name').value,
                 password: document.getElementById('password').value}};
  const reply = await fetch('/api/v1/auth/' + action, {{method: 'POST',
    headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify(body)}});
  if (reply.ok) {{ window.location.href = '{ui}/'; return; }}
  let said = reply.statusText;
  try {{ const data = await reply.json(); said = data.error || data.detail || said;
        if (typeof said !== 'string') said = JSON.stringify(said); }} catch (e) {{}}
  document.getElementById('message').textContent = said;
}}
for (const b of document.querySelectorAll('button[data-action]')) {{
  b.addEventListener('click', () => send(b.dataset.action));
}}
</script></body></html>
"""
_SIGNUP = '<button id="signup" type="button" data-action="signup">Sign up</button>'
UI = "/ui"


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request) -> HTMLResponse:
    signup = _SIGNUP if state_of(request).config.signup else ""
    return HTMLResponse(_PAGE.format(signup=signup, ui=html.escape(UI)),
                        headers={"Cache-Control": "no-store"})


@router.get("/")
def home(request: Request) -> RedirectResponse:
    target = f"{UI}/" if user_from_request(request) is not None else "/login"
    return RedirectResponse(target, status_code=303)


@router.api_route("/logout", methods=["GET", "POST"])
def logout(request: Request) -> RedirectResponse:
    """End the session (the link in the web app's corner) and go back to the sign-in page."""
    sid = request.session.get(SESSION_KEY)
    if isinstance(sid, str):
        state_of(request).sessions.end(sid)
    request.session.clear()
    return RedirectResponse("/login", status_code=303)
