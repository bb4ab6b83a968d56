"""Keeping the ledger and the secrets registry in step with canon, once an episode commits.

:func:`record_episode` is what a workflow calls after an episode's candidates became canon: the
ledger picks up threads planted (and paid off) in the memory and marks the threads the episode
advanced; every character the draft let learn a secret is recorded as knowing it. Each step is
idempotent, so replaying the call after a crash changes nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aizac.continuity.canon import Canon
from aizac.continuity.claims import BeatLike, claims_of
from aizac.continuity.ledger import ForeshadowingLedger
from aizac.continuity.secrets import SecretsRegistry, learned_in

if TYPE_CHECKING:
    from aizac.memory.store import WriterMemory
    from aizac.storage.database import ProjectPlace


@dataclass(frozen=True)
class Books:
    """A project's ledger and secrets registry (its continuity books)."""

    ledger: ForeshadowingLedger
    secrets: SecretsRegistry


def open_books(where: ProjectPlace) -> Books:
    """The ledger and the registry of a project (its store, or an embedded project's folder)."""
    return Books(ForeshadowingLedger(where), SecretsRegistry(where))


def _texts(beats: Sequence[BeatLike], claims: Sequence[Any]) -> list[str]:
    texts = [c.text for c in claims]
    for b in beats:
        texts += [*b.events, *b.sets_up, *b.pays_off]
    return [t for t in texts if t.strip()]


def record_episode(
    memory: WriterMemory,
    books: Books,
    *,
    episode: int,
    beats: Sequence[BeatLike],
    candidates: Any = None,
) -> dict[str, list[str]]:
    """Bring the books up to date with committed episode ``episode``.

    Returns ``{"advanced": thread ids, "learned": "name: secret id" lines}`` for the
    decisions log.
    """
    claims = claims_of(candidates)
    books.ledger.sync(memory, episode)
    advanced = books.ledger.advance(episode, _texts(beats, claims))
    canon = Canon(cast={k: tuple(v) for k, v in memory.characters().items()})
    learned = []
    for secret_id, name, _beat in learned_in(books.secrets.secrets(), claims, canon):
        books.secrets.learn(secret_id, name, episode)
        learned.append(f"{name}: {secret_id}")
    return {"advanced": advanced, "learned": learned}


__all__ = ["Books", "open_books", "record_episode"]
