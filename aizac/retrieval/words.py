"""The words memory questions are read with (``words.toml`` beside this module: language data,
not code), read once."""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any


@functools.cache
def retrieval_words() -> dict[str, Any]:
    """The "who is" patterns and the hint words per memory tag."""
    with (resources.files("aizac.retrieval") / "words.toml").open("rb") as handle:
        return tomllib.load(handle)


__all__ = ["retrieval_words"]
