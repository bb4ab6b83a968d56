"""Secrets registry: who knows each secret, and characters acting on knowledge they cannot have.

A secret is a memory (usually pinned: the twist, a hidden identity) with a keyword that names it
in the draft, and the characters who know it. A character *uses* a secret when a dialogue line
of theirs or a state claim about them names its keyword; they *learn* it when a claim of the
draft names them, the keyword and a learning verb ("알게 됐다", "found out", "得知"). Using a secret
before learning it is a ``secret_leak`` error citing the secret's memory.

Storage: tables ``secrets`` and ``knowers`` of the project's ``continuity.sqlite`` (see
:mod:`aizac.continuity.ledger`), one transaction per change. :func:`learned_in` is pure; the
workflow records what it returns with :meth:`SecretsRegistry.learn` when the episode commits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from aizac.continuity.canon import Canon
from aizac.continuity.claims import Appearance, FactClaim
from aizac.continuity.ledger import connect
from aizac.continuity.report import Finding, message
from aizac.continuity.text import LEARN, has_any, mentions
from aizac.errors import InvalidInputError
from aizac.memory.facts import name_key


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
    """The secrets of one project, in ``<folder>/continuity.sqlite``."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def add(self, memory_id: str, text: str, *, keyword: str, known_by: Sequence[str] = (),
            episode: int = 0) -> None:
        """Register the secret stated by memory ``memory_id`` (replaces a registration)."""
        if not name_key(keyword):
            raise InvalidInputError("error.continuity.secret_keyword")
        with connect(self.folder) as conn:
            conn.execute("INSERT OR REPLACE INTO secrets VALUES (?, ?, ?, ?)",
                         (memory_id, keyword.strip(), text.strip(), episode))
            conn.execute("DELETE FROM knowers WHERE memory_id = ?", (memory_id,))
            for name in known_by:
                conn.execute("INSERT OR IGNORE INTO knowers VALUES (?, ?, ?, ?)",
                             (memory_id, name_key(name), name, episode))

    def learn(self, memory_id: str, name: str, episode: int) -> None:
        """Record that ``name`` knows the secret from ``episode`` on (idempotent)."""
        with connect(self.folder) as conn:
            conn.execute("INSERT OR IGNORE INTO knowers VALUES (?, ?, ?, ?)",
                         (memory_id, name_key(name), name, episode))

    def remove(self, memory_id: str) -> None:
        with connect(self.folder) as conn:
            conn.execute("DELETE FROM knowers WHERE memory_id = ?", (memory_id,))
            conn.execute("DELETE FROM secrets WHERE memory_id = ?", (memory_id,))

    def secrets(self) -> list[Secret]:
        with connect(self.folder) as conn:
            rows = conn.execute("SELECT memory_id, keyword, text FROM secrets "
                                "ORDER BY created, memory_id").fetchall()
            knowers = conn.execute("SELECT memory_id, key FROM knowers").fetchall()
        known: dict[str, set[str]] = {}
        for mid, key in knowers:
            known.setdefault(mid, set()).add(key)
        return [Secret(mid, kw, text, frozenset(known.get(mid, ()))) for mid, kw, text in rows]


__all__ = ["Secret", "SecretsRegistry", "leak_findings", "learned_in"]
