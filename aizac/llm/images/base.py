"""What an image model is asked and what it answers (pure data; no provider SDK).

Every image provider (:mod:`aizac.llm.images.registry`) builds an :class:`ImageModel`: one
``generate`` per picture and a ``check`` for the Models tab's "test connection" that costs no
image. Errors are :class:`~aizac.errors.ModelError`s with catalogue keys; a provider's refusal
of the prompt (a content policy) is :class:`ImageRefusedError`, never retried (the writer edits
the prompt); :class:`TransientImageError` marks what a retry may cure (429, 5xx, a dropped
connection) for :class:`~aizac.llm.images.resilient.RetryingImageModel`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from aizac.errors import ModelError

ImageKind = Literal["cover", "scene"]
PNG = "image/png"
JPEG = "image/jpeg"
WEBP = "image/webp"


@dataclass(frozen=True)
class Card:
    """The words a typographic image is set with (the offline default draws these)."""

    title: str
    subtitle: str = ""
    author: str = ""
    genre: str = ""


@dataclass(frozen=True)
class ImageRequest:
    """One picture to make.

    Attributes:
        kind: ``cover`` (portrait) or ``scene``.
        prompt: what to draw (shown to and edited by the writer first).
        negative: what not to draw (Stable Diffusion, ComfyUI).
        width, height: the size asked for (providers with fixed sizes take the nearest).
        card: the words of a typographic image.
        language: the story's language (a typographic image picks its font by it).
    """

    kind: ImageKind
    prompt: str
    width: int
    height: int
    negative: str = ""
    card: Card = field(default_factory=lambda: Card(""))
    language: str = "ko"


@dataclass(frozen=True)
class GeneratedImage:
    """A picture as the provider sent it.

    Attributes:
        data: the encoded image.
        media_type: ``image/png``, ``image/jpeg`` or ``image/webp``.
        model: the spec that made it (credentials never included).
        revised_prompt: the prompt as the provider rewrote it, when it says so.
    """

    data: bytes
    media_type: str
    model: str
    width: int = 0
    height: int = 0
    revised_prompt: str = ""


class ImageModel(Protocol):
    """An image provider's client.

    Attributes:
        label: the spec it was built from (redacted), for the gallery and the usage log.
        billable: each picture costs money or quota (counted against the project's budget).
    """

    label: str
    billable: bool

    def generate(self, request: ImageRequest) -> GeneratedImage: ...

    def check(self) -> str:
        """Reach the provider without making a picture; returns what it said (e.g. a model
        count). Raises :class:`~aizac.errors.ModelError` when it cannot be reached."""
        ...


class ImageRefusedError(ModelError):
    """The provider refused the prompt (a content policy, a request it will not take)."""

    default_hint = "error.image.refused.hint"


class TransientImageError(ModelError):
    """A failure a retry may cure (429, 5xx, timeout, dropped connection).

    Attributes:
        retry_after: seconds the provider asked to wait (``None``: not said).
    """

    def __init__(self, key: str, *, retry_after: float | None = None, **params: Any) -> None:
        self.retry_after = retry_after
        super().__init__(key, **params)


def sniff_media_type(data: bytes) -> str | None:
    """The media type of encoded image bytes by their signature (``None``: not an image)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return WEBP
    return None


__all__ = [
    "JPEG",
    "PNG",
    "WEBP",
    "Card",
    "GeneratedImage",
    "ImageKind",
    "ImageModel",
    "ImageRefusedError",
    "ImageRequest",
    "TransientImageError",
    "sniff_media_type",
]
