"""What the settings and the code that reads them share: role names and value parsers.

Light (no pydantic, no provider): :mod:`aizac.settings` checks its values with these parsers
when it is built, and :mod:`aizac.llm` reads the same values with them, so the settings never
import the model layer above them (``aizac.layers``).
"""

from __future__ import annotations

ROLES: tuple[str, ...] = ("planner", "writer", "extractor", "reviewer")
"""The chat roles, each a ``<role>_model`` setting with an optional fallback."""
IMAGE_ROLE = "image"
"""The role that draws covers and illustrations (an image model, not a chat model)."""
MODEL_ROLES: tuple[str, ...] = (*ROLES, IMAGE_ROLE)
"""Every role a model spec can be stored for (``aizac models set``, the Models tab)."""


def port_numbers(text: str) -> tuple[int, ...]:
    """``"11434, 1234"`` -> ``(11434, 1234)``, each once (``AIZAC_DISCOVER_PORTS``; empty for a
    blank text, which :func:`aizac.llm.discovery.parse_ports` reads as the usual ports).

    Raises:
        ValueError: an entry is not a port number.
    """
    ports = []
    for part in text.replace(";", ",").split(","):
        if part.strip():
            port = int(part.strip())
            if not 0 < port < 65536:
                raise ValueError(f"{port} is not a port number")
            ports.append(port)
    return tuple(dict.fromkeys(ports))


def parse_size(text: str) -> tuple[int, int]:
    """``"1024x1536"`` -> ``(1024, 1536)`` (ValueError for anything else)."""
    w, sep, h = text.lower().partition("x")
    if not sep:
        raise ValueError(f"{text!r} is not WIDTHxHEIGHT")
    width, height = int(w), int(h)
    if not (64 <= width <= 4096 and 64 <= height <= 4096):
        raise ValueError(f"{text!r}: each side must be 64-4096 pixels")
    return width, height
