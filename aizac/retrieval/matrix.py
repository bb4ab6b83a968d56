"""Relationship matrix: the current relation of every pair of a set of characters.

Each cell is one exact keyed lookup (``memory.relation(a, b)``, the latest live relation of the
canonical pair), never a similarity search, so the matrix is right however large the story is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations

from aizac.memory.records import canonical_pair, name_key
from aizac.retrieval.aliases import AliasResolver
from aizac.retrieval.memory_api import Hit, MemoryReader


@dataclass(frozen=True)
class RelationCell:
    """The current relation of one pair (``text`` is None when none is known)."""

    a: str
    b: str
    text: str | None
    memory_id: str | None
    chapter: int | None
    pinned: bool = False


@dataclass
class RelationMatrix:
    """Current relations between ``names`` (pairs keyed in canonical order)."""

    names: tuple[str, ...]
    cells: dict[tuple[str, str], RelationCell] = field(default_factory=dict)

    def get(self, a: str, b: str) -> RelationCell | None:
        """The cell of a pair, in either order (None when a == b or a name is not listed)."""
        if a == b:
            return None
        return self.cells.get(canonical_pair(a, b))

    def known(self) -> list[RelationCell]:
        """Cells with a current relation, in name order."""
        return [c for c in self.cells.values() if c.text is not None]

    def render(self, *, include_unknown: bool = False) -> str:
        """One line per pair: ``A — B: relation``."""
        lines = []
        for cell in self.cells.values():
            if cell.text is None and not include_unknown:
                continue
            lines.append(f"{cell.a} — {cell.b}: {cell.text or '(no known relation)'}")
        return "\n".join(lines)


def _cell(a: str, b: str, hit: Hit | None) -> RelationCell:
    if hit is None:
        return RelationCell(a, b, None, None, None)
    chapter = hit.metadata.get("chapter")
    return RelationCell(
        a, b, hit.text, hit.id, int(chapter) if chapter is not None else None, hit.pinned
    )


def relation_matrix(
    memory: MemoryReader, names: Iterable[str], *, resolver: AliasResolver | None = None,
    cued: bool = False,
) -> RelationMatrix:
    """Current relation of every pair among ``names`` (aliases resolved, duplicates merged).

    ``cued``: the names are a scene's cast, which recalls a pair's current relation even when
    it faded (nobody mentioned it for a long time); otherwise only live relations are shown
    (the inspector's view: forgetting decides what is offered unasked)."""
    resolver = resolver if resolver is not None else AliasResolver(memory.characters())
    canonical: list[str] = []
    seen: set[str] = set()
    for name in names:
        resolved = resolver.resolve(name) or " ".join(name.split())
        if resolved and name_key(resolved) not in seen:
            seen.add(name_key(resolved))
            canonical.append(resolved)
    matrix = RelationMatrix(names=tuple(canonical))
    for x, y in combinations(canonical, 2):
        a, b = canonical_pair(x, y)
        hit = memory.relation(a, b)
        if hit is None and cued:
            hit = memory.current_relation(a, b)
        matrix.cells[(a, b)] = _cell(a, b, hit)
    return matrix
