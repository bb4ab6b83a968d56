"""Few-shot from the writer: the passages they rewrote that are most like the scene to write.

Candidates are the writer's own prose (edited or written from nothing) in the project's
language. They are embedded with the project's embedding (vectors cached in the style book,
keyed by the embedding's fingerprint and the text), the scene is embedded as a query, and the
nearest ``k`` by cosine are chosen (ties keep the newest first). Fitting them to the prompt's
budget is :mod:`aizac.style.prompt`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aizac.llm.embeddings import embedding_fingerprint
from aizac.memory.records import top_k_cosine
from aizac.style.profile import Passage

EMBED_CHARS = 1000
"""Characters of a passage that are embedded (its opening carries its manner)."""
MIN_CHARS = 40
"""Shorter passages say too little to imitate."""

__all__ = ["candidates", "nearest"]


def candidates(passages: Sequence[Passage]) -> list[Passage]:
    """The writer's prose passages worth showing, newest first (as the book gives them)."""
    return [p for p in passages if p.kind == "prose" and len(p.writer_text.strip()) >= MIN_CHARS]


def nearest(passages: Sequence[Passage], query: str, embeddings: Any, book: Any,
            k: int = 3) -> list[Passage]:
    """The ``k`` passages nearest to ``query`` (cached vectors in ``book``)."""
    pool = candidates(passages)
    if not pool or not query.strip() or k <= 0:
        return []
    fingerprint = embedding_fingerprint(embeddings)
    known = book.vectors(pool, fingerprint)
    missing = [p for p in pool if p.key not in known]
    if missing:
        texts = [p.writer_text[:EMBED_CHARS] for p in missing]
        vectors = [[float(x) for x in v] for v in embeddings.embed_documents(texts)]
        fresh = {p.key: (p.writer_text, v) for p, v in zip(missing, vectors, strict=True)}
        book.save_vectors(fresh, fingerprint)
        known.update({key: v for key, (_, v) in fresh.items()})
    q = [float(x) for x in embeddings.embed_query(query)]
    order = top_k_cosine(q, [known[p.key] for p in pool], k)
    return [pool[i] for i, _ in order]
