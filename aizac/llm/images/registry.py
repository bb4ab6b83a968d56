"""The image provider table: one row per spec prefix of the ``image`` role (pure).

Like :mod:`aizac.llm.registry` for chat models: a row names its builder (``"module:function"``,
imported only when used), whether its pictures cost money or quota (counted against a project's
image budget), the form of its spec and an example for hints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ImageSpecForm = Literal["none", "model", "url", "url_optional"]


@dataclass(frozen=True)
class ImageProviderRow:
    """One image provider.

    Attributes:
        name: the spec prefix (``sdwebui`` in ``sdwebui:http://127.0.0.1:7860``).
        builder: ``"module:function"`` building its :class:`~aizac.llm.images.base.ImageModel`
            from ``(spec, settings, setting)`` (no network I/O).
        billable: its pictures cost money or quota.
        form: ``none`` (``NAME``), ``model`` (``NAME:MODEL``), ``url`` (``NAME:URL:MODEL``),
            ``url_optional`` (``NAME:URL`` or ``NAME:URL:MODEL``).
        example: a spec shown in hints.
        key: the stored key it reads (:data:`aizac.stored_models.KEY_FIELDS`), if any.
    """

    name: str
    builder: str
    billable: bool
    form: ImageSpecForm
    example: str
    key: str = ""


ROWS: tuple[ImageProviderRow, ...] = (
    ImageProviderRow("typographic", "aizac.llm.images.typographic:build", False, "none",
                     "typographic"),
    ImageProviderRow("openai", "aizac.llm.images.openai_images:build", True, "model",
                     "openai:gpt-image-1", "openai"),
    ImageProviderRow("openai-compatible", "aizac.llm.images.openai_images:build", True, "url",
                     "openai-compatible:http://host:port/v1:model", "openai-compatible"),
    ImageProviderRow("sdwebui", "aizac.llm.images.sdwebui:build", True, "url_optional",
                     "sdwebui:http://127.0.0.1:7860", "sdwebui"),
    ImageProviderRow("comfyui", "aizac.llm.images.comfyui:build", True, "url",
                     "comfyui:http://127.0.0.1:8188:model.safetensors", "comfyui"),
)
"""A local Stable Diffusion WebUI or ComfyUI costs no money, but each picture costs minutes of
a GPU: they count against the budget too (a writer can raise it)."""


def row(name: str) -> ImageProviderRow | None:
    """The row for spec prefix ``name``, if any."""
    return next((r for r in ROWS if r.name == name), None)


def examples() -> str:
    """One example spec per provider, for hints."""
    return ", ".join(r.example for r in ROWS)


__all__ = ["ROWS", "ImageProviderRow", "examples", "row"]
