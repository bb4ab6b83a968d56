"""Routing presets: which kind of model each role goes to, set in one step (pure).

``light-local`` is the split the project's origin planned: the light, frequent roles (memory
extraction and beat summaries: the ``extractor``) go to a model server on the writer's own
machine, and what the writer reads (plot and beat design: ``planner``; prose: ``writer``;
review: ``reviewer``) to a configured cloud model. The usage log shows the split per model
(:meth:`aizac.llm.usage.UsageLog.by_model`).
"""

from __future__ import annotations

from typing import Literal

from aizac.settings import ROLES

Side = Literal["local", "cloud"]
PRESETS: dict[str, dict[str, Side]] = {
    "light-local": {
        "extractor": "local",
        "planner": "cloud",
        "writer": "cloud",
        "reviewer": "cloud",
    },
}
"""Preset name -> role -> the side its model comes from."""
CLOUD_PROVIDERS: tuple[str, ...] = ("openai", "anthropic", "clova")
"""The providers that count as a cloud model when the cloud spec is not given."""


def assign(preset: str, local: str, cloud: str) -> dict[str, str]:
    """Role -> spec for ``preset`` with the ``local`` and ``cloud`` specs (pure).

    Raises:
        KeyError: an unknown preset.
    """
    sides = PRESETS[preset]
    return {role: local if sides[role] == "local" else cloud for role in ROLES}
