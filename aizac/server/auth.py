"""Sign-up, log-in, log-out, one's own account and API tokens (``/api/v1/auth``), and who is
asking (the ``current_user`` dependency).

Who a request speaks for is decided once, by the gate (:class:`aizac.server.gate.Gate`): a
bearer token, else the session cookie's server-side session. Failed logins are limited per
(name, address), per address and per name (429 past a limit, before any password is hashed);
every password check takes one of a few hash slots.
"""

from __future__ import annotations

import ipaddress
import math
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response
from fastapi.responses import FileResponse

from aizac.errors import LimitError
from aizac.server.accounts import LoginLimiter, User, name_key
from aizac.server.errors import ForbiddenError, UnauthorizedError, clip
from aizac.server.gate import caller_of
from aizac.server.models import (
    NO_NUL,
    Count,
    Credentials,
    Me,
    MeEdit,
    PasswordIn,
    SignupIn,
    TokenIn,
    TokenOut,
    UserOut,
)
from aizac.server.openapi import responses
from aizac.server.sandbox import Sandbox, describe
from aizac.server.state import SESSION_KEY, ServerState


def state_of(request: Request) -> ServerState:
    state: ServerState = request.app.state.aizac
    return state


def user_from_request(request: Request, state: ServerState | None = None) -> User | None:
    """The user the gate found for ``request`` (``None``: nobody)."""
    return caller_of(request).user


def current_user(request: Request) -> User:
    user = caller_of(request).user
    if user is None:  # the gate refuses first; this holds for routes mounted elsewhere too
        raise UnauthorizedError("error.server.not_signed_in")
    return user


def current_sandbox(request: Request, user: Annotated[User, Depends(current_user)]) -> Sandbox:
    return state_of(request).sandboxes.of(user)


def admin_user(user: Annotated[User, Depends(current_user)]) -> User:
    if user.role != "admin":
        raise ForbiddenError("error.server.admin_only")
    return user


CurrentUser = Annotated[User, Depends(current_user)]
CurrentBox = Annotated[Sandbox, Depends(current_sandbox)]
AdminUser = Annotated[User, Depends(admin_user)]
router = APIRouter(prefix="/api/v1/auth", tags=["accounts"])


def client_address(request: Request) -> str:
    return request.client.host if request.client else "-"


def address_key(host: str) -> str:
    """What the login limits count an address as (pure): an IPv6 address by its /64 network
    (one subscriber holds a whole /64: fresh addresses in it are one client), anything else
    as it is."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def user_out(user: User) -> UserOut:
    return UserOut(id=user.id, name=user.name, role=user.role,  # type: ignore[arg-type]
                   language=user.language)  # type: ignore[arg-type]


def start_session(request: Request, user: User) -> None:
    state = state_of(request)
    old = request.session.get(SESSION_KEY)
    if isinstance(old, str):
        state.sessions.end(old)
    request.session.clear()
    request.session[SESSION_KEY] = state.sessions.start(user.id)
    request.scope.setdefault("aizac", {})["user"] = user


def _wait(seconds: float, key: str) -> LimitError:
    return LimitError(key, retry_after=seconds, seconds=max(1, math.ceil(seconds)))


@router.post("/signup", response_model=UserOut, status_code=201,
             responses=responses(403, 409, 422, 429, 503))
def signup(body: SignupIn, request: Request) -> UserOut:
    """Create an account and log in (unless sign-up is turned off: then an admin creates
    accounts, ``POST /api/v1/admin/users``)."""
    state = state_of(request)
    if not state.config.signup:
        raise ForbiddenError("error.server.signup_off")
    key = f"signup|{address_key(client_address(request))}"
    wait = state.signups.retry_after(key)
    if wait > 0:
        raise _wait(wait, "error.server.signup_limited")
    state.signups.failed(key)
    user = state.accounts.add_user(body.name, body.password)
    start_session(request, user)
    return user_out(user)


def _take_login_limits(state: ServerState, name: str, address: str
                       ) -> list[tuple[LoginLimiter, str]]:
    """Count a login try against its limits before its password is checked (so tries made at
    once cannot slip past); the limits it was counted against, or :class:`LimitError`.

    Per (name, address) and per address always. Per name only for an address that is neither
    one the name logged in from lately nor clean (no try in the window before this one): a
    stranger's failures from many addresses slow those addresses, never the owner's login;
    guessing one name stays bounded by the per-name limit plus one try per fresh address."""
    pair = f"{name}|{address}"
    taken: list[tuple[LoginLimiter, str]] = []

    def refuse(wait: float) -> LimitError:
        for done, done_key in taken:
            done.forgive(done_key)
        return _wait(wait, "error.server.login_limited")

    wait = state.limiter.take(pair)
    if wait > 0:
        raise refuse(wait)
    taken.append((state.limiter, pair))
    clean = True
    if state.per_address is not None:
        wait, clean = state.per_address.claim(address)
        if wait > 0:
            raise refuse(wait)
        taken.append((state.per_address, address))
    if state.per_name is not None:
        wait = state.per_name.take(name)
        if wait == 0:
            taken.append((state.per_name, name))
        elif not (clean or (state.known is not None and pair in state.known)):
            raise refuse(wait)
    return taken


@router.post("/login", response_model=UserOut, responses=responses(401, 403, 422, 429, 503))
def login(body: Credentials, request: Request) -> UserOut:
    """Log in: the reply sets the session cookie (``aizac_session``)."""
    state = state_of(request)
    name, address = name_key(body.name), address_key(client_address(request))
    taken = _take_login_limits(state, name, address)
    try:
        user = state.accounts.verify(body.name, body.password)
    except BaseException:  # no answer (the hash slots were busy): not a failed guess
        for limiter, key in taken:
            limiter.forgive(key)
        raise
    if user is None:
        raise UnauthorizedError("error.server.wrong_login")
    for limiter, key in taken[1:]:
        limiter.forgive(key)
    state.limiter.succeeded(f"{name}|{address}")
    if state.known is not None:
        state.known.add(f"{name}|{address}")
    if user.disabled:
        raise ForbiddenError("error.server.account_disabled")
    start_session(request, user)
    return user_out(user)


@router.post("/logout", status_code=204, responses=responses(403))
def logout(request: Request) -> None:
    """End this session (a request without one does nothing)."""
    sid = request.session.get(SESSION_KEY)
    if isinstance(sid, str):
        state_of(request).sessions.end(sid)
    request.session.clear()


@router.delete("/sessions", response_model=Count, responses=responses(401, 403))
def logout_everywhere(request: Request, user: CurrentUser) -> Count:
    """End every session of the account, this one too (API tokens stay: revoke them with
    ``DELETE /api/v1/auth/tokens``)."""
    ended = state_of(request).accounts.end_sessions(user.id)
    request.session.clear()
    return Count(count=ended)


@router.get("/me", response_model=Me, responses=responses(401))
def me(box: CurrentBox) -> Me:
    user = box.user
    return Me(**user_out(user).model_dump(), **describe(box))


@router.patch("/me", response_model=UserOut, responses=responses(401, 403, 422))
def edit_me(body: MeEdit, request: Request, user: CurrentUser) -> UserOut:
    """Choose the language of the server's messages to you (``null``: the browser's)."""
    accounts = state_of(request).accounts
    accounts.set_language(user.id, body.language)
    return user_out(accounts.user(user.id))


@router.post("/password", status_code=204, responses=responses(401, 403, 422, 503))
def change_password(body: PasswordIn, request: Request, user: CurrentUser) -> None:
    """Change your password: every other credential of the account ends (its other sessions
    and its API tokens; a change made with a token keeps that token and ends every session)."""
    state = state_of(request)
    if state.accounts.verify(user.name, body.current) is None:
        raise ForbiddenError("error.server.password_wrong")
    caller = caller_of(request)
    sid = request.session.get(SESSION_KEY) if caller.via == "session" else None
    state.accounts.set_password(user.id, body.new,
                                keep_session=sid if isinstance(sid, str) else None,
                                keep_token=caller.token_id if caller.via == "token" else None)


@router.get("/export", response_class=FileResponse, responses={
    **responses(401, 429, 503), 200: {"content": {"application/zip": {}},
                                 "description": "A zip of the account's data."}})
def export_me(request: Request, box: CurrentBox) -> FileResponse:
    """Everything of yours, as one zip: each project's database and memories, your exports,
    your account (see ``aizac/server/lifecycle.py``). One at a time: another while one is
    being written or downloaded is 429 (``Retry-After``)."""
    from aizac.server.lifecycle import SpooledZip, export_user

    state = state_of(request)
    path = export_user(state.accounts, state.sandboxes, box.user)
    return SpooledZip(path, f"aizac-{box.user.name}.zip")


# ---------------------------------------------------------------------------------- tokens
@router.post("/tokens", response_model=TokenOut, status_code=201,
             responses=responses(401, 403, 422, 429))
def new_token(body: TokenIn, request: Request, user: CurrentUser) -> TokenOut:
    """A new API token for scripts (``Authorization: Bearer ...``); the secret is shown once.
    Only a signed-in browser session mints tokens (a token cannot make more of itself)."""
    caller = caller_of(request)
    if caller.via != "session":
        raise ForbiddenError("error.server.token_needs_session")
    state = state_of(request)
    expires = body.expires_in_days * 86400 if body.expires_in_days else None
    secret, info = state.accounts.new_token(
        user.id, body.label, scope=body.scope, expires_in_s=expires,
        cap=state.config.max_tokens_per_user)
    return _token_out(info, secret)


def _token_out(info: Any, secret: str | None = None) -> TokenOut:
    return TokenOut(id=info.id, label=clip(info.label, 80), created_at=info.created_at,
                    scope=info.scope, expires_at=info.expires_at, token=secret)


@router.get("/tokens", response_model=list[TokenOut], responses=responses(401))
def tokens(request: Request, user: CurrentUser) -> list[TokenOut]:
    return [_token_out(t) for t in state_of(request).accounts.tokens(user.id)]


@router.delete("/tokens", response_model=Count, responses=responses(401, 403))
def revoke_all_tokens(request: Request, user: CurrentUser) -> Count:
    """Revoke every API token of the account at once."""
    return Count(count=state_of(request).accounts.revoke_tokens(user.id))


@router.delete("/tokens/{token_id}", status_code=204, responses=responses(401, 403, 404))
def revoke_token(token_id: Annotated[str, Path(min_length=1, max_length=64, pattern=NO_NUL)],
                 request: Request, user: CurrentUser) -> Response:
    """Revoke one token (and any minted from it)."""
    state_of(request).accounts.revoke_token(user.id, token_id)
    return Response(status_code=204)


__all__ = ["SESSION_KEY", "CurrentBox", "CurrentUser", "ServerState", "current_user", "router",
           "state_of", "user_from_request"]
