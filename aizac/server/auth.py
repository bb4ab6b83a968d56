"""Sign-up, log-in, log-out, API tokens, and who is asking (the ``current_user`` dependency).

A browser holds a signed session cookie (Starlette ``SessionMiddleware``) carrying a random
session id kept server-side; a script sends ``Authorization: Bearer <token>``. Anything else is
401. Failed logins are counted per (name, address) and refused with 429 past the limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, status

from aizac.errors import LimitError
from aizac.server.accounts import AccountStore, LoginLimiter, SessionStore, User, name_key
from aizac.server.config import ServerConfig
from aizac.server.models import Credentials, Me, TokenIn, TokenOut, UserOut
from aizac.server.sandbox import Sandbox, Sandboxes, describe

SESSION_KEY = "sid"


@dataclass
class ServerState:
    """What every route needs; kept on ``app.state.aizac``."""

    config: ServerConfig
    accounts: AccountStore
    sessions: SessionStore
    sandboxes: Sandboxes
    limiter: LoginLimiter
    signups: LoginLimiter


def state_of(request: Request) -> ServerState:
    state: ServerState = request.app.state.aizac
    return state


def user_from_request(request: Request, state: ServerState | None = None) -> User | None:
    """The user a request speaks for (bearer token or session cookie), else ``None``.
    ``state`` is needed where ``request.app`` is a mounted app (the web app)."""
    state = state or state_of(request)
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return state.accounts.user_of_token(token.strip())
    sid = request.session.get(SESSION_KEY) if "session" in request.scope else None
    if isinstance(sid, str) and sid:
        return state.sessions.user(sid)
    return None


def current_user(request: Request) -> User:
    user = user_from_request(request)
    if user is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "Log in first (or send an API token).",
                            headers={"WWW-Authenticate": "Bearer"})
    return user


def current_sandbox(request: Request, user: Annotated[User, Depends(current_user)]) -> Sandbox:
    return state_of(request).sandboxes.of(user)


CurrentUser = Annotated[User, Depends(current_user)]
CurrentBox = Annotated[Sandbox, Depends(current_sandbox)]
router = APIRouter(prefix="/api/v1/auth", tags=["accounts"])


def _start_session(request: Request, user: User) -> None:
    state = state_of(request)
    old = request.session.get(SESSION_KEY)
    if isinstance(old, str):
        state.sessions.end(old)
    request.session.clear()
    request.session[SESSION_KEY] = state.sessions.start(user.id)


@router.post("/signup", response_model=UserOut, status_code=201)
def signup(body: Credentials, request: Request) -> UserOut:
    """Create an account and log in (unless sign-up is turned off)."""
    state = state_of(request)
    if not state.config.signup:
        raise HTTPException(status.HTTP_403_FORBIDDEN,
                            "Sign-up is turned off; ask the administrator for an account.")
    key = f"signup|{request.client.host if request.client else '-'}"
    wait = state.signups.retry_after(key)
    if wait > 0:
        raise LimitError("Too many sign-ups from this address.", retry_after=wait,
                         hint=f"Try again in {wait:.0f} seconds.")
    state.signups.failed(key)
    user = state.accounts.add_user(body.name, body.password)
    _start_session(request, user)
    return UserOut(id=user.id, name=user.name)


@router.post("/login", response_model=UserOut)
def login(body: Credentials, request: Request) -> UserOut:
    state = state_of(request)
    address = request.client.host if request.client else "-"
    key = f"{name_key(body.name)}|{address}"
    wait = state.limiter.retry_after(key)
    if wait > 0:
        raise LimitError("Too many failed logins.", retry_after=wait,
                         hint=f"Try again in {wait:.0f} seconds.")
    user = state.accounts.verify(body.name, body.password)
    if user is None:
        state.limiter.failed(key)
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "Wrong user name or password.")
    state.limiter.succeeded(key)
    _start_session(request, user)
    return UserOut(id=user.id, name=user.name)


@router.post("/logout", status_code=204)
def logout(request: Request) -> None:
    sid = request.session.get(SESSION_KEY)
    if isinstance(sid, str):
        state_of(request).sessions.end(sid)
    request.session.clear()


@router.get("/me", response_model=Me)
def me(box: CurrentBox) -> Me:
    return Me(id=box.user.id, name=box.user.name, **describe(box))


@router.post("/tokens", response_model=TokenOut, status_code=201)
def new_token(body: TokenIn, request: Request, user: CurrentUser) -> TokenOut:
    """A new API token for scripts (``Authorization: Bearer ...``); the secret is shown once."""
    secret, info = state_of(request).accounts.new_token(user.id, body.label)
    return TokenOut(id=info.id, label=info.label, created_at=info.created_at, token=secret)


@router.get("/tokens", response_model=list[TokenOut])
def tokens(request: Request, user: CurrentUser) -> list[TokenOut]:
    return [TokenOut(id=t.id, label=t.label, created_at=t.created_at)
            for t in state_of(request).accounts.tokens(user.id)]


@router.delete("/tokens/{token_id}", status_code=204)
def revoke_token(token_id: str, request: Request, user: CurrentUser) -> None:
    state_of(request).accounts.revoke_token(user.id, token_id)
