"""What the autopilot says to its models, per story language: ``prompts.toml`` beside this
module (language data, not code), read once."""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any


@functools.cache
def _all() -> dict[str, Any]:
    with (resources.files("aizac.autopilot") / "prompts.toml").open("rb") as handle:
        return tomllib.load(handle)


def prompt_data(part: str) -> dict[str, dict[str, Any]]:
    """One part's texts (``review``, ``steering``, ``outline``), by story language."""
    return dict(_all()[part])


__all__ = ["prompt_data"]
