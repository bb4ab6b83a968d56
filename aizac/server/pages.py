"""The few plain pages of the server: the sign-in page, log-out, and ``/`` (no framework: the
page posts JSON to ``/api/v1/auth/...`` and goes to the beat editor).

Their words come from the catalogue in the browser's language (``Accept-Language``). Log-out
ends a session only on ``POST`` (from the page itself: the origin check applies); a ``GET`` of
``/logout`` (a link from anywhere) only shows a button that does it.
"""

from __future__ import annotations

import html
import json

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from aizac.server.auth import SESSION_KEY, state_of
from aizac.server.errors import negotiate
from aizac.server.gate import caller_of
from aizac.text import LANGUAGES, t

router = APIRouter(include_in_schema=False)
UI = "/ui"

ASSETS = "/aizac-assets"
"""The pages' script and style, files of this server (public: they carry no user data), so no
page needs an inline script or style (see :func:`aizac.server.gate.content_policy`)."""
_STYLE = f'<link rel="stylesheet" href="{ASSETS}/page.css">'
_CSS = """body {font-family: system-ui, 'Noto Sans KR', 'Noto Sans CJK KR', sans-serif;
  max-width: 26em; margin: 4em auto; padding: 0 1em; color: #1e293b;}
label {display: block; margin-top: 1em;}
input {width: 100%; padding: 0.5em; font-size: 1em; box-sizing: border-box;}
button {margin-top: 1.2em; padding: 0.55em 1.2em; font-size: 1em;}
#message {min-height: 1.5em; margin-top: 1em; color: #b91c1c;}
"""
_LOGIN = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>aizac — {title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">{style}</head><body>
<h1>aizac</h1>
<form id="auth">
<label>{name_label} <input id="name" name="name" autocomplete="username" required></label>
<label>{password_label} <input id="password" name="password" type="password"
  autocomplete="current-password" required></label>
<button id="login" type="submit" data-action="login">{login}</button>
{signup}
</form>
<div id="message" role="alert"></div>
<script src="{assets}/login.js"></script></body></html>
"""
_LOGIN_JS = """async function send(action) {
  const body = {name: document.getElementById('name').value,
                password: document.getElementById('password').value};
  const reply = await fetch('/api/v1/auth/' + action, {method: 'POST',
    headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
  if (reply.ok) { window.location.href = 'UI/'; return; }
  let said = reply.statusText;
  try { const data = await reply.json();
        said = [data.message, data.hint].filter(Boolean).join(' ') || said; } catch (e) {}
  document.getElementById('message').textContent = said;
}
document.getElementById('auth').addEventListener('submit', (e) => e.preventDefault());
for (const b of document.querySelectorAll('button[data-action]')) {
  b.addEventListener('click', () => send(b.dataset.action));
}
""".replace("UI/", UI + "/")
_LOGOUT_JS = """(function addLogout() {
  // Gradio inserts head scripts after the page has loaded: add the button now (or once the
  // body exists), not on the 'load' event. A form POST: the origin check applies to it.
  if (!document.body) { setTimeout(addLogout, 100); return; }
  if (document.getElementById('aizac-logout')) return;
  const form = document.createElement('form');
  form.method = 'post'; form.action = '/logout';
  form.style.cssText = 'position:fixed;bottom:10px;right:14px;z-index:1000;margin:0;';
  const button = document.createElement('button');
  button.type = 'submit'; button.id = 'aizac-logout'; button.textContent = LABEL;
  button.style.cssText = 'font-size:0.9em;padding:4px 10px;border-radius:6px;border:0;'
    + 'cursor:pointer;background:var(--background-fill-secondary);color:inherit;';
  form.appendChild(button);
  document.body.appendChild(form);
})();
"""
_LOGOUT = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>aizac — {title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">{style}</head><body>
<h1>aizac</h1>
<form method="post" action="/logout"><button id="logout" type="submit">{button}</button></form>
<p><a href="{ui}/">{back}</a></p>
</body></html>
"""
NO_STORE = {"Cache-Control": "no-store"}


def page_language(request: Request) -> str:
    user = caller_of(request).user
    chosen = user.language if user is not None else None
    if chosen:
        return str(chosen)
    return negotiate(request.headers.get("accept-language"),
                     state_of(request).sandboxes.settings.ui_language)


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request) -> HTMLResponse:
    lang = page_language(request)

    def say(key: str) -> str:
        return html.escape(t(key, lang))

    signup = (f'<button id="signup" type="button" data-action="signup">{say("ui.login.signup")}'
              "</button>" if state_of(request).config.signup else "")
    return HTMLResponse(_LOGIN.format(
        lang=lang, title=say("ui.login.title"), style=_STYLE, name_label=say("ui.login.name"),
        password_label=say("ui.login.password"), login=say("ui.login.login"), signup=signup,
        assets=ASSETS), headers=NO_STORE)


@router.get(f"{ASSETS}/login.js")
def login_script() -> Response:
    return Response(_LOGIN_JS, media_type="text/javascript")


@router.get(f"{ASSETS}/page.css")
def page_style() -> Response:
    return Response(_CSS, media_type="text/css")


@router.get(f"{ASSETS}/logout.js")
def logout_script(lang: str = "en") -> Response:
    """The web app's log-out button (a head script of Gradio's page), labelled in ``lang``."""
    language = lang if lang in LANGUAGES else "en"
    label = json.dumps(t("ui.logout.button", language)).replace("<", "\\u003c")
    return Response(_LOGOUT_JS.replace("LABEL", label), media_type="text/javascript")


@router.get("/")
def home(request: Request) -> RedirectResponse:
    target = f"{UI}/" if caller_of(request).user is not None else "/login"
    return RedirectResponse(target, status_code=303)


@router.get("/logout", response_class=HTMLResponse)
def logout_page(request: Request) -> HTMLResponse:
    """A page with a log-out button: a link (from anywhere) never ends a session itself."""
    lang = page_language(request)
    return HTMLResponse(_LOGOUT.format(
        lang=lang, title=html.escape(t("ui.logout.title", lang)), style=_STYLE,
        button=html.escape(t("ui.logout.button", lang)),
        back=html.escape(t("ui.logout.back", lang)), ui=html.escape(UI)), headers=NO_STORE)


@router.post("/logout")
def logout(request: Request) -> RedirectResponse:
    """End the session (the button in the web app's corner) and go to the sign-in page."""
    sid = request.session.get(SESSION_KEY)
    if isinstance(sid, str):
        state_of(request).sessions.end(sid)
    request.session.clear()
    return RedirectResponse("/login", status_code=303)
