"""Secrets registry: who knows each secret, and characters acting on knowledge they cannot have.

A secret is a memory (usually pinned: the twist, a hidden identity) with a keyword that names it
in the draft, and the characters who know it. A character *uses* a secret when a dialogue line
of theirs or a state claim about them names its keyword; they *learn* it when a claim of the
draft names them, the keyword and a learning verb ("알게 됐다", "found out", "得知"). Using a secret
before learning it is a ``secret_leak`` error citing the secret's memory.

Storage: tables ``secrets`` and ``knowers`` of the project's continuity books (see
:mod:`aizac.continuity.ledger`), one transaction per change. :func:`learned_in` is pure; the
workflow records what it returns with :meth:`SecretsRegistry.learn` when the episode commits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select

from aizac.continuity.canon import Canon
from aizac.continuity.claims import Appearance, FactClaim
from aizac.continuity.ledger import connect
from aizac.continuity.report import Finding, message
from aizac.continuity.text import LEARN, has_any, mentions
from aizac.errors import InvalidInputError
from aizac.memory.facts import name_key
from aizac.storage.database import ProjectPlace, scope_of
from aizac.storage.tables import knowers, secrets


@dataclass(frozen=True)
class Secret:
    memory_id: str
    keyword: str
    text: str
    known_by: frozenset[str]
    """Name keys (:func:`~aizac.memory.facts.name_key`) of the characters who know it."""


def _learners(secret: Secret, claim: FactClaim, canon: Canon) -> list[str]:
    if not (mentions(claim.text, secret.keyword) and has_any(claim.text, LEARN)):
        return []
    named = [n for n in (claim.name, *claim.pair) if n]
    named += [c for c in canon.cast if mentions(claim.text, c)]
    return list(dict.fromkeys(canon.canonical(n) for n in named))


def learned_in(secrets: Iterable[Secret], claims: Sequence[FactClaim],
               canon: Canon) -> list[tuple[str, str, int | None]]:
    """``(secret id, character, beat)`` for each character the draft lets learn a secret."""
    out: list[tuple[str, str, int | None]] = []
    for s in secrets:
        for c in claims:
            for name in _learners(s, c, canon):
                if name_key(name) not in s.known_by:
                    out.append((s.memory_id, name, c.beat))
    return out


def _uses(secret: Secret, appear: Sequence[Appearance],
          claims: Sequence[FactClaim]) -> list[tuple[str, str, int | None]]:
    """``(character, quote, beat)`` for every use of the secret's keyword."""
    uses: list[tuple[str, str, int | None]] = []
    for a in appear:
        if a.speaking and not a.flashback and mentions(a.quote.partition(":")[2], secret.keyword):
            uses.append((a.name, a.quote, a.beat))
    for c in claims:
        if c.tag == "Character" and c.name and mentions(c.text, secret.keyword) and not has_any(
                c.text, LEARN):
            uses.append((c.name, c.text, c.beat))
    return uses


def leak_findings(secrets: Iterable[Secret], appear: Sequence[Appearance],
                  claims: Sequence[FactClaim], canon: Canon, *,
                  language: str) -> list[Finding]:
    """Characters using a secret they do not know (and did not learn earlier in the draft)."""
    out: list[Finding] = []
    for s in secrets:
        learned = {(name_key(n), b or 0) for _, n, b in learned_in([s], claims, canon)}
        reported: set[str] = set()
        for name, quote, beat in _uses(s, appear, claims):
            key = name_key(canon.canonical(name))
            knows = key in s.known_by or any(k == key and b <= (beat or 0) for k, b in learned)
            if knows or key in reported:
                continue
            reported.add(key)
            text = message("secret_leak", language, name=name, secret=s.text)
            out.append(Finding("secret_leak", "error", text, s.memory_id, quote, beat))
    return out


class SecretsRegistry:
    """The secrets of one project (its store, or an embedded project's folder)."""

    def __init__(self, where: ProjectPlace) -> None:
        self.scope = scope_of(where, "continuity")
        self.key = self.scope.project

    def _knower(self, memory_id: str, name: str, episode: int) -> Any:
        stmt = self.scope.db.insert(knowers).values(
            project=self.key, memory_id=memory_id, key=name_key(name), name=name, since=episode)
        return stmt.on_conflict_do_nothing(index_elements=["project", "memory_id", "key"])

    def add(self, memory_id: str, text: str, *, keyword: str, known_by: Sequence[str] = (),
            episode: int = 0) -> None:
        """Register the secret stated by memory ``memory_id`` (replaces a registration)."""
        if not name_key(keyword):
            raise InvalidInputError("error.continuity.secret_keyword")
        values = {"keyword": keyword.strip(), "text": text.strip(), "created": episode}
        stmt = self.scope.db.insert(secrets).values(project=self.key, memory_id=memory_id,
                                                    **values)
        with connect(self.scope) as conn:
            conn.execute(stmt.on_conflict_do_update(index_elements=["project", "memory_id"],
                                                    set_=values))
            conn.execute(delete(knowers).where(knowers.c.project == self.key,
                                               knowers.c.memory_id == memory_id))
            for name in known_by:
                conn.execute(self._knower(memory_id, name, episode))

    def learn(self, memory_id: str, name: str, episode: int) -> None:
        """Record that ``name`` knows the secret from ``episode`` on (idempotent)."""
        with connect(self.scope) as conn:
            conn.execute(self._knower(memory_id, name, episode))

    def remove(self, memory_id: str) -> None:
        with connect(self.scope) as conn:
            for table in (knowers, secrets):
                conn.execute(delete(table).where(table.c.project == self.key,
                                                 table.c.memory_id == memory_id))

    def secrets(self) -> list[Secret]:
        s, k = secrets.c, knowers.c
        with connect(self.scope, write=False) as conn:
            rows = conn.execute(select(s.memory_id, s.keyword, s.text).where(
                s.project == self.key).order_by(s.created, s.memory_id)).all()
            known_rows = conn.execute(select(k.memory_id, k.key).where(
                k.project == self.key)).all()
        known: dict[str, set[str]] = {}
        for mid, key in known_rows:
            known.setdefault(mid, set()).add(key)
        return [Secret(mid, kw, text, frozenset(known.get(mid, ()))) for mid, kw, text in rows]


__all__ = ["Secret", "SecretsRegistry", "leak_findings", "learned_in"]
