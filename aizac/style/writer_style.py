"""One project's style: its evidence, the writer's profile, the prompt notes and the drift.

:class:`WriterStyle` is the writer agent's collaborator: it records what the model drafted and
what the writer made of it (:class:`~aizac.style.store.StyleBook`), computes the profile from
the writer's own text, builds the style notes of a prose prompt (profile + nearest passages,
chosen with the project's embedding) within a token budget, and reports each episode's drift.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aizac.style.drift import DriftReport, drift
from aizac.style.fewshot import nearest
from aizac.style.profile import StyleProfile, build_profile
from aizac.style.prompt import StyleBlock, style_block
from aizac.style.store import StyleBook

EXAMPLES = 3
"""Writer passages a prose prompt may show (2-3, as many as fit)."""

__all__ = ["EXAMPLES", "WriterStyle"]


class WriterStyle:
    """The style of one project's writer.

    Args:
        book: the project's style evidence.
        language: the project's language.
        embeddings: the project's embeddings (few-shot selection); ``None`` shows no passages.
    """

    def __init__(self, book: StyleBook, language: str, embeddings: Any = None) -> None:
        self.book = book
        self.language = language
        self.embeddings = embeddings

    @classmethod
    def open(cls, project_dir: Path, project: str, language: str, *, data_dir: Path | None,
             embeddings: Any = None) -> WriterStyle:
        return cls(StyleBook(project_dir, project, writer_dir=data_dir), language, embeddings)

    # ------------------------------------------------------------------------ evidence
    def drafted(self, beat_id: int, kind: str, text: str, *, episode: int, index: int) -> None:
        """The model wrote ``text`` (prose, or a beat's lines) for a beat."""
        if text.strip():
            self.book.record_model(beat_id, kind, text, episode=episode, index=index,
                                   language=self.language)

    def edited(self, beat_id: int, kind: str, text: str, *, episode: int, index: int) -> None:
        """The writer saved ``text`` for a beat."""
        if text.strip():
            self.book.record_writer(beat_id, kind, text, episode=episode, index=index,
                                    language=self.language)

    # ------------------------------------------------------------------------- reading
    def profile(self) -> StyleProfile:
        """The writer's profile from their own text (the evidence in scope)."""
        return build_profile(self.book.passages(self.language), self.language)

    def notes(self, query: str, budget: int) -> StyleBlock:
        """The style notes of a prose prompt about ``query`` (the scene), within ``budget``."""
        passages = self.book.passages(self.language)
        profile = build_profile(passages, self.language)
        examples = []
        if self.embeddings is not None and profile.ready:
            examples = nearest(passages, query, self.embeddings, self.book, k=EXAMPLES)
        return style_block(profile, examples, self.language, budget)

    def drift(self, episode: int, profile: StyleProfile | None = None) -> DriftReport | None:
        """How far the model's drafts of ``episode`` are from the profile (``None`` without
        drafts or without the writer's text)."""
        profile = profile or self.profile()
        drafts = [p.model_text for p in self.book.drafts(episode)]
        if not drafts or not profile.ready:
            return None
        return drift(profile, drafts, episode)

    def drifts(self) -> list[DriftReport]:
        """The drift of every drafted episode, in order."""
        profile = self.profile()
        found = [self.drift(e, profile) for e in self.book.episodes()]
        return [d for d in found if d is not None]
