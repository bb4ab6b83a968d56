"""The OpenAPI document says what the server does: every error a route can answer (in the one
error shape), how to authenticate (a session cookie or a bearer token), the prose stream's
media type. Checked against the running server by Schemathesis (``tests/server/
test_contract.py``)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

ERROR_REF = {"$ref": "#/components/schemas/Error"}
DESCRIPTIONS = {
    400: "The request is malformed.",
    401: "No valid session or API token (log in, or send Authorization: Bearer).",
    403: "Not allowed: another origin, a read-only token, not an admin, sign-up off, "
         "a disabled account.",
    404: "Not found (another user's names and ids are not found either).",
    405: "Method not allowed here (the Allow header lists the ones that are).",
    409: "A conflict: the name is taken, the record changed since it was read, or the "
         "project is busy.",
    413: "The request body is too large.",
    422: "The request does not fit this schema.",
    429: "A limit was reached (see Retry-After).",
    500: "The server failed (the X-Request-ID header names the request in its log), or a "
         "stored file of the project is damaged (code error.store.damaged: the message names "
         "the file; the project's backup is restored by the server's administrator).",
    502: "A model provider failed.",
    503: "A dependency (the memory server, the database) is down, or the server is busy or "
         "starting (see Retry-After).",
    507: "The server's disk is full or not writable.",
}
ALWAYS = (400, 403, 405, 413, 500)
"""Codes any route may answer: a bad request, the origin check, a wrong method, the body
limit, a failure."""


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route that may answer ``codes`` (each in the error shape)."""
    return {code: {"description": DESCRIPTIONS.get(code, "An error."),
                   "content": {"application/json": {"schema": ERROR_REF}}}
            for code in codes}


NO_NUL = r"^[^\x00]*$"
NOT_BLANK = r"^[^\x00]*[^\s\x00][^\x00]*$"


def _not_blank(node: Any) -> None:
    """Every string that must not be empty must hold a non-space character: the models strip
    their strings before counting (``"  "`` is too short), and the schema says so too. And no
    string holds U+0000, which PostgreSQL's text columns refuse (the server refuses it in
    every request on both engines: :data:`aizac.server.models.NO_NUL`, ``refuse_nul``)."""
    if isinstance(node, dict):
        if node.get("type") == "string" and (
                "pattern" not in node and "enum" not in node and "format" not in node
                and "const" not in node):
            node["pattern"] = NOT_BLANK if node.get("minLength", 0) >= 1 else NO_NUL
        for value in node.values():
            _not_blank(value)
    elif isinstance(node, list):
        for value in node:
            _not_blank(value)


def _documented_patterns(node: Any) -> None:
    """Patterns written for the server's Python regex, restated for the document's readers
    (ECMAScript regex: :data:`aizac.server.models.USER_NAME_DOC`)."""
    from aizac.server import models as m

    documented = {m.USER_NAME: m.USER_NAME_DOC, m.PROJECT_NAME: m.PROJECT_NAME_DOC,
                  m.EXPORT_NAME: m.EXPORT_NAME_DOC}
    if isinstance(node, dict):
        if node.get("pattern") in documented:
            node["pattern"] = documented[node["pattern"]]
        for value in node.values():
            _documented_patterns(value)
    elif isinstance(node, list):
        for value in node:
            _documented_patterns(value)


def install(app: FastAPI) -> None:
    """Give ``app`` an OpenAPI document with the error shape, the codes every route may
    answer and the two ways to authenticate."""
    from aizac.server.errors import ERROR_SCHEMA
    from aizac.server.gate import is_public

    def document() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, description=app.description,
                             routes=app.routes)
        components = schema.setdefault("components", {})
        components.setdefault("schemas", {})["Error"] = ERROR_SCHEMA
        components["securitySchemes"] = {
            "session": {"type": "apiKey", "in": "cookie", "name": "aizac_session",
                        "description": "The browser's session (POST /api/v1/auth/login)."},
            "token": {"type": "http", "scheme": "bearer",
                      "description": "An API token (POST /api/v1/auth/tokens)."},
        }
        for path, item in schema.get("paths", {}).items():
            for method, operation in item.items():
                answers = operation.setdefault("responses", {})
                for code in ALWAYS:
                    answers.setdefault(str(code), responses(code)[code])
                if not is_public(method.upper(), path):
                    operation["security"] = [{"session": []}, {"token": []}]
                    answers.setdefault("401", responses(401)[401])
                for code, answer in answers.items():
                    if code.startswith(("4", "5")) and "content" not in answer:
                        answer["content"] = {"application/json": {"schema": ERROR_REF}}
                    elif code in {"422"}:
                        answer["content"] = {"application/json": {"schema": ERROR_REF}}
                        answer["description"] = DESCRIPTIONS[422]
        error = components["schemas"].pop("Error")  # an error may echo what it refuses
        _not_blank(schema)
        _documented_patterns(schema)
        components["schemas"]["Error"] = error
        components["schemas"].pop("HTTPValidationError", None)
        components["schemas"].pop("ValidationError", None)
        app.openapi_schema = schema
        return schema

    app.openapi = document  # type: ignore[method-assign]


__all__ = ["ALWAYS", "DESCRIPTIONS", "ERROR_REF", "install", "responses"]
