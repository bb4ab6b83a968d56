"""``/docs``: the API's Swagger UI, served from this server (no CDN: the machine may have no
internet, and a reader's browser should not need one).

The Swagger UI files come from the ``fastapi-offline`` package, which ships them; the page's
own start-up script is a file here too, so the page needs no inline script.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, PlainTextResponse
from starlette.staticfiles import StaticFiles

ASSETS = "/docs-assets"
_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>aizac API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="{assets}/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="{assets}/swagger-ui-bundle.js"></script>
<script src="{assets}/init.js"></script></body></html>
"""
_INIT = """window.ui = SwaggerUIBundle({url: '/openapi.json', dom_id: '#swagger-ui',
  deepLinking: true, withCredentials: true, presets: [SwaggerUIBundle.presets.apis]});
"""


def swagger_files() -> Path:
    """The folder of Swagger UI's files (from the ``fastapi-offline`` package)."""
    return Path(str(resources.files("fastapi_offline").joinpath("static")))


def install(app: FastAPI) -> None:
    """Serve ``/docs`` and its files from this server."""

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(_PAGE.format(assets=ASSETS))

    @app.get(f"{ASSETS}/init.js", include_in_schema=False)  # before the folder's mount
    def init() -> PlainTextResponse:
        return PlainTextResponse(_INIT, media_type="text/javascript")

    app.mount(ASSETS, StaticFiles(directory=swagger_files()), name="docs-assets")


__all__ = ["ASSETS", "install"]
