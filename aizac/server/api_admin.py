"""The administrator's routes (``/api/v1/admin``): accounts, for a user whose role is admin.

An admin creates accounts (also when sign-up is off), disables and enables them, resets a
password (the user's sessions end and tokens are revoked), ends every session of a user,
exports a user's data and deletes a user with their sandbox and memory. The last enabled
admin cannot be disabled, demoted or deleted. ``aizac users`` does the same from a shell
(the first admin is made there: ``aizac users add NAME --admin``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import FileResponse

from aizac.server.accounts import User
from aizac.server.auth import AdminUser, state_of
from aizac.server.models import AdminUserEdit, AdminUserIn, AdminUserOut, Count, NewPassword
from aizac.server.openapi import responses

router = APIRouter(prefix="/api/v1/admin", tags=["admin"])
UserId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[0-9a-f]{1,64}$")]
ADMIN = (401, 403)


def admin_out(user: User) -> AdminUserOut:
    return AdminUserOut(id=user.id, name=user.name, role=user.role,  # type: ignore[arg-type]
                        language=user.language, disabled=user.disabled,  # type: ignore[arg-type]
                        created_at=user.created_at)


@router.get("/users", response_model=list[AdminUserOut], responses=responses(*ADMIN))
def list_users(request: Request, _: AdminUser) -> list[AdminUserOut]:
    return [admin_out(u) for u in state_of(request).accounts.users()]


@router.post("/users", response_model=AdminUserOut, status_code=201,
             responses=responses(*ADMIN, 409, 422, 503))
def create_user(body: AdminUserIn, request: Request, _: AdminUser) -> AdminUserOut:
    """Create an account (works when sign-up is off)."""
    user = state_of(request).accounts.add_user(body.name, body.password, role=body.role)
    return admin_out(user)


@router.get("/users/{user_id}", response_model=AdminUserOut, responses=responses(*ADMIN, 404))
def get_user(user_id: UserId, request: Request, _: AdminUser) -> AdminUserOut:
    return admin_out(state_of(request).accounts.user(user_id))


@router.patch("/users/{user_id}", response_model=AdminUserOut,
              responses=responses(*ADMIN, 404, 409, 422))
def edit_user(user_id: UserId, body: AdminUserEdit, request: Request, _: AdminUser
              ) -> AdminUserOut:
    """Disable or enable an account (a disabled one's sessions end and its tokens stop
    working), or change its role."""
    accounts = state_of(request).accounts
    if body.disabled is not None:
        accounts.set_disabled(user_id, body.disabled)
    if body.role is not None:
        accounts.set_role(user_id, body.role)
    return admin_out(accounts.user(user_id))


@router.put("/users/{user_id}/password", status_code=204,
            responses=responses(*ADMIN, 404, 422, 503))
def reset_password(user_id: UserId, body: NewPassword, request: Request, _: AdminUser
                   ) -> Response:
    """Set a new password for a user: their sessions end and their API tokens are revoked."""
    state_of(request).accounts.set_password(user_id, body.password)
    return Response(status_code=204)


@router.delete("/users/{user_id}/sessions", response_model=Count,
               responses=responses(*ADMIN, 404))
def end_sessions(user_id: UserId, request: Request, _: AdminUser) -> Count:
    """Log a user out everywhere."""
    accounts = state_of(request).accounts
    accounts.user(user_id)
    return Count(count=accounts.end_sessions(user_id))


@router.delete("/users/{user_id}/tokens", response_model=Count,
               responses=responses(*ADMIN, 404))
def revoke_tokens(user_id: UserId, request: Request, _: AdminUser) -> Count:
    accounts = state_of(request).accounts
    accounts.user(user_id)
    return Count(count=accounts.revoke_tokens(user_id))


@router.get("/users/{user_id}/export", response_class=FileResponse, responses={
    **responses(*ADMIN, 404, 429, 503),
    200: {"content": {"application/zip": {}}, "description": "A zip of the user's data."}})
def export_user(user_id: UserId, request: Request, _: AdminUser) -> FileResponse:
    from aizac.server.lifecycle import SpooledZip
    from aizac.server.lifecycle import export_user as export

    state = state_of(request)
    user = state.accounts.user(user_id)
    path = export(state.accounts, state.sandboxes, user)
    return SpooledZip(path, f"aizac-{user.name}.zip")


@router.delete("/users/{user_id}", status_code=204, responses=responses(*ADMIN, 404, 409, 503))
def delete_user(user_id: UserId, request: Request, _: AdminUser) -> Response:
    """Delete a user for good: their projects, exports and memory (their database on the
    Chroma server too), then the account."""
    from aizac.server.lifecycle import delete_user as delete

    delete(state_of(request), user_id)
    return Response(status_code=204)


__all__ = ["router"]
