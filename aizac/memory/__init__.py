"""aizac's long-term memory: four tags in Chroma, a forgetting curve that costs nothing per
turn, pinned core memories, superseded facts, staged candidates and a short-term buffer."""

from aizac.memory.forgetting import forget_at, is_live, memory_factor, retention
from aizac.memory.records import TAGS, MemoryHit
from aizac.memory.short_term import ShortTermMemory
from aizac.memory.staging import CandidateBatch
from aizac.memory.store import WriterMemory

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
