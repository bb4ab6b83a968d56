"""The HTTP calls of the local image servers (Stable Diffusion WebUI, ComfyUI), with httpx.

One place maps what a server answered to aizac's errors: 429 and 5xx (and timeouts, refused or
dropped connections) are transient; 401/403 mean the stored key or password is wrong; another
4xx is the server refusing the request, in its own words (a refused prompt, a missing
checkpoint), which a retry would not change.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from aizac.errors import ModelError
from aizac.llm.images.base import ImageRefusedError, TransientImageError


def _said(response: httpx.Response) -> str:
    try:
        body: Any = response.json()
    except ValueError:
        return response.text[:300]
    if isinstance(body, dict):
        for key in ("error", "detail", "message", "errors"):
            value = body.get(key)
            if isinstance(value, dict):
                value = value.get("message") or json.dumps(value, ensure_ascii=False)
            if value:
                return (value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                        )[:300]
    return json.dumps(body, ensure_ascii=False)[:300]


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["retry-after"])
    except (KeyError, ValueError):
        return None


def send(client: httpx.Client, method: str, url: str, label: str, **kwargs: Any
         ) -> httpx.Response:
    """``client.request`` with the server's failures as aizac errors (see the module doc)."""
    try:
        response = client.request(method, url, **kwargs)
    except httpx.TimeoutException as e:
        raise TransientImageError("error.image.unreachable", model=label,
                                  cause=type(e).__name__) from e
    except httpx.TransportError as e:
        raise TransientImageError("error.image.unreachable", model=label,
                                  cause=type(e).__name__) from e
    status = response.status_code
    if status == 429 or status >= 500:
        raise TransientImageError("error.image.busy", model=label, status=status,
                                  retry_after=_retry_after(response) if status == 429 else None)
    if status in (401, 403):
        raise ModelError("error.image.key_rejected", model=label)
    if status == 404:  # the route is not there: SD WebUI started without --api, a wrong URL
        raise ModelError("error.image.no_api", model=label, path=response.request.url.path)
    if status >= 400:
        raise ImageRefusedError("error.image.refused", model=label, said=_said(response))
    return response


def json_of(response: httpx.Response, label: str) -> Any:
    """The JSON body of a reply (a body that is not JSON is the server's fault)."""
    try:
        return response.json()
    except ValueError as e:
        raise ModelError("error.image.bad_reply", model=label) from e


__all__ = ["json_of", "send"]
