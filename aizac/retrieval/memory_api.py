"""The slice of WriterMemory the retrieval layer reads (structural types, no I/O).

Typing against a Protocol keeps :mod:`aizac.retrieval` testable with any object that offers
these methods, and documents exactly what retrieval depends on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from langchain_core.embeddings import Embeddings


class Hit(Protocol):
    """One memory as returned by WriterMemory reads."""

    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def tag(self) -> str: ...
    @property
    def metadata(self) -> dict[str, Any]: ...
    @property
    def pinned(self) -> bool: ...
    @property
    def memory_factor(self) -> float: ...
    @property
    def vivid(self) -> bool: ...


class ShortTerm(Protocol):
    """The rolling recent-summary buffer."""

    def text(self) -> str: ...


class MemoryReader(Protocol):
    """What retrieval calls on a WriterMemory."""

    @property
    def turn(self) -> int: ...
    @property
    def embeddings(self) -> Embeddings: ...
    @property
    def short_term(self) -> ShortTerm: ...

    def __len__(self) -> int: ...

    def recall(
        self,
        query: str,
        k: int = 5,
        where: dict[str, Any] | None = None,
        reinforce: bool = True,
        include_forgotten: bool = False,
        include_superseded: bool = False,
        tag: str | None = None,
        cued: bool = False,
    ) -> Sequence[Hit]: ...

    def get_where(
        self,
        where: dict[str, Any] | None,
        limit: int | None = None,
        *,
        include_forgotten: bool = False,
        include_superseded: bool = False,
    ) -> Sequence[Hit]: ...

    def relation(self, a: str, b: str) -> Hit | None: ...

    def character_state(self, name: str) -> Sequence[Hit]: ...

    def characters(self) -> dict[str, list[str]]: ...

    def open_foreshadowing(self) -> Sequence[Hit]: ...

    def world_rules(self) -> Sequence[Hit]: ...

    def reinforce(self, ids: Sequence[str]) -> Any: ...

    # Cued recall: current facts, faded or not, that a scene's cast or words name.
    def current_states(self, name: str) -> Sequence[Hit]: ...

    def current_relation(self, a: str, b: str) -> Hit | None: ...

    def cued_settings(self, keywords: Sequence[str]) -> Sequence[Hit]: ...

    def setting_keywords(self) -> Sequence[str]: ...


if TYPE_CHECKING:  # WriterMemory must keep satisfying the protocol (checked by mypy only)
    from aizac.memory import WriterMemory

    def _conforms(memory: WriterMemory) -> MemoryReader:
        return memory
