"""OpenAI's images API, and any server that speaks it (``images.generate`` through the openai SDK).

``openai:MODEL`` uses ``OPENAI_API_KEY`` (and ``OPENAI_BASE_URL`` when set);
``openai-compatible:URL:MODEL`` sends the ``openai-compatible`` key only, never the OpenAI one.
The SDK's own retries are off (:class:`~aizac.llm.images.resilient.RetryingImageModel` is the one
retry layer). A refusal by the provider's safety system (``content_policy_violation``,
``moderation_blocked``) is :class:`~aizac.llm.images.base.ImageRefusedError`: the writer edits the
prompt. "Test connection" lists the server's models: it makes no picture.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from aizac.errors import ConfigError, ModelError
from aizac.llm.images.base import (
    GeneratedImage,
    ImageRefusedError,
    ImageRequest,
    TransientImageError,
    sniff_media_type,
)
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings

REFUSALS = ("content_policy_violation", "moderation_blocked", "content_filter")
"""Error codes the images API answers a refused prompt with."""
SIZES = ((1024, 1024), (1536, 1024), (1024, 1536), (1792, 1024), (1024, 1792))
"""Sizes the images models take; a request gets the nearest in shape."""


def nearest_size(width: int, height: int) -> str:
    """The accepted size closest in aspect ratio (then in area) to ``width`` x ``height``."""
    ratio = width / height
    best = min(SIZES, key=lambda s: (abs(s[0] / s[1] - ratio), abs(s[0] * s[1] - width * height)))
    return f"{best[0]}x{best[1]}"


def _code(error: Any) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return str(inner.get("code") or inner.get("type") or "")
    return str(getattr(error, "code", "") or "")


def _said(error: Any) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
    return str(error)[:300]


def _retry_after(error: Any) -> float | None:
    response = getattr(error, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class OpenAIImages:
    """An OpenAI images client for one model."""

    billable = True

    def __init__(self, *, model: str, label: str, api_key: str, base_url: str | None,
                 timeout: float) -> None:
        import openai

        self.model = model
        self.label = label
        self.client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout,
                                    max_retries=0)

    def _call(self, fn: Any, **kwargs: Any) -> Any:
        import openai

        try:
            return fn(**kwargs)
        except openai.RateLimitError as e:
            raise TransientImageError("error.image.busy", model=self.label, status=429,
                                      retry_after=_retry_after(e)) from e
        except openai.InternalServerError as e:
            raise TransientImageError("error.image.busy", model=self.label,
                                      status=e.status_code) from e
        except (openai.APITimeoutError, openai.APIConnectionError) as e:
            raise TransientImageError("error.image.unreachable", model=self.label,
                                      cause=type(e).__name__) from e
        except openai.AuthenticationError as e:
            raise ModelError("error.image.key_rejected", model=self.label) from e
        except openai.APIStatusError as e:
            if _code(e) in REFUSALS or "safety system" in _said(e):
                raise ImageRefusedError("error.image.refused", model=self.label,
                                        said=_said(e)) from e
            raise ModelError("error.image.rejected", model=self.label, status=e.status_code,
                             said=_said(e)) from e

    def generate(self, request: ImageRequest) -> GeneratedImage:
        kwargs: dict[str, Any] = {"model": self.model, "prompt": request.prompt, "n": 1,
                                  "size": nearest_size(request.width, request.height)}
        if not self.model.startswith("gpt-image"):  # gpt-image models always answer base64
            kwargs["response_format"] = "b64_json"
        reply = self._call(self.client.images.generate, **kwargs)
        items = list(getattr(reply, "data", None) or [])
        if not items or not getattr(items[0], "b64_json", None):
            raise ModelError("error.image.empty", model=self.label)
        try:
            data = base64.b64decode(items[0].b64_json, validate=True)
        except (binascii.Error, ValueError) as e:
            raise ModelError("error.image.not_image", model=self.label) from e
        media = sniff_media_type(data)
        if media is None:
            raise ModelError("error.image.not_image", model=self.label)
        revised = str(getattr(items[0], "revised_prompt", "") or "")
        return GeneratedImage(data, media, self.label, revised_prompt=revised)

    def check(self) -> str:
        listed = self._call(self.client.models.list)
        return f"{len(list(getattr(listed, 'data', []) or []))} models"


def build(spec: ModelSpec, settings: Settings, setting: str) -> OpenAIImages:
    """The client for an ``openai:`` or ``openai-compatible:`` image spec (no network I/O)."""
    from aizac.llm.images.specs import spec_label
    from aizac.llm.providers import require_package

    require_package("openai", "openai", setting)
    if spec.provider == "openai":
        key, base_url = settings.openai_api_key, settings.openai_base_url
        if key is None and base_url is None:
            raise ConfigError("error.image.no_key", env="OPENAI_API_KEY", setting=setting)
    else:
        key, base_url = settings.openai_compatible_api_key, spec.base_url
    secret = key.get_secret_value() if key is not None else "not-needed"
    return OpenAIImages(model=spec.model, label=spec_label(spec), api_key=secret,
                        base_url=base_url, timeout=settings.image_timeout)


__all__ = ["REFUSALS", "OpenAIImages", "build", "nearest_size"]
