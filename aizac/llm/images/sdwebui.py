"""A local Stable Diffusion WebUI (AUTOMATIC1111 or Forge) through its API, ``/sdapi/v1/txt2img``.

The WebUI must run with ``--api``; with ``--api-auth user:password`` the stored ``sdwebui`` key
(``aizac models key sdwebui``) is that ``user:password``, sent as HTTP basic auth. The spec's
optional checkpoint is asked for with ``override_settings`` (the loaded one otherwise). "Test
connection" lists the server's checkpoints (``/sdapi/v1/sd-models``): it makes no picture.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import httpx

from aizac.errors import ModelError
from aizac.llm.images.base import GeneratedImage, ImageRequest, sniff_media_type
from aizac.llm.images.http import json_of, send
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings

TXT2IMG = "/sdapi/v1/txt2img"
MODELS = "/sdapi/v1/sd-models"


class SDWebUIImages:
    """A Stable Diffusion WebUI client."""

    billable = True

    def __init__(self, *, base_url: str, checkpoint: str, label: str, steps: int,
                 timeout: float, auth: tuple[str, str] | None = None,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.checkpoint = checkpoint
        self.label = label
        self.steps = steps
        self.client = httpx.Client(base_url=self.base_url, timeout=timeout, auth=auth,
                                   transport=transport)

    def payload(self, request: ImageRequest) -> dict[str, Any]:
        """The txt2img body of ``request`` (sizes rounded to the multiple of 8 SD needs)."""
        body: dict[str, Any] = {
            "prompt": request.prompt,
            "negative_prompt": request.negative,
            "width": request.width // 8 * 8,
            "height": request.height // 8 * 8,
            "steps": self.steps,
            "cfg_scale": 7,
            "sampler_name": "Euler a",
            "seed": -1,
            "batch_size": 1,
            "n_iter": 1,
            "send_images": True,
            "save_images": False,
        }
        if self.checkpoint:
            body["override_settings"] = {"sd_model_checkpoint": self.checkpoint}
            body["override_settings_restore_afterwards"] = True
        return body

    def generate(self, request: ImageRequest) -> GeneratedImage:
        reply = json_of(send(self.client, "POST", TXT2IMG, self.label,
                             json=self.payload(request)), self.label)
        images = reply.get("images") if isinstance(reply, dict) else None
        if not images or not isinstance(images[0], str):
            raise ModelError("error.image.empty", model=self.label)
        encoded = images[0].split(",", 1)[-1]  # some builds send a data: URL
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError) as e:
            raise ModelError("error.image.not_image", model=self.label) from e
        media = sniff_media_type(data)
        if media is None:
            raise ModelError("error.image.not_image", model=self.label)
        return GeneratedImage(data, media, self.label)

    def check(self) -> str:
        listed = json_of(send(self.client, "GET", MODELS, self.label), self.label)
        names = [str(m.get("title") or m.get("model_name")) for m in listed
                 if isinstance(m, dict)] if isinstance(listed, list) else []
        if self.checkpoint and not any(self.checkpoint in n for n in names):
            raise ModelError("error.image.no_checkpoint", model=self.label,
                             checkpoint=self.checkpoint, found=", ".join(names[:5]) or "-")
        return f"{len(names)} checkpoints"


def build(spec: ModelSpec, settings: Settings, setting: str) -> SDWebUIImages:
    """The client for an ``sdwebui:`` spec (no network I/O)."""
    from aizac.llm.images.specs import spec_label

    auth = None
    if settings.sdwebui_auth is not None:
        user, _, password = settings.sdwebui_auth.get_secret_value().partition(":")
        auth = (user, password)
    return SDWebUIImages(base_url=spec.base_url or "http://127.0.0.1:7860",
                         checkpoint=spec.model, label=spec_label(spec),
                         steps=settings.image_steps, timeout=settings.image_timeout, auth=auth)


__all__ = ["MODELS", "TXT2IMG", "SDWebUIImages", "build"]
