"""Loopback image servers speaking the real wire formats, with faults.

- :class:`OpenAIImagesServer`: the OpenAI API of :class:`~acceptance.openai_server.OpenAIServer`
  plus ``POST /v1/images/generations`` (``{"created", "data": [{"b64_json", "revised_prompt"}]}``;
  a refused prompt is HTTP 400 ``{"error": {"code": "content_policy_violation", ...}}``).
- :class:`SDWebUIServer`: Stable Diffusion WebUI's ``POST /sdapi/v1/txt2img`` (``{"images":
  [base64 PNG], "parameters", "info"}``) and ``GET /sdapi/v1/sd-models``, optionally behind HTTP
  basic auth (``--api-auth``); validation errors are 422 ``{"detail": [...]}``.
- :class:`ComfyUIServer`: ComfyUI's ``POST /prompt`` (``prompt_id`` or 400 with ``node_errors``),
  ``GET /history/<id>`` (empty until the run ends, ``polls`` requests later), ``GET /view``,
  ``GET /system_stats``, ``GET /object_info/CheckpointLoaderSimple``.

Faults (:class:`Fault`, queued per path with ``fault()``): a status with an optional
``Retry-After``, or ``refuse=True`` for the provider's refusal. Every picture is a real PNG
drawn with Pillow from the prompt (its colour from the prompt's hash), so a screenshot shows
which server made it.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from acceptance.loopback import Handler, LoopbackServer, Seen
from acceptance.openai_server import OpenAIServer

IMAGES = "/v1/images/generations"
TXT2IMG = "/sdapi/v1/txt2img"
SD_MODELS = "/sdapi/v1/sd-models"


@dataclass
class Fault:
    path: str
    status: int | None = None
    retry_after: float | None = None
    refuse: bool = False


def picture(prompt: str, width: int, height: int, tag: str) -> bytes:
    """A PNG of ``width`` x ``height`` coloured by ``prompt``'s hash, labelled ``tag``."""
    from PIL import Image, ImageDraw

    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    top, bottom = tuple(digest[:3]), tuple(digest[3:6])
    mask = Image.linear_gradient("L").resize((width, height))
    image = Image.composite(Image.new("RGB", (width, height), bottom),
                            Image.new("RGB", (width, height), top), mask)
    draw = ImageDraw.Draw(image)
    for i in range(6):  # a few shapes, so it reads as a picture
        x, y = digest[6 + i] * width // 256, digest[12 + i] * height // 256
        r = max(8, digest[18 + i] * min(width, height) // 900)
        draw.ellipse([x - r, y - r, x + r, y + r], fill=tuple(digest[i:i + 3]))
    draw.rectangle([0, height - 40, width, height], fill=(0, 0, 0))
    draw.text((12, height - 30), tag, fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


class _Faulty:
    faults: list[Fault]
    lock: Any

    def fault(self, *faults: Fault) -> None:
        with self.lock:
            self.faults.extend(faults)

    def take_fault(self, path: str) -> Fault | None:
        with self.lock:
            for i, fault in enumerate(self.faults):
                if fault.path == path:
                    return self.faults.pop(i)
        return None


class OpenAIImagesServer(OpenAIServer):
    """The loopback OpenAI server with the images endpoint (see the module docstring); its
    chat faults stay ``fault()``, the images endpoint's are ``image_fault()``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.image_faults: list[Fault] = []

    def image_fault(self, *faults: Fault) -> None:
        with self.lock:
            self.image_faults.extend(faults)

    def _image_fault(self) -> Fault | None:
        with self.lock:
            return self.image_faults.pop(0) if self.image_faults else None

    @property
    def image_requests(self) -> list[Seen]:
        return self.requests_to(IMAGES)

    def handle(self, handler: Handler, seen: Seen) -> None:
        if seen.path.split("?", 1)[0] != IMAGES:
            super().handle(handler, seen)
            return
        fault = self._image_fault()
        if fault is not None and fault.status is not None:
            headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after else {}
            kind = "rate_limit_exceeded" if fault.status == 429 else "server_error"
            handler.send_json({"error": {"message": f"scripted HTTP {fault.status}",
                                         "type": kind, "code": kind}}, fault.status, **headers)
            return
        if fault is not None and fault.refuse:
            handler.send_json({"error": {
                "message": "Your request was rejected as a result of our safety system.",
                "type": "invalid_request_error", "param": None,
                "code": "content_policy_violation"}}, 400)
            return
        body = seen.body if isinstance(seen.body, dict) else {}
        width, height = (int(x) for x in str(body.get("size", "1024x1024")).split("x"))
        data = picture(str(body.get("prompt", "")), width // 4, height // 4, "OpenAI images")
        handler.send_json({
            "created": int(time.time()),
            "data": [{"b64_json": base64.b64encode(data).decode(),
                      "revised_prompt": str(body.get("prompt", ""))[:200]}],
        })


class SDWebUIServer(LoopbackServer, _Faulty):
    """Stable Diffusion WebUI's API (see the module docstring)."""

    def __init__(self, *, auth: tuple[str, str] | None = None,
                 checkpoints: tuple[str, ...] = ("sd_xl_base_1.0.safetensors [31e35c80fc]",)
                 ) -> None:
        super().__init__()
        self.auth = auth
        self.checkpoints = checkpoints
        self.faults = []

    def _authorised(self, seen: Seen) -> bool:
        if self.auth is None:
            return True
        token = base64.b64encode(f"{self.auth[0]}:{self.auth[1]}".encode()).decode()
        return seen.headers.get("authorization") == f"Basic {token}"

    def handle(self, handler: Handler, seen: Seen) -> None:
        path = seen.path.split("?", 1)[0]
        if not self._authorised(seen):
            handler.send_json({"detail": "Incorrect credentials"}, 401,
                              WWW_Authenticate="Basic")
            return
        fault = self.take_fault(path)
        if fault is not None and fault.status is not None:
            headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after else {}
            handler.send_json({"error": "OutOfMemoryError", "detail": "",
                               "body": "", "errors": "CUDA out of memory"}, fault.status,
                              **headers)
            return
        if path == SD_MODELS:
            handler.send_json([{"title": c, "model_name": c.split(".")[0], "hash": "31e35c80fc",
                                "filename": f"/models/Stable-diffusion/{c.split(' ')[0]}"}
                               for c in self.checkpoints])
            return
        if path != TXT2IMG or not isinstance(seen.body, dict):
            handler.send_json({"detail": "Not Found"}, 404)
            return
        if fault is not None and fault.refuse:
            handler.send_json({"detail": [{"loc": ["body", "prompt"],
                                           "msg": "prompt refused by the safety filter",
                                           "type": "value_error"}]}, 422)
            return
        body = seen.body
        width, height = int(body.get("width", 512)), int(body.get("height", 512))
        data = picture(str(body.get("prompt", "")), width // 4, height // 4, "SD WebUI")
        handler.send_json({"images": [base64.b64encode(data).decode()],
                           "parameters": body,
                           "info": json.dumps({"prompt": body.get("prompt"), "seed": 1234})})


class ComfyUIServer(LoopbackServer, _Faulty):
    """ComfyUI's API (see the module docstring); a run finishes after ``polls`` history reads."""

    def __init__(self, *, checkpoints: tuple[str, ...] = ("v1-5-pruned-emaonly.safetensors",),
                 polls: int = 2) -> None:
        super().__init__()
        self.checkpoints = checkpoints
        self.polls = polls
        self.faults = []
        self.runs: dict[str, dict[str, Any]] = {}
        self.files: dict[str, bytes] = {}

    def handle(self, handler: Handler, seen: Seen) -> None:
        parts = urlsplit(seen.path)
        path = parts.path
        fault = self.take_fault(path.split("/")[1] and "/" + path.split("/")[1])
        if fault is not None and fault.status is not None:
            headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after else {}
            handler.send_json({"error": "scripted"}, fault.status, **headers)
            return
        if path == "/system_stats":
            handler.send_json({"system": {"os": "posix", "comfyui_version": "0.3.40",
                                          "python_version": "3.11"}, "devices": []})
        elif path == "/object_info/CheckpointLoaderSimple":
            handler.send_json({"CheckpointLoaderSimple": {"input": {"required": {
                "ckpt_name": [list(self.checkpoints), {}]}}}})
        elif path == "/prompt" and isinstance(seen.body, dict):
            self._queue(handler, seen.body, fault)
        elif path.startswith("/history/"):
            self._history(handler, path.rsplit("/", 1)[-1])
        elif path == "/view":
            name = parse_qs(parts.query).get("filename", [""])[0]
            if name not in self.files:
                handler.send_json({"error": "not found"}, 404)
                return
            handler.send_body(200, self.files[name], "image/png")
        else:
            handler.send_json({"error": "not found"}, 404)

    def _queue(self, handler: Handler, body: dict[str, Any], fault: Fault | None) -> None:
        graph = body.get("prompt") or {}
        ckpt = next((n["inputs"].get("ckpt_name") for n in graph.values()
                     if n.get("class_type") == "CheckpointLoaderSimple"), None)
        if ckpt not in self.checkpoints:
            handler.send_json({
                "error": {"type": "prompt_outputs_failed_validation",
                          "message": "Prompt outputs failed validation", "details": "",
                          "extra_info": {}},
                "node_errors": {"1": {"errors": [{
                    "type": "value_not_in_list", "message": "Value not in list",
                    "details": f"ckpt_name: '{ckpt}' not in {list(self.checkpoints)}"}],
                    "class_type": "CheckpointLoaderSimple"}}}, 400)
            return
        prompt_id = str(uuid.uuid4())
        text = next((n["inputs"].get("text", "") for n in graph.values()
                     if n.get("class_type") == "CLIPTextEncode"), "")
        latent = next(n["inputs"] for n in graph.values()
                      if n.get("class_type") == "EmptyLatentImage")
        with self.lock:
            self.runs[prompt_id] = {"left": self.polls, "text": text, "size": latent,
                                    "fail": bool(fault and fault.refuse)}
        handler.send_json({"prompt_id": prompt_id, "number": len(self.runs), "node_errors": {}})

    def _history(self, handler: Handler, prompt_id: str) -> None:
        with self.lock:
            run = self.runs.get(prompt_id)
            if run is not None and run["left"] > 0:
                run["left"] -= 1
                run = None
        if run is None:
            handler.send_json({})
            return
        if run["fail"]:
            status = {"status_str": "error", "completed": False, "messages": [
                ["execution_start", {"prompt_id": prompt_id}],
                ["execution_error", {"prompt_id": prompt_id, "node_id": "5",
                                     "node_type": "KSampler",
                                     "exception_message": "NSFW content detected"}]]}
            handler.send_json({prompt_id: {"prompt": [], "outputs": {}, "status": status}})
            return
        name = f"aizac_{prompt_id[:8]}_.png"
        size = run["size"]
        with self.lock:
            self.files[name] = picture(run["text"], size["width"] // 4, size["height"] // 4,
                                       "ComfyUI")
        handler.send_json({prompt_id: {
            "prompt": [], "outputs": {"7": {"images": [
                {"filename": name, "subfolder": "", "type": "output"}]}},
            "status": {"status_str": "success", "completed": True, "messages": []}}})


@pytest.fixture
def openai_images() -> Iterator[OpenAIImagesServer]:
    server = OpenAIImagesServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def sdwebui() -> Iterator[SDWebUIServer]:
    server = SDWebUIServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def comfyui() -> Iterator[ComfyUIServer]:
    server = ComfyUIServer()
    server.start()
    yield server
    server.stop()
