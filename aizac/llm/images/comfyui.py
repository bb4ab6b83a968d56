"""ComfyUI through its HTTP API: queue a text-to-image workflow, wait for it, fetch the picture.

``POST /prompt`` takes a workflow in ComfyUI's API format (nodes by id, each with its
``class_type`` and ``inputs``; an input ``["4", 0]`` is output 0 of node 4) and answers its
``prompt_id``; ``GET /history/<id>`` is empty until the run ends, then holds its status and the
files each output node saved; ``GET /view?filename=..&subfolder=..&type=output`` sends a file.
A workflow ComfyUI refuses (``node_errors``: a checkpoint it does not have) is a refused request;
an execution error is reported with ComfyUI's own message. The workflow is the basic one every
ComfyUI has: checkpoint -> two text encodings -> empty latent -> KSampler -> VAE decode -> save.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx

from aizac.errors import ModelError
from aizac.llm.images.base import (
    GeneratedImage,
    ImageRequest,
    TransientImageError,
    sniff_media_type,
)
from aizac.llm.images.http import json_of, send
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings

POLL_SECONDS = 0.5


def workflow(request: ImageRequest, checkpoint: str, *, steps: int, seed: int) -> dict[str, Any]:
    """The text-to-image workflow of ``request`` in ComfyUI's API format."""
    return {
        "1": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": checkpoint}},
        "2": {"class_type": "CLIPTextEncode", "inputs": {"text": request.prompt, "clip": ["1", 1]}},
        "3": {"class_type": "CLIPTextEncode",
              "inputs": {"text": request.negative, "clip": ["1", 1]}},
        "4": {"class_type": "EmptyLatentImage",
              "inputs": {"width": request.width // 8 * 8, "height": request.height // 8 * 8,
                         "batch_size": 1}},
        "5": {"class_type": "KSampler",
              "inputs": {"model": ["1", 0], "positive": ["2", 0], "negative": ["3", 0],
                         "latent_image": ["4", 0], "seed": seed, "steps": steps, "cfg": 7.0,
                         "sampler_name": "euler", "scheduler": "normal", "denoise": 1.0}},
        "6": {"class_type": "VAEDecode", "inputs": {"samples": ["5", 0], "vae": ["1", 2]}},
        "7": {"class_type": "SaveImage",
              "inputs": {"images": ["6", 0], "filename_prefix": "aizac"}},
    }


class ComfyUIImages:
    """A ComfyUI client for one checkpoint."""

    billable = True

    def __init__(self, *, base_url: str, checkpoint: str, label: str, steps: int,
                 timeout: float, token: str | None = None,
                 transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 seed: Callable[[], int] | None = None) -> None:
        self.checkpoint = checkpoint
        self.label = label
        self.steps = steps
        self.timeout = timeout
        self.sleep = sleep
        self.clock = clock
        self.seed = seed or (lambda: uuid.uuid4().int % 2**48)
        headers = {"Authorization": f"Bearer {token}"} if token else None
        self.client = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout,
                                   headers=headers, transport=transport)
        self.client_id = uuid.uuid4().hex

    def generate(self, request: ImageRequest) -> GeneratedImage:
        graph = workflow(request, self.checkpoint, steps=self.steps, seed=self.seed())
        queued = json_of(send(self.client, "POST", "/prompt", self.label,
                              json={"prompt": graph, "client_id": self.client_id}), self.label)
        prompt_id = str(queued.get("prompt_id") or "") if isinstance(queued, dict) else ""
        if not prompt_id:
            raise ModelError("error.image.bad_reply", model=self.label)
        entry = self._wait(prompt_id)
        for output in (entry.get("outputs") or {}).values():
            for image in output.get("images") or []:
                params = {"filename": image.get("filename", ""),
                          "subfolder": image.get("subfolder", ""),
                          "type": image.get("type", "output")}
                data = send(self.client, "GET", "/view", self.label, params=params).content
                media = sniff_media_type(data)
                if media is None:
                    raise ModelError("error.image.not_image", model=self.label)
                return GeneratedImage(data, media, self.label)
        raise ModelError("error.image.empty", model=self.label)

    def _wait(self, prompt_id: str) -> dict[str, Any]:
        """The history entry of a finished run (polled; an error run says ComfyUI's words)."""
        deadline = self.clock() + self.timeout
        while True:
            history = json_of(send(self.client, "GET", f"/history/{prompt_id}", self.label),
                              self.label)
            entry = history.get(prompt_id) if isinstance(history, dict) else None
            if isinstance(entry, dict):
                status = entry.get("status") or {}
                if status.get("status_str") == "error":
                    raise ModelError("error.image.failed_run", model=self.label,
                                     said=_execution_error(status))
                if status.get("completed", True):
                    return entry
            if self.clock() >= deadline:
                raise TransientImageError("error.image.unreachable", model=self.label,
                                          cause="timeout")
            self.sleep(POLL_SECONDS)

    def check(self) -> str:
        stats = json_of(send(self.client, "GET", "/system_stats", self.label), self.label)
        info = json_of(send(self.client, "GET", "/object_info/CheckpointLoaderSimple",
                            self.label), self.label)
        try:
            names = list(info["CheckpointLoaderSimple"]["input"]["required"]["ckpt_name"][0])
        except (KeyError, IndexError, TypeError):
            names = []
        if self.checkpoint not in names:
            raise ModelError("error.image.no_checkpoint", model=self.label,
                             checkpoint=self.checkpoint, found=", ".join(names[:5]) or "-")
        version = (stats.get("system") or {}).get("comfyui_version", "?")
        return f"ComfyUI {version}, {len(names)} checkpoints"


def _execution_error(status: dict[str, Any]) -> str:
    for message in status.get("messages") or []:
        if isinstance(message, list) and len(message) == 2 and message[0] == "execution_error":
            detail = message[1] or {}
            return str(detail.get("exception_message") or detail.get("node_type") or "")[:300]
    return ""


def build(spec: ModelSpec, settings: Settings, setting: str) -> ComfyUIImages:
    """The client for a ``comfyui:`` spec (no network I/O)."""
    from aizac.llm.images.specs import spec_label

    token = settings.comfyui_api_key.get_secret_value() if settings.comfyui_api_key else None
    return ComfyUIImages(base_url=spec.base_url or "http://127.0.0.1:8188",
                         checkpoint=spec.model, label=spec_label(spec),
                         steps=settings.image_steps, timeout=settings.image_timeout, token=token)


__all__ = ["ComfyUIImages", "build", "workflow"]
