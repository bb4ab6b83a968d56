"""The continuity check of one drafted episode against canon (see :func:`check_episode`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aizac.continuity.report import ContinuityReport

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from aizac.memory.staging import Candidate, CandidateBatch
    from aizac.memory.store import WriterMemory
    from aizac.writer.schemas import NovelBeat


def check_episode(
    memory: WriterMemory,
    *,
    episode: int,
    beats: Sequence[NovelBeat],
    prose: Mapping[int, str],
    candidates: CandidateBatch | Sequence[Candidate] | None = None,
    reviewer: BaseChatModel | None = None,
    language: str = "ko",
    ledger: Any = None,
    secrets: Any = None,
) -> ContinuityReport:
    """Check episode ``episode``'s draft against the memory's current canon.

    Args:
        memory: the project's memory (read only; nothing is written).
        episode: the episode number (1-based).
        beats: the episode's planned beats (``NovelBeat``: index, characters, location,
            dialogue speakers ...).
        prose: beat index -> the drafted prose of that beat.
        candidates: the draft's extracted candidate memories (a batch or its candidates).
        reviewer: the ``reviewer`` role's chat model for the optional model check.
        language: the project's language (``ko``, ``en``, ``zh``) for the messages.
        ledger: an optional :class:`~aizac.continuity.ledger.ForeshadowingLedger`.
        secrets: an optional :class:`~aizac.continuity.secrets.SecretsRegistry`.
    """
    return ContinuityReport(covered=tuple(b.index for b in beats if prose.get(b.index)))


__all__ = ["check_episode"]
