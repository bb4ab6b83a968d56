"""aizac's long-term memory: four tags in Chroma, a forgetting curve that costs nothing per
turn, pinned core memories, superseded facts, staged candidates and a short-term buffer.

The Chroma-backed classes are imported on first use, so the pure parts (``aizac.memory.facts``,
``records``, ``forgetting``) load without Chroma.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aizac.memory.forgetting import forget_at, is_live, memory_factor, retention

if TYPE_CHECKING:
    from aizac.memory.records import TAGS, MemoryHit
    from aizac.memory.short_term import ShortTermMemory
    from aizac.memory.staging import CandidateBatch
    from aizac.memory.store import WriterMemory

_LAZY = {
    "TAGS": "aizac.memory.records",
    "MemoryHit": "aizac.memory.records",
    "ShortTermMemory": "aizac.memory.short_term",
    "CandidateBatch": "aizac.memory.staging",
    "WriterMemory": "aizac.memory.store",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'aizac.memory' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "TAGS",
    "CandidateBatch",
    "MemoryHit",
    "ShortTermMemory",
    "WriterMemory",
    "forget_at",
    "is_live",
    "memory_factor",
    "retention",
]
